//! Writing generated crates to disk, and comparing them with what is there (the drift check).

use crate::emit::File;
use std::path::{Path, PathBuf};

/// Writes the files of one crate into `dir`, removing generated `.rs` files that are no longer produced.
pub fn write_crate(dir: &Path, files: &[File]) -> std::io::Result<()> {
    for stale in stale_files(dir, files) {
        std::fs::remove_file(stale)?;
    }
    // Files come grouped by folder: each folder is made once.
    let mut made: Option<PathBuf> = None;
    for file in files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent()
            && made.as_deref() != Some(parent)
        {
            std::fs::create_dir_all(parent)?;
            made = Some(parent.to_owned());
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(file.contents.as_str()) {
            std::fs::write(&path, &file.contents)?;
        }
    }
    Ok(())
}

/// The paths (relative to the repository's view of `dir`) whose content differs from `files`, plus
/// stale files that would be removed.
pub fn drift(dir: &Path, files: &[File]) -> Vec<PathBuf> {
    let mut differing: Vec<PathBuf> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(dir.join(&f.path)).ok().as_deref() != Some(f.contents.as_str())
        })
        .map(|f| dir.join(&f.path))
        .collect();
    differing.extend(stale_files(dir, files));
    differing
}

fn stale_files(dir: &Path, files: &[File]) -> Vec<PathBuf> {
    let mut stale = Vec::new();
    let mut pending = vec![dir.join("src")];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                if !files.iter().any(|f| f.path == relative) {
                    stale.push(path);
                }
            }
        }
    }
    stale.sort();
    stale
}
