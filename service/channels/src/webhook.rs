//! Signed webhooks to an account's callbackUri.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use reqwest::dns::Resolve;
use reqwest::header::CONTENT_TYPE;
use sha2::Sha256;

use crate::http;
use crate::message::{ConfigError, Delivered, DeliveryError};
use crate::url_policy::{BlockedAddress, GuardedResolver, SystemResolver, UrlPolicy};

/// `t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=...]`
pub const SIGNATURE_HEADER: &str = "Asset-Alerting-Signature";
/// The idempotency key of the notification; receivers dedupe on it.
pub const WEBHOOK_ID_HEADER: &str = "Asset-Alerting-Webhook-Id";

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The signature header value: HMAC-SHA256 with `secret` over `"{timestamp}.{body}"`.
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    sign_with_all(&[secret], timestamp, body)
}

/// One `v1` per secret: during a secret rotation the receiver accepts either.
pub fn sign_with_all(secrets: &[&[u8]], timestamp: i64, body: &[u8]) -> String {
    let mut header = format!("t={timestamp}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&hex::encode(
            mac(secret, timestamp, body).finalize().into_bytes(),
        ));
    }
    header
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyError {
    /// No `t=` (or more than one), or it is not an integer.
    Malformed,
    /// No `v1=` value.
    NoSignature,
    /// `t` is further than the tolerance from now: a replay, or a badly wrong clock.
    OutsideTolerance,
    /// No `v1` value matches.
    Mismatch,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VerifyError::Malformed => "malformed signature header",
            VerifyError::NoSignature => "no v1 signature in the header",
            VerifyError::OutsideTolerance => "signature timestamp outside the tolerance",
            VerifyError::Mismatch => "no signature matches",
        })
    }
}

impl std::error::Error for VerifyError {}

/// Checks a signature header against the body as received. Passes if any `v1` matches
/// (constant-time compare); unknown schemes are ignored so new ones can be added.
pub fn verify(
    header: &str,
    body: &[u8],
    secret: &[u8],
    now: i64,
    tolerance_secs: i64,
) -> Result<(), VerifyError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let Some((key, value)) = part.trim().split_once('=') else {
            return Err(VerifyError::Malformed);
        };
        match key {
            "t" if timestamp.is_none() => {
                timestamp = Some(value.parse::<i64>().map_err(|_| VerifyError::Malformed)?);
            }
            "t" => return Err(VerifyError::Malformed),
            "v1" => signatures.push(value),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(VerifyError::Malformed)?;
    if signatures.is_empty() {
        return Err(VerifyError::NoSignature);
    }
    if now.abs_diff(timestamp) > tolerance_secs.unsigned_abs() {
        return Err(VerifyError::OutsideTolerance);
    }
    let expected = mac(secret, timestamp, body);
    let matches = signatures.iter().any(|candidate| {
        hex::decode(candidate).is_ok_and(|bytes| expected.clone().verify_slice(&bytes).is_ok())
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
    /// The account's webhook secret; during a rotation the new one and the old one (one `v1`
    /// each).
    pub secrets: &'a [&'a [u8]],
    /// Sent as `Asset-Alerting-Webhook-Id`: the notification's idempotency key.
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
        let signature = sign_with_all(delivery.secrets, timestamp, delivery.body);
        let response = self
            .client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature)
            .header(WEBHOOK_ID_HEADER, delivery.webhook_id)
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

    const SECRET: &[u8] = b"whsec_test";
    const BODY: &[u8] = br#"{"eventType":10}"#;
    const NOW: i64 = 1_700_000_000;

    #[test]
    fn a_signature_verifies() {
        let header = sign(SECRET, NOW, BODY);
        assert!(header.starts_with("t=1700000000,v1="));
        assert_eq!(header.len(), "t=1700000000,v1=".len() + 64);
        assert_eq!(verify(&header, BODY, SECRET, NOW, 300), Ok(()));
        assert_eq!(verify(&header, BODY, SECRET, NOW + 300, 300), Ok(()));
        assert_eq!(verify(&header, BODY, SECRET, NOW - 300, 300), Ok(()));
    }

    #[test]
    fn the_signature_is_hmac_sha256_over_timestamp_dot_body() {
        // printf '1700000000.{"eventType":10}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(
            sign(SECRET, NOW, BODY),
            "t=1700000000,v1=287938e29a986992a00d80c6df7fb4f026a43e1fc5ff7504b7675dd948b10fe2"
        );
    }

    #[test]
    fn tampering_wrong_secrets_and_replays_are_refused() {
        let header = sign(SECRET, NOW, BODY);
        assert_eq!(
            verify(&header, br#"{"eventType":11}"#, SECRET, NOW, 300),
            Err(VerifyError::Mismatch)
        );
        assert_eq!(
            verify(&header, BODY, b"other", NOW, 300),
            Err(VerifyError::Mismatch)
        );
        assert_eq!(
            verify(&header, BODY, SECRET, NOW + 301, 300),
            Err(VerifyError::OutsideTolerance)
        );
        assert_eq!(
            verify(&header, BODY, SECRET, NOW - 301, 300),
            Err(VerifyError::OutsideTolerance)
        );
        // A different timestamp with the old v1 value (replay with a fresh t) fails.
        let v1 = header.split_once(",v1=").unwrap().1;
        let forged = format!("t={},v1={v1}", NOW + 1000);
        assert_eq!(
            verify(&forged, BODY, SECRET, NOW + 1000, 300),
            Err(VerifyError::Mismatch)
        );
    }

    #[test]
    fn any_of_several_v1_values_may_match() {
        let rotated = sign_with_all(&[b"new", SECRET], NOW, BODY);
        assert_eq!(rotated.matches("v1=").count(), 2);
        assert_eq!(verify(&rotated, BODY, SECRET, NOW, 300), Ok(()));
        assert_eq!(verify(&rotated, BODY, b"new", NOW, 300), Ok(()));
        assert_eq!(
            verify(&rotated, BODY, b"third", NOW, 300),
            Err(VerifyError::Mismatch)
        );
        // Garbage and unknown schemes next to a good value do not hurt.
        let v1 = sign(SECRET, NOW, BODY);
        let good = v1.split_once(",v1=").unwrap().1;
        let header = format!("t={NOW}, v0=abc, v1=zz, v1={good}");
        assert_eq!(verify(&header, BODY, SECRET, NOW, 300), Ok(()));
    }

    #[test]
    fn malformed_headers_are_refused() {
        for (header, error) in [
            ("", VerifyError::Malformed),
            ("v1=00", VerifyError::Malformed),
            ("t=abc,v1=00", VerifyError::Malformed),
            ("t=1,t=2,v1=00", VerifyError::Malformed),
            ("t=1700000000", VerifyError::NoSignature),
            ("t=1700000000,v1", VerifyError::Malformed),
        ] {
            assert_eq!(
                verify(header, BODY, SECRET, NOW, 300),
                Err(error),
                "{header}"
            );
        }
    }
}
