//! openapi-gen: OpenAPI 3.0, 3.1 and 3.2 documents to Rust crates: serde models, an axum server (a
//! trait to implement and a router that extracts, validates and maps errors) and a reqwest client.
//!
//! Most users run the command (`cargo install openapi-gen`, then `openapi-gen generate`) or call
//! [`write_module`] from `build.rs`; this library is what both use. Generate crates in memory:
//!
//! ```
//! use openapi_gen::{Part, emit::Options};
//!
//! let document = r#"
//! openapi: 3.1.0
//! info: {title: Pets, version: "1"}
//! paths:
//!   /pets/{id}:
//!     get:
//!       operationId: getPet
//!       parameters:
//!         - {name: id, in: path, required: true, schema: {type: integer, format: int64}}
//!       responses:
//!         "200":
//!           description: The pet.
//!           content:
//!             application/json:
//!               schema:
//!                 type: object
//!                 required: [name]
//!                 properties: {name: {type: string}, tag: {type: [string, "null"]}}
//! "#;
//! let options = Options::new("pets", "pets.yaml", "openapi-gen generate");
//! let generated = openapi_gen::generate(document, &options, &[Part::Models, Part::Client])?;
//! let (part, files) = &generated.crates[0];
//! assert_eq!(*part, Part::Models);
//! let manifest = files.iter().find(|f| f.path == "Cargo.toml").unwrap();
//! assert!(manifest.contents.contains("name = \"pets-models\""));
//! // Write each crate into a folder of its own, e.g. out/models/Cargo.toml:
//! # let out = std::env::temp_dir().join(format!("openapi-gen-doc-{}", std::process::id()));
//! for (part, files) in &generated.crates {
//!     openapi_gen::output::write_crate(&out.join(part.dir_name()), files)?;
//! }
//! # std::fs::remove_dir_all(&out)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A document the generator cannot represent is an `Err` of [`Diagnostics`], each naming the JSON
//! pointer of the node it is about; what it approximates comes back as warnings beside the output:
//!
//! ```
//! let err = openapi_gen::generate(
//!     "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths: {}\ncomponents: {schemas: {A: {enum: 3}}}\n",
//!     &openapi_gen::emit::Options::new("t", "t.yaml", "openapi-gen generate"),
//!     &[openapi_gen::Part::Models],
//! )
//! .err()
//! .unwrap();
//! assert_eq!(
//!     err.to_string().lines().next(),
//!     Some("error: /components/schemas/A/enum: `enum` must be an array"),
//! );
//! ```
//!
//! The pipeline, one module each: [`load`] (YAML/JSON text) -> [`lower`] (3.1 schema forms to 3.0
//! shapes) -> `openapiv3` -> [`build`] (the [`ir`]) -> [`naming`] -> [`formats`] -> [`patterns`]
//! (numbered and compiled, also what `check` reports) -> [`emit`] (plan, render with `quote!`, print
//! with prettyplease; [`emit::crates`] assembles the crates) -> [`output`]. The
//! stage modules are public for tools and benchmarks; what the semver policy in the README covers
//! is the functions and types of this page, [`emit::Options`], [`ModuleOptions`] and
//! [`diagnostics`].

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod build;
pub mod bundle;
pub mod diagnostics;
pub mod emit;
pub mod formats;
pub mod groups;
pub mod ir;
pub mod load;
pub mod lower;
pub mod module;
pub mod naming;
pub mod output;
pub mod patterns;
pub mod salvage;
pub mod samples;

pub use diagnostics::{Diagnostic, Diagnostics};
pub use module::{Module, ModuleOptions, generate_module, write_module};

use rayon::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The crates the generator can emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// `{prefix}-models`: a type per schema, with serde and `Validate`.
    Models,
    /// `{prefix}-server`: a trait with a method per operation and an axum router over it.
    Server,
    /// `{prefix}-client`: a reqwest client with a method per operation.
    Client,
}

impl Part {
    /// Every part, in the order the crates depend on each other.
    pub const ALL: [Part; 3] = [Part::Models, Part::Server, Part::Client];

    /// The part's folder (`models`, `server`, `client`), and the suffix of its crate's name.
    pub fn dir_name(self) -> &'static str {
        match self {
            Part::Models => "models",
            Part::Server => "server",
            Part::Client => "client",
        }
    }
}

/// The IR of a document, with the warnings found on the way. A flaw in one part of the document
/// leaves out that part and what needs it, with a warning each (see [`salvage`]).
pub fn load_api(text: &str) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    load_api_with(text, false)
}

/// [`load_api`], or with `strict` the refusal of a document with any flaw.
pub fn load_api_with(text: &str, strict: bool) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    let document = guard(|| load::parse_text(text))?;
    load_bundled_with(guard(|| bundle::bundle_value(document))?, strict)
}

/// Reads the document at `path` with every file its `$ref`s reach (see [`bundle`]). The `$ref`s
/// it could not follow are errors in the result's diagnostics.
pub fn read(path: &std::path::Path) -> Result<bundle::Bundled, Diagnostics> {
    guard(|| bundle::bundle_file(path))
}

