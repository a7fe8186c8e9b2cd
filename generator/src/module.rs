//! Single-module output, for `build.rs`: the crates [`crate::generate`] makes, as one Rust file of
//! inline modules (`models`, `server`, `client`) with the runtime they copy from templates inlined
//! as their submodules, to be `include!`d:
//!
//! ```ignore
//! // build.rs
//! let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
//! openapi_gen::write_module("api.yaml", &out.join("api.rs"), &openapi_gen::ModuleOptions::new("api.yaml"))?;
//! // src/lib.rs
//! mod api { include!(concat!(env!("OUT_DIR"), "/api.rs")); }
//! ```
//!
//! The crates are emitted at [`emit::Root::Module`]: their code spells paths relative to each
//! part's module (`super::wire::some`, `super::models`), so the file works wherever it is
//! included, and has no crate features, README or doc tests. Here each crate's files are only
//! put together: `mod x;` takes the module file's content. Plain `//` comments of the runtime
//! are not kept (doc comments are).

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit;
use crate::{Part, guard};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

/// What [`generate_module`] emits.
#[derive(Debug, Clone)]
pub struct ModuleOptions {
    /// The parts, each an inline module of that name; models are always included (the others use
    /// them).
    pub parts: Vec<Part>,
    /// The webhooks and callbacks: the server's sender (`server::webhooks`) and the client's
    /// receiver (`client::webhooks`), which the crates put behind their `webhooks` feature.
    pub webhooks: bool,
    /// Names and settings as for crates (`crate_prefix` is not visible in the module).
    pub options: emit::Options,
}

impl ModuleOptions {
    /// Models and client, no server, no webhooks; `source_name` is how the header names the spec.
    pub fn new(source_name: &str) -> ModuleOptions {
        ModuleOptions {
            parts: vec![Part::Models, Part::Client],
            webhooks: false,
            options: emit::Options::new("api", source_name, "cargo build (build.rs)"),
        }
    }
}

/// One generated module.
#[derive(Debug, Clone)]
pub struct Module {
    /// The Rust file: `pub mod models { ... }` and the other parts.
    pub code: String,
    /// The crates the code uses, as `[dependencies]` lines of a `Cargo.toml` (what the generated
    /// crates would declare, less each other).
    pub dependencies: Vec<String>,
    /// The warnings of generating it (see [`crate::Generated::diagnostics`]).
    pub diagnostics: Diagnostics,
}

/// Generates the module of the document `text` (YAML or JSON).
///
/// ```
/// let document = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths: {}\n\
///     components: {schemas: {Pet: {type: object, properties: {name: {type: string}}}}}\n";
/// let module = openapi_gen::generate_module(document, &openapi_gen::ModuleOptions::new("t.yaml"))?;
/// assert!(module.code.contains("pub mod models {"));
/// assert!(module.code.contains("pub struct Pet {"));
/// // What the including crate must declare:
/// assert!(module.dependencies.iter().any(|line| line.starts_with("serde = ")));
/// # Ok::<(), openapi_gen::Diagnostics>(())
/// ```
pub fn generate_module(text: &str, opts: &ModuleOptions) -> Result<Module, Diagnostics> {
    crate::check_options(&opts.options)?;
    module_of(crate::load_api_with(text, opts.options.strict)?, opts)
}

fn module_of(
    (mut api, diags): (crate::ir::Api, Diagnostics),
    opts: &ModuleOptions,
) -> Result<Module, Diagnostics> {
    let mut parts = vec![Part::Models];
    for part in [Part::Server, Part::Client] {
        if opts.parts.contains(&part) {
            parts.push(part);
        }
    }
    if !opts.webhooks {
        api.hooks.clear();
    }
    // The includer's crate has its own features: the module compiles every group (a slice of
    // the document is `options.groups`).
    let mut options = opts.options.clone();
    options.group_features = false;
    let generated = crate::generate_at(api, diags, &options, &parts, emit::Root::Module)?;
    guard(move || {
        let mut code = TokenStream::new();
        let mut dependencies: Vec<String> = Vec::new();
        for (part, files) in &generated.crates {
            let name = Ident::new(part.dir_name(), Span::call_site());
            let files: HashMap<&str, &str> = files
                .iter()
                .map(|f| (f.path.as_str(), f.contents.as_str()))
                .collect();
            let inlined = Inliner { files: &files }
                .module("src/lib.rs", "src")
                .map_err(|message| Diagnostics(vec![Diagnostic::error("", message)]))?;
            let doc = format!(
                " The {} of the API (what the `{}` crate would hold).",
                part.dir_name(),
                opts.options.crate_name(part.dir_name())
            );
            let (attrs, inlined) = outer_attributes(inlined);
            let attrs: TokenStream = attrs.into_iter().collect();
            // Private to the includer, the module's public items may go unused there; the client
            // part has a `client` module of its own.
            code.extend(quote::quote! {
                #[doc = #doc]
                #[doc = ""]
                #attrs
                #[allow(dead_code, unused_imports, unused_macros, clippy::module_inception)]
                pub mod #name { #inlined }
            });
            collect_dependencies(
                files.get("Cargo.toml").copied().unwrap_or_default(),
                &opts.options,
                &mut dependencies,
            );
        }
        let file: syn::File = syn::parse2(code)
            .map_err(|e| Diagnostics(vec![Diagnostic::error("", format!("module: {e}"))]))?;
        let code = format!(
            "{}{}",
            emit::header(&opts.options),
            prettyplease::unparse(&file)
        );
        dependencies.sort();
        Ok(Module {
            code,
            dependencies,
            diagnostics: generated.diagnostics,
        })
    })
}

