//! OpenAPI 3.2's OAuth 2.0 device authorization flow (tests/fixtures/device-flow-3.2.yaml, crates
//! checked in under tests/generated/device-flow): the generated client runs RFC 8628 against a
//! small authorization server of this test, served beside the generated server on 127.0.0.1, and
//! calls the API with the token it gets. The server answers as section 3.5 says: pending, then
//! `slow_down`, then the token, and the client waits the interval, then 5 s more.

use device_flow_client::{Client, DeviceFlowError};
use device_flow_server::axum::{self, Form, Json, Router, extract::State, routing::post};
use device_flow_server::models::WhoAmIResponse as Viewer;
use device_flow_server::{Rejection, TelevisionApi, WhoAmIRequest, WhoAmIResponse};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The API: a token is a viewer's name with a prefix.
struct Television;

impl TelevisionApi for Television {
    type Principal = String;

    async fn authenticate(&self, bearer_token: &str) -> Result<String, Rejection> {
        bearer_token
            .strip_prefix("token-for-")
            .map(str::to_owned)
            .ok_or_else(|| Rejection::invalid_token("unknown token"))
    }

    async fn who_am_i(&self, principal: String, _request: WhoAmIRequest) -> WhoAmIResponse {
        WhoAmIResponse::Ok(Viewer { name: principal })
    }
}

/// The authorization server's script: what each token request is answered, in turn.
#[derive(Default)]
struct Authorizer {
    answers: Mutex<Vec<&'static str>>,
    /// The form of each request, with when it came.
    seen: Mutex<Vec<(Instant, HashMap<String, String>)>>,
}

async fn device(
    State(auth): State<Arc<Authorizer>>,
    Form(form): Form<HashMap<String, String>>,
) -> Json<Value> {
    auth.seen.lock().unwrap().push((Instant::now(), form));
    Json(json!({
        "device_code": "dev-123",
        "user_code": "WDJB-MJHT",
        "verification_uri": "https://tv.example.com/device",
        "verification_uri_complete": "https://tv.example.com/device?user_code=WDJB-MJHT",
        "expires_in": 60,
        "interval": 1
    }))
}

async fn token(
    State(auth): State<Arc<Authorizer>>,
    Form(form): Form<HashMap<String, String>>,
) -> (axum::http::StatusCode, Json<Value>) {
    auth.seen.lock().unwrap().push((Instant::now(), form));
    let answer = auth.answers.lock().unwrap().remove(0);
    match answer {
        "token" => (
            axum::http::StatusCode::OK,
            Json(
                json!({"access_token": "token-for-Ada", "token_type": "Bearer", "expires_in": 3600}),
            ),
        ),
        error => (
            axum::http::StatusCode::BAD_REQUEST,
            Json(json!({"error": error})),
        ),
    }
}

async fn serve(answers: Vec<&'static str>) -> (String, Arc<Authorizer>) {
    let auth = Arc::new(Authorizer {
        answers: Mutex::new(answers),
        ..Authorizer::default()
    });
    let oauth = Router::new()
        .route("/oauth/device", post(device))
        .route("/oauth/token", post(token))
        .with_state(auth.clone());
    let app = device_flow_server::router(Arc::new(Television)).merge(oauth);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });
    (format!("http://{address}"), auth)
}

#[tokio::test]
async fn the_client_runs_the_device_flow_and_calls_with_the_token() {
    let (base, auth) = serve(vec!["authorization_pending", "slow_down", "token"]).await;
    let client = Client::new(base.clone()).unwrap();
    let started = client
        .device_authorization("tv-app", &["profile"])
        .await
        .expect("started");
    assert_eq!(started.user_code, "WDJB-MJHT");
    assert_eq!(started.verification_uri, "https://tv.example.com/device");
    assert!(
        !format!("{started:?}").contains("dev-123"),
        "the device code is not shown"
    );
    let token = started.token().await.expect("approved");
    assert_eq!(token.access_token, "token-for-Ada");

    let seen = auth.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].1["client_id"], "tv-app");
    assert_eq!(seen[0].1["scope"], "profile");
    for (_, form) in &seen[1..] {
        assert_eq!(
            form["grant_type"],
            "urn:ietf:params:oauth:grant-type:device_code"
        );
        assert_eq!(form["device_code"], "dev-123");
        assert_eq!(form["client_id"], "tv-app");
    }
    // The interval (1 s) between polls, and 5 s more after `slow_down`.
    let gap = |i: usize| seen[i].0 - seen[i - 1].0;
    assert!(gap(1) >= Duration::from_secs(1), "{:?}", gap(1));
    assert!(gap(2) >= Duration::from_secs(1), "{:?}", gap(2));
    assert!(gap(3) >= Duration::from_secs(6), "{:?}", gap(3));

    let signed_in = Client::builder(base)
        .bearer_token(token.access_token)
        .build()
        .unwrap();
    assert_eq!(signed_in.who_am_i().await.unwrap().name, "Ada");
}

#[tokio::test]
async fn a_denied_or_expired_request_ends_the_flow() {
    for (answer, expected) in [("access_denied", "denied"), ("expired_token", "expired")] {
        let (base, _) = serve(vec![answer]).await;
        let client = Client::new(base).unwrap();
        let started = client.device_authorization("tv-app", &[]).await.unwrap();
        let error = started.token().await.expect_err("no token");
        match (&error, expected) {
            (DeviceFlowError::Denied, "denied") | (DeviceFlowError::Expired, "expired") => {}
            _ => panic!("{answer}: {error:?}"),
        }
    }
    // Any other error is reported with its code.
    let (base, _) = serve(vec!["invalid_client"]).await;
    let client = Client::new(base).unwrap();
    let error = client
        .device_authorization("nobody", &[])
        .await
        .unwrap()
        .token()
        .await
        .expect_err("refused");
    assert!(
        matches!(&error, DeviceFlowError::Refused { status: 400, error: Some(e), .. } if e == "invalid_client"),
        "{error:?}"
    );
}
