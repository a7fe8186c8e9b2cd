//! A valid JSON value for any type of the IR (the arguments of the client's doc examples, and
//! `cargo xtask interop`'s requests), read from its schema alone: the `default` where the
//! document gives one, an enum's first value, else the smallest value the type and its constraints
//! allow (required properties only, one item per array, bounds, lengths, formats, and a pattern
//! when one of a few common strings matches it). Deterministic: the same document gives the same
//! requests and responses on every run.

use crate::ir::{Api, Constraints, Primitive, StringFormat, TypeDef, TypeKind, TypeRef};
use serde_json::{Map, Value, json};

/// How deep named types are followed before a value is cut short (recursive schemas).
const DEPTH: usize = 8;

/// Strings tried, in order, against a `pattern`.
const PATTERN_CANDIDATES: &[&str] = &[
    "x",
    "abc",
    "ABC",
    "1",
    "123",
    "a1",
    "A1",
    "abc123",
    "2024-01-02",
    "2024-01-02T03:04:05Z",
    "12:00:00",
    "sample",
    "x-y",
    "x_y",
    "a.b",
    "user@example.com",
    "https://example.com/",
    "+15551234567",
    "0",
    "00000000-0000-4000-8000-000000000001",
    "aGVsbG8=",
    "#ffffff",
    "en-US",
    "USD",
];

/// Samples values of an API's types.
pub struct Sampler<'a> {
    /// The API's types, which named type references index.
    pub types: &'a [TypeDef],
}

impl<'a> Sampler<'a> {
    /// A sampler of `api`'s types.
    pub fn new(api: &'a Api) -> Self {
        Sampler { types: &api.types }
    }

    /// A value of `ty` under `constraints`, or `default` when the document gives one.
    pub fn value(&self, ty: &TypeRef, constraints: &Constraints, default: Option<&Value>) -> Value {
        if let Some(default) = default.filter(|d| !d.is_null()) {
            return default.clone();
        }
        self.sample(ty, constraints, 0)
    }

    fn sample(&self, ty: &TypeRef, c: &Constraints, depth: usize) -> Value {
        match ty {
            TypeRef::Named(id) => self.named(&self.types[id.0], c, depth),
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => primitive(*p, c),
            TypeRef::Array(item) => {
                let items = c.items.as_deref().cloned().unwrap_or_default();
                let count = c
                    .min_items
                    .unwrap_or(1)
                    .max(1)
                    .min(c.max_items.unwrap_or(usize::MAX));
                let first = self.sample(item, &items, depth + 1);
                let mut values = vec![first.clone(); count];
                if c.unique_items {
                    // Distinct items where the item is a number or a string.
                    for (n, v) in values.iter_mut().enumerate().skip(1) {
                        *v = match &first {
                            Value::Number(x) => json!(x.as_f64().unwrap_or(0.0) as i64 + n as i64),
                            Value::String(s) => json!(format!("{s}{n}")),
                            other => other.clone(),
                        };
                    }
                }
                Value::Array(values)
            }
            TypeRef::Map(value) => {
                let mut map = Map::new();
                if c.max_items != Some(0) && depth < DEPTH {
                    let items = c.items.as_deref().cloned().unwrap_or_default();
                    map.insert("key".into(), self.sample(value, &items, depth + 1));
                }
                Value::Object(map)
            }
            // Past the first levels a nullable value is null: it ends recursive schemas
            // (`parent: Category | null`) that require themselves.
            TypeRef::Nullable(_) if depth >= 2 => Value::Null,
            TypeRef::Nullable(inner) => self.sample(inner, c, depth),
            TypeRef::Any => json!({}),
            TypeRef::Null => Value::Null,
        }
    }