/// Reads `spec` (and the files its `$ref`s reach), generates its module and writes it to `out`
/// (only when it changed, so cargo does not rebuild for nothing). For `build.rs`: also prints
/// `cargo::rerun-if-changed` for every file read.
/// Warnings are returned, errors are the `Err`.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("openapi-gen-write-module-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let spec = dir.join("api.yaml"); // in build.rs: a path relative to CARGO_MANIFEST_DIR
/// std::fs::write(&spec, "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  \
///     /ping: {get: {operationId: ping, responses: {'204': {description: Alive.}}}}\n").unwrap();
/// let out = dir.join("api.rs"); // in build.rs: $OUT_DIR/api.rs
/// let mut options = openapi_gen::ModuleOptions::new("api.yaml");
/// options.parts.push(openapi_gen::Part::Server);
/// let warnings = openapi_gen::write_module(&spec, &out, &options)?;
/// assert!(warnings.0.is_empty());
/// assert!(std::fs::read_to_string(&out).unwrap().contains("pub mod server {"));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), String>(())
/// ```
pub fn write_module(spec: &Path, out: &Path, opts: &ModuleOptions) -> Result<Diagnostics, String> {
    opts.options.check()?;
    let bundled = crate::read(spec).map_err(|d| d.to_string())?;
    if std::env::var_os("OUT_DIR").is_some() {
        // Every file the document reaches, so an edit to any of them regenerates.
        for file in &bundled.files {
            println!("cargo::rerun-if-changed={}", file.display());
        }
    }
    let api = crate::load_bundled_with(bundled, opts.options.strict).map_err(|d| d.to_string())?;
    let module = module_of(api, opts).map_err(|d| d.to_string())?;
    if std::fs::read_to_string(out).ok().as_deref() != Some(module.code.as_str()) {
        std::fs::write(out, &module.code).map_err(|e| format!("writing {}: {e}", out.display()))?;
    }
    Ok(module.diagnostics)
}

struct Inliner<'a> {
    files: &'a HashMap<&'a str, &'a str>,
}

impl Inliner<'_> {
    /// The tokens of module file `path`, its `mod x;` items taking their files (under `dir`).
    fn module(&self, path: &str, dir: &str) -> Result<TokenStream, String> {
        let text = self
            .files
            .get(path)
            .ok_or_else(|| format!("module: {path} is declared but not generated"))?;
        let tokens =
            TokenStream::from_str(text).map_err(|e| format!("module: {path} does not lex: {e}"))?;
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
        let mut i = 0;
        while i < trees.len() {
            if let (
                TokenTree::Ident(keyword),
                Some(TokenTree::Ident(name)),
                Some(TokenTree::Punct(semi)),
            ) = (&trees[i], trees.get(i + 1), trees.get(i + 2))
                && keyword == "mod"
                && semi.as_char() == ';'
            {
                let child_dir = format!("{dir}/{}", name.to_string().trim_start_matches("r#"));
                let file = format!("{child_dir}.rs");
                let file = if self.files.contains_key(file.as_str()) {
                    file
                } else {
                    format!("{child_dir}/mod.rs")
                };
                let body = self.module(&file, &child_dir)?;
                // The file's inner attributes (`//!` docs) join the item's outer ones (clippy's
                // `mixed_attributes_style`).
                let (attrs, body) = outer_attributes(body);
                let at = item_start(&out);
                out.splice(at..at, attrs);
                out.push(trees[i].clone());
                out.push(TokenTree::Ident(name.clone()));
                out.push(TokenTree::Group(Group::new(Delimiter::Brace, body)));
                i += 3;
                continue;
            }
            out.push(trees[i].clone());
            i += 1;
        }
        Ok(out.into_iter().collect())
    }
}

/// The leading inner attributes of a module's tokens (`#![doc = ...]`) as outer ones, and the rest.
fn outer_attributes(tokens: TokenStream) -> (Vec<TokenTree>, TokenStream) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut attrs = Vec::new();
    let mut i = 0;
    while let (Some(TokenTree::Punct(hash)), Some(TokenTree::Punct(bang)), Some(group)) =
        (trees.get(i), trees.get(i + 1), trees.get(i + 2))
    {
        if hash.as_char() != '#' || bang.as_char() != '!' {
            break;
        }
        attrs.push(TokenTree::Punct(hash.clone()));
        attrs.push(group.clone());
        i += 3;
    }
    (attrs, trees.into_iter().skip(i).collect())
}

