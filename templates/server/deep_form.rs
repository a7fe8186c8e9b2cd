//! Form bodies whose properties are `deepObject`-encoded (`meta[key]=value`, `list[0]=a`), as
//! Stripe's are. Copied verbatim by openapi-gen, for documents that have such bodies.
//!
//! The pairs become a tree (an object whose keys are all indexes is an array, in index order),
//! then the model is read from it the way a form is: a text leaf reads as the number, boolean or
//! string the model asks for.

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

/// Decodes a form body with bracketed names into `T`.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let mut root = Map::new();
    for (name, value) in form_urlencoded::parse(bytes) {
        let mut keys = name.split('[').map(|k| k.trim_end_matches(']'));
        let first = keys.next().unwrap_or_default().to_owned();
        let rest: Vec<&str> = keys.collect();
        insert(&mut root, first, &rest, value.into_owned())?;
    }
    let tree = arrays(Value::Object(root));
    serde_path_to_error::deserialize(Lenient(tree)).map_err(|e| e.to_string())
}

fn insert(map: &mut Map<String, Value>, key: String, rest: &[&str], value: String) -> Result<(), String> {
    match rest.split_first() {
        None => {
            map.insert(key, Value::String(value));
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
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any i128 u128
    }
}
