//! Shared helpers of the integration tests.

pub mod memory;

use std::path::PathBuf;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the repository")
        .to_path_buf()
}

/// `../shared/corpus`, when it is there.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = repo_root().join("..").join("shared").join("corpus");
    dir.is_dir().then_some(dir)
}

/// The documents of the corpus (JSON and YAML), in name order; `None` when the corpus is absent.
pub fn corpus_documents() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir()?;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "json" || e == "yaml" || e == "yml")
        })
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no documents in {}", dir.display());
    Some(paths)
}

/// Options for generating a test document.
pub fn generator_options(crate_prefix: &str, source_name: &str) -> openapi_gen::emit::Options {
    openapi_gen::emit::Options::new(crate_prefix, source_name, "cargo test")
}
