//! What can go wrong with a call, and with building a client. Copied verbatim by openapi-gen.

use reqwest::StatusCode;
use std::fmt;

/// The error of one call. `E` is the operation's enum of documented errors (in `errors`), one
/// variant per documented error status; operations that document no error use `()`.
#[derive(Debug)]
pub enum Error<E> {
    /// The request could not be built or sent, or its response could not be read: connection
    /// refused or reset, timeout, TLS failure, an invalid header value...
    Transport(reqwest::Error),
    /// The server answered a status the operation documents as an error: `body` is the variant of
    /// that status, with its decoded body and headers. Where every variant has the same body, the
    /// enum dereferences to it (`body.code`).
    Api { status: StatusCode, body: Box<E> },
    /// The server answered a status the operation does not document; `body` is the raw body, lossily
    /// decoded as UTF-8.
    UnexpectedStatus { status: StatusCode, body: String },
    /// The server answered a documented status, but its body does not decode as documented.
    Decode {
        status: StatusCode,
        body: String,
        source: serde_json::Error,
    },
    /// The OAuth 2.0 token endpoint refused the client credentials or answered without a usable
    /// access token.
    Auth(Box<AuthError>),
    /// A `tower` layer or service the client sends through (feature `tower`) failed, or a request
    /// sent through one outlived its timeout. Transport errors of the HTTP client under the layers
    /// are still [`Error::Transport`].
    Service(Box<dyn std::error::Error + Send + Sync>),
    /// A path parameter's value made a whole path segment `.` or `..` (also written `%2E`), which
    /// URL resolution removes (RFC 3986 section 5.2.4): the request would reach another resource,
    /// so it was not sent. `path` is the path as it would have been sent.
    InvalidPath { path: String },
}

impl<E> Error<E> {
    /// The HTTP status of the answer, when there was one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Transport(e) => e.status(),
            Error::Api { status, .. }
            | Error::UnexpectedStatus { status, .. }
            | Error::Decode { status, .. } => Some(*status),
            Error::Auth(e) => Some(e.status),
            Error::Service(_) | Error::InvalidPath { .. } => None,
        }
    }

    /// The documented error (the status's variant), for [`Error::Api`].
    pub fn api_body(&self) -> Option<&E> {
        match self {
            Error::Api { body, .. } => Some(body),
            _ => None,
        }
    }
}

impl<E: fmt::Debug> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Transport(e) => write!(f, "request failed: {e}"),
            Error::Api { status, body } => write!(f, "the server answered {status}: {body:?}"),
            Error::UnexpectedStatus { status, body } if body.is_empty() => {
                write!(
                    f,
                    "the server answered {status}, which the operation does not document"
                )
            }
            Error::UnexpectedStatus { status, body } => {
                write!(
                    f,
                    "the server answered {status}, which the operation does not document: {body}"
                )
            }
            Error::Decode { status, source, .. } => {
                write!(
                    f,
                    "the body of the server's {status} answer does not decode: {source}"
                )
            }
            Error::Auth(e) => e.fmt(f),
            Error::Service(e) => write!(f, "request failed: {e}"),
            Error::InvalidPath { path } => write!(
                f,
                "not sent: a path parameter makes the segment `.` or `..` in {path}, which would reach another path"
            ),
        }
    }
}

impl<E: fmt::Debug> std::error::Error for Error<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport(e) => Some(e),
            Error::Decode { source, .. } => Some(source),
            Error::Auth(e) => Some(e.as_ref()),
            Error::Service(e) => Some(e.as_ref()),
            Error::Api { .. } | Error::UnexpectedStatus { .. } | Error::InvalidPath { .. } => None,
        }
    }
}

/// Why a request got no response: the HTTP client's error, or a `tower` service's.
#[derive(Debug)]
pub(crate) enum SendError {
    Http(reqwest::Error),
    #[cfg_attr(not(feature = "tower"), allow(dead_code, reason = "only `tower` services fail so"))]
    Service(Box<dyn std::error::Error + Send + Sync>),
}

impl SendError {
    /// The HTTP client's error, also when a layer passed it on.
    pub(crate) fn http(&self) -> Option<&reqwest::Error> {
        match self {
            SendError::Http(e) => Some(e),
            SendError::Service(e) => e.downcast_ref(),
        }
    }
}

impl<E> From<SendError> for Error<E> {
    fn from(error: SendError) -> Error<E> {
        match error {
            SendError::Http(e) => Error::Transport(e),
            SendError::Service(e) => match e.downcast::<reqwest::Error>() {
                Ok(e) => Error::Transport(*e),
                Err(e) => Error::Service(e),
            },
        }
    }
}

/// The token endpoint's refusal (RFC 6749 section 5.2), or an answer without a usable token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    /// The status of the token endpoint's answer.
    pub status: StatusCode,
    /// The RFC 6749 `error` code (`invalid_client`, `invalid_scope`...), when the answer has one.
    pub error: Option<String>,
    /// The RFC 6749 `error_description`, when the answer has one.
    pub error_description: Option<String>,
    /// The body of the answer, lossily decoded as UTF-8.
    pub body: String,
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = self.status;
        match (&self.error, &self.error_description) {
            (Some(code), Some(description)) => {
                write!(
                    f,
                    "the token endpoint answered {status}: {code} ({description})"
                )
            }
            (Some(code), None) => write!(f, "the token endpoint answered {status}: {code}"),
            (None, _) if status.is_success() => {
                write!(
                    f,
                    "the token endpoint answered {status} without a usable access token"
                )
            }
            (None, _) => write!(f, "the token endpoint answered {status}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// Why [`ClientBuilder::build`](crate::ClientBuilder::build) failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// The base URL is not an absolute `http` or `https` URL without query or fragment.
    InvalidBaseUrl { url: String, reason: String },
    /// A header name or value (a default header, the user agent or the bearer token) is not valid in HTTP.
    InvalidHeader { name: String },
    /// The HTTP client could not be created (for example, its TLS backend failed to initialise).
    Http(reqwest::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::InvalidBaseUrl { url, reason } => {
                write!(f, "invalid base URL `{url}`: {reason}")
            }
            BuildError::InvalidHeader { name } => write!(f, "invalid value for header `{name}`"),
            BuildError::Http(e) => write!(f, "cannot create the HTTP client: {e}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Http(e) => Some(e),
            _ => None,
        }
    }
}