/// Where the item whose `mod` keyword comes next starts, after its attributes: before `pub` or
/// `pub(...)`.
fn item_start(out: &[TokenTree]) -> usize {
    let n = out.len();
    match (n.checked_sub(2).map(|k| &out[k]), out.last()) {
        (Some(TokenTree::Ident(p)), Some(TokenTree::Group(g)))
            if p == "pub" && g.delimiter() == Delimiter::Parenthesis =>
        {
            n - 2
        }
        (_, Some(TokenTree::Ident(p))) if p == "pub" => n - 1,
        _ => n,
    }
}

/// Adds the `[dependencies]` lines of a generated crate's manifest, less the other generated
/// crates, as required dependencies (the `webhooks` feature's are optional there).
fn collect_dependencies(manifest: &str, opts: &emit::Options, out: &mut Vec<String>) {
    let mut in_dependencies = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if !in_dependencies || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line.split('=').next().unwrap_or_default().trim();
        if name.starts_with(&format!("{}-", opts.crate_prefix)) {
            continue;
        }
        // The client's `tower` feature, which the module leaves out.
        if line.contains("optional = true") && emit::client::TOWER_DEPENDENCIES.contains(&name) {
            continue;
        }
        let mut line = line.replace(", optional = true", "");
        // `name = { version = "1" }` is `name = "1"`.
        if let Some(version) = line
            .split_once("= { version = ")
            .and_then(|(_, rest)| rest.strip_suffix(" }"))
            .filter(|v| !v.contains(','))
        {
            line = format!("{name} = {version}");
        }
        match out
            .iter_mut()
            .find(|l| l.split('=').next().unwrap_or_default().trim() == name)
        {
            // The longer spelling has more features (reqwest's `multipart`, axum's).
            Some(existing) if existing.len() < line.len() => *existing = line,
            Some(_) => {}
            None => out.push(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_files_are_inlined_with_their_paths_as_printed() {
        let files: HashMap<&str, &str> = [
            (
                "src/lib.rs",
                "//! Root.\n/// Outer.\npub mod a;\nmod b;\npub use super::models;",
            ),
            ("src/a.rs", "//! Inner.\npub struct A;"),
            ("src/b/mod.rs", "pub mod c;"),
            ("src/b/c.rs", "use super::super::a::A;"),
        ]
        .into_iter()
        .collect();
        let tokens = Inliner { files: &files }
            .module("src/lib.rs", "src")
            .unwrap();
        let code = prettyplease::unparse(&syn::parse2(tokens).unwrap());
        assert!(
            code.contains("/// Outer.\n/// Inner.\npub mod a {"),
            "{code}"
        );
        assert!(
            code.contains("mod b {\n    pub mod c {\n        use super::super::a::A;"),
            "{code}"
        );
        assert!(code.contains("pub use super::models;"), "{code}");
    }
}

#[cfg(test)]
mod fixture_tests {
    use super::*;

    /// Where the module is included is the user's choice: no printed path may start at `crate`.
    /// An emitter that hard-codes one shows here (tests/build-rs-example compiles one module).
    /// The fixtures between them copy every runtime module and have defaults in `types::defaults`.
    #[test]
    fn no_module_names_a_crate_path() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        for fixture in [
            "defaults.yaml",
            "device-flow-3.2.yaml",
            "discriminator-3.1.yaml",
            "errors-formats.yaml",
            "numeric-strings.yaml",
            "param-styles.yaml",
            "streaming-3.2.yaml",
            "webhooks-only.yaml",
        ] {
            let text = std::fs::read_to_string(dir.join(fixture)).unwrap();
            let mut opts = ModuleOptions::new(fixture);
            opts.parts = vec![Part::Models, Part::Server, Part::Client];
            opts.webhooks = true;
            let module = generate_module(&text, &opts).unwrap_or_else(|d| panic!("{d}"));
            if let Some(line) = module.code.lines().find(|l| l.contains("crate::")) {
                panic!("{fixture}: {line}");
            }
        }
    }

    /// The dependency lines tests/build-rs-example declares are the ones the module lists.
    #[test]
    fn the_dependencies_of_the_webhooks_fixture() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let text = std::fs::read_to_string(dir.join("tests/fixtures/webhooks.yaml")).unwrap();
        let mut opts = ModuleOptions::new("tests/fixtures/webhooks.yaml");
        opts.parts = vec![Part::Models, Part::Server, Part::Client];
        opts.webhooks = true;
        let module = generate_module(&text, &opts).unwrap_or_else(|d| panic!("{d}"));
        let manifest =
            std::fs::read_to_string(dir.join("tests/build-rs-example/Cargo.toml")).unwrap();
        let declared: Vec<&str> = manifest
            .split("[dependencies]\n")
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap()
            .lines()
            .collect();
        assert_eq!(module.dependencies, declared);
        assert!(module.code.contains("pub mod models {"));
        assert!(module.code.contains("pub mod webhooks {"));
        // The emitter spelled every path relative to the parts' modules, and left out what only
        // crates have: features, the `tower` transport, doc tests naming a crate.
        for absent in [
            "crate::",
            "feature = ",
            "mod service",
            "no_run",
            "ReadmeDoctests",
        ] {
            assert!(!module.code.contains(absent), "{absent}");
        }
    }
}
