//! Delivery channels of the Asset Alerting Service.
//!
//! Every channel implements [`Channel`] (object safe: `Arc<dyn Channel>`), and [`Channels`]
//! routes an [`OutgoingMessage`] to the one that serves its [`Address`]:
//!
//! | address | channel | protocol |
//! | --- | --- | --- |
//! | `Email` | [`SmtpChannel`] | SMTP (lettre); none / STARTTLS required / implicit TLS |
//! | `Telegram` | [`TelegramChannel`] | Bot API `POST {base}/bot{token}/sendMessage`, JSON `{chat_id, text}` |
//! | `Sms` | [`TwilioChannel`] | `POST {base}/2010-04-01/Accounts/{sid}/Messages.json`, form `To, From, Body` |
//! | `Call` | [`TwilioChannel`] | `POST .../Calls.json`, form `To, From, Twiml=<Response><Say>…</Say></Response>` |
//!
//! Webhooks to an account's callbackUri go through [`WebhookSender`].
//!
//! # Idempotency
//!
//! [`OutgoingMessage::idempotency_key`] is stable per notification. Twilio gets it as
//! `I-Twilio-Idempotency-Token` (a retried request is not a second SMS or call); email gets the
//! Message-ID `<key@from-domain>` (a resend is recognisable); webhooks carry it as
//! `webhook-id` (receivers dedupe on it). The Telegram Bot API has no such
//! mechanism: a retry after a lost answer can duplicate a Telegram message.
//!
//! # Webhook signature
//!
//! Webhooks follow the Standard Webhooks specification (<https://www.standardwebhooks.com>):
//! each is a `POST` with `Content-Type: application/json` and the headers
//!
//! ```text
//! webhook-id: <idempotency key>
//! webhook-timestamp: <unix seconds>
//! webhook-signature: v1,<base64 HMAC-SHA256>
//! ```
//!
//! where the HMAC's key is the account's secret `whsec_<base64 key>` decoded, and its message
//! `"{webhook-id}.{webhook-timestamp}.{raw body}"`. During a secret rotation the header carries
//! one `v1,` signature per secret, separated by spaces. A receiver accepts the request if any
//! matches, compares in constant time and refuses a timestamp more than its tolerance (e.g.
//! 300 s) from its clock; [`webhook::verify`] does exactly this, as do the specification's
//! libraries.
//!
//! # Retry classification
//!
//! A failed send returns [`DeliveryError`] with `retryable`:
//!
//! - **retryable**: no answer (connect failure, DNS failure, timeout, connection reset);
//!   HTTP 408, 429 and 5xx; SMTP 4yz replies. `retry_after` is set from `Retry-After`
//!   (seconds) or Telegram's `parameters.retry_after`.
//! - **not retryable**: any other HTTP 4xx (bad number, unknown chat, bot blocked, wrong
//!   credentials); SMTP 5yz replies (rejected recipient, failed authentication); a webhook 3xx
//!   (redirects are not followed: the account must fix its callbackUri); a callbackUri the
//!   [`UrlPolicy`] refuses, checked on every send and again after DNS resolution; an address
//!   the channel cannot serve or cannot parse.
//! - [`Channels::send`] answers [`SendError::NotConfigured`] when no channel serves the
//!   address kind.
//!
//! A success whose answer cannot be read (2xx with an unexpected body) counts as delivered,
//! without a provider id, so that a retry does not send it twice.
//!
//! # Network
//!
//! Every HTTP client has a 5 s connect timeout and a 10 s total timeout (configurable),
//! follows no redirects and ignores proxy environment variables. TLS is rustls with the
//! platform's certificate verifier. Base URLs are configurable so that tests run the stand-ins
//! of the `testing` module (feature `testing`) on 127.0.0.1.

mod email;
mod http;
mod message;
mod telegram;
mod twilio;
pub mod url_policy;
pub mod webhook;

#[cfg(feature = "testing")]
pub mod testing;

use std::sync::Arc;

