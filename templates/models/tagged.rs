//! Internally tagged unions (a `discriminator`, or a property every branch fixes to a constant of
//! its own). Copied verbatim by openapi-gen.
//!
//! A union reads the tag first, then decodes the whole object, tag included, as the branch the tag
//! names: a branch's struct is the same type here as wherever else the document uses it, and a
//! missing or unknown tag is an error that names the tag and the values it may take.

use serde::Serialize;
use serde::de::{DeserializeOwned, Error};
use serde::ser::{self, Impossible, SerializeMap, SerializeStruct, Serializer};
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

/// Encodes a variant whose type does not declare the tag property: its object, with the tag
/// `name: tag` written first. One shared adapter instead of a wrapper type per variant.
pub fn with_tag<S: Serializer, T: Serialize + ?Sized, V: Serialize>(
    serializer: S,
    name: &'static str,
    tag: V,
    value: &T,
) -> Result<S::Ok, S::Error> {
    value.serialize(TagFirst {
        inner: serializer,
        name,
        tag,
    })
}

/// A serializer that passes an object (a struct, or a map such as a struct with flattened
/// fields) on to `inner` with the tag entry in front, and refuses any other value: a tagged
/// variant is always an object.
struct TagFirst<S, V> {
    inner: S,
    name: &'static str,
    tag: V,
}

impl<S: Serializer, V: Serialize> TagFirst<S, V> {
    fn not_an_object(self, kind: &str) -> S::Error {
        ser::Error::custom(format_args!(
            "a variant tagged by `{}` must encode as an object, not {kind}",
            self.name
        ))
    }
}

/// The `Serializer` methods of values that are no object: each refuses the value.
macro_rules! refuse_scalars {
    ($($method:ident($ty:ty) $kind:literal,)*) => {
        $(
            fn $method(self, _: $ty) -> Result<S::Ok, S::Error> {
                Err(self.not_an_object($kind))
            }
        )*
    };
}

impl<S: Serializer, V: Serialize> Serializer for TagFirst<S, V> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = S::SerializeStruct;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<S::SerializeStruct, S::Error> {
        let mut object = self.inner.serialize_struct(name, len + 1)?;
        object.serialize_field(self.name, &self.tag)?;
        Ok(object)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<S::SerializeMap, S::Error> {
        let mut object = self.inner.serialize_map(len.map(|n| n + 1))?;
        object.serialize_entry(self.name, &self.tag)?;
        Ok(object)
    }

    refuse_scalars! {
        serialize_bool(bool) "a boolean",
        serialize_i8(i8) "a number",
        serialize_i16(i16) "a number",
        serialize_i32(i32) "a number",
        serialize_i64(i64) "a number",
        serialize_u8(u8) "a number",
        serialize_u16(u16) "a number",
        serialize_u32(u32) "a number",
        serialize_u64(u64) "a number",
        serialize_f32(f32) "a number",
        serialize_f64(f64) "a number",
        serialize_char(char) "a string",
        serialize_str(&str) "a string",
        serialize_bytes(&[u8]) "bytes",
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("null"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("null"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("null"))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("a string"))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("an enum"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Err(self.not_an_object("an array"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, S::Error> {
        Err(self.not_an_object("an array"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        Err(self.not_an_object("an array"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        Err(self.not_an_object("an enum"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        Err(self.not_an_object("an enum"))
    }
}

/// Before a variant is encoded: its struct's own tag property (`held`, where the document lets it
/// hold other values than this variant's) must hold one of the variant's tag values, or the value
/// would decode as another variant.
pub fn check<T: Serialize + ?Sized>(held: &T, name: &str, tags: &[&str]) -> Result<(), String> {
    // Tags are text: a string as it is, an integer as JSON writes it.
    let text = |value: &Value| match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match serde_json::to_value(held) {
        Ok(value) if text(&value).is_some_and(|t| tags.contains(&t.as_str())) => Ok(()),
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
