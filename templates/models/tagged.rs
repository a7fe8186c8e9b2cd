//! Internally tagged unions (a `discriminator`, or a property every branch fixes to a constant of
//! its own). Copied verbatim by openapi-gen.
//!
//! A union reads the tag first, then decodes the whole object, tag included, as the branch the tag
//! names: a branch's struct is the same type here as wherever else the document uses it, and a
//! missing or unknown tag is an error that names the tag and the values it may take.

use serde::Serialize;
use serde::de::{DeserializeOwned, Error};
use serde_json::Value;

/// The tag of `value`: its property `name`.
pub fn tag<'a, E: Error>(value: &'a Value, name: &str, expected: &str) -> Result<&'a Value, E> {
    match value {
        Value::Object(object) => object.get(name).ok_or_else(|| {
            E::custom(format_args!(
                "missing tag `{name}` (expected one of {expected})"
            ))
        }),
        other => Err(E::custom(format_args!(
            "expected an object tagged by `{name}`, found {}",
            kind(other)
        ))),
    }
}

/// The error for a tag value that names no variant.
pub fn unknown<E: Error>(tag: &Value, name: &str, expected: &str) -> E {
    E::custom(format_args!(
        "unknown `{name}` {tag} (expected one of {expected})"
    ))
}

/// Decodes the object as the type of the variant its tag names.
pub fn variant<T: DeserializeOwned, E: Error>(value: Value) -> Result<T, E> {
    T::deserialize(value).map_err(E::custom)
}

/// The object without its tag, for a variant whose type does not declare the tag property.
pub fn without(mut value: Value, name: &str) -> Value {
    if let Value::Object(object) = &mut value {
        object.remove(name);
    }
    value
}

/// Before a variant is encoded: its struct's own tag property (`held`, where the document lets it
/// hold other values than this variant's) must hold one of the variant's tag values, or the value
/// would decode as another variant.
pub fn check<T: Serialize + ?Sized>(held: &T, name: &str, tags: &[&str]) -> Result<(), String> {
    match serde_json::to_value(held) {
        Ok(Value::String(s)) if tags.contains(&s.as_str()) => Ok(()),
        Ok(other) => Err(format!(
            "`{name}` holds {other}, but the variant is tagged {}",
            tags.iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
        Err(e) => Err(e.to_string()),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
