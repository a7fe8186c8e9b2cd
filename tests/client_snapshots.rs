//! The client emitter: a snapshot of the client crate generated for tests/fixtures/client-basics.yaml
//! (the runtime copied from templates/client is left out), and every corpus document generating a
//! client without an error. The fixture's crate is compiled by `cargo xtask fixtures`; the service's
//! client (generated/client) is compiled and driven by tests/client_roundtrip.rs.

use integration_tests::{corpus_dir, repo_root};
use openapi_gen::Part;
use openapi_gen::emit::Options;

fn options(source: &str, rustfmt: bool) -> Options {
    Options {
        crate_prefix: "fixture".to_owned(),
        crate_version: "0.1.0".to_owned(),
        source_name: source.to_owned(),
        command: "cargo xtask fixtures".to_owned(),
        rustfmt,
    }
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
    let source = "tests/fixtures/client-basics.yaml";
    let text = std::fs::read_to_string(repo_root().join(source)).expect("fixture");
    let generated = openapi_gen::generate(&text, &options(source, true), &[Part::Client])
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
    insta::assert_snapshot!("client_basics", out);
}

/// Generating twice gives the same bytes (no hash-map order leaks into the output).
#[test]
fn client_output_is_deterministic() {
    let text = std::fs::read_to_string(repo_root().join("spec/asset-alerting.yaml")).expect("spec");
    let run = || {
        let generated = openapi_gen::generate(&text, &options("spec", false), &[Part::Client])
            .expect("generates");
        generated
            .crates
            .into_iter()
            .flat_map(|(_, files)| files)
            .map(|f| (f.path, f.contents))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

/// The emitter never fails (nor panics) on a corpus document: multipart and binary bodies,
/// several success responses, operations without operationId, header and cookie parameters...
#[test]
fn every_corpus_document_generates_a_client() {
    let Some(dir) = corpus_dir() else {
        eprintln!("no corpus directory; skipped");
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.retain(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"));
    paths.sort();
    let mut failures = Vec::new();
    let mut clients = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("corpus document");
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        match openapi_gen::generate(&text, &options(&name, false), &[Part::Client]) {
            Ok(generated) => clients += generated.crates.len(),
            // Documents the loader rejects are the models' business; the client must not add failures.
            Err(diags) if openapi_gen::load_api(&text).is_err() => drop(diags),
            Err(diags) => failures.push(format!("{name}:\n{diags}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(clients > 0, "no corpus document produced a client");
}
