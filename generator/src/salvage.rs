//! Generating what can be generated: a flaw in one part of a document (a `$ref` that names
//! nothing, a schema or operation that cannot be read) leaves out that part and what needs it,
//! with a warning each, instead of refusing the whole document (`--strict` refuses).
//!
//! Where the flaw is decides what is left out:
//! - in the schema of a property: only that schema, and the property holds any JSON value
//!   (`serde_json::Value`), its doc saying why;
//! - in an entry of a discriminator's `mapping`: that entry;
//! - elsewhere in a component: the component;
//! - in an operation: the operation; in a path item's own fields (its shared parameters): every
//!   operation of the path; in a callback: the callback; in a webhook: the webhook;
//! - in the document's `servers`, `tags`, `security` or `externalDocs`: that entry.
//!
//! A `$ref` to a part left out names nothing any more, so what needs the part is flawed in turn
//! and goes by the same rule. A flaw in `info`, which every crate needs, is mended: a missing
//! `title` or `version` becomes a placeholder, and anything else there that cannot be read goes.
//! What stays a hard error: text that is not a YAML or JSON object, an `openapi` version missing or
//! unsupported, and nothing left to generate.

use crate::bundle::{ONE_SCHEMA_KEYWORDS, decode_fragment};
use crate::diagnostics::{Diagnostic, Diagnostics, child, unescape_token};
use crate::lower::{METHODS, OTHER_METHODS, WEBHOOKS};
use serde_json::{Map, Value, json};

/// What was left out of a document, for the summary.
#[derive(Debug, Default)]
pub struct LeftOut {
    /// The operations in the document as written (before anything was left out).
    pub operations_in_document: usize,
    /// Pointers of the parts left out, in the order they were.
    pub parts: Vec<String>,
    /// The flaws that left them out, as errors (what `--strict` refuses the document for).
    pub flaws: Diagnostics,
}

/// Runs `attempt` on copies of `document` until it succeeds, taking out the parts that its
/// errors, and the `$ref`s that name nothing, point at. The warnings say what was taken out and
/// why; the `Err` holds every flaw met when one is in no part that can go.
pub fn salvage<T>(
    mut document: Value,
    diags: &mut Diagnostics,
    mut attempt: impl FnMut(Value, &mut Diagnostics) -> Result<T, Diagnostics>,
) -> Result<(T, LeftOut), Diagnostics> {
    let mut left_out = LeftOut {
        operations_in_document: count_operations(&document),
        parts: Vec::new(),
        flaws: Diagnostics::default(),
    };
    // Each round takes out at least one part, so the rounds are bounded by the parts there are.
    loop {
        let errors = match broken_refs(&document, &left_out.parts) {
            broken if !broken.is_empty() => broken,
            _ => {
                let mut attempt_diags = Diagnostics::default();
                match attempt(document.clone(), &mut attempt_diags) {
                    Ok(value) => {
                        diags.0.extend(attempt_diags.0);
                        return Ok((value, left_out));
                    }
                    Err(errors) => errors.errors().cloned().collect(),
                }
            }
        };
        for error in &errors {
            if !left_out.flaws.0.contains(error) {
                left_out.flaws.push(error.clone());
            }
        }
        if !take_out(&mut document, &errors, diags, &mut left_out.parts) {
            return Err(left_out.flaws);
        }
    }
}

/// The operations of the document's paths.
fn count_operations(document: &Value) -> usize {
    let items = document.get("paths").and_then(Value::as_object);
    items
        .into_iter()
        .flat_map(Map::values)
        .filter_map(Value::as_object)
        .map(operations_in)
        .sum()
}

/// The operations of a path item: fixed methods, `query` and `additionalOperations`.
fn operations_in(item: &Map<String, Value>) -> usize {
    let fixed = item
        .keys()
        .filter(|k| METHODS.contains(&k.as_str()) || *k == "query")
        .count();
    let other = item
        .get("additionalOperations")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    fixed + other
}

/// A part of the document that can be left out, by its pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// A property's schema, which becomes any JSON value.
    Property(String),
    /// Removed from the map or list that holds it.
    Whole(String),
    /// An operation: removed, and its path item too when it was the last.
    Operation(String),
    /// `info`, which every crate needs: its title and version made strings where they are not.
    Info,
}

