//! What the HTTP channels share: client settings and the retry classification.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::message::{ConfigError, DeliveryError};

/// Connect timeout of every HTTP client, unless a config says otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Whole-request timeout of every HTTP client, unless a config says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

const USER_AGENT: &str = concat!("asset-alerting/", env!("CARGO_PKG_VERSION"));

/// Timeouts, no redirects (a provider API never needs them; a webhook receiver must not steer
/// us elsewhere), no proxy from the environment (it would resolve names past our DNS guard).
pub(crate) fn client_builder(connect: Duration, total: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .connect_timeout(connect)
        .timeout(total)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(USER_AGENT)
}

pub(crate) fn build(builder: reqwest::ClientBuilder) -> Result<reqwest::Client, ConfigError> {
    builder
        .build()
        .map_err(|e| ConfigError(format!("HTTP client: {e}")))
}

/// Parses a configured base URL; a trailing slash is dropped so paths can be appended.
pub(crate) fn base_url(value: &str) -> Result<String, ConfigError> {
    let url =
        url::Url::parse(value).map_err(|e| ConfigError(format!("base_url {value:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(ConfigError(format!(
            "base_url {value:?} is not an http(s) URL"
        )));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// 408, 429 and 5xx may pass on a later attempt; any other status will not.
pub(crate) fn status_retryable(status: StatusCode) -> bool {
    status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error()
}

/// `Retry-After` in its delay-seconds form (providers do not send the date form).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse().ok().map(Duration::from_secs)
}

/// An error answer from `status`, classified by it.
pub(crate) fn status_error(
    status: StatusCode,
    headers: &HeaderMap,
    message: impl Into<String>,
) -> DeliveryError {
    DeliveryError {
        retryable: status_retryable(status),
        provider_code: Some(status.as_u16().to_string()),
        message: message.into(),
        retry_after: retry_after(headers),
    }
}

/// The request did not get an answer: connect failure, timeout, reset. The provider may or may
/// not have acted, so this is retryable and relies on the idempotency key. The URL is left out
/// of the message because the Telegram one holds the bot token.
pub(crate) fn transport_error(error: reqwest::Error) -> DeliveryError {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    DeliveryError::retryable(format!("{what}: {}", error_chain(&error.without_url())))
}

/// An error and its sources on one line (reqwest's own message is often just "error sending
/// request").
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
}

/// Reads at most `limit` bytes of a body for an error message: a receiver cannot make us buffer
/// more than that.
pub(crate) async fn body_snippet(mut response: reqwest::Response, limit: usize) -> String {
    let mut bytes = Vec::new();
    while bytes.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            _ => break,
        }
    }
    bytes.truncate(limit);
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_classified() {
        for (code, retryable) in [
            (400, false),
            (401, false),
            (403, false),
            (404, false),
            (408, true),
            (410, false),
            (429, true),
            (500, true),
            (502, true),
            (503, true),
        ] {
            let status = StatusCode::from_u16(code).unwrap();
            assert_eq!(status_retryable(status), retryable, "{code}");
        }
    }

    #[test]
    fn retry_after_seconds_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(RETRY_AFTER, "7".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn base_urls_lose_their_trailing_slash() {
        assert_eq!(
            base_url("https://api.twilio.com/").unwrap(),
            "https://api.twilio.com"
        );
        assert_eq!(
            base_url("http://127.0.0.1:9/prefix/").unwrap(),
            "http://127.0.0.1:9/prefix"
        );
        assert!(base_url("ftp://example.com").is_err());
        assert!(base_url("not a url").is_err());
    }
}
