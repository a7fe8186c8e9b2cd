//! Admission to `POST /v1/auth/token`, the one place where a caller without credentials makes the
//! service spend real work (an argon2 check): a rate per source address, a rate per client id, and
//! a bound on requests inside the endpoint at once. A refusal is 429 in RFC 6749's error shape
//! (section 5.2) with Retry-After, decided before any secret is checked.

use asset_alerting_models::{OAuthError, OAuthErrorError};
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;
use uuid::Uuid;

pub const TOKEN_PATH: &str = "/v1/auth/token";

/// How long a caller refused for a full endpoint is asked to wait.
const BUSY_RETRY_AFTER: Duration = Duration::from_secs(1);

/// A refusal is sent after this pause: a client that ignores Retry-After and asks again at once
/// (an attacker's 64 connections) would otherwise turn cheap refusals into a flood of their own,
/// 18,000 a second here, which alone doubled GET asset's p99.
const REFUSAL_PAUSE: Duration = Duration::from_millis(250);

/// Limiter entries are pruned every this many requests, so unused keys do not pile up.
const PRUNE_EVERY: u32 = 1024;

#[derive(Debug, Clone, Copy)]
pub struct TokenLimits {
    /// Token requests per minute from one source address (bursts up to the same number).
    pub per_address: NonZeroU32,
    /// Token requests per minute naming one client id (bursts up to the same number).
    pub per_client: NonZeroU32,
    /// Token requests inside the endpoint at once (checking a secret or waiting to).
    pub in_flight: usize,
}

#[derive(Clone)]
pub struct TokenGate {
    by_address: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    by_client: Arc<DefaultKeyedRateLimiter<Uuid>>,
    admitted: Arc<Semaphore>,
    until_prune: Arc<AtomicU32>,
}

impl TokenGate {
    pub fn new(limits: TokenLimits) -> TokenGate {
        TokenGate {
            by_address: Arc::new(DefaultKeyedRateLimiter::keyed(Quota::per_minute(
                limits.per_address,
            ))),
            by_client: Arc::new(DefaultKeyedRateLimiter::keyed(Quota::per_minute(
                limits.per_client,
            ))),
            admitted: Arc::new(Semaphore::new(limits.in_flight.max(1))),
            until_prune: Arc::new(AtomicU32::new(PRUNE_EVERY)),
        }
    }

    fn prune_now_and_then(&self) {
        if self.until_prune.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.until_prune.store(PRUNE_EVERY, Ordering::Relaxed);
            self.by_address.retain_recent();
            self.by_client.retain_recent();
        }
    }
}

/// Wait time until `key` may make a request, if it may not now (the request is counted if it may).
fn over_rate<K: Hash + Eq + Clone>(
    limiter: &DefaultKeyedRateLimiter<K>,
    key: &K,
) -> Option<Duration> {
    limiter
        .check_key(key)
        .err()
        .map(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
}

/// The middleware: passes everything but token requests straight through.
pub async fn guard(State(gate): State<TokenGate>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || request.uri().path() != TOKEN_PATH {
        return next.run(request).await;
    }
    gate.prune_now_and_then();
    let address = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    if let Some(wait) = address.and_then(|a| over_rate(&gate.by_address, &a)) {
        return too_many("too many token requests from this address", wait).await;
    }
    let (client, request) = match client_id(request).await {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    if let Some(wait) = client.and_then(|c| over_rate(&gate.by_client, &c)) {
        return too_many("too many token requests for this client", wait).await;
    }
    let Ok(_admitted) = gate.admitted.clone().try_acquire_owned() else {
        return too_many(
            "the token endpoint is busy checking other requests",
            BUSY_RETRY_AFTER,
        )
        .await;
    };
    next.run(request).await
}

/// The client id the request names (HTTP Basic, else the form), and the request to pass on. An
/// id that is not a UUID is refused by the endpoint before any secret is checked, so it is not
/// counted here.
async fn client_id(request: Request) -> Result<(Option<Uuid>, Request), Response> {
    if let Some(authorization) = request.headers().get(AUTHORIZATION) {
        let id = authorization
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("basic"))
            .and_then(|(_, b64)| STANDARD.decode(b64.trim()).ok())
            .and_then(|raw| {
                let raw = String::from_utf8(raw).ok()?;
                Uuid::parse_str(raw.split_once(':')?.0).ok()
            });
        return Ok((id, request));
    }
    let is_form = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Ok((None, request));
    }
    // Read under the router's body limit; the endpoint reads the same bytes again.
    let (parts, body) = request.into_parts();
    let bytes = Bytes::from_request(Request::from_parts(parts.clone(), body), &())
        .await
        .map_err(|e| {
            invalid_request(&format!(
                "the request body could not be read: {}",
                e.body_text()
            ))
        })?;
    let id = form_urlencoded::parse(&bytes)
        .find(|(name, _)| name == "client_id")
        .and_then(|(_, value)| Uuid::parse_str(&value).ok());
    Ok((id, Request::from_parts(parts, Body::from(bytes))))
}

/// RFC 6749 knows 400 and 401 only: a body the gate cannot read (too large) is an invalid request.
fn invalid_request(description: &str) -> Response {
    let body = OAuthError {
        error: OAuthErrorError::InvalidRequest,
        error_description: Some(description.to_owned()),
    };
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

async fn too_many(description: &str, wait: Duration) -> Response {
    tokio::time::sleep(REFUSAL_PAUSE).await;
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let body = OAuthError {
        error: OAuthErrorError::InvalidRequest,
        error_description: Some(format!("{description}; retry after {} s", seconds.max(1))),
    };
    (
        StatusCode::TOO_MANY_REQUESTS,
        [
            (RETRY_AFTER, seconds.max(1).to_string()),
            (CACHE_CONTROL, "no-store".to_owned()),
        ],
        axum::Json(body),
    )
        .into_response()
}
