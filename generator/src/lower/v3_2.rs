//! OpenAPI 3.2 documents, read as 3.1 ones where 3.2 only adds:
//!
//! - the `query` method and `additionalOperations` (custom methods) move to the path item's
//!   [`OTHER_METHODS`], where the 3.1 lowering and `build` read them; a custom method that is not
//!   an HTTP token, or that names a fixed field, is left out with a warning;
//! - `in: querystring` in a form (`application/x-www-form-urlencoded`) becomes the exploded `form`
//!   object in the query it is (each property a pair); in another media type it is left out with a
//!   warning;
//! - an OAuth 2.0 `deviceAuthorization` flow moves to the scheme's [`DEVICE_AUTHORIZATION`], and
//!   a discriminator's `defaultMapping` to its [`DEFAULT_MAPPING`], and a tag's `summary`,
//!   `parent` and `kind` to its [`TAG`], where `build` reads them.
//!
//! - `itemSchema` (a stream of items) under a streaming media type becomes its `schema`, which is
//!   what 3.0 and 3.1 documents (OpenAI's) write there: one item (see `event_data` for SSE).
//!
//! What 3.2 can say that the generator does not represent yet is taken out with a warning naming
//! it, never dropped in silence (and never left for `openapiv3` to refuse): `itemSchema` of a
//! media type that is not a streaming one (the media type keeps its `schema`, if any).
//!
//! `style: cookie` is what the generated code already writes for cookies (`form`, with `; `
//! between pairs), so it becomes `form`. `$self` is used by the bundler (see `bundle`).

use super::markers::{METHODS, OTHER_METHODS, other_method_pointer};
use crate::diagnostics::{Diagnostics, child};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// On a tag: its `summary`, `parent` and `kind` (OpenAPI 3.2), which `openapiv3` does not read.
pub const TAG: &str = "x-openapi-gen-tag";
/// On a discriminator: its `defaultMapping`, which `openapiv3` does not read.
pub const DEFAULT_MAPPING: &str = "x-openapi-gen-default-mapping";
/// On an OAuth 2.0 security scheme: its `flows.deviceAuthorization` (RFC 8628), which `openapiv3`
/// does not read.
pub const DEVICE_AUTHORIZATION: &str = "x-openapi-gen-device-authorization";

/// Takes out, with a warning each, what the generator does not represent of 3.2.
pub fn lower(root: &mut Map<String, Value>, diags: &mut Diagnostics) {
    let mut querystrings = HashSet::new();
    if let Some(components) = root.get_mut("components").and_then(Value::as_object_mut) {
        if let Some(parameters) = components
            .get_mut("parameters")
            .and_then(Value::as_object_mut)
        {
            parameters.retain(|name, parameter| {
                let pointer = child("/components/parameters", name);
                lower_parameter(parameter);
                let keep = lower_querystring(parameter, &pointer, diags);
                if !keep {
                    querystrings.insert(format!("#{pointer}"));
                }
                keep
            });
        }
        if let Some(schemes) = components
            .get_mut("securitySchemes")
            .and_then(Value::as_object_mut)
        {
            for (name, scheme) in schemes.iter_mut() {
                let flow = scheme
                    .get_mut("flows")
                    .and_then(Value::as_object_mut)
                    .and_then(|f| f.remove("deviceAuthorization"));
                let Some(flow) = flow else {
                    continue;
                };
                let complete = ["deviceAuthorizationUrl", "tokenUrl"]
                    .iter()
                    .all(|key| flow.get(key).is_some_and(Value::is_string));
                if complete && let Some(scheme) = scheme.as_object_mut() {
                    scheme.insert(DEVICE_AUTHORIZATION.to_owned(), flow);
                } else {
                    diags.warning(
                        child(&child(&child("/components/securitySchemes", name), "flows"), "deviceAuthorization"),
                        "a device authorization flow needs `deviceAuthorizationUrl` and `tokenUrl`; it is not generated",
                    );
                }
            }
        }
    }
    let querystrings = &querystrings;
    for key in ["paths", "webhooks"] {
        let Some(items) = root.get_mut(key).and_then(Value::as_object_mut) else {
            continue;
        };
        for (path, item) in items.iter_mut() {
            lower_path_item(item, &child(&format!("/{key}"), path), querystrings, diags);
        }
    }
    lower_tags(root, diags);
    visit(root, "", diags);
}

