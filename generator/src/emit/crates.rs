//! Assembles the crates. Each emitter renders one crate at the root it is handed ([`Root`]); the
//! webhooks and callbacks of a document are the other emitter's code as module `webhooks`: the
//! server crate sends them with the client's code, the client crate receives them with the
//! server's. This is the only module that knows both emitters, so neither imports the other. The
//! top root is the caller's: [`Root::Crate`] for crates, [`Root::Module`] for the build.rs module.

use super::{File, Options, Patterns, Root, client, crate_root, models, rust_file, server};
use crate::Part;
use crate::ir::Api;
use proc_macro2::TokenStream;
use quote::quote;

/// The files of crate `part` at `root` (its top), webhooks included. Empty when the document has
/// nothing for it.
pub fn emit(
    api: &Api,
    patterns: &Patterns,
    opts: &Options,
    part: Part,
    root: Root,
) -> Result<Vec<File>, String> {
    let mut files = match part {
        Part::Models => {
            let mut files = models::emit_at(api, patterns, opts, root)?;
            if !files.is_empty() && !root.in_module() {
                let readme = super::readme::models(api, opts, &files);
                files.push(readme);
            }
            files
        }
        Part::Server => server_crate(api, patterns, opts, root)?,
        Part::Client => client_crate(api, patterns, opts, root)?,
    };
    // The README's code blocks are doc tests of the crate.
    if files.iter().any(|f| f.path == "README.md")
        && let Some(lib) = files.iter_mut().find(|f| f.path == "src/lib.rs")
    {
        lib.contents.push_str(super::readme::DOCTEST_ITEM);
    }
    Ok(files)
}

fn server_crate(
    api: &Api,
    patterns: &Patterns,
    opts: &Options,
    root: Root,
) -> Result<Vec<File>, String> {
    let sender = sender(api, opts, root)?;
    match server::emit_at(api, patterns, opts, root)? {
        Some(mut files) => {
            // The module's files follow the router's, before the runtime's.
            let at = files
                .iter()
                .position(|f| f.path == "src/router.rs")
                .map_or(files.len(), |i| i + 1);
            files.splice(at..at, sender);
            Ok(files)
        }
        // A document without operations the server can route: a schema library has no server
        // at all, and a document of webhooks only gets a crate of their sender.
        None if api.hooks.is_empty() => Ok(Vec::new()),
        None => {
            let usage = [
                " The document describes no operation to serve, only the webhooks its provider sends: module",
                " [`webhooks`] posts each of them to the URL its receiver gave (feature `webhooks`, on by",
                " default).",
            ];
            let module = [
                " The sender of the API's webhooks: a client that posts each one to the URL its receiver",
                " gave.",
            ];
            let lib = hooks_only_lib(api, opts, root, "Sender", &usage, &module);
            let mut files = vec![server::sender_cargo_toml(api, opts), crate_root(lib, opts)?];
            if !root.in_module() {
                let readme = super::readme::hooks_only(
                    api,
                    opts,
                    "server",
                    &usage.concat().replace("[`webhooks`]", "`webhooks`"),
                    &files,
                );
                files.push(readme);
            }
            files.extend(sender);
            Ok(files)
        }
    }
}