/// The IR of a document [`read`] from its files, with the warnings found on the way; a flaw in
/// one part leaves out that part and what needs it (see [`salvage`]).
pub fn load_bundled(bundled: bundle::Bundled) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    load_bundled_with(bundled, false)
}

/// [`load_bundled`], or with `strict` the refusal of a document with any flaw.
pub fn load_bundled_with(
    bundled: bundle::Bundled,
    strict: bool,
) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    guard(|| {
        let mut diags = bundled.diagnostics;
        // The refs the bundler could not follow stay as written: the salvage leaves out what
        // needs them, and says so; `strict` refuses for them, and for every flaw the salvage met.
        let mut flaws = Diagnostics(diags.errors().cloned().collect());
        for d in &mut diags.0 {
            d.severity = diagnostics::Severity::Warning;
        }
        let salvaged = salvage::salvage(bundled.document, &mut diags, load_document);
        if strict {
            match &salvaged {
                Ok((_, left_out)) => flaws.0.extend(left_out.flaws.0.iter().cloned()),
                Err(refused) => flaws.0.extend(refused.0.iter().cloned()),
            }
            if flaws.has_errors() {
                return Err(flaws);
            }
        }
        let (mut api, left_out) = salvaged?;
        api.operations_in_document = left_out.operations_in_document;
        let nothing_left =
            api.operations.is_empty() && api.types.is_empty() && api.hooks.is_empty();
        if nothing_left && !left_out.parts.is_empty() {
            let mut refused = left_out.flaws;
            refused.error(
                "",
                "nothing is left to generate: every operation and type of the document needs a \
                 part with a flaw above",
            );
            return Err(refused);
        }
        Ok((api, diags))
    })
}

/// Lowers, reads and builds a bundled document: the IR, or the errors that refuse it.
fn load_document(
    mut document: serde_json::Value,
    diags: &mut Diagnostics,
) -> Result<ir::Api, Diagnostics> {
    lower::lower_document(&mut document, diags);
    if diags.has_errors() {
        return Err(std::mem::take(diags));
    }
    let openapi = load::to_openapi(document).map_err(|mut e| {
        e.0.splice(0..0, diags.0.iter().cloned());
        e
    })?;
    let mut api = build::build(&openapi, diags);
    if diags.has_errors() {
        return Err(std::mem::take(diags));
    }
    build::wire::report(&api, diags);
    naming::resolve(&mut api);
    Ok(api)
}

/// What `openapi-gen check` reports: the IR and every warning generation would give, including
/// the patterns no crate can enforce.
pub fn check(text: &str) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    check_api(load_api(text)?)
}

/// [`check`] of a document [`read`] from its files.
pub fn check_bundled(bundled: bundle::Bundled) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    check_api(load_bundled(bundled)?)
}

/// [`check`] of a document loaded already (with [`load_bundled_with`], say).
pub fn check_api(
    (api, mut diags): (ir::Api, Diagnostics),
) -> Result<(ir::Api, Diagnostics), Diagnostics> {
    guard(move || {
        patterns::Patterns::collect(&api, &mut diags);
        Ok((api, diags))
    })
}

/// Generated crates: for each part, its files relative to the crate directory.
pub struct Generated {
    /// The crates, in the order of the parts asked for; a part with nothing to generate (a server
    /// for a document without operations) is left out.
    pub crates: Vec<(Part, Vec<emit::File>)>,
    /// The warnings: constructs approximated, constraints the generated code does not enforce.
    pub diagnostics: Diagnostics,
    /// The files the document was read from, the root first ([`generate_file`]; empty for text).
    pub files: Vec<std::path::PathBuf>,
    /// The operations generated, and how many the document has: fewer where a flaw left some out.
    pub operations: (usize, usize),
}

/// Generates the crates `parts` of the document `text` (YAML or JSON, OpenAPI 3.0 or 3.1).
pub fn generate(
    text: &str,
    opts: &emit::Options,
    parts: &[Part],
) -> Result<Generated, Diagnostics> {
    check_options(opts)?;
    let (api, diags) = load_api_with(text, opts.strict)?;
    generate_api(api, diags, opts, parts)
}

/// [`generate`] of the document at `path`, split over files or not (see [`bundle`]).
pub fn generate_file(
    path: &std::path::Path,
    opts: &emit::Options,
    parts: &[Part],
) -> Result<Generated, Diagnostics> {
    check_options(opts)?;
    let bundled = read(path)?;
    let files = bundled.files.clone();
    let (api, diags) = load_bundled_with(bundled, opts.strict)?;
    let mut generated = generate_api(api, diags, opts, parts)?;
    generated.files = files;
    Ok(generated)
}

/// [`generate`] from a loaded document (see [`load_api`]).
pub fn generate_api(
    api: ir::Api,
    diags: Diagnostics,
    opts: &emit::Options,
    parts: &[Part],
) -> Result<Generated, Diagnostics> {
    generate_at(api, diags, opts, parts, emit::Root::Crate)
}

