//! The client crate: one method per operation on `Client`, each returning a request builder whose
//! `send()` returns the documented success body or an `Error<E>`, `E` being the operation's enum of
//! documented errors. The runtime (client and builder, retry loop, OAuth 2.0 token cache, errors, decoding)
//! is static code under `templates/client`; this module emits what depends on the document.

mod plan;
pub(crate) mod requests;
mod sending;

use super::parallel::{self, Job};
use super::rust::inner_doc_attrs;
use super::{
    File, Options, Patterns, assembled, crate_root, doc_attrs, print, rust_file, template_file,
};
use crate::ir::{Api, Media};
use plan::{Plan, Success};
use proc_macro2::TokenStream;
use quote::quote;

const CLIENT_TEMPLATE: &str = openapi_gen_templates::client::CLIENT;
const AUTH_TEMPLATE: &str = openapi_gen_templates::client::AUTH;
const CODEC_TEMPLATE: &str = openapi_gen_templates::client::CODEC;
const ERROR_TEMPLATE: &str = openapi_gen_templates::client::ERROR;
const RETRY_TEMPLATE: &str = openapi_gen_templates::client::RETRY;
const MULTIPART_TEMPLATE: &str = openapi_gen_templates::client::MULTIPART;
const STREAM_TEMPLATE: &str = openapi_gen_templates::client::STREAM;

/// The files copied from templates (see [`super::nest`]).
pub const TEMPLATES: &[&str] = &[
    "src/auth.rs",
    "src/client.rs",
    "src/codec.rs",
    "src/error.rs",
    "src/retry.rs",
    "src/multipart.rs",
    "src/stream.rs",
];

