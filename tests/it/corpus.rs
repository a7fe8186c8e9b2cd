//! The corpus of real public documents (../shared/corpus): every one must load, lower and generate
//! all three crates without a panic; the report says, per document, what was generated or which
//! diagnostic stopped it; no document loses an operation on the way. `cargo xtask corpus --compile`
//! additionally compiles the generated models and prints the operations generated per document.

use integration_tests::{corpus_documents, generator_options};
use openapi_gen::Part;

#[test]
fn every_corpus_document_generates() {
    let Some(paths) = corpus_documents() else {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return;
    };
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        match openapi_gen::generate(&text, &generator_options("corpus", &name), &Part::ALL) {
            Ok(generated) => {
                let parts: Vec<Part> = generated.crates.iter().map(|(part, _)| *part).collect();
                let files: usize = generated.crates.iter().map(|(_, f)| f.len()).sum();
                let warnings = generated.diagnostics.warnings().count();
                eprintln!("generated {name}: {parts:?}, {files} files, {warnings} warnings");
                // A document with operations gets a server and a client; one without, models only.
                let operations =
                    openapi_gen::load_api(&text).map_or(0, |(api, _)| api.operations.len());
                let has_operations = operations > 0;
                let expected: &[Part] = if has_operations {
                    &Part::ALL
                } else {
                    &[Part::Models]
                };
                // No operation is lost: not to its path (mixed segments, a query in the path), and
                // not by the server's router.
                for dropped in generated
                    .diagnostics
                    .warnings()
                    .map(ToString::to_string)
                    .filter(|d| d.contains("the operation is not generated"))
                {
                    failures.push(format!("{name}: {dropped}"));
                }
                let handlers = generated
                    .crates
                    .iter()
                    .flat_map(|(_, files)| files)
                    .filter(|f| f.path == "src/router.rs")
                    .map(|f| f.contents.matches("async fn handle_").count())
                    .sum::<usize>();
                if has_operations && handlers != operations {
                    failures.push(format!(
                        "{name}: the server routes {handlers} of {operations} operations"
                    ));
                }
                if parts != expected {
                    failures.push(format!(
                        "{name}: generated {parts:?}, expected {expected:?}"
                    ));
                }
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
