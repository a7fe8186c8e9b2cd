//! The contract the service serves: the OpenAPI document it was generated from, as YAML and JSON,
//! and `/docs`, a page rendered here from that document so that reading it loads nothing from
//! the internet (no scripts at all).

use crate::web::{escape, page_headers};
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use pulldown_cmark::{Options, Parser, html::push_html};
use serde_json::Value;
use std::fmt::Write;
use std::sync::LazyLock;

/// The spec the generated crates in `generated/` were made from (the drift check keeps them equal).
pub const SPEC_YAML: &str = include_str!("../../spec/asset-alerting.yaml");

static SPEC: LazyLock<Value> =
    LazyLock::new(|| serde_yaml::from_str(SPEC_YAML).expect("the embedded spec is valid YAML"));
static SPEC_JSON: LazyLock<String> =
    LazyLock::new(|| serde_json::to_string_pretty(&*SPEC).expect("JSON values serialize"));
static DOCS: LazyLock<String> = LazyLock::new(|| render(&SPEC));

fn with_type(body: impl IntoResponse, media: &'static str) -> Response {
    let mut response = body.into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    response
}

pub async fn openapi_yaml() -> Response {
    with_type(SPEC_YAML, "application/yaml")
}

pub async fn openapi_json() -> Response {
    with_type(SPEC_JSON.as_str(), "application/json")
}

pub async fn docs() -> Response {
    page_headers(Html(DOCS.as_str()).into_response())
}

fn markdown(text: &str) -> String {
    let mut html = String::new();
    // Raw HTML in the spec is shown as text, not interpreted.
    let events = Parser::new_ext(text, Options::ENABLE_TABLES).map(|event| match event {
        pulldown_cmark::Event::Html(raw) | pulldown_cmark::Event::InlineHtml(raw) => {
            pulldown_cmark::Event::Text(raw)
        }
        other => other,
    });
    push_html(&mut html, events);
    html
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `#/components/schemas/Asset` → a link to the schema's section.
fn schema_link(reference: &str) -> String {
    let name = reference.rsplit('/').next().unwrap_or(reference);
    format!("<a href=\"#schema-{0}\">{0}</a>", escape(name))
}

/// A short, readable type: `string (uuid)`, `array of Asset`, `one of A, null`.
fn type_of(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return schema_link(reference);
    }
    for (key, word) in [
        ("oneOf", "one of"),
        ("anyOf", "any of"),
        ("allOf", "all of"),
    ] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let parts: Vec<String> = branches.iter().map(type_of).collect();
            return format!("{word} {}", parts.join(", "));
        }
    }
    let types = match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => vec!["any".to_owned()],
    };
    let mut text = types
        .iter()
        .map(|t| match (t.as_str(), schema.get("items")) {
            ("array", Some(items)) => format!("array of {}", type_of(items)),
            _ => escape(t),
        })
        .collect::<Vec<_>>()
        .join(" or ");
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        let _ = write!(text, " ({})", escape(format));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(|v| escape(&v.to_string())).collect();
        let _ = write!(text, ": {}", values.join(", "));
    }
    text
}

/// A parameter's `$ref` resolved against `components/parameters`.
fn resolve<'a>(spec: &'a Value, item: &'a Value) -> &'a Value {
    match item.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix("#/")
            .and_then(|path| spec.pointer(&format!("/{path}")))
            .unwrap_or(item),
        None => item,
    }
}

fn operation(out: &mut String, spec: &Value, method: &str, path: &str, op: &Value) {
    let id = str_of(op, "operationId");
    let _ = write!(
        out,
        "<section class=op id=\"op-{id}\"><h3><span class=\"method {method}\">{}</span> <code>{}</code></h3><p><b>{}</b> <small>{}</small></p>{}",
        method.to_uppercase(),
        escape(path),
        escape(str_of(op, "summary")),
        escape(id),
        markdown(str_of(op, "description")),
    );
    let parameters: Vec<&Value> = op
        .get("parameters")
        .and_then(Value::as_array)
        .map(|ps| ps.iter().map(|p| resolve(spec, p)).collect())
        .unwrap_or_default();
    if !parameters.is_empty() {
        out.push_str(
            "<table><tr><th>parameter</th><th>in</th><th>type</th><th>description</th></tr>",
        );
        for p in parameters {
            let required = if p.get("required").and_then(Value::as_bool) == Some(true) {
                " <i>required</i>"
            } else {
                ""
            };
            let _ = write!(
                out,
                "<tr><td><code>{}</code>{required}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(str_of(p, "name")),
                escape(str_of(p, "in")),
                p.get("schema").map(type_of).unwrap_or_default(),
                escape(str_of(p, "description")),
            );
        }
        out.push_str("</table>");
    }
    if let Some(content) = op
        .pointer("/requestBody/content")
        .and_then(Value::as_object)
    {
        for (media, body) in content {
            let _ = write!(
                out,
                "<p>Request body (<code>{}</code>): {}</p>",
                escape(media),
                body.get("schema").map(type_of).unwrap_or_default()
            );
        }
    }
    if let Some(responses) = op.get("responses").and_then(Value::as_object) {
        out.push_str("<table><tr><th>status</th><th>body</th><th>description</th></tr>");
        for (status, response) in responses {
            let response = resolve(spec, response);
            let body = response
                .get("content")
                .and_then(Value::as_object)
                .and_then(|c| c.values().next())
                .and_then(|m| m.get("schema"))
                .map(type_of)
                .unwrap_or_default();
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{body}</td><td>{}</td></tr>",
                escape(status),
                escape(str_of(response, "description"))
            );
        }
        out.push_str("</table>");
    }
    out.push_str("</section>");
}

