//! The crates generated from tests/fixtures/lenient-3.1.yaml (tests/generated/lenient, every
//! option at its default), over real HTTP on 127.0.0.1: formats are annotations. A server that
//! answers a relative URL, an id that is not a UUID, a timestamp without an offset, a counter
//! beyond its `int32` and a numeral beyond it has its answer decoded and kept by the generated
//! client, and `Validate` names each; the generated server refuses the same body (clients are
//! liberal, servers strict). Numbers the server sends as strings (`"19.720000"`) are read as the
//! numbers; the generated server refuses them when it decodes.

use lenient_client::Client;
use lenient_client::models::{Call, Validate};
use lenient_server::*;
use serde_json::{Value, json};
use std::sync::Arc;

/// What a real server answered beside its document.
fn answered() -> Value {
    json!({
        "id": "call_8Kx2",
        "next": "/v1/calls?page=2",
        "startedAt": "2026-11-26T10:00:00",
        "day": "26.11.2026",
        "views": 3_000_000_000_i64,
        "threshold": "-84527355224",
        "sizes": [300],
        "latitude": "19.720000",
        "retries": "7",
        "readings": ["1.5", 2]
    })
}

/// Answers `answered()` on any GET, with a header beyond `int32`: it stands for a server written
/// by others.
async fn foreign_server() -> String {
    use axum::routing::get;
    let app = axum::Router::new().route(
        "/calls/{id}",
        get(|| async { ([("x-remaining", "5000000000")], axum::Json(answered())) }),
    );
    serve(app).await
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });
    format!("http://{address}")
}

/// Stores nothing; answers what it was sent.
struct Echo;

impl LenientFormatsApi for Echo {
    fn rejection(&self, rejection: &Rejection) -> models::Error {
        models::Error {
            message: rejection.message.clone(),
        }
    }

    async fn create_call(&self, request: CreateCallRequest) -> CreateCallResponse {
        CreateCallResponse::Created(request.body)
    }

    async fn get_call(&self, _request: GetCallRequest) -> GetCallResponse {
        GetCallResponse::Other(
            axum::http::StatusCode::NOT_FOUND,
            models::Error {
                message: "no such call".to_owned(),
            },
        )
    }
}

#[tokio::test]
async fn the_client_keeps_what_the_types_admit_and_validate_names_each_format() {
    let base = foreign_server().await;
    let client = Client::new(base).expect("client");
    let answer = client
        .get_call(uuid::Uuid::nil())
        .send_full()
        .await
        .expect("an answer the schema's types admit decodes");
    assert_eq!(answer.documented.x_remaining, Some(5_000_000_000));
    let call: Call = answer.into_inner();
    assert_eq!(call.id, "call_8Kx2");
    assert_eq!(call.next, "/v1/calls?page=2");
    assert_eq!(call.started_at, "2026-11-26T10:00:00");
    assert_eq!(call.day.as_deref(), Some("26.11.2026"));
    assert_eq!(call.views, 3_000_000_000);
    assert_eq!(call.threshold, -84_527_355_224);
    assert_eq!(call.sizes, Some(vec![300]));
    assert_eq!(call.latitude, 19.72);
    assert_eq!(call.retries, Some(7));
    assert_eq!(call.readings, Some(vec![1.5, 2.0]));
    // Sent back as it came, numbers as numbers (as the fields always encode).
    let mut expected = answered();
    expected["threshold"] = json!(-84_527_355_224_i64);
    expected["latitude"] = json!(19.72);
    expected["retries"] = json!(7);
    expected["readings"] = json!([1.5, 2.0]);
    assert_eq!(serde_json::to_value(&call).unwrap(), expected);

    let errors = call.validate().unwrap_err().to_string();
    for (field, says) in [
        ("id", "must be a UUID"),
        ("next", "must be an absolute URI"),
        ("startedAt", "must be an RFC 3339 date-time"),
        ("day", "must be a date"),
        ("views", "must be at most 2147483647 (is 3000000000)"),
        (
            "threshold",
            "must be at least -2147483648 (is -84527355224)",
        ),
        ("sizes[0]", "must be at most 255 (is 300)"),
    ] {
        assert!(
            errors.contains(&format!("{field}: {says}")),
            "{field} should say `{says}`: {errors}"
        );
    }
}

#[tokio::test]
async fn the_generated_server_refuses_each_format_the_client_kept() {
    let base = serve(router(Arc::new(Echo))).await;
    let valid = json!({
        "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "next": "https://example.com/v1/calls?page=2",
        "startedAt": "2026-11-26T10:00:00Z",
        "day": "2026-11-26",
        "views": 2_147_483_647_i64,
        "threshold": "-2147483648",
        "sizes": [255],
        "latitude": 19.72,
        "retries": 7,
        "readings": [1.5, 2]
    });
    let post = |body: Value| {
        let base = base.clone();
        async move {
            let response = reqwest::Client::new()
                .post(format!("{base}/calls"))
                .json(&body)
                .send()
                .await
                .expect("sent");
            let status = response.status().as_u16();
            (status, response.text().await.expect("body"))
        }
    };
    assert_eq!(post(valid.clone()).await.0, 201);
    let kept = answered();
    for field in [
        "id",
        "next",
        "startedAt",
        "day",
        "views",
        "threshold",
        "sizes",
        "latitude",
        "retries",
        "readings",
    ] {
        let mut body = valid.clone();
        body[field] = kept[field].clone();
        let (status, text) = post(body).await;
        assert_eq!(status, 400, "{field}: {text}");
        assert!(text.contains(field), "{field}: {text}");
    }
    // What the client kept, sent back through the client, is refused the same way.
    let client = Client::new(base.clone()).expect("client");
    let call: Call = serde_json::from_value(answered()).expect("decodes");
    let refused = client.create_call(call).await.unwrap_err();
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400), "{refused}");
    // Parameters keep their types: only the server reads them, strictly.
    let response = reqwest::get(format!("{base}/calls/call_8Kx2"))
        .await
        .expect("sent");
    assert_eq!(response.status().as_u16(), 400);
}

/// Numbers at the edges of their types: a client keeps a float beyond its `format: float` as
/// the nearest `f32` (Prism's examples send -3.402823669209385e+38), and the generated server
/// refuses an `int64` written beyond its range, which a JSON parser reads as a float that rounds
/// into it (-9223372036854775809 is -2^63 as a double).
#[tokio::test]
async fn numbers_beyond_their_types_are_kept_by_the_client_and_refused_by_the_server() {
    let mut answer = answered();
    answer["readings"] = json!([-3.402823669209385e38, 3.5e38]);
    let call: Call = serde_json::from_value(answer).expect("a client keeps it");
    let readings = call.readings.expect("readings");
    assert_eq!(readings.len(), 2);
    assert!(readings.iter().all(|r| r.is_finite()), "{readings:?}");

    let base = serve(router(Arc::new(Echo))).await;
    let body = r#"{"id": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "next": "https://0.com",
        "startedAt": "2000-01-01T00:00:00Z", "day": "2000-01-01", "views": 0, "threshold": "0",
        "sizes": [], "latitude": 0, "retries": -9223372036854775809, "readings": []}"#;
    let response = reqwest::Client::new()
        .post(format!("{base}/calls"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("retries"), "{text}");
}