    fn named(&self, def: &TypeDef, c: &Constraints, depth: usize) -> Value {
        let own = if c.is_empty() { &def.constraints } else { c };
        match &def.kind {
            TypeKind::Struct(s) => {
                let mut object = Map::new();
                if depth > DEPTH {
                    return Value::Object(object);
                }
                for field in &s.fields {
                    if field.flatten {
                        if let Value::Object(inner) =
                            self.sample(&field.ty, &field.constraints, depth + 1)
                        {
                            object.extend(inner);
                        }
                    } else if field.required || field.constraints.present {
                        let value = match field.default.as_ref().filter(|d| !d.is_null()) {
                            Some(default) => default.clone(),
                            None => self.sample(&field.ty, &field.constraints, depth + 1),
                        };
                        object.insert(field.wire_name.clone(), value);
                    }
                }
                Value::Object(object)
            }
            TypeKind::IntEnum(e) => e.variants.first().map_or(json!(0), |v| json!(v.value)),
            TypeKind::StringEnum(e) => e
                .variants
                .first()
                .map_or(json!("x"), |v| json!(v.value.as_str())),
            TypeKind::Union(u) => {
                let Some(variant) = u.variants.first() else {
                    return json!({});
                };
                let constraints = if variant.constraints.is_empty() {
                    own
                } else {
                    &variant.constraints
                };
                let mut value = self.sample(&variant.ty, constraints, depth + 1);
                // The tag: as the branch declares its property where it does (an integer
                // `enum: [0]` under a mapping key "0"), else the union's first value for it.
                if let (Some(tag), Some(first), Value::Object(object)) =
                    (&u.discriminator, variant.tags.first(), &mut value)
                    && !object.contains_key(tag)
                {
                    let declared = crate::ir::struct_behind(self.types, &variant.ty)
                        .and_then(|s| s.fields.iter().find(|f| f.wire_name == *tag));
                    let tag_value = match declared {
                        Some(field) => self.sample(&field.ty, &field.constraints, depth + 1),
                        None => first.clone(),
                    };
                    object.insert(tag.clone(), tag_value);
                }
                value
            }
            TypeKind::Alias(inner) | TypeKind::Newtype(inner) => self.sample(inner, own, depth + 1),
        }
    }
}

/// What JSON a type's decoding may take at the top level, for the untagged unions' rule in
/// [`Sampler::fits`] (bit flags: null, bool, number, string, array, object).
const NULL: u8 = 1;
const BOOL: u8 = 2;
const NUMBER: u8 = 4;
const STRING: u8 = 8;
const ARRAY: u8 = 16;
const OBJECT: u8 = 32;