fn schema(out: &mut String, name: &str, schema: &Value) {
    let _ = write!(
        out,
        "<section class=schema id=\"schema-{0}\"><h3>{0}</h3>{1}",
        escape(name),
        markdown(str_of(schema, "description"))
    );
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match schema.get("properties").and_then(Value::as_object) {
        Some(properties) => {
            out.push_str("<table><tr><th>property</th><th>type</th><th>description</th></tr>");
            for (property, p) in properties {
                let mut marks = String::new();
                if required.contains(&property.as_str()) {
                    marks.push_str(" <i>required</i>");
                }
                if p.get("readOnly").and_then(Value::as_bool) == Some(true) {
                    marks.push_str(" <i>read-only</i>");
                }
                let _ = write!(
                    out,
                    "<tr><td><code>{}</code>{marks}</td><td>{}</td><td>{}</td></tr>",
                    escape(property),
                    type_of(p),
                    escape(str_of(p, "description"))
                );
            }
            out.push_str("</table>");
            if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                out.push_str("<p><small>No other properties are accepted.</small></p>");
            }
        }
        None => {
            let _ = write!(out, "<p>Type: {}</p>", type_of(schema));
        }
    }
    out.push_str("</section>");
}

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// The whole page: the description, operations by tag, then the schemas.
fn render(spec: &Value) -> String {
    let title = escape(
        spec.pointer("/info/title")
            .and_then(Value::as_str)
            .unwrap_or("API"),
    );
    let version = escape(str_of(&spec["info"], "version"));
    let mut body = format!(
        "<h1>{title} <small>{version}</small></h1><p>The contract as <a href=\"/openapi.yaml\">YAML</a> or <a href=\"/openapi.json\">JSON</a>.</p>"
    );
    let operations: Vec<(&str, &str, &Value)> = spec
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .flat_map(|(path, item)| {
            METHODS
                .iter()
                .filter_map(move |m| item.get(*m).map(|op| (path.as_str(), *m, op)))
        })
        .collect();
    let tags: Vec<&Value> = spec
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    body.push_str("<nav><ul>");
    for tag in &tags {
        let name = escape(str_of(tag, "name"));
        let _ = write!(body, "<li><a href=\"#tag-{name}\">{name}</a></li>");
    }
    body.push_str("<li><a href=\"#schemas\">schemas</a></li></ul></nav>");
    body.push_str(&markdown(str_of(&spec["info"], "description")));
    for tag in &tags {
        let name = str_of(tag, "name");
        let _ = write!(
            body,
            "<h2 id=\"tag-{0}\">{0}</h2>{1}",
            escape(name),
            markdown(str_of(tag, "description"))
        );
        for (path, method, op) in &operations {
            let tagged = op
                .get("tags")
                .and_then(Value::as_array)
                .is_some_and(|ts| ts.iter().any(|t| t.as_str() == Some(name)));
            if tagged {
                operation(&mut body, spec, method, path, op);
            }
        }
    }
    body.push_str("<h2 id=\"schemas\">Schemas</h2>");
    if let Some(schemas) = spec
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    {
        for (name, s) in schemas {
            schema(&mut body, name, s);
        }
    }
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content=\"width=device-width, initial-scale=1\"><title>{title}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    )
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430}main{max-width:70rem;margin:0 auto;padding:1rem 1.5rem}\
table{border-collapse:collapse;margin:.5rem 0;width:100%}td,th{border:1px solid #d5dae1;padding:.25rem .5rem;text-align:left;vertical-align:top}\
th{background:#f2f4f7}code{background:#f2f4f7;padding:0 .2rem;border-radius:3px}section{border-top:1px solid #e3e7ec;padding:.5rem 0}\
.method{display:inline-block;min-width:4.5rem;text-align:center;color:#fff;border-radius:3px;padding:0 .4rem;font-size:.85em}\
.get{background:#2f7d4a}.post{background:#245fa6}.put{background:#a86b12}.delete{background:#a8322d}.patch{background:#6b4aa6}\
nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_shows_every_operation_and_schema_of_the_spec() {
        let page = render(&SPEC);
        let operations = SPEC["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| METHODS.iter().filter_map(|m| item.get(*m)))
            .count();
        assert_eq!(page.matches("<section class=op").count(), operations);
        for name in SPEC["components"]["schemas"].as_object().unwrap().keys() {
            assert!(page.contains(&format!("id=\"schema-{name}\"")), "{name}");
        }
        assert!(!page.contains("<script"), "no scripts");
        assert!(
            page.contains("<table>"),
            "the description's tables are rendered"
        );
    }

    #[test]
    fn markdown_cannot_inject_markup() {
        let html = markdown("a <script>alert(1)</script> b");
        assert!(!html.contains("<script>"), "{html}");
    }
}
