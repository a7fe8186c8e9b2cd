//! The client crate's README.md (see [`crate::emit::readme`]): building a client with the
//! document's credentials, one example per operation group (the group's first operation, its
//! arguments as in the method docs), errors, retries, and pagination, streaming and webhooks
//! where the document has them.

use super::plan::Plan;
use super::requests::RequestEmitter;
use crate::emit::readme::{self, BASE_URL, MAX_EXAMPLES, inline, more};
use crate::emit::{File, Options};
use crate::groups::Groups;
use crate::ir::{Api, ParamLocation, SecurityKind};

/// Operations named per list (idempotency keys, pages, streams).
const MAX_LISTED: usize = 10;

pub fn readme(
    api: &Api,
    opts: &Options,
    plans: &[Plan],
    emitter: &RequestEmitter,
    files: &[File],
) -> File {
    let krate = opts.crate_ident("client").to_string();
    let mut sections = vec![
        readme::intro(api, opts, "client", "Rust client (reqwest)"),
        readme::install(opts, "client", files),
    ];
    let plan_of = |index: usize| {
        plans
            .iter()
            .find(|p| std::ptr::eq(p.op, &api.operations[index]))
    };

    // Building a client, with the credentials the document declares, and one call.
    let mut builder = vec![format!("Client::builder(\"{BASE_URL}\")")];
    let mut auth = Vec::new();
    for scheme in &api.security_schemes {
        let name = inline(&scheme.name).replace('`', "'");
        let (line, how) = match &scheme.kind {
            SecurityKind::Bearer => (
                Some(".bearer_token(\"TOKEN\")".to_owned()),
                "a bearer token: `.bearer_token(token)` on the builder.".to_owned(),
            ),
            SecurityKind::OAuth2ClientCredentials { token_url } => (
                Some(format!(
                    ".client_credentials_at({token_url:?}, \"CLIENT_ID\", \"CLIENT_SECRET\")"
                )),
                "OAuth 2.0 client credentials: `.client_credentials_at(token_url, id, secret)` fetches, caches and renews the access token (or pass a token with `.bearer_token(token)`).".to_owned(),
            ),
            SecurityKind::Basic => (
                None,
                "HTTP Basic: `.default_header(\"Authorization\", \"Basic <base64 of user:password>\")`.".to_owned(),
            ),
            SecurityKind::ApiKey { location: ParamLocation::Header, name: header } => (
                Some(format!(".default_header({header:?}, \"API_KEY\")")),
                format!("an API key in header `{}`: `.default_header({header:?}, key)`.", inline(header).replace('`', "'")),
            ),
            SecurityKind::ApiKey { location: ParamLocation::Cookie, name: cookie } => (
                None,
                format!("an API key in cookie `{}`: `.default_header(\"Cookie\", \"{}=<key>\")`.", inline(cookie).replace('`', "'"), inline(cookie).replace('`', "'")),
            ),
            SecurityKind::ApiKey { name: key, .. } => (
                None,
                format!("an API key in query parameter `{}`, which the client does not add by itself: add it with a `tower` layer (feature `tower`, `ClientBuilder::layer`).", inline(key).replace('`', "'")),
            ),
            SecurityKind::Other(kind) => (
                None,
                format!("HTTP `{}`, which the client does not speak: set the `Authorization` header with `.default_header`.", inline(kind).replace('`', "'")),
            ),
        };
        // A bearer token and client credentials replace each other: the first declared is shown.
        let token =
            |l: &str| l.starts_with(".bearer_token") || l.starts_with(".client_credentials_at");
        if let Some(line) = line
            && !builder.contains(&line)
            && !(token(&line) && builder.iter().any(|l| token(l)))
        {
            builder.push(line);
        }
        let device = if scheme.device_flow.is_some() {
            " Its device authorization flow (`Client::device_authorization`) obtains a token for a user."
        } else {
            ""
        };
        auth.push(format!("- `{name}`: {how}{device}"));
    }
    builder.push(".build()?".to_owned());
    let groups = Groups::of(api);
    let first_call = groups
        .groups
        .first()
        .and_then(|g| plan_of(*g.operations.first()?))
        .and_then(|p| emitter.example_call(p));
    let mut calling = format!(
        "## Calling the API\n\n```rust,no_run\nuse {krate}::Client;\n\nasync fn example() -> Result<(), Box<dyn std::error::Error>> {{\n    let client = {};\n",
        builder.join("\n        ")
    );
    if let Some(call) = &first_call {
        calling.push_str(&format!(
            "    let answer = {};\n    let _ = answer;\n",
            indent(call)
        ));
    } else {
        calling.push_str("    let _ = client;\n");
    }
    calling.push_str("    Ok(())\n}\n```\n\n");
    calling.push_str(
        "Each method returns a request builder: required arguments are the method's, optional \
         parameters are its setters, `.timeout(..)` and `.header(..)` apply to that request only, \
         and `.await` sends it and decodes the answer (`.send_full()` also gives the status and \
         headers). Enable `rustls` or `native-tls` for `https` base URLs.",
    );
    sections.push(calling);
    if !auth.is_empty() {
        sections.push(format!(
            "## Authentication\n\nThe document declares these security schemes:\n\n{}",
            auth.join("\n")
        ));
    }

    // One example per operation group.
    let mut examples = vec!["## Examples by operation group".to_owned()];
    let shown: Vec<_> = groups
        .groups
        .iter()
        .filter_map(|g| {
            let plan = plan_of(*g.operations.first()?)?;
            Some((g, plan, emitter.example_call(plan)?))
        })
        .take(MAX_EXAMPLES)
        .collect();
    for (group, plan, call) in &shown {
        examples.push(format!(
            "### {} (`{}`)\n\n```rust,no_run\nasync fn example(client: &{krate}::Client) -> Result<(), Box<dyn std::error::Error>> {{\n    let answer = {};\n    let _ = answer;\n    Ok(())\n}}\n```",
            inline(&group.source).replace('`', "'"),
            plan.op.name,
            indent(call)
        ));
    }
    examples.push(format!(
        "Every method's documentation has an example like these.{}",
        more(shown.len(), groups.groups.len(), "groups")
    ));
    if !shown.is_empty() {
        sections.push(examples.join("\n\n"));
    }

    sections.push(
        "## Errors\n\nA call answers `Result<T, Error<E>>`. `Error::Api` holds a status the \
         operation documents as an error, with its decoded body (`E`, one variant per status, in \
         module `errors`); `Error::UnexpectedStatus` a status it does not document, with the raw \
         body; `Error::Decode` a body that does not decode as documented; `Error::Transport` a \
         connection, timeout or TLS failure; `Error::Auth` a refused OAuth 2.0 token request; \
         `Error::Service` a failure of a `tower` layer. `Error::status()` gives the status where \
         there was one."
            .to_owned(),
    );

    let keyed: Vec<String> = plans
        .iter()
        .filter(|p| p.op.idempotency_key.is_some())
        .map(|p| format!("`{}`", p.op.name))
        .collect();
    let mut retries = "## Retries\n\n`GET`, `PUT`, `DELETE`, `HEAD`, `OPTIONS` and `TRACE` \
        requests are retried after a connection error, a timeout, or a `502`, `503` or `504` \
        answer, with exponential backoff and `Retry-After` honoured (`ClientBuilder::retry`, \
        `RetryPolicy`). `POST` and `PATCH` are never retried, as the server may have acted on \
        them, unless the operation declares an idempotency key (an `Idempotency-Key` header, or \
        the one its `x-idempotency-key` extension names): then each call sends a fresh UUID v4 \
        in it unless you set one, keeps it across retries, and is retried like a `GET`."
        .to_owned();
    if !keyed.is_empty() {
        retries.push_str(&format!(
            " Operations with an idempotency key: {}.{}",
            listed(&keyed),
            more(keyed.len().min(MAX_LISTED), keyed.len(), "operations")
        ));
    }
    sections.push(retries);

    let paged: Vec<String> = plans
        .iter()
        .filter(|p| p.paging.is_some())
        .map(|p| format!("`{}`", p.op.name))
        .collect();
    if !paged.is_empty() {
        sections.push(format!(
            "## Pagination\n\nThe builders of {} have `.into_stream()`, a stream of every item, \
             page after page.{}",
            listed(&paged),
            more(paged.len().min(MAX_LISTED), paged.len(), "operations")
        ));
    }
    let streams: Vec<String> = plans
        .iter()
        .filter(|p| p.stream.is_some())
        .map(|p| format!("`{}`", p.op.name))
        .collect();
    if !streams.is_empty() {
        sections.push(format!(
            "## Streaming\n\n{} answer a stream (server-sent events or JSON lines): each item is \
             decoded as it arrives; see each method's documentation.{}",
            listed(&streams),
            more(streams.len().min(MAX_LISTED), streams.len(), "operations")
        ));
    }
    if !api.hooks.is_empty() {
        sections.push(
            "## Webhooks\n\nThe API sends webhooks or callbacks. Feature `webhooks` adds module \
             `webhooks`, which receives them: implement its trait and nest its axum `router` \
             where you registered your URL."
                .to_owned(),
        );
    }
    sections.push(
        "## Testing without a server\n\nWith feature `tower`, `Client::from_service(service)` \
         sends requests through any `tower::Service`, such as the router of the generated server \
         crate with a mock implementation, in process and without a socket; \
         `ClientBuilder::layer` adds middleware (tracing, credentials) around the HTTP client."
            .to_owned(),
    );
    readme::file(sections)
}

/// The first of `names`, comma separated.
fn listed(names: &[String]) -> String {
    names
        .iter()
        .take(MAX_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ")
}

/// A call written over several lines, indented one more level inside a function.
fn indent(call: &str) -> String {
    call.lines().collect::<Vec<_>>().join("\n    ")
}
