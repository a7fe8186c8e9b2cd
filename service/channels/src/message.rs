//! What the channels send, and what they answer.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Where a notification goes. One variant per channel kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Address {
    Email {
        address: String,
    },
    Telegram {
        #[serde(rename = "chatId")]
        chat_id: i64,
    },
    Sms {
        phone: String,
    },
    Call {
        phone: String,
    },
}

impl Address {
    /// The channel kind, as used in logs and in [`SendError::NotConfigured`].
    pub fn kind(&self) -> &'static str {
        match self {
            Address::Email { .. } => "email",
            Address::Telegram { .. } => "telegram",
            Address::Sms { .. } => "sms",
            Address::Call { .. } => "call",
        }
    }
}

/// One notification to one address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutgoingMessage {
    /// Stable for the notification across attempts (e.g. its uuid): providers and receivers
    /// dedupe on it, so a resend after a crash is not a second message.
    pub idempotency_key: String,
    pub to: Address,
    pub subject: String,
    pub text: String,
    /// What a call reads out; empty means `text`.
    pub spoken_text: String,
}

/// A provider accepted the message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivered {
    /// HTTP status ("201") or SMTP reply code ("250").
    pub provider_code: Option<String>,
    /// Twilio sid, Telegram message_id, SMTP queue id, when the provider names one.
    pub provider_id: Option<String>,
}

/// A provider did not accept the message (or could not be asked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryError {
    /// Whether the same message may succeed if sent again later (see the crate doc).
    pub retryable: bool,
    /// HTTP status or SMTP reply code, when the provider answered.
    pub provider_code: Option<String>,
    /// Human-readable reason; never contains credentials.
    pub message: String,
    /// The provider asked to wait this long before the next attempt (HTTP `Retry-After`,
    /// Telegram `parameters.retry_after`).
    pub retry_after: Option<Duration>,
}

impl DeliveryError {
    pub fn retryable(message: impl Into<String>) -> Self {
        Self {
            retryable: true,
            provider_code: None,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        Self {
            retryable: false,
            ..Self::retryable(message)
        }
    }

    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.provider_code = Some(code.into());
        self
    }

    pub fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }
}

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.retryable {
            "retryable"
        } else {
            "permanent"
        };
        match &self.provider_code {
            Some(code) => write!(f, "{kind} delivery failure ({code}): {}", self.message),
            None => write!(f, "{kind} delivery failure: {}", self.message),
        }
    }
}

impl std::error::Error for DeliveryError {}

/// The future returned by [`Channel::send`].
pub type SendFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Delivered, DeliveryError>> + Send + 'a>>;

/// A delivery channel. Object safe (the future is boxed) so channels can be held as
/// `Arc<dyn Channel>`, and stand-ins or fakes swapped in.
pub trait Channel: Send + Sync {
    /// Sends one message. An address of a kind the channel does not serve is a permanent error.
    fn send<'a>(&'a self, message: &'a OutgoingMessage) -> SendFuture<'a>;
}

/// A credential: `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// A channel could not be built from its configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid channel configuration: {}", self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Cuts `text` to at most `max` characters, marking a cut with an ellipsis: a shortened alert
/// is better than one the provider rejects for length.
pub(crate) fn truncate_chars(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => text.into(),
        Some(_) => {
            let keep: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{keep}…").into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_short_text_and_marks_cuts() {
        assert_eq!(truncate_chars("hello", 5), "hello");
        assert_eq!(truncate_chars("hello!", 5), "hell…");
        assert_eq!(truncate_chars("äöüäöü", 3).chars().count(), 3);
    }

    #[test]
    fn secrets_do_not_show_in_debug() {
        assert!(!format!("{:?}", Secret::new("hunter2")).contains("hunter2"));
    }

    #[test]
    fn address_serializes_with_a_kind_tag() {
        let json = serde_json::to_value(Address::Telegram { chat_id: 42 }).unwrap();
        assert_eq!(json, serde_json::json!({"kind": "telegram", "chatId": 42}));
    }
}