pub use email::{SmtpChannel, SmtpConfig, SmtpCredentials, SmtpTls};
pub use http::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT};
pub use message::{
    Address, Channel, ConfigError, Delivered, DeliveryError, OutgoingMessage, Secret, SendFuture,
};
pub use telegram::{TelegramChannel, TelegramConfig};
pub use twilio::{IDEMPOTENCY_HEADER as TWILIO_IDEMPOTENCY_HEADER, TwilioChannel, TwilioConfig};
pub use url_policy::{UrlPolicy, validate_callback_uri};
pub use webhook::{
    SignedHeaders, VerifyError, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER,
    WEBHOOK_TIMESTAMP_HEADER, WebhookConfig, WebhookDelivery, WebhookSender, format_secret,
    secret_key, sign, verify,
};

/// The configured channels, one optional slot per address kind. `sms` and `call` may share one
/// [`TwilioChannel`] (clone the `Arc`) or use different senders.
#[derive(Clone, Default)]
pub struct Channels {
    pub email: Option<Arc<dyn Channel>>,
    pub telegram: Option<Arc<dyn Channel>>,
    pub sms: Option<Arc<dyn Channel>>,
    pub call: Option<Arc<dyn Channel>>,
}

impl std::fmt::Debug for Channels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Channels")
            .field("email", &self.email.is_some())
            .field("telegram", &self.telegram.is_some())
            .field("sms", &self.sms.is_some())
            .field("call", &self.call.is_some())
            .finish()
    }
}

/// Why [`Channels::send`] did not deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// No channel is configured for the address kind; the reason names it.
    NotConfigured(&'static str),
    Failed(DeliveryError),
}

impl SendError {
    /// Only a [`SendError::Failed`] that says so; a missing channel stays missing until the
    /// service is reconfigured.
    pub fn retryable(&self) -> bool {
        matches!(self, SendError::Failed(e) if e.retryable)
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::NotConfigured(reason) => f.write_str(reason),
            SendError::Failed(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SendError {}

impl Channels {
    /// The channel serving `address`, if configured.
    pub fn for_address(&self, address: &Address) -> Result<&Arc<dyn Channel>, SendError> {
        let (slot, reason) = match address {
            Address::Email { .. } => (&self.email, "no email (SMTP) channel is configured"),
            Address::Telegram { .. } => (&self.telegram, "no telegram channel is configured"),
            Address::Sms { .. } => (&self.sms, "no sms channel is configured"),
            Address::Call { .. } => (&self.call, "no call channel is configured"),
        };
        slot.as_ref().ok_or(SendError::NotConfigured(reason))
    }

    pub async fn send(&self, message: &OutgoingMessage) -> Result<Delivered, SendError> {
        let channel = self.for_address(&message.to)?;
        let result = channel.send(message).await;
        match &result {
            Ok(delivered) => tracing::debug!(
                kind = message.to.kind(),
                key = %message.idempotency_key,
                code = ?delivered.provider_code,
                id = ?delivered.provider_id,
                "notification delivered"
            ),
            Err(error) => tracing::debug!(
                kind = message.to.kind(),
                key = %message.idempotency_key,
                %error,
                "notification not delivered"
            ),
        }
        result.map_err(SendError::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    impl Channel for Echo {
        fn send<'a>(&'a self, message: &'a OutgoingMessage) -> SendFuture<'a> {
            Box::pin(async move {
                Ok(Delivered {
                    provider_code: Some("200".into()),
                    provider_id: Some(message.idempotency_key.clone()),
                })
            })
        }
    }

    fn message(to: Address) -> OutgoingMessage {
        OutgoingMessage {
            idempotency_key: "k1".into(),
            to,
            subject: "s".into(),
            text: "t".into(),
            spoken_text: String::new(),
        }
    }

    #[tokio::test]
    async fn channels_route_by_address_kind() {
        let channels = Channels {
            sms: Some(Arc::new(Echo)),
            ..Channels::default()
        };
        let sent = channels
            .send(&message(Address::Sms {
                phone: "+15550001".into(),
            }))
            .await
            .unwrap();
        assert_eq!(sent.provider_id.as_deref(), Some("k1"));
        let missing = channels
            .send(&message(Address::Telegram { chat_id: 1 }))
            .await
            .unwrap_err();
        assert_eq!(
            missing,
            SendError::NotConfigured("no telegram channel is configured")
        );
        assert!(!missing.retryable());
        assert_eq!(
            format!("{channels:?}"),
            "Channels { email: false, telegram: false, sms: true, call: false }"
        );
    }
}
