//! Signed webhooks to an account's callbackUri, per the Standard Webhooks specification
//! (https://www.standardwebhooks.com): receivers verify them with its published libraries.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use reqwest::dns::Resolve;
use reqwest::header::CONTENT_TYPE;
use sha2::Sha256;

use crate::http;
use crate::message::{ConfigError, Delivered, DeliveryError};
use crate::url_policy::{BlockedAddress, GuardedResolver, SystemResolver, UrlPolicy};

/// The idempotency key of the notification; receivers dedupe on it.
pub const WEBHOOK_ID_HEADER: &str = "webhook-id";
/// Unix seconds of the attempt; part of what is signed.
pub const WEBHOOK_TIMESTAMP_HEADER: &str = "webhook-timestamp";
/// `v1,<base64 HMAC-SHA256>`, one per secret, separated by spaces.
pub const WEBHOOK_SIGNATURE_HEADER: &str = "webhook-signature";
/// How a secret is shown to an account: `whsec_` and the base64 of the key.
pub const SECRET_PREFIX: &str = "whsec_";

type HmacSha256 = Hmac<Sha256>;

/// The secret as shown to the account for the signing key `key`.
pub fn format_secret(key: &[u8]) -> String {
    format!("{SECRET_PREFIX}{}", BASE64.encode(key))
}

/// The signing key of a `whsec_<base64>` secret (the prefix is optional, as in the libraries).
pub fn secret_key(secret: &str) -> Option<Vec<u8>> {
    let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    BASE64.decode(encoded).ok()
}

fn mac(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// One signature: `v1,<base64 HMAC-SHA256 with key over "{id}.{timestamp}.{body}">`.
pub fn sign(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    sign_with_all(&[key], id, timestamp, body)
}

/// The `webhook-signature` value: one `v1` per key (during a secret rotation the receiver
/// accepts either), separated by spaces.
pub fn sign_with_all(keys: &[&[u8]], id: &str, timestamp: i64, body: &[u8]) -> String {
    keys.iter()
        .map(|key| {
            let tag = mac(key, id, timestamp, body).finalize().into_bytes();
            format!("v1,{}", BASE64.encode(tag))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyError {
    /// The timestamp is not an integer.
    Malformed,
    /// No `v1,` signature in the header.
    NoSignature,
    /// The timestamp is further than the tolerance from now: a replay, or a badly wrong clock.
    OutsideTolerance,
    /// No `v1` signature matches.
    Mismatch,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VerifyError::Malformed => "malformed webhook-timestamp",
            VerifyError::NoSignature => "no v1 signature in webhook-signature",
            VerifyError::OutsideTolerance => "webhook-timestamp outside the tolerance",
            VerifyError::Mismatch => "no signature matches",
        })
    }
}

impl std::error::Error for VerifyError {}

/// The three Standard Webhooks headers as received.
#[derive(Debug, Clone, Copy)]
pub struct SignedHeaders<'a> {
    pub id: &'a str,
    pub timestamp: &'a str,
    pub signature: &'a str,
}

/// Checks the headers against the body as received, as the Standard Webhooks libraries do:
/// passes if any `v1` signature matches (constant-time compare); other versions are ignored.
pub fn verify(
    headers: SignedHeaders<'_>,
    body: &[u8],
    key: &[u8],
    now: i64,
    tolerance_secs: i64,
) -> Result<(), VerifyError> {
    let timestamp = headers
        .timestamp
        .trim()
        .parse::<i64>()
        .map_err(|_| VerifyError::Malformed)?;
    let signatures: Vec<&str> = headers
        .signature
        .split(' ')
        .filter_map(|s| s.strip_prefix("v1,"))
        .collect();
    if signatures.is_empty() {
        return Err(VerifyError::NoSignature);
    }
    if now.abs_diff(timestamp) > tolerance_secs.unsigned_abs() {
        return Err(VerifyError::OutsideTolerance);
    }
    let expected = mac(key, headers.id, timestamp, body);
    let matches = signatures.iter().any(|candidate| {
        BASE64
            .decode(candidate)
            .is_ok_and(|bytes| expected.clone().verify_slice(&bytes).is_ok())
    });
    if matches {
        Ok(())
    } else {
        Err(VerifyError::Mismatch)
    }
}

