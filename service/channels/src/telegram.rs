//! Telegram Bot API: `POST {base_url}/bot{token}/sendMessage` with JSON `{chat_id, text}`.

use std::time::Duration;

use serde::Deserialize;

use crate::http;
use crate::message::{
    Address, Channel, ConfigError, Delivered, DeliveryError, OutgoingMessage, Secret, SendFuture,
    truncate_chars,
};

/// Telegram rejects longer texts.
const MAX_TEXT_CHARS: usize = 4096;

#[derive(Debug, Clone)]
pub struct TelegramConfig {
    /// `https://api.telegram.org` in production.
    pub base_url: String,
    pub bot_token: Secret,
    pub connect_timeout: Duration,
    pub timeout: Duration,
}

impl TelegramConfig {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.telegram.org";

    pub fn new(bot_token: impl Into<Secret>) -> Self {
        Self {
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            bot_token: bot_token.into(),
            connect_timeout: http::DEFAULT_CONNECT_TIMEOUT,
            timeout: http::DEFAULT_TIMEOUT,
        }
    }
}

#[derive(Debug, Clone)]
pub struct TelegramChannel {
    client: reqwest::Client,
    /// Holds the token; kept out of `Debug` and error messages.
    send_message_url: Secret,
}

impl TelegramChannel {
    pub fn new(config: TelegramConfig) -> Result<Self, ConfigError> {
        let token = config.bot_token.expose();
        if token.is_empty() || token.contains(['/', '?', '#']) {
            return Err(ConfigError(
                "telegram bot token is empty or malformed".into(),
            ));
        }
        let base = http::base_url(&config.base_url)?;
        let client = http::build(http::client_builder(config.connect_timeout, config.timeout))?;
        Ok(Self {
            client,
            send_message_url: Secret::new(format!("{base}/bot{token}/sendMessage")),
        })
    }

    async fn deliver(&self, message: &OutgoingMessage) -> Result<Delivered, DeliveryError> {
        let Address::Telegram { chat_id } = message.to else {
            return Err(DeliveryError::permanent(format!(
                "the telegram channel cannot send to an {} address",
                message.to.kind()
            )));
        };
        let body = serde_json::json!({
            "chat_id": chat_id,
            "text": truncate_chars(&message.text, MAX_TEXT_CHARS),
        });
        let response = self
            .client
            .post(self.send_message_url.expose())
            .json(&body)
            .send()
            .await
            .map_err(http::transport_error)?;
        let status = response.status();
        let headers = response.headers().clone();
        let code = status.as_u16().to_string();
        let answer = response.json::<BotApiResponse>().await;
        match answer {
            Ok(BotApiResponse {
                ok: true, result, ..
            }) if status.is_success() => Ok(Delivered {
                provider_code: Some(code),
                provider_id: result.map(|m| m.message_id.to_string()),
            }),
            // Sent, but the answer is unreadable: not an error, or a retry would send it twice.
            Err(error) if status.is_success() => {
                tracing::warn!(%error, "telegram accepted a message with an unreadable answer");
                Ok(Delivered {
                    provider_code: Some(code),
                    provider_id: None,
                })
            }
            Ok(answer) => {
                // The Bot API mirrors the HTTP status in error_code; trust whichever says error.
                let status = answer
                    .error_code
                    .filter(|_| status.is_success())
                    .and_then(|c| reqwest::StatusCode::from_u16(c).ok())
                    .unwrap_or(status);
                let parameters = answer.parameters.unwrap_or_default();
                let mut text = answer
                    .description
                    .unwrap_or_else(|| "telegram refused the message".into());
                if let Some(chat) = parameters.migrate_to_chat_id {
                    text.push_str(&format!(" (the group is now chat {chat})"));
                }
                let retry_after = parameters
                    .retry_after
                    .map(Duration::from_secs)
                    .or_else(|| http::retry_after(&headers));
                Err(http::status_error(status, &headers, text).with_retry_after(retry_after))
            }
            Err(error) => Err(http::status_error(
                status,
                &headers,
                format!("telegram answered {status} with an unreadable body: {error}"),
            )),
        }
    }
}

impl Channel for TelegramChannel {
    fn send<'a>(&'a self, message: &'a OutgoingMessage) -> SendFuture<'a> {
        Box::pin(self.deliver(message))
    }
}

#[derive(Deserialize)]
struct BotApiResponse {
    ok: bool,
    result: Option<SentMessage>,
    error_code: Option<u16>,
    description: Option<String>,
    parameters: Option<ResponseParameters>,
}

#[derive(Deserialize)]
struct SentMessage {
    message_id: i64,
}

#[derive(Deserialize, Default)]
struct ResponseParameters {
    retry_after: Option<u64>,
    migrate_to_chat_id: Option<i64>,
}