impl Sampler<'_> {
    /// Whether `value` (a document's `example`) decodes as `ty` and passes its `Validate`: the
    /// types, required properties, enum values, bounds, lengths, patterns and formats. It errs on
    /// the side of `false` (a union that could decode the value as an earlier branch of the same
    /// JSON kind, a flattened property, raw bytes), as a value it refuses is only replaced by a
    /// sample.
    pub fn fits(&self, ty: &TypeRef, c: &Constraints, value: &Value) -> bool {
        self.fits_at(ty, c, value, 0)
    }

    fn fits_at(&self, ty: &TypeRef, c: &Constraints, value: &Value, depth: usize) -> bool {
        if depth > 64 || !constraints_hold(c, value) {
            return false;
        }
        let items = c.items.as_deref().cloned().unwrap_or_default();
        match (ty, value) {
            (TypeRef::Named(id), _) => self.named_fits(&self.types[id.0], value, depth),
            (TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. }, _) => {
                primitive_fits(*p, value)
            }
            (TypeRef::Array(item), Value::Array(values)) => values
                .iter()
                .all(|v| self.fits_at(item, &items, v, depth + 1)),
            (TypeRef::Map(item), Value::Object(map)) => map
                .values()
                .all(|v| self.fits_at(item, &items, v, depth + 1)),
            (TypeRef::Nullable(_) | TypeRef::Null, Value::Null) => true,
            (TypeRef::Nullable(inner), _) => self.fits_at(inner, c, value, depth + 1),
            (TypeRef::Any, _) => true,
            _ => false,
        }
    }

    fn named_fits(&self, def: &TypeDef, value: &Value, depth: usize) -> bool {
        if !constraints_hold(&def.constraints, value) {
            return false;
        }
        match (&def.kind, value) {
            (TypeKind::Struct(s), Value::Object(object)) => {
                if s.fields.iter().any(|f| f.flatten) {
                    return false;
                }
                let fields_fit = s.fields.iter().all(|f| match object.get(&f.wire_name) {
                    None => !f.required && !f.constraints.present,
                    Some(Value::Null) => matches!(f.ty, TypeRef::Nullable(_) | TypeRef::Null),
                    Some(v) => self.fits_at(&f.ty, &f.constraints, v, depth + 1),
                });
                let declared = |key: &String| s.fields.iter().any(|f| f.wire_name == *key);
                let others_fit = match &s.additional {
                    None => true,
                    Some(crate::ir::Additional::Deny) => object.keys().all(declared),
                    Some(crate::ir::Additional::Map(ty)) => object
                        .iter()
                        .filter(|(key, _)| !declared(key))
                        .all(|(_, v)| self.fits_at(ty, &Constraints::default(), v, depth + 1)),
                };
                fields_fit && others_fit
            }
            (TypeKind::StringEnum(e), Value::String(text)) => {
                e.variants.iter().any(|v| v.value == *text)
            }
            (TypeKind::IntEnum(e), Value::Number(n)) => n
                .as_i64()
                .is_some_and(|n| e.variants.iter().any(|v| v.value == n)),
            (TypeKind::Union(u), _) => match &u.discriminator {
                Some(tag) => {
                    let Some(found) = value.get(tag) else {
                        return false;
                    };
                    u.variants
                        .iter()
                        .find(|v| v.tags.contains(found))
                        .is_some_and(|v| self.fits_at(&v.ty, &v.constraints, value, depth + 1))
                }
                // Untagged: the first branch that decodes the value is the one validated, so a
                // fitting branch counts only when no earlier one takes the same kind of JSON.
                None => {
                    let kind = kind_of(value);
                    let mut earlier = 0;
                    for v in &u.variants {
                        if self.fits_at(&v.ty, &v.constraints, value, depth + 1) {
                            return earlier & kind == 0;
                        }
                        earlier |= self.kinds(&v.ty, depth + 1);
                    }
                    false
                }
            },
            (TypeKind::Alias(inner) | TypeKind::Newtype(inner), _) => {
                self.fits_at(inner, &Constraints::default(), value, depth + 1)
            }
            _ => false,
        }
    }

    /// The kinds of JSON `ty` may decode from.
    fn kinds(&self, ty: &TypeRef, depth: usize) -> u8 {
        if depth > 64 {
            return u8::MAX;
        }
        match ty {
            TypeRef::Named(id) => match &self.types[id.0].kind {
                TypeKind::Struct(_) => OBJECT,
                TypeKind::IntEnum(_) => NUMBER,
                TypeKind::StringEnum(_) => STRING,
                TypeKind::Union(u) => u
                    .variants
                    .iter()
                    .fold(0, |k, v| k | self.kinds(&v.ty, depth + 1)),
                TypeKind::Alias(inner) | TypeKind::Newtype(inner) => self.kinds(inner, depth + 1),
            },
            TypeRef::Primitive(Primitive::Bool) => BOOL,
            TypeRef::Primitive(p) if p.is_integer() || p.is_float() => NUMBER,
            TypeRef::NumericString { .. } => NUMBER | STRING,
            TypeRef::Primitive(_) => STRING,
            TypeRef::Array(_) => ARRAY,
            TypeRef::Map(_) => OBJECT,
            TypeRef::Nullable(inner) => NULL | self.kinds(inner, depth + 1),
            TypeRef::Null => NULL,
            TypeRef::Any => u8::MAX,
        }
    }
}