fn lower_path_item(
    item: &mut Value,
    pointer: &str,
    querystrings: &HashSet<String>,
    diags: &mut Diagnostics,
) {
    let Some(item) = item.as_object_mut() else {
        return;
    };
    // `query` and `additionalOperations` go where the 3.1 lowering and `build` read them.
    let mut others = Map::new();
    if let Some(op) = item.remove("query") {
        others.insert("QUERY".to_owned(), op);
    }
    if let Some(Value::Object(ops)) = item.remove("additionalOperations") {
        for (method, op) in ops {
            let here = child(&child(pointer, "additionalOperations"), &method);
            let fixed = METHODS.contains(&method.to_ascii_lowercase().as_str())
                || method.eq_ignore_ascii_case("query");
            if fixed {
                diags.warning(
                    here,
                    format!("`{method}` is a fixed field of the path item, not an additional operation (OpenAPI 3.2): write it there; it is left out"),
                );
            } else if method.is_empty() || !method.bytes().all(is_token_char) {
                diags.warning(
                    here,
                    format!("`{method}` is not an HTTP method name (RFC 9110 token): the operation is left out"),
                );
            } else {
                others.insert(method, op);
            }
        }
    }
    lower_parameters(item, pointer, querystrings, diags);
    for (method, op) in item.iter_mut() {
        if let Some(op) = op
            .as_object_mut()
            .filter(|_| METHODS.contains(&method.as_str()))
        {
            lower_parameters(op, &child(pointer, method), querystrings, diags);
        }
    }
    for (method, op) in others.iter_mut() {
        if let Some(op) = op.as_object_mut() {
            lower_parameters(
                op,
                &other_method_pointer(pointer, method),
                querystrings,
                diags,
            );
        }
    }
    if !others.is_empty() {
        item.insert(OTHER_METHODS.to_owned(), Value::Object(others));
    }
}

/// RFC 9110's `tchar`: what a method name is made of.
fn is_token_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

