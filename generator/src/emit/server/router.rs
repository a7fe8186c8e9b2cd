//! The axum router: per operation a handler that reads the request (credentials, parameters, body)
//! into its typed form, or answers the rejection with the API's error body (or the operation's own,
//! through its `{op}_rejection` method), then calls the trait.
//!
//! The file is written as text in prettyplease's layout; the readers of requests and the
//! dispatchers of mixed segments, whose expressions vary the most, are printed from tokens.

use super::plan::{Need, OpPlan, Plan, Source, is_distinct, mixed_literals};
use crate::emit::layout::{MARGIN, push_use_group, struct_literal_breaks};
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
    // The printed items, looked through for the `use`s they need.
    let mut scanned = TokenStream::new();
    let mut routes = String::new();
    for (path, methods) in &plan.routes {
        let _ = write!(routes, "        .route({}, ", Literal::string(path));
        for (i, (method, indexes)) in methods.iter().enumerate() {
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
            let dot = if i == 0 { "" } else { "." };
            let _ = write!(routes, "{dot}{}({handler}::<A>)", method_name(*method));
        }
        routes.push_str(")\n");
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
    push_signature(
        &mut router,
        &format!("pub fn router<A: {api}>"),
        &["api: Arc<A>"],
        "Router",
    );
    let _ = write!(
        router,
        "    Router::new()\n{routes}        .fallback(route_not_found{turbofish})\n        \
         .method_not_allowed_fallback(method_not_allowed{turbofish})\n        .with_state(api)\n}}\n"
    );
    let mut items = vec![text_item(router, force)];
    items.extend(printed.into_iter().map(|tokens| print(tokens, PATH)));
    for op in &plan.ops {
        let (handler, force) = handler(plan, op);
        items.push(text_item(handler, force));
        if takes_request(op) {
            let reader = reader(plan, op);
            scanned.extend(reader.clone());
            items.push(print(reader, PATH));
        }
    }
    let mut reject = String::new();
    if has_error {
        reject.push_str("/// Answers a rejection with the API's error body.\n");
        push_signature(
            &mut reject,
            &format!("fn reject<A: {api}>"),
            &["api: &A", "rejection: Rejection"],
            "Response",
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
    items.extend(helpers.iter().map(|h| text_item(h.clone(), false)));
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
        push_signature(&mut text, &head, params, "Response");
        let _ = write!(
            text,
            "    reject(\n{api_arg}        Rejection::new(\n            RejectionKind::{kind},\n            \
             {message},\n        ),\n    )\n}}\n"
        );
        items.push(text_item(text, false));
    }

    // The `use`s: what the text items name is known; the printed ones are looked through.
    let used = |name: &str| match name {
        "ErrorMessage" => !has_error,
        "auth" | "HeaderMap" if !helpers.is_empty() => true,
        _ => super::uses(&scanned, name),
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
    out.push_str(
        "use axum::extract::{Request, State};\n\
         use axum::http::{Method, Uri};\n\
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

/// `{head}({params}) -> {ret} {`, the parameters one per line when the signature is too wide (a
/// line still too wide sends the item to prettyplease).
fn push_signature(out: &mut String, head: &str, params: &[&str], ret: &str) {
    let one_line = format!("{head}({}) -> {ret}", params.join(", "));
    if one_line.len() <= MARGIN {
        let _ = writeln!(out, "{one_line} {{");
        return;
    }
    let _ = writeln!(out, "{head}(");
    for param in params {
        let _ = writeln!(out, "    {param},");
    }
    let _ = writeln!(out, ") -> {ret} {{");
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
        push_signature(&mut out, &head, &["State(api): State<Arc<A>>"], "Response");
        let _ = writeln!(
            out,
            "    api.{fn_name}({} {{}}).await.into_response()\n}}",
            op.request_name
        );
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
    push_signature(
        &mut out,
        &head,
        &["State(api): State<Arc<A>>", "request: Request"],
        "Response",
    );
    let _ = writeln!(
        out,
        "    match read_{}({api_arg}request).await {{\n        \
         Ok({ok}) => api.{fn_name}({args}).await.into_response(),\n        \
         Err(rejection) => {reject},\n    }}\n}}",
        o.name
    );
    (out, force)
}

/// The function reading one operation's request: credentials first (nothing else is looked at for
/// a caller that is not allowed in), then path, query, header and cookie parameters, the body last.
fn reader(plan: &Plan, op: &OpPlan) -> TokenStream {
    let read = format_ident!("read_{}", op.op.name);
    let api = &plan.trait_name;
    let request_name = &op.request_name;
    let uses = |source: Source| op.fields.iter().any(|f| f.source == source);
    let mut steps = Vec::new();
    let only_authenticate = op.bearer_methods.len() == 1 && op.bearer_methods[0] == "authenticate";
    match op.bearer {
        Need::Required if only_authenticate => {
            steps.push(quote! { let principal = require_bearer(api, &parts.headers).await?; })
        }
        Need::Optional if only_authenticate => {
            steps.push(quote! { let principal = optional_bearer(api, &parts.headers).await?; })
        }
        Need::Required => {
            let check = check_bearer(&op.bearer_methods);
            steps.push(quote! {
                let token = auth::bearer_token(&parts.headers)?;
                let principal = #check;
            })
        }
        Need::Optional => {
            let check = check_bearer(&op.bearer_methods);
            steps.push(quote! {
                let principal = match auth::optional_bearer_token(&parts.headers)? {
                    Some(token) => Some(#check),
                    None => None,
                };
            })
        }
        Need::No => {}
    }
    match op.basic {
        Need::Required => steps.push(quote! { let credentials = auth::basic(&parts.headers)?; }),
        Need::Optional => {
            steps.push(quote! { let credentials = auth::optional_basic(&parts.headers)?; })
        }
        Need::No => {}
    }
    if op.require_some_credentials {
        steps.push(quote! {
            if principal.is_none() && credentials.is_none() {
                return Err(auth::missing_credentials());
            }
        });
    }
    if uses(Source::Path) {
        steps.push(quote! { let path = params::Path::from_parts(&mut parts).await?; });
    }
    if uses(Source::Query) {
        steps.push(quote! { let query = params::Query::parse(parts.uri.query()); });
    }
    if uses(Source::Header) {
        steps.push(quote! { let headers = params::Headers(&parts.headers); });
    }
    if uses(Source::Cookie) {
        steps.push(quote! { let cookies = params::Cookies::parse(&parts.headers); });
    }
    let fields = op.fields.iter().map(|f| {
        let name = &f.name;
        let read = &f.read;
        quote! { #name: #read, }
    });
    let parts = if uses(Source::Path) {
        quote! { mut parts }
    } else {
        quote! { parts }
    };
    let raw_body = if uses(Source::Body) {
        quote! { raw_body }
    } else {
        quote! { _ }
    };
    let (generics, api_param, output, result) = match op.bearer {
        Need::No => (
            TokenStream::new(),
            TokenStream::new(),
            quote! { #request_name },
            quote! { request },
        ),
        Need::Required => (
            quote! { <A: #api> },
            quote! { api: &A, },
            quote! { (A::Principal, #request_name) },
            quote! { (principal, request) },
        ),
        Need::Optional => (
            quote! { <A: #api> },
            quote! { api: &A, },
            quote! { (Option<A::Principal>, #request_name) },
            quote! { (principal, request) },
        ),
    };
    let doc = format!(
        " Reads the request of [`{}`]({}::{}), or the reason to refuse it.",
        op.fn_name, api, op.fn_name
    );
    quote! {
        #[doc = #doc]
        async fn #read #generics (#api_param request: Request) -> Result<#output, Rejection> {
            let (#parts, #raw_body) = request.into_parts();
            #(#steps)*
            let request = #request_name { #(#fields)* };
            Ok(#result)
        }
    }
}

/// Checks `token` with each of `methods` in turn (the operation's bearer schemes): the first that
/// accepts it gives the principal; the last one's refusal is the answer.
fn check_bearer(methods: &[proc_macro2::Ident]) -> TokenStream {
    let (last, others) = methods
        .split_last()
        .expect("an operation with a bearer need has a scheme");
    let mut check = quote! { api.#last(token).await.map_err(auth::bearer_rejected)? };
    for method in others.iter().rev() {
        check = quote! {
            match api.#method(token).await {
                Ok(principal) => principal,
                Err(_) => #check,
            }
        };
    }
    check
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
        push_signature(
            &mut out,
            &format!("async fn require_bearer<A: {api}>"),
            &["api: &A", "headers: &HeaderMap"],
            "Result<A::Principal, Rejection>",
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
        push_signature(
            &mut out,
            &format!("async fn optional_bearer<A: {api}>"),
            &["api: &A", "headers: &HeaderMap"],
            "Result<Option<A::Principal>, Rejection>",
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

    /// Routers of fixtures whose trait names make the signatures, routes and helpers cross the
    /// width at different places (and a title of two lines, whose doc prettyplease prints).
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
        for fixture in fixtures.iter().copied().chain([plain.as_str()]) {
            let titles = (0..70)
                .step_by(3)
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
