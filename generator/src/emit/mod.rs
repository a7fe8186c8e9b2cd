//! Emitting Rust crates from the IR. Emitters read only `ir` types, decide what a crate holds in a
//! plan (`server/plan/`, `client/plan.rs`) and render with `quote`; the tokens are printed in one
//! place, [`print()`] (parsed with `syn`, printed with `prettyplease`), and a file is its printed
//! parts after the header, with a blank line between items ([`assembled`]). No code is laid out by
//! hand. [`crates`] assembles the crates, handing each emitter the [`Root`] its code lives at.
//!
//! Formatting is prettyplease's alone, never `rustfmt`'s: the bytes then depend only on the locked
//! prettyplease version, not on whichever toolchain is installed (so the drift check compares like
//! with like), and no process is started. `cargo fmt` would re-lay prettyplease's output, so each
//! crate root marks its items `#[rustfmt::skip]` ([`crate_root`]): rustfmt then leaves the root's
//! items and the module files they declare as they are. prettyplease prints a macro's arguments as
//! raw tokens unless they are a single literal, so emitters keep macros to literals
//! (`format!("/things/{id}")` after `let id = ...;`).
//!
//! Large files are rendered and printed in parts on every core ([`printed_parts`], with rayon);
//! tokens cannot cross threads, so a part comes back printed.

mod checks;
pub mod client;
pub mod crates;
mod defaults;
mod fields;
mod markdown;
pub mod models;
pub mod readme;
mod rust;
pub mod server;
mod status;

pub use crate::patterns::Patterns;
pub use rust::{TypePrinter, doc_attrs, ident};

use crate::ir::Api;
use proc_macro2::TokenStream;
use quote::quote;
use rayon::prelude::*;
use syn::parse::Parser;

/// Settings shared by every emitted crate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Crate names are `{prefix}-models`, `{prefix}-server`, `{prefix}-client`.
    pub crate_prefix: String,
    /// The `version` of every generated crate, and the exact version they require of each other.
    pub crate_version: String,
    /// How the spec is named in the generated header (a path relative to the repository).
    pub source_name: String,
    /// The command that regenerates the files, named in their header.
    pub command: String,
    /// `format: uri` as `url::Url`. By default (`false`) it is a `String` that `Validate` checks:
    /// `format` is an annotation in JSON Schema, so a client keeps whatever text a server answers
    /// (a relative URL, say) and the generated server, which validates, still refuses a non-URI.
    pub uri_as_url: bool,
    /// Integer formats narrower than 64 bits (`int32`, `uint8`...) as the Rust type of that width.
    /// By default (`false`) they are `i64` bounded by the format, which `Validate` checks: a client
    /// keeps an integer beyond the documented width, and the generated server refuses it.
    pub narrow_integers: bool,
    /// `format: uuid`, `date-time` and `date` as `uuid::Uuid`, `chrono::DateTime<Utc>` and
    /// `chrono::NaiveDate`. By default (`false`) what a client decodes holds them as `String`s that
    /// `Validate` checks: a client keeps an id that is not a UUID or a timestamp without an offset,
    /// and the generated server refuses them. Parameters keep the types either way.
    pub typed_formats: bool,
    /// String and integer enums keep values the document does not list in an `Unknown` variant
    /// (the default), so an API can add values without breaking deployed clients; `Validate`
    /// reports them, so the generated server still refuses them. `false` refuses them when decoding.
    pub open_enums: bool,
    /// Refuse a document with any flaw. By default (`false`) a flaw leaves out only the part it is
    /// in and what needs that part, with a warning each (see [`crate::salvage`]).
    pub strict: bool,
    /// Only these operation groups (feature names, see [`crate::groups`]) and what they reach;
    /// empty (the default) for all. An unknown name is an error listing the document's groups.
    pub groups: Vec<String>,
    /// A cargo feature per operation group in the generated crates (the default, `true`; see
    /// [`crate::groups`]): the client's and server's operations and the models' types are gated
    /// on the groups that use them, and `default` enables every group. The build.rs module, which
    /// has no manifest of its own, compiles everything (`false`).
    pub group_features: bool,
}

