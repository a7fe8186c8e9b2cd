//! Twilio-compatible REST API: SMS through the Messages resource, calls through the Calls
//! resource with inline TwiML that reads the message out.

use std::time::Duration;

use serde::Deserialize;

use crate::http;
use crate::message::{
    Address, Channel, ConfigError, Delivered, DeliveryError, OutgoingMessage, Secret, SendFuture,
    truncate_chars,
};

/// Twilio's idempotency header: a retried request with the same token does not create a
/// second message or call.
pub const IDEMPOTENCY_HEADER: &str = "I-Twilio-Idempotency-Token";

/// Twilio rejects longer SMS bodies.
const MAX_BODY_CHARS: usize = 1600;
/// Twilio rejects a longer `Twiml` parameter.
const MAX_TWIML_BYTES: usize = 4000;

#[derive(Debug, Clone)]
pub struct TwilioConfig {
    /// `https://api.twilio.com` in production.
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: Secret,
    /// The sending number (E.164) for both SMS and calls.
    pub from: String,
    pub connect_timeout: Duration,
    pub timeout: Duration,
}

impl TwilioConfig {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.twilio.com";

    pub fn new(
        account_sid: impl Into<String>,
        auth_token: impl Into<Secret>,
        from: impl Into<String>,
    ) -> Self {
        Self {
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            account_sid: account_sid.into(),
            auth_token: auth_token.into(),
            from: from.into(),
            connect_timeout: http::DEFAULT_CONNECT_TIMEOUT,
            timeout: http::DEFAULT_TIMEOUT,
        }
    }
}

/// Sends to [`Address::Sms`] (Messages.json) and [`Address::Call`] (Calls.json).
#[derive(Debug, Clone)]
pub struct TwilioChannel {
    client: reqwest::Client,
    account_url: String,
    account_sid: String,
    auth_token: Secret,
    from: String,
}

impl TwilioChannel {
    pub fn new(config: TwilioConfig) -> Result<Self, ConfigError> {
        if config.account_sid.is_empty()
            || !config
                .account_sid
                .chars()
                .all(|c| c.is_ascii_alphanumeric())
        {
            return Err(ConfigError(
                "twilio account sid is empty or malformed".into(),
            ));
        }
        if config.from.is_empty() {
            return Err(ConfigError("twilio from number is empty".into()));
        }
        let base = http::base_url(&config.base_url)?;
        let client = http::build(http::client_builder(config.connect_timeout, config.timeout))?;
        Ok(Self {
            client,
            account_url: format!("{base}/2010-04-01/Accounts/{}", config.account_sid),
            account_sid: config.account_sid,
            auth_token: config.auth_token,
            from: config.from,
        })
    }

    async fn deliver(&self, message: &OutgoingMessage) -> Result<Delivered, DeliveryError> {
        let (resource, form) = match &message.to {
            Address::Sms { phone } => (
                "Messages.json",
                [
                    ("To", phone.clone()),
                    ("From", self.from.clone()),
                    (
                        "Body",
                        truncate_chars(&message.text, MAX_BODY_CHARS).into_owned(),
                    ),
                ],
            ),
            Address::Call { phone } => {
                let spoken = if message.spoken_text.is_empty() {
                    &message.text
                } else {
                    &message.spoken_text
                };
                (
                    "Calls.json",
                    [
                        ("To", phone.clone()),
                        ("From", self.from.clone()),
                        ("Twiml", say_twiml(spoken)),
                    ],
                )
            }
            other => {
                return Err(DeliveryError::permanent(format!(
                    "the twilio channel cannot send to a {} address",
                    other.kind()
                )));
            }
        };
        let response = self
            .client
            .post(format!("{}/{resource}", self.account_url))
            .basic_auth(&self.account_sid, Some(self.auth_token.expose()))
            .header(IDEMPOTENCY_HEADER, &message.idempotency_key)
            .form(&form)
            .send()
            .await
            .map_err(http::transport_error)?;
        let status = response.status();
        let headers = response.headers().clone();
        if status.is_success() {
            let sid = match response.json::<Resource>().await {
                Ok(resource) => resource.sid,
                // Created, but the answer is unreadable: still delivered.
                Err(error) => {
                    tracing::warn!(%error, "twilio created a resource with an unreadable answer");
                    None
                }
            };
            return Ok(Delivered {
                provider_code: Some(status.as_u16().to_string()),
                provider_id: sid,
            });
        }
        let text = match response.json::<ApiError>().await {
            Ok(ApiError {
                code: Some(code),
                message: Some(text),
            }) => format!("twilio error {code}: {text}"),
            Ok(ApiError {
                message: Some(text),
                ..
            }) => text,
            _ => format!("twilio answered {status}"),
        };
        Err(http::status_error(status, &headers, text))
    }
}

impl Channel for TwilioChannel {
    fn send<'a>(&'a self, message: &'a OutgoingMessage) -> SendFuture<'a> {
        Box::pin(self.deliver(message))
    }
}

#[derive(Deserialize)]
struct Resource {
    sid: Option<String>,
}

#[derive(Deserialize)]
struct ApiError {
    code: Option<i64>,
    message: Option<String>,
}

/// `<Response><Say>text</Say></Response>`, the text XML-escaped and cut so that the whole
/// document stays within Twilio's limit.
pub(crate) fn say_twiml(text: &str) -> String {
    const OPEN: &str = "<Response><Say>";
    const CLOSE: &str = "</Say></Response>";
    let mut twiml = String::from(OPEN);
    let budget = MAX_TWIML_BYTES - CLOSE.len();
    for c in text.chars() {
        let piece = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&apos;",
            // Characters XML 1.0 forbids would make the whole document invalid.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => continue,
            _ => {
                if twiml.len() + c.len_utf8() > budget {
                    break;
                }
                twiml.push(c);
                continue;
            }
        };
        if twiml.len() + piece.len() > budget {
            break;
        }
        twiml.push_str(piece);
    }
    twiml.push_str(CLOSE);
    twiml
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiml_escapes_markup_and_drops_control_characters() {
        assert_eq!(
            say_twiml("Truck <1> & \"co\" 'x'\u{7}"),
            "<Response><Say>Truck &lt;1&gt; &amp; &quot;co&quot; &apos;x&apos;</Say></Response>"
        );
    }

    #[test]
    fn twiml_stays_within_the_limit() {
        let twiml = say_twiml(&"&".repeat(5000));
        assert!(twiml.len() <= MAX_TWIML_BYTES);
        assert!(twiml.ends_with("&amp;</Say></Response>"));
    }
}
