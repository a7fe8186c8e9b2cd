//! Repository tasks: `cargo xtask codegen [--check]`, `cargo xtask corpus [--compile]`,
//! `cargo xtask fixtures`, `cargo xtask mutations`, `cargo xtask interop`, `cargo xtask package`,
//! `cargo xtask slices`.

mod compile;
mod corpus;
mod interop;
mod mutations;
mod package;
mod slices;

use openapi_gen::{Part, emit::Options};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The service's spec and where its crates go.
const SPEC: &str = "spec/asset-alerting.yaml";
const CRATE_PREFIX: &str = "asset-alerting";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen(flag("--check")),
        Some("corpus") => match args.iter().position(|a| a == "--doc") {
            Some(at) => {
                let names: Vec<String> = args
                    .get(at + 1)
                    .map(|list| list.split(',').map(str::to_owned).collect())
                    .unwrap_or_default();
                corpus::doc(&names)
            }
            None => corpus::run(flag("--compile"), flag("--skip-large")),
        },
        Some("fixtures") => compile::fixtures(),
        Some("mutations") => mutations::run(&args[1..]),
        // The process `mutations` runs its cases in (see mutations::cases).
        Some("mutations-worker") => mutations::worker(&args[1..]),
        Some("interop") => interop::run(&args[1..]),
        Some("package") => package::run(),
        Some("slices") => slices::run(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <task>\n\n\
                 codegen [--check]             regenerate generated/ from {SPEC} and tests/generated/ from the\n\
                 \x20                             round-trip fixture (--check: fail on drift)\n\
                 corpus [--compile] [--skip-large]\n\
                 \x20                             generate ../shared/corpus; --compile also runs clippy -D warnings\n\
                 \x20                             on each document's models, server and client\n\
                 corpus --doc NAME,...         the doc tests of the named corpus documents' crates (every\n\
                 \x20                             operation's example, the server trait's, the READMEs'), timed\n\
                 mutations [--count N] [--seed S] [--compile K] [--case I]\n\
                 \x20                             N seeded mutations of the corpus documents (200), each generated:\n\
                 \x20                             no panic, the rest generated or an acceptable refusal; then clippy\n\
                 \x20                             on K of the outputs (10); --case reruns one and writes its document\n\
                 fixtures                      generate every tests/fixtures/*.yaml and run clippy -D warnings on it\n\
                 interop [--build-only] [document...]  the generated client against Prism's mock server, the\n\
                 \x20                             generated server under schemathesis (tests/interop/expected.json);\n\
                 \x20                             --build-only: build the programs and stop\n\
                 slices [--features] [--sample N] [document...]\n\
                 \x20                             each operation group of corpus documents (default: spotify)\n\
                 \x20                             generated alone (--groups), clippy -D warnings on every crate;\n\
                 \x20                             --features: the whole crates with no group and each group\n\
                 \x20                             alone (cargo features)\n\
                 package                       package the generator, install it from its tarball, generate\n\
                 \x20                             petstore with the command and from build.rs, and compile both"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the repository")
        .to_path_buf()
}

pub fn options(source_name: &str, prefix: &str) -> Options {
    Options::new(prefix, source_name, "cargo xtask codegen")
}