impl Options {
    /// Version 0.1.0; set the field to change it.
    pub fn new(crate_prefix: &str, source_name: &str, command: &str) -> Options {
        Options {
            crate_prefix: crate_prefix.to_owned(),
            crate_version: "0.1.0".to_owned(),
            source_name: source_name.to_owned(),
            command: command.to_owned(),
            uri_as_url: false,
            narrow_integers: false,
            typed_formats: false,
            open_enums: true,
            strict: false,
            groups: Vec::new(),
            group_features: true,
        }
    }

    /// Whether every value can be used as it is: `crate_prefix` must make crate names (ASCII
    /// letters, digits, `-` and `_`, starting with a letter, at most 64 characters with the
    /// `-models` suffix), `crate_version` must be a semver version, and `source_name` and
    /// `command`, which the header of every file quotes in a comment, must hold no line break or
    /// other control character. The error names the value and the rule it breaks.
    pub fn check(&self) -> Result<(), String> {
        check_crate_prefix(&self.crate_prefix)?;
        if !is_semver(&self.crate_version) {
            return Err(format!(
                "crate version {:?} is not a semver version (MAJOR.MINOR.PATCH, each a number \
                 without leading zeros, then optionally -PRERELEASE and +BUILD of ASCII letters, \
                 digits, `-` and `.`), as Cargo requires",
                self.crate_version
            ));
        }
        for (what, value) in [
            ("source name", &self.source_name),
            ("command", &self.command),
        ] {
            if value.chars().any(char::is_control) {
                return Err(format!(
                    "{what} {value:?} holds a line break or another control character: the \
                     generated files name it in a one-line comment"
                ));
            }
        }
        Ok(())
    }

    /// The crate name of a part (`models`, `server`, `client`): `{prefix}-{part}`.
    pub fn crate_name(&self, part: &str) -> String {
        format!("{}-{part}", self.crate_prefix)
    }

    /// The crate name of a part as it is spelled in Rust paths (`my_api_models`).
    pub fn crate_ident(&self, part: &str) -> proc_macro2::Ident {
        ident(&self.crate_name(part).replace('-', "_"))
    }
}

/// The longest crate name crates.io accepts.
const MAX_CRATE_NAME: usize = 64;

/// A crate prefix makes three crate names (`{prefix}-models`, ...) and their Rust spelling
/// (`{prefix}_models`): crates.io's rule for a name (ASCII letters, digits, `-`, `_`, a letter
/// first, 64 characters at most) makes both valid.
fn check_crate_prefix(prefix: &str) -> Result<(), String> {
    let rule = "a crate prefix is ASCII letters, digits, `-` and `_`, starting with a letter \
                (crates.io's rule for crate names, whose Rust spelling must be an identifier)";
    let Some(first) = prefix.chars().next() else {
        return Err(format!("crate prefix is empty: {rule}"));
    };
    if !first.is_ascii_alphabetic() {
        return Err(format!(
            "crate prefix {prefix:?} starts with {first:?}: {rule}"
        ));
    }
    if let Some(bad) = prefix
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
    {
        return Err(format!("crate prefix {prefix:?} holds {bad:?}: {rule}"));
    }
    let longest = prefix.len() + "-models".len();
    if longest > MAX_CRATE_NAME {
        return Err(format!(
            "crate prefix {prefix:?} is too long: crate names (`{prefix}-models`) are at most \
             {MAX_CRATE_NAME} characters on crates.io, so a prefix is at most {}",
            MAX_CRATE_NAME - "-models".len()
        ));
    }
    Ok(())
}