fn lower_parameters(
    holder: &mut Map<String, Value>,
    pointer: &str,
    querystrings: &HashSet<String>,
    diags: &mut Diagnostics,
) {
    let Some(parameters) = holder.get_mut("parameters").and_then(Value::as_array_mut) else {
        return;
    };
    let mut index = 0;
    parameters.retain_mut(|parameter| {
        let here = format!("{pointer}/parameters/{index}");
        index += 1;
        lower_parameter(parameter);
        let dropped = parameter
            .get("$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| querystrings.contains(r));
        !dropped && lower_querystring(parameter, &here, diags)
    });
}

/// `style: cookie` is the `form` cookie the generated code writes.
fn lower_parameter(parameter: &mut Value) {
    let is_cookie_style = parameter.get("style").and_then(Value::as_str) == Some("cookie");
    if let Some(p) = parameter.as_object_mut().filter(|_| is_cookie_style) {
        p.insert("style".to_owned(), Value::from("form"));
    }
}

/// `in: querystring` (the whole query string as one value) in a form (`application/x-www-form-urlencoded`)
/// is what an exploded `form` object in the query is: each property a `name=value` pair. Other
/// media types are left out with a warning. False when the parameter is left out.
fn lower_querystring(parameter: &mut Value, pointer: &str, diags: &mut Diagnostics) -> bool {
    let Some(p) = parameter
        .as_object_mut()
        .filter(|p| p.get("in").and_then(Value::as_str) == Some("querystring"))
    else {
        return true;
    };
    let content = p.remove("content");
    let form = content
        .as_ref()
        .and_then(Value::as_object)
        .and_then(|c| c.get("application/x-www-form-urlencoded"))
        .and_then(|media| media.get("schema"));
    let Some(schema) = form.cloned() else {
        let media: Vec<&str> = content
            .as_ref()
            .and_then(Value::as_object)
            .map(|c| c.keys().map(String::as_str).collect())
            .unwrap_or_default();
        diags.warning(
            pointer,
            format!(
                "`in: querystring` (OpenAPI 3.2: the whole query string as one value) is generated for `application/x-www-form-urlencoded` content, not {}: it is neither read nor sent",
                if media.is_empty() { "for none".to_owned() } else { format!("`{}`", media.join("`, `")) }
            ),
        );
        return false;
    };
    p.insert("in".to_owned(), Value::from("query"));
    p.insert("style".to_owned(), Value::from("form"));
    p.insert("explode".to_owned(), Value::from(true));
    p.insert("schema".to_owned(), schema);
    true
}

/// A tag's `summary`, `parent` and `kind`, which `openapiv3` does not read, move to [`TAG`]; a
/// `parent` that names no tag, or a cycle of parents, is dropped with a warning.
fn lower_tags(root: &mut Map<String, Value>, diags: &mut Diagnostics) {
    let Some(tags) = root.get_mut("tags").and_then(Value::as_array_mut) else {
        return;
    };
    let names: HashSet<String> = tags
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let parents: std::collections::HashMap<String, String> = tags
        .iter()
        .filter_map(|t| {
            let name = t.get("name")?.as_str()?;
            let parent = t.get("parent")?.as_str()?;
            Some((name.to_owned(), parent.to_owned()))
        })
        .collect();
    for (i, tag) in tags.iter_mut().enumerate() {
        let Some(tag) = tag.as_object_mut() else {
            continue;
        };
        let mut added = Map::new();
        for key in ["summary", "parent", "kind"] {
            if let Some(value) = tag.remove(key) {
                added.insert(key.to_owned(), value);
            }
        }
        if let Some(parent) = added
            .get("parent")
            .and_then(Value::as_str)
            .map(str::to_owned)
        {
            let name = tag.get("name").and_then(Value::as_str).unwrap_or_default();
            // Follow the parents up; meeting this tag again is a cycle.
            let mut seen = HashSet::from([name.to_owned()]);
            let mut at = Some(parent.clone());
            let mut cycle = false;
            while let Some(p) = at {
                if !seen.insert(p.clone()) {
                    cycle = true;
                    break;
                }
                at = parents.get(&p).cloned();
            }
            let problem = if !names.contains(&parent) {
                Some(format!(
                    "`parent` names `{parent}`, which is no tag of the document"
                ))
            } else if cycle {
                Some(format!("`parent` `{parent}` makes a cycle of tags"))
            } else {
                None
            };
            if let Some(problem) = problem {
                diags.warning(
                    format!("/tags/{i}/parent"),
                    format!("{problem}; the tag is not nested"),
                );
                added.remove("parent");
            }
        }
        if !added.is_empty() {
            tag.insert(TAG.to_owned(), Value::Object(added));
        }
    }
}

/// `itemSchema` of media types and `defaultMapping` of discriminators, wherever they are.
fn visit(map: &mut Map<String, Value>, pointer: &str, diags: &mut Diagnostics) {
    if let Some(item) = map.remove("itemSchema") {
        match streamed_media(pointer) {
            Some(media) => {
                let item = if media == "text/event-stream" {
                    event_data(item, &child(pointer, "itemSchema"), diags)
                } else {
                    item
                };
                map.insert("schema".to_owned(), item);
            }
            None => diags.warning(
                child(pointer, "itemSchema"),
                "`itemSchema` (OpenAPI 3.2: a stream of items) is generated for streaming media types only (`text/event-stream`, JSON Lines, NDJSON, `application/json-seq`); the media type's `schema`, if any, is",
            ),
        }
    }
    if let Some(discriminator) = map.get_mut("discriminator").and_then(Value::as_object_mut)
        && let Some(default) = discriminator.remove("defaultMapping")
    {
        discriminator.insert(DEFAULT_MAPPING.to_owned(), default);
    }
    for (key, value) in map.iter_mut() {
        if key.starts_with("x-")
            || matches!(
                key.as_str(),
                "example" | "examples" | "default" | "enum" | "const"
            )
        {
            continue;
        }
        let here = child(pointer, key);
        match value {
            Value::Object(inner) => visit(inner, &here, diags),
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let Value::Object(inner) = item {
                        visit(inner, &format!("{here}/{i}"), diags);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The media type `pointer` names when it is a streaming one under a `content` map.
fn streamed_media(pointer: &str) -> Option<String> {
    let (parent, media) = pointer.rsplit_once('/')?;
    if !parent.ends_with("/content") {
        return None;
    }
    let media = crate::diagnostics::unescape_token(media);
    let essence = media.split(';').next()?.trim().to_ascii_lowercase();
    crate::ir::StreamFormat::of(&essence).map(|_| essence)
}

/// The schema of an event's `data` from the `itemSchema` of `text/event-stream`, which describes
/// the whole event (`event`, `data`, `id`, `retry`): `data`'s `contentSchema` (the JSON it carries,
/// per `contentMediaType`), else `data`'s own schema; for a `oneOf`/`anyOf` of events, the same
/// union of their data. Anything else stays the item, with a warning.
fn event_data(item: Value, pointer: &str, diags: &mut Diagnostics) -> Value {
    fn data_of(event: &Value) -> Option<Value> {
        let data = event.get("properties")?.get("data")?;
        Some(data.get("contentSchema").unwrap_or(data).clone())
    }
    if let Some(data) = data_of(&item) {
        return data;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(events) = item.get(key).and_then(Value::as_array)
            && let Some(datas) = events.iter().map(data_of).collect::<Option<Vec<Value>>>()
        {
            let mut union = Map::new();
            union.insert(key.to_owned(), Value::Array(datas));
            return Value::Object(union);
        }
    }
    diags.warning(
        pointer,
        "an event stream's `itemSchema` that declares no `data` property (inline) is taken as the schema of each event's `data`",
    );
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lowered(doc: Value) -> (Value, Vec<String>) {
        let mut doc = doc;
        let mut diags = Diagnostics::default();
        lower(doc.as_object_mut().unwrap(), &mut diags);
        let warnings = diags.warnings().map(ToString::to_string).collect();
        (doc, warnings)
    }

    #[test]
    fn query_and_custom_methods_move_beside_the_fixed_ones() {
        let op = json!({"responses": {"204": {"description": "ok"}}});
        let (doc, warnings) = lowered(json!({"paths": {"/a": {
            "get": op, "query": op,
            "additionalOperations": {"LINK": op, "GET": op, "M SEARCH": op}
        }}}));
        let item = &doc["paths"]["/a"];
        assert_eq!(item["get"], op);
        assert_eq!(item[OTHER_METHODS], json!({"QUERY": op, "LINK": op}));
        assert!(item.get("query").is_none() && item.get("additionalOperations").is_none());
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings[0].contains("/additionalOperations/GET")
                && warnings[0].contains("fixed field")
        );
        assert!(warnings[1].contains("M SEARCH") && warnings[1].contains("token"));
    }

    #[test]
    fn what_3_2_adds_to_tags_is_kept_and_a_bad_parent_dropped() {
        let (doc, warnings) = lowered(json!({"tags": [
            {"name": "a", "summary": "A", "kind": "nav"},
            {"name": "b", "parent": "a"},
            {"name": "c", "parent": "nowhere"},
            {"name": "d", "parent": "e"},
            {"name": "e", "parent": "d"}
        ]}));
        let tags = doc["tags"].as_array().unwrap();
        assert_eq!(tags[0][TAG], json!({"summary": "A", "kind": "nav"}));
        assert!(tags[0].get("summary").is_none());
        assert_eq!(tags[1][TAG], json!({"parent": "a"}));
        for i in [2, 3, 4] {
            assert!(tags[i].get(TAG).is_none(), "{}", tags[i]);
        }
        assert_eq!(warnings.len(), 3, "{warnings:#?}");
        assert!(warnings[0].contains("/tags/2/parent") && warnings[0].contains("no tag"));
        assert!(warnings[1].contains("cycle") && warnings[2].contains("cycle"));
    }

    #[test]
    fn a_form_querystring_is_an_exploded_form_object() {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let form = json!({"name": "filter", "in": "querystring",
            "content": {"application/x-www-form-urlencoded": {"schema": schema}}});
        let json_text = json!({"name": "raw", "in": "querystring",
            "content": {"application/json": {"schema": schema}}});
        let (doc, warnings) = lowered(json!({
            "paths": {"/a": {"get": {"parameters": [form, json_text, {"$ref": "#/components/parameters/J"}]}}},
            "components": {"parameters": {"J": json_text}}
        }));
        assert_eq!(
            doc["paths"]["/a"]["get"]["parameters"],
            json!([{"name": "filter", "in": "query", "style": "form", "explode": true, "schema": schema}])
        );
        assert!(doc["components"]["parameters"].get("J").is_none());
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings.iter().all(|w| w.contains("application/json")),
            "{warnings:#?}"
        );
    }
}