/// The documents whose crates are checked in: the service's spec (its code keeps `format: uri` a
/// `String`, its enums closed and its formats typed: its models are shared by its server, which
/// must refuse values the spec does not list, and its client, which is released with the server
/// from the same spec) and the fixture the round-trip tests of typed errors and
/// wire formats drive (tests/it/errors_formats_roundtrip.rs), the one of lenient formats
/// (tests/it/lenient_roundtrip.rs), the one of mixed path segments
/// (tests/it/mixed_paths_roundtrip.rs; again as `mixed-paths-slice`, whose server
/// tests/it/group_features.rs takes with one group's feature), the 3.2 methods and querystring (tests/it/methods_roundtrip.rs),
/// the OAuth 2.0 device flow (tests/it/device_flow_roundtrip.rs), the document of webhooks only (tests/it/webhooks_only_roundtrip.rs),
/// the one of parameter styles and bodies on the wire
/// (tests/it/param_styles_roundtrip.rs), the one of tagged and untagged unions
/// (tests/it/unions_roundtrip.rs), the one of schemas once lost (tests/it/lossy_roundtrip.rs), and the
/// one of `readOnly`/`writeOnly` (tests/it/read_write_only_roundtrip.rs), the one of RFC 6570 path
/// templates (tests/it/rfc6570_roundtrip.rs), the document split over files
/// (tests/it/multi_file_roundtrip.rs), the one of streamed responses (tests/it/streaming_roundtrip.rs),
/// the one whose flaws leave parts out (tests/it/broken_parts_roundtrip.rs), OpenAI's streaming chat completion (tests/it/openai_stream.rs),
/// and the one of idempotency keys and per-request options (tests/it/idempotency_roundtrip.rs).
/// Each: (spec, output folder, crate prefix, options).
const TARGETS: &[(&str, &str, &str, Target)] = &[
    (SPEC, "generated", CRATE_PREFIX, Target::Service),
    (
        "tests/fixtures/errors-formats.yaml",
        "tests/generated/errors-formats",
        "errors-formats",
        Target::Fixture,
    ),
    (
        "tests/fixtures/lenient-3.1.yaml",
        "tests/generated/lenient",
        "lenient",
        Target::Defaults,
    ),
    (
        "tests/fixtures/mixed-paths.yaml",
        "tests/generated/mixed-paths",
        "mixed-paths",
        Target::Fixture,
    ),
    (
        "tests/fixtures/mixed-paths.yaml",
        "tests/generated/mixed-paths-slice",
        "mixed-paths-slice",
        Target::Fixture,
    ),
    (
        "tests/fixtures/discriminator-3.1.yaml",
        "tests/generated/discriminator",
        "discriminator",
        Target::Fixture,
    ),
    (
        "tests/fixtures/lossy-3.0.yaml",
        "tests/generated/lossy",
        "lossy",
        Target::Fixture,
    ),
    (
        "tests/fixtures/webhooks.yaml",
        "tests/generated/webhooks",
        "webhooks",
        Target::Fixture,
    ),
    (
        "tests/fixtures/param-styles.yaml",
        "tests/generated/param-styles",
        "param-styles",
        Target::Fixture,
    ),
    (
        "tests/fixtures/read-write-only.yaml",
        "tests/generated/read-write-only",
        "read-write-only",
        Target::Fixture,
    ),
    (
        "tests/fixtures/rfc6570-paths.yaml",
        "tests/generated/rfc6570",
        "rfc6570",
        Target::Fixture,
    ),
    (
        "tests/fixtures/webhooks-only.yaml",
        "tests/generated/webhooks-only",
        "webhooks-only",
        Target::Fixture,
    ),
    (
        "tests/fixtures/methods-3.2.yaml",
        "tests/generated/methods-3.2",
        "methods",
        Target::Fixture,
    ),
    (
        "tests/fixtures/device-flow-3.2.yaml",
        "tests/generated/device-flow",
        "device-flow",
        Target::Fixture,
    ),
    (
        "tests/fixtures/multi-file/openapi.yaml",
        "tests/generated/multi-file",
        "multi-file",
        Target::Fixture,
    ),
    (
        "tests/fixtures/streaming-3.1.yaml",
        "tests/generated/streaming",
        "streaming",
        Target::Fixture,
    ),
    (
        "tests/fixtures/broken-parts.yaml",
        "tests/generated/broken-parts",
        "broken-parts",
        Target::Fixture,
    ),
    (
        "tests/fixtures/openai-chat-stream.yaml",
        "tests/generated/openai-chat",
        "openai-chat",
        Target::Fixture,
    ),
    (
        "tests/fixtures/idempotency.yaml",
        "tests/generated/idempotency",
        "idempotency",
        Target::Fixture,
    ),
];

/// The options of a checked-in target.
#[derive(Clone, Copy, PartialEq)]
pub enum Target {
    /// The service's: closed enums, typed formats, `format: uri` a `String`.
    Service,
    /// A fixture's: `format: uri` as `url::Url`, the other defaults.
    Fixture,
    /// Every default (the lenient-formats fixture).
    Defaults,
}

/// Options of one checked-in target.
pub fn target_options(spec: &str, prefix: &str, target: Target) -> Options {
    let mut opts = options(spec, prefix);
    opts.uri_as_url = target == Target::Fixture;
    opts.open_enums = target != Target::Service;
    opts.typed_formats = target == Target::Service;
    // The service uses its API whole, and its tests take the client without default features
    // (no TLS): its crates have no feature per operation group.
    opts.group_features = target != Target::Service;
    opts
}

/// Regenerates every target, or (check) compares without writing.
fn codegen(check: bool) -> Result<bool, String> {
    let mut clean = true;
    for &(spec, out, prefix, target) in TARGETS {
        let opts = target_options(spec, prefix, target);
        clean &= codegen_one(spec, out, &opts, check)?;
    }
    if check && !clean {
        eprintln!(
            "\nRun `cargo xtask codegen`, review the diff, and commit. Never edit generated code by hand."
        );
    }
    Ok(clean)
}

/// Regenerates `out` from `spec`, or (check) compares without writing, like rust-analyzer's
/// `ensure_file_contents`: every differing file is named, with the start of its diff.
fn codegen_one(spec: &str, out: &str, opts: &Options, check: bool) -> Result<bool, String> {
    let root = repo_root();
    // From the file, so a document split over files is read whole (and any change to one of its
    // files shows up as drift).
    let generated = openapi_gen::generate_file(&root.join(spec), opts, &Part::ALL)
        .map_err(|d| format!("{spec}:\n{d}"))?;
    eprint!("{}", generated.diagnostics);
    let mut clean = true;
    for (part, files) in &generated.crates {
        let dir = root.join(out).join(part.dir_name());
        if !check {
            openapi_gen::output::write_crate(&dir, files)
                .map_err(|e| format!("writing {}: {e}", dir.display()))?;
            continue;
        }
        for path in openapi_gen::output::drift(&dir, files) {
            clean = false;
            let shown = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            eprintln!("generated file is out of date: {shown}");
            let relative = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            let new = files
                .iter()
                .find(|f| f.path == relative)
                .map(|f| f.contents.as_str())
                .unwrap_or("");
            let diff = similar::TextDiff::from_lines(old.as_str(), new);
            let text = diff
                .unified_diff()
                .context_radius(2)
                .header(&shown, "(regenerated)")
                .to_string();
            for line in text.lines().take(40) {
                eprintln!("    {line}");
            }
        }
    }
    Ok(clean)
}
