//! `multipart/form-data` bodies read into the models' structs. Copied verbatim by openapi-gen.
//!
//! Every part is read (within the router's body limit); the properties that are not files are
//! decoded like a JSON object of the same properties (so defaults, renames and errors are the
//! models' own), then the generated code puts the files in.

use crate::models::file::File;
use crate::rejection::{Rejection, RejectionKind};
use axum::extract::{FromRequest, Multipart, Request};
use serde::de::DeserializeOwned;

/// How a property travels in its part(s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// A string: the part's text.
    Text,
    /// A number, boolean or enum value: the part's text read as JSON, else as a string.
    Value,
    /// An object or anything else: the part holds JSON.
    Json,
    /// A file: put in by the generated code.
    File,
    /// One part per item.
    TextList,
    ValueList,
    FileList,
}

/// One part as received.
#[derive(Debug, Clone)]
struct Part {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: axum::body::Bytes,
}

/// The parts of a multipart body.
#[derive(Debug, Clone)]
pub struct FormParts {
    parts: Vec<Part>,
}

fn malformed(problem: impl std::fmt::Display) -> Rejection {
    Rejection::new(
        RejectionKind::MalformedBody,
        format!("the multipart body could not be read: {problem}"),
    )
}

fn invalid(problem: impl std::fmt::Display) -> Rejection {
    Rejection::new(
        RejectionKind::InvalidBody,
        format!("invalid multipart body: {problem}"),
    )
}

/// Reads every part; `None` when the request has no body and no `Content-Type`.
pub async fn read_optional(request: Request) -> Result<Option<FormParts>, Rejection> {
    let has_type = request.headers().contains_key(axum::http::header::CONTENT_TYPE);
    if !has_type {
        let bytes = axum::body::Bytes::from_request(request, &())
            .await
            .map_err(|e| malformed(e.body_text()))?;
        return if bytes.is_empty() {
            Ok(None)
        } else {
            Err(Rejection::new(
                RejectionKind::UnsupportedMediaType,
                "Content-Type is missing; send multipart/form-data",
            ))
        };
    }
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| {
            Rejection::new(
                RejectionKind::UnsupportedMediaType,
                format!("send multipart/form-data: {}", e.body_text()),
            )
        })?;
    let mut parts = Vec::new();
    while let Some(field) = multipart.next_field().await.map_err(|e| malformed(e.body_text()))? {
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let content_type = field.content_type().map(str::to_owned);
        let bytes = field.bytes().await.map_err(|e| malformed(e.body_text()))?;
        parts.push(Part {
            name,
            file_name,
            content_type,
            bytes,
        });
    }
    Ok(Some(FormParts { parts }))
}

/// Reads every part of a required body.
pub async fn read(request: Request) -> Result<FormParts, Rejection> {
    read_optional(request)
        .await?
        .ok_or_else(|| invalid("the request body is required (multipart/form-data)"))
}

impl FormParts {
    fn named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Part> + 's {
        self.parts.iter().filter(move |p| p.name == name)
    }

    /// The properties that are not files, decoded into `T` (files are left empty; see
    /// [`FormParts::file`]).
    pub fn decode<T: DeserializeOwned>(&self, fields: &[(&str, PartKind)]) -> Result<T, Rejection> {
        let text = |part: &Part| {
            std::str::from_utf8(&part.bytes)
                .map(str::to_owned)
                .map_err(|_| invalid(format!("part `{}` is not UTF-8 text", part.name)))
        };
        let value = |part: &Part| -> Result<serde_json::Value, Rejection> {
            let text = text(part)?;
            Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)))
        };
        let mut object = serde_json::Map::new();
        for (name, kind) in fields {
            let mut parts = self.named(name).peekable();
            if parts.peek().is_none() {
                continue;
            }
            let decoded = match kind {
                PartKind::Text => serde_json::Value::String(text(parts.next().expect("peeked"))?),
                PartKind::Value => value(parts.next().expect("peeked"))?,
                PartKind::Json => {
                    let part = parts.next().expect("peeked");
                    serde_json::from_slice(&part.bytes)
                        .map_err(|e| invalid(format!("part `{name}` is not JSON: {e}")))?
                }
                PartKind::File => serde_json::Value::Null,
                PartKind::FileList => serde_json::Value::Array(Vec::new()),
                PartKind::TextList => serde_json::Value::Array(
                    parts
                        .map(|p| text(p).map(serde_json::Value::String))
                        .collect::<Result<_, _>>()?,
                ),
                PartKind::ValueList => {
                    serde_json::Value::Array(parts.map(value).collect::<Result<_, _>>()?)
                }
            };
            object.insert((*name).to_owned(), decoded);
        }
        serde_path_to_error::deserialize(serde_json::Value::Object(object))
            .map_err(invalid)
    }

    /// The first file part named `name`.
    pub fn file(&self, name: &str) -> Option<File> {
        self.named(name).next().map(to_file)
    }

    /// Every file part named `name`.
    pub fn files(&self, name: &str) -> Vec<File> {
        self.named(name).map(to_file).collect()
    }
}

fn to_file(part: &Part) -> File {
    File {
        file_name: part.file_name.clone(),
        content_type: part.content_type.clone(),
        bytes: part.bytes.to_vec(),
    }
}
