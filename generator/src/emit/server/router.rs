//! The axum router: per operation a handler that reads the request (credentials, parameters, body)
//! into its typed form, or answers the rejection with the API's error body (or the operation's own,
//! through its `{op}_rejection` method), then calls the trait.
//!
//! The file is written as text in prettyplease's layout (the readers of requests in `reader`); the
//! dispatchers of mixed segments, whose expressions vary the most, are printed from tokens.

use super::plan::{Need, OpPlan, Plan, is_distinct, mixed_literals};
use super::reader::reader;
use crate::emit::layout::{fits, push_list, push_use_group, struct_literal_breaks};
use crate::emit::{laid_out, print, reprinted};
use crate::ir::Method;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::fmt::Write;

const PATH: &str = "src/router.rs";

/// `router.rs` without its header.
pub fn router_rs(plan: &Plan) -> Result<String, String> {
    let api = plan.trait_name.to_string();
    let has_error = plan.error_body.is_some();
    let mut printed: Vec<TokenStream> = Vec::new();
    // The dispatchers, printed from tokens, looked through for the `use`s they need.
    let mut scanned = TokenStream::new();
    let mut routes = String::new();
    for (path, methods) in &plan.routes {
        let mut chain = Vec::new();
        for (method, indexes) in methods {
            let first = &plan.ops[indexes[0]];
            let handler = if indexes.len() == 1 && !is_distinct(first.op) {
                format!("handle_{}", first.op.name)
            } else {
                let ops: Vec<&OpPlan> = indexes.iter().map(|i| &plan.ops[*i]).collect();
                let name = format_ident!("dispatch_{}", first.op.name);
                let tokens = dispatcher(plan, &name, &ops, has_error);
                scanned.extend(tokens.clone());
                printed.push(tokens);
                name.to_string()
            };
            chain.push(format!("{}({handler}::<A>)", method_name(*method)));
        }
        push_route(&mut routes, &Literal::string(path).to_string(), &chain);
    }
    let turbofish = if has_error { "::<A>" } else { "" };
    let own_rejections = if plan.ops.iter().any(|op| op.rejection.is_some()) {
        ", or the operation's own where the trait has an `{operation}_rejection` method,"
    } else {
        ""
    };
    let router_doc = format!(
        " Routes every operation of {} to `api`. A request that fails to authenticate, parse or validate is \
         answered with the API's error body (see [`Rejection`]){own_rejections} before any operation runs; \
         so are unknown routes (404) and methods (405).",
        plan.api.title
    );
    let mut router = String::new();
    let force = push_doc_attr(&mut router, &router_doc);
    router.push_str(
        "///\n/// Add layers (tracing, timeouts, `DefaultBodyLimit`) to the returned router as usual.\n",
    );
    push_list(
        &mut router,
        "",
        &format!("pub fn router<A: {api}>("),
        &["api: Arc<A>"],
        ") -> Router {",
    );
    let _ = write!(
        router,
        "    Router::new()\n{routes}        .fallback(route_not_found{turbofish})\n        \
         .method_not_allowed_fallback(method_not_allowed{turbofish})\n        .with_state(api)\n}}\n"
    );
    let mut items = vec![text_item(router, force)];
    let has_dispatchers = !printed.is_empty();
    items.extend(printed.into_iter().map(|tokens| print(tokens, PATH)));
    // What the readers' statements name (their field reads' tokens are looked through below).
    let (mut reads_auth, mut reads_params) = (false, false);
    for op in &plan.ops {
        let (handler, force) = handler(plan, op);
        items.push(text_item(handler, force));
        if takes_request(op) {
            let reader = reader(plan, op);
            reads_auth |= reader.auth;
            reads_params |= reader.params;
            items.push(text_item(reader.text, reader.force));
        }
    }
    let mut reject = String::new();
    if has_error {
        reject.push_str("/// Answers a rejection with the API's error body.\n");
        push_list(
            &mut reject,
            "",
            &format!("fn reject<A: {api}>("),
            &["api: &A", "rejection: Rejection"],
            ") -> Response {",
        );
        reject.push_str(
            "    let body = api.rejection(&rejection);\n    respond::rejection(&rejection, &body)\n}\n",
        );
    } else {
        reject.push_str(
            "/// Answers a rejection with `{\"message\": ...}` (the spec names no error body).\n\
             fn reject(rejection: Rejection) -> Response {\n\
             \x20   let body = ErrorMessage {\n\
             \x20       message: rejection.message.clone(),\n\
             \x20   };\n\
             \x20   respond::rejection(&rejection, &body)\n\
             }\n",
        );
    }
    items.push(text_item(reject, false));
    let helpers = bearer_helpers(plan);
    let has_helpers = !helpers.is_empty();
    items.extend(helpers.into_iter().map(|h| text_item(h, false)));
    for (doc, name, kind, message) in [
        (
            "/// Answers a path no operation matches (404).\n",
            "route_not_found",
            "NotFound",
            "format!(\"no operation matches {method} {}\", uri.path())",
        ),
        (
            "/// Answers a method the path does not accept (405; axum adds the `Allow` header).\n",
            "method_not_allowed",
            "MethodNotAllowed",
            "format!(\"{} does not accept {method}\", uri.path())",
        ),
    ] {
        let mut text = doc.to_owned();
        let (head, params, api_arg): (String, &[&str], &str) = if has_error {
            (
                format!("async fn {name}<A: {api}>"),
                &["State(api): State<Arc<A>>", "method: Method", "uri: Uri"],
                "        &*api,\n",
            )
        } else {
            (
                format!("async fn {name}"),
                &["method: Method", "uri: Uri"],
                "",
            )
        };
        push_list(
            &mut text,
            "",
            &format!("{head}("),
            params,
            ") -> Response {",
        );
        let _ = write!(
            text,
            "    reject(\n{api_arg}        Rejection::new(\n            RejectionKind::{kind},\n            \
             {message},\n        ),\n    )\n}}\n"
        );
        items.push(text_item(text, false));
    }

    // The `use`s: what the text items name is known; the field reads and the printed dispatchers
    // are looked through.
    let used = |name: &str| {
        let known = match name {
            "ErrorMessage" => !has_error,
            "HeaderMap" => has_helpers,
            "auth" => has_helpers || reads_auth,
            "params" => reads_params,
            _ => false,
        };
        known
            || super::uses(&scanned, name)
            || plan
                .ops
                .iter()
                .flat_map(|op| &op.fields)
                .any(|field| super::uses(&field.read, name))
    };
    let mut out = String::from("//! The axum router of the API.\n");
    for name in [
        "models",
        "auth",
        "body",
        "multipart",
        "deep_form",
        "params",
        "ErrorMessage",
    ] {
        if used(name) {
            let _ = writeln!(out, "use {}::{name};", plan.root);
        }
    }
    if used("HeaderMap") {
        out.push_str("use axum::http::HeaderMap;\n");
    }
    let mut own: Vec<String> = ["respond", "Rejection", "RejectionKind", &api]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    own.extend(plan.ops.iter().map(|op| op.request_name.to_string()));
    push_use_group(&mut out, &plan.root, &own);
    // A document whose operations read nothing from their requests never names `Request`.
    out.push_str(if has_dispatchers || plan.ops.iter().any(takes_request) {
        "use axum::extract::{Request, State};\n"
    } else {
        "use axum::extract::State;\n"
    });
    out.push_str(
        "use axum::http::{Method, Uri};\n\
         use axum::response::{IntoResponse, Response};\n",
    );
    // Only the first method of a route is the free function (`get(...)`); the others are chained.
    let mut methods: Vec<Method> = plan.routes.iter().map(|(_, m)| m[0].0).collect();
    methods.sort();
    methods.dedup();
    let methods: Vec<String> = methods
        .into_iter()
        .map(|m| method_name(m).to_owned())
        .collect();
    push_use_group(&mut out, "axum::routing", &methods);
    out.push_str("use axum::Router;\nuse std::sync::Arc;\n");
    for item in items {
        out.push_str(&item?);
    }
    Ok(out)
}

