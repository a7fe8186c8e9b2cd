//! Reading request bodies: JSON and form data decoded into the models' types and validated, text, and
//! raw bytes. Copied verbatim by openapi-gen.
//!
//! Bodies are read with axum's `Bytes` extractor, so a `DefaultBodyLimit` layer applies (2 MB unless
//! set otherwise). A decoding error names the field path (`telemetryRules.speedLimit: ...`). JSON
//! structs are read from objects only (see the `objects_only` module).

use crate::models::Validate;
use crate::objects_only::ObjectsOnly;
use crate::rejection::{Rejection, RejectionKind};
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, header};
use serde::de::DeserializeOwned;

/// A body the generator does not decode (multipart, binary, other media types), with its content type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBody {
    pub content_type: Option<String>,
    pub bytes: Bytes,
}

/// The media type of the request, lowercased and without parameters (`application/json`).
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next().unwrap_or_default().trim();
    Some(essence.to_ascii_lowercase())
}

fn is_json(media: &str) -> bool {
    media == "application/json" || (media.starts_with("application/") && media.ends_with("+json"))
}

async fn read(request: Request) -> Result<Bytes, Rejection> {
    Bytes::from_request(request, &()).await.map_err(|e| {
        let kind = if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            RejectionKind::PayloadTooLarge
        } else {
            RejectionKind::MalformedBody
        };
        Rejection::new(
            kind,
            format!("the request body could not be read: {}", e.body_text()),
        )
    })
}

/// Reads the body if the request has one; `accepts` says whether its media type is acceptable.
async fn read_if_present(
    request: Request,
    accepts: fn(&str) -> bool,
    expected: &str,
) -> Result<Option<Bytes>, Rejection> {
    let media = media_type(request.headers());
    let bytes = read(request).await?;
    match media {
        None if bytes.is_empty() => Ok(None),
        Some(media) if accepts(&media) => Ok((!bytes.is_empty()).then_some(bytes)),
        Some(media) => Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("Content-Type `{media}` is not supported; send {expected}"),
        )),
        None => Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("Content-Type is missing; send {expected}"),
        )),
    }
}

fn missing(expected: &str) -> Rejection {
    Rejection::new(
        RejectionKind::InvalidBody,
        format!("the request body is required ({expected})"),
    )
}

/// `value` if it meets its schema's constraints, else the rejection listing what does not.
pub fn validated<T: Validate>(value: T) -> Result<T, Rejection> {
    match value.validate() {
        Ok(()) => Ok(value),
        Err(errors) => Err(Rejection::new(
            RejectionKind::InvalidBody,
            format!("invalid body: {errors}"),
        )),
    }
}

const JSON: &str = "application/json";
const FORM: &str = "application/x-www-form-urlencoded";

/// Decodes JSON; the message of a type error names the field path. An array where the schema
/// has an object is a type error, at any depth, and so is a string where it has a number (which
/// the models' clients accept from servers that send one).
pub fn decode_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Rejection> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let decoded = crate::models::wire::strict(|| {
        serde_path_to_error::deserialize(ObjectsOnly(&mut deserializer))
    });
    let value = decoded.map_err(|e| {
        // A type error can come before a syntax error further on: only a well-formed document is
        // called invalid (a second parse, on this error path only).
        match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
            Ok(_) => Rejection::new(RejectionKind::InvalidBody, format!("invalid body: {e}")),
            Err(syntax) => Rejection::new(
                RejectionKind::MalformedBody,
                format!("malformed JSON body: {syntax}"),
            ),
        }
    })?;
    deserializer.end().map_err(|e| {
        Rejection::new(
            RejectionKind::MalformedBody,
            format!("malformed JSON body: {e}"),
        )
    })?;
    Ok(value)
}

/// A required JSON body (`application/json` or `application/*+json`), decoded and validated.
pub async fn json<T: DeserializeOwned + Validate>(request: Request) -> Result<T, Rejection> {
    json_optional(request).await?.ok_or_else(|| missing(JSON))
}

/// An optional JSON body: a request without a body (and without a `Content-Type`) gives `None`.
pub async fn json_optional<T: DeserializeOwned + Validate>(
    request: Request,
) -> Result<Option<T>, Rejection> {
    match read_if_present(request, is_json, JSON).await? {
        Some(bytes) => decode_json(&bytes).and_then(validated).map(Some),
        None => Ok(None),
    }
}

/// Decodes `application/x-www-form-urlencoded` data; the message names the field.
pub fn decode_form<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Rejection> {
    // serde_html_form: a repeated name is an array (OpenAPI's default `form` encoding, exploded).
    let deserializer = serde_html_form::Deserializer::new(form_urlencoded::parse(bytes));
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        Rejection::new(
            RejectionKind::InvalidBody,
            format!("invalid form body: {e}"),
        )
    })
}

/// A required form body, decoded and validated.
pub async fn form<T: DeserializeOwned + Validate>(request: Request) -> Result<T, Rejection> {
    form_optional(request).await?.ok_or_else(|| missing(FORM))
}

pub async fn form_optional<T: DeserializeOwned + Validate>(
    request: Request,
) -> Result<Option<T>, Rejection> {
    match read_if_present(request, |media| media == FORM, FORM).await? {
        Some(bytes) => decode_form(&bytes).and_then(validated).map(Some),
        None => Ok(None),
    }
}

/// A required form body decoded by `decode` (bodies with `deepObject` properties), validated.
pub async fn form_with<T: Validate>(
    request: Request,
    decode: fn(&[u8]) -> Result<T, String>,
) -> Result<T, Rejection> {
    form_with_optional(request, decode)
        .await?
        .ok_or_else(|| missing(FORM))
}

pub async fn form_with_optional<T: Validate>(
    request: Request,
    decode: fn(&[u8]) -> Result<T, String>,
) -> Result<Option<T>, Rejection> {
    match read_if_present(request, |media| media == FORM, FORM).await? {
        Some(bytes) => decode(&bytes)
            .map_err(|e| {
                Rejection::new(
                    RejectionKind::InvalidBody,
                    format!("invalid form body: {e}"),
                )
            })
            .and_then(validated)
            .map(Some),
        None => Ok(None),
    }
}

/// A required `text/*` body.
pub async fn text(request: Request) -> Result<String, Rejection> {
    text_optional(request)
        .await?
        .ok_or_else(|| missing("text/plain"))
}

pub async fn text_optional(request: Request) -> Result<Option<String>, Rejection> {
    match read_if_present(request, |media| media.starts_with("text/"), "text/plain").await? {
        Some(bytes) => String::from_utf8(bytes.to_vec()).map(Some).map_err(|_| {
            Rejection::new(
                RejectionKind::MalformedBody,
                "the text body is not valid UTF-8",
            )
        }),
        None => Ok(None),
    }
}

/// A required body of any media type, as bytes.
pub async fn raw(request: Request) -> Result<RawBody, Rejection> {
    raw_optional(request)
        .await?
        .ok_or_else(|| missing("a body"))
}

pub async fn raw_optional(request: Request) -> Result<Option<RawBody>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = read(request).await?;
    Ok(
        (!bytes.is_empty() || content_type.is_some()).then_some(RawBody {
            content_type,
            bytes,
        }),
    )
}
