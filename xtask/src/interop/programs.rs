//! The two programs the interop check compiles per document, written as text from the IR and the
//! generated crates:
//! - `driver`: calls every operation of the generated client once, with arguments built from
//!   samples of their schemas (`serde_json::from_str::<Type>`), through a recording proxy in
//!   front of the mock server, and prints one JSON line per operation (what was sent, what came
//!   back, and whether the client decoded it);
//! - `stub`: implements the generated server's trait, answering every operation with its first
//!   documented response built from samples, for schemathesis.

use super::samples::Sampler;
use openapi_gen::emit::TypePrinter;
use openapi_gen::ir::{Api, Media, Operation, ParamLocation, Primitive, SecurityKind, TypeRef};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Builder methods a setter may not take (the client's reserved names get a `_param` suffix).
const RESERVED_SETTERS: &[&str] = &[
    "send",
    "send_full",
    "exchange",
    "into_stream",
    "into_future",
    "clone",
    "fmt",
    "body",
];

/// The program crate's `Cargo.toml`: both binaries, over the document's client and server.
pub fn manifest(doc: &str) -> String {
    format!(
        r#"[package]
name = "{doc}-interop"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
client = {{ package = "{doc}-client", path = "../client" }}
server = {{ package = "{doc}-server", path = "../server" }}
# The types a parameter may name (`::uuid::Uuid`, `::chrono::NaiveDate`), as the client does.
chrono = {{ version = "0.4", default-features = false }}
serde = "1"
serde_json = "1"
tokio = {{ version = "1", features = ["macros", "net", "rt-multi-thread", "time"] }}
uuid = "1"
"#
    )
}

fn literal(value: &serde_json::Value) -> String {
    format!("{:?}", value.to_string())
}

fn printed(tokens: proc_macro2::TokenStream) -> String {
    tokens.to_string()
}

/// The driver's source.
pub fn driver(api: &Api) -> String {
    let printer = TypePrinter::new(&api.types, quote::quote! { client::models:: });
    let sampler = Sampler::new(api);
    let mut out = String::from(DRIVER_HEAD);
    out.push_str(&client_builder(api));
    let _ = writeln!(out, "const OPERATIONS: &[&str] = &[");
    for op in &api.operations {
        let _ = writeln!(out, "    {:?},", op.id);
    }
    out.push_str("];\n\nasync fn call(index: usize, c: &client::Client) -> Result<Outcome, String> {\n    match index {\n");
    for (n, _) in api.operations.iter().enumerate() {
        let _ = writeln!(out, "        {n} => op_{n}(c).await,");
    }
    out.push_str("        _ => Err(\"no such operation\".into()),\n    }\n}\n");
    for (n, op) in api.operations.iter().enumerate() {
        out.push_str(&operation_call(n, op, api, &printer, &sampler));
    }
    out
}

/// `fn build_client`: a bearer token for the operations that take one, and the header or cookie of
/// every API key and Basic scheme (as a default header, since the client leaves them to the caller).
fn client_builder(api: &Api) -> String {
    let mut out = String::from(
        "fn build_client(base: &str) -> client::Client {\n    client::Client::builder(base)\n        .retry(client::RetryPolicy::none())\n        .timeout(std::time::Duration::from_secs(20))\n        .bearer_token(\"interop-token\")\n",
    );
    let mut cookies = Vec::new();
    for scheme in &api.security_schemes {
        match &scheme.kind {
            SecurityKind::ApiKey {
                location: ParamLocation::Header,
                name,
            } => {
                let _ = writeln!(out, "        .default_header({name:?}, \"interop-key\")");
            }
            SecurityKind::ApiKey {
                location: ParamLocation::Cookie,
                name,
            } => cookies.push(format!("{name}=interop-key")),
            SecurityKind::Basic => {
                // interop:interop, used where no bearer token replaces it.
                out.push_str(
                    "        .default_header(\"Authorization\", \"Basic aW50ZXJvcDppbnRlcm9w\")\n",
                );
            }
            _ => {}
        }
    }
    if !cookies.is_empty() {
        let _ = writeln!(
            out,
            "        .default_header(\"Cookie\", {:?})",
            cookies.join("; ")
        );
    }
    out.push_str("        .build()\n        .expect(\"the client builds\")\n}\n\n");
    out
}

fn operation_call(
    n: usize,
    op: &Operation,
    api: &Api,
    printer: &TypePrinter<'_>,
    sampler: &Sampler<'_>,
) -> String {
    let mut args = Vec::new();
    // The client's order: path parameters in path order, then the other required ones, then a
    // required body.
    let mut required: Vec<&openapi_gen::ir::Parameter> = Vec::new();
    for name in op.segments.iter().flat_map(|s| s.params()) {
        if let Some(p) = op
            .parameters
            .iter()
            .find(|p| p.location == ParamLocation::Path && p.wire_name == name)
            && !required.iter().any(|r| std::ptr::eq(*r, p))
        {
            required.push(p);
        }
    }
    required.extend(
        op.parameters
            .iter()
            .filter(|p| p.location != ParamLocation::Path && p.required),
    );
    for p in &required {
        let value = sampler.value(&p.ty, &p.constraints, p.default.as_ref());
        let ty = printed(printer.rust_type(&p.ty));
        args.push(format!("arg::<{ty}>({})?", literal(&value)));
    }
    let body = op.body.as_ref().map(|b| {
        let sample = sampler.value(&b.ty, &Default::default(), None);
        match &b.media {
            Media::Json | Media::Form | Media::Text => {
                let ty = match b.media {
                    Media::Text => "String".to_owned(),
                    _ => printed(printer.rust_type(&b.ty)),
                };
                format!("arg::<{ty}>({})?", literal(&sample))
            }
            Media::Multipart if api.multipart_fields(&b.ty).is_some() => {
                let ty = printed(printer.rust_type(&b.ty));
                format!("arg::<{ty}>({})?", literal(&sample))
            }
            Media::Multipart => "client::reqwest::multipart::Form::new()".to_owned(),
            Media::Binary(media) if media.contains('*') => {
                "client::codec::Binary { content_type: Some(\"application/octet-stream\".into()), bytes: b\"hello\".to_vec() }".to_owned()
            }
            Media::Binary(_) => "b\"hello\".to_vec()".to_owned(),
        }
    });
    if let Some((body, true)) = body.as_ref().zip(op.body.as_ref().map(|b| b.required)) {
        args.push(body.clone());
    }
    let mut chain = format!("c.{}({})", op.name, args.join(", "));
    for p in op
        .parameters
        .iter()
        .filter(|p| p.location != ParamLocation::Path && !p.required)
    {
        let setter = if RESERVED_SETTERS.contains(&p.name.as_str()) {
            format!("{}_param", p.name)
        } else {
            p.name.clone()
        };
        let stripped = p.ty.strip_nullable();
        let value = sampler.value(stripped, &p.constraints, p.default.as_ref());
        let ty = printed(printer.rust_type(stripped));
        let _ = write!(
            chain,
            "\n        .{setter}(arg::<{ty}>({})?)",
            literal(&value)
        );
    }
    if let Some((body, false)) = body.as_ref().zip(op.body.as_ref().map(|b| b.required)) {
        let _ = write!(chain, "\n        .body({body})");
    }
    format!(
        "\n#[allow(deprecated)]\nasync fn op_{n}(c: &client::Client) -> Result<Outcome, String> {{\n    let result = {chain}\n        .await;\n    Ok(outcome(result))\n}}\n"
    )
}

const DRIVER_HEAD: &str = r#"//! Generated by `cargo xtask interop`: calls every operation of the client once through a
//! recording proxy. Arguments: `mode=upstream` (`static=http://127.0.0.1:4010`), then the index of
//! the first operation to call (0 without).

use server::axum;
use std::sync::{Arc, Mutex};

fn arg<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
    serde_json::from_str(json).map_err(|e| format!("sample {json} does not decode: {e}"))
}

