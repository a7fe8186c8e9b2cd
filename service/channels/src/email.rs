//! Email over SMTP (lettre), plain text, with a Message-ID derived from the idempotency key.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use crate::http::error_chain;
use crate::message::{
    Address, Channel, ConfigError, Delivered, DeliveryError, OutgoingMessage, Secret, SendFuture,
};

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// Plain text (a local relay or a test server only).
    None,
    /// STARTTLS, required: the send fails if the server does not offer it (usually port 587).
    StartTls,
    /// TLS from the first byte (SMTPS, usually port 465).
    Implicit,
}

impl SmtpTls {
    /// The port usually used with this mode.
    pub fn default_port(self) -> u16 {
        match self {
            SmtpTls::None => 25,
            SmtpTls::StartTls => 587,
            SmtpTls::Implicit => 465,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SmtpCredentials {
    pub username: String,
    pub password: Secret,
}

#[derive(Debug, Clone)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub tls: SmtpTls,
    pub credentials: Option<SmtpCredentials>,
    /// `alerts@example.com` or `Asset Alerts <alerts@example.com>`; its domain also names the
    /// Message-IDs.
    pub from: String,
    /// The name sent in EHLO; the machine's hostname when `None`.
    pub helo_name: Option<String>,
    /// For each SMTP command, not the whole send.
    pub timeout: Duration,
}

impl SmtpConfig {
    pub fn new(host: impl Into<String>, tls: SmtpTls, from: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            port: tls.default_port(),
            tls,
            credentials: None,
            from: from.into(),
            helo_name: None,
            timeout: Duration::from_secs(30),
        }
    }
}

#[derive(Clone)]
pub struct SmtpChannel {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for SmtpChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpChannel")
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl SmtpChannel {
    pub fn new(config: SmtpConfig) -> Result<Self, ConfigError> {
        let from: Mailbox = config
            .from
            .parse()
            .map_err(|e| ConfigError(format!("smtp from address {:?}: {e}", config.from)))?;
        let tls = match config.tls {
            SmtpTls::None => Tls::None,
            SmtpTls::StartTls => Tls::Required(tls_parameters(&config.host)?),
            SmtpTls::Implicit => Tls::Wrapper(tls_parameters(&config.host)?),
        };
        // builder_dangerous only means "no TLS chosen yet": `tls` sets it right below.
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&config.host)
            .port(config.port)
            .tls(tls)
            .timeout(Some(config.timeout));
        if let Some(credentials) = config.credentials {
            builder = builder.credentials(Credentials::new(
                credentials.username,
                credentials.password.expose().to_owned(),
            ));
        }
        if let Some(name) = config.helo_name {
            builder = builder.hello_name(ClientId::Domain(name));
        }
        Ok(Self {
            transport: builder.build(),
            from,
        })
    }

    /// The message as it goes on the wire; the Message-ID is `<key@from-domain>` so that a
    /// resend after a crash carries the same id and can be recognised.
    fn build_message(&self, message: &OutgoingMessage) -> Result<Message, DeliveryError> {
        let Address::Email { address } = &message.to else {
            return Err(DeliveryError::permanent(format!(
                "the email channel cannot send to a {} address",
                message.to.kind()
            )));
        };
        let to: Mailbox = address.parse().map_err(|e| {
            DeliveryError::permanent(format!("invalid email address {address:?}: {e}"))
        })?;
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(message.subject.as_str())
            .message_id(Some(message_id(
                &message.idempotency_key,
                self.from.email.domain(),
            )))
            .header(ContentType::TEXT_PLAIN)
            .body(message.text.clone())
            .map_err(|e| DeliveryError::permanent(format!("cannot build the email: {e}")))
    }

    async fn deliver(&self, message: &OutgoingMessage) -> Result<Delivered, DeliveryError> {
        let email = self.build_message(message)?;
        match self.transport.send(email).await {
            Ok(response) => Ok(Delivered {
                provider_code: Some(response.code().to_string()),
                provider_id: queue_id(response.message()),
            }),
            Err(error) => Err(classify(&error)),
        }
    }
}

impl Channel for SmtpChannel {
    fn send<'a>(&'a self, message: &'a OutgoingMessage) -> SendFuture<'a> {
        Box::pin(self.deliver(message))
    }
}

fn tls_parameters(host: &str) -> Result<TlsParameters, ConfigError> {
    TlsParameters::new(host.to_owned()).map_err(|e| ConfigError(format!("smtp TLS: {e}")))
}

/// `<key@domain>`, with any byte outside `[A-Za-z0-9._-]` written as `=XX` so that the id is
/// valid whatever the key, and different keys never share an id.
pub(crate) fn message_id(key: &str, domain: &str) -> String {
    let mut local = String::with_capacity(key.len());
    for byte in key.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-') {
            local.push(byte as char);
        } else {
            local.push_str(&format!("={byte:02X}"));
        }
    }
    format!("<{local}@{domain}>")
}

/// The id in a "250 2.0.0 Ok: queued as 4F3A1" style answer, when the server gives one.
fn queue_id<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    lines.into_iter().find_map(|line| {
        let (_, rest) = line.split_once("queued as ")?;
        let id = rest.split_whitespace().next()?;
        Some(
            id.trim_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_owned(),
        )
    })
}

/// 4yz replies and anything that kept the server from answering are retryable; 5yz replies
/// (rejected recipient, failed authentication, ...) are not.
fn classify(error: &lettre::transport::smtp::Error) -> DeliveryError {
    let text = error_chain(error);
    let failure = if error.is_permanent() {
        DeliveryError::permanent(text)
    } else if error.is_client() {
        // Our side refused to go on (e.g. credentials but no way to send them): config problem.
        DeliveryError::permanent(text)
    } else {
        DeliveryError::retryable(text)
    };
    match error.status() {
        Some(code) => failure.with_code(code.to_string()),
        None => failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_are_stable_and_safe() {
        assert_eq!(
            message_id("0b9e4a1c-7f3e-4c55-9d63-1a2b3c4d5e6f", "example.com"),
            "<0b9e4a1c-7f3e-4c55-9d63-1a2b3c4d5e6f@example.com>"
        );
        assert_eq!(message_id("a b>@", "x.org"), "<a=20b=3E=40@x.org>");
        assert_ne!(message_id("a=20", "x"), message_id("a ", "x"));
    }

    #[test]
    fn queue_ids_are_read_from_the_answer() {
        assert_eq!(
            queue_id(["2.0.0 Ok: queued as 4F3A1B"].into_iter()),
            Some("4F3A1B".into())
        );
        assert_eq!(queue_id(["OK"].into_iter()), None);
    }
}
