//! Compiling generated crates for real: they are written into a scratch workspace under target/ and
//! `cargo check`ed (or `cargo clippy`ed) with warnings denied (a snapshot that does not compile is a
//! bug the snapshot hid).

use crate::{options, repo_root};
use openapi_gen::Part;
use openapi_gen::emit::File;
use std::path::Path;
use std::process::Command;

/// Writes each `(name, files)` crate into a scratch workspace and checks them all in one cargo run
/// (`lint`: with clippy, its warnings denied too). Returns the names of the crates that failed.
pub fn check_crates(
    label: &str,
    crates: &[(String, Vec<File>)],
    lint: bool,
) -> Result<Vec<String>, String> {
    let root = repo_root();
    let scratch = write_workspace(label, crates)?;
    // The webhooks' sender (server crates) and receiver (client crates) are checked too.
    let features: Vec<String> = crates
        .iter()
        .filter(|(_, files)| {
            files
                .iter()
                .any(|f| f.path == "Cargo.toml" && f.contents.contains("\nwebhooks = ["))
        })
        .map(|(name, _)| format!("{name}/webhooks"))
        .collect();
    let features = if features.is_empty() {
        Vec::new()
    } else {
        vec!["--features".to_owned(), features.join(",")]
    };
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            if lint { "clippy" } else { "check" },
            "--workspace",
            "--keep-going",
            "--quiet",
            "--message-format",
            "short",
        ])
        .args(&features)
        .args(if lint {
            &["--", "-D", "warnings"][..]
        } else {
            &[]
        })
        .current_dir(&scratch)
        .env("CARGO_TARGET_DIR", build_dir(&root))
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed: Vec<String> = crates
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| stderr.contains(&format!("could not compile `{name}`")))
        .collect();
    if !output.status.success() {
        for line in stderr
            .lines()
            .filter(|l| l.contains("error") || l.contains("warning"))
            .take(60)
        {
            eprintln!("    {line}");
        }
        if failed.is_empty() {
            return Err(format!("cargo check failed in {}", scratch.display()));
        }
    }
    Ok(failed)
}

/// Writes each `(name, files)` crate into the scratch workspace `target/xtask-{label}` (each
/// document's crates side by side, as under generated/); returns its path.
pub fn write_workspace(
    label: &str,
    crates: &[(String, Vec<File>)],
) -> Result<std::path::PathBuf, String> {
    let root = repo_root();
    let scratch = root.join("target").join(format!("xtask-{label}"));
    let _ = std::fs::remove_dir_all(&scratch);
    let mut members = Vec::new();
    for (name, files) in crates {
        // The server and client crates find their models crate at `../models`, as under generated/:
        // each document's crates go side by side in a folder of their own (`{doc}/{part}`).
        let relative = match name.rsplit_once('-') {
            Some((doc, part)) if ["models", "server", "client"].contains(&part) => {
                format!("{doc}/{part}")
            }
            _ => name.clone(),
        };
        let dir = scratch.join(&relative);
        openapi_gen::output::write_crate(&dir, files)
            .map_err(|e| format!("writing {}: {e}", dir.display()))?;
        members.push(format!("    \"{relative}\","));
    }
    let manifest = format!(
        "[workspace]\nresolver = \"3\"\nmembers = [\n{}\n]\n",
        members.join("\n")
    );
    std::fs::write(scratch.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    // The repository's lock file pins the same dependency versions the checked-in crates use.
    let _ = std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"));
    Ok(scratch)
}

/// Where the scratch crates are built: under the caller's `CARGO_TARGET_DIR` when set (builders
/// sharing a machine keep their own), else under the repository's target/.
pub fn build_dir(root: &Path) -> std::path::PathBuf {
    workspace_target(root).join("xtask-check")
}

/// The workspace's target directory: the caller's `CARGO_TARGET_DIR`, else target/.
pub fn workspace_target(root: &Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), std::path::PathBuf::from)
}

/// Generates every fixture under tests/fixtures and checks that the crates pass `clippy -D warnings`.
pub fn fixtures() -> Result<bool, String> {
    let dir = repo_root().join("tests").join("fixtures");
    let mut crates = Vec::new();
    // A fixture is a document, or a folder holding a document split over files (`openapi.yaml`).
    let split = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path().join("openapi.yaml"))
        .filter(|p| p.is_file());
    let mut paths: Vec<_> = spec_files(&dir)?.into_iter().chain(split).collect();
    paths.sort();
    for path in paths {
        let relative = path.strip_prefix(&dir).unwrap_or(&path);
        let name = match relative.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(folder) => crate_name("fixture", folder),
            None => crate_name("fixture", &path),
        };
        let source = format!("tests/fixtures/{}", relative.display());
        let generated = openapi_gen::generate_file(&path, &options(&source, &name), &Part::ALL)
            .map_err(|d| format!("{source}:\n{d}"))?;
        for (part, files) in generated.crates {
            crates.push((format!("{name}-{}", part.dir_name()), files));
        }
    }
    let failed = check_crates("fixtures", &crates, true)?;
    println!(
        "fixtures: {} crates checked, {} failed {:?}",
        crates.len(),
        failed.len(),
        failed
    );
    Ok(failed.is_empty())
}

pub fn spec_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// A crate name from a file name: `stripe-3.0.json` -> `corpus-stripe-3-0`.
pub fn crate_name(prefix: &str, path: &Path) -> String {
    let stem = path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    let cleaned: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{prefix}-{}", cleaned.trim_matches('-'))
}
