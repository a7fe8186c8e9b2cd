//! Structs decoded from JSON objects. Copied verbatim by openapi-gen.
//!
//! The generated structs implement `Deserialize` through [`Object`] rather than serde's derive:
//! - an object schema admits no array, and the derive also decodes a struct from a sequence of
//!   its fields in order (`[null, 2]`); [`object`] asks for a map and refuses anything else with
//!   `invalid type: sequence, expected struct Name`;
//! - the derive spends a field-name visitor, a sequence visitor and a wrapper type per
//!   `deserialize_with` field on every struct; here the key, the visitor and the bookkeeping are
//!   shared, and each struct is one loop over its keys. That is most of what the models crate
//!   costs to compile.
//!
//! Messages are serde's own (`missing field`, `duplicate field`, `unknown field`), raised at the
//! same points, and the map seen by [`Object::from_map`] is the format's, so error paths and
//! positions are unchanged.
//!
//! They implement `Serialize` through [`Writer`]: the calls serde's derive makes (one
//! `serialize_struct` with the number of fields written, a `serialize_field` per field present,
//! a `skip_field` per absent one), as one call per field, with no branch or `?` of its own.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A struct read from a map, key by key.
pub trait Object: Sized {
    /// The Rust name, as serde's derive gives it to the format (`struct Name` in messages).
    const NAME: &'static str;
    /// The property names, as they are on the wire.
    const FIELDS: &'static [&'static str];
    fn from_map<'de, M: MapAccess<'de>>(map: &mut Fields<'de, M>) -> Result<Self, M::Error>;
}

/// `Deserialize::deserialize` of a struct that is an [`Object`].
pub fn object<'de, D: Deserializer<'de>, T: Object>(d: D) -> Result<T, D::Error> {
    d.deserialize_struct(T::NAME, T::FIELDS, ObjectVisitor(PhantomData))
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Object> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", T::NAME)
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
        T::from_map(&mut Fields(map, PhantomData))
    }
}

/// The map being read, with the steps a struct's `from_map` takes on it.
pub struct Fields<'de, M>(M, PhantomData<&'de ()>);

impl<'de, M: MapAccess<'de>> Fields<'de, M> {
    /// The next property name, if any.
    pub fn key(&mut self) -> Result<Option<Key<'de>>, M::Error> {
        self.0.next_key_seed(KeyVisitor(None))
    }

    /// The next property name, if any, refused unless it is one of `fields`
    /// (`additionalProperties: false`). It is refused as it is read, as serde's derive does, so
    /// an error path (`serde_path_to_error`) ends with the name.
    pub fn known_key(
        &mut self,
        fields: &'static [&'static str],
    ) -> Result<Option<Key<'de>>, M::Error> {
        self.0.next_key_seed(KeyVisitor(Some(fields)))
    }

    /// Decodes the value of a property into its slot, once.
    pub fn put<T: Deserialize<'de>>(
        &mut self,
        slot: &mut Option<T>,
        name: &'static str,
    ) -> Result<(), M::Error> {
        self.put_seed(slot, name, PhantomData)
    }

    /// As [`put`](Self::put), through a decoder of the wire module (where the derive would name
    /// a `deserialize_with` function).
    pub fn put_with<F: crate::wire::Decoder<'de>>(
        &mut self,
        slot: &mut Option<F::Value>,
        name: &'static str,
    ) -> Result<(), M::Error> {
        self.put_seed(slot, name, crate::wire::Seed::<F>::NEW)
    }

    fn put_seed<S: DeserializeSeed<'de>>(
        &mut self,
        slot: &mut Option<S::Value>,
        name: &'static str,
        seed: S,
    ) -> Result<(), M::Error> {
        if slot.is_some() {
            return Err(de::Error::duplicate_field(name));
        }
        *slot = Some(self.0.next_value_seed(seed)?);
        Ok(())
    }

    /// The value of a required property.
    pub fn take<T>(&self, slot: Option<T>, name: &'static str) -> Result<T, M::Error> {
        slot.ok_or_else(|| de::Error::missing_field(name))
    }

    /// Reads past the value of a property the struct does not name.
    pub fn skip(&mut self) -> Result<(), M::Error> {
        self.0.next_value::<IgnoredAny>().map(drop)
    }

    /// Keeps a property the struct does not name in its map of further properties.
    pub fn extra<V: Deserialize<'de>>(
        &mut self,
        extra: &mut std::collections::BTreeMap<String, V>,
        key: Key<'de>,
    ) -> Result<(), M::Error> {
        let value = self.0.next_value()?;
        extra.insert(key.0.into_owned(), value);
        Ok(())
    }
}

/// A property name, borrowed from the input where the format allows.
pub struct Key<'de>(Cow<'de, str>);

impl Key<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Reads a property name; with `Some(fields)`, refuses any other.
struct KeyVisitor(Option<&'static [&'static str]>);

impl KeyVisitor {
    fn key<'de, E: de::Error>(self, name: Cow<'de, str>) -> Result<Key<'de>, E> {
        match self.0 {
            Some(fields) if !fields.contains(&&*name) => Err(E::unknown_field(&name, fields)),
            _ => Ok(Key(name)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        self.key(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        self.key(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
        self.key(Cow::Owned(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Key<'de>, E> {
        match std::str::from_utf8(v) {
            Ok(s) => self.visit_str(s),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
        }
    }
}

/// Writes a struct's fields in order; the first error ends the writing and is [`end`](Self::end)'s
/// answer.
pub struct Writer<S: Serializer> {
    state: Result<S::SerializeStruct, S::Error>,
}

impl<S: Serializer> Writer<S> {
    /// Starts struct `name` of `len` fields present (see [`present`]).
    pub fn new(serializer: S, name: &'static str, len: usize) -> Self {
        Writer {
            state: serializer.serialize_struct(name, len),
        }
    }

    /// A field that is always written.
    pub fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        if let Ok(state) = &mut self.state {
            let written = state.serialize_field(name, value);
            self.keep(written);
        }
    }

    /// An optional field: written when it holds a value, skipped when `None`.
    pub fn optional<T: Serialize>(&mut self, name: &'static str, value: &Option<T>) {
        if value.is_some() {
            return self.field(name, value);
        }
        if let Ok(state) = &mut self.state {
            let skipped = state.skip_field(name);
            self.keep(skipped);
        }
    }

    fn keep(&mut self, step: Result<(), S::Error>) {
        if let Err(error) = step {
            self.state = Err(error);
        }
    }

    pub fn end(self) -> Result<S::Ok, S::Error> {
        self.state?.end()
    }
}

/// How many of a struct's optional fields hold a value.
pub fn present(fields: &[bool]) -> usize {
    fields.iter().filter(|present| **present).count()
}