/// What the client made of the answer.
struct Outcome {
    kind: &'static str,
    detail: String,
}

fn outcome<T, E: std::fmt::Debug>(result: Result<T, client::Error<E>>) -> Outcome {
    let (kind, detail) = match &result {
        Ok(_) => ("ok", String::new()),
        Err(client::Error::Api { status, .. }) => ("api", status.to_string()),
        Err(client::Error::Decode { status, source, .. }) => ("decode", format!("{status}: {source}")),
        Err(client::Error::UnexpectedStatus { status, .. }) => ("unexpected_status", status.to_string()),
        Err(client::Error::Transport(e)) => ("transport", format!("{e:?}")),
        Err(client::Error::Auth(e)) => ("auth", e.to_string()),
        Err(client::Error::Service(e)) => ("service", e.to_string()),
        Err(client::Error::InvalidPath { path }) => ("invalid_path", path.clone()),
    };
    Outcome { kind, detail }
}

/// One request as it went through the proxy.
#[derive(Default, Clone)]
struct Exchange {
    request: String,
    request_headers: Vec<(String, String)>,
    request_body: String,
    status: u16,
    violations: String,
    response_type: String,
    response_body: String,
}

struct Proxy {
    upstream: String,
    http: client::reqwest::Client,
    log: Mutex<Vec<Exchange>>,
}

fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.chars().take(1500).collect()
}

async fn forward(
    axum::extract::State(proxy): axum::extract::State<Arc<Proxy>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 16 << 20).await.unwrap_or_default();
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let mut exchange = Exchange {
        request: format!("{} {target}", parts.method),
        request_body: shown(&body),
        ..Exchange::default()
    };
    let mut upstream = proxy.http.request(parts.method.clone(), format!("{}{target}", proxy.upstream));
    for (name, value) in &parts.headers {
        if name == "host" || name == "content-length" {
            continue;
        }
        exchange.request_headers.push((name.to_string(), value.to_str().unwrap_or("?").to_owned()));
        upstream = upstream.header(name, value);
    }
    let response = match upstream.body(body.to_vec()).send().await {
        Ok(response) => response,
        Err(e) => {
            exchange.status = 599;
            exchange.response_body = format!("proxy: {e}");
            proxy.log.lock().unwrap().push(exchange);
            return (axum::http::StatusCode::BAD_GATEWAY, "proxy: upstream failed").into_response();
        }
    };
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap_or_default();
    exchange.status = status.as_u16();
    exchange.violations = headers.get("sl-violations").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    exchange.response_type = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    exchange.response_body = shown(&bytes);
    proxy.log.lock().unwrap().push(exchange);
    let mut answer = axum::response::Response::new(axum::body::Body::from(bytes));
    *answer.status_mut() = status;
    for (name, value) in &headers {
        if name != "content-length" && name != "transfer-encoding" && name != "connection" {
            answer.headers_mut().append(name, value.clone());
        }
    }
    answer
}

