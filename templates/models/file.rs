//! `format: binary` values: bytes with the file name and content type a `multipart/form-data` part
//! carries. Copied verbatim by openapi-gen.
//!
//! In JSON (where OpenAPI gives binary no text form) a file is its bytes, as `Vec<u8>` would be, and
//! `null` reads as an empty file; the generated multipart codecs fill in the name and content type.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Binary content, with the name and media type it travels with in a multipart part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File {
    /// The part's `filename` (sent as the property name when `None`).
    pub file_name: Option<String>,
    /// The part's `Content-Type` (sent as `application/octet-stream` when `None`).
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

impl File {
    /// A file of `bytes` without a name or content type.
    pub fn new(bytes: impl Into<Vec<u8>>) -> File {
        File {
            file_name: None,
            content_type: None,
            bytes: bytes.into(),
        }
    }

    /// Names the file.
    pub fn with_name(mut self, file_name: impl Into<String>) -> File {
        self.file_name = Some(file_name.into());
        self
    }

    /// Sets its media type.
    pub fn with_content_type(mut self, content_type: impl Into<String>) -> File {
        self.content_type = Some(content_type.into());
        self
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl From<Vec<u8>> for File {
    fn from(bytes: Vec<u8>) -> File {
        File::new(bytes)
    }
}

impl Serialize for File {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.bytes.serialize(serializer)
    }
}

struct FileVisitor;

impl<'de> Visitor<'de> for FileVisitor {
    type Value = File;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("bytes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<File, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        Ok(File::new(bytes))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<File, E> {
        Ok(File::new(v.as_bytes().to_vec()))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<File, E> {
        Ok(File::new(v.to_vec()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<File, E> {
        Ok(File::default())
    }

    fn visit_none<E: de::Error>(self) -> Result<File, E> {
        Ok(File::default())
    }
}

impl<'de> Deserialize<'de> for File {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<File, D::Error> {
        deserializer.deserialize_any(FileVisitor)
    }
}

impl crate::validation::Validate for File {
    fn validate_at(&self, _path: &str, _errors: &mut Vec<crate::validation::ValidationError>) {}
}