/// `MAJOR.MINOR.PATCH`, then optionally `-PRERELEASE` and `+BUILD` (semver 2.0.0, which Cargo
/// reads).
fn is_semver(version: &str) -> bool {
    let (rest, build) = match version.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (version, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let number = |n: &str| {
        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == "0" || !n.starts_with('0'))
    };
    let identifiers = |text: &str| {
        text.split('.')
            .all(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    };
    let core: Vec<&str> = core.split('.').collect();
    core.len() == 3
        && core.iter().all(|n| number(n))
        && pre.is_none_or(identifiers)
        && build.is_none_or(identifiers)
}

/// Where an emitter's code lives: the root of its own crate, or module `webhooks` of the other
/// crate (the client's code sends webhooks from the server crate, the server's code receives them
/// in the client crate); or, in the build.rs module ([`crate::module`]), the part's inline module
/// or its `webhooks`. Renderers spell every path from it, so a file is printed once, with its
/// final paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `crate`.
    Crate,
    /// `crate::webhooks`.
    Webhooks,
    /// A part's module (`models`, `server`, `client`) of the build.rs module. Where the includer
    /// puts it is unknown, so its code spells it relative to its own module: `super` from a file
    /// below it.
    Module,
    /// Module `webhooks` of a [`Root::Module`].
    ModuleWebhooks,
}

impl Root {
    /// The root of module `webhooks` below this one.
    pub fn webhooks(self) -> Root {
        match self {
            Root::Crate | Root::Webhooks => Root::Webhooks,
            Root::Module | Root::ModuleWebhooks => Root::ModuleWebhooks,
        }
    }

    /// In the build.rs module: no manifest, so no crate features, README or doc tests.
    pub fn in_module(self) -> bool {
        matches!(self, Root::Module | Root::ModuleWebhooks)
    }

    /// Module `webhooks` of a crate or of a part's module.
    pub fn is_webhooks(self) -> bool {
        matches!(self, Root::Webhooks | Root::ModuleWebhooks)
    }

    /// The root as code in a file below it (`src/x.rs`) spells it: `crate`, `crate::webhooks` or
    /// `super`. Every path the emitters print from a root is in such a file.
    pub fn path(self) -> TokenStream {
        self.path_at(1)
    }

    /// The root as code `depth` modules below it spells it (an inline module of a file is 2, the
    /// deepest the emitters print).
    pub fn path_at(self, depth: usize) -> TokenStream {
        self.text_at(depth).parse().expect("a path")
    }

    /// [`Root::path`] as docs spell it.
    pub fn text(self) -> &'static str {
        self.text_at(1)
    }

    fn text_at(self, depth: usize) -> &'static str {
        match self {
            Root::Crate => "crate",
            Root::Webhooks => "crate::webhooks",
            Root::Module | Root::ModuleWebhooks => match depth {
                0 => "self",
                1 => "super",
                2 => "super::super",
                _ => unreachable!("no emitted code is more than 2 modules below its root"),
            },
        }
    }

    /// The models crate as the root's own file (`lib.rs`, `mod.rs`) names it: by its crate name,
    /// or, in the build.rs module, as the sibling of the part's module.
    pub fn models(self, opts: &Options) -> TokenStream {
        match self {
            Root::Crate | Root::Webhooks => {
                let models = opts.crate_ident("models");
                quote! { #models }
            }
            Root::Module => quote! { super::models },
            Root::ModuleWebhooks => quote! { super::super::models },
        }
    }

    /// The path of a crate's file `src/{rest}` at this root: under `src/webhooks/`, `lib.rs` being
    /// `mod.rs`.
    pub fn file(self, rest: &str) -> String {
        match (self.is_webhooks(), rest) {
            (false, _) => format!("src/{rest}"),
            (true, "lib.rs") => "src/webhooks/mod.rs".to_owned(),
            (true, _) => format!("src/webhooks/{rest}"),
        }
    }

    /// A runtime file (a template, written at a crate's root for the client crate's features)
    /// as it reads at this root: its `crate::` paths from the root, and the features the host
    /// lacks decided: `tower` is the client crate's own, and a module has no TLS features (the
    /// includer picks reqwest's).
    pub fn template(self, text: &str) -> String {
        if self == Root::Crate {
            return text.to_owned();
        }
        let text = text
            .replace("crate::", &format!("{}::", self.text()))
            .replace("feature = \"tower\"", "any()");
        if self.in_module() {
            text.replace(
                "cfg!(any(feature = \"rustls\", feature = \"native-tls\"))",
                "cfg!(all())",
            )
        } else {
            text
        }
    }
}

/// One generated file, its path relative to the crate root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Relative to the crate's folder, `/`-separated: `Cargo.toml`, `src/lib.rs`, ...
    pub path: String,
    /// The whole file, header included.
    pub contents: String,
}

