//! Reading a document: YAML or JSON text into one JSON tree, then (after lowering) into `openapiv3`.

use crate::diagnostics::{Diagnostic, Diagnostics};
use serde_json::{Map, Value};

/// Parses YAML or JSON text. YAML keys that are not strings (`200:`) become strings, as OpenAPI means
/// them; integers beyond 64 bits become floats; `<<` merge keys are applied. A UTF-8 byte-order
/// mark (which editors on Windows write) is skipped.
pub fn parse_text(text: &str) -> Result<Value, Diagnostics> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        // JSON, or YAML written in flow style (`{type: string}`), which YAML reads as well.
        return serde_json::from_str(text).or_else(|e| {
            parse_yaml(text).map_err(|_| {
                one_error(format!(
                    "invalid JSON at line {} column {}: {e}",
                    e.line(),
                    e.column()
                ))
            })
        });
    }
    parse_yaml(text)
}

fn parse_yaml(text: &str) -> Result<Value, Diagnostics> {
    let tree: Loose = serde_yaml::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(" at line {} column {}", l.line(), l.column()));
        one_error(format!("invalid YAML{}: {e}", at.unwrap_or_default()))
    })?;
    let mut value = tree.0;
    apply_merge_keys(&mut value);
    Ok(value)
}

fn one_error(message: String) -> Diagnostics {
    Diagnostics(vec![Diagnostic::error("", message)])
}

/// A JSON value read from YAML leniently (see [`parse_text`]).
struct Loose(Value);

impl<'de> serde::Deserialize<'de> for Loose {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor).map(Loose)
    }
}

struct LooseVisitor;

