//! The client emitter: snapshots of the client crates generated for tests/fixtures/client-basics.yaml
//! and tests/fixtures/errors-formats.yaml
//! (the runtime copied from templates/client is left out). The fixture's crate is compiled by
//! `cargo xtask fixtures`; the service's client (generated/client) is compiled and driven by
//! tests/it/client_roundtrip.rs; determinism and the corpus are covered for every part by
//! tests/it/generator_snapshots.rs and tests/it/corpus.rs.

use integration_tests::repo_root;
use openapi_gen::Part;
use openapi_gen::emit::Options;

fn options(source: &str) -> Options {
    Options::new("fixture", source, "cargo xtask fixtures")
}

/// Files copied verbatim from templates/client.
const RUNTIME: &[&str] = &[
    "src/auth.rs",
    "src/client.rs",
    "src/codec.rs",
    "src/error.rs",
    "src/retry.rs",
];

#[test]
fn client_basics() {
    insta::assert_snapshot!(
        "client_basics",
        client_of("tests/fixtures/client-basics.yaml")
    );
}

/// An error enum per operation (three statuses with their own bodies, a header, `4XX`, `default`),
/// `format: uri` (a checked `String`), base64 and binary bodies.
#[test]
fn errors_formats() {
    insta::assert_snapshot!(
        "errors_formats",
        client_of("tests/fixtures/errors-formats.yaml")
    );
}

/// The generated client crate of `source`, as one text without the copied runtime.
fn client_of(source: &str) -> String {
    let text = std::fs::read_to_string(repo_root().join(source)).expect("fixture");
    let generated = openapi_gen::generate(&text, &options(source), &[Part::Client])
        .unwrap_or_else(|d| panic!("{source}:\n{d}"));
    let mut out = String::new();
    for diag in &generated.diagnostics.0 {
        out.push_str(&format!("// diagnostic: {diag}\n"));
    }
    let (_, files) = generated
        .crates
        .iter()
        .find(|(part, _)| *part == Part::Client)
        .expect("a client crate");
    let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for runtime in RUNTIME {
        assert!(
            names.contains(runtime),
            "{runtime} is missing from {names:?}"
        );
    }
    for file in files.iter().filter(|f| !RUNTIME.contains(&f.path.as_str())) {
        out.push_str(&format!(
            "// ===== {} =====\n{}\n",
            file.path, file.contents
        ));
    }
    out
}