fn json_line(mode: &str, operation: &str, outcome: &Result<Outcome, String>, exchanges: &[Exchange]) -> String {
    let last = exchanges.last().cloned().unwrap_or_default();
    let (kind, detail) = match outcome {
        Ok(o) => (o.kind.to_owned(), o.detail.clone()),
        Err(e) => ("not_sent".to_owned(), e.clone()),
    };
    serde_json::json!({
        "mode": mode,
        "operation": operation,
        "sent": !exchanges.is_empty(),
        "outcome": kind,
        "detail": detail,
        "request": last.request,
        "request_headers": last.request_headers,
        "request_body": last.request_body,
        "status": last.status,
        "violations": last.violations,
        "response_type": last.response_type,
        "response_body": last.response_body,
    })
    .to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let from: usize = args.get(1).map_or(0, |n| n.parse().expect("a start index"));
    {
        let (mode, upstream) = args[0].split_once('=').expect("mode=upstream");
        let proxy = Arc::new(Proxy {
            upstream: upstream.trim_end_matches('/').to_owned(),
            http: client::reqwest::Client::new(),
            log: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new().fallback(forward).with_state(proxy.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("proxy serves") });
        let c = build_client(&base);
        for (index, operation) in OPERATIONS.iter().enumerate().skip(from) {
            proxy.log.lock().unwrap().clear();
            let outcome = match tokio::time::timeout(std::time::Duration::from_secs(30), call(index, &c)).await {
                Ok(outcome) => outcome,
                Err(_) => Ok(Outcome { kind: "timeout", detail: String::new() }),
            };
            let exchanges = std::mem::take(&mut *proxy.log.lock().unwrap());
            println!("{}", json_line(mode, operation, &outcome, &exchanges));
            // The mock server died on this request: the harness restarts it and goes on after it.
            if exchanges.iter().any(|e| e.status == 599) {
                break;
            }
        }
    }
}

"#;

/// The stub server's source: the trait of `api_rs` (the generated server's `src/api.rs`)
/// implemented with the first variant of each response enum of `responses_rs`, bodies and
/// headers from samples of the types they hold (found by their printed Rust type).
pub fn stub(api: &Api, api_rs: &str, responses_rs: &str) -> Result<String, String> {
    let samples = type_samples(api);
    let sample_of = |ty: &str| -> String {
        let key: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        if key == "StatusCode" || key == "axum::http::StatusCode" {
            return "StatusCode::OK".to_owned();
        }
        if key == "Bytes" {
            return "server::axum::body::Bytes::from_static(b\"hello\")".to_owned();
        }
        if key.starts_with("Option<") {
            return "None".to_owned();
        }
        let value = samples
            .get(&key)
            .cloned()
            .unwrap_or_else(|| serde_json::json!({}));
        format!("sample::<{ty}>({})", literal(&value))
    };
    // The router's message in the error body's message field, so failures say why.
    let rejection_body = |ty: &str| -> String {
        let sample = sample_of(ty);
        match sample.strip_prefix(&format!("sample::<{ty}>(")) {
            Some(json) => format!(
                "with_message::<{ty}>({}, &_rejection.message)",
                json.trim_end_matches(')')
            ),
            None => sample,
        }
    };
    let trait_start = api_rs
        .find("pub trait ")
        .ok_or("no trait in the server's api.rs")?;
    let header_end = trait_start
        + api_rs[trait_start..]
            .find('{')
            .ok_or("trait without body")?;
    let name = api_rs[trait_start + "pub trait ".len()..header_end]
        .split(':')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    let body = &api_rs[header_end + 1..api_rs.rfind('}').ok_or("unclosed trait")?];
    let code: String = body
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("///") && !t.starts_with("#[doc")
        })
        .collect::<Vec<_>>()
        .join("\n");
    // The stub implements every operation: the crates build with their default features (every
    // operation group), so a method's `#[cfg(feature = ...)]` holds.
    let code = without_cfg_attributes(&code);
    let enums = response_variants(responses_rs);
    let mut items = Vec::new();
    for item in code.split(';').map(str::trim).filter(|i| !i.is_empty()) {
        if item.starts_with("type Principal") {
            items.push("    type Principal = ();".to_owned());
            continue;
        }
        let Some(rest) = item.strip_prefix("fn ") else {
            return Err(format!("unexpected trait item: {item}"));
        };
        let close = rest
            .rfind(") ->")
            .ok_or_else(|| format!("no return type: {item}"))?;
        let signature = rest[..close + 1]
            .replace("request:", "_request:")
            .replace("rejection:", "_rejection:")
            .replace("principal:", "_principal:")
            .replace("bearer_token:", "_bearer_token:");
        let returns = rest[close + 4..].trim();
        let value = match returns
            .strip_prefix("impl Future<Output = ")
            .and_then(|r| r.strip_suffix("> + Send"))
        {
            Some(output) if output.starts_with("Result<Self::Principal") => "Ok(())".to_owned(),
            Some(output) => {
                let (variant, fields) = enums
                    .get(output.trim())
                    .and_then(|all| all.first())
                    .ok_or_else(|| format!("no response enum {output}"))?;
                match fields {
                    Fields::Unit => format!("{output}::{variant}"),
                    Fields::Tuple(types) => format!(
                        "{output}::{variant}({})",
                        types
                            .iter()
                            .map(|t| sample_of(t))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    Fields::Named(fields) => format!(
                        "{output}::{variant} {{ {} }}",
                        fields
                            .iter()
                            .map(|(f, t)| format!("{f}: {}", sample_of(t)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            }
            None => match enums
                .get(returns)
                .and_then(|all| all.iter().find(|(v, _)| v == "Other" || v == "Default"))
            {
                // An operation's own rejection: the router's status, in the error body.
                Some((variant, Fields::Tuple(types))) if types.len() == 2 => {
                    let body = if types[1] == "ErrorMessage" {
                        "ErrorMessage { message: _rejection.message.clone() }".to_owned()
                    } else {
                        rejection_body(&types[1])
                    };
                    format!("{returns}::{variant}(_rejection.status, {body})")
                }
                _ => rejection_body(returns),
            },
        };
        let value = if returns.starts_with("impl Future") {
            format!("async move {{ {value} }}")
        } else {
            value
        };
        items.push(format!(
            "    fn {signature} -> {returns} {{\n        {value}\n    }}"
        ));
    }
    Ok(format!(
        "{STUB_HEAD}\nimpl {name} for Stub {{\n{}\n}}\n",
        items.join("\n\n")
    ))
}

const STUB_HEAD: &str = r#"//! Generated by `cargo xtask interop`: the generated server, answering every operation with its
//! first documented response built from samples. Argument: the address to listen on.
#![allow(unused_imports, dead_code)]

use server::axum::http::StatusCode;
use server::models;
use server::*;
use std::sync::Arc;

fn sample<T: serde::de::DeserializeOwned>(json: &str) -> T {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("sample {json} does not decode: {e}"))
}

/// A sample error body with the router's message in its `message`, `detail`, `title` or
/// `error` property, where it has one.
fn with_message<T: serde::de::DeserializeOwned>(json: &str, message: &str) -> T {
    let mut value: serde_json::Value = serde_json::from_str(json).expect("a JSON sample");
    if let Some(object) = value.as_object_mut() {
        for key in ["message", "detail", "title", "error"] {
            if let Some(slot) = object.get_mut(key).filter(|v| v.is_string()) {
                *slot = serde_json::Value::from(message);
                break;
            }
        }
    }
    serde_json::from_value(value.clone()).unwrap_or_else(|_| sample(json))
}

struct Stub;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:0".into());
    let listener = tokio::net::TcpListener::bind(&address).await.expect("bind");
    println!("listening on {}", listener.local_addr().expect("address"));
    server::axum::serve(listener, server::router(Arc::new(Stub))).await.expect("serves");
}
"#;

#[derive(Clone)]
enum Fields {
    Unit,
    Tuple(Vec<String>),
    Named(Vec<(String, String)>),
}

/// The variants of each `pub enum` of responses.rs, with their fields' types as printed.
fn response_variants(text: &str) -> BTreeMap<String, Vec<(String, Fields)>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = rest.find("\npub enum ") {
        rest = &rest[at + "\npub enum ".len()..];
        let name = rest[..rest.find(' ').unwrap_or(0)].trim().to_owned();
        let Some(open) = rest.find("{\n") else { break };
        let lines: Vec<&str> = rest[open + 2..]
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("///") && !l.starts_with("#["))
            .take_while(|l| *l != "}")
            .collect();
        let mut variants = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            i += 1;
            if let Some(v) = line.strip_suffix(" {") {
                let mut fields = Vec::new();
                while i < lines.len() && !lines[i].starts_with('}') {
                    if let Some((f, t)) = lines[i].split_once(": ") {
                        fields.push((f.to_owned(), t.trim_end_matches(',').to_owned()));
                    }
                    i += 1;
                }
                i += 1;
                variants.push((v.to_owned(), Fields::Named(fields)));
            } else if let Some((v, inner)) = line.split_once('(') {
                let inner = inner.trim_end_matches(',').trim_end_matches(')');
                variants.push((v.to_owned(), Fields::Tuple(split_types(inner))));
            } else if let Some(v) = line.strip_suffix(',') {
                variants.push((v.to_owned(), Fields::Unit));
            }
        }
        if variants.is_empty() {
            continue;
        }
        out.insert(name, variants);
    }
    out
}

