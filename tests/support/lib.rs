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
