//! A webhook receiver that does what the crate doc asks of one.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::{Failures, HttpServer};
use crate::webhook::{SIGNATURE_HEADER, WEBHOOK_ID_HEADER, verify};

/// Tolerance of the receiver's replay check.
const TOLERANCE_SECS: i64 = 300;

/// A webhook that passed verification, once per webhook id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedWebhook {
    pub path: String,
    pub webhook_id: String,
    pub signature: String,
    pub body: Vec<u8>,
}

impl ReceivedWebhook {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("webhook body is JSON")
    }
}

#[derive(Default)]
struct Log {
    received: Vec<ReceivedWebhook>,
    seen: HashSet<String>,
    rejected: usize,
    duplicates: usize,
}

struct Shared {
    /// Replaceable: a receiver is often started before the account whose secret it checks exists.
    secret: Mutex<Vec<u8>>,
    log: Mutex<Log>,
    failures: Failures,
}

/// Accepts POSTs on any path: 401 unless the signature verifies (with [`verify`], 300 s
/// tolerance) and a webhook id is present, 200 for a verified webhook, recorded once per
/// webhook id. Scripted failures answer before anything is recorded.
pub struct WebhookReceiver {
    server: HttpServer,
    shared: Arc<Shared>,
}

impl WebhookReceiver {
    pub async fn start(secret: &[u8]) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            secret: Mutex::new(secret.to_owned()),
            log: Mutex::default(),
            failures: Failures::default(),
        });
        let router = Router::new().fallback(receive).with_state(shared.clone());
        Ok(Self {
            server: HttpServer::start(router).await?,
            shared,
        })
    }

    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    pub fn port(&self) -> u16 {
        self.server.addr.port()
    }

    /// `base_url()` + `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    pub fn received(&self) -> Vec<ReceivedWebhook> {
        self.shared.log.lock().unwrap().received.clone()
    }

    /// Requests refused for a missing or wrong signature.
    pub fn rejected(&self) -> usize {
        self.shared.log.lock().unwrap().rejected
    }

    /// Verified requests whose webhook id had been received before.
    pub fn duplicates(&self) -> usize {
        self.shared.log.lock().unwrap().duplicates
    }

    /// Answers the next `count` requests with `status` (500, 429, 302, 410, ...).
    pub fn fail_next(&self, count: usize, status: u16) {
        self.shared.failures.set(count, status);
    }

    /// Verifies requests from now on with `secret`.
    pub fn set_secret(&self, secret: &[u8]) {
        *self.shared.secret.lock().unwrap() = secret.to_owned();
    }
}

async fn receive(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if method != Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    if let Some(status) = shared.failures.take() {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, "scripted failure").into_response();
        if status.is_redirection() {
            response.headers_mut().insert(
                axum::http::header::LOCATION,
                axum::http::HeaderValue::from_static("https://elsewhere.example/hook"),
            );
        }
        return response;
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let signature = header(SIGNATURE_HEADER).unwrap_or_default();
    let secret = shared.secret.lock().unwrap().clone();
    let verified = verify(&signature, &body, &secret, now, TOLERANCE_SECS);
    let mut log = shared.log.lock().unwrap();
    let (Ok(()), Some(webhook_id)) = (verified, header(WEBHOOK_ID_HEADER)) else {
        log.rejected += 1;
        return (
            StatusCode::UNAUTHORIZED,
            "signature or webhook id missing or wrong",
        )
            .into_response();
    };
    if !log.seen.insert(webhook_id.clone()) {
        log.duplicates += 1;
        return StatusCode::OK.into_response();
    }
    log.received.push(ReceivedWebhook {
        path: uri.path().to_owned(),
        webhook_id,
        signature,
        body: body.to_vec(),
    });
    StatusCode::OK.into_response()
}