/// `StatusCode, models::Received` -> the two types (commas inside `<>` kept).
fn split_types(text: &str) -> Vec<String> {
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, ch) in text.char_indices() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim().to_owned());
    }
    out
}

/// A sample of every type the server's code may print, keyed by the printed type without spaces:
/// `models::Name`, `Vec<models::Name>`, primitives...
fn type_samples(api: &Api) -> BTreeMap<String, serde_json::Value> {
    let printer = TypePrinter::new(&api.types, quote::quote! { models:: });
    let sampler = Sampler::new(api);
    let mut refs: Vec<TypeRef> = api.type_refs().into_iter().cloned().collect();
    refs.extend((0..api.types.len()).map(|i| TypeRef::Named(openapi_gen::ir::TypeId(i))));
    for p in [
        Primitive::String,
        Primitive::Bool,
        Primitive::I32,
        Primitive::I64,
        Primitive::F64,
    ] {
        refs.push(TypeRef::Primitive(p));
    }
    let mut out = BTreeMap::new();
    for ty in refs {
        let key: String = printer
            .rust_type(&ty)
            .to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        out.entry(key)
            .or_insert_with(|| sampler.value(&ty, &Default::default(), None));
    }
    out.insert("Vec<u8>".into(), serde_json::json!([104, 105]));
    out
}

