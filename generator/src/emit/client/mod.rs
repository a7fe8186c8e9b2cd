//! The client crate: one method per operation on `Client`, each returning a request builder whose
//! `send()` returns the documented success body or an `Error<E>`, `E` being the operation's enum of
//! documented errors. The runtime (client and builder, retry loop, OAuth 2.0 token cache, errors, decoding)
//! is static code under `templates/client`; this module emits what depends on the document.

mod plan;
mod readme;
pub(crate) mod requests;

use super::rust::inner_doc_attrs;
use super::{
    File, Options, Patterns, Root, assembled, crate_root, doc_attrs, print, printed_parts,
    rust_file, template_file,
};
use crate::ir::{Api, Media, Operation, Tag};
use plan::{Plan, Success};
use proc_macro2::TokenStream;
use quote::quote;
use requests::RequestEmitter;

/// A renderer of a file of the client's from the operations' plans.
type Render<'a> = fn(&RequestEmitter<'a>, &[Plan]) -> TokenStream;

/// The runtime copied from templates, by path (moved as it is written, see [`super::crates`]).
pub const TEMPLATES: &[(&str, &str)] = {
    use openapi_gen_templates::client::*;
    &[
        ("src/auth.rs", AUTH),
        ("src/client.rs", CLIENT),
        ("src/codec.rs", CODEC),
        ("src/error.rs", ERROR),
        ("src/retry.rs", RETRY),
        ("src/service.rs", SERVICE),
        ("src/multipart.rs", MULTIPART),
        ("src/device.rs", DEVICE),
        ("src/stream.rs", STREAM),
    ]
};

/// The optional dependencies of the client's `tower` feature (which a build.rs module leaves out).
pub const TOWER_DEPENDENCIES: &[&str] =
    &["bytes", "http", "http-body", "tower-layer", "tower-service"];

/// The client crate's own files (what [`super::crates`] assembles, webhooks aside): `Cargo.toml`,
/// `src/lib.rs`, a request builder per operation (`src/requests.rs`), the response, error and
/// header types its operations need and the runtime from [`TEMPLATES`]. Empty for a document
/// without operations. `Err` holds the path and parse error of generated code that does not parse
/// (a generator bug).
/// (The client checks no patterns: `_patterns` keeps the emitters' signatures alike.)
pub fn emit(api: &Api, _patterns: &Patterns, opts: &Options) -> Result<Vec<File>, String> {
    emit_at(api, opts, Root::Crate, None)
}

/// What the crate root of the webhooks' sender says instead of a client's title, and whether it
/// declares module `urls` (the callbacks' URLs, see [`super::crates`]).
pub struct Sender<'a> {
    /// The lines of its documentation's first paragraph.
    pub intro: &'a [&'a str],
    /// Whether it declares module `urls`.
    pub urls: bool,
}

