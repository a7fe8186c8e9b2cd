//! The axum router: per operation a handler that reads the request (credentials, parameters, body)
//! into its typed form, or answers the rejection with the API's error body (or the operation's own,
//! through its `{op}_rejection` method), then calls the trait.

use super::plan::{Need, OpPlan, Plan, Read, is_distinct, mixed_literals};
use super::reads;
use crate::emit::ident;
use crate::ir::{Method, ParamLocation};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// A method of a route and the operations (indexes into [`Plan::ops`]) it serves.
type MethodOps = (Method, Vec<usize>);

pub fn router_rs(plan: &Plan) -> TokenStream {
    let api = ident(&plan.trait_name);
    let has_error = plan.error_body.is_some();
    let mut dispatchers = Vec::new();
    // Only the first method of a route is the free function (`get(...)`); the others are chained.
    let mut method_fns = Vec::new();
    let mut routes: Vec<(String, TokenStream, Vec<TokenStream>)> = Vec::new();
    for (path, all_methods) in &plan.routes {
        // With a feature per group, the methods of a path are routed by gate: one `route` call each
        // set of methods the same groups serve (axum merges the calls of a path).
        let mut by_gate: Vec<(String, TokenStream, Vec<&MethodOps>)> = Vec::new();
        for entry in all_methods {
            let ops: Vec<&OpPlan> = entry.1.iter().map(|i| &plan.ops[*i]).collect();
            let gate = plan.gate(&ops);
            let key = gate.to_string();
            match by_gate.iter_mut().find(|(k, ..)| *k == key) {
                Some((.., entries)) => entries.push(entry),
                None => by_gate.push((key, gate, vec![entry])),
            }
        }
        for (_, gate, methods) in by_gate {
            // `(routing function, handler)` of each method axum names; `others`: the handlers of the
            // methods it does not (`QUERY`, custom ones), with whether they take the request.
            let mut chain = Vec::new();
            let mut others = Vec::new();
            for (method, indexes) in methods {
                let first = &plan.ops[indexes[0]];
                let (handler, takes) = if indexes.len() == 1 && !is_distinct(first.op) {
                    let handler = format_ident!("handle_{}", first.op.name);
                    (handler, takes_request(first))
                } else {
                    let ops: Vec<&OpPlan> = indexes.iter().map(|i| &plan.ops[*i]).collect();
                    let name = format_ident!("dispatch_{}", first.op.name);
                    let dispatcher = dispatcher(plan, &name, &ops);
                    dispatchers.push(super::super::gated(dispatcher, &gate));
                    (name, true)
                };
                if method.is_standard() {
                    let routing = format_ident!("{}", method.as_str().to_ascii_lowercase());
                    chain.push((routing, handler));
                } else {
                    others.push((method, handler, takes, first));
                }
            }
            // The route's fallback picks the others by name; it is named after the first one's
            // operation.
            if let Some((.., first)) = others.first() {
                let name = format_ident!("other_methods_{}", first.op.name);
                let others = other_methods(plan, &name, &others);
                dispatchers.push(super::super::gated(others, &gate));
                let routing = if chain.is_empty() { "any" } else { "fallback" };
                chain.push((format_ident!("{routing}"), name));
            }
            let ((routing, handler), rest) = chain.split_first().expect("a route has a method");
            method_fns.push(routing.clone());
            let rest = rest
                .iter()
                .map(|(routing, handler)| quote! { .#routing(#handler::<A>) });
            let chain = quote! { #routing(#handler::<A>) #(#rest)* };
            // Consecutive routes of the same groups share one statement.
            let route = quote! { .route(#path, #chain) };
            match routes.last_mut() {
                Some((key, _, chained)) if *key == gate.to_string() => chained.push(route),
                _ => routes.push((gate.to_string(), gate, vec![route])),
            }
        }
    }
    let handlers =
        (plan.ops.iter()).map(|op| super::super::gated(handler(plan, op), &plan.gate(&[op])));
    let routes = routes.into_iter().map(|(_, gate, chained)| {
        if plan.groups.is_some() {
            quote! { #gate let router = router #(#chained)*; }
        } else {
            quote! { #(#chained)* }
        }
    });
    let (start, end) = if plan.groups.is_some() {
        (quote! { let router = Router::new(); }, quote! { router })
    } else {
        (quote! { Router::new() }, TokenStream::new())
    };
    let reject_fn = if has_error {
        quote! {
            /// Answers a rejection with the API's error body.
            fn reject<A: #api>(api: &A, rejection: Rejection) -> Response {
                let body = api.rejection(&rejection);
                respond::rejection(&rejection, &body)
            }
        }
    } else {
        quote! {
            /// Answers a rejection with `{"message": ...}` (the spec names no error body).
            fn reject(rejection: Rejection) -> Response {
                let body = ErrorMessage { message: rejection.message.clone() };
                respond::rejection(&rejection, &body)
            }
        }
    };
    let (generics, state, turbofish, api_arg) = if has_error {
        (
            quote! { <A: #api> },
            quote! { State(api): State<Arc<A>>, },
            quote! { ::<A> },
            quote! { &*api, },
        )
    } else {
        Default::default()
    };
    let bearer_helpers = bearer_helpers(plan);
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
    let items = quote! {
        #[doc = #router_doc]
        ///
        /// Add layers (tracing, timeouts, `DefaultBodyLimit`) to the returned router as usual.
        pub fn router<A: #api>(api: Arc<A>) -> Router {
            #start
            #(#routes)*
            #end
                .fallback(route_not_found #turbofish)
                .method_not_allowed_fallback(method_not_allowed #turbofish)
                .with_state(api)
        }

        #(#dispatchers)*

        #(#handlers)*

        #reject_fn

        #bearer_helpers

        /// Answers a path no operation matches (404).
        async fn route_not_found #generics (#state method: Method, uri: Uri) -> Response {
            reject(#api_arg Rejection::new(RejectionKind::NotFound, format!("no operation matches {method} {}", uri.path())))
        }

        /// Answers a method the path does not accept (405; axum adds the `Allow` header).
        async fn method_not_allowed #generics (#state method: Method, uri: Uri) -> Response {
            reject(#api_arg Rejection::new(RejectionKind::MethodNotAllowed, format!("{} does not accept {method}", uri.path())))
        }
    };
    method_fns.sort();
    method_fns.dedup();
    let requests = plan.ops.iter().map(|op| ident(&op.request_name));
    let uses = super::imports(
        plan,
        &items,
        &[
            "models",
            "auth",
            "body",
            "multipart",
            "deep_form",
            "params",
            "ErrorMessage",
            "HeaderMap",
        ],
    );
    // With a feature per group, a selection has some of the requests: a glob takes those there are.
    let own_items = if plan.groups.is_some() {
        let root = plan.root.path();
        quote! {
            use #root::{respond, Rejection, RejectionKind, #api};
            use #root::requests::*;
        }
    } else {
        plan.use_item(quote! { {respond, Rejection, RejectionKind, #api, #(#requests),*} })
    };
    // A document whose operations read nothing from their requests never names `Request`.
    let extract = if !dispatchers.is_empty() || plan.ops.iter().any(takes_request) {
        quote! { use axum::extract::{Request, State}; }
    } else {
        quote! { use axum::extract::State; }
    };
    quote! {
        //! The axum router of the API.
        #uses
        #own_items
        #extract
        use axum::http::{Method, Uri};
        use axum::response::{IntoResponse, Response};
        use axum::routing::{#(#method_fns),*};
        use axum::Router;
        use std::sync::Arc;

        #items
    }
}

/// The handler of a route and method that operations with mixed segments share: each one's literal
/// texts are checked in turn (the most text first); none matching is a path no operation matches.
fn dispatcher(plan: &Plan, name: &Ident, ops: &[&OpPlan]) -> TokenStream {
    let api = ident(&plan.trait_name);
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
    // Operations of different groups: each is checked only with its group's feature.
    let mixed = (ops.iter()).any(|op| plan.gate(&[op]).to_string() != plan.gate(ops).to_string());
    let mut rest = TokenStream::new();
    for op in ops {
        let call = call(&format_ident!("handle_{}", op.op.name), takes_request(op));
        let gate = if mixed {
            plan.gate(&[op])
        } else {
            TokenStream::new()
        };
        if !is_distinct(op.op) {
            if gate.is_empty() {
                fallback = Some(call);
            } else {
                // The last operation answers what the others do not, with its feature; without
                // it, no operation matches.
                let rest_name = format_ident!("{name}_rest");
                let not_found = self::fallback(plan, "route_not_found");
                let predicate = cfg_predicate(&gate);
                let api = ident(&plan.trait_name);
                rest = quote! {
                    /// What the other operations do not match, with this operation's feature.
                    #gate
                    async fn #rest_name<A: #api>(State(api): State<Arc<A>>, request: Request) -> Response {
                        #call
                    }

                    /// What the other operations do not match, without this operation's feature.
                    #[cfg(not(#predicate))]
                    async fn #rest_name<A: #api>(State(api): State<Arc<A>>, request: Request) -> Response {
                        #not_found
                    }
                };
                fallback = Some(quote! { #rest_name(State(api), request).await });
            }
            break;
        }
        let mut checks: Vec<TokenStream> = mixed_literals(op.op)
            .iter()
            .map(|(segment, literals)| {
                let segment = Literal::usize_unsuffixed(*segment);
                quote! { params::segment_matches(path, #segment, &[#(#literals),*]) }
            })
            .collect();
        if !op.op.query.is_empty() {
            let pairs = op.op.query.iter().map(|(n, v)| quote! { (#n, #v) });
            checks.push(quote! { params::query_matches(request.uri().query(), &[#(#pairs),*]) });
        }
        arms.push(quote! {
            #gate
            if #(#checks)&&* {
                return #call;
            }
        });
    }
    let path = ops
        .iter()
        .any(|op| !mixed_literals(op.op).is_empty())
        .then(|| quote! { let path = request.uri().path(); });
    let fallback = fallback.unwrap_or_else(|| self::fallback(plan, "route_not_found"));
    quote! {
        #[doc = #doc]
        async fn #name<A: #api>(State(api): State<Arc<A>>, request: Request) -> Response {
            #path
            #(#arms)*
            #fallback
        }

        #rest
    }
}

/// `feature = "a"` or `any(...)`: what the `#[cfg(...)]` of [`crate::emit::cfg_features`] holds.
fn cfg_predicate(gate: &TokenStream) -> TokenStream {
    let attr: syn::Attribute = syn::parse_quote!(#gate);
    match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    }
}

/// Whether an operation's handler reads the request (one with nothing to read takes only the API).
fn takes_request(op: &OpPlan) -> bool {
    op.bearer != Need::No || !op.fields.is_empty()
}

/// A dispatcher's call of an operation's handler.
fn call(handler: &Ident, takes_request: bool) -> TokenStream {
    let request = takes_request.then(|| quote! { , request });
    quote! { #handler(State(api) #request).await }
}

/// A dispatcher's call of the router's fallback `name` (`route_not_found`, `method_not_allowed`).
fn fallback(plan: &Plan, name: &str) -> TokenStream {
    let name = format_ident!("{name}");
    let (turbofish, state) = if plan.error_body.is_some() {
        (quote! { ::<A> }, quote! { State(api), })
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    quote! { #name #turbofish (#state request.method().clone(), request.uri().clone()).await }
}

/// The fallback of a route with methods axum does not name (`QUERY`, 3.2's custom methods): each
/// is picked by name, any other method is one the path does not accept.
fn other_methods(
    plan: &Plan,
    name: &Ident,
    methods: &[(&Method, Ident, bool, &OpPlan)],
) -> TokenStream {
    let api = ident(&plan.trait_name);
    let arms = methods.iter().map(|(method, handler, takes_request, _)| {
        let (text, call) = (method.as_str(), call(handler, *takes_request));
        quote! { #text => #call, }
    });
    let not_allowed = fallback(plan, "method_not_allowed");
    let doc = format!(
        " {}: methods axum's router does not name, picked by name.",
        methods
            .iter()
            .map(|(m, ..)| format!("`{}`", m.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    quote! {
        #[doc = #doc]
        async fn #name<A: #api>(State(api): State<Arc<A>>, request: Request) -> Response {
            match request.method().as_str() {
                #(#arms)*
                _ => #not_allowed,
            }
        }
    }
}

fn handler(plan: &Plan, op: &OpPlan) -> TokenStream {
    let api = ident(&plan.trait_name);
    let o = op.op;
    let doc = format!(" `{} {}`", o.method.as_str(), o.path);
    let handle = format_ident!("handle_{}", o.name);
    let fn_name = ident(&op.fn_name);
    let request_name = ident(&op.request_name);
    let bearer = op.bearer != Need::No;
    if !takes_request(op) {
        return quote! {
            #[doc = #doc]
            async fn #handle<A: #api>(State(api): State<Arc<A>>) -> Response {
                api.#fn_name(#request_name {}).await.into_response()
            }
        };
    }
    let read = format_ident!("read_{}", o.name);
    let api_arg = bearer.then(|| quote! { &*api, });
    let (ok, call) = if bearer {
        (
            quote! { (principal, request) },
            quote! { principal, request },
        )
    } else {
        (quote! { request }, quote! { request })
    };
    // An operation with its own documented error body answers its rejections itself.
    let reject = match (&op.rejection, plan.error_body) {
        (Some(own), _) => {
            let own = ident(&own.fn_name);
            quote! { respond::operation_rejection(&rejection, api.#own(&rejection)) }
        }
        (None, Some(_)) => quote! { reject(&*api, rejection) },
        (None, None) => quote! { reject(rejection) },
    };
    let reader = reader(plan, op, &read);
    quote! {
        #[doc = #doc]
        async fn #handle<A: #api>(State(api): State<Arc<A>>, request: Request) -> Response {
            match #read(#api_arg request).await {
                Ok(#ok) => api.#fn_name(#call).await.into_response(),
                Err(rejection) => #reject,
            }
        }

        #reader
    }
}

/// The function reading one operation's request: credentials first (nothing else is looked at for
/// a caller that is not allowed in), then path, query, header and cookie parameters, the body last.
fn reader(plan: &Plan, op: &OpPlan, read: &Ident) -> TokenStream {
    let api = ident(&plan.trait_name);
    let request_name = ident(&op.request_name);
    let uses = |location| op.fields.iter().any(|f| f.location() == Some(location));
    let mut steps = Vec::new();
    let only_authenticate = op.bearer_methods == ["authenticate"];
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
    if uses(ParamLocation::Path) {
        steps.push(quote! { let path = params::Path::from_parts(&mut parts).await?; });
    }
    if uses(ParamLocation::Query) {
        steps.push(quote! { let query = params::Query::parse(parts.uri.query()); });
    }
    if uses(ParamLocation::Header) {
        steps.push(quote! { let headers = params::Headers(&parts.headers); });
    }
    if uses(ParamLocation::Cookie) {
        steps.push(quote! { let cookies = params::Cookies::parse(&parts.headers); });
    }
    let fields = op.fields.iter().map(|f| {
        let name = ident(&f.name);
        let read = reads::read(plan, f);
        quote! { #name: #read, }
    });
    let mutable = uses(ParamLocation::Path).then(|| quote! { mut });
    let raw_body = if op.fields.iter().any(|f| matches!(f.read, Read::Body(_))) {
        quote! { raw_body }
    } else {
        quote! { _ }
    };
    let principal = match op.bearer {
        Need::No => None,
        Need::Required => Some(quote! { A::Principal }),
        Need::Optional => Some(quote! { Option<A::Principal> }),
    };
    let (generics, api_param, output, result) = match principal {
        None => (None, None, quote! { #request_name }, quote! { request }),
        Some(principal) => (
            Some(quote! { <A: #api> }),
            Some(quote! { api: &A, }),
            quote! { (#principal, #request_name) },
            quote! { (principal, request) },
        ),
    };
    let fn_name = ident(&op.fn_name);
    let doc = format!(
        " Reads the request of [`{fn_name}`]({api}::{fn_name}), or the reason to refuse it."
    );
    quote! {
        #[doc = #doc]
        async fn #read #generics (#api_param request: Request) -> Result<#output, Rejection> {
            let (#mutable parts, #raw_body) = request.into_parts();
            #(#steps)*
            let request = #request_name { #(#fields)* };
            Ok(#result)
        }
    }
}

/// Checks `token` with each of `methods` in turn (the operation's bearer schemes): the first that
/// accepts it gives the principal; the last one's refusal is the answer.
fn check_bearer(methods: &[String]) -> TokenStream {
    let (last, others) = methods
        .split_last()
        .expect("an operation with a bearer need has a scheme");
    let last = ident(last);
    let last = quote! { api.#last(token).await.map_err(auth::bearer_rejected)? };
    others.iter().rev().fold(last, |check, method| {
        let method = ident(method);
        quote! {
            match api.#method(token).await {
                Ok(principal) => principal,
                Err(_) => #check,
            }
        }
    })
}

fn bearer_helpers(plan: &Plan) -> TokenStream {
    let api = ident(&plan.trait_name);
    let by_authenticate = |need| {
        plan.ops
            .iter()
            .any(|op| op.bearer == need && op.bearer_methods == ["authenticate"])
    };
    let required = by_authenticate(Need::Required).then(|| {
        quote! {
            /// The principal of an operation that requires a bearer token.
            async fn require_bearer<A: #api>(api: &A, headers: &HeaderMap) -> Result<A::Principal, Rejection> {
                let token = auth::bearer_token(headers)?;
                api.authenticate(token).await.map_err(auth::bearer_rejected)
            }
        }
    });
    let optional = by_authenticate(Need::Optional).then(|| {
        quote! {
            /// The principal of an operation that also admits requests without a bearer token.
            async fn optional_bearer<A: #api>(api: &A, headers: &HeaderMap) -> Result<Option<A::Principal>, Rejection> {
                match auth::optional_bearer_token(headers)? {
                    Some(token) => api.authenticate(token).await.map(Some).map_err(auth::bearer_rejected),
                    None => Ok(None),
                }
            }
        }
    });
    quote! { #required #optional }
}
