//! The corpus of real public documents (../shared/corpus): every one must load, lower and generate
//! without a panic; the report says, per document, what was generated or which diagnostic stopped it.
//! `cargo xtask corpus --compile` additionally compiles the generated models.

use integration_tests::corpus_dir;
use openapi_gen::Part;
use openapi_gen::emit::Options;

#[test]
fn every_corpus_document_generates() {
    let Some(dir) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.retain(|p| {
        p.extension()
            .is_some_and(|e| e == "json" || e == "yaml" || e == "yml")
    });
    paths.sort();
    assert!(!paths.is_empty(), "no documents in {}", dir.display());
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let opts = Options {
            crate_prefix: "corpus".to_owned(),
            crate_version: "0.1.0".to_owned(),
            source_name: name.clone(),
            command: "cargo xtask corpus".to_owned(),
            // rustfmt is not what this test is about, and it is slow on the largest documents.
            rustfmt: false,
        };
        match openapi_gen::generate(&text, &opts, &Part::ALL) {
            Ok(generated) => {
                let files: usize = generated.crates.iter().map(|(_, f)| f.len()).sum();
                let warnings = generated.diagnostics.warnings().count();
                eprintln!(
                    "generated {name}: {} crates, {files} files, {warnings} warnings",
                    generated.crates.len()
                );
            }
            Err(diagnostics) => {
                let first = diagnostics
                    .errors()
                    .next()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                eprintln!("diagnostic {name}: {first}");
                failures.push(format!("{name}: {first}"));
            }
        }
    }
    assert!(
        failures
            .iter()
            .all(|f| !f.contains("internal generator error")),
        "generator bugs:\n{}",
        failures.join("\n")
    );
    assert!(
        failures.is_empty(),
        "documents that did not generate:\n{}",
        failures.join("\n")
    );
}
