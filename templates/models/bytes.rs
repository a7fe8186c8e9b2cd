//! `format: byte`: bytes that travel as base64 text. Copied verbatim by openapi-gen into models
//! crates whose document uses the format.

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};
use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

/// Bytes that are base64 text on the wire (RFC 4648 section 4, padded). Decoding also accepts the
/// URL-safe alphabet (section 5) and missing padding, as other implementations may send either.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Base64(pub Vec<u8>);

const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);

impl Base64 {
    pub fn into_inner(self) -> Vec<u8> {
        self.0
    }
}

impl Deref for Base64 {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Base64 {
    fn from(bytes: Vec<u8>) -> Self {
        Base64(bytes)
    }
}

impl From<&[u8]> for Base64 {
    fn from(bytes: &[u8]) -> Self {
        Base64(bytes.to_vec())
    }
}

impl From<Base64> for Vec<u8> {
    fn from(bytes: Base64) -> Self {
        bytes.0
    }
}

/// The base64 text.
impl fmt::Display for Base64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&general_purpose::STANDARD.encode(&self.0))
    }
}

impl FromStr for Base64 {
    type Err = base64::DecodeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        STANDARD
            .decode(text)
            .or_else(|error| URL_SAFE.decode(text).map_err(|_| error))
            .map(Base64)
    }
}

impl serde::Serialize for Base64 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Base64 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse()
            .map_err(|e| serde::de::Error::custom(format!("invalid base64: {e}")))
    }
}