fn kind_of(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOL,
        Value::Number(_) => NUMBER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// Whether `value` is a JSON value of primitive `p` (a number that fits an integer type's
/// range; text of a format that parses as it).
fn primitive_fits(p: Primitive, value: &Value) -> bool {
    let integer = |low: i128, high: i128| {
        let n = value
            .as_i64()
            .map(i128::from)
            .or_else(|| value.as_u64().map(i128::from));
        n.is_some_and(|n| (low..=high).contains(&n))
    };
    match p {
        Primitive::Bool => value.is_boolean(),
        Primitive::I8 => integer(i8::MIN.into(), i8::MAX.into()),
        Primitive::I16 => integer(i16::MIN.into(), i16::MAX.into()),
        Primitive::I32 => integer(i32::MIN.into(), i32::MAX.into()),
        Primitive::I64 => integer(i64::MIN.into(), i64::MAX.into()),
        Primitive::U8 => integer(0, u8::MAX.into()),
        Primitive::U16 => integer(0, u16::MAX.into()),
        Primitive::U32 => integer(0, u32::MAX.into()),
        Primitive::U64 => integer(0, u64::MAX.into()),
        Primitive::F32 | Primitive::F64 => value.is_number(),
        Primitive::String => value.is_string(),
        Primitive::Uuid => value.as_str().is_some_and(is_uuid),
        Primitive::DateTime => value.as_str().is_some_and(is_date_time),
        Primitive::Date => value.as_str().is_some_and(is_date),
        Primitive::Url => value
            .as_str()
            .is_some_and(|s| is_uri(s) && s.contains("://") && !s.ends_with("://")),
        Primitive::Base64 => value.as_str().is_some_and(|s| {
            s.len() % 4 == 0
                && s.trim_end_matches('=').len() + 2 >= s.len()
                && s.trim_end_matches('=')
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/')
        }),
        // Raw bytes have no JSON spelling.
        Primitive::Bytes => false,
    }
}

/// The constraints a generated `Validate` checks, on `value` (those of another kind of value
/// do not apply, as there).
fn constraints_hold(c: &Constraints, value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            let Some(x) = n.as_f64() else {
                return false;
            };
            let low = c.minimum.is_none_or(|min| {
                if c.exclusive_minimum {
                    x > min
                } else {
                    x >= min
                }
            });
            let high = c.maximum.is_none_or(|max| {
                if c.exclusive_maximum {
                    x < max
                } else {
                    x <= max
                }
            });
            low && high
        }
        Value::String(text) => {
            let len = text.chars().count();
            let format = match c.format {
                None => true,
                Some(StringFormat::Email) => is_email(text),
                Some(StringFormat::Uri) => is_uri(text),
                Some(StringFormat::Uuid) => is_uuid(text),
                Some(StringFormat::DateTime) => is_date_time(text),
                Some(StringFormat::Date) => is_date(text),
            };
            format
                && len >= c.min_length.unwrap_or(0)
                && len <= c.max_length.unwrap_or(usize::MAX)
                && c.pattern.as_deref().is_none_or(|p| matches(p, text))
        }
        Value::Array(values) => {
            let distinct = !c.unique_items
                || values
                    .iter()
                    .enumerate()
                    .all(|(i, v)| !values[..i].contains(v));
            distinct
                && values.len() >= c.min_items.unwrap_or(0)
                && values.len() <= c.max_items.unwrap_or(usize::MAX)
        }
        Value::Object(map) => {
            map.len() >= c.min_items.unwrap_or(0)
                && map.len() <= c.max_items.unwrap_or(usize::MAX)
                && c.key_pattern
                    .as_deref()
                    .is_none_or(|p| map.keys().all(|k| matches(p, k)))
        }
        Value::Null | Value::Bool(_) => true,
    }
}

/// Whether `pattern` finds a match in `text`, with the engine the generated code would use
/// (`regex`, else `fancy-regex` for look-around); a pattern neither compiles matches nothing.
fn matches(pattern: &str, text: &str) -> bool {
    match regex::Regex::new(pattern) {
        Ok(re) => re.is_match(text),
        Err(_) => fancy_regex::Regex::new(pattern)
            .ok()
            .and_then(|re| re.is_match(text).ok())
            .unwrap_or(false),
    }
}

/// The generated `validation::email`'s rule.
fn is_email(text: &str) -> bool {
    text.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && !domain.is_empty()
            && !domain.contains('@')
            && !text.contains(char::is_whitespace)
    })
}

/// The generated `validation::uri`'s rule.
fn is_uri(text: &str) -> bool {
    text.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    }) && !text.contains(char::is_whitespace)
}

