//! The server crate: a trait with one method per operation, a request struct and a response enum per
//! operation, and an axum router that authenticates, parses and validates every request before the
//! trait sees it (oapi-codegen's strict server, in Rust). The shared machinery is static Rust under
//! templates/server, copied into the crate, so the generated part stays small.

mod api;
mod example;
mod plan;
mod readme;
mod reads;
mod router;
mod types;

use super::{File, Options, Patterns, Root, crate_root, rust_file, template_file};
use crate::ir::Api;
use plan::Plan;
use proc_macro2::{Spacing, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};

/// The runtime copied from templates, by path (moved as it is written, see [`super::crates`]).
pub const TEMPLATES: &[(&str, &str)] = {
    use openapi_gen_templates::server::*;
    &[
        ("src/rejection.rs", REJECTION),
        ("src/params.rs", PARAMS),
        ("src/body.rs", BODY),
        ("src/objects_only.rs", OBJECTS_ONLY),
        ("src/auth.rs", AUTH),
        ("src/respond.rs", RESPOND),
        ("src/multipart.rs", MULTIPART),
        ("src/deep_form.rs", DEEP_FORM),
        ("src/stream.rs", STREAM),
    ]
};

/// The server crate's own files (what [`super::crates`] assembles, webhooks aside): `Cargo.toml`,
/// `src/lib.rs`, the axum router (`src/router.rs`), the trait an implementation fills in
/// (`src/api.rs`), its request and response types and the runtime from [`TEMPLATES`]. Empty for a
/// document without operations the router can serve. `Err` holds the path and parse error of
/// generated code that does not parse (a generator bug).
pub fn emit(api: &Api, patterns: &Patterns, opts: &Options) -> Result<Vec<File>, String> {
    Ok(emit_at(api, patterns, opts, Root::Crate)?.unwrap_or_default())
}

/// The server crate's files, its code spelling paths from `root`; `None` when the document has no
/// operation the router can serve.
pub fn emit_at(
    api: &Api,
    patterns: &Patterns,
    opts: &Options,
    root: Root,
) -> Result<Option<Vec<File>>, String> {
    let mut plan = Plan::new(api, patterns, root);
    if root == Root::Crate {
        plan.groups = super::feature_groups(api, opts);
    }
    if plan.ops.is_empty() {
        return Ok(None);
    }
    // The trait's example is a doc test of the server crate itself (not of the webhooks'
    // receiver in a client crate, behind a feature the doc tests do not turn on, nor of a
    // build.rs module, which is no crate).
    let example_crate = matches!(root, Root::Crate).then(|| opts.crate_ident("server").to_string());
    // The plan is plain data: the router and the other files render from it side by side.
    let (router, others) = rayon::join(
        || rust_file(router::router_rs(&plan), opts, "src/router.rs"),
        || -> Result<[File; 4], String> {
            Ok([
                crate_root(lib_rs(&plan, opts), opts)?,
                rust_file(
                    api::api_rs(&plan, example_crate.as_deref()),
                    opts,
                    "src/api.rs",
                )?,
                rust_file(types::requests_rs(&plan), opts, "src/requests.rs")?,
                rust_file(types::responses_rs(&plan), opts, "src/responses.rs")?,
            ])
        },
    );
    let mut files = vec![cargo_toml(api, opts, plan.groups.as_ref())];
    files.extend(others?);
    files.push(router?);
    if example_crate.is_some() {
        let readme = readme::readme(&plan, opts, &files);
        files.push(readme);
    }
    // The runtime, the parts a document does not use left out.
    files.extend(TEMPLATES.iter().filter_map(|(path, text)| {
        let used = match *path {
            "src/multipart.rs" => api.has_multipart_struct(),
            "src/deep_form.rs" => api.has_deep_form(),
            "src/stream.rs" => api.has_streams(),
            _ => true,
        };
        used.then(|| template_file(opts, path, &root.template(text)))
    }));
    Ok(Some(files))
}

/// The crate's manifest; `groups`: the features of its operation groups, when it has a router
/// (else see [`sender_cargo_toml`]).
fn cargo_toml(api: &Api, opts: &Options, groups: Option<&crate::groups::Groups>) -> File {
    manifest(api, opts, true, groups)
}

