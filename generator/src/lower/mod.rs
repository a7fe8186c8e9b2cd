//! Lowering: rewrites OpenAPI 3.1 (JSON Schema 2020-12) schema forms into the 3.0 shapes `openapiv3`
//! reads, keeping their meaning in `x-openapi-gen-*` extensions where 3.0 has no spelling for it.
//!
//! The rules, one per 3.1 form:
//! - `type: [T, "null"]` becomes `type: T` + `nullable: true`.
//! - `type: "null"` alone becomes the marker [`NULL_MARKER`]; a null branch of `oneOf`/`anyOf` is
//!   removed and makes the parent `nullable` instead (also the 3.0 idiom `anyOf: [X, {nullable: true}]`).
//! - `type: [integer|number, string]` with a `pattern` (ASP.NET's "number or numeric string") keeps
//!   the numeric type and moves the pattern to [`NUMERIC_STRING_PATTERN`].
//! - Any other type array becomes an `anyOf` with one branch per type.
//! - `const: v` becomes `enum: [v]`; `examples: [..]` becomes `example`.
//! - Numeric `exclusiveMinimum`/`exclusiveMaximum` become `minimum`/`maximum` + the 3.0 boolean.
//! - `$ref` with sibling keywords becomes `allOf: [{$ref}]` plus the siblings.
//! - Boolean schemas become `{}` (true) and `{not: {}}` (false).
//! - A schema without `type` whose keywords belong to one type gets it (`infer_type`): an
//!   integer or number `format` (`int32`, `double`...) or a numeric bound makes it a number, and
//!   with a `pattern` a number that may also be spelled as a matching string (what ASP.NET emits
//!   for numbers in 3.0, like its 3.1 `type: [integer, string]`); a string format, `pattern` or a
//!   length makes it a string.
//!
//! - 3.1 `webhooks` and each operation's `callbacks` (which `openapiv3` does not read, or reads
//!   without `$ref`s) are lowered like paths and moved to [`WEBHOOKS`] and [`CALLBACKS`], their
//!   path item and callback references resolved; `build` reads them from there.
//!
//! Lowering is applied to 3.0 documents too: none of these forms is valid 3.0, so it changes nothing there
//! except the shared null-branch idiom.

use crate::diagnostics::{Diagnostics, child};
use serde_json::{Map, Value, json};

mod markers;
pub mod v3_2;

pub use markers::{
    CALLBACKS, KEY_PATTERN, LICENSE_IDENTIFIER, NULL_MARKER, NUMERIC_STRING_PATTERN, OTHER_METHODS,
    WEBHOOKS,
};
pub(crate) use markers::{METHODS, other_method_pointer};

/// 3.1's `license.identifier` (SPDX) is kept as an extension, so the generated `Cargo.toml`s can
/// state it.
fn lower_license(root: &mut Map<String, Value>) {
    let license = root
        .get_mut("info")
        .and_then(|info| info.get_mut("license"))
        .and_then(Value::as_object_mut);
    if let Some(license) = license
        && let Some(identifier) = license.remove("identifier")
    {
        license.insert(LICENSE_IDENTIFIER.to_owned(), identifier);
    }
}

/// Lowers a whole document in place. Errors are returned for documents that are not OpenAPI 3.0/3.1.
pub fn lower_document(doc: &mut Value, diags: &mut Diagnostics) {
    let Some(root) = doc.as_object_mut() else {
        diags.error("", "the document is not a JSON/YAML object");
        return;
    };
    match root.get("openapi").and_then(Value::as_str) {
        Some(v) if v.starts_with("3.0") || v.starts_with("3.1") => {}
        // 3.2 adds to 3.1: what it adds that is not generated yet is taken out with a warning.
        Some(v) if v.starts_with("3.2") => v3_2::lower(root, diags),
        Some(v) => {
            diags.error(
                "/openapi",
                format!("OpenAPI version {v} is not supported (3.0.x, 3.1.x and 3.2.x are)"),
            );
            return;
        }
        None if root.contains_key("swagger") => {
            diags.error(
                "/swagger",
                "Swagger 2.0 documents are not supported; convert to OpenAPI 3 first",
            );
            return;
        }
        None => {
            diags.error("/openapi", "missing `openapi` version field");
            return;
        }
    }
    // 3.1 allows a document without paths (components or webhooks only).
    root.entry("paths").or_insert_with(|| json!({}));
    lower_license(root);
    // Path items and callbacks that webhooks and callbacks refer to, taken before lowering.
    let components_of = |kind: &str| {
        root.get("components")
            .and_then(|c| c.get(kind))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let refs = Refs {
        path_items: components_of("pathItems"),
        callbacks: components_of("callbacks"),
    };
    if let Some(webhooks) = root.remove("webhooks") {
        let mut lowered = Map::new();
        for (name, item) in webhooks.as_object().into_iter().flatten() {
            let pointer = child("/webhooks", name);
            if let Some(mut item) = refs.path_item(item, &pointer, diags) {
                lower_path_item(&mut item, &pointer, &refs, diags);
                lowered.insert(name.clone(), item);
            }
        }
        if !lowered.is_empty() {
            root.insert(WEBHOOKS.to_owned(), Value::Object(lowered));
        }
    }
    if let Some(components) = root.get_mut("components").and_then(Value::as_object_mut) {
        if components.remove("pathItems").is_some() {
            diags.warning(
                "/components/pathItems",
                "components.pathItems are generated where webhooks and callbacks refer to them, not on their own",
            );
        }
        // Resolved where operations use them (`CALLBACKS`); 3.1 schema forms inside would not parse.
        components.remove("callbacks");
        lower_security_schemes(components, diags);
        lower_components(components, diags);
    }
    if let Some(paths) = root.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            let pointer = child("/paths", path);
            lower_path_item(item, &pointer, &refs, diags);
        }
    }
}