/// The client crate's files, its code spelling paths from `root`; `sender` when it is the sender
/// of webhooks nested in the server crate.
pub fn emit_at(
    api: &Api,
    opts: &Options,
    root: Root,
    sender: Option<&Sender>,
) -> Result<Vec<File>, String> {
    if api.operations.is_empty() {
        return Ok(Vec::new());
    }
    let mut plans: Vec<Plan> = api
        .operations
        .iter()
        .map(|op| plan::plan(api, op))
        .collect();
    // Distinct operation names can share a type name (`a_1` and `a1` are both `A1`).
    let mut taken = std::collections::HashSet::new();
    for p in &mut plans {
        let base = p.type_name.clone();
        let separator = if base.ends_with(|c: char| c.is_ascii_digit()) {
            "Op"
        } else {
            ""
        };
        p.type_name = crate::naming::unique(&base, &mut taken, separator);
    }
    let has_responses = plans.iter().any(|p| matches!(p.success, Success::Enum(_)));
    let has_errors = plans.iter().any(|p| !p.errors.is_empty());
    let has_headers = plans.iter().any(|p| !p.success_headers.is_empty());
    let credentials = plan::client_credentials_scheme(api);
    let device_flow = plan::device_flow_scheme(api);

    // Examples in the docs of a crate's own client (the sender nested in a server is documented
    // by the server's crate; a build.rs module is no crate to name in a doc test).
    let examples = (sender.is_none() && matches!(root, Root::Crate))
        .then(|| opts.crate_ident("client").to_string());
    // A feature per group in a crate's own client (the sender nested in a server is not split).
    let groups = (sender.is_none() && matches!(root, Root::Crate))
        .then(|| super::feature_groups(api, opts))
        .flatten();
    let emitter = || {
        let emitter = RequestEmitter::new(api, root).with_groups(groups.as_ref());
        match &examples {
            Some(krate) => emitter.with_examples(krate.clone()),
            None => emitter,
        }
    };
    let mut requests = vec![print(emitter().requests_head(&plans), "src/requests.rs")?];
    requests.extend(printed_parts(&plans, "src/requests.rs", |part| {
        emitter().builders(part)
    })?);
    let mut files = vec![
        cargo_toml(api, opts, &plans, groups.as_ref()),
        crate_root(
            lib_rs(
                api,
                opts,
                root,
                [has_responses, has_errors, has_headers],
                [credentials.is_some(), device_flow.is_some()],
                sender,
                groups.as_ref(),
            ),
            opts,
        )?,
        assembled(opts, "src/requests.rs", &requests),
    ];
    // The answers' types, each file where some operation needs it.
    let answers: [(bool, &str, Render<'_>); 3] = [
        (
            has_responses,
            "src/responses.rs",
            RequestEmitter::responses_rs,
        ),
        (has_errors, "src/errors.rs", RequestEmitter::errors_rs),
        (has_headers, "src/headers.rs", RequestEmitter::headers_rs),
    ];
    for (_, path, render) in answers.iter().filter(|answer| answer.0) {
        files.push(rust_file(render(&emitter(), &plans), opts, path)?);
    }
    if let Some((scheme, token_url)) = credentials {
        files.push(rust_file(
            credentials_rs(scheme, token_url, root),
            opts,
            "src/credentials.rs",
        )?);
    }
    if let Some(scheme) = device_flow {
        files.push(rust_file(
            device_flow_rs(scheme, root),
            opts,
            "src/device_flow.rs",
        )?);
    }
    // The runtime, the parts a document does not use left out.
    files.extend(TEMPLATES.iter().filter_map(|(path, text)| {
        let used = match *path {
            "src/multipart.rs" => api.has_multipart_struct(),
            "src/device.rs" => device_flow.is_some(),
            "src/stream.rs" => api.has_streams(),
            // The sender of webhooks, nested in a server crate, has no `tower` feature.
            "src/service.rs" => sender.is_none() && !root.in_module(),
            _ => true,
        };
        used.then(|| template_file(opts, path, &root.template(text)))
    }));
    if examples.is_some() {
        let readme = readme::readme(api, opts, &plans, &emitter(), &files);
        files.push(readme);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn cargo_toml(
    api: &Api,
    opts: &Options,
    plans: &[Plan],
    groups: Option<&crate::groups::Groups>,
) -> File {
    let multipart = plans
        .iter()
        .any(|p| p.body.is_some_and(|b| b.media == Media::Multipart));
    let reqwest_features = if multipart {
        r#""json", "form", "query", "multipart""#
    } else {
        r#""json", "form", "query""#
    };
    let description = format!(
        "Client of {}, generated from its OpenAPI document",
        api.title
    );
    let (receiver_feature, receiver_deps) = api
        .hooks_api(true)
        .map(|hooks| receiver_manifest(&hooks))
        .unwrap_or_default();
    let sections = format!(
        r#"[features]
# TLS for `https` base URLs: enable `rustls` or `native-tls` (the platform's TLS library).
# Without either, `ClientBuilder::build` rejects an `https` base URL (unless you bring your own
# `reqwest::Client`). Off by default so that plain-HTTP users (tests, sidecars) build no TLS stack.
{empty_default}rustls = ["reqwest/rustls"]
native-tls = ["reqwest/native-tls"]
# `tower`: middleware as `tower` layers around the HTTP client (`ClientBuilder::layer`: tower-http's
# `TraceLayer`, credentials refreshed by a layer), and `Client::from_service`, which calls a
# service such as the generated server's router in process, without a socket. Its crates are
# those reqwest already builds.
tower = [{tower_deps}]
{receiver_feature}{groups}
[dependencies]
{models}
{receiver_deps}bytes = {{ version = "1", optional = true }}
chrono = {{ version = "0.4", default-features = false, features = ["serde", "std"] }}
futures-util = {{ version = "0.3", default-features = false }}
http = {{ version = "1", optional = true }}
http-body = {{ version = "1", optional = true }}
reqwest = {{ version = "0.13", default-features = false, features = [{reqwest_features}] }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
tokio = {{ version = "1", features = ["sync", "time"] }}
tower-layer = {{ version = "0.3", optional = true }}
tower-service = {{ version = "0.3", optional = true }}
{url}uuid = {{ version = "1", features = ["serde"] }}
"#,
        models = super::models_dependency(opts, groups),
        groups = super::group_features_toml(groups, Some(&opts.crate_name("models"))),
        // Without groups, `default` is said here, empty.
        empty_default = if groups.is_some() {
            ""
        } else {
            "default = []\n"
        },
        url = super::url_dependency(api),
        tower_deps = TOWER_DEPENDENCIES
            .iter()
            .map(|name| format!("\"dep:{name}\""))
            .collect::<Vec<_>>()
            .join(", "),
    );
    super::cargo_toml(api, opts, "client", &description, &sections)
}

/// The manifest of a crate that only receives webhooks: the receiver's dependencies, on by default.
pub(super) fn receiver_cargo_toml(api: &Api, hooks: &Api, opts: &Options) -> File {
    let description = format!(
        "Receiver of the webhooks of {}, generated from its OpenAPI document",
        api.title
    );
    let (feature, receiver_deps) = receiver_manifest(hooks);
    let sections = format!(
        r#"[features]
default = ["webhooks"]
{feature}
[dependencies]
{models}
{receiver_deps}chrono = {{ version = "0.4", default-features = false, features = ["serde", "std"] }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
{url}uuid = {{ version = "1", features = ["serde"] }}
"#,
        models = super::sibling_dependency(opts, "models"),
        url = super::url_dependency(api),
    );
    super::cargo_toml(api, opts, "client", &description, &sections)
}

/// The `webhooks` feature of the receiver of webhooks and callbacks, and its optional
/// dependencies (a trait and an axum router).
fn receiver_manifest(hooks: &Api) -> (String, String) {
    let feature = r#"# `webhooks`: the receiver of the API's webhooks and callbacks (a trait and an axum router,
# module `webhooks`).
webhooks = ["dep:axum", "dep:base64", "dep:form_urlencoded", "dep:serde_html_form", "dep:serde_path_to_error"]
"#;
    let multipart = if hooks.has_multipart_struct() {
        r#", "multipart""#
    } else {
        ""
    };
    let deps = format!(
        r#"axum = {{ version = "0.8", default-features = false, features = ["http1", "http2", "matched-path", "tokio"{multipart}], optional = true }}
base64 = {{ version = "0.22", optional = true }}
form_urlencoded = {{ version = "1", optional = true }}
serde_html_form = {{ version = "0.4", optional = true }}
serde_path_to_error = {{ version = "0.1", optional = true }}
"#
    );
    (feature.to_owned(), deps)
}

fn lib_rs(
    api: &Api,
    opts: &Options,
    root: Root,
    [has_responses, has_errors, has_headers]: [bool; 3],
    [client_credentials, device_flow]: [bool; 2],
    sender: Option<&Sender>,
    groups: Option<&crate::groups::Groups>,
) -> TokenStream {
    let lints = super::selection_lints(groups);
    let title = match sender {
        Some(sender) => sender.intro.iter().map(|line| (*line).to_owned()).collect(),
        None => vec![format!(
            " Client of {} (version {}).",
            api.title, api.version
        )],
    };
    let urls_mod = sender
        .is_some_and(|s| s.urls)
        .then(|| quote! { pub mod urls; });
    let credentials = if client_credentials {
        "Credentials: [`ClientBuilder::client_credentials`] (OAuth 2.0 client credentials: the token is fetched, cached and renewed for you) or [`ClientBuilder::bearer_token`]."
    } else {
        "Credentials: [`ClientBuilder::bearer_token`] for operations that require a bearer token; [`ClientBuilder::default_header`] for other schemes."
    };
    let usage = requests::wrap_lines(&format!(
        "# Usage\n\n\
         Build a [`Client`] with [`Client::builder`]; each operation is a method of it that takes the required parameters and returns a request builder. Set optional parameters on the builder, then `.send().await` it (or `.await` it directly). A call returns the documented success body or an [`Error`]; a documented error status is [`Error::Api`] with the operation's error enum (module `errors`), one variant per status with its decoded body and headers; list operations paged with `skip`/`take` also offer `.into_stream()`{streams}. [`models`] holds the API's types.\n\n\
         {credentials}\n\n\
         Idempotent requests are retried on connection errors and `502`/`503`/`504` (see [`RetryPolicy`]); `POST` and `PATCH` never are. `https` base URLs need the `rustls` or `native-tls` feature.",
        streams = if api.has_streams() {
            ", and operations that answer a stream (Server-Sent Events, JSON Lines, NDJSON, JSON text sequences) `.send_stream()`, its items decoded as they arrive (module [`stream`])"
        } else {
            ""
        },
    ));
    let by_tag = operations_by_tag(api);
    let description = inner_doc_attrs(api.description.as_deref());
    let separator = api.description.is_some().then(|| quote! { #![doc = ""] });
    let models = root.models(opts);
    let credentials_mod = client_credentials.then(|| quote! { mod credentials; });
    let device_mods = device_flow.then(|| quote! { mod device; mod device_flow; });
    let device_uses = device_flow
        .then(|| quote! { pub use device::{DeviceAuthorization, DeviceFlowError, DeviceToken}; });
    let responses_mod = has_responses.then(|| quote! { pub mod responses; });
    let errors_mod = has_errors.then(|| quote! { pub mod errors; });
    let headers_mod = has_headers.then(|| quote! { pub mod headers; });
    let multipart_mod = api
        .has_multipart_struct()
        .then(|| quote! { pub mod multipart; });
    let stream_mod = api.has_streams().then(|| quote! { pub mod stream; });
    // A module has no `tower` feature: it sends over HTTP.
    let service_mod = (sender.is_none() && !root.in_module()).then(|| {
        quote! {
            /// Sending through a `tower::Service` (feature `tower`): middleware layers around the HTTP
            /// client, or the generated server's router called in process.
            #[cfg(feature = "tower")]
            pub mod service;
        }
    });
    let gate = (!root.in_module()).then(|| quote! { #[cfg(feature = "webhooks")] });
    let webhooks_mod = (!api.hooks.is_empty()).then(|| {
        quote! {
            /// The receiver of the API's webhooks and callbacks (feature `webhooks`): implement its
            /// trait and serve its router where the API sends them.
            #gate
            pub mod webhooks;
        }
    });
    quote! {
        #( #![doc = #title] )*
        #separator
        #description
        #![doc = ""]
        #( #![doc = #usage] )*
        #( #![doc = #by_tag] )*
        #lints

        mod auth;
        mod client;
        pub mod codec;
        #credentials_mod
        #device_mods
        mod error;
        #errors_mod
        #headers_mod
        #multipart_mod
        pub mod requests;
        #responses_mod
        mod retry;
        #service_mod
        #stream_mod
        #webhooks_mod

        pub use #models as models;
        pub use client::{Client, ClientBuilder};
        pub use codec::{Paged, ResponseValue};
        #device_uses
        pub use error::{AuthError, BuildError, Error};
        pub use reqwest;
        pub use retry::RetryPolicy;
        #urls_mod
    }
}

/// The crate doc's "Operations by tag": each navigation tag (no `kind`, or `nav`) with its
/// operations, tags nested under their `parent`, then the operations no such tag lists. Empty for
/// a document without tags.
fn operations_by_tag(api: &Api) -> Vec<String> {
    let groups: Vec<&Tag> = api.tags.iter().filter(|t| t.navigates()).collect();
    if groups.is_empty() {
        return Vec::new();
    }
    let known = |name: &str| groups.iter().any(|g| g.name == name);
    let link = |op: &Operation| {
        // Other kinds of tags (`badge`, `audience`) label the operations they list.
        let labels: Vec<String> = api
            .tags
            .iter()
            .filter(|t| !t.navigates() && op.tags.contains(&t.name))
            .map(|t| plain(t.summary.as_deref().unwrap_or(&t.name)))
            .collect();
        let labels = if labels.is_empty() {
            String::new()
        } else {
            format!(" ({})", labels.join(", "))
        };
        let path = op.path.replace('`', "'");
        format!(
            "[`{0}`](Client::{0}): `{1} {path}`{labels}",
            op.name,
            op.method.as_str()
        )
    };
    let mut lines = vec![
        String::new(),
        " # Operations by tag".to_owned(),
        String::new(),
    ];
    // Depth first, each tag followed by the tags nested under it: a stack, pushed in reverse.
    let mut stack: Vec<(&Tag, usize)> = groups
        .iter()
        .rev()
        .filter(|g| g.parent.as_deref().is_none_or(|p| !known(p)))
        .map(|g| (*g, 0))
        .collect();
    while let Some((tag, depth)) = stack.pop() {
        let title = match &tag.summary {
            Some(summary) => format!("**{}** (`{}`)", plain(summary), tag.name),
            None => format!("**{}**", plain(&tag.name)),
        };
        let indent = "  ".repeat(depth);
        lines.push(format!(" {indent}- {title}"));
        let ops = api
            .operations
            .iter()
            .filter(|op| op.tags.contains(&tag.name));
        lines.extend(ops.map(|op| format!(" {indent}  - {}", link(op))));
        let nested = groups.iter().rev();
        let nested = nested.filter(|g| g.parent.as_deref() == Some(tag.name.as_str()));
        stack.extend(nested.map(|g| (*g, depth + 1)));
    }
    let untagged: Vec<String> = api
        .operations
        .iter()
        .filter(|op| !op.tags.iter().any(|t| known(t)))
        .map(|op| format!("   - {}", link(op)))
        .collect();
    if !untagged.is_empty() {
        lines.push(" - Without a tag".to_owned());
        lines.extend(untagged);
    }
    lines
}

/// A tag's text on one line, its Markdown and link brackets escaped.
fn plain(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | ']' | '*' | '_' | '`' | '<' | '>' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `Client::device_authorization`, for the document's OAuth 2.0 device authorization flow.
fn device_flow_rs(scheme: &crate::ir::SecurityScheme, root: Root) -> TokenStream {
    let flow = scheme.device_flow.as_ref().expect("a device flow");
    let device_url = &flow.device_authorization_url;
    let token_url = &flow.token_url;
    let intro = format!(
        " Starts OAuth 2.0's device authorization grant (RFC 8628) of the `{}` scheme at `{device_url}`, as client `client_id` asking for `scopes`.",
        scheme.name
    );
    let bearer = format!(
        " request; send the access token with [`ClientBuilder::bearer_token`]({}::ClientBuilder::bearer_token).",
        root.text()
    );
    let root = root.path();
    quote! {
        //! The document's OAuth 2.0 device authorization flow.

        use #root::client::resolve;
        use #root::device::{DeviceAuthorization, DeviceFlowError};
        use #root::Client;

        /// The flow's `deviceAuthorizationUrl`; relative URLs are appended to the base URL like operation paths.
        const DEVICE_AUTHORIZATION_URL: &str = #device_url;
        /// The flow's `tokenUrl`.
        const TOKEN_URL: &str = #token_url;

        impl Client {
            #[doc = #intro]
            #[doc = ""]
            #[doc = " Show the user the answer's `user_code` and `verification_uri`, then await its"]
            #[doc = " [`token`](DeviceAuthorization::token), which polls until the user approves or denies the"]
            #[doc = #bearer]
            pub async fn device_authorization(&self, client_id: impl Into<String>, scopes: &[&str]) -> Result<DeviceAuthorization, DeviceFlowError> {
                DeviceAuthorization::start(
                    self.inner.http.clone(),
                    resolve(self.base_url(), DEVICE_AUTHORIZATION_URL),
                    resolve(self.base_url(), TOKEN_URL),
                    client_id.into(),
                    scopes,
                )
                .await
            }
        }
    }
}

/// `ClientBuilder::client_credentials`, for the document's OAuth 2.0 client-credentials scheme.
fn credentials_rs(scheme: &crate::ir::SecurityScheme, token_url: &str, root: Root) -> TokenStream {
    let intro = format!(
        " OAuth 2.0 client credentials of the `{}` scheme, token endpoint `{token_url}`.",
        scheme.name
    );
    let doc = doc_attrs(scheme.doc.as_deref());
    let separator = scheme.doc.is_some().then(|| quote! { #[doc = ""] });
    let root = root.path();
    quote! {
        //! The document's OAuth 2.0 client-credentials scheme.

        use #root::ClientBuilder;

        /// The scheme's `tokenUrl`; relative URLs are appended to the base URL like operation paths.
        const TOKEN_URL: &str = #token_url;

        impl ClientBuilder {
            #[doc = #intro]
            #separator
            #doc
            #[doc = ""]
            #[doc = " See [`ClientBuilder::client_credentials_at`] for how tokens are fetched, cached and renewed."]
            pub fn client_credentials(self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
                self.client_credentials_at(TOKEN_URL, client_id, client_secret)
            }
        }
    }
}
