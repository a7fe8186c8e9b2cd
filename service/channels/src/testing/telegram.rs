//! Telegram Bot API `sendMessage`.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::{Failures, HttpServer};

/// A message the stand-in accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelegramRequest {
    pub chat_id: i64,
    pub text: String,
    pub message_id: i64,
}

struct Shared {
    token: String,
    sent: Mutex<Vec<TelegramRequest>>,
    failures: Failures,
}

/// Serves `/bot{token}/sendMessage`: checks the token (401 otherwise), requires `chat_id` and a
/// non-empty `text` (400), and answers `{"ok":true,"result":{"message_id":N,...}}`.
pub struct TelegramStandIn {
    server: HttpServer,
    shared: Arc<Shared>,
}

impl TelegramStandIn {
    pub async fn start(bot_token: &str) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            token: bot_token.to_owned(),
            sent: Mutex::default(),
            failures: Failures::default(),
        });
        // The path segment is "bot" + token: axum captures whole segments, so strip it below.
        let router = Router::new()
            .route("/{bot}/sendMessage", post(send_message))
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

    pub fn messages(&self) -> Vec<TelegramRequest> {
        self.shared.sent.lock().unwrap().clone()
    }

    /// Answers the next `count` requests with `status` as the Bot API does (`ok:false`,
    /// `error_code`, `description`; for 429 also `parameters.retry_after`).
    pub fn fail_next(&self, count: usize, status: u16) {
        self.shared.failures.set(count, status);
    }
}

fn error(status: u16, description: &str) -> Response {
    let mut body = json!({"ok": false, "error_code": status, "description": description});
    if status == 429 {
        body["parameters"] = json!({"retry_after": 3});
    }
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(body)).into_response()
}

async fn send_message(
    State(shared): State<Arc<Shared>>,
    Path(bot): Path<String>,
    body: Bytes,
) -> Response {
    if bot.strip_prefix("bot") != Some(shared.token.as_str()) {
        return error(401, "Unauthorized");
    }
    if let Some(status) = shared.failures.take() {
        let description = match status {
            429 => "Too Many Requests: retry after 3",
            403 => "Forbidden: bot was blocked by the user",
            400 => "Bad Request: chat not found",
            _ => "Internal Server Error",
        };
        return error(status, description);
    }
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return error(400, "Bad Request: message text is empty");
    };
    let Some(chat_id) = body.get("chat_id").and_then(Value::as_i64) else {
        return error(400, "Bad Request: chat_id is empty");
    };
    let text = body.get("text").and_then(Value::as_str).unwrap_or_default();
    if text.is_empty() {
        return error(400, "Bad Request: message text is empty");
    }
    let mut sent = shared.sent.lock().unwrap();
    let message_id = sent.len() as i64 + 1;
    sent.push(TelegramRequest {
        chat_id,
        text: text.to_owned(),
        message_id,
    });
    Json(json!({
        "ok": true,
        "result": {
            "message_id": message_id,
            "date": 1_700_000_000,
            "chat": {"id": chat_id, "type": "private"},
            "text": text,
        }
    }))
    .into_response()
}