/// Takes out the part of each error; `false` where an error is in no part that can go, or
/// nothing could be taken out.
fn take_out(
    document: &mut Value,
    errors: &[Diagnostic],
    diags: &mut Diagnostics,
    taken: &mut Vec<String>,
) -> bool {
    let mut parts = Vec::new();
    for error in errors {
        // A later stage reports a flaw where a `$ref` took it (a response component, inside the
        // operation that uses it): the part is where the flaw is written.
        let written = written_at(document, &error.pointer);
        let error = &Diagnostic {
            pointer: written,
            ..error.clone()
        };
        // `info` is required: a document without one (the error is at its root) gets one.
        let no_info =
            error.pointer.is_empty() && !document.get("info").is_some_and(Value::is_object);
        let Some(part) = part_of(&error.pointer).or(no_info.then_some(Part::Info)) else {
            return false;
        };
        if !parts.contains(&part) {
            diags.warning(part_pointer(&part), note(&part, error));
            parts.push(part);
        }
    }
    let mut changed = false;
    for part in parts {
        changed |= apply(document, &part, errors);
        taken.push(part_pointer(&part).to_owned());
    }
    changed
}

fn part_pointer(part: &Part) -> &str {
    match part {
        Part::Property(p) | Part::Whole(p) | Part::Operation(p) => p,
        Part::Info => "/info",
    }
}

fn note(part: &Part, error: &Diagnostic) -> String {
    let what = match part {
        Part::Property(_) => "read as any JSON value (`serde_json::Value`)",
        Part::Whole(_) => "left out, with what needs it",
        Part::Operation(_) => "operation left out",
        Part::Info => {
            "`info` read with `title` and `version` made strings (\"API\" and \"unknown\" where missing)"
        }
    };
    if error.pointer == part_pointer(part) {
        format!("{what}: {}", error.message)
    } else {
        let at = if error.pointer.is_empty() {
            "/"
        } else {
            &error.pointer
        };
        format!("{what}: `{at}`: {}", error.message)
    }
}

fn apply(document: &mut Value, part: &Part, errors: &[Diagnostic]) -> bool {
    match part {
        Part::Property(pointer) => {
            let Some(schema) = document.pointer_mut(pointer) else {
                return false;
            };
            let reason = errors
                .iter()
                .find(|e| e.pointer.starts_with(pointer.as_str()))
                .map_or("it could not be read", |e| e.message.as_str());
            let described = schema.get("description").and_then(Value::as_str);
            let note =
                format!("Any JSON value: the document's schema here was left out ({reason}).");
            let description = match described {
                Some(text) => format!("{text}\n\n{note}"),
                None => note,
            };
            *schema = json!({ "description": description });
            true
        }
        Part::Whole(pointer) => remove(document, pointer),
        Part::Info => repair_info(document),
        Part::Operation(pointer) => {
            let removed = remove(document, pointer);
            // A path item left without operations would still be a route; it goes too.
            let (item, _) = split_last(pointer);
            let item = item
                .strip_suffix("/additionalOperations")
                .unwrap_or(item)
                .to_owned();
            if document
                .pointer(&item)
                .and_then(Value::as_object)
                .is_some_and(|item| operations_in(item) == 0)
            {
                remove(document, &item);
            }
            removed
        }
    }
}

/// `info` with a string `title` and `version` (numbers written as strings), and nothing that is
/// not a string, object or array of those where `openapiv3` expects one; `false` where it had them.
fn repair_info(document: &mut Value) -> bool {
    let Some(root) = document.as_object_mut() else {
        return false;
    };
    let info = root.entry("info").or_insert_with(|| json!({}));
    if !info.is_object() {
        *info = json!({});
    }
    let info = info.as_object_mut().expect("made an object");
    let mut changed = false;
    for (key, missing) in [("title", "API"), ("version", "unknown")] {
        let text = match info.get(key) {
            Some(Value::String(_)) => continue,
            Some(Value::Number(n)) => n.to_string(),
            _ => missing.to_owned(),
        };
        info.insert(key.to_owned(), Value::String(text));
        changed = true;
    }
    // What else `info` holds is documentation; a flaw there loses only it.
    if !changed {
        let before = info.len();
        info.retain(|key, _| matches!(key.as_str(), "title" | "version"));
        changed = info.len() < before;
    }
    changed
}

