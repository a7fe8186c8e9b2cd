//! Credentials from the `Authorization` header: bearer tokens (RFC 6750) and HTTP Basic (RFC 7617).
//! Copied verbatim by openapi-gen.
//!
//! Missing or malformed credentials are rejected with 401 and a `WWW-Authenticate` challenge naming
//! the scheme the operation expects.

use crate::rejection::{Rejection, RejectionKind};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use base64::Engine;
use std::fmt;

const BEARER: &str = "Bearer";
const BASIC: &str = r#"Basic realm="api""#;

/// HTTP Basic credentials, decoded. `Debug` does not show the password.
#[derive(Clone, PartialEq, Eq)]
pub struct BasicCredentials {
    pub user_id: String,
    pub password: String,
}

impl fmt::Debug for BasicCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BasicCredentials")
            .field("user_id", &self.user_id)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// The `Authorization` header, split into scheme and credentials.
enum Authorization<'a> {
    Missing,
    Bearer(&'a str),
    Basic(&'a str),
    Other(&'a str),
}

fn unauthenticated(message: &str, challenge: &'static str) -> Rejection {
    Rejection::new(RejectionKind::Unauthenticated, message).with_challenge(challenge)
}

fn authorization<'a>(
    headers: &'a HeaderMap,
    challenge: &'static str,
) -> Result<Authorization<'a>, Rejection> {
    let Some(value) = headers.get(AUTHORIZATION) else {
        return Ok(Authorization::Missing);
    };
    let value = value.to_str().map_err(|_| {
        unauthenticated(
            "the Authorization header is not visible ASCII text",
            challenge,
        )
    })?;
    let (scheme, credentials) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    let credentials = credentials.trim();
    if scheme.eq_ignore_ascii_case("bearer") {
        Ok(Authorization::Bearer(credentials))
    } else if scheme.eq_ignore_ascii_case("basic") {
        Ok(Authorization::Basic(credentials))
    } else {
        Ok(Authorization::Other(scheme))
    }
}

fn non_empty_token(token: &str) -> Result<&str, Rejection> {
    if token.is_empty() {
        Err(unauthenticated(
            "the bearer token is empty",
            r#"Bearer error="invalid_request""#,
        ))
    } else {
        Ok(token)
    }
}

/// The bearer token an operation requires.
pub fn bearer_token(headers: &HeaderMap) -> Result<&str, Rejection> {
    match authorization(headers, BEARER)? {
        Authorization::Bearer(token) => non_empty_token(token),
        Authorization::Missing => Err(unauthenticated(
            "a bearer token is required (Authorization: Bearer <token>)",
            BEARER,
        )),
        Authorization::Basic(_) => Err(unauthenticated(
            "expected a Bearer token, not Basic credentials",
            BEARER,
        )),
        Authorization::Other(scheme) => Err(unauthenticated(
            &format!("expected a Bearer token, not the `{scheme}` scheme"),
            BEARER,
        )),
    }
}

/// The bearer token of an operation that also admits other credentials or none: `None` unless the
/// request uses the Bearer scheme.
pub fn optional_bearer_token(headers: &HeaderMap) -> Result<Option<&str>, Rejection> {
    match authorization(headers, BEARER)? {
        Authorization::Bearer(token) => non_empty_token(token).map(Some),
        _ => Ok(None),
    }
}

/// What `authenticate` refused, answered as a 401 with a Bearer challenge unless it chose otherwise.
pub fn bearer_rejected(rejection: Rejection) -> Rejection {
    if rejection.status == axum::http::StatusCode::UNAUTHORIZED && rejection.challenge.is_none() {
        rejection.with_challenge(r#"Bearer error="invalid_token""#)
    } else {
        rejection
    }
}

fn decode_basic(encoded: &str) -> Result<BasicCredentials, Rejection> {
    let malformed = || {
        unauthenticated(
            "malformed Basic credentials (expected base64 of user-id:password)",
            BASIC,
        )
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| malformed())?;
    let text = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (user_id, password) = text.split_once(':').ok_or_else(malformed)?;
    Ok(BasicCredentials {
        user_id: user_id.to_owned(),
        password: password.to_owned(),
    })
}

/// The HTTP Basic credentials an operation requires.
pub fn basic(headers: &HeaderMap) -> Result<BasicCredentials, Rejection> {
    match authorization(headers, BASIC)? {
        Authorization::Basic(encoded) => decode_basic(encoded),
        _ => Err(unauthenticated(
            "HTTP Basic credentials are required",
            BASIC,
        )),
    }
}

/// HTTP Basic credentials, if the request uses the Basic scheme; malformed ones are rejected.
pub fn optional_basic(headers: &HeaderMap) -> Result<Option<BasicCredentials>, Rejection> {
    match authorization(headers, BASIC)? {
        Authorization::Basic(encoded) => decode_basic(encoded).map(Some),
        _ => Ok(None),
    }
}

/// The rejection of a request that carries none of the credentials an operation accepts.
pub fn missing_credentials() -> Rejection {
    unauthenticated(
        "credentials are required (Authorization: Bearer or Basic)",
        BEARER,
    )
}