/// A text item as it is, or as prettyplease prints it when `force`d or when a line is too wide.
fn text_item(text: String, force: bool) -> Result<String, String> {
    if force {
        reprinted(&text, PATH)
    } else {
        laid_out(text, PATH)
    }
}

/// `.route({path}, {chain})` in the router's chain: on one line, or its arguments on lines of
/// their own, the method chain then one call per line when still too wide.
fn push_route(out: &mut String, path: &str, chain: &[String]) {
    let methods = chain.join(".");
    let line = format!("        .route({path}, {methods})");
    if fits(&line) {
        let _ = writeln!(out, "{line}");
        return;
    }
    let _ = writeln!(out, "        .route(\n            {path},");
    // The comma after the last argument does not count toward the width.
    if fits(&format!("            {methods}")) {
        let _ = writeln!(out, "            {methods},");
    } else {
        let _ = writeln!(out, "            {}", chain[0]);
        for (i, call) in chain.iter().enumerate().skip(1) {
            let comma = if i + 1 == chain.len() { "," } else { "" };
            let _ = writeln!(out, "                .{call}{comma}");
        }
    }
    out.push_str("        )\n");
}

/// `{call}.await.into_response()` as the statement ending a block at `indent`, or broken before
/// each `.` after the call when too wide (`api` is short enough to stay before the first).
fn push_answer(out: &mut String, indent: &str, call: &str) {
    let line = format!("{indent}{call}.await.into_response()");
    if fits(&line) {
        let _ = writeln!(out, "{line}");
    } else {
        let _ = writeln!(
            out,
            "{indent}{call}\n{indent}    .await\n{indent}    .into_response()"
        );
    }
}

