//! OAuth 2.0 client credentials (RFC 6749 section 4.4): the access token is fetched on first use,
//! cached until shortly before it expires, and fetched again when it has expired or the server
//! rejected it. Copied verbatim by openapi-gen.

use crate::client::Inner;
use crate::error::{AuthError, Error};
use reqwest::header::HeaderValue;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;
use tokio::time::Instant;

/// A token is replaced this long before it expires, or after 90% of its lifetime when that is shorter.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

pub(crate) struct TokenCache {
    token_url: String,
    client_id: String,
    client_secret: String,
    current: Mutex<Option<Token>>,
    /// Held while a token is fetched: concurrent calls wait for that one fetch (single flight).
    refresh: tokio::sync::Mutex<()>,
    fetched: AtomicU64,
}

/// A cached access token, ready to send.
#[derive(Clone)]
pub(crate) struct Token {
    pub(crate) header: HeaderValue,
    /// `None` when the server did not say when the token expires.
    refresh_at: Option<Instant>,
    /// Which fetch produced it, so that a rejection only discards the token that was rejected.
    pub(crate) generation: u64,
}

#[derive(serde::Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

#[derive(serde::Deserialize)]
struct TokenErrorResponse {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

impl TokenCache {
    pub(crate) fn new(token_url: String, client_id: String, client_secret: String) -> TokenCache {
        TokenCache {
            token_url,
            client_id,
            client_secret,
            current: Mutex::new(None),
            refresh: tokio::sync::Mutex::new(()),
            fetched: AtomicU64::new(0),
        }
    }

    pub(crate) fn token_url(&self) -> &str {
        &self.token_url
    }

    /// The cached token, or a new one when there is none or it is about to expire.
    pub(crate) async fn token<E>(&self, inner: &Inner) -> Result<Token, Error<E>> {
        if let Some(token) = self.fresh() {
            return Ok(token);
        }
        let _single_flight = self.refresh.lock().await;
        // Another call may have fetched a token while this one waited.
        if let Some(token) = self.fresh() {
            return Ok(token);
        }
        let token = self.fetch(inner).await?;
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = Some(token.clone());
        Ok(token)
    }

    /// Forgets the token of `generation` (the server rejected it); a newer token is kept.
    pub(crate) fn invalidate(&self, generation: u64) {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current.as_ref().is_some_and(|t| t.generation == generation) {
            *current = None;
        }
    }

    fn fresh(&self) -> Option<Token> {
        let current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        let token = current.as_ref()?;
        let valid = token.refresh_at.is_none_or(|at| Instant::now() < at);
        valid.then(|| token.clone())
    }

    /// `POST token_url` with `grant_type=client_credentials`; the credentials go in HTTP Basic
    /// authentication, each form-urlencoded first (RFC 6749 section 2.3.1).
    async fn fetch<E>(&self, inner: &Inner) -> Result<Token, Error<E>> {
        let request = inner
            .http
            .post(&self.token_url)
            .basic_auth(
                form_urlencode(&self.client_id),
                Some(form_urlencode(&self.client_secret)),
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&[("grant_type", "client_credentials")]);
        let request = inner.prepare(request).build().map_err(Error::Transport)?;
        let sent_at = Instant::now();
        let response = inner
            .dispatch(request, true)
            .await
            .map_err(Error::from)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(Error::Transport)?;
        let refused = |error: Option<TokenErrorResponse>| {
            let (error, error_description) = match error {
                Some(e) => (Some(e.error), e.error_description),
                None => (None, None),
            };
            let body = String::from_utf8_lossy(&bytes).into_owned();
            Error::Auth(Box::new(AuthError {
                status,
                error,
                error_description,
                body,
            }))
        };
        if !status.is_success() {
            return Err(refused(serde_json::from_slice(&bytes).ok()));
        }
        let Ok(answer) = serde_json::from_slice::<TokenResponse>(&bytes) else {
            return Err(refused(None));
        };
        let Ok(mut header) = HeaderValue::from_str(&format!("Bearer {}", answer.access_token))
        else {
            return Err(refused(None));
        };
        header.set_sensitive(true);
        let refresh_at = answer.expires_in.map(|seconds| {
            let lifetime = Duration::from_secs(seconds);
            sent_at + lifetime - EXPIRY_MARGIN.min(lifetime / 10)
        });
        let generation = self.fetched.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(Token {
            header,
            refresh_at,
            generation,
        })
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn form_urlencode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
