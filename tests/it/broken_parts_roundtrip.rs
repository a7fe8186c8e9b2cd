//! The crates generated from tests/fixtures/broken-parts.yaml (tests/generated/broken-parts): a
//! document with flaws in some parts. What its flaws leave out is not routed; what remains goes
//! from the generated client to the generated server over real HTTP, a property whose schema was
//! left out carrying any JSON value both ways.

use broken_parts_client::Client;
use broken_parts_server::models::{Note, Shape, Square};
use broken_parts_server::{
    BrokenPartsApi, CreateNoteRequest, CreateNoteResponse, GetShapeRequest, GetShapeResponse,
    ListNotesRequest, ListNotesResponse,
};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// Keeps the notes it is sent.
#[derive(Default)]
struct Notes(Mutex<Vec<Note>>);

impl BrokenPartsApi for Notes {
    async fn list_notes(&self, _: ListNotesRequest) -> ListNotesResponse {
        ListNotesResponse::Ok(self.0.lock().unwrap().clone())
    }

    async fn create_note(&self, request: CreateNoteRequest) -> CreateNoteResponse {
        self.0.lock().unwrap().push(request.body.clone());
        CreateNoteResponse::Created(request.body)
    }

    async fn get_shape(&self, _: GetShapeRequest) -> GetShapeResponse {
        GetShapeResponse::Ok(Shape::Square(Square {
            kind: "square".into(),
            side: 2.5,
        }))
    }
}

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    let app = broken_parts_server::router(Arc::new(Notes::default()));
    tokio::spawn(async move {
        broken_parts_server::axum::serve(listener, app)
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

#[tokio::test]
async fn what_the_flaws_leave_round_trips() {
    let base = start().await;
    let client = Client::new(base).expect("client");
    let note = Note {
        id: 7,
        text: "hello".into(),
        // The schema of `author` names nothing: any JSON value goes through as it is.
        author: Some(json!({"name": "Ada", "since": 1843, "tags": ["first"]})),
        tags: Some(vec!["a".into()]),
    };
    assert_eq!(client.create_note(note.clone()).await.unwrap(), note);
    let bare = Note {
        id: 8,
        text: "no author".into(),
        author: None,
        tags: None,
    };
    assert_eq!(client.create_note(bare.clone()).await.unwrap(), bare);
    assert_eq!(client.list_notes().await.unwrap(), vec![note, bare]);
    // The discriminator's entry for a missing schema is ignored; the others still tag.
    assert_eq!(
        client.get_shape().await.unwrap(),
        Shape::Square(Square {
            kind: "square".into(),
            side: 2.5
        })
    );
}

#[tokio::test]
async fn operations_left_out_are_not_routed() {
    let base = start().await;
    let http = reqwest::Client::new();
    for (method, path) in [
        (reqwest::Method::GET, "/notes/1"),
        (reqwest::Method::DELETE, "/notes/1"),
        (reqwest::Method::POST, "/folders"),
        (reqwest::Method::POST, "/attachments"),
        (reqwest::Method::GET, "/audit"),
    ] {
        let response = http
            .request(method.clone(), format!("{base}{path}"))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "{method} {path}");
    }
    // What remains is routed, and still validated: a note without its required text is refused.
    let refused = http
        .post(format!("{base}/notes"))
        .json(&json!({"id": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
}