/// `///{doc}` as prettyplease prints a doc attribute of one line; a doc of several lines as the
/// attribute, and `true`: the item must then be printed by prettyplease.
fn push_doc_attr(out: &mut String, doc: &str) -> bool {
    if doc.contains('\n') || doc.starts_with('/') {
        let _ = writeln!(out, "#[doc = {}]", Literal::string(doc));
        return true;
    }
    let _ = writeln!(out, "///{}", doc.trim_end_matches(' '));
    false
}

/// The handler of a route and method that operations with mixed segments share: each one's literal
/// texts are checked in turn (the most text first); none matching is a path no operation matches.
fn dispatcher(
    plan: &Plan,
    name: &proc_macro2::Ident,
    ops: &[&OpPlan],
    has_error: bool,
) -> TokenStream {
    let api = &plan.trait_name;
    let paths: Vec<String> = ops
        .iter()
        .map(|op| format!("`{} {}`", op.op.method.as_str(), op.op.path))
        .collect();
    let picks = if ops.iter().any(|op| !op.op.query.is_empty()) {
        "the query the path carries and its literal text pick"
    } else {
        "the path's literal text picks"
    };
    let doc = format!(" {}: {picks} the operation.", paths.join(", "));
    let mut arms = Vec::new();
    let mut fallback = None;
    for op in ops {
        let handle = format_ident!("handle_{}", op.op.name);
        let call = if takes_request(op) {
            quote! { #handle(State(api), request).await }
        } else {
            quote! { #handle(State(api)).await }
        };
        if !is_distinct(op.op) {
            fallback = Some(call);
            break;
        }
        let mut checks: Vec<TokenStream> = mixed_literals(op.op)
            .iter()
            .map(|(segment, literals)| {
                let segment = proc_macro2::Literal::usize_unsuffixed(*segment);
                quote! { params::segment_matches(path, #segment, &[#(#literals),*]) }
            })
            .collect();
        if !op.op.query.is_empty() {
            let pairs = op.op.query.iter().map(|(n, v)| quote! { (#n, #v) });
            checks.push(quote! { params::query_matches(request.uri().query(), &[#(#pairs),*]) });
        }
        arms.push(quote! {
            if #(#checks)&&* {
                return #call;
            }
        });
    }
    let path = ops
        .iter()
        .any(|op| !mixed_literals(op.op).is_empty())
        .then(|| quote! { let path = request.uri().path(); });
    let fallback = fallback.unwrap_or_else(|| {
        if has_error {
            quote! { route_not_found::<A>(State(api), request.method().clone(), request.uri().clone()).await }
        } else {
            quote! { route_not_found(request.method().clone(), request.uri().clone()).await }
        }
    });
    quote! {
        #[doc = #doc]
        async fn #name<A: #api>(State(api): State<Arc<A>>, request: Request) -> Response {
            #path
            #(#arms)*
            #fallback
        }
    }
}

/// Whether an operation's handler reads the request (one with nothing to read takes only the API).
fn takes_request(op: &OpPlan) -> bool {
    op.bearer != Need::No || !op.fields.is_empty()
}

/// axum's routing function of a method (`get`).
fn method_name(method: Method) -> &'static str {
    match method {
        Method::Get => "get",
        Method::Put => "put",
        Method::Post => "post",
        Method::Delete => "delete",
        Method::Options => "options",
        Method::Head => "head",
        Method::Patch => "patch",
        Method::Trace => "trace",
    }
}

/// An operation's handler as text, and whether prettyplease must print it (see
/// [`push_doc_attr`]).
fn handler(plan: &Plan, op: &OpPlan) -> (String, bool) {
    let api = &plan.trait_name;
    let o = op.op;
    let mut out = String::new();
    let force = push_doc_attr(&mut out, &format!(" `{} {}`", o.method.as_str(), o.path));
    let head = format!("async fn handle_{}<A: {api}>", o.name);
    let fn_name = &op.fn_name;
    if !takes_request(op) {
        // prettyplease breaks a wide struct literal even where the line fits.
        let force = force || struct_literal_breaks(&format!("{} {{}}", op.request_name));
        push_list(
            &mut out,
            "",
            &format!("{head}("),
            &["State(api): State<Arc<A>>"],
            ") -> Response {",
        );
        push_answer(
            &mut out,
            "    ",
            &format!("api.{fn_name}({} {{}})", op.request_name),
        );
        out.push_str("}\n");
        return (out, force);
    }
    let (api_arg, ok, args) = if op.bearer != Need::No {
        ("&*api, ", "(principal, request)", "principal, request")
    } else {
        ("", "request", "request")
    };
    // An operation with its own documented error body answers its rejections itself.
    let reject = match (&op.rejection, plan.error_body) {
        (Some(own), _) => format!(
            "respond::operation_rejection(&rejection, api.{}(&rejection))",
            own.fn_name
        ),
        (None, Some(_)) => "reject(&*api, rejection)".to_owned(),
        (None, None) => "reject(rejection)".to_owned(),
    };
    push_list(
        &mut out,
        "",
        &format!("{head}("),
        &["State(api): State<Arc<A>>", "request: Request"],
        ") -> Response {",
    );
    let _ = writeln!(out, "    match read_{}({api_arg}request).await {{", o.name);
    let call = format!("api.{fn_name}({args})");
    let arm = format!("        Ok({ok}) => {call}.await.into_response()");
    if fits(&arm) {
        let _ = writeln!(out, "{arm},");
    } else {
        let _ = writeln!(out, "        Ok({ok}) => {{");
        push_answer(&mut out, "            ", &call);
        out.push_str("        }\n");
    }
    let _ = writeln!(out, "        Err(rejection) => {reject},\n    }}\n}}");
    (out, force)
}

/// The helpers of operations whose bearer token `authenticate` checks.
fn bearer_helpers(plan: &Plan) -> Vec<String> {
    let api = &plan.trait_name;
    let by_authenticate = |need: Need| {
        plan.ops.iter().any(|op| {
            op.bearer == need
                && op.bearer_methods.len() == 1
                && op.bearer_methods[0] == "authenticate"
        })
    };
    let mut helpers = Vec::new();
    if by_authenticate(Need::Required) {
        let mut out =
            String::from("/// The principal of an operation that requires a bearer token.\n");
        push_list(
            &mut out,
            "",
            &format!("async fn require_bearer<A: {api}>("),
            &["api: &A", "headers: &HeaderMap"],
            ") -> Result<A::Principal, Rejection> {",
        );
        out.push_str(
            "    let token = auth::bearer_token(headers)?;\n    \
             api.authenticate(token).await.map_err(auth::bearer_rejected)\n}\n",
        );
        helpers.push(out);
    }
    if by_authenticate(Need::Optional) {
        let mut out = String::from(
            "/// The principal of an operation that also admits requests without a bearer token.\n",
        );
        push_list(
            &mut out,
            "",
            &format!("async fn optional_bearer<A: {api}>("),
            &["api: &A", "headers: &HeaderMap"],
            ") -> Result<Option<A::Principal>, Rejection> {",
        );
        out.push_str(
            "    match auth::optional_bearer_token(headers)? {\n        \
             Some(token) => {\n            \
             api.authenticate(token).await.map(Some).map_err(auth::bearer_rejected)\n        \
             }\n        \
             None => Ok(None),\n    \
             }\n}\n",
        );
        helpers.push(out);
    }
    helpers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{Patterns, assert_printed_as_is};

    #[test]
    fn routers_are_laid_out_as_prettyplease_would() {
        let fixtures = [
            include_str!("../../../../tests/fixtures/server-basics.yaml"),
            include_str!("../../../../tests/fixtures/server-edges.yaml"),
            include_str!("../../../../tests/fixtures/mixed-paths.yaml"),
            include_str!("../../../../tests/fixtures/webhooks.yaml"),
        ];
        // Operations without parameters, whose `{Request} {}` crosses 34 columns.
        let mut plain = String::from("openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n");
        for n in 20..40 {
            let id = format!("o{}", "x".repeat(n));
            plain.push_str(&format!(
                "  /{id}:\n    get:\n      operationId: {id}\n      responses: {{'204': {{description: ok}}}}\n"
            ));
        }
        // Routes with several methods, and operations reading a bearer token and a path
        // parameter, whose names grow a character at a time: route chains, handler arms.
        let mut secured = String::from(
            "openapi: 3.1.0\ninfo: {title: T, version: '1'}\nsecurity: [{b: []}]\n\
             components: {securitySchemes: {b: {type: http, scheme: bearer}}}\npaths:\n",
        );
        for n in 0..60 {
            let id = format!("o{}", "x".repeat(n));
            let param = "{name: p, in: path, required: true, schema: {type: string}}";
            secured.push_str(&format!("  /{id}/{{p}}:\n    parameters: [{param}]\n"));
            for method in ["get", "post", "delete"] {
                secured.push_str(&format!(
                    "    {method}:\n      operationId: {method}_{id}\n      responses: {{'204': {{description: ok}}}}\n"
                ));
            }
        }
        let generated = [plain.as_str(), secured.as_str()];
        for fixture in fixtures.iter().chain(&generated) {
            // The generated documents grow their names instead.
            let step = if generated.contains(fixture) { 100 } else { 3 };
            let titles = (0..70)
                .step_by(step)
                .map(|n| format!("T{}", "x".repeat(n)))
                .chain(["\"Two\\nlines\"".to_owned()]);
            for title in titles {
                let text = fixture
                    .lines()
                    .map(|l| match l.strip_prefix("  title:") {
                        Some(_) => format!("  title: {title}"),
                        None => l.to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let (api, _) = crate::load_api(&text).unwrap_or_else(|d| panic!("{d}"));
                let patterns = Patterns::collect(&api, &mut Default::default());
                for module in [None, Some("webhooks")] {
                    let plan = Plan::new(&api, &patterns, module);
                    if !plan.ops.is_empty() {
                        assert_printed_as_is(&router_rs(&plan).unwrap());
                    }
                }
            }
        }
    }
}
