//! OpenAPI 3.2 documents, read as 3.1 ones where 3.2 only adds: what 3.2 can say that the
//! generator does not represent yet is taken out with a warning naming it, never dropped in
//! silence (and never left for `openapiv3` to refuse):
//!
//! - the `query` method and `additionalOperations` (custom methods): the operation is not generated;
//! - `in: querystring` parameters (the whole query string as one value): not read or sent;
//! - `itemSchema` (a stream of items) of a media type that is not a streaming one: the media type
//!   keeps its `schema`, if any. Under a streaming media type it becomes the `schema`, which is
//!   what 3.0 and 3.1 documents (OpenAI's) write there: one item (see `event_data` for SSE);
//! - OAuth 2.0 `deviceAuthorization` flows: the scheme keeps its other flows;
//! - a discriminator's `defaultMapping`;
//! - tags' `parent` and `kind`, which no generated module follows.
//!
//! `style: cookie` is what the generated code already writes for cookies (`form`, with `; `
//! between pairs), so it becomes `form`. `$self` is used by the bundler (see `bundle`).

use crate::diagnostics::{Diagnostics, child};
use serde_json::{Map, Value};
use std::collections::HashSet;

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
                let keep = !is_querystring(parameter);
                if !keep {
                    querystrings.insert(format!("#{pointer}"));
                    querystring_warning(&pointer, diags);
                }
                keep
            });
        }
        if let Some(schemes) = components
            .get_mut("securitySchemes")
            .and_then(Value::as_object_mut)
        {
            for (name, scheme) in schemes.iter_mut() {
                let flows = scheme.get_mut("flows").and_then(Value::as_object_mut);
                if flows
                    .and_then(|f| f.remove("deviceAuthorization"))
                    .is_some()
                {
                    diags.warning(
                        child(&child("/components/securitySchemes", name), "flows"),
                        "the OAuth 2.0 device authorization flow (RFC 8628, OpenAPI 3.2) is not generated; the scheme's other flows are",
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
    if let Some(op) = item.remove("query") {
        diags.warning(
            child(pointer, "query"),
            format!(
                "the `query` method (OpenAPI 3.2) is not generated yet: operation `{}` is left out",
                operation_id(&op)
            ),
        );
    }
    if let Some(ops) = item.remove("additionalOperations") {
        for (method, op) in ops.as_object().into_iter().flatten() {
            diags.warning(
                child(&child(pointer, "additionalOperations"), method),
                format!(
                    "the custom method `{method}` (OpenAPI 3.2 `additionalOperations`) is not generated yet: operation `{}` is left out",
                    operation_id(op)
                ),
            );
        }
    }
    lower_parameters(item, pointer, querystrings, diags);
    for (method, op) in item.iter_mut() {
        if let Some(op) = op
            .as_object_mut()
            .filter(|_| crate::lower::METHODS.contains(&method.as_str()))
        {
            lower_parameters(op, &child(pointer, method), querystrings, diags);
        }
    }
}

fn operation_id(op: &Value) -> &str {
    op.get("operationId")
        .and_then(Value::as_str)
        .unwrap_or("(no operationId)")
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
        let referenced = parameter
            .get("$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| querystrings.contains(r));
        if is_querystring(parameter) || referenced {
            querystring_warning(&here, diags);
            return false;
        }
        true
    });
}

/// `style: cookie` is the `form` cookie the generated code writes.
fn lower_parameter(parameter: &mut Value) {
    let is_cookie_style = parameter.get("style").and_then(Value::as_str) == Some("cookie");
    if let Some(p) = parameter.as_object_mut().filter(|_| is_cookie_style) {
        p.insert("style".to_owned(), Value::from("form"));
    }
}

fn is_querystring(parameter: &Value) -> bool {
    parameter.get("in").and_then(Value::as_str) == Some("querystring")
}

fn querystring_warning(pointer: &str, diags: &mut Diagnostics) {
    diags.warning(
        pointer,
        "`in: querystring` parameters (OpenAPI 3.2: the whole query string as one value) are not generated yet: it is neither read nor sent",
    );
}

fn lower_tags(root: &mut Map<String, Value>, diags: &mut Diagnostics) {
    let Some(tags) = root.get_mut("tags").and_then(Value::as_array_mut) else {
        return;
    };
    for (i, tag) in tags.iter_mut().enumerate() {
        let Some(tag) = tag.as_object_mut() else {
            continue;
        };
        let nested: Vec<&str> = ["parent", "kind"]
            .into_iter()
            .filter(|key| tag.contains_key(*key))
            .collect();
        if !nested.is_empty() {
            diags.warning(
                format!("/tags/{i}"),
                format!(
                    "a tag's {} (OpenAPI 3.2) {} not used: generated code is not grouped by tags",
                    nested.join(" and "),
                    if nested.len() == 1 { "is" } else { "are" }
                ),
            );
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
        && discriminator.remove("defaultMapping").is_some()
    {
        diags.warning(
            child(&child(pointer, "discriminator"), "defaultMapping"),
            "a discriminator's `defaultMapping` (OpenAPI 3.2) is not generated: a value the mapping does not name is refused",
        );
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