/// The manifest of a crate that only sends webhooks (on by default), without the router's
/// dependencies.
pub(super) fn sender_cargo_toml(api: &Api, opts: &Options) -> File {
    manifest(api, opts, false, None)
}

fn manifest(
    api: &Api,
    opts: &Options,
    routed: bool,
    groups: Option<&crate::groups::Groups>,
) -> File {
    let what = if routed {
        "Server (trait and axum router)"
    } else {
        "Sender of the webhooks"
    };
    let description = format!(
        "{what} of {}, generated from its OpenAPI document",
        api.title
    );
    let (hooks, streams) = (!api.hooks.is_empty(), api.has_streams());
    let sender_only = hooks && !streams;
    let (runtime, timer) = if sender_only {
        (r#""dep:futures-util", "#, r#", "dep:tokio""#)
    } else {
        ("", "")
    };
    let models = opts.crate_name("models");
    let group_features = super::group_features_toml(groups, Some(&models));
    let features = if hooks {
        format!(
            r#"[features]
# `webhooks`: the sender of the API's webhooks and callbacks (a reqwest client, module `webhooks`).
# `rustls` or `native-tls` let it post to `https` URLs.
{empty_default}webhooks = [{runtime}"dep:reqwest"{timer}]
rustls = ["webhooks", "reqwest?/rustls"]
native-tls = ["webhooks", "reqwest?/native-tls"]
{group_features}
"#,
            // Without groups, `default` is said here: the sender of a crate without a router is on.
            empty_default = match (group_features.is_empty(), routed) {
                (false, _) => "",
                (true, true) => "default = []\n",
                (true, false) => "default = [\"webhooks\"]\n",
            },
        )
    } else if group_features.is_empty() {
        String::new()
    } else {
        format!("[features]\n{group_features}\n")
    };
    let multipart = |used: bool| if used { r#", "multipart""# } else { "" };
    let axum = format!(
        r#"axum = {{ version = "0.8", default-features = false, features = ["http1", "http2", "matched-path", "tokio"{}] }}"#,
        multipart(api.has_multipart_struct())
    );
    let reqwest = format!(
        r#"reqwest = {{ version = "0.13", default-features = false, features = ["json", "form", "query"{}], optional = true }}"#,
        multipart(hooks && api.hooks_api(false).expect("hooks").has_multipart_struct())
    );
    // Streams need futures-util and tokio; otherwise the webhooks' sender takes them, optional (with
    // its feature), listed with its own dependencies.
    let optional = if streams { " }" } else { ", optional = true }" };
    let futures =
        format!(r#"futures-util = {{ version = "0.3", default-features = false{optional}"#);
    let tokio = format!(r#"tokio = {{ version = "1", features = ["sync", "time"]{optional}"#);
    let url = super::url_dependency(api);
    let dependencies = [
        (routed, axum.as_str()),
        (routed, r#"base64 = "0.22""#),
        (
            true,
            r#"chrono = { version = "0.4", default-features = false, features = ["serde", "std"] }"#,
        ),
        (routed, r#"form_urlencoded = "1""#),
        (streams, &futures),
        (true, r#"serde = { version = "1", features = ["derive"] }"#),
        (routed, r#"serde_html_form = "0.4""#),
        (true, r#"serde_json = "1""#),
        (routed, r#"serde_path_to_error = "0.1""#),
        (sender_only, &futures),
        (hooks, &reqwest),
        (hooks || streams, &tokio),
        (!url.is_empty(), url.trim_end()),
        (true, r#"uuid = { version = "1", features = ["serde"] }"#),
    ];
    let models = super::models_dependency(opts, groups);
    let mut sections = format!("{features}[dependencies]\n{models}\n");
    for (_, line) in dependencies.iter().filter(|(used, _)| *used) {
        sections.push_str(line);
        sections.push('\n');
    }
    super::cargo_toml(api, opts, "server", &description, &sections)
}

fn lib_rs(plan: &Plan, opts: &Options) -> TokenStream {
    let lints = super::selection_lints(plan.groups.as_ref());
    let api = plan.api;
    let trait_name = super::ident(&plan.trait_name);
    let models = plan.root.models(opts);
    // How code outside the crate names it: the server crate, or the module of the client crate
    // the receiver of webhooks is nested in.
    let crate_name = if plan.root.is_webhooks() {
        format!("{}::webhooks", opts.crate_ident("client"))
    } else {
        opts.crate_ident("server").to_string()
    };
    let usage = format!(
        r#" Server of {title} (version {version}), generated from its OpenAPI document.

 Implement [`{trait_name}`] and serve it with [`router`]:

 ```ignore
 use {crate_name}::{{router, {trait_name}}};

 let app = router(std::sync::Arc::new(MyService::new()));
 let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
 {crate_name}::axum::serve(listener, app).await?;
 ```

 Every operation receives its request already authenticated, parsed and validated (path, query,
 header and cookie parameters with their defaults applied, and the decoded body), and answers with
 its response enum, one variant per documented status. The enums whose documented errors carry the
 API's error body implement [`respond::ErrorResponse`], so one function of a status and an error
 body answers any of those operations' errors. Requests that fail any of this never reach
 the operation: the router answers them with the API's error body, built by the trait from a
 [`Rejection`]{own}."#,
        title = api.title,
        version = api.version,
        own = if plan.ops.iter().any(|op| op.rejection.is_some()) {
            "; an operation that documents its own error body answers them through its\n `{operation}_rejection` method instead"
        } else {
            ""
        },
    );
    let mut docs: Vec<String> = usage.lines().map(str::to_owned).collect();
    if !plan.skipped.is_empty() {
        docs.extend([String::new(), " ## Not generated".to_owned(), String::new()]);
        docs.extend(plan.skipped.iter().map(|s| format!(" - {s}")));
    }
    let deep_form = api.has_deep_form().then(|| quote! { pub mod deep_form; });
    let multipart = api
        .has_multipart_struct()
        .then(|| quote! { pub mod multipart; });
    let stream = api.has_streams().then(|| quote! { pub mod stream; });
    let gate = (!plan.root.in_module()).then(|| quote! { #[cfg(feature = "webhooks")] });
    let webhooks = (!api.hooks.is_empty()).then(|| {
        quote! {
            /// The sender of the API's webhooks and callbacks (feature `webhooks`): a client that
            /// posts each one to the URL its receiver gave.
            #gate
            pub mod webhooks;
        }
    });
    quote! {
        #( #![doc = #docs] )*
        #lints
        mod api;
        pub mod auth;
        pub mod body;
        #deep_form
        #multipart
        mod objects_only;
        pub mod params;
        mod rejection;
        mod requests;
        pub mod respond;
        mod responses;
        mod router;
        #stream
        #webhooks
        pub use #models as models;
        pub use api::#trait_name;
        pub use auth::BasicCredentials;
        pub use axum;
        pub use body::RawBody;
        pub use rejection::{ErrorMessage, Rejection, RejectionKind};
        pub use requests::*;
        pub use responses::*;
        pub use router::router;
    }
}

/// `use` items for those of `names` the tokens use (see [`uses`]): axum's `HeaderMap` and `Bytes`,
/// else the crate's own item (see [`Plan::use_item`]).
fn imports(plan: &Plan, tokens: &TokenStream, names: &[&str]) -> TokenStream {
    let used = names.iter().filter(|name| uses(tokens, name));
    let items = used.map(|name| match *name {
        "HeaderMap" => quote! { use axum::http::HeaderMap; },
        "Bytes" => quote! { use axum::body::Bytes; },
        name => plan.use_item(format_ident!("{name}").into_token_stream()),
    });
    quote! { #(#items)* }
}

/// Whether the tokens use `name`: a module (lowercase) when it starts a path (`models::X`), a type
/// when it appears at all.
fn uses(tokens: &TokenStream, name: &str) -> bool {
    let module = name.starts_with(|c: char| c.is_ascii_lowercase());
    let mut trees = tokens.clone().into_iter().peekable();
    while let Some(tree) = trees.next() {
        let found = match &tree {
            TokenTree::Ident(ident) => {
                ident == name
                    && (!module
                        || matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint))
            }
            TokenTree::Group(group) => uses(&group.stream(), name),
            _ => false,
        };
        if found {
            return true;
        }
    }
    false
}