/// The components that webhooks and callbacks may refer to.
struct Refs {
    path_items: Map<String, Value>,
    callbacks: Map<String, Value>,
}

impl Refs {
    /// A path item, its `$ref` (to `components/pathItems`) resolved; `None` with a warning when
    /// it does not resolve.
    fn path_item(&self, item: &Value, pointer: &str, diags: &mut Diagnostics) -> Option<Value> {
        Self::resolved(
            item,
            "#/components/pathItems/",
            &self.path_items,
            pointer,
            diags,
        )
    }

    fn callback(&self, callback: &Value, pointer: &str, diags: &mut Diagnostics) -> Option<Value> {
        Self::resolved(
            callback,
            "#/components/callbacks/",
            &self.callbacks,
            pointer,
            diags,
        )
    }

    fn resolved(
        value: &Value,
        prefix: &str,
        components: &Map<String, Value>,
        pointer: &str,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
            return Some(value.clone());
        };
        let found = reference
            .strip_prefix(prefix)
            .map(crate::diagnostics::unescape_token)
            .and_then(|name| components.get(&name));
        match found {
            Some(target) if target.get("$ref").is_none() => Some(target.clone()),
            _ => {
                diags.warning(
                    pointer,
                    format!("`$ref` `{reference}` does not resolve here; it is not generated"),
                );
                None
            }
        }
    }
}

fn lower_security_schemes(components: &mut Map<String, Value>, diags: &mut Diagnostics) {
    let Some(schemes) = components
        .get_mut("securitySchemes")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    schemes.retain(|name, scheme| {
        let kind = scheme
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind == "mutualTLS" {
            diags.warning(
                child("/components/securitySchemes", name),
                "mutualTLS security is left to the TLS layer and not generated",
            );
            return false;
        }
        true
    });
}

fn lower_components(components: &mut Map<String, Value>, diags: &mut Diagnostics) {
    if let Some(schemas) = components.get_mut("schemas").and_then(Value::as_object_mut) {
        for (name, schema) in schemas.iter_mut() {
            lower_schema(schema, &child("/components/schemas", name), diags);
        }
    }
    for kind in ["parameters", "headers"] {
        if let Some(map) = components.get_mut(kind).and_then(Value::as_object_mut) {
            for (name, param) in map.iter_mut() {
                let pointer = child(&format!("/components/{kind}"), name);
                lower_parameter_like(param, &pointer, diags);
            }
        }
    }
    if let Some(bodies) = components
        .get_mut("requestBodies")
        .and_then(Value::as_object_mut)
    {
        for (name, body) in bodies.iter_mut() {
            lower_content_holder(body, &child("/components/requestBodies", name), diags);
        }
    }
    if let Some(responses) = components
        .get_mut("responses")
        .and_then(Value::as_object_mut)
    {
        for (name, response) in responses.iter_mut() {
            lower_response(response, &child("/components/responses", name), diags);
        }
    }
}