#[derive(Debug, Clone)]
pub struct WebhookConfig {
    pub policy: UrlPolicy,
    pub connect_timeout: Duration,
    pub timeout: Duration,
}

impl WebhookConfig {
    pub fn new(policy: UrlPolicy) -> Self {
        Self {
            policy,
            connect_timeout: http::DEFAULT_CONNECT_TIMEOUT,
            timeout: http::DEFAULT_TIMEOUT,
        }
    }
}

/// One webhook to send.
#[derive(Clone, Copy)]
pub struct WebhookDelivery<'a> {
    pub callback_uri: &'a str,
    /// The signing keys (the decoded `whsec_` secrets); during a rotation the new one and the
    /// old one (one `v1` each).
    pub secrets: &'a [&'a [u8]],
    /// Sent as `webhook-id`: the notification's idempotency key, and signed.
    pub webhook_id: &'a str,
    /// The JSON body, signed and sent byte for byte.
    pub body: &'a [u8],
}

impl std::fmt::Debug for WebhookDelivery<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookDelivery")
            .field("callback_uri", &self.callback_uri)
            .field("webhook_id", &self.webhook_id)
            .field("body_len", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// POSTs signed JSON to callback URLs. The URL is checked against the policy on every send, and
/// names are resolved through a guard that drops refused addresses; redirects are not followed.
#[derive(Debug, Clone)]
pub struct WebhookSender {
    client: reqwest::Client,
    policy: UrlPolicy,
}

impl WebhookSender {
    pub fn new(config: WebhookConfig) -> Result<Self, ConfigError> {
        Self::with_dns(config, Arc::new(SystemResolver))
    }

    /// Resolves names with `dns` before the policy filter (tests use it to play a rebinding
    /// DNS server).
    pub fn with_dns(config: WebhookConfig, dns: Arc<dyn Resolve>) -> Result<Self, ConfigError> {
        let guard = GuardedResolver {
            policy: config.policy,
            inner: dns,
        };
        let builder = http::client_builder(config.connect_timeout, config.timeout)
            .dns_resolver(Arc::new(guard));
        Ok(Self {
            client: http::build(builder)?,
            policy: config.policy,
        })
    }

    pub async fn send(&self, delivery: &WebhookDelivery<'_>) -> Result<Delivered, DeliveryError> {
        let url = crate::url_policy::validate_callback_uri(delivery.callback_uri, &self.policy)
            .map_err(|reason| DeliveryError::permanent(format!("callbackUri refused: {reason}")))?;
        if delivery.secrets.is_empty() {
            return Err(DeliveryError::permanent("no webhook secret to sign with"));
        }
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let signature = sign_with_all(
            delivery.secrets,
            delivery.webhook_id,
            timestamp,
            delivery.body,
        );
        let response = self
            .client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .header(WEBHOOK_ID_HEADER, delivery.webhook_id)
            .header(WEBHOOK_TIMESTAMP_HEADER, timestamp.to_string())
            .header(WEBHOOK_SIGNATURE_HEADER, signature)
            .body(delivery.body.to_vec())
            .send()
            .await
            .map_err(send_error)?;
        let status = response.status();
        if status.is_success() {
            return Ok(Delivered {
                provider_code: Some(status.as_u16().to_string()),
                provider_id: None,
            });
        }
        let headers = response.headers().clone();
        if status.is_redirection() {
            // The receiver moved; only the account can fix its callbackUri.
            let location = headers
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("?");
            return Err(DeliveryError::permanent(format!(
                "receiver redirects to {location}; redirects are not followed"
            ))
            .with_code(status.as_u16().to_string()));
        }
        let snippet = http::body_snippet(response, 256).await;
        Err(http::status_error(
            status,
            &headers,
            format!("receiver answered {status}: {snippet}"),
        ))
    }
}

/// A refusal by the DNS guard is permanent; other failures to get an answer are retryable.
fn send_error(error: reqwest::Error) -> DeliveryError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(inner) = source {
        if let Some(blocked) = inner.downcast_ref::<BlockedAddress>() {
            return DeliveryError::permanent(format!(
                "callbackUri refused at send time: {blocked}"
            ));
        }
        source = inner.source();
    }
    http::transport_error(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The example of the Standard Webhooks specification and its libraries' test suites.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1614265330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const EXPECTED: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn key() -> Vec<u8> {
        secret_key(SECRET).unwrap()
    }

    fn headers(signature: &str) -> SignedHeaders<'_> {
        SignedHeaders {
            id: ID,
            timestamp: "1614265330",
            signature,
        }
    }

    #[test]
    fn signs_as_the_specification_example() {
        assert_eq!(sign(&key(), ID, TIMESTAMP, BODY), EXPECTED);
        assert_eq!(format_secret(&key()), SECRET);
        assert_eq!(secret_key("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), Some(key()));
        assert_eq!(secret_key("whsec_not base64!"), None);
    }

    #[test]
    fn a_signature_verifies_within_the_tolerance() {
        let key = key();
        assert_eq!(
            verify(headers(EXPECTED), BODY, &key, TIMESTAMP, 300),
            Ok(())
        );
        assert_eq!(
            verify(headers(EXPECTED), BODY, &key, TIMESTAMP + 300, 300),
            Ok(())
        );
        assert_eq!(
            verify(headers(EXPECTED), BODY, &key, TIMESTAMP + 301, 300),
            Err(VerifyError::OutsideTolerance)
        );
        assert_eq!(
            verify(headers(EXPECTED), BODY, &key, TIMESTAMP - 301, 300),
            Err(VerifyError::OutsideTolerance)
        );
    }

    #[test]
    fn tampering_and_wrong_keys_are_refused() {
        let key = key();
        assert_eq!(
            verify(headers(EXPECTED), br#"{"test": 1}"#, &key, TIMESTAMP, 300),
            Err(VerifyError::Mismatch)
        );
        assert_eq!(
            verify(headers(EXPECTED), BODY, b"other", TIMESTAMP, 300),
            Err(VerifyError::Mismatch)
        );
        let other_id = SignedHeaders {
            id: "msg_other",
            ..headers(EXPECTED)
        };
        assert_eq!(
            verify(other_id, BODY, &key, TIMESTAMP, 300),
            Err(VerifyError::Mismatch)
        );
        // The old signature with a fresh timestamp (a replay) fails.
        let replay = SignedHeaders {
            timestamp: "1614266330",
            ..headers(EXPECTED)
        };
        assert_eq!(
            verify(replay, BODY, &key, TIMESTAMP + 1000, 300),
            Err(VerifyError::Mismatch)
        );
    }

    #[test]
    fn any_of_several_signatures_may_match() {
        let key = key();
        let rotated = sign_with_all(&[b"new", &key], ID, TIMESTAMP, BODY);
        assert_eq!(rotated.matches("v1,").count(), 2);
        assert_eq!(
            verify(headers(&rotated), BODY, &key, TIMESTAMP, 300),
            Ok(())
        );
        assert_eq!(
            verify(headers(&rotated), BODY, b"new", TIMESTAMP, 300),
            Ok(())
        );
        assert_eq!(
            verify(headers(&rotated), BODY, b"third", TIMESTAMP, 300),
            Err(VerifyError::Mismatch)
        );
        // Other versions and garbage next to a good value do not hurt.
        let mixed = format!("v0,abc v1,zz {EXPECTED}");
        assert_eq!(verify(headers(&mixed), BODY, &key, TIMESTAMP, 300), Ok(()));
    }

    #[test]
    fn malformed_headers_are_refused() {
        let key = key();
        let bad_time = SignedHeaders {
            timestamp: "soon",
            ..headers(EXPECTED)
        };
        assert_eq!(
            verify(bad_time, BODY, &key, TIMESTAMP, 300),
            Err(VerifyError::Malformed)
        );
        for signature in [
            "",
            "v1",
            "v2,abc",
            "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ] {
            assert_eq!(
                verify(headers(signature), BODY, &key, TIMESTAMP, 300),
                Err(VerifyError::NoSignature),
                "{signature}"
            );
        }
    }
}
