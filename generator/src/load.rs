//! Reading a document: YAML or JSON text into one JSON tree, then (after lowering) into `openapiv3`.

use crate::diagnostics::{Diagnostic, Diagnostics};
use serde_json::{Map, Value};

/// Parses YAML or JSON text. YAML keys that are not strings (`200:`) become strings, as OpenAPI means them.
pub fn parse_text(text: &str) -> Result<Value, Diagnostics> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        return serde_json::from_str(text).map_err(|e| {
            one_error(format!("invalid JSON at line {} column {}: {e}", e.line(), e.column()))
        });
    }
    let mut yaml: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
        let at = e.location().map(|l| format!(" at line {} column {}", l.line(), l.column()));
        one_error(format!("invalid YAML{}: {e}", at.unwrap_or_default()))
    })?;
    yaml.apply_merge().map_err(|e| one_error(format!("invalid YAML merge key: {e}")))?;
    yaml_to_json(yaml, "")
}

fn one_error(message: String) -> Diagnostics {
    Diagnostics(vec![Diagnostic::error("", message)])
}

fn yaml_to_json(value: serde_yaml::Value, pointer: &str) -> Result<Value, Diagnostics> {
    use serde_yaml::Value as Y;
    Ok(match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(f).map(Value::Number).ok_or_else(|| {
                    Diagnostics(vec![Diagnostic::error(pointer, format!("number {n} has no JSON form"))])
                })?
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| yaml_to_json(v, &format!("{pointer}/{i}")))
                .collect::<Result<_, _>>()?,
        ),
        Y::Mapping(mapping) => {
            let mut map = Map::new();
            for (k, v) in mapping {
                let key = match k {
                    Y::String(s) => s,
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    Y::Null => "null".to_owned(),
                    other => {
                        return Err(Diagnostics(vec![Diagnostic::error(
                            pointer,
                            format!("mapping key {other:?} is not a scalar"),
                        )]));
                    }
                };
                let child = crate::diagnostics::child(pointer, &key);
                map.insert(key, yaml_to_json(v, &child)?);
            }
            Value::Object(map)
        }
        Y::Tagged(tagged) => yaml_to_json(tagged.value, pointer)?,
    })
}

/// Deserializes the lowered tree into `openapiv3`, turning a serde failure into a pointer diagnostic.
pub fn to_openapi(document: Value) -> Result<openapiv3::OpenAPI, Diagnostics> {
    match serde_path_to_error::deserialize::<_, openapiv3::OpenAPI>(&document) {
        Ok(openapi) => Ok(openapi),
        Err(e) => {
            let (pointer, message) = locate(&document).unwrap_or_else(|| (path_to_pointer(e.path()), describe(e.inner())));
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
    use openapiv3::{Header, Parameter, ReferenceOr, RequestBody, Response, Schema, SecurityScheme};
    if let Some(paths) = document.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let item_pointer = crate::diagnostics::child("/paths", path);
            let Some(item) = item.as_object() else { continue };
            for (key, op) in item {
                let op_pointer = crate::diagnostics::child(&item_pointer, key);
                if key == "parameters" {
                    if let Some(found) = locate_list::<ReferenceOr<Parameter>>(op, &op_pointer) {
                        return Some(found);
                    }
                    continue;
                }
                let Some(op_map) = op.as_object() else { continue };
                if let Some(found) = op_map.get("parameters").and_then(|p| locate_list::<ReferenceOr<Parameter>>(p, &format!("{op_pointer}/parameters"))) {
                    return Some(found);
                }
                if let Some(body) = op_map.get("requestBody")
                    && let Some(found) = try_at::<ReferenceOr<RequestBody>>(body, &format!("{op_pointer}/requestBody"))
                {
                    return Some(found);
                }
                if let Some(responses) = op_map.get("responses").and_then(Value::as_object) {
                    for (status, response) in responses {
                        let p = crate::diagnostics::child(&format!("{op_pointer}/responses"), status);
                        if let Some(found) = try_at::<ReferenceOr<Response>>(response, &p) {
                            return Some(found);
                        }
                    }
                }
                if let Some(found) = try_at::<openapiv3::Operation>(op, &op_pointer) {
                    return Some(found);
                }
            }
            if let Some(found) = try_at::<openapiv3::PathItem>(&Value::Object(item.clone()), &item_pointer) {
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

fn locate_list<T: serde::de::DeserializeOwned>(list: &Value, pointer: &str) -> Option<(String, String)> {
    list.as_array()?.iter().enumerate().find_map(|(i, v)| try_at::<T>(v, &format!("{pointer}/{i}")))
}

fn try_at<T: serde::de::DeserializeOwned>(value: &Value, pointer: &str) -> Option<(String, String)> {
    let e = serde_path_to_error::deserialize::<_, T>(value).err()?;
    Some((format!("{pointer}{}", path_to_pointer(e.path())), describe(e.inner())))
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
    fn json_is_detected() {
        let v = parse_text(" {\"a\": 1}").unwrap();
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
        assert!(err.0[0].pointer.starts_with("/components/schemas/A"), "{}", err.0[0]);
    }
}
