//! The parts of `multipart/form-data` bodies. Copied verbatim by openapi-gen.

use serde::Serialize;

/// A multipart file part: the file's bytes, its name (else `name`, the property's) and content type
/// (else `application/octet-stream`, the Encoding Object's default for binary).
pub fn file_part(name: &str, file: &crate::models::file::File) -> reqwest::multipart::Part {
    let part = reqwest::multipart::Part::bytes(file.bytes.clone())
        .file_name(file.file_name.clone().unwrap_or_else(|| name.to_owned()));
    let content_type = file
        .content_type
        .as_deref()
        .unwrap_or("application/octet-stream");
    match part.mime_str(content_type) {
        Ok(part) => part,
        // Not a media type: sent without one rather than not at all.
        Err(_) => reqwest::multipart::Part::bytes(file.bytes.clone())
            .file_name(file.file_name.clone().unwrap_or_else(|| name.to_owned())),
    }
}

/// A multipart part holding JSON (the Encoding Object's default for objects and arrays).
pub fn json_part<T: Serialize + ?Sized>(value: &T) -> reqwest::multipart::Part {
    let text = serde_json::to_string(value).unwrap_or_default();
    let part = reqwest::multipart::Part::text(text.clone());
    part.mime_str("application/json")
        .unwrap_or_else(|_| reqwest::multipart::Part::text(text))
}