/// The generator's version, recorded in every generated file (see the README's semver policy).
pub const GENERATOR_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The first lines of every generated file: what made it, from which document, how to remake it.
pub fn header(opts: &Options) -> String {
    format!(
        "// @generated by openapi-gen {GENERATOR_VERSION} from {}. Do not edit by hand: run `{}`.\n\n",
        opts.source_name, opts.command
    )
}

/// How a generated crate depends on a sibling (`models`): by path for this workspace, and by the
/// same exact version for a registry, as the crates are generated and published together.
pub fn sibling_dependency(opts: &Options, part: &str) -> String {
    format!(
        "{} = {{ path = \"../{part}\", version = \"={}\" }}",
        opts.crate_name(part),
        opts.crate_version
    )
}

/// The `url` dependency line of a crate whose document uses `format: uri` as `url::Url` (the
/// models, and the client and server, which name `url::Url` in their own code).
pub fn url_dependency(api: &Api) -> &'static str {
    if api.uses(crate::ir::Primitive::Url) {
        "url = { version = \"2\", features = [\"serde\"] }\n"
    } else {
        ""
    }
}

/// The models crate as a dependency of the client or server: without its default features when
/// the crates have a feature per group, so that each group's feature picks the models' own.
pub fn models_dependency(opts: &Options, groups: Option<&crate::groups::Groups>) -> String {
    let line = sibling_dependency(opts, "models");
    match groups {
        Some(_) => line.replace(" }", ", default-features = false }"),
        None => line,
    }
}

/// The `[features]` lines of the operation groups (see [`crate::groups`]): `default` and
/// `all-groups` with every group, then one feature per group with its operation count; `forward` is the models crate's
/// name, whose feature of the same name each group's enables (`None` for the models crate).
/// Empty without groups.
pub fn group_features_toml(
    groups: Option<&crate::groups::Groups>,
    forward: Option<&str>,
) -> String {
    let Some(groups) = groups else {
        return String::new();
    };
    let mut out = String::from(
        "# Operation groups: one feature each (an operation's first tag, or, in a document that tags\n\
         # none, the first path segment after a version). A group compiles its operations and the\n\
         # models they reach, nothing else. `all-groups` (the default) enables every group, and the\n\
         # models no operation reaches. crates.io allows 300 features a crate: above 290 groups,\n\
         # the smallest are merged into `more-groups`.\n\
         default = [\"all-groups\"]\n",
    );
    let unused = groups.unused_components();
    let mut names = groups.names();
    if unused > 0 {
        names.push(crate::groups::UNUSED_COMPONENTS);
    }
    let mut every: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    if let Some(models) = forward {
        every.push(format!("\"{models}/all-groups\""));
    }
    let list = every.join(", ");
    if list.len() + "all-groups = []".len() <= 100 {
        out.push_str(&format!("all-groups = [{list}]\n"));
    } else {
        out.push_str("all-groups = [\n");
        let mut line = String::new();
        for item in every {
            let item = format!("{item},");
            if !line.is_empty() && line.len() + 1 + item.len() > 96 {
                out.push_str(&format!("    {line}\n"));
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&item);
        }
        if !line.is_empty() {
            out.push_str(&format!("    {line}\n"));
        }
        out.push_str("]\n");
    }
    for group in &groups.groups {
        let count = group.operations.len();
        let operations = if count == 1 {
            "operation"
        } else {
            "operations"
        };
        let source = if group.merged.is_empty() {
            match group.source.as_str() {
                "" => " without a group".to_owned(),
                source => format!(" of `{}`", source.replace(['\n', '\r'], " ")),
            }
        } else {
            format!(" of the groups merged: {}", group.merged.join(", "))
        };
        out.push_str(&format!("# {count} {operations}{source}.\n"));
        let target = match forward {
            Some(models) => format!("\"{models}/{}\"", group.name),
            None => String::new(),
        };
        out.push_str(&format!("{} = [{target}]\n", group.name));
    }
    if unused > 0 {
        let target = match forward {
            Some(models) => format!("\"{models}/{}\"", crate::groups::UNUSED_COMPONENTS),
            None => String::new(),
        };
        out.push_str(&format!(
            "# {unused} models: those no operation reaches (components a program may use by hand), and\n\
             # what they name.\n{} = [{target}]\n",
            crate::groups::UNUSED_COMPONENTS
        ));
    }
    out
}