/// The client crate's files: `Cargo.toml`, `src/lib.rs`, a request builder per operation
/// (`src/requests.rs`), the response, error and header types its operations need, the runtime
/// from [`TEMPLATES`], and the receiver of the document's webhooks and callbacks as module
/// `webhooks`. None for a document without operations. `Err` holds the path and parse error of
/// generated code that does not parse (a generator bug).
pub fn emit(api: &Api, patterns: &Patterns, opts: &Options) -> Result<Vec<File>, String> {
    // A document without operations has nothing to call: no client crate.
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
        let mut n = 2;
        while !taken.insert(p.type_name.clone()) {
            p.type_name = format!("{base}{separator}{n}");
            n += 1;
        }
    }
    let has_responses = plans.iter().any(|p| matches!(p.success, Success::Enum(_)));
    let has_errors = plans.iter().any(|p| !p.errors.is_empty());
    let has_headers = plans.iter().any(|p| !p.success_headers.is_empty());
    let credentials = plan::client_credentials_scheme(api);

    // Token streams cannot cross threads: each job makes its own emitter and returns text.
    let emitter = || requests::RequestEmitter::new(api);
    let plans = &plans;
    let ranges = parallel::chunks(plans.len());
    let mut jobs: Vec<Job<Result<String, String>>> = vec![Box::new(move || {
        print(emitter().requests_head(plans), "src/requests.rs")
    })];
    for range in ranges {
        jobs.push(Box::new(move || {
            print(emitter().builders(&plans[range]), "src/requests.rs")
        }));
    }
    if has_responses {
        jobs.push(Box::new(move || {
            print(emitter().responses_rs(plans), "src/responses.rs")
        }));
    }
    if has_errors {
        jobs.push(Box::new(move || {
            print(emitter().errors_rs(plans), "src/errors.rs")
        }));
    }
    if has_headers {
        jobs.push(Box::new(move || {
            print(emitter().headers_rs(plans), "src/headers.rs")
        }));
    }
    let mut printed: Vec<String> = parallel::run(plans.len(), jobs)
        .into_iter()
        .collect::<Result<_, _>>()?;
    let headers = has_headers.then(|| printed.pop().expect("the headers job ran"));
    let errors = has_errors.then(|| printed.pop().expect("the errors job ran"));
    let responses = has_responses.then(|| printed.pop().expect("the responses job ran"));

    let mut files = vec![
        cargo_toml(api, opts, plans),
        crate_root(
            lib_rs(
                api,
                opts,
                [has_responses, has_errors, has_headers],
                credentials.is_some(),
            ),
            opts,
        )?,
        assembled(opts, "src/requests.rs", &printed),
    ];
    if let Some(responses) = responses {
        files.push(assembled(opts, "src/responses.rs", &[responses]));
    }
    if let Some(errors) = errors {
        files.push(assembled(opts, "src/errors.rs", &[errors]));
    }
    if let Some(headers) = headers {
        files.push(assembled(opts, "src/headers.rs", &[headers]));
    }
    if let Some((scheme, token_url)) = credentials {
        files.push(rust_file(
            credentials_rs(scheme, token_url),
            opts,
            "src/credentials.rs",
        )?);
    }
    if super::has_streams(api) {
        files.push(template_file(opts, "src/stream.rs", STREAM_TEMPLATE));
    }
    if super::has_multipart_struct(api) {
        files.push(template_file(opts, "src/multipart.rs", MULTIPART_TEMPLATE));
    }
    // The receiver of the webhooks and callbacks: the server emitter's crate, as module `webhooks`.
    if let Some(hooks) = api.hooks_api(true) {
        let server = super::server::emit_in(&hooks, patterns, opts, Some("webhooks"))?;
        files.extend(super::nest(
            server,
            "webhooks",
            super::server::TEMPLATES,
            opts,
            true,
        )?);
    }
    files.extend([
        template_file(opts, "src/auth.rs", AUTH_TEMPLATE),
        template_file(opts, "src/client.rs", CLIENT_TEMPLATE),
        template_file(opts, "src/codec.rs", CODEC_TEMPLATE),
        template_file(opts, "src/error.rs", ERROR_TEMPLATE),
        template_file(opts, "src/retry.rs", RETRY_TEMPLATE),
    ]);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn cargo_toml(api: &Api, opts: &Options, plans: &[Plan]) -> File {
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
    let (receiver_feature, receiver_deps) = match api.hooks_api(true) {
        None => (String::new(), String::new()),
        Some(hooks) => (
            "# `webhooks`: the receiver of the API's webhooks and callbacks (a trait and an axum router,\n\
             # module `webhooks`).\n\
             webhooks = [\"dep:axum\", \"dep:base64\", \"dep:form_urlencoded\", \"dep:serde_html_form\", \"dep:serde_path_to_error\"]\n"
                .to_owned(),
            format!(
                "axum = {{ version = \"0.8\", default-features = false, features = [\"http1\", \"http2\", \"matched-path\", \"tokio\"{multipart}], optional = true }}\n\
                 base64 = {{ version = \"0.22\", optional = true }}\n\
                 form_urlencoded = {{ version = \"1\", optional = true }}\n\
                 serde_html_form = {{ version = \"0.4\", optional = true }}\n\
                 serde_path_to_error = {{ version = \"0.1\", optional = true }}\n",
                multipart = if super::has_multipart_struct(&hooks) {
                    r#", "multipart""#
                } else {
                    ""
                },
            ),
        ),
    };
    let sections = format!(
        r#"[features]
# TLS for `https` base URLs: enable `rustls` or `native-tls` (the platform's TLS library).
# Without either, `ClientBuilder::build` rejects an `https` base URL (unless you bring your own
# `reqwest::Client`). Off by default so that plain-HTTP users (tests, sidecars) build no TLS stack.
default = []
rustls = ["reqwest/rustls"]
native-tls = ["reqwest/native-tls"]
{receiver_feature}
[dependencies]
{models}
{receiver_deps}chrono = {{ version = "0.4", default-features = false, features = ["serde", "std"] }}
futures-util = {{ version = "0.3", default-features = false }}
reqwest = {{ version = "0.13", default-features = false, features = [{reqwest_features}] }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
tokio = {{ version = "1", features = ["sync", "time"] }}
{url}uuid = {{ version = "1", features = ["serde"] }}
"#,
        models = super::sibling_dependency(opts, "models"),
        url = super::models::url_dependency(api),
    );
    super::cargo_toml(api, opts, "client", &description, &sections)
}

fn lib_rs(
    api: &Api,
    opts: &Options,
    [has_responses, has_errors, has_headers]: [bool; 3],
    client_credentials: bool,
) -> TokenStream {
    let title = format!(" Client of {} (version {}).", api.title, api.version);
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
        streams = if super::has_streams(api) {
            ", and operations that answer a stream (Server-Sent Events, JSON Lines, NDJSON, JSON text sequences) `.send_stream()`, its items decoded as they arrive (module [`stream`])"
        } else {
            ""
        },
    ));
    let description = inner_doc_attrs(api.description.as_deref());
    let separator = api.description.is_some().then(|| quote! { #![doc = ""] });
    let models = opts.crate_ident("models");
    let credentials_mod = client_credentials.then(|| quote! { mod credentials; });
    let responses_mod = has_responses.then(|| quote! { pub mod responses; });
    let errors_mod = has_errors.then(|| quote! { pub mod errors; });
    let headers_mod = has_headers.then(|| quote! { pub mod headers; });
    let multipart_mod = super::has_multipart_struct(api).then(|| quote! { pub mod multipart; });
    let stream_mod = super::has_streams(api).then(|| quote! { pub mod stream; });
    let webhooks_mod = (!api.hooks.is_empty()).then(|| {
        quote! {
            /// The receiver of the API's webhooks and callbacks (feature `webhooks`): implement its
            /// trait and serve its router where the API sends them.
            #[cfg(feature = "webhooks")]
            pub mod webhooks;
        }
    });
    quote! {
        #![doc = #title]
        #separator
        #description
        #![doc = ""]
        #( #![doc = #usage] )*

        mod auth;
        mod client;
        pub mod codec;
        #credentials_mod
        mod error;
        #errors_mod
        #headers_mod
        #multipart_mod
        pub mod requests;
        #responses_mod
        mod retry;
        #stream_mod
        #webhooks_mod

        pub use #models as models;
        pub use client::{Client, ClientBuilder};
        pub use codec::{Paged, ResponseValue};
        pub use error::{AuthError, BuildError, Error};
        pub use reqwest;
        pub use retry::RetryPolicy;
    }
}

/// `ClientBuilder::client_credentials`, for the document's OAuth 2.0 client-credentials scheme.
fn credentials_rs(scheme: &crate::ir::SecurityScheme, token_url: &str) -> TokenStream {
    let intro = format!(
        " OAuth 2.0 client credentials of the `{}` scheme, token endpoint `{token_url}`.",
        scheme.name
    );
    let doc = doc_attrs(scheme.doc.as_deref());
    let separator = scheme.doc.is_some().then(|| quote! { #[doc = ""] });
    quote! {
        //! The document's OAuth 2.0 client-credentials scheme.

        use crate::ClientBuilder;

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
