//! Writing generated crates to disk, and comparing them with what is there (the drift check).

use crate::emit::File;
use std::path::{Path, PathBuf};

/// Writes the files of one crate into `dir`, removing generated `.rs` files that are no longer produced.
pub fn write_crate(dir: &Path, files: &[File]) -> std::io::Result<()> {
    // A crate written for the first time has nothing to compare with or remove.
    let existed = dir.exists();
    if existed {
        for stale in stale_files(dir, files) {
            std::fs::remove_file(stale)?;
        }
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
        // An unchanged file is left alone, so that its modification time does not make cargo
        // rebuild the crate.
        if !existed
            || std::fs::read_to_string(&path).ok().as_deref() != Some(file.contents.as_str())
        {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, contents: &str) -> File {
        File {
            path: path.to_owned(),
            contents: contents.to_owned(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("openapi-gen-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_new_crate_is_written_whole() {
        let dir = scratch("new").join("models");
        let files = [
            file("Cargo.toml", "[package]\n"),
            file("src/lib.rs", "mod a;\n"),
        ];
        write_crate(&dir, &files).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("src/lib.rs")).unwrap(),
            "mod a;\n"
        );
        assert!(drift(&dir, &files).is_empty());
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    #[test]
    fn rewriting_keeps_unchanged_files_and_removes_stale_ones() {
        let dir = scratch("again");
        write_crate(
            &dir,
            &[file("src/lib.rs", "mod a;\n"), file("src/a.rs", "old\n")],
        )
        .unwrap();
        let written = |path: &str| {
            std::fs::metadata(dir.join(path))
                .unwrap()
                .modified()
                .unwrap()
        };
        let before = written("src/lib.rs");
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_crate(
            &dir,
            &[file("src/lib.rs", "mod a;\n"), file("src/b.rs", "new\n")],
        )
        .unwrap();
        assert_eq!(
            written("src/lib.rs"),
            before,
            "an unchanged file is not written again"
        );
        assert!(
            !dir.join("src/a.rs").exists(),
            "a file no longer generated is removed"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("src/b.rs")).unwrap(),
            "new\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