/// `code` without its `#[cfg(...)]` attributes (one may span lines).
fn without_cfg_attributes(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(start) = rest.find("#[cfg(") {
        out.push_str(&rest[..start]);
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest[start..].char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_split_at_top_level_commas() {
        assert_eq!(
            split_types("StatusCode, ::std::collections::BTreeMap<String, models::A>"),
            [
                "StatusCode",
                "::std::collections::BTreeMap<String, models::A>"
            ]
        );
    }

    #[test]
    fn response_enums_give_their_variants() {
        let text = "\npub enum CreateResponse {\n    /// `201`: Created.\n    Created {\n        body: models::Received,\n        /// The `Location` header.\n        location: String,\n        e_tag: Option<String>,\n    },\n    NoContent,\n    Default(StatusCode, models::Problem),\n}\n";
        let enums = response_variants(text);
        let variants = &enums["CreateResponse"];
        assert_eq!(variants.len(), 3);
        match &variants[0] {
            (name, Fields::Named(fields)) => {
                assert_eq!(name, "Created");
                assert_eq!(fields[1], ("location".to_owned(), "String".to_owned()));
                assert_eq!(fields[2].1, "Option<String>");
            }
            _ => panic!("a struct variant"),
        }
        assert!(matches!(&variants[1], (n, Fields::Unit) if n == "NoContent"));
        assert!(matches!(&variants[2], (n, Fields::Tuple(t)) if n == "Default" && t.len() == 2));
    }

    #[test]
    fn cfg_attributes_are_left_out_even_over_lines() {
        let code = "#[cfg(feature = \"a\")]\n    fn a(&self);\n    #[cfg(any(\n        feature = \"b\",\n        feature = \"c\"\n    ))]\n    fn b(&self);";
        assert_eq!(
            super::without_cfg_attributes(code),
            "\n    fn a(&self);\n    \n    fn b(&self);"
        );
    }
}
