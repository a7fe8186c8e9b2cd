//! Writing responses: status, body with its content type, documented headers, and the error body of a
//! rejection. Copied verbatim by openapi-gen.

use crate::rejection::Rejection;
use axum::body::{Body, Bytes};
use axum::http::header::{CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

fn with_content_type(
    status: StatusCode,
    content_type: HeaderValue,
    body: impl Into<Body>,
) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, content_type);
    response
}

/// A response enum that answers any error status with the API's error body: the variant the
/// operation documents for that status (its optional headers left out), else
/// `Other(status, body)`. So one function can map an implementation's errors onto every
/// operation's responses. It is implemented by each response enum that has an `Other` variant
/// and whose documented error statuses (4xx and 5xx, each a code of its own) all carry the
/// API's error body with optional headers only.
pub trait ErrorResponse: Sized {
    /// The API's error body (the body of `Other`).
    type Error;
    /// The response for `status` with `body`.
    fn error(status: StatusCode, body: Self::Error) -> Self;
}

/// A JSON body. A value serde cannot encode (never expected from the models) answers 500.
pub fn json<T: Serialize>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => with_content_type(status, HeaderValue::from_static("application/json"), bytes),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the response body could not be encoded: {e}"),
        )
            .into_response(),
    }
}

/// A `text/plain` body.
pub fn text(status: StatusCode, body: String) -> Response {
    with_content_type(
        status,
        HeaderValue::from_static("text/plain; charset=utf-8"),
        body,
    )
}

/// A text body of the documented text media type (`text/html; charset=utf-8`).
pub fn text_as(status: StatusCode, content_type: &'static str, body: String) -> Response {
    with_content_type(status, HeaderValue::from_static(content_type), body)
}

/// A body of another media type, as bytes.
pub fn bytes(status: StatusCode, content_type: &'static str, body: Bytes) -> Response {
    with_content_type(status, HeaderValue::from_static(content_type), body)
}

/// No body.
pub fn empty(status: StatusCode) -> Response {
    status.into_response()
}

/// A status the `http` crate has no constant for (the generator checks it is within 100..=999).
pub fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// Adds a documented response header; a value that is not valid header text is left out.
pub fn header(response: &mut Response, name: &'static str, value: impl std::fmt::Display) {
    if let Ok(value) = HeaderValue::from_str(&value.to_string()) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(name), value);
    }
}

/// Adds an optional response header when it is set.
pub fn optional_header(
    response: &mut Response,
    name: &'static str,
    value: Option<impl std::fmt::Display>,
) {
    if let Some(value) = value {
        header(response, name, value);
    }
}

/// The answer to a rejection: its status, the API's error body, and its `WWW-Authenticate` challenge.
pub fn rejection<B: Serialize>(rejection: &Rejection, body: &B) -> Response {
    let mut response = json(rejection.status, body);
    if let Some(challenge) = &rejection.challenge
        && let Ok(value) = HeaderValue::from_str(challenge)
    {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// The answer to a rejection built by the operation itself (its `{op}_rejection` method). A 401
/// must carry a challenge (RFC 9110 section 15.5.2): the rejection's, unless the operation set one.
pub fn operation_rejection(rejection: &Rejection, answer: impl IntoResponse) -> Response {
    let mut response = answer.into_response();
    if response.status() == StatusCode::UNAUTHORIZED
        && !response.headers().contains_key(WWW_AUTHENTICATE)
        && let Some(challenge) = &rejection.challenge
        && let Ok(value) = HeaderValue::from_str(challenge)
    {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}