/// The crates' files with each crate's code at `root`: [`emit::Root::Crate`] for crates,
/// [`emit::Root::Module`] for the build.rs module's parts.
fn generate_at(
    mut api: ir::Api,
    mut diags: Diagnostics,
    opts: &emit::Options,
    parts: &[Part],
    root: emit::Root,
) -> Result<Generated, Diagnostics> {
    check_options(opts)?;
    if !opts.groups.is_empty() {
        let before = api.operations.len();
        groups::slice(&mut api, &opts.groups)
            .map_err(|message| Diagnostics(vec![Diagnostic::error("", message)]))?;
        // What the chosen groups hold of the document: the others are not "left out".
        api.operations_in_document -= before - api.operations.len();
    }
    formats::apply(&mut api, opts);
    let operations = (api.operations.len(), api.operations_in_document);
    guard(move || {
        let patterns = patterns::Patterns::collect(&api, &mut diags);
        // The crates are emitted side by side, and each spreads its large files over the cores.
        let emitted: Vec<Result<Vec<emit::File>, String>> = parts
            .par_iter()
            .map(|part| emit::crates::emit(&api, &patterns, opts, *part, root))
            .collect();
        let mut crates = Vec::new();
        for (part, files) in parts.iter().zip(emitted) {
            let files =
                files.map_err(|message| Diagnostics(vec![Diagnostic::error("", message)]))?;
            // An emitter with nothing to say for this document produces no crate.
            if !files.is_empty() {
                crates.push((*part, files));
            }
        }
        Ok(Generated {
            crates,
            diagnostics: diags,
            files: Vec::new(),
            operations,
        })
    })
}

/// Options that cannot make valid crates are the caller's error (see [`emit::Options::check`]),
/// reported before any work.
fn check_options(opts: &emit::Options) -> Result<(), Diagnostics> {
    opts.check()
        .map_err(|message| Diagnostics(vec![Diagnostic::error("", message)]))
}

/// A bug in the generator must still surface as a diagnostic, not abort the caller.
fn guard<T>(f: impl FnOnce() -> Result<T, Diagnostics>) -> Result<T, Diagnostics> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    result.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Err(Diagnostics(vec![Diagnostic::error(
            "",
            format!("internal generator error (a bug, please report it): {message}"),
        )]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /ping:\n    get: {operationId: ping, responses: {'204': {description: Alive.}}}\n";

    /// Options from the command line or `build.rs` are user input: one that cannot make a crate is
    /// a diagnostic naming it, never an internal error.
    #[test]
    fn a_crate_prefix_that_makes_no_crate_name_is_the_callers_error() {
        let opts = emit::Options::new("live-events-3.2", "api.yaml", "gen");
        let err = generate(DOC, &opts, &Part::ALL).err().expect("refused");
        let message = err.to_string();
        assert!(
            message.contains("crate prefix \"live-events-3.2\" holds '.'"),
            "{message}"
        );
        assert!(!message.contains("internal generator error"), "{message}");
        let mut module = ModuleOptions::new("api.yaml");
        module.options.crate_prefix = "9lives".to_owned();
        let message = generate_module(DOC, &module)
            .expect_err("refused")
            .to_string();
        assert!(message.contains("starts with '9'"), "{message}");
        let ok = emit::Options::new("live-events-3_2", "api.yaml", "gen");
        assert!(generate(DOC, &ok, &Part::ALL).is_ok());
    }

    const TWO_GROUPS: &str = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /v1/pets:\n    get: {operationId: listPets, responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}}}\n  /v1/stores:\n    get: {operationId: listStores, responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Store'}}}}}}\ncomponents:\n  schemas:\n    Pet: {type: object, properties: {name: {type: string}}}\n    Store: {type: object, properties: {city: {type: string}}}\n";

    /// `--groups` and `Options::groups`/`ModuleOptions`: only the groups named, and what they reach.
    #[test]
    fn a_slice_generates_its_groups_only_and_an_unknown_group_lists_the_valid_ones() {
        let mut opts = emit::Options::new("pets", "api.yaml", "gen");
        opts.groups = vec!["stores".to_owned()];
        let generated = generate(TWO_GROUPS, &opts, &Part::ALL).expect("generated");
        assert_eq!(generated.operations, (1, 1));
        let all: String = (generated.crates.iter())
            .flat_map(|(_, files)| files)
            .map(|f| f.contents.as_str())
            .collect();
        assert!(all.contains("pub struct Store"));
        assert!(all.contains("list_stores"));
        assert!(!all.contains("pub struct Pet"), "{all}");
        assert!(!all.contains("list_pets"));
        let mut module = ModuleOptions::new("api.yaml");
        module.options.groups = vec!["pets".to_owned()];
        let code = generate_module(TWO_GROUPS, &module)
            .expect("generated")
            .code;
        assert!(code.contains("pub struct Pet") && !code.contains("pub struct Store"));
        opts.groups = vec!["store".to_owned()];
        let message = generate(TWO_GROUPS, &opts, &Part::ALL)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            message.contains("unknown group `store`; the document's groups are: pets, stores"),
            "{message}"
        );
    }
}
