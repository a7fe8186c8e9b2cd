//! Twilio's Messages and Calls resources.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use base64::Engine;
use serde_json::{Value, json};

use super::{Failures, HttpServer};
use crate::twilio::IDEMPOTENCY_HEADER;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TwilioResource {
    Messages,
    Calls,
}

/// A message or call the stand-in created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwilioRequest {
    pub resource: TwilioResource,
    /// The form fields as sent (`To`, `From`, `Body` or `Twiml`, ...).
    pub form: BTreeMap<String, String>,
    pub idempotency_token: Option<String>,
    pub sid: String,
}

impl TwilioRequest {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form.get(name).map(String::as_str)
    }
}

struct Shared {
    account_sid: String,
    auth_token: String,
    /// One lock, so that two requests with the same token cannot both create.
    ledger: Mutex<Ledger>,
    failures: Failures,
    /// How long to wait after recording a request before answering it (a slow provider: a
    /// client killed meanwhile never learns that the message was created).
    answer_delay: Mutex<std::time::Duration>,
}

#[derive(Default)]
struct Ledger {
    created: Vec<TwilioRequest>,
    /// Idempotency token -> the answer given, replayed for a repeat.
    answers: HashMap<String, Value>,
    attempts: usize,
}

/// Checks Basic auth against the account, validates `To` as E.164, answers 201 with a
/// Twilio-shaped resource, and replays the answer for a repeated `I-Twilio-Idempotency-Token`
/// without creating a second resource. Failed requests are not remembered, so a retry with the
/// same token goes through.
pub struct TwilioStandIn {
    server: HttpServer,
    shared: Arc<Shared>,
}

impl TwilioStandIn {
    pub async fn start(account_sid: &str, auth_token: &str) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            account_sid: account_sid.to_owned(),
            auth_token: auth_token.to_owned(),
            ledger: Mutex::default(),
            failures: Failures::default(),
            answer_delay: Mutex::default(),
        });
        let router = Router::new()
            .route("/2010-04-01/Accounts/{sid}/Messages.json", post(messages))
            .route("/2010-04-01/Accounts/{sid}/Calls.json", post(calls))
            .with_state(shared.clone());
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

    /// Messages and calls created, in order.
    pub fn requests(&self) -> Vec<TwilioRequest> {
        self.shared.ledger.lock().unwrap().created.clone()
    }

    pub fn messages(&self) -> Vec<TwilioRequest> {
        self.of(TwilioResource::Messages)
    }

    pub fn calls(&self) -> Vec<TwilioRequest> {
        self.of(TwilioResource::Calls)
    }

    fn of(&self, resource: TwilioResource) -> Vec<TwilioRequest> {
        let all = self.requests();
        all.into_iter().filter(|r| r.resource == resource).collect()
    }

    /// Every request that reached a resource, including failed and replayed ones.
    pub fn attempts(&self) -> usize {
        self.shared.ledger.lock().unwrap().attempts
    }

    /// Answers the next `count` requests with `status` (e.g. 500, 429, 400) and a Twilio error.
    pub fn fail_next(&self, count: usize, status: u16) {
        self.shared.failures.set(count, status);
    }

    /// Answers every request `delay` after recording it.
    pub fn set_answer_delay(&self, delay: std::time::Duration) {
        *self.shared.answer_delay.lock().unwrap() = delay;
    }
}

async fn messages(
    state: State<Arc<Shared>>,
    sid: Path<String>,
    headers: HeaderMap,
    form: Form<BTreeMap<String, String>>,
) -> Response {
    let delay = *state.answer_delay.lock().unwrap();
    let answer = create(TwilioResource::Messages, state, sid, headers, form);
    tokio::time::sleep(delay).await;
    answer
}

async fn calls(
    state: State<Arc<Shared>>,
    sid: Path<String>,
    headers: HeaderMap,
    form: Form<BTreeMap<String, String>>,
) -> Response {
    let delay = *state.answer_delay.lock().unwrap();
    let answer = create(TwilioResource::Calls, state, sid, headers, form);
    tokio::time::sleep(delay).await;
    answer
}

fn error(status: u16, code: u32, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status.as_u16(),
    });
    let mut response = (status, Json(body)).into_response();
    if status == StatusCode::TOO_MANY_REQUESTS {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("2"));
    }
    response
}

fn authorized(shared: &Shared, headers: &HeaderMap) -> bool {
    let expected = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", shared.account_sid, shared.auth_token));
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .is_some_and(|v| v == expected)
}

fn is_e164(number: &str) -> bool {
    number.strip_prefix('+').is_some_and(|digits| {
        (2..=15).contains(&digits.len())
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

fn create(
    resource: TwilioResource,
    State(shared): State<Arc<Shared>>,
    Path(account_sid): Path<String>,
    headers: HeaderMap,
    Form(form): Form<BTreeMap<String, String>>,
) -> Response {
    let mut ledger = shared.ledger.lock().unwrap();
    ledger.attempts += 1;
    if !authorized(&shared, &headers) {
        return error(401, 20003, "Authenticate");
    }
    if account_sid != shared.account_sid {
        return error(404, 20404, "The requested resource was not found");
    }
    if let Some(status) = shared.failures.take() {
        return error(status, 20500, "Scripted failure");
    }
    let token = headers
        .get(IDEMPOTENCY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(answer) = token.as_ref().and_then(|t| ledger.answers.get(t)) {
        return (StatusCode::CREATED, Json(answer.clone())).into_response();
    }
    let to = form.get("To").map(String::as_str).unwrap_or_default();
    if !is_e164(to) {
        return error(400, 21211, &format!("Invalid 'To' Phone Number: {to}"));
    }
    let (prefix, content) = match resource {
        TwilioResource::Messages => ("SM", "Body"),
        TwilioResource::Calls => ("CA", "Twiml"),
    };
    if form.get(content).is_none_or(|v| v.is_empty()) {
        return error(400, 21602, &format!("{content} is required"));
    }
    let sid = format!("{prefix}{:032x}", ledger.created.len() + 1);
    let answer = json!({
        "sid": sid,
        "account_sid": shared.account_sid,
        "to": to,
        "from": form.get("From"),
        "status": "queued",
        "body": form.get("Body"),
        "uri": format!("/2010-04-01/Accounts/{}/{:?}/{sid}.json", shared.account_sid, resource),
    });
    ledger.created.push(TwilioRequest {
        resource,
        form,
        idempotency_token: token.clone(),
        sid,
    });
    if let Some(token) = token {
        ledger.answers.insert(token, answer.clone());
    }
    (StatusCode::CREATED, Json(answer)).into_response()
}