fn lower_path_item(item: &mut Value, pointer: &str, refs: &Refs, diags: &mut Diagnostics) {
    let Some(item) = item.as_object_mut() else {
        return;
    };
    if let Some(params) = item.get_mut("parameters").and_then(Value::as_array_mut) {
        for (i, p) in params.iter_mut().enumerate() {
            lower_parameter_like(p, &format!("{pointer}/parameters/{i}"), diags);
        }
    }
    // (order: the fixed methods', then the others as written; pointer; operation)
    let mut operations: Vec<(usize, String, &mut Map<String, Value>)> = Vec::new();
    for (key, value) in item.iter_mut() {
        let Some(value) = value.as_object_mut() else {
            continue;
        };
        if let Some(order) = METHODS.iter().position(|m| m == key) {
            operations.push((order, child(pointer, key), value));
        } else if key == OTHER_METHODS {
            for (method, op) in value.iter_mut() {
                if let Some(op) = op.as_object_mut() {
                    operations.push((METHODS.len(), other_method_pointer(pointer, method), op));
                }
            }
        }
    }
    operations.sort_by_key(|(order, _, _)| *order);
    for (_, op_pointer, op) in operations {
        if let Some(callbacks) = op.remove("callbacks") {
            let callbacks_pointer = child(&op_pointer, "callbacks");
            let mut lowered = Map::new();
            for (name, callback) in callbacks.as_object().into_iter().flatten() {
                let pointer = child(&callbacks_pointer, name);
                let Some(callback) = refs.callback(callback, &pointer, diags) else {
                    continue;
                };
                let mut expressions = Map::new();
                for (expression, item) in callback.as_object().into_iter().flatten() {
                    if expression.starts_with("x-") {
                        continue;
                    }
                    let pointer = child(&pointer, expression);
                    if let Some(mut item) = refs.path_item(item, &pointer, diags) {
                        lower_path_item(&mut item, &pointer, refs, diags);
                        expressions.insert(expression.clone(), item);
                    }
                }
                lowered.insert(name.clone(), Value::Object(expressions));
            }
            if !lowered.is_empty() {
                op.insert(CALLBACKS.to_owned(), Value::Object(lowered));
            }
        }
        if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
            for (i, p) in params.iter_mut().enumerate() {
                lower_parameter_like(p, &format!("{op_pointer}/parameters/{i}"), diags);
            }
        }
        if let Some(body) = op.get_mut("requestBody") {
            lower_content_holder(body, &child(&op_pointer, "requestBody"), diags);
        }
        if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
            for (status, response) in responses.iter_mut() {
                lower_response(
                    response,
                    &child(&format!("{op_pointer}/responses"), status),
                    diags,
                );
            }
        }
    }
}

fn lower_parameter_like(param: &mut Value, pointer: &str, diags: &mut Diagnostics) {
    if let Some(schema) = param.get_mut("schema") {
        lower_schema(schema, &child(pointer, "schema"), diags);
    }
    lower_content_holder(param, pointer, diags);
}

fn lower_response(response: &mut Value, pointer: &str, diags: &mut Diagnostics) {
    lower_content_holder(response, pointer, diags);
    if let Some(headers) = response.get_mut("headers").and_then(Value::as_object_mut) {
        for (name, header) in headers.iter_mut() {
            lower_parameter_like(header, &child(&child(pointer, "headers"), name), diags);
        }
    }
}

fn lower_content_holder(holder: &mut Value, pointer: &str, diags: &mut Diagnostics) {
    let Some(content) = holder.get_mut("content").and_then(Value::as_object_mut) else {
        return;
    };
    for (media, media_type) in content.iter_mut() {
        if let Some(schema) = media_type.get_mut("schema") {
            let p = child(&child(&child(pointer, "content"), media), "schema");
            lower_schema(schema, &p, diags);
        }
    }
}

/// Lowers one schema and, recursively, every schema inside it.
pub fn lower_schema(schema: &mut Value, pointer: &str, diags: &mut Diagnostics) {
    if let Value::Bool(b) = schema {
        *schema = if *b { json!({}) } else { json!({"not": {}}) };
        return;
    }
    let Some(obj) = schema.as_object_mut() else {
        diags.error(pointer, "a schema must be an object or a boolean");
        return;
    };
    if !check_keyword_shapes(obj, pointer, diags) {
        return;
    }
    lower_ref_siblings(obj);
    lower_examples(obj);
    lower_const(obj);
    lower_exclusive_bounds(obj);
    drop_annotations(obj);
    lower_type_array(obj, pointer, diags);
    infer_type(obj);
    warn_unsupported(obj, pointer, diags);
    lower_children(obj, pointer, diags);
    lower_null_branches(obj);
}

/// Keywords whose value has the wrong JSON shape make the schema meaningless: report, don't guess.
fn check_keyword_shapes(obj: &Map<String, Value>, pointer: &str, diags: &mut Diagnostics) -> bool {
    let mut ok = true;
    let mut wrong = |key: &str, expected: &str| {
        diags.error(child(pointer, key), format!("`{key}` must be {expected}"));
        ok = false;
    };
    for key in ["enum", "required", "allOf", "anyOf", "oneOf"] {
        if obj.get(key).is_some_and(|v| !v.is_array()) {
            wrong(key, "an array");
        }
    }
    if obj
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.iter().all(Value::is_string))
    {
        wrong("required", "an array of property names");
    }
    if obj.get("properties").is_some_and(|v| !v.is_object()) {
        wrong("properties", "an object");
    }
    const TYPES: [&str; 7] = [
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];
    match obj.get("type") {
        None => {}
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
        Some(Value::Array(ts))
            if ts
                .iter()
                .all(|t| t.as_str().is_some_and(|t| TYPES.contains(&t))) => {}
        Some(_) => wrong(
            "type",
            "one of string, number, integer, boolean, array, object, null (or an array of them)",
        ),
    }
    ok
}