/// The `Cargo.toml` of a generated crate: the header, `[package]` (with what the document's `info`
/// says of its publisher), `[lib]`, then `sections` (features and dependencies, as TOML text).
pub fn cargo_toml(
    api: &Api,
    opts: &Options,
    part: &str,
    description: &str,
    sections: &str,
) -> File {
    let header = header(opts).replace("// ", "# ");
    let publisher = &api.publisher;
    let mut package = String::new();
    match &publisher.license {
        Some(license) if is_spdx_expression(license) => {
            package.push_str(&format!("license = {}\n", toml_string(license)));
        }
        Some(license) => package.push_str(&format!(
            "# The document's license, {}{}, is not an SPDX expression: state one before publishing.\n",
            toml_string(license),
            publisher
                .license_url
                .as_ref()
                .map(|url| format!(" ({url})"))
                .unwrap_or_default(),
        )),
        None => package.push_str(
            "# The document states no license: state the crate's before publishing.\n",
        ),
    }
    if let Some(contact) = &publisher.contact {
        package.push_str(&format!("authors = [{}]\n", toml_string(contact)));
    }
    if let Some(url) = &publisher.contact_url {
        package.push_str(&format!("homepage = {}\n", toml_string(url)));
    }
    let mut metadata = format!(
        "generator-version = \"{GENERATOR_VERSION}\"\nsource = {}\napi-version = {}\n",
        toml_string(&opts.source_name),
        toml_string(&api.version),
    );
    if let Some(url) = &publisher.terms_of_service {
        metadata.push_str(&format!("terms-of-service = {}\n", toml_string(url)));
    }
    let contents = format!(
        r#"{header}[package]
name = "{name}"
version = "{version}"
edition = "2024"
description = {description}
readme = "README.md"
{package}
[package.metadata.openapi-gen]
{metadata}
[lib]
# `cargo test --doc` compiles the examples (README.md's and the docs'); the document's own code
# blocks are text, never run.
doctest = true

{sections}"#,
        name = opts.crate_name(part),
        version = opts.crate_version,
        description = toml_string(description),
    );
    File {
        path: "Cargo.toml".to_owned(),
        contents,
    }
}

/// A TOML basic string (JSON's escapes are TOML's for the characters a string may hold).
fn toml_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// Whether `license` is written as an SPDX license expression (`MIT`, `MIT OR Apache-2.0`,
/// `GPL-2.0-or-later WITH Classpath-exception-2.0`), which `cargo publish` asks for; `Apache 2.0`
/// is a name, not an expression.
fn is_spdx_expression(license: &str) -> bool {
    let id = |word: &str| {
        !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
    };
    let mut words = license
        .split(' ')
        .map(|w| w.trim_start_matches('(').trim_end_matches(')'));
    words.next().is_some_and(id)
        && words.collect::<Vec<_>>().chunks(2).all(
            |pair| matches!(pair, [op, word] if matches!(*op, "OR" | "AND" | "WITH") && id(word)),
        )
}

/// Prints a token stream as a formatted Rust source file with the generated-code header.
pub fn rust_file(tokens: TokenStream, opts: &Options, path: &str) -> Result<File, String> {
    Ok(assembled(opts, path, &[print(tokens, path)?]))
}

/// Prints tokens (items, optionally after inner attributes) with prettyplease, without the
/// header. prettyplease lays out each item on its own, so a file printed in parts (on several
/// threads, see [`printed_parts`]) joins to the same bytes as printed at once.
pub fn print(tokens: TokenStream, path: &str) -> Result<String, String> {
    if tokens.is_empty() {
        return Ok(String::new());
    }
    Ok(prettyplease::unparse(&parse_file(tokens, path)?))
}

/// Items per part of a file printed in parts: enough that a part's fixed cost is small, few enough
/// that a large file spreads over the cores.
const ITEMS_PER_PART: usize = 150;

