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
    serde_path_to_error::deserialize(document).map_err(|e| {
        let pointer = path_to_pointer(e.path());
        let inner = e.into_inner().to_string();
        let hint = if inner.contains("untagged enum") {
            " (the node matches none of the shapes OpenAPI allows here)"
        } else {
            ""
        };
        one_error_at(pointer, format!("{inner}{hint}"))
    })
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
        assert_eq!(d.pointer, "/paths/~1a/get/responses/200/description", "{d}");
    }
}
