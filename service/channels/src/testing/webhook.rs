//! A webhook receiver that does what the crate doc asks of one.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::{Failures, HttpServer};
use crate::webhook::{
    SignedHeaders, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER,
    secret_key, verify,
};

/// Tolerance of the receiver's replay check.
const TOLERANCE_SECS: i64 = 300;

/// A webhook that passed verification, once per webhook id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedWebhook {
    pub path: String,
    pub webhook_id: String,
    pub timestamp: String,
    pub signature: String,
    pub body: Vec<u8>,
    /// When the request arrived (before any answer delay).
    pub received_at: SystemTime,
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
    /// The signing key. Replaceable: a receiver is often started before the account whose
    /// secret it checks exists.
    key: Mutex<Vec<u8>>,
    log: Mutex<Log>,
    failures: Failures,
    /// How long each request waits before it is answered (a slow or hanging receiver).
    answer_delay: Mutex<Duration>,
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

/// Counts a request in flight for as long as it lives.
struct InFlight<'a>(&'a Shared);

impl<'a> InFlight<'a> {
    fn enter(shared: &'a Shared) -> Self {
        shared.requests.fetch_add(1, Ordering::SeqCst);
        let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        shared.most_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight(shared)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accepts POSTs on any path: 401 unless the Standard Webhooks headers verify (with
/// [`verify`], 300 s tolerance), 200 for a verified webhook, recorded once per
/// webhook id. Scripted failures answer before anything is recorded.
pub struct WebhookReceiver {
    server: HttpServer,
    shared: Arc<Shared>,
}

impl WebhookReceiver {
    /// Verifies with `secret`, given as shown to an account (`whsec_<base64>`).
    pub async fn start(secret: &str) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            key: Mutex::new(key_of(secret)),
            log: Mutex::default(),
            failures: Failures::default(),
            answer_delay: Mutex::default(),
            requests: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            most_in_flight: AtomicUsize::new(0),
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

    /// How many webhooks passed verification (cheap to poll).
    pub fn received_count(&self) -> usize {
        self.shared.log.lock().unwrap().received.len()
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

    /// Answers every request `delay` after it arrived (recorded on arrival); longer than the
    /// sender's timeout, a hanging receiver.
    pub fn set_answer_delay(&self, delay: Duration) {
        *self.shared.answer_delay.lock().unwrap() = delay;
    }

    /// Every POST that arrived, scripted failures and refusals included.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// The most requests that were in flight at once.
    pub fn most_in_flight(&self) -> usize {
        self.shared.most_in_flight.load(Ordering::SeqCst)
    }

    /// Verifies requests from now on with `secret` (`whsec_<base64>`).
    pub fn set_secret(&self, secret: &str) {
        *self.shared.key.lock().unwrap() = key_of(secret);
    }
}

/// A secret that is not base64 becomes an empty key, which no sender in the tests signs with.
fn key_of(secret: &str) -> Vec<u8> {
    secret_key(secret).unwrap_or_default()
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
    let _in_flight = InFlight::enter(&shared);
    let received_at = SystemTime::now();
    let delay = *shared.answer_delay.lock().unwrap();
    let answer = answer(&shared, uri, headers, body, received_at);
    tokio::time::sleep(delay).await;
    answer
}

fn answer(
    shared: &Shared,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
    received_at: SystemTime,
) -> Response {
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
    let webhook_id = header(WEBHOOK_ID_HEADER).unwrap_or_default();
    let timestamp = header(WEBHOOK_TIMESTAMP_HEADER).unwrap_or_default();
    let signature = header(WEBHOOK_SIGNATURE_HEADER).unwrap_or_default();
    let signed = SignedHeaders {
        id: &webhook_id,
        timestamp: &timestamp,
        signature: &signature,
    };
    let key = shared.key.lock().unwrap().clone();
    let verified = verify(signed, &body, &key, now, TOLERANCE_SECS);
    let mut log = shared.log.lock().unwrap();
    if verified.is_err() || webhook_id.is_empty() {
        log.rejected += 1;
        return (
            StatusCode::UNAUTHORIZED,
            "signature or webhook id missing or wrong",
        )
            .into_response();
    }
    if !log.seen.insert(webhook_id.clone()) {
        log.duplicates += 1;
        return StatusCode::OK.into_response();
    }
    log.received.push(ReceivedWebhook {
        path: uri.path().to_owned(),
        webhook_id,
        timestamp,
        signature,
        body: body.to_vec(),
        received_at,
    });
    StatusCode::OK.into_response()
}