/// The parts of the file at `path` that hold `items`, rendered by `render` and printed on any core,
/// in order (see [`print()`]).
pub fn printed_parts<T: Sync>(
    items: &[T],
    path: &str,
    render: impl Fn(&[T]) -> TokenStream + Sync,
) -> Result<Vec<String>, String> {
    items
        .par_chunks(ITEMS_PER_PART)
        .map(|part| print(render(part), path))
        .collect()
}

/// A file from its printed parts, in order (see [`print()`]), after the generated-code header.
pub fn assembled(opts: &Options, path: &str, parts: &[String]) -> File {
    printed_file(opts, path, &parts.concat())
}

/// A file of code prettyplease printed, after the header, with blank lines between items.
fn printed_file(opts: &Options, path: &str, printed: &str) -> File {
    let header = header(opts);
    let mut contents = String::with_capacity(header.len() + printed.len() + printed.len() / 16);
    contents.push_str(&header);
    space_items(printed.lines(), &mut contents);
    File {
        path: path.to_owned(),
        contents,
    }
}

/// A crate's `lib.rs`: like [`rust_file`], with every item marked `#[rustfmt::skip]` so that
/// `cargo fmt` keeps prettyplease's layout of the root and of every module file it declares.
pub fn crate_root(tokens: TokenStream, opts: &Options) -> Result<File, String> {
    let path = "src/lib.rs";
    let mut file = parse_file(tokens, path)?;
    let skip: syn::Attribute = syn::parse_quote!(#[rustfmt::skip]);
    for item in &mut file.items {
        if let Some(attrs) = item_attrs(item) {
            attrs.push(skip.clone());
        }
    }
    Ok(printed_file(opts, path, &prettyplease::unparse(&file)))
}

/// The operation groups of `api` when its crates get a feature per group (see
/// [`Options::group_features`]); `None` without operations.
pub fn feature_groups(api: &Api, opts: &Options) -> Option<crate::groups::Groups> {
    (opts.group_features && !api.operations.is_empty()).then(|| crate::groups::Groups::of(api))
}

/// `#[cfg(feature = "a")]`, or `#[cfg(any(feature = "a", feature = "b"))]`, for an item compiled
/// when any of the groups `features` is on; nothing for none (compiled always).
pub fn cfg_features(features: &[&str]) -> TokenStream {
    match features {
        [] => TokenStream::new(),
        [one] => quote! { #[cfg(feature = #one)] },
        many => quote! { #[cfg(any(#(feature = #many),*))] },
    }
}

/// Every item of `tokens` (a sequence of items) behind `cfg` (from [`cfg_features`]).
pub fn gated(tokens: TokenStream, cfg: &TokenStream) -> TokenStream {
    if cfg.is_empty() || tokens.is_empty() {
        return tokens;
    }
    let Ok(mut file) = syn::parse2::<syn::File>(tokens.clone()) else {
        // Not items: the printer reports it with its path.
        return tokens;
    };
    for item in &mut file.items {
        if let Some(attrs) = any_item_attrs(item) {
            insert_after_docs(attrs, cfg);
        }
    }
    file.items
        .iter()
        .map(quote::ToTokens::to_token_stream)
        .collect()
}

/// An associated function (`impl` or trait item) behind `cfg`, after its doc comment.
pub fn gated_fn(tokens: TokenStream, cfg: &TokenStream) -> TokenStream {
    if cfg.is_empty() || tokens.is_empty() {
        return tokens;
    }
    if let Ok(mut f) = syn::parse2::<syn::ImplItemFn>(tokens.clone()) {
        insert_after_docs(&mut f.attrs, cfg);
        return quote! { #f };
    }
    if let Ok(mut f) = syn::parse2::<syn::TraitItemFn>(tokens.clone()) {
        insert_after_docs(&mut f.attrs, cfg);
        return quote! { #f };
    }
    quote! { #cfg #tokens }
}

/// Puts the attribute `cfg` after the doc comment in `attrs` (where a reader looks for it).
fn insert_after_docs(attrs: &mut Vec<syn::Attribute>, cfg: &TokenStream) {
    let Ok(parsed) = syn::Attribute::parse_outer.parse2(cfg.clone()) else {
        return;
    };
    let at = attrs
        .iter()
        .rposition(|a| a.path().is_ident("doc"))
        .map_or(0, |i| i + 1);
    attrs.splice(at..at, parsed);
}

fn any_item_attrs(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Item;
    match item {
        Item::Const(i) => Some(&mut i.attrs),
        Item::Enum(i) => Some(&mut i.attrs),
        Item::Fn(i) => Some(&mut i.attrs),
        Item::Impl(i) => Some(&mut i.attrs),
        Item::Mod(i) => Some(&mut i.attrs),
        Item::Static(i) => Some(&mut i.attrs),
        Item::Struct(i) => Some(&mut i.attrs),
        Item::Trait(i) => Some(&mut i.attrs),
        Item::Type(i) => Some(&mut i.attrs),
        Item::Union(i) => Some(&mut i.attrs),
        Item::Use(i) => Some(&mut i.attrs),
        Item::Macro(i) => Some(&mut i.attrs),
        _ => None,
    }
}

/// The crate-level lint levels of a crate with a feature per group: code shared by some
/// operations (runtime helpers, imports of what the operations name) goes unused when some group
/// is off, and only then (without `all-groups`, the default) is that allowed.
pub fn selection_lints(groups: Option<&crate::groups::Groups>) -> TokenStream {
    if groups.is_none() {
        return TokenStream::new();
    }
    quote! {
        #![cfg_attr(
            not(feature = "all-groups"),
            allow(
                dead_code,
                unused_imports,
                unused_variables,
                reason = "with some operation groups off, code only their operations use goes unused"
            )
        )]
    }
}

fn item_attrs(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    match item {
        syn::Item::Mod(m) => Some(&mut m.attrs),
        syn::Item::Use(u) => Some(&mut u.attrs),
        _ => None,
    }
}

fn parse_file(tokens: TokenStream, path: &str) -> Result<syn::File, String> {
    syn::parse2(tokens).map_err(|e| format!("{path}: generated tokens do not parse: {e}"))
}

/// A template copied verbatim, with the generated-code header in front.
pub fn template_file(opts: &Options, path: &str, text: &str) -> File {
    File {
        path: path.to_owned(),
        contents: format!("{}{text}", header(opts)),
    }
}

/// prettyplease prints items back to back; a blank line between two items at the same depth reads
/// like hand-written code. prettyplease escapes newlines inside literals, so a line is always code.
fn space_items<'a>(lines: impl Iterator<Item = &'a str>, out: &mut String) {
    const ITEM_STARTS: [&str; 14] = [
        "///", "#[", "#![", "pub ", "pub(", "impl", "fn ", "mod ", "struct ", "enum ", "type ",
        "const ", "static ", "trait ",
    ];
    // (indent, trimmed text) of the previous line
    let mut prev: Option<(usize, &str)> = None;
    for line in lines {
        let text = line.trim_start();
        let indent = line.len() - text.len();
        if let Some((p_indent, p_text)) = prev {
            let p_text = p_text.trim_end();
            let p_use = p_text.starts_with("use ");
            // `}` closes a block, and an item with an empty body (`pub struct A {}`) or a
            // statement ends on its line; a comment line ending in `;` (prose) closes nothing.
            let closes_item = !p_text.starts_with("//")
                && (p_text == "}" || p_text.ends_with("{}") || (p_text.ends_with(';') && !p_use));
            let after_use = p_use && !text.starts_with("use ");
            if indent == p_indent
                && (closes_item || after_use)
                && ITEM_STARTS.iter().any(|s| text.starts_with(s))
            {
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
        prev = Some((indent, text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_that_cannot_make_crates_are_refused_with_the_rule() {
        let with = |prefix: &str, version: &str| {
            let mut opts = Options::new(prefix, "spec.yaml", "gen");
            opts.crate_version = version.to_owned();
            opts.check()
        };
        for prefix in ["a", "live-events", "my_api2", "A-b_c-3"] {
            assert_eq!(with(prefix, "0.1.0"), Ok(()), "{prefix}");
        }
        for (prefix, says) in [
            ("live-events-3.2", "holds '.'"),
            ("", "is empty"),
            ("3d", "starts with '3'"),
            ("-a", "starts with '-'"),
            ("my api", "holds ' '"),
            ("caf\u{e9}", "holds '\u{e9}'"),
            (&"a".repeat(58), "too long"),
        ] {
            let err = with(prefix, "0.1.0").unwrap_err();
            assert!(err.contains(says), "{prefix}: {err}");
            assert!(
                err.contains(&format!("{prefix:?}")) || prefix.is_empty(),
                "{err}"
            );
        }
        assert_eq!(with(&"a".repeat(57), "0.1.0"), Ok(()));
        for version in ["0.1.0", "1.2.3-beta.1", "1.0.0+build.5", "10.20.30-rc-1+x"] {
            assert_eq!(with("a", version), Ok(()), "{version}");
        }
        for version in [
            "1",
            "1.2",
            "01.2.3",
            "1.2.3-",
            "1.2.3+a..b",
            "1.2.x",
            "1.2.3 ",
        ] {
            let err = with("a", version).unwrap_err();
            assert!(err.contains("is not a semver version"), "{version}: {err}");
        }
        let mut opts = Options::new("a", "spec.yaml\nfn main() {}", "gen");
        assert!(opts.check().unwrap_err().contains("line break"));
        opts.source_name = "spec.yaml".to_owned();
        opts.command = "gen\r".to_owned();
        assert!(opts.check().unwrap_err().starts_with("command \"gen\\r\""));
    }

    #[test]
    fn licenses_are_stated_only_as_spdx_expressions() {
        for spdx in [
            "MIT",
            "Apache-2.0",
            "MIT OR Apache-2.0",
            "(MIT OR Apache-2.0) AND BSD-3-Clause",
            "GPL-2.0-or-later WITH Classpath-exception-2.0",
            "LicenseRef-Proprietary",
        ] {
            assert!(is_spdx_expression(spdx), "{spdx}");
        }
        for name in [
            "Apache 2.0",
            "MIT or Apache-2.0",
            "",
            "MIT OR",
            "Proprietary, see terms",
        ] {
            assert!(!is_spdx_expression(name), "{name}");
        }
    }

    #[test]
    fn a_license_name_that_is_no_expression_is_left_to_the_publisher() {
        let opts = Options::new("x", "spec.yaml", "gen");
        let mut api = crate::load_api(
            "openapi: 3.0.3\ninfo: {title: T, version: '1', license: {name: Apache 2.0, url: 'https://a.example/l'}}\npaths: {}\n",
        )
        .unwrap()
        .0;
        let manifest = cargo_toml(&api, &opts, "models", "d", "").contents;
        assert!(!manifest.contains("\nlicense ="), "{manifest}");
        assert!(
            manifest.contains("# The document's license, \"Apache 2.0\" (https://a.example/l), is not an SPDX expression"),
            "{manifest}"
        );
        api.publisher.license = Some("Apache-2.0".to_owned());
        let manifest = cargo_toml(&api, &opts, "models", "d", "").contents;
        assert!(
            manifest.contains("\nlicense = \"Apache-2.0\"\n"),
            "{manifest}"
        );
    }

    #[test]
    fn items_are_spaced_but_doc_lines_ending_in_a_semicolon_are_not() {
        let code = "const A: u8 = 1;\nconst B: u8 = 2;\n/// first: one;\n/// second: two;\npub struct C;\n";
        let mut out = String::new();
        space_items(code.lines(), &mut out);
        assert_eq!(
            out,
            "const A: u8 = 1;\n\nconst B: u8 = 2;\n\n/// first: one;\n/// second: two;\npub struct C;\n"
        );
    }

    #[test]
    fn an_item_with_an_empty_body_is_spaced_from_the_next() {
        let code = "pub struct A {}\n#[derive(Debug)]\npub struct B;\n";
        let mut out = String::new();
        space_items(code.lines(), &mut out);
        assert_eq!(out, "pub struct A {}\n\n#[derive(Debug)]\npub struct B;\n");
    }
}
