//! The `openapi-gen` command line.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use openapi_gen::{Part, emit::Options};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// glibc's allocator spent a quarter of a large document's run freeing and consolidating.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Generates Rust crates from an OpenAPI 3.0, 3.1 or 3.2 document: serde models, an axum server
/// (trait + router) and a reqwest client.
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate crates into OUT/<part>/ (e.g. OUT/models/Cargo.toml).
    Generate {
        /// The OpenAPI document (YAML or JSON).
        #[arg(long)]
        spec: PathBuf,
        /// Directory that receives one folder per generated crate.
        #[arg(long)]
        out: PathBuf,
        /// Crate names become PREFIX-models, PREFIX-server, PREFIX-client. PREFIX is ASCII
        /// letters, digits, `-` and `_`, starting with a letter (crates.io's rule for names).
        #[arg(long)]
        crate_prefix: String,
        /// Version written into the generated Cargo.toml files.
        #[arg(long, default_value = "0.1.0")]
        crate_version: String,
        /// Which crates to generate (comma separated).
        #[arg(long, value_delimiter = ',', default_values = ["models", "server", "client"])]
        parts: Vec<String>,
        /// Accepted for old scripts and ignored: output is never run through rustfmt (its layout is
        /// prettyplease's, the same on every toolchain).
        #[arg(long, hide = true)]
        no_rustfmt: bool,
        /// Generate `format: uri` as `url::Url`. By default it is a `String` that `Validate` (and so
        /// the generated server) checks to be a URI, so that a client keeps whatever a server
        /// answers, a relative URL included.
        #[arg(long, conflicts_with = "uri_as_string")]
        uri_as_url: bool,
        /// Accepted for old scripts: `format: uri` is a checked `String` by default now.
        #[arg(long, hide = true)]
        uri_as_string: bool,
        /// Integer formats narrower than 64 bits (`int32`, `uint8`...) as the Rust type of that
        /// width: a client then fails on an integer beyond it. By default they are `i64`, and
        /// `Validate` (so the generated server) checks the format's range.
        #[arg(long)]
        narrow_integers: bool,
        /// Generate `format: uuid`, `date-time` and `date` as `uuid::Uuid`,
        /// `chrono::DateTime<Utc>` and `chrono::NaiveDate` everywhere. By default what a client
        /// decodes holds them as `String`s that `Validate` (and so the generated server) checks,
        /// so that a client keeps an id that is not a UUID or a timestamp without an offset.
        #[arg(long)]
        typed_formats: bool,
        /// Closed enums: a value the document does not list fails to decode. By default string and
        /// integer enums keep such a value in an `Unknown` variant (which `Validate`, and so the
        /// generated server, still refuses).
        #[arg(long)]
        closed_enums: bool,
        /// Do not write; exit with 1 and list the files that differ from what would be generated.
        #[arg(long)]
        check: bool,
        /// Refuse the document for any flaw (exit 1, nothing written). By default a flaw leaves
        /// out only the part it is in and what needs that part, with a warning each.
        #[arg(long)]
        strict: bool,
        /// Generate only these operation groups (comma separated) and the types they reach: a
        /// group is the operations' first tag, or in a document without tags their path's first
        /// segment after a version (`/v1/customers/{id}`: `customers`); the generated crates
        /// name each group as a feature. An unknown name is an error listing the valid ones.
        #[arg(long, value_delimiter = ',')]
        groups: Vec<String>,
    },
    /// Load and lower a document and print its diagnostics; exit 1 if it cannot be generated.
    Check {
        #[arg(long)]
        spec: PathBuf,
        /// Exit 1 for any flaw, as `generate --strict` refuses the document.
        #[arg(long)]
        strict: bool,
    },
    /// List the document's operation groups (the features of the generated crates, the names
    /// `generate --groups` takes) with their operations and the types each reaches.
    Groups {
        #[arg(long)]
        spec: PathBuf,
    },
    /// Print the intermediate representation as JSON (for debugging a document).
    Ir {
        #[arg(long)]
        spec: PathBuf,
    },
    /// Write a document split over files as one: every file its `$ref`s reach, schemas as
    /// components, other objects inlined (what `generate` reads).
    Bundle {
        #[arg(long)]
        spec: PathBuf,
        /// The single-file document: JSON when it ends in `.json`, else YAML. Standard output
        /// (YAML) when left out.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Generate {
            spec,
            out,
            crate_prefix,
            crate_version,
            parts,
            no_rustfmt,
            uri_as_url,
            uri_as_string: _,
            narrow_integers,
            typed_formats,
            closed_enums,
            check,
            strict,
            groups,
        } => {
            let parts = parse_parts(&parts)?;
            let mut opts = Options::new(
                &crate_prefix,
                &spec.display().to_string(),
                "openapi-gen generate",
            );
            opts.crate_version = crate_version;
            opts.uri_as_url = uri_as_url;
            opts.narrow_integers = narrow_integers;
            opts.typed_formats = typed_formats;
            opts.open_enums = !closed_enums;
            opts.strict = strict;
            opts.groups = groups;
            if no_rustfmt {
                eprintln!(
                    "note: --no-rustfmt is no longer needed: output is never run through rustfmt"
                );
            }
            let generated = match openapi_gen::generate_file(&spec, &opts, &parts) {
                Ok(generated) => generated,
                Err(diags) => {
                    // Whether it is `--strict` that refuses: the same document without it.
                    let lenient = Options {
                        strict: false,
                        ..opts.clone()
                    };
                    let partial =
                        strict && openapi_gen::generate_file(&spec, &lenient, &[]).is_ok();
                    return Ok(refused(&diags, partial));
                }
            };
            eprint!("{}", generated.diagnostics);
            eprintln!("{}", summary(generated.operations));
            let mut drifted = Vec::new();
            for (part, files) in &generated.crates {
                let dir = out.join(part.dir_name());
                if check {
                    drifted.extend(openapi_gen::output::drift(&dir, files));
                } else {
                    openapi_gen::output::write_crate(&dir, files)
                        .map_err(|e| format!("writing {}: {e}", dir.display()))?;
                }
            }
            for path in &drifted {
                eprintln!("differs: {}", path.display());
            }
            Ok(if drifted.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Check { spec, strict } => {
            let checked = openapi_gen::read(&spec)
                .and_then(|bundled| openapi_gen::load_bundled_with(bundled, strict))
                .and_then(openapi_gen::check_api);
            match checked {
                Ok((api, diags)) => {
                    eprint!("{diags}");
                    println!(
                        "ok: {} types, {}",
                        api.types.len(),
                        summary((api.operations.len(), api.operations_in_document))
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(diags) => {
                    eprint!("{diags}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Command::Ir { spec } => {
            let (api, diags) = openapi_gen::read(&spec)
                .and_then(openapi_gen::load_bundled)
                .map_err(|d| d.to_string())?;
            eprint!("{diags}");
            println!(
                "{}",
                serde_json::to_string_pretty(&api).map_err(|e| e.to_string())?
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Bundle { spec, out } => bundle(&spec, out.as_deref()),
        Command::Groups { spec } => {
            let (api, _) = openapi_gen::read(&spec)
                .and_then(openapi_gen::load_bundled)
                .map_err(|d| d.to_string())?;
            let groups = openapi_gen::groups::Groups::of(&api);
            let none = groups.of_type.iter().filter(|g| g.is_empty()).count();
            println!(
                "{:<40} {:>10} {:>6}  source",
                "group", "operations", "types"
            );
            for (g, group) in groups.groups.iter().enumerate() {
                let types = groups.of_type.iter().filter(|of| of.contains(&g)).count();
                println!(
                    "{:<40} {:>10} {:>6}  {}",
                    group.name,
                    group.operations.len(),
                    types,
                    group.source
                );
            }
            println!(
                "{} groups, {} operations, {} types ({} no operation reaches, feature \
                 `unused-components`; {none} compiled with every selection: what webhooks and \
                 callbacks reach, the API's error body, and what they reach)",
                groups.groups.len(),
                api.operations.len(),
                api.types.len(),
                groups.unused_components()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `generated 640 of 659 operations`, the second figure only where it differs.
fn summary((generated, in_document): (usize, usize)) -> String {
    if generated < in_document {
        format!(
            "generated {generated} of {in_document} operations ({} left out: see the warnings)",
            in_document - generated
        )
    } else {
        let s = if generated == 1 { "" } else { "s" };
        format!("generated {generated} operation{s}")
    }
}

/// Exit codes: 1 where `--strict` refused a document that could otherwise be generated in part,
/// 2 where nothing can be (a hard error: unreadable, no `openapi` version, nothing left).
fn refused(diags: &openapi_gen::Diagnostics, strict_refusal: bool) -> ExitCode {
    eprint!("{diags}");
    if strict_refusal {
        eprintln!("refused (--strict): without it, the parts with these flaws would be left out");
        ExitCode::FAILURE
    } else {
        ExitCode::from(2)
    }
}

fn bundle(spec: &Path, out: Option<&Path>) -> Result<ExitCode, String> {
    let bundled = openapi_gen::read(spec).map_err(|d| d.to_string())?;
    eprint!("{}", bundled.diagnostics);
    if bundled.diagnostics.has_errors() {
        return Ok(ExitCode::from(2));
    }
    let json = out.is_some_and(|p| p.extension().is_some_and(|e| e == "json"));
    let text = if json {
        serde_json::to_string_pretty(&bundled.document).map_err(|e| e.to_string())? + "\n"
    } else {
        serde_yaml::to_string(&bundled.document).map_err(|e| e.to_string())?
    };
    match out {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_parts(names: &[String]) -> Result<Vec<Part>, String> {
    names
        .iter()
        .map(|name| {
            Part::ALL
                .into_iter()
                .find(|p| p.dir_name() == name)
                .ok_or_else(|| format!("unknown part `{name}` (known: models, server, client)"))
        })
        .collect()
}