/// `$ref` siblings are meaningful in 3.1 (`description`, `nullable`-like constraints): keep them via allOf.
fn lower_ref_siblings(obj: &mut Map<String, Value>) {
    if !obj.contains_key("$ref") || obj.len() == 1 {
        return;
    }
    let reference = obj.remove("$ref").expect("checked above");
    let existing = obj.remove("allOf");
    let mut all_of = vec![json!({"$ref": reference})];
    if let Some(Value::Array(more)) = existing {
        all_of.extend(more);
    }
    obj.insert("allOf".into(), Value::Array(all_of));
}

fn lower_examples(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(examples)) = obj.remove("examples")
        && !obj.contains_key("example")
        && let Some(first) = examples.into_iter().next()
    {
        obj.insert("example".into(), first);
    }
}

fn lower_const(obj: &mut Map<String, Value>) {
    let Some(value) = obj.remove("const") else {
        return;
    };
    if !obj.contains_key("type") {
        let ty = match &value {
            Value::String(_) => Some("string"),
            Value::Bool(_) => Some("boolean"),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
            Value::Number(_) => Some("number"),
            _ => None,
        };
        if let Some(ty) = ty {
            obj.insert("type".into(), json!(ty));
        }
    }
    if value.is_null() {
        obj.insert(NULL_MARKER.into(), json!(true));
    } else {
        obj.insert("enum".into(), json!([value]));
    }
}

fn lower_exclusive_bounds(obj: &mut Map<String, Value>) {
    for (exclusive, bound, stricter_is_greater) in [
        ("exclusiveMinimum", "minimum", true),
        ("exclusiveMaximum", "maximum", false),
    ] {
        let Some(Value::Number(limit)) = obj.get(exclusive).cloned() else {
            continue;
        };
        let limit_f = limit.as_f64().unwrap_or_default();
        let keep_existing = obj
            .get(bound)
            .and_then(Value::as_f64)
            .is_some_and(|existing| {
                if stricter_is_greater {
                    existing > limit_f
                } else {
                    existing < limit_f
                }
            });
        if keep_existing {
            obj.remove(exclusive);
        } else {
            obj.insert(bound.into(), Value::Number(limit));
            obj.insert(exclusive.into(), json!(true));
        }
    }
}

/// Keywords with no effect on generated types; dropping them loses nothing.
fn drop_annotations(obj: &mut Map<String, Value>) {
    for key in [
        "$schema",
        "$id",
        "$anchor",
        "$comment",
        "$dynamicAnchor",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    ] {
        obj.remove(key);
    }
}

const NUMBER_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "format",
];

/// The keywords that belong to each type, for splitting `type: [a, b]` into one branch per type.
const TYPE_KEYWORDS: [(&str, &[&str]); 6] = [
    ("boolean", &[]),
    ("string", &["pattern", "minLength", "maxLength", "format"]),
    ("number", NUMBER_KEYWORDS),
    ("integer", NUMBER_KEYWORDS),
    (
        "array",
        &[
            "items",
            "minItems",
            "maxItems",
            "uniqueItems",
            "prefixItems",
        ],
    ),
    (
        "object",
        &[
            "properties",
            "required",
            "additionalProperties",
            "minProperties",
            "maxProperties",
        ],
    ),
];

fn lower_type_array(obj: &mut Map<String, Value>, pointer: &str, diags: &mut Diagnostics) {
    let types: Vec<String> = match obj.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        Some(Value::String(t)) if t == "null" => vec!["null".to_owned()],
        _ => return,
    };
    let nullable = types.iter().any(|t| t == "null");
    let mut rest: Vec<String> = types.into_iter().filter(|t| t != "null").collect();
    rest.dedup();
    if nullable {
        obj.insert("nullable".into(), json!(true));
    }
    match rest.len() {
        0 => {
            obj.remove("type");
            obj.remove("nullable");
            obj.insert(NULL_MARKER.into(), json!(true));
        }
        1 => {
            obj.insert("type".into(), json!(rest[0]));
        }
        _ => {
            let numeric: Vec<&String> = rest
                .iter()
                .filter(|t| *t == "integer" || *t == "number")
                .collect();
            let is_numeric_string = rest.len() == 2
                && numeric.len() == 1
                && rest.iter().any(|t| t == "string")
                && obj.get("pattern").is_some_and(Value::is_string);
            if is_numeric_string {
                let number = numeric[0].clone();
                obj.insert("type".into(), json!(number));
                let pattern = obj.remove("pattern").expect("checked above");
                obj.insert(NUMERIC_STRING_PATTERN.into(), pattern);
                // Length limits describe the string spelling only.
                obj.remove("minLength");
                obj.remove("maxLength");
                return;
            }
            split_type_union(obj, &rest, pointer, diags);
        }
    }
}

