//! Failures the router answers itself, before an operation runs: a malformed parameter or body, an
//! unsupported content type, missing or rejected credentials, an unknown route. Copied verbatim by
//! openapi-gen.
//!
//! The router never writes its own error text in its own shape: it hands a [`Rejection`] to the API,
//! which turns it into the error body of its spec (see the API trait's `rejection` method).

use axum::http::StatusCode;
use std::borrow::Cow;
use std::fmt;

/// What went wrong, for choosing an error code. Match it with a catch-all arm: kinds may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectionKind {
    /// A path, query, header or cookie parameter is missing, malformed or out of range (400).
    /// The message names the parameter.
    InvalidParameter,
    /// The body is not well-formed JSON (or form data) at all (400).
    MalformedBody,
    /// The body is well-formed but does not fit its schema: a wrong type, a missing or unknown
    /// field, a broken constraint (400). The message names the field path.
    InvalidBody,
    /// The `Content-Type` of the body is not one the operation accepts (415).
    UnsupportedMediaType,
    /// The body is larger than the router accepts (413; see axum's `DefaultBodyLimit`).
    PayloadTooLarge,
    /// Credentials are missing, malformed or were rejected by `authenticate` (401).
    Unauthenticated,
    /// No route matches the path (404).
    NotFound,
    /// The path exists, but not with this method (405).
    MethodNotAllowed,
}

impl RejectionKind {
    /// The status the router answers with for this kind, unless a rejection says otherwise.
    pub fn status(self) -> StatusCode {
        match self {
            Self::InvalidParameter | Self::MalformedBody | Self::InvalidBody => {
                StatusCode::BAD_REQUEST
            }
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Unauthenticated => StatusCode::UNAUTHORIZED,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        }
    }
}

/// A request the router refused, with the status it answers and a message for the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub kind: RejectionKind,
    pub status: StatusCode,
    /// Says what is wrong, naming the parameter or field path; safe to show to the caller.
    pub message: String,
    /// The `WWW-Authenticate` challenge sent with a 401 (for example `Bearer error="invalid_token"`).
    pub challenge: Option<Cow<'static, str>>,
}

impl Rejection {
    /// A rejection with the kind's usual status and no challenge.
    pub fn new(kind: RejectionKind, message: impl Into<String>) -> Self {
        Rejection {
            kind,
            status: kind.status(),
            message: message.into(),
            challenge: None,
        }
    }

    /// A bearer token that `authenticate` does not accept (unknown, expired, badly signed):
    /// 401 with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 section 3.1).
    pub fn invalid_token(message: impl Into<String>) -> Self {
        Rejection::new(RejectionKind::Unauthenticated, message)
            .with_challenge(r#"Bearer error="invalid_token""#)
    }

    /// The same rejection answered with another status (for example 403 or 503 from `authenticate`).
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// The same rejection with a `WWW-Authenticate` challenge.
    pub fn with_challenge(mut self, challenge: impl Into<Cow<'static, str>>) -> Self {
        self.challenge = Some(challenge.into());
        self
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.status)
    }
}

impl std::error::Error for Rejection {}

/// The error body of an API whose spec names none: `{"message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ErrorMessage {
    pub message: String,
}
