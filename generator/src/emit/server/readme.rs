//! The server crate's README.md (see [`crate::emit::readme`]): implementing the trait and
//! serving the router, credentials, errors, and streaming and webhooks where the document has
//! them.

use super::plan::{Need, Plan};
use crate::emit::readme::{self, inline};
use crate::emit::{File, Options};
use crate::ir::{ParamLocation, SecurityKind};

pub fn readme(plan: &Plan, opts: &Options, files: &[File]) -> File {
    let api = plan.api;
    let krate = opts.crate_ident("server").to_string();
    let name = &plan.trait_name;
    let mut sections = vec![
        readme::intro(
            api,
            opts,
            "server",
            "Rust server (a trait to implement and an axum router)",
        ),
        readme::install(opts, "server", files),
    ];
    sections.push(format!(
        "## Implementing\n\nImplement `{name}`, one async method per operation: each receives its \
         request already parsed and validated (parameters with their defaults, the decoded body) \
         and answers with its response enum, one variant per documented status. Serve it with \
         `router`:\n\n```rust,no_run\nuse {krate}::{{router, {name}}};\nuse std::sync::Arc;\n\n\
         async fn serve(api: impl {name}, listener: impl {krate}::axum::serve::Listener<Addr: std::fmt::Debug>) {{\n    \
         {krate}::axum::serve(listener, router(Arc::new(api))).await.expect(\"serving\");\n}}\n```\n\n\
         The trait's documentation has an example implementing an operation."
    ));
    let mut auth = Vec::new();
    if plan.ops.iter().any(|op| op.bearer != Need::No) {
        auth.push(
            "Bearer tokens go to `authenticate`, which says who the request acts for (the \
             operations' `principal`) or refuses it."
                .to_owned(),
        );
    }
    for scheme in &api.security_schemes {
        match &scheme.kind {
            SecurityKind::Basic => auth.push(format!(
                "HTTP Basic (`{}`): the credentials are in the request (`request.basic`).",
                inline(&scheme.name).replace('`', "'")
            )),
            SecurityKind::ApiKey { location, name } => auth.push(format!(
                "API key `{}` (in the {}): read by the router into the request; the operation checks it.",
                inline(name).replace('`', "'"),
                match location {
                    ParamLocation::Header => "header",
                    ParamLocation::Query => "query",
                    ParamLocation::Cookie => "cookie",
                    ParamLocation::Path => "path",
                }
            )),
            _ => {}
        }
    }
    if !auth.is_empty() {
        sections.push(format!("## Authentication\n\n{}", auth.join(" ")));
    }
    sections.push(
        "## Errors\n\nRequests that fail parsing, validation or authentication never reach the \
         trait: the router answers them with the API's error body, which the trait's \
         `rejection` builds from a `Rejection` (or `ErrorMessage` where the document has no \
         error body). Response enums whose errors carry that body implement \
         `respond::ErrorResponse`, so one function can map an implementation's errors onto every \
         operation."
            .to_owned(),
    );
    if api.has_streams() {
        sections.push(
            "## Streaming\n\nOperations documented with `text/event-stream` or JSON lines answer a \
             stream: each item is written as soon as the implementation's stream yields it."
                .to_owned(),
        );
    }
    if !api.hooks.is_empty() {
        sections.push(
            "## Webhooks\n\nThe API sends webhooks or callbacks. Feature `webhooks` adds module \
             `webhooks`: a client that sends each of them to the URL its receiver gave."
                .to_owned(),
        );
    }
    readme::file(sections)
}