/// A hyphenated UUID (`uuid::Uuid` reads more spellings; this one is enough for an example).
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, len)| g.len() == len && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A calendar date, `YYYY-MM-DD`, that exists.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return false;
    };
    let digits = |s: &str, len: usize| s.len() == len && s.chars().all(|c| c.is_ascii_digit());
    if !(digits(year, 4) && digits(month, 2) && digits(day, 2)) {
        return false;
    }
    let (year, month, day): (u32, u32, u32) = (
        year.parse().unwrap_or(0),
        month.parse().unwrap_or(0),
        day.parse().unwrap_or(0),
    );
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// An RFC 3339 timestamp with its offset (`2024-05-31T10:00:00Z`, `...10:00:00.5+02:00`).
fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => time.split_at(at),
        None => return false,
    };
    let two = |s: &str, max: u32| {
        s.len() == 2
            && s.chars().all(|c| c.is_ascii_digit())
            && s.parse::<u32>().is_ok_and(|n| n <= max)
    };
    let (whole, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let hms: Vec<&str> = whole.split(':').collect();
    let clock_ok = matches!(hms.as_slice(), [h, m, s] if two(h, 23) && two(m, 59) && two(s, 59))
        && !fraction.is_empty()
        && fraction.chars().all(|c| c.is_ascii_digit());
    let offset_ok = match offset {
        "Z" | "z" => true,
        _ => offset[1..]
            .split_once(':')
            .is_some_and(|(h, m)| two(h, 23) && two(m, 59)),
    };
    is_date(date) && clock_ok && offset_ok
}

fn primitive(p: Primitive, c: &Constraints) -> Value {
    match p {
        Primitive::String => json!(string(c)),
        Primitive::Bool => json!(true),
        Primitive::F32 | Primitive::F64 => json!(number(c, 1.5)),
        p if p.is_integer() => {
            let unsigned = matches!(
                p,
                Primitive::U8 | Primitive::U16 | Primitive::U32 | Primitive::U64
            );
            let n = number(c, 1.0).ceil();
            json!(if unsigned { n.max(0.0) } else { n } as i64)
        }
        Primitive::Uuid => json!("00000000-0000-4000-8000-000000000001"),
        Primitive::DateTime => json!("2024-01-02T03:04:05Z"),
        Primitive::Date => json!("2024-01-02"),
        Primitive::Bytes => json!("hello"),
        Primitive::Base64 => json!("aGVsbG8="),
        Primitive::Url => json!("https://example.com/"),
        _ => json!("x"),
    }
}

/// `preferred`, moved within `minimum`/`maximum` (one step inside an exclusive bound).
fn number(c: &Constraints, preferred: f64) -> f64 {
    let mut n = preferred;
    if let Some(min) = c.minimum {
        let low = if c.exclusive_minimum { min + 1.0 } else { min };
        if n < low {
            n = low;
        }
    }
    if let Some(max) = c.maximum {
        let high = if c.exclusive_maximum { max - 1.0 } else { max };
        if n > high {
            n = high;
        }
    }
    n
}