/// `type: [a, b]` becomes `anyOf: [{type: a, ...}, {type: b, ...}]`, each branch taking its own keywords.
/// The type of a schema without `type` whose keywords say it (see the module docs).
fn infer_type(obj: &mut Map<String, Value>) {
    // Keywords that give the schema a shape of its own (or the type already).
    const SHAPED: [&str; 12] = [
        "type",
        "$ref",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "enum",
        "properties",
        "items",
        "additionalProperties",
        NULL_MARKER,
        NUMERIC_STRING_PATTERN,
    ];
    if SHAPED.iter().any(|k| obj.contains_key(*k)) {
        return;
    }
    let format = obj
        .get("format")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let integer_format = matches!(
        format,
        "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64"
    );
    let number_format = matches!(format, "float" | "double" | "decimal");
    let bounded = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]
    .iter()
    .any(|k| obj.contains_key(*k));
    let number = if integer_format {
        "integer"
    } else if number_format || bounded {
        "number"
    } else {
        if !format.is_empty()
            || ["pattern", "minLength", "maxLength"]
                .iter()
                .any(|k| obj.contains_key(*k))
        {
            obj.insert("type".into(), json!("string"));
        }
        return;
    };
    obj.insert("type".into(), json!(number));
    if let Some(pattern) = obj.remove("pattern") {
        obj.insert(NUMERIC_STRING_PATTERN.into(), pattern);
        obj.remove("minLength");
        obj.remove("maxLength");
    }
}

fn split_type_union(
    obj: &mut Map<String, Value>,
    types: &[String],
    pointer: &str,
    diags: &mut Diagnostics,
) {
    obj.remove("type");
    let enumeration = obj.remove("enum");
    let mut branches = Vec::new();
    for ty in types {
        let mut branch = Map::new();
        branch.insert("type".into(), json!(ty));
        if let Some((_, keywords)) = TYPE_KEYWORDS.iter().find(|(t, _)| t == ty) {
            for k in *keywords {
                if let Some(v) = obj.get(*k) {
                    branch.insert((*k).into(), v.clone());
                }
            }
        } else {
            diags.error(child(pointer, "type"), format!("unknown type `{ty}`"));
        }
        if let Some(Value::Array(values)) = &enumeration {
            let own: Vec<Value> = values
                .iter()
                .filter(|v| value_has_type(v, ty))
                .cloned()
                .collect();
            if !own.is_empty() {
                branch.insert("enum".into(), Value::Array(own));
            }
        }
        branches.push(Value::Object(branch));
    }
    for (_, keywords) in TYPE_KEYWORDS {
        for k in keywords {
            obj.remove(*k);
        }
    }
    if obj.contains_key("anyOf") || obj.contains_key("oneOf") {
        // Both a type union and a composition: the composition must hold as well.
        let existing = obj.remove("allOf");
        let mut all_of = vec![json!({"anyOf": branches})];
        if let Some(Value::Array(more)) = existing {
            all_of.extend(more);
        }
        obj.insert("allOf".into(), Value::Array(all_of));
    } else {
        obj.insert("anyOf".into(), Value::Array(branches));
    }
}

fn value_has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