impl<'de> serde::de::Visitor<'de> for LooseVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v)
            .map(Value::from)
            .unwrap_or_else(|_| float(v as f64)))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v)
            .map(Value::from)
            .unwrap_or_else(|_| float(v as f64)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Loose(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Loose(key)) = map.next_key()? {
            let key = match key {
                Value::String(s) => s,
                Value::Null => "null".to_owned(),
                other => other.to_string(),
            };
            let Loose(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        // A YAML tag (`!foo value`): keep the value, drop the tag.
        use serde::de::VariantAccess;
        let (_tag, variant): (Loose, _) = data.variant()?;
        variant.newtype_variant::<Loose>().map(|l| l.0)
    }
}

/// A float as JSON has it (non-finite values, which JSON cannot spell, become null).
fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// YAML's `<<: *anchor` (or a list of anchors): keys of the merged maps that the map lacks are added.
fn apply_merge_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(merged) = map.remove("<<") {
                let sources = match merged {
                    Value::Array(items) => items,
                    other => vec![other],
                };
                for source in sources {
                    if let Value::Object(source) = source {
                        for (k, v) in source {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
            map.values_mut().for_each(apply_merge_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(apply_merge_keys),
        _ => {}
    }
}

/// Deserializes the lowered tree into `openapiv3`, turning a serde failure into a pointer diagnostic.
pub fn to_openapi(document: Value) -> Result<openapiv3::OpenAPI, Diagnostics> {
    // Tracking the path costs an allocation per map key: only a failing document is read again
    // with it, to say where it fails.
    if let Ok(openapi) = <openapiv3::OpenAPI as serde::Deserialize>::deserialize(&document) {
        return Ok(openapi);
    }
    match serde_path_to_error::deserialize::<_, openapiv3::OpenAPI>(&document) {
        Ok(openapi) => Ok(openapi),
        Err(e) => {
            let (pointer, message) = locate(&document)
                .unwrap_or_else(|| (path_to_pointer(e.path()), describe(e.inner())));
            Err(one_error_at(pointer, message))
        }
    }
}

fn describe(e: &serde_json::Error) -> String {
    let inner = e.to_string();
    if inner.contains("untagged enum") {
        format!("{inner} (the node matches none of the shapes OpenAPI allows here)")
    } else {
        inner
    }
}

/// openapiv3 flattens extension maps, which hides the failing path from serde; so the parts of the
/// document are deserialized one by one, deepest first, to find the node that is wrong.
fn locate(document: &Value) -> Option<(String, String)> {
    use openapiv3::{
        Header, Parameter, ReferenceOr, RequestBody, Response, Schema, SecurityScheme,
    };
    if let Some(paths) = document.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let item_pointer = crate::diagnostics::child("/paths", path);
            let Some(item) = item.as_object() else {
                return Some((item_pointer, "a path item must be an object".to_owned()));
            };
            for (key, op) in item {
                let op_pointer = crate::diagnostics::child(&item_pointer, key);
                if key == "parameters" {
                    if let Some(found) = locate_list::<ReferenceOr<Parameter>>(op, &op_pointer) {
                        return Some(found);
                    }
                    continue;
                }
                let Some(op_map) = op.as_object() else {
                    continue;
                };
                if let Some(found) = op_map.get("parameters").and_then(|p| {
                    locate_list::<ReferenceOr<Parameter>>(p, &format!("{op_pointer}/parameters"))
                }) {
                    return Some(found);
                }
                if let Some(body) = op_map.get("requestBody")
                    && let Some(found) = try_at::<ReferenceOr<RequestBody>>(
                        body,
                        &format!("{op_pointer}/requestBody"),
                    )
                {
                    return Some(found);
                }
                if let Some(responses) = op_map.get("responses").and_then(Value::as_object) {
                    for (status, response) in responses {
                        let p =
                            crate::diagnostics::child(&format!("{op_pointer}/responses"), status);
                        if let Some(found) = try_at::<ReferenceOr<Response>>(response, &p) {
                            return Some(found);
                        }
                    }
                }
                if let Some(found) = try_at::<openapiv3::Operation>(op, &op_pointer) {
                    return Some(found);
                }
            }
            if let Some(found) =
                try_at::<openapiv3::PathItem>(&Value::Object(item.clone()), &item_pointer)
            {
                return Some(found);
            }
        }
    }
    let components = document.get("components")?;
    macro_rules! each {
        ($key:literal, $ty:ty) => {
            if let Some(map) = components.get($key).and_then(Value::as_object) {
                for (name, value) in map {
                    let p = crate::diagnostics::child(concat!("/components/", $key), name);
                    if let Some(found) = try_at::<$ty>(value, &p) {
                        return Some(found);
                    }
                }
            }
        };
    }
    each!("schemas", ReferenceOr<Schema>);
    each!("parameters", ReferenceOr<Parameter>);
    each!("headers", ReferenceOr<Header>);
    each!("requestBodies", ReferenceOr<RequestBody>);
    each!("responses", ReferenceOr<Response>);
    each!("securitySchemes", ReferenceOr<SecurityScheme>);
    None
}

fn locate_list<T: serde::de::DeserializeOwned>(
    list: &Value,
    pointer: &str,
) -> Option<(String, String)> {
    list.as_array()?
        .iter()
        .enumerate()
        .find_map(|(i, v)| try_at::<T>(v, &format!("{pointer}/{i}")))
}

fn try_at<T: serde::de::DeserializeOwned>(
    value: &Value,
    pointer: &str,
) -> Option<(String, String)> {
    let e = serde_path_to_error::deserialize::<_, T>(value).err()?;
    Some((
        format!("{pointer}{}", path_to_pointer(e.path())),
        describe(e.inner()),
    ))
}

fn one_error_at(pointer: String, message: String) -> Diagnostics {
    Diagnostics(vec![Diagnostic::error(pointer, message)])
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            Segment::Map { key } => pointer = crate::diagnostics::child(&pointer, key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_integer_keys_become_strings() {
        let v = parse_text("responses:\n  200:\n    description: ok\n").unwrap();
        assert_eq!(v["responses"]["200"]["description"], "ok");
    }

    #[test]
    fn yaml_big_integers_become_floats_and_merge_keys_apply() {
        let v = parse_text(
            "min: -9223372036854776000\nbase: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  y: 3\n",
        )
        .unwrap();
        assert!(v["min"].is_f64());
        assert_eq!(v["derived"], serde_json::json!({"x": 1, "y": 3}));
    }

    #[test]
    fn json_is_detected() {
        let v = parse_text(" {\"a\": 1}").unwrap();
        assert_eq!(v["a"], 1);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let v = parse_text("\u{feff}{\"a\": 1}").unwrap();
        assert_eq!(v["a"], 1);
        let v = parse_text("\u{feff}openapi: 3.0.3\na: 1\n").unwrap();
        assert_eq!(v["openapi"], "3.0.3");
        assert_eq!(v["a"], 1);
    }

    #[test]
    fn invalid_yaml_reports_position() {
        let err = parse_text("a: [1, 2\nb: c").unwrap_err();
        assert!(err.to_string().contains("invalid YAML at line"), "{err}");
    }

    #[test]
    fn openapi_shape_errors_carry_a_pointer() {
        let doc = serde_json::json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"get": {"responses": {"200": {"description": 5}}}}}
        });
        let err = to_openapi(doc).unwrap_err();
        let d = &err.0[0];
        assert_eq!(d.pointer, "/paths/~1a/get/responses/200", "{d}");
        assert!(d.message.contains("integer `5`"), "{d}");
    }

    #[test]
    fn component_errors_carry_a_pointer() {
        let doc = serde_json::json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {},
            "components": {"schemas": {"A": {"type": "object", "properties": {"x": {"type": "string", "minLength": "1"}}}}}
        });
        let err = to_openapi(doc).unwrap_err();
        assert!(
            err.0[0].pointer.starts_with("/components/schemas/A"),
            "{}",
            err.0[0]
        );
    }
}