fn client_crate(
    api: &Api,
    patterns: &Patterns,
    opts: &Options,
    root: Root,
) -> Result<Vec<File>, String> {
    let receiver = receiver(api, patterns, opts, root)?;
    // A document without operations has nothing to call: no client crate, or, for a document of
    // webhooks only, a crate of their receiver.
    if api.operations.is_empty() {
        let Some(hooks) = api.hooks_api(true) else {
            return Ok(Vec::new());
        };
        let usage = [
            " The document describes no operation to call, only the webhooks its provider sends: implement",
            " the trait of module [`webhooks`] and serve its router where the provider sends them (feature",
            " `webhooks`, on by default).",
        ];
        let module = [
            " The receiver of the API's webhooks: implement its trait and serve its router where the",
            " API sends them.",
        ];
        let lib = hooks_only_lib(api, opts, root, "Receiver", &usage, &module);
        let mut files = vec![
            client::receiver_cargo_toml(api, &hooks, opts),
            crate_root(lib, opts)?,
        ];
        if !root.in_module() {
            let readme = super::readme::hooks_only(
                api,
                opts,
                "client",
                &usage.concat().replace("[`webhooks`]", "`webhooks`"),
                &files,
            );
            files.push(readme);
        }
        files.extend(receiver);
        return Ok(files);
    }
    let mut files = client::emit_at(api, opts, root, None)?;
    files.extend(receiver);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The receiver of the webhooks and callbacks: the server emitter's crate, as module `webhooks`
/// (`host`: the client's root).
fn receiver(
    api: &Api,
    patterns: &Patterns,
    opts: &Options,
    host: Root,
) -> Result<Vec<File>, String> {
    let Some(hooks) = api.hooks_api(true) else {
        return Ok(Vec::new());
    };
    let root = host.webhooks();
    let files = server::emit_at(&hooks, patterns, opts, root)?.unwrap_or_default();
    Ok(nested(files, root))
}

/// The sender of the webhooks and callbacks: the client emitter's crate, as module `webhooks`,
/// with `urls` when the generated code can compute a callback's URL (`host`: the server's root).
fn sender(api: &Api, opts: &Options, host: Root) -> Result<Vec<File>, String> {
    let Some(hooks) = api.hooks_api(false) else {
        return Ok(Vec::new());
    };
    let urls = callback_urls_rs(api, opts, host);
    let root = host.webhooks();
    let intro = format!(
        " The sender of the webhooks and callbacks of {}: a client per receiver, built for the\n\
         \x20URL the receiver gave (`Client::new(url)`, or `Client::builder(url)` with\n\
         \x20[`ClientBuilder::reqwest_client`] to share one connection pool), whose methods post\n\
         \x20to that URL as it is{}.",
        api.title,
        if urls.is_some() {
            "; [`urls`] computes a callback's URL from the request that registered it"
        } else {
            ""
        }
    );
    let intro: Vec<&str> = intro.lines().collect();
    let sender = client::Sender {
        intro: &intro,
        urls: urls.is_some(),
    };
    let files = client::emit_at(&hooks, opts, root, Some(&sender))?;
    let mut files = nested(files, root);
    if let Some(urls) = urls {
        files.push(rust_file(urls, opts, "src/webhooks/urls.rs")?);
    }
    Ok(files)
}

/// An emitter's files at a webhooks `root`, moved under `src/webhooks/` (`lib.rs` as `mod.rs`);
/// `Cargo.toml` is left out, as the host crate declares the dependencies. The files already spell
/// their paths from the root (the runtime's too, see [`Root::template`]).
fn nested(files: Vec<File>, root: Root) -> Vec<File> {
    let mut nested = Vec::new();
    for file in files {
        let Some(rest) = file.path.strip_prefix("src/") else {
            continue;
        };
        nested.push(File {
            path: root.file(rest),
            contents: file.contents,
        });
    }
    nested
}

/// The root of a crate whose document has webhooks only (`role`: `Sender` or `Receiver`): its
/// docs, the models, and module `webhooks` behind its feature (on by default).
fn hooks_only_lib(
    api: &Api,
    opts: &Options,
    root: Root,
    role: &str,
    usage: &[&str],
    module: &[&str],
) -> TokenStream {
    let title = format!(
        " {role} of the webhooks of {} (version {}), generated from its OpenAPI document.",
        api.title, api.version
    );
    let models = root.models(opts);
    let gate = (!root.in_module()).then(|| quote! { #[cfg(feature = "webhooks")] });
    quote! {
        #![doc = #title]
        #![doc = ""]
        #( #![doc = #usage] )*

        pub use #models as models;

        #( #[doc = #module] )*
        #gate
        pub mod webhooks;
    }
}

/// A callback URL's runtime expression, split into literal text and `$request.body#/...` pointers.
/// `None` when it uses another source (`$request.header...`, `$response...`, `$url`): the sender's
/// caller then computes the URL.
fn expression_parts(expression: &str) -> Option<Vec<Result<String, String>>> {
    let mut parts = Vec::new();
    let mut rest = expression;
    while let Some(start) = rest.find('{') {
        if start > 0 {
            parts.push(Ok(rest[..start].to_owned()));
        }
        let end = rest[start..].find('}')? + start;
        let inner = &rest[start + 1..end];
        let pointer = inner.strip_prefix("$request.body#")?;
        if !(pointer.is_empty() || pointer.starts_with('/')) {
            return None;
        }
        parts.push(Err(pointer.to_owned()));
        rest = &rest[end + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    if !rest.is_empty() {
        parts.push(Ok(rest.to_owned()));
    }
    Some(parts)
}

/// `webhooks::urls`: per callback whose URL the generated code can compute (a literal URL, or text
/// and parts of the JSON request body), a function from the request's body to the URL.
fn callback_urls_rs(api: &Api, opts: &Options, host: Root) -> Option<TokenStream> {
    let groups = super::feature_groups(api, opts);
    use crate::ir::{HookKind, Media};
    let printer = super::TypePrinter::new(&api.types, quote! { models:: });
    let mut seen = std::collections::HashSet::new();
    let mut items = Vec::new();
    let mut needs_text = false;
    let mut uses_models = false;
    for hook in &api.hooks {
        let HookKind::Callback { owner, expression } = &hook.kind else {
            continue;
        };
        if !seen.insert((owner, &hook.name, expression)) {
            continue;
        }
        let Some(parts) = expression_parts(expression) else {
            continue;
        };
        let name = super::ident(&crate::naming::field_ident(&format!(
            "{owner}_{}",
            hook.name
        )));
        let Some(op) = api.operations.iter().find(|op| &op.id == owner) else {
            continue;
        };
        // Behind the feature of its operation's group, whose types it names.
        let gate = (groups.as_ref())
            .and_then(|g| g.of_operation_id(api, owner))
            .map(|name| super::cfg_features(&[name]))
            .unwrap_or_default();
        let doc = format!(
            " The URL of the `{}` callback of `{}`: `{expression}`.",
            hook.name, op.name
        );
        let body_parts = parts.iter().any(Result::is_err);
        let pushes = parts.iter().map(|part| match part {
            Ok(text) => quote! { url.push_str(#text); },
            Err(pointer) => quote! { url.push_str(&text(body.pointer(#pointer)?)?); },
        });
        if !body_parts {
            let text: String = parts.into_iter().flatten().collect();
            items.push(quote! {
                #[doc = #doc]
                pub fn #name() -> &'static str {
                    #text
                }
            });
            continue;
        }
        let Some(body) = op.body.as_ref().filter(|b| b.media == Media::Json) else {
            continue;
        };
        uses_models |= mentions_models(&body.ty);
        let ty = printer.rust_type(&body.ty);
        needs_text = true;
        items.push(quote! {
            #[doc = #doc]
            ///
            /// `None` when the body lacks a part of it (or it is not a string or a number).
            pub fn #name(body: &#ty) -> Option<String> {
                let body = serde_json::to_value(body).ok()?;
                let mut url = String::new();
                #(#pushes)*
                Some(url)
            }
        });
        let item = items.pop().expect("just pushed");
        items.push(super::gated(item, &gate));
    }
    if items.is_empty() {
        return None;
    }
    let text_fn = needs_text.then(|| {
        quote! {
            /// A part of a URL: a string as it is, a number or a boolean as JSON spells it.
            fn text(value: &serde_json::Value) -> Option<String> {
                match value {
                    serde_json::Value::String(s) => Some(s.clone()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    serde_json::Value::Bool(b) => Some(b.to_string()),
                    _ => None,
                }
            }
        }
    });
    // The host's `models`, from `webhooks/urls.rs`.
    let host = host.path_at(2);
    let use_models = uses_models.then(|| quote! { use #host::models; });
    Some(quote! {
        //! The URLs of callbacks, from the request that registered them (their runtime expressions).
        #use_models

        #(#items)*

        #text_fn
    })
}

/// Whether the Rust type of `ty` names the models crate (a named type, or its `Base64`/`File`).
fn mentions_models(ty: &crate::ir::TypeRef) -> bool {
    use crate::ir::{Primitive, TypeRef};
    match ty {
        TypeRef::Named(_) | TypeRef::Primitive(Primitive::Base64 | Primitive::Bytes) => true,
        TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
            mentions_models(inner)
        }
        _ => false,
    }
}