fn warn_unsupported(obj: &mut Map<String, Value>, pointer: &str, diags: &mut Diagnostics) {
    // `propertyNames` that only constrain keys with a pattern are kept as a key check.
    let key_pattern = obj
        .get("propertyNames")
        .and_then(Value::as_object)
        .and_then(|names| {
            let only_pattern = names
                .keys()
                .all(|k| matches!(k.as_str(), "pattern" | "type" | "description"));
            names
                .get("pattern")
                .and_then(Value::as_str)
                .filter(|_| only_pattern)
                .map(str::to_owned)
        });
    if let Some(pattern) = key_pattern {
        obj.remove("propertyNames");
        obj.insert(KEY_PATTERN.into(), Value::String(pattern));
    }
    if let Some(prefix) = obj.remove("prefixItems") {
        let len = prefix.as_array().map_or(0, Vec::len);
        diags.warning(
            child(pointer, "prefixItems"),
            format!("tuple of {len} items is generated as a list of its `items` schema (or of any JSON value)"),
        );
    }
    if let Some(Value::Array(_)) = obj.get("items") {
        obj.remove("items");
        diags.warning(
            child(pointer, "items"),
            "array-form `items` is generated as a list of any JSON value",
        );
    }
    for key in [
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependentRequired",
        "unevaluatedItems",
        "contains",
        "propertyNames",
        "$defs",
        "definitions",
        "multipleOf",
    ] {
        if obj.remove(key).is_some() {
            diags.warning(
                child(pointer, key),
                format!("`{key}` is not enforced by generated code"),
            );
        }
    }
    if let Some(patterns) = obj.remove("patternProperties") {
        let single = patterns
            .as_object()
            .filter(|m| m.len() == 1)
            .and_then(|m| m.values().next().cloned());
        match single {
            Some(schema) if !obj.contains_key("additionalProperties") => {
                obj.insert("additionalProperties".into(), schema);
                diags.warning(
                    child(pointer, "patternProperties"),
                    "generated as a map; key patterns are not checked",
                );
            }
            _ => diags.warning(
                child(pointer, "patternProperties"),
                "`patternProperties` is not enforced by generated code",
            ),
        }
    }
    if let Some(unevaluated) = obj.remove("unevaluatedProperties")
        && !obj.contains_key("additionalProperties")
    {
        obj.insert("additionalProperties".into(), unevaluated);
    }
}

fn lower_children(obj: &mut Map<String, Value>, pointer: &str, diags: &mut Diagnostics) {
    if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
        let props_pointer = child(pointer, "properties");
        for (name, prop) in props.iter_mut() {
            lower_schema(prop, &child(&props_pointer, name), diags);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        match obj.get_mut(key) {
            Some(Value::Bool(_)) if key == "additionalProperties" => {}
            Some(sub) => lower_schema(sub, &child(pointer, key), diags),
            None => {}
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(items) = obj.get_mut(key).and_then(Value::as_array_mut) {
            for (i, sub) in items.iter_mut().enumerate() {
                lower_schema(sub, &format!("{pointer}/{key}/{i}"), diags);
            }
        }
    }
}

/// A `oneOf`/`anyOf` branch that only admits null makes the parent nullable instead.
fn lower_null_branches(obj: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(items)) = obj.get_mut(key) else {
            continue;
        };
        let before = items.len();
        items.retain(|branch| !is_null_only(branch));
        if items.len() != before {
            obj.insert("nullable".into(), json!(true));
        }
    }
}