fn string(c: &Constraints) -> String {
    let fits = |s: &str| {
        let len = s.chars().count();
        len >= c.min_length.unwrap_or(0) && len <= c.max_length.unwrap_or(usize::MAX)
    };
    match c.format {
        Some(StringFormat::Email) => return "user@example.com".into(),
        Some(StringFormat::Uri) => return "https://example.com/".into(),
        Some(StringFormat::Uuid) => return "3fa85f64-5717-4562-b3fc-2c963f66afa6".into(),
        Some(StringFormat::DateTime) => return "2024-05-31T10:00:00Z".into(),
        Some(StringFormat::Date) => return "2024-05-31".into(),
        None => {}
    }
    if let Some(pattern) = &c.pattern
        && let Ok(re) = regex::Regex::new(pattern)
        && let Some(found) = PATTERN_CANDIDATES
            .iter()
            .find(|s| fits(s) && re.is_match(s))
    {
        return (*found).to_owned();
    }
    let min = c.min_length.unwrap_or(0);
    let max = c.max_length.unwrap_or(usize::MAX);
    let mut text = "sample".to_owned();
    while text.chars().count() < min {
        text.push('x');
    }
    text.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(document: &str) -> Api {
        crate::load_api(document).expect("the document loads").0
    }

    #[test]
    fn samples_honour_required_properties_bounds_formats_and_patterns() {
        let api = api(r##"
openapi: 3.1.0
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [id, name, born, tags, code, kind]
      properties:
        id: {type: integer, minimum: 10}
        name: {type: string, minLength: 8, maxLength: 9}
        born: {type: string, format: date-time}
        tags: {type: array, minItems: 2, items: {type: string}}
        code: {type: string, pattern: "^[A-Z][0-9]$"}
        kind: {type: string, enum: [dog, cat]}
        note: {type: string}
"##);
        let sampler = Sampler::new(&api);
        let pet = TypeRef::Named(crate::ir::TypeId(
            api.types.iter().position(|t| t.name == "Pet").unwrap(),
        ));
        let value = sampler.value(&pet, &Constraints::default(), None);
        assert_eq!(
            value,
            json!({"id": 10, "name": "samplexx", "born": "2024-01-02T03:04:05Z",
                   "tags": ["sample", "sample"], "code": "A1", "kind": "dog"})
        );
    }

    #[test]
    fn a_nullable_self_reference_ends_in_null() {
        let api = api(r##"
openapi: 3.1.0
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    Node:
      type: object
      required: [next]
      properties:
        next: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Node"}]}
"##);
        let sampler = Sampler::new(&api);
        let node = TypeRef::Named(crate::ir::TypeId(0));
        let value = sampler.value(&node, &Constraints::default(), None);
        assert_eq!(value, json!({"next": {"next": null}}));
    }
    #[test]
    fn fits_accepts_what_decodes_and_validates_only() {
        let api = api(r##"
openapi: 3.1.0
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      additionalProperties: false
      properties:
        id: {type: integer, format: int32, minimum: 1}
        name: {type: string, pattern: "^[a-z]+$"}
        born: {type: string, format: date}
        kind: {type: string, enum: [dog, cat]}
        nick: {type: [string, "null"]}
    IdOrName:
      oneOf:
        - {type: integer}
        - {type: string, minLength: 3}
        - {type: string}
"##);
        let sampler = Sampler::new(&api);
        let named = |name: &str| {
            TypeRef::Named(crate::ir::TypeId(
                api.types.iter().position(|t| t.name == name).unwrap(),
            ))
        };
        let (pet, none) = (named("Pet"), Constraints::default());
        let fits = |ty: &TypeRef, v: Value| sampler.fits(ty, &none, &v);
        assert!(fits(
            &pet,
            json!({"id": 3, "name": "rex", "born": "2024-02-29", "kind": "cat", "nick": null})
        ));
        assert!(!fits(&pet, json!({"id": "3", "name": "rex"})), "wrong type");
        assert!(
            !fits(&pet, json!({"id": 0, "name": "rex"})),
            "below minimum"
        );
        assert!(
            !fits(&pet, json!({"id": 3_000_000_000_i64, "name": "rex"})),
            "beyond int32"
        );
        assert!(!fits(&pet, json!({"id": 3, "name": "Rex"})), "pattern");
        assert!(!fits(&pet, json!({"id": 3})), "a required property missing");
        assert!(
            !fits(&pet, json!({"id": 3, "name": "rex", "born": "2023-02-29"})),
            "no such date"
        );
        assert!(
            !fits(&pet, json!({"id": 3, "name": "rex", "kind": "parrot"})),
            "unlisted value"
        );
        assert!(
            !fits(&pet, json!({"id": 3, "name": "rex", "age": 2})),
            "additionalProperties: false"
        );
        assert!(!fits(&pet, json!([1])));
        // Untagged: "ab" decodes as the second branch and fails its minLength, though the third
        // would take it; a number is the first branch's.
        let union = named("IdOrName");
        assert!(fits(&union, json!(7)));
        assert!(fits(&union, json!("abc")));
        assert!(!fits(&union, json!("ab")));
        assert!(is_date_time("2024-05-31T10:00:00.5+02:00") && !is_date_time("2024-05-31 10:00"));
    }
}
