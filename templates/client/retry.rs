//! When a request is sent again. Copied verbatim by openapi-gen.

use reqwest::StatusCode;
use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

/// How idempotent requests (`GET`, `PUT`, `DELETE`, `HEAD`, `OPTIONS`, `TRACE`) are repeated after
/// a connection error, a timeout, or a `502`, `503` or `504` answer.
///
/// The wait before retry `n` (0-based) is drawn between half and all of
/// `initial_backoff * 2^n`, capped at `max_backoff`; a `Retry-After` header given in seconds
/// is honoured up to `max_backoff`. `POST` and `PATCH` requests are never repeated, as the
/// server may have acted on them, unless the operation declares an idempotency key (an
/// `Idempotency-Key` header, or the header its `x-idempotency-key` extension names): then each
/// call sends a fresh UUID v4 in it unless the caller set one, every retry of the call repeats
/// that key, so a server that honours it acts once, and the call is retried like a `GET`. The
/// token request of OAuth 2.0 client credentials changes nothing on the server and follows the
/// same policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// How many times a request is repeated at most (0: never).
    pub max_retries: u32,
    /// The wait before the first retry; doubled for each further one.
    pub initial_backoff: Duration,
    /// The longest wait between two tries.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    /// Two retries, waiting 100 ms, then 200 ms (with jitter), at most 2 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
        }
    }
}

impl RetryPolicy {
    /// Never repeat a request.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// The default waits, with another number of retries.
    pub fn with_max_retries(max_retries: u32) -> Self {
        RetryPolicy {
            max_retries,
            ..RetryPolicy::default()
        }
    }

    /// The wait before retry `retry` (0-based), or the server's `Retry-After` when it gave one.
    pub(crate) fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_backoff);
        }
        let factor = 2u32.saturating_pow(retry.min(31));
        let full = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        // "Equal jitter": clients that failed together do not all come back at the same instant.
        let half = full / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        let jitter = if nanos == 0 {
            0
        } else {
            RandomState::new().hash_one(retry) % (nanos + 1)
        };
        half + Duration::from_nanos(jitter)
    }
}

/// A fresh UUID v4 (RFC 9562 section 5.4) for an idempotency key: 122 random bits from std's
/// randomly keyed SipHash over a per-process counter and the time (unique, not secret: a key only
/// has to differ from every other call's).
pub(crate) fn idempotency_key() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let random = RandomState::new();
    let high = random.hash_one((call, now, 0u8));
    let low = random.hash_one((call, now, 1u8));
    let bits = (u128::from(high) << 64 | u128::from(low)) & !(0xF000u128 << 64 | 0xC << 60)
        | 0x4000u128 << 64
        | 0x8 << 60;
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Answers that say "try again later" without the request having had an effect.
pub(crate) fn is_retryable_status(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
    )
}

/// Failures to connect or to get an answer; not errors in building the request or reading a body.
pub(crate) fn is_retryable_error(error: &reqwest::Error) -> bool {
    !error.is_builder()
        && !error.is_body()
        && !error.is_decode()
        && (error.is_connect() || error.is_timeout() || error.is_request())
}

/// `Retry-After` in seconds (the HTTP-date form is ignored).
pub(crate) fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}
