//! The crates generated from tests/fixtures/errors-formats.yaml (tests/generated/errors-formats):
//! the client against the server over real HTTP on 127.0.0.1. Every documented error status
//! arrives as its own variant with its own body and headers; `format: uri` is a `url::Url` and
//! `format: byte` base64 text on the wire and bytes in Rust on both sides; binary bodies keep their
//! content type; the look-around pattern of `Name` is enforced by the models and the router; open
//! enums keep unlisted values in the models, and the server still refuses them.

use errors_formats_client::codec::Binary;
use errors_formats_client::models::bytes::Base64;
use errors_formats_client::models::{
    BasicError, CreateDocument503Response, Document, DocumentKind, DocumentPriority, Validate,
    ValidationErrorModel,
};
use errors_formats_client::{Client, Error, errors};
use errors_formats_server::axum::body::Bytes;
use errors_formats_server::axum::http::StatusCode;
use errors_formats_server::{
    CreateDocumentRequest, CreateDocumentResponse, ErrorsAndFormatsApi, GetContentRequest,
    GetContentResponse, GetPreviewRequest, GetPreviewResponse, PutContentRequest,
    PutContentResponse, PutPreviewRequest, PutPreviewResponse, Rejection,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Documents in memory; a document's name picks the error `create_document` answers.
#[derive(Default)]
struct Documents {
    stored: Mutex<HashMap<String, (Document, Vec<u8>)>>,
    /// Previews with the content type they were sent with.
    previews: Mutex<HashMap<String, (Option<String>, Bytes)>>,
}

const UNTIL: &str = "2026-01-02T03:04:05Z";

impl ErrorsAndFormatsApi for Documents {
    fn rejection(&self, rejection: &Rejection) -> BasicError {
        BasicError {
            message: rejection.message.clone(),
        }
    }

    async fn create_document(&self, request: CreateDocumentRequest) -> CreateDocumentResponse {
        let document = request.body;
        match document.name.as_str() {
            "forbidden" => CreateDocumentResponse::Forbidden(BasicError {
                message: "read-only".to_owned(),
            }),
            "invalid" => CreateDocumentResponse::UnprocessableEntity(ValidationErrorModel {
                fields: vec!["source".to_owned()],
            }),
            "maintenance" => CreateDocumentResponse::ServiceUnavailable {
                body: CreateDocument503Response {
                    until: UNTIL.parse().expect("a date-time"),
                },
                retry_after: Some(120),
            },
            "teapot" => CreateDocumentResponse::Status4xx(
                StatusCode::IM_A_TEAPOT,
                "short and stout".to_owned(),
            ),
            "broken" => CreateDocumentResponse::Default(StatusCode::INTERNAL_SERVER_ERROR),
            name => {
                let mut stored = self.stored.lock().expect("lock");
                stored.insert(name.to_owned(), (document.clone(), Vec::new()));
                CreateDocumentResponse::Created(document)
            }
        }
    }

    fn create_document_rejection(&self, rejection: &Rejection) -> CreateDocumentResponse {
        CreateDocumentResponse::Status4xx(rejection.status, rejection.message.clone())
    }

    async fn get_content(&self, request: GetContentRequest) -> GetContentResponse {
        let stored = self.stored.lock().expect("lock");
        let Some((document, content)) = stored.get(&request.name) else {
            return GetContentResponse::NotFound;
        };
        if request
            .checksum
            .is_some_and(|checksum| checksum != document.checksum)
        {
            return GetContentResponse::PreconditionFailed;
        }
        GetContentResponse::Ok(Bytes::from(content.clone()))
    }

    async fn put_preview(&self, request: PutPreviewRequest) -> PutPreviewResponse {
        let mut previews = self.previews.lock().expect("lock");
        previews.insert(
            request.name,
            (request.body.content_type, request.body.bytes),
        );
        PutPreviewResponse::NoContent
    }

    async fn get_preview(&self, request: GetPreviewRequest) -> GetPreviewResponse {
        let previews = self.previews.lock().expect("lock");
        match previews.get(&request.name) {
            Some((content_type, bytes)) => GetPreviewResponse::Ok {
                body: bytes.clone(),
                content_type: content_type.clone().unwrap_or_default(),
            },
            None => GetPreviewResponse::NotFound,
        }
    }

    async fn put_content(&self, request: PutContentRequest) -> PutContentResponse {
        let mut stored = self.stored.lock().expect("lock");
        match stored.get_mut(&request.name) {
            Some((_, content)) => {
                *content = request.body.bytes.to_vec();
                PutContentResponse::NoContent
            }
            None => PutContentResponse::NotFound,
        }
    }
}

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    let app = errors_formats_server::router(Arc::new(Documents::default()));
    tokio::spawn(async move {
        errors_formats_server::axum::serve(listener, app)
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

fn client(base_url: &str) -> Client {
    Client::builder(base_url).build().expect("client")
}

fn document(name: &str) -> Document {
    Document {
        name: name.to_owned(),
        source: "https://example.com/papers/a%20b.pdf"
            .parse()
            .expect("a URL"),
        mirrors: Some(vec![
            "ftp://mirror.example.org/a.pdf".parse().expect("a URL"),
        ]),
        checksum: Base64(vec![0, 1, 2, 253, 254, 255]),
        thumbnail: None,
        tags: None,
        kind: None,
        priority: None,
    }
}

/// The status and the variant of a documented error, or a panic naming what came instead.
fn api_error<T: std::fmt::Debug>(
    result: Result<T, Error<errors::CreateDocument>>,
) -> (u16, errors::CreateDocument) {
    match result {
        Err(Error::Api { status, body }) => (status.as_u16(), *body),
        other => panic!("expected Error::Api, got {other:?}"),
    }
}

#[tokio::test]
async fn each_documented_error_status_decodes_into_its_own_variant() {
    let client = client(&start().await);
    let create = |name: &str| client.create_document(document(name)).send();

    let (status, error) = api_error(create("forbidden").await);
    assert_eq!(status, 403);
    assert_eq!(
        error,
        errors::CreateDocument::Forbidden(BasicError {
            message: "read-only".to_owned()
        })
    );

    let (status, error) = api_error(create("invalid").await);
    assert_eq!(status, 422);
    assert_eq!(
        error,
        errors::CreateDocument::UnprocessableEntity(ValidationErrorModel {
            fields: vec!["source".to_owned()]
        })
    );

    // Its own body and its documented header.
    let (status, error) = api_error(create("maintenance").await);
    assert_eq!(status, 503);
    assert_eq!(
        error,
        errors::CreateDocument::ServiceUnavailable {
            body: CreateDocument503Response {
                until: UNTIL.parse().expect("a date-time")
            },
            retry_after: Some(120),
        }
    );

    // `4XX` (text) and `default` (no body) carry the status in `Error::Api`.
    let (status, error) = api_error(create("teapot").await);
    assert_eq!(
        (status, error),
        (
            418,
            errors::CreateDocument::Status4xx("short and stout".to_owned())
        )
    );
    let (status, error) = api_error(create("broken").await);
    assert_eq!((status, error), (500, errors::CreateDocument::Default));
}

#[tokio::test]
async fn uri_and_byte_formats_round_trip() {
    let base_url = start().await;
    let client = client(&base_url);
    let mut sent = document("report-2026");
    sent.thumbnail = Some(Base64(b"\x89PNG".to_vec()));
    let created = client
        .create_document(sent.clone())
        .send()
        .await
        .expect("created");
    assert_eq!(created, sent);

    // On the wire: URLs as text, bytes as padded standard base64.
    let mut raw = sent.clone();
    raw.name = "wire".to_owned();
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{base_url}/documents"))
        .json(&raw)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("JSON");
    assert_eq!(answer["source"], "https://example.com/papers/a%20b.pdf");
    assert_eq!(answer["mirrors"][0], "ftp://mirror.example.org/a.pdf");
    assert_eq!(answer["checksum"], "AAEC/f7/");
    assert_eq!(answer["thumbnail"], "iVBORw==");

    // The server decodes both: a relative URI or text that is not base64 is refused (`4XX`).
    for (field, value) in [("source", "/relative/path"), ("checksum", "not base64!")] {
        let mut body = serde_json::to_value(document("refused")).expect("JSON");
        body[field] = value.into();
        let response = reqwest::Client::new()
            .post(format!("{base_url}/documents"))
            .json(&body)
            .send()
            .await
            .expect("sent");
        let status = response.status().as_u16();
        let text = response.text().await.expect("text");
        assert_eq!(status, 400, "{field}: {text}");
        assert!(text.contains(field), "{field}: {text}");
    }
}

#[tokio::test]
async fn binary_bodies_keep_their_bytes_and_content_type() {
    let base_url = start().await;
    let client = client(&base_url);
    client
        .create_document(document("paper"))
        .send()
        .await
        .expect("created");
    let content: Vec<u8> = (0..=255).collect();
    client
        .put_content("paper".to_owned(), content.clone())
        .send()
        .await
        .expect("stored");
    assert_eq!(
        client
            .get_content("paper".to_owned())
            .send()
            .await
            .expect("content"),
        content
    );

    let response = reqwest::Client::new()
        .get(format!("{base_url}/documents/paper/content"))
        .send()
        .await
        .expect("sent");
    assert_eq!(
        response.headers()["content-type"].to_str().ok(),
        Some("application/pdf")
    );

    // A `format: byte` query parameter travels as base64 and is compared as bytes.
    let matching = client
        .get_content("paper".to_owned())
        .checksum(Base64(vec![0, 1, 2, 253, 254, 255]))
        .send()
        .await;
    assert_eq!(matching.expect("content"), content);
    match client
        .get_content("paper".to_owned())
        .checksum(Base64(vec![9]))
        .send()
        .await
    {
        Err(Error::Api { status, body }) => {
            assert_eq!(
                (status.as_u16(), *body),
                (412, errors::GetContent::PreconditionFailed)
            );
        }
        other => panic!("expected 412, got {other:?}"),
    }
}

#[tokio::test]
async fn an_open_media_range_carries_the_content_type_both_ways() {
    let client = client(&start().await);
    let png = Binary {
        content_type: Some("image/png".to_owned()),
        bytes: b"\x89PNG\r\n".to_vec(),
    };
    client
        .put_preview("cover".to_owned(), png.clone())
        .send()
        .await
        .expect("stored");
    let preview = client
        .get_preview("cover".to_owned())
        .send()
        .await
        .expect("preview");
    assert_eq!(preview, png);
    // Without a content type the client sends no wildcard: `application/octet-stream`.
    let untyped = Binary {
        content_type: None,
        bytes: vec![1, 2],
    };
    client
        .put_preview("raw".to_owned(), untyped)
        .send()
        .await
        .expect("stored");
    let preview = client
        .get_preview("raw".to_owned())
        .send()
        .await
        .expect("preview");
    assert_eq!(
        preview.content_type.as_deref(),
        Some("application/octet-stream")
    );
}

#[tokio::test]
async fn the_look_around_pattern_and_map_sizes_are_enforced() {
    // `^(?!-)(?!.*--)[a-z0-9-]+(?<!-)$`: look-ahead and look-behind, compiled with fancy-regex.
    for name in ["a", "two-words", "x-1-y"] {
        assert!(document(name).validate().is_ok(), "{name}");
    }
    for name in ["-leading", "trailing-", "double--dash", "Upper"] {
        let errors = document(name).validate().expect_err(name);
        assert!(errors.to_string().contains("pattern"), "{name}: {errors}");
    }

    // `maxProperties` of a map is enforced as well.
    let mut tagged = document("tagged");
    let tags = |n: usize| (0..n).map(|i| (format!("t{i}"), String::new())).collect();
    tagged.tags = Some(tags(2));
    assert!(tagged.validate().is_ok());
    tagged.tags = Some(tags(3));
    let errors = tagged.validate().expect_err("three tags");
    assert!(errors.to_string().contains("at most 2 entries"), "{errors}");

    // The router checks the path parameter against it too: a 400 `put_content` does not document.
    let client = client(&start().await);
    match client
        .put_content("bad--name".to_owned(), vec![1])
        .send()
        .await
    {
        Err(Error::UnexpectedStatus { status, body }) => {
            assert_eq!(status.as_u16(), 400);
            assert!(body.contains("pattern"), "{body}");
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    // And the JSON body's `name` (answered by `create_document_rejection` as `4XX`).
    match client.create_document(document("bad-")).send().await {
        Err(Error::Api { status, body }) => {
            assert_eq!(status.as_u16(), 400);
            assert!(
                matches!(&*body, errors::CreateDocument::Status4xx(text) if text.contains("name")),
                "{body:?}"
            );
        }
        other => panic!("expected a 400, got {other:?}"),
    }
}

#[test]
fn unlisted_enum_values_round_trip_in_the_models() {
    let mut json = serde_json::to_value(document("memo")).expect("encodes");
    json["kind"] = serde_json::json!("memo");
    json["priority"] = serde_json::json!(7);
    let decoded: Document =
        serde_json::from_value(json.clone()).expect("an unlisted value decodes");
    assert_eq!(decoded.kind, Some(DocumentKind::Unknown("memo".to_owned())));
    assert_eq!(decoded.priority, Some(DocumentPriority::Unknown(7)));
    assert_eq!(serde_json::to_value(&decoded).expect("encodes"), json);
    assert_eq!(
        decoded.kind.as_ref().map(DocumentKind::as_str),
        Some("memo")
    );
    assert_eq!(decoded.priority.map(DocumentPriority::value), Some(7));
    // Listed values stay their own variants, and parsing (parameters) accepts only them.
    let listed: Document = serde_json::from_value(serde_json::json!({
        "name": "a", "source": "https://example.com/", "checksum": "", "kind": "letter", "priority": 2
    }))
    .expect("decodes");
    assert_eq!(listed.kind, Some(DocumentKind::Letter));
    assert_eq!(listed.priority, Some(DocumentPriority::Value2));
    assert!(listed.validate().is_ok());
    assert!("memo".parse::<DocumentKind>().is_err());
    assert!(DocumentPriority::try_from(7).is_err());
    // `Validate` reports them, naming the listed values.
    let errors = decoded.validate().expect_err("unlisted values");
    assert_eq!(
        errors.to_string(),
        "kind: \"memo\" is not one of the listed values (`report`, `letter`); \
         priority: 7 is not one of the listed values (`1`, `2`, `3`)"
    );
}

#[tokio::test]
async fn the_server_refuses_unlisted_enum_values() {
    let client = client(&start().await);
    let mut sent = document("memo");
    sent.kind = Some(DocumentKind::Unknown("memo".to_owned()));
    match client.create_document(sent).send().await {
        Err(Error::Api { status, body }) => {
            assert_eq!(status.as_u16(), 400);
            assert!(
                matches!(&*body, errors::CreateDocument::Status4xx(text) if text.contains("kind") && text.contains("memo")),
                "{body:?}"
            );
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    let mut sent = document("letter");
    sent.kind = Some(DocumentKind::Letter);
    sent.priority = Some(DocumentPriority::Value3);
    let stored = client
        .create_document(sent.clone())
        .send()
        .await
        .expect("stored");
    assert_eq!(stored, sent);
}
