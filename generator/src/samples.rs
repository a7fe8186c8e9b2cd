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
}