fn is_null_only(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return false;
    };
    if obj.get(NULL_MARKER) == Some(&json!(true)) {
        return true;
    }
    // The schemars idiom: a branch holding nothing but `nullable: true` (and maybe a description).
    obj.get("nullable") == Some(&json!(true))
        && obj
            .keys()
            .all(|k| matches!(k.as_str(), "nullable" | "description" | "title"))
        || obj.get("enum") == Some(&json!([null]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(schema: Value) -> (Value, Diagnostics) {
        let mut diags = Diagnostics::default();
        let mut schema = schema;
        lower_schema(&mut schema, "/s", &mut diags);
        (schema, diags)
    }

    #[test]
    fn constraints_nothing_enforces_are_reported() {
        let (_, d) = lower(json!({"type": "integer", "multipleOf": 5}));
        let pointers: Vec<&str> = d.0.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(pointers, ["/s/multipleOf"]);
    }

    #[test]
    fn type_array_with_null_becomes_nullable() {
        let (s, d) = lower(json!({"type": ["string", "null"], "format": "uuid"}));
        assert_eq!(
            s,
            json!({"type": "string", "format": "uuid", "nullable": true})
        );
        assert!(d.0.is_empty());
    }

    #[test]
    fn null_first_in_type_array_is_the_same() {
        let (s, _) = lower(json!({"type": ["null", "object"], "properties": {}}));
        assert_eq!(
            s,
            json!({"type": "object", "properties": {}, "nullable": true})
        );
    }

    #[test]
    fn single_element_type_array_is_unwrapped() {
        let (s, _) = lower(json!({"type": ["integer"]}));
        assert_eq!(s, json!({"type": "integer"}));
    }

    #[test]
    fn null_type_alone_is_marked() {
        let (s, _) = lower(json!({"type": "null"}));
        assert_eq!(s, json!({NULL_MARKER: true}));
    }

    #[test]
    fn null_branch_of_one_of_makes_parent_nullable() {
        let (s, _) =
            lower(json!({"oneOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]}));
        assert_eq!(
            s,
            json!({"oneOf": [{"$ref": "#/components/schemas/A"}], "nullable": true})
        );
    }

    #[test]
    fn schemars_nullable_branch_of_any_of_makes_parent_nullable() {
        let (s, _) =
            lower(json!({"anyOf": [{"$ref": "#/components/schemas/A"}, {"nullable": true}]}));
        assert_eq!(
            s,
            json!({"anyOf": [{"$ref": "#/components/schemas/A"}], "nullable": true})
        );
    }

    #[test]
    fn numeric_string_union_keeps_number_and_moves_pattern() {
        let (s, _) = lower(json!({
            "type": ["number", "string", "null"], "format": "double",
            "pattern": "^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?$"
        }));
        assert_eq!(
            s,
            json!({"type": "number", "format": "double", "nullable": true,
                   NUMERIC_STRING_PATTERN: "^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?$"})
        );
    }

    #[test]
    fn integer_string_union_without_pattern_is_a_real_union() {
        let (s, _) = lower(json!({"type": ["string", "integer"], "minLength": 1, "minimum": 0}));
        assert_eq!(
            s,
            json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]})
        );
    }

    #[test]
    fn multi_type_union_splits_enum_values_by_type() {
        let (s, _) =
            lower(json!({"type": ["string", "number", "boolean"], "enum": ["a", 1.5, true]}));
        assert_eq!(
            s,
            json!({"anyOf": [
                {"type": "string", "enum": ["a"]},
                {"type": "number", "enum": [1.5]},
                {"type": "boolean", "enum": [true]}
            ]})
        );
    }

    #[test]
    fn const_becomes_single_value_enum_with_inferred_type() {
        let (s, _) = lower(json!({"const": "Polygon"}));
        assert_eq!(s, json!({"type": "string", "enum": ["Polygon"]}));
        let (s, _) = lower(json!({"title": "GUILD_TEXT", "const": 0}));
        assert_eq!(
            s,
            json!({"title": "GUILD_TEXT", "type": "integer", "enum": [0]})
        );
    }

    #[test]
    fn typeless_schemas_get_the_type_their_keywords_say() {
        let (s, _) = lower(json!({"format": "int32", "pattern": "^-?(?:0|[1-9]\\d*)$"}));
        assert_eq!(
            s,
            json!({"type": "integer", "format": "int32", NUMERIC_STRING_PATTERN: "^-?(?:0|[1-9]\\d*)$"})
        );
        let (s, _) = lower(json!({"format": "double"}));
        assert_eq!(s, json!({"type": "number", "format": "double"}));
        let (s, _) = lower(json!({"minimum": 0, "nullable": true}));
        assert_eq!(s, json!({"type": "number", "minimum": 0, "nullable": true}));
        let (s, _) = lower(json!({"format": "date-time"}));
        assert_eq!(s, json!({"type": "string", "format": "date-time"}));
        let (s, _) = lower(json!({"maxLength": 3}));
        assert_eq!(s, json!({"type": "string", "maxLength": 3}));
        // Nothing to go by, or a shape of its own: unchanged.
        for schema in [
            json!({"description": "anything"}),
            json!({"nullable": true}),
            json!({"enum": ["a"], "maxLength": 3}),
            json!({"allOf": [{"$ref": "#/components/schemas/A"}], "minimum": 1}),
            json!({"properties": {}, "minProperties": 1}),
        ] {
            assert_eq!(lower(schema.clone()).0, schema);
        }
    }

    #[test]
    fn examples_become_example() {
        let (s, _) = lower(json!({"type": "string", "examples": ["a", "b"]}));
        assert_eq!(s, json!({"type": "string", "example": "a"}));
    }

    #[test]
    fn numeric_exclusive_bounds_become_3_0_booleans() {
        let (s, _) =
            lower(json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10}));
        assert_eq!(
            s,
            json!({"type": "number", "minimum": 0, "exclusiveMinimum": true,
                   "maximum": 10, "exclusiveMaximum": true})
        );
    }

    #[test]
    fn exclusive_bound_weaker_than_inclusive_one_is_dropped() {
        let (s, _) = lower(json!({"type": "integer", "minimum": 5, "exclusiveMinimum": 1}));
        assert_eq!(s, json!({"type": "integer", "minimum": 5}));
    }

    #[test]
    fn boolean_exclusive_bounds_of_3_0_are_untouched() {
        let (s, _) = lower(json!({"type": "number", "minimum": 0, "exclusiveMinimum": true}));
        assert_eq!(
            s,
            json!({"type": "number", "minimum": 0, "exclusiveMinimum": true})
        );
    }

    #[test]
    fn ref_with_siblings_becomes_all_of() {
        let (s, _) = lower(json!({"$ref": "#/components/schemas/A", "description": "the a"}));
        assert_eq!(
            s,
            json!({"description": "the a", "allOf": [{"$ref": "#/components/schemas/A"}]})
        );
    }

    #[test]
    fn plain_ref_is_untouched() {
        let (s, _) = lower(json!({"$ref": "#/components/schemas/A"}));
        assert_eq!(s, json!({"$ref": "#/components/schemas/A"}));
    }

    #[test]
    fn boolean_schemas_become_objects() {
        assert_eq!(lower(json!(true)).0, json!({}));
        assert_eq!(lower(json!(false)).0, json!({"not": {}}));
        let (s, _) = lower(json!({"type": "object", "additionalProperties": false}));
        assert_eq!(s, json!({"type": "object", "additionalProperties": false}));
    }

    #[test]
    fn nested_schemas_are_lowered_with_their_pointer() {
        let (s, d) = lower(json!({
            "type": "object",
            "properties": {"a": {"type": ["string", "null"]}, "t": {"prefixItems": [{}], "type": "array"}}
        }));
        assert_eq!(
            s["properties"]["a"],
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(d.0.len(), 1);
        assert_eq!(d.0[0].pointer, "/s/properties/t/prefixItems");
    }

    #[test]
    fn malformed_keywords_are_errors_with_a_pointer() {
        let (_, d) = lower(
            json!({"type": "object", "properties": {"x": {"type": ["string", "integer"], "enum": 5}}}),
        );
        assert!(d.has_errors());
        assert_eq!(d.0[0].pointer, "/s/properties/x/enum");
        let (_, d) = lower(json!({"type": "strin"}));
        assert_eq!(d.0[0].pointer, "/s/type");
    }

    #[test]
    fn property_name_patterns_become_key_patterns() {
        let (s, d) = lower(
            json!({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"type": "string"}}),
        );
        assert_eq!(s[KEY_PATTERN], "^[a-z]+$");
        assert!(d.0.is_empty());
        let (_, d) = lower(json!({"type": "object", "propertyNames": {"maxLength": 3}}));
        assert_eq!(d.0[0].pointer, "/s/propertyNames");
    }

    #[test]
    fn swagger_2_is_rejected_with_a_pointer() {
        let mut doc = json!({"swagger": "2.0"});
        let mut diags = Diagnostics::default();
        lower_document(&mut doc, &mut diags);
        assert_eq!(diags.0[0].pointer, "/swagger");
        assert!(diags.has_errors());
    }

    #[test]
    fn a_license_identifier_is_kept_as_an_extension() {
        let mut doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1",
            "license": {"name": "Apache 2.0", "identifier": "Apache-2.0"}}});
        let mut diags = Diagnostics::default();
        lower_document(&mut doc, &mut diags);
        assert_eq!(
            doc["info"]["license"],
            json!({"name": "Apache 2.0", LICENSE_IDENTIFIER: "Apache-2.0"})
        );
        let openapi = crate::load::to_openapi(doc).unwrap();
        let api = crate::build::build(&openapi, &mut diags);
        assert_eq!(api.publisher.license.as_deref(), Some("Apache-2.0"));
    }

    #[test]
    fn webhooks_are_kept_aside_lowered_and_paths_added() {
        let mut doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "webhooks": {"ev": {"post": {"requestBody": {"content": {"application/json":
                {"schema": {"type": ["string", "null"]}}}}, "responses": {"200": {"description": "ok"}}}}}});
        let mut diags = Diagnostics::default();
        lower_document(&mut doc, &mut diags);
        assert_eq!(doc["paths"], json!({}));
        assert!(doc.get("webhooks").is_none());
        let schema =
            &doc[WEBHOOKS]["ev"]["post"]["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(schema, &json!({"type": "string", "nullable": true}));
        assert!(diags.0.is_empty());
    }

    #[test]
    fn callbacks_are_resolved_and_kept_on_their_operation() {
        let mut doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/s": {"post": {"responses": {"200": {"description": "ok"}},
                "callbacks": {"a": {"$ref": "#/components/callbacks/A"}, "b": {"$ref": "#/components/callbacks/Missing"}}}}},
            "components": {"callbacks": {"A": {"{$request.body#/url}": {"post": {"responses": {"200": {"description": "ok"}}}}}}}});
        let mut diags = Diagnostics::default();
        lower_document(&mut doc, &mut diags);
        let callbacks = &doc["paths"]["/s"]["post"][CALLBACKS];
        assert!(callbacks["a"]["{$request.body#/url}"]["post"].is_object());
        assert!(callbacks.get("b").is_none());
        assert_eq!(diags.0.len(), 1);
        assert_eq!(diags.0[0].pointer, "/paths/~1s/post/callbacks/b");
        assert!(doc["components"].get("callbacks").is_none());
    }
}