/// Where the node at `pointer` is written: the pointer, followed through each local `$ref` it
/// passes on the way (`/paths/~1a/get/responses/200/content` with `200: {$ref:
/// '#/components/responses/R'}` is `/components/responses/R/content`).
fn written_at(document: &Value, pointer: &str) -> String {
    let mut at = String::new();
    for token in pointer.split('/').skip(1) {
        let key = unescape_token(token);
        let node = document.pointer(&at);
        let has = node.is_some_and(|n| match n {
            Value::Object(map) => map.contains_key(&key),
            Value::Array(items) => key.parse::<usize>().is_ok_and(|i| i < items.len()),
            _ => false,
        });
        let through = node
            .and_then(|n| n.get("$ref"))
            .and_then(Value::as_str)
            .and_then(local_target)
            .filter(|target| !has && document.pointer(target).is_some());
        if let Some(target) = through {
            at = target;
        }
        at = format!("{at}/{token}");
    }
    at
}

/// `/a/b/c` -> (`/a/b`, `c`).
fn split_last(pointer: &str) -> (&str, String) {
    match pointer.rfind('/') {
        Some(cut) => (&pointer[..cut], unescape_token(&pointer[cut + 1..])),
        None => ("", String::new()),
    }
}

fn remove(document: &mut Value, pointer: &str) -> bool {
    let (parent, key) = split_last(pointer);
    match document.pointer_mut(parent) {
        Some(Value::Object(map)) => map.shift_remove(&key).is_some(),
        Some(Value::Array(items)) => match key.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// The part an error at `pointer` is in (a pointer of the document as written, or of its lowered
/// form, which keeps webhooks and other methods under extensions); `None` where none can go.
fn part_of(pointer: &str) -> Option<Part> {
    let tokens: Vec<String> = pointer.split('/').skip(1).map(unescape_token).collect();
    let t: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let prefix = |n: usize| t[..n].iter().fold(String::new(), |p, t| child(&p, t));
    let inner = |start: usize| inner_part(&t, start).map(|(n, kind)| (prefix(n), kind));
    match t.as_slice() {
        ["components", _, _, ..] => Some(match inner(3) {
            Some((p, Inner::Property)) => Part::Property(p),
            Some((p, Inner::Mapping)) => Part::Whole(p),
            None => Part::Whole(prefix(3)),
        }),
        ["paths", path, rest @ ..] => {
            let item = child("/paths", path);
            let (operation, depth) = match rest {
                [method, ..] if METHODS.contains(method) || *method == "query" => {
                    (child(&item, method), 3)
                }
                ["additionalOperations", method, ..] => {
                    (child(&child(&item, "additionalOperations"), method), 4)
                }
                [m, method, ..] if *m == OTHER_METHODS => {
                    (crate::lower::other_method_pointer(&item, method), 4)
                }
                _ => return Some(Part::Whole(item)),
            };
            Some(match (&t[depth.min(t.len())..], inner(depth)) {
                (_, Some((p, Inner::Property))) => Part::Property(p),
                (_, Some((p, Inner::Mapping))) => Part::Whole(p),
                (["callbacks", name, ..], None) => {
                    Part::Whole(child(&child(&operation, "callbacks"), name))
                }
                _ => Part::Operation(operation),
            })
        }
        [section, name, ..] if *section == "webhooks" || *section == WEBHOOKS => {
            let webhook = child("/webhooks", name);
            Some(match inner(2) {
                Some((p, Inner::Property)) if *section == "webhooks" => Part::Property(p),
                Some((p, Inner::Mapping)) if *section == "webhooks" => Part::Whole(p),
                _ => Part::Whole(webhook),
            })
        }
        ["info", ..] => Some(Part::Info),
        ["components" | "paths" | "webhooks"] | ["components", _] => {
            Some(Part::Whole(prefix(t.len())))
        }
        ["servers" | "tags" | "security", _, ..] => Some(Part::Whole(prefix(2))),
        ["servers" | "tags" | "security" | "externalDocs", ..] => Some(Part::Whole(prefix(1))),
        _ => None,
    }
}

enum Inner {
    Property,
    Mapping,
}

/// Below the part that starts at token `start`: the property schema or mapping entry the
/// pointer is in, as the number of tokens that name it. Schemas begin at a component schema's
/// root or at a `schema` key (of a parameter, header or media type).
fn inner_part(t: &[&str], start: usize) -> Option<(usize, Inner)> {
    let mut i = start;
    let component_schema = start == 3 && t.get(1) == Some(&"schemas");
    if !component_schema {
        i += t[start.min(t.len())..]
            .iter()
            .position(|token| *token == "schema" || *token == "itemSchema")?
            + 1;
    }
    let mut found = None;
    while i < t.len() {
        match t[i] {
            "properties" if i + 1 < t.len() => {
                found = Some((i + 2, Inner::Property));
                i += 2;
            }
            "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
                if i + 1 < t.len() =>
            {
                i += 2
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" if i + 1 < t.len() => i += 2,
            "items" if t.get(i + 1).is_some_and(|n| n.parse::<usize>().is_ok()) => i += 2,
            key if key == "items" || ONE_SCHEMA_KEYWORDS.contains(&key) => i += 1,
            "discriminator" if t.get(i + 1) == Some(&"mapping") && i + 2 < t.len() => {
                return Some((i + 3, Inner::Mapping));
            }
            _ => break,
        }
    }
    found
}

/// Every `$ref` that names nothing in the document, as an error at the object that holds it (a
/// `discriminator.mapping` entry that names nothing is ignored by `build`, with a warning). Data (`example`, `default`, `enum`, `const`, an example's
/// `value`) and extensions are not looked into.
fn broken_refs(document: &Value, left_out: &[String]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk_refs(document, document, &mut path, left_out, &mut out);
    out
}

fn walk_refs(
    document: &Value,
    value: &Value,
    path: &mut Vec<String>,
    left_out: &[String],
    out: &mut Vec<Diagnostic>,
) {
    let pointer = |path: &[String]| path.iter().fold(String::new(), |p, t| child(&p, t));
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if key.starts_with("x-")
                    || matches!(
                        key.as_str(),
                        "example" | "default" | "enum" | "const" | "value"
                    )
                {
                    continue;
                }
                if key == "$ref"
                    && let Value::String(reference) = item
                {
                    if let Some(message) = unresolved(document, reference, left_out) {
                        out.push(Diagnostic::error(pointer(path), message));
                    }
                    continue;
                }
                if item.is_object() || item.is_array() {
                    path.push(key.clone());
                    walk_refs(document, item, path, left_out, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk_refs(document, item, path, left_out, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Why a reference names nothing, if it does not.
fn unresolved(document: &Value, reference: &str, left_out: &[String]) -> Option<String> {
    if !reference.starts_with('#') {
        return Some(format!("`$ref` `{reference}` could not be read"));
    }
    let target = local_target(reference).unwrap_or_else(|| reference.to_owned());
    if document.pointer(&target).is_some() {
        return alias_cycle(document, &target).then(|| {
            format!("`$ref` `{reference}` is a cycle of references that names no schema")
        });
    }
    Some(if left_out.contains(&target) {
        format!("it needs `{reference}`, which is left out")
    } else {
        format!("`$ref` `{reference}` names nothing in the document")
    })
}

/// Whether the node at `target` is a reference only (annotations aside), to a reference only,
/// and so on around a cycle: an alias of itself, which stands for nothing.
fn alias_cycle(document: &Value, target: &str) -> bool {
    let mut seen = vec![target.to_owned()];
    let mut node = document.pointer(target);
    while let Some(next) = node.and_then(alias_of) {
        if seen.contains(&next) {
            return true;
        }
        node = document.pointer(&next);
        seen.push(next);
    }
    false
}

/// The local target of an object that is only a `$ref` and annotations.
fn alias_of(node: &Value) -> Option<String> {
    const ANNOTATIONS: [&str; 10] = [
        "$ref",
        "description",
        "summary",
        "title",
        "deprecated",
        "readOnly",
        "writeOnly",
        "nullable",
        "example",
        "examples",
    ];
    let object = node.as_object()?;
    let target = local_target(object.get("$ref")?.as_str()?)?;
    object
        .keys()
        .all(|k| ANNOTATIONS.contains(&k.as_str()) || k.starts_with("x-"))
        .then_some(target)
}

/// The pointer a reference within the document names (`#/components/schemas/A` ->
/// `/components/schemas/A`); `None` for another file's, or a fragment that is no pointer.
fn local_target(reference: &str) -> Option<String> {
    reference.strip_prefix('#').and_then(decode_fragment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flaw_is_in_the_smallest_part_that_can_go() {
        use Part::{Operation as O, Property as P, Whole as W};
        type Case = (&'static str, fn(String) -> Part, &'static str);
        let cases: [Case; 15] = [
            (
                "/components/schemas/A/properties/b/items",
                P,
                "/components/schemas/A/properties/b",
            ),
            (
                "/components/schemas/A/properties/b/properties/c",
                P,
                "/components/schemas/A/properties/b/properties/c",
            ),
            // A property named `properties`, and the map itself as a `$ref`.
            (
                "/components/schemas/A/properties/properties/type",
                P,
                "/components/schemas/A/properties/properties",
            ),
            (
                "/components/schemas/A/properties",
                W,
                "/components/schemas/A",
            ),
            ("/components/schemas/A/allOf/0", W, "/components/schemas/A"),
            (
                "/components/schemas/U/discriminator/mapping/dog",
                W,
                "/components/schemas/U/discriminator/mapping/dog",
            ),
            ("/components/schemas", W, "/components/schemas"),
            (
                "/paths/~1pets/get/responses/200/content/application~1json/schema",
                O,
                "/paths/~1pets/get",
            ),
            (
                "/paths/~1pets/post/requestBody/content/a~1b/schema/properties/x",
                P,
                "/paths/~1pets/post/requestBody/content/a~1b/schema/properties/x",
            ),
            ("/paths/~1pets/parameters/0", W, "/paths/~1pets"),
            (
                "/paths/~1pets/x-openapi-gen-methods/QUERY/responses",
                O,
                "/paths/~1pets/query",
            ),
            (
                "/paths/~1p/additionalOperations/LINK/responses",
                O,
                "/paths/~1p/additionalOperations/LINK",
            ),
            (
                "/paths/~1a/post/callbacks/done/{$url}/post",
                W,
                "/paths/~1a/post/callbacks/done",
            ),
            ("/x-openapi-gen-webhooks/new/post", W, "/webhooks/new"),
            ("/tags/3/name", W, "/tags/3"),
        ];
        for (pointer, part, expected) in cases {
            assert_eq!(
                part_of(pointer),
                Some(part(expected.to_owned())),
                "{pointer}"
            );
        }
        assert_eq!(part_of("/info/title"), Some(Part::Info));
        assert_eq!(part_of(""), None);
        assert_eq!(part_of("/openapi"), None);
    }

    #[test]
    fn refs_that_name_nothing_are_found_where_they_stand() {
        let doc = json!({
            "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Gone"}}}}},
            "components": {"schemas": {
                "A": {"properties": {"b": {"$ref": "#/components/schemas/Missing"},
                                     "c": {"$ref": "#/components/schemas/A"},
                                     "d": {"example": {"$ref": "not a ref"}}}},
                "U": {"oneOf": [{"$ref": "#/components/schemas/A"}],
                      "discriminator": {"propertyName": "t", "mapping": {"a": "#/components/schemas/A", "z": "Z"}}},
                "E": {"x-meta": {"$ref": "elsewhere"}, "$ref": "other.yaml#/E"}
            }}
        });
        let found: Vec<String> = broken_refs(&doc, &[])
            .iter()
            .map(|d| format!("{}: {}", d.pointer, d.message))
            .collect();
        assert_eq!(
            found,
            [
                "/paths/~1a/get/responses/200: `$ref` `#/components/responses/Gone` names nothing in the document",
                "/components/schemas/A/properties/b: `$ref` `#/components/schemas/Missing` names nothing in the document",
                "/components/schemas/E: `$ref` `other.yaml#/E` could not be read",
            ]
        );
    }

    #[test]
    fn what_needs_a_part_left_out_goes_with_it() {
        let doc = json!({
            "openapi": "3.1.0",
            "paths": {
                "/a": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}},
                "/b": {"get": {"responses": {"204": {"description": "ok"}}},
                       "post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Broken"}}}},
                                "responses": {"204": {"description": "ok"}}}}
            },
            "components": {"schemas": {
                "A": {"allOf": [{"$ref": "#/components/schemas/Broken"}]},
                "Broken": {"$ref": "#/components/schemas/Nowhere"},
                "Holder": {"properties": {"a": {"$ref": "#/components/schemas/A"}, "n": {"type": "integer"}}}
            }}
        });
        let mut diags = Diagnostics::default();
        let (kept, left_out) =
            salvage(doc, &mut diags, |doc, _| Ok::<_, Diagnostics>(doc)).unwrap();
        assert_eq!(left_out.operations_in_document, 3);
        assert_eq!(
            left_out.parts,
            [
                "/components/schemas/Broken",
                "/paths/~1b/post",
                "/components/schemas/A",
                "/paths/~1a/get",
                "/components/schemas/Holder/properties/a",
            ]
        );
        assert!(
            kept["paths"].get("/a").is_none(),
            "a path item without operations goes"
        );
        assert_eq!(kept["paths"]["/b"].as_object().unwrap().len(), 1);
        assert_eq!(
            kept["components"]["schemas"]["Holder"]["properties"]["n"],
            json!({"type": "integer"})
        );
        let any = &kept["components"]["schemas"]["Holder"]["properties"]["a"];
        assert_eq!(
            any["description"],
            "Any JSON value: the document's schema here was left out (it needs `#/components/schemas/A`, which is left out)."
        );
        assert_eq!(diags.warnings().count(), 5);
        assert!(!diags.has_errors());
    }

    #[test]
    fn a_flaw_outside_every_part_refuses_the_document() {
        let doc = json!({"openapi": "3.1.0", "paths": {}});
        let mut diags = Diagnostics::default();
        let refused = salvage(doc, &mut diags, |_, _| {
            Err::<(), _>(Diagnostics(vec![Diagnostic::error(
                "/info",
                "`info` must be an object",
            )]))
        })
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "error: /info: `info` must be an object\n"
        );
    }

    #[test]
    fn info_is_mended() {
        let mut doc = json!({"info": {"title": "T", "version": 2.1, "contact": 5}});
        assert!(repair_info(&mut doc));
        assert_eq!(
            doc["info"],
            json!({"title": "T", "version": "2.1", "contact": 5})
        );
        assert!(repair_info(&mut doc), "what else is there goes next");
        assert_eq!(doc["info"], json!({"title": "T", "version": "2.1"}));
        assert!(!repair_info(&mut doc), "nothing left to mend");
        let mut missing = json!({"openapi": "3.1.0"});
        assert!(repair_info(&mut missing));
        assert_eq!(
            missing["info"],
            json!({"title": "API", "version": "unknown"})
        );
    }

    #[test]
    fn a_cycle_of_aliases_names_nothing() {
        let doc = json!({"components": {"schemas": {
            "A": {"$ref": "#/components/schemas/B", "description": "a"},
            "B": {"$ref": "#/components/schemas/A"},
            "C": {"$ref": "#/components/schemas/C"},
            "D": {"$ref": "#/components/schemas/E"},
            "E": {"type": "object", "properties": {"d": {"$ref": "#/components/schemas/D"}}}
        }}});
        let found: Vec<String> = broken_refs(&doc, &[])
            .iter()
            .map(|d| d.pointer.clone())
            .collect();
        assert_eq!(
            found,
            [
                "/components/schemas/A",
                "/components/schemas/B",
                "/components/schemas/C"
            ]
        );
    }

    #[test]
    fn a_flaw_reported_through_a_ref_is_where_it_is_written() {
        let doc = json!({
            "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/R"}}}}},
            "components": {"responses": {"R": {"content": {"application/json": {"schema": {}}}}}}
        });
        assert_eq!(
            written_at(
                &doc,
                "/paths/~1a/get/responses/200/content/application~1json/schema/properties/x"
            ),
            "/components/responses/R/content/application~1json/schema/properties/x"
        );
        assert_eq!(written_at(&doc, "/paths/~1a/get"), "/paths/~1a/get");
    }
}
