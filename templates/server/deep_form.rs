//! Values whose properties nest (`meta[key]=value`, `list[0]=a`): form bodies whose properties are
//! `deepObject`-encoded, as Stripe's are, and object parameters with objects or arrays inside.
//! Copied verbatim by openapi-gen, for documents that have such bodies or parameters.
//!
//! The pairs become a tree (an object whose keys are all indexes is an array, in index order),
//! then the model is read from it the way a form is: a text leaf reads as the number, boolean or
//! string the model asks for, and as JSON where it asks for an object or array (the text other
//! styles, which define no nesting, give a nested value).

use crate::models::Validate;
use crate::models::style;
use crate::params::{In, invalid};
use crate::rejection::Rejection;
use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

/// Decodes a form body with bracketed names into `T`.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    decode_lists(bytes, &[])
}

/// Decodes a form body into `T`, reading the required arrays `lists` as empty when no pair names
/// them (a form cannot spell an empty list).
pub fn decode_lists<T: DeserializeOwned>(bytes: &[u8], lists: &[&str]) -> Result<T, String> {
    let pairs = form_urlencoded::parse(bytes).map(|(k, v)| (k.into_owned(), v.into_owned()));
    read(pairs, lists)
}

/// An object parameter (in any style) decoded into `T` and validated; its property names may be
/// bracketed paths (`deepObject`'s `address[city]`).
pub fn object<T: DeserializeOwned + Validate>(
    location: In,
    name: &str,
    value: Option<style::Value>,
) -> Result<Option<T>, Rejection> {
    let problem = |p: String| invalid(location, name, p);
    match value {
        None => Ok(None),
        Some(style::Value::Object(pairs)) => {
            let value: T = read(pairs, &[]).map_err(problem)?;
            value.validate().map_err(|errors| problem(errors.to_string()))?;
            Ok(Some(value))
        }
        Some(_) => Err(problem("is not an object".to_owned())),
    }
}

/// Builds the tree of `name[key]...` pairs (with an empty array for each of `lists` no pair
/// names) and reads `T` from it.
fn read<T: DeserializeOwned>(
    pairs: impl IntoIterator<Item = (String, String)>,
    lists: &[&str],
) -> Result<T, String> {
    let mut root = Map::new();
    for (name, value) in pairs {
        let mut keys = name.split('[').map(|k| k.trim_end_matches(']'));
        let first = keys.next().unwrap_or_default().to_owned();
        let rest: Vec<&str> = keys.collect();
        insert(&mut root, first, &rest, value)?;
    }
    for list in lists {
        root.entry(*list).or_insert_with(|| Value::Array(Vec::new()));
    }
    let tree = arrays(Value::Object(root));
    serde_path_to_error::deserialize(Lenient(tree)).map_err(|e| e.to_string())
}

fn insert(map: &mut Map<String, Value>, key: String, rest: &[&str], value: String) -> Result<(), String> {
    match rest.split_first() {
        // A name given again is a list (`tags=a&tags=b`, `f[tags]=a&f[tags]=b`), as qs reads it.
        None => {
            match map.get_mut(&key) {
                None => {
                    map.insert(key, Value::String(value));
                }
                Some(Value::Array(items)) => items.push(Value::String(value)),
                Some(first @ Value::String(_)) => {
                    let first = std::mem::take(first);
                    map.insert(key, Value::Array(vec![first, Value::String(value)]));
                }
                Some(_) => return Err(format!("`{key}` is given both as a value and as an object")),
            }
            Ok(())
        }
        Some((next, rest)) => {
            let child = map
                .entry(key.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(child) = child else {
                return Err(format!("`{key}` is given both as a value and as an object"));
            };
            // `list[]=a&list[]=b`: each is the next index.
            let next = if next.is_empty() { child.len().to_string() } else { (*next).to_owned() };
            insert(child, next, rest, value)
        }
    }
}

/// Objects whose keys are all indexes become arrays, in index order.
fn arrays(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let indexed: Option<Vec<(usize, Value)>> = map
                .iter()
                .map(|(k, v)| k.parse::<usize>().ok().map(|i| (i, v.clone())))
                .collect();
            match indexed {
                Some(mut items) if !items.is_empty() => {
                    items.sort_by_key(|(i, _)| *i);
                    Value::Array(items.into_iter().map(|(_, v)| arrays(v)).collect())
                }
                _ => Value::Object(map.into_iter().map(|(k, v)| (k, arrays(v))).collect()),
            }
        }
        other => other,
    }
}

/// A JSON tree read leniently: a string leaf reads as the number or boolean asked for.
struct Lenient(Value);

impl<'de> IntoDeserializer<'de, serde_json::Error> for Lenient {
    type Deserializer = Lenient;

    fn into_deserializer(self) -> Lenient {
        self
    }
}

macro_rules! parsed {
    ($($method:ident => $visit:ident: $t:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
            match &self.0 {
                Value::String(s) => match s.parse::<$t>() {
                    Ok(v) => visitor.$visit(v),
                    Err(_) => Err(de::Error::invalid_value(de::Unexpected::Str(s), &visitor)),
                },
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Lenient {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Array(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter().map(Lenient));
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Value::Object(map) => {
                let mut entries = MapDeserializer::new(map.into_iter().map(|(k, v)| (k, Lenient(v))));
                let value = visitor.visit_map(&mut entries)?;
                entries.end()?;
                Ok(value)
            }
            other => other.deserialize_any(visitor),
        }
    }

    parsed!(
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64
    );

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.composite() {
            // A name given once is a list of one (`tags=a`), as in any form.
            Lenient(Value::String(text)) => Lenient(Value::Array(vec![Value::String(text)])),
            list => list,
        }
        .deserialize_any(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        self.composite().deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.composite().deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct tuple tuple_struct
        identifier ignored_any i128 u128
    }
}

impl Lenient {
    /// Where an object or array is asked for, a text leaf is read as its JSON object or array
    /// (kept as it is otherwise, so the message names what was found).
    fn composite(self) -> Lenient {
        match self.0 {
            Value::String(text) => match serde_json::from_str(&text) {
                Ok(json @ (Value::Object(_) | Value::Array(_))) => Lenient(json),
                _ => Lenient(Value::String(text)),
            },
            other => Lenient(other),
        }
    }
}
