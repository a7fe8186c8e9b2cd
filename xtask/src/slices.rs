//! Slices of the corpus: each operation group of a document generated alone (`--groups`), every
//! crate `cargo clippy`-clean with warnings denied.
//!
//! `cargo xtask slices [--sample N] [DOCUMENT...]`: by default every group of the corpus documents
//! named in [`DEFAULT`]; `--sample N` takes N groups of each document, spread evenly over its groups
//! in document order (CI's sample of the big documents).
//!
//! `cargo xtask slices --features [--sample N] [DOCUMENT...]`: the crates of each document
//! generated whole, each with a cargo feature per group, `cargo clippy`ed (warnings denied, module
//! `webhooks` on) with no group (`--no-default-features`) and each group alone; `--sample N`: N
//! groups alone. Every group, the default features, is the crate as generated whole, which the
//! other checks compile: `cargo xtask corpus --compile` the corpus documents', `cargo xtask
//! fixtures` the fixtures', the workspace's clippy the service's (generated/).

use crate::compile::{build_dir, check_crates, crate_name, write_workspace};
use crate::{options, repo_root};
use openapi_gen::Part;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The document whose every group CI checks (15 groups, by tag); the big ones get `--sample`.
pub const DEFAULT: [&str; 1] = ["spotify-3.0.yaml"];

/// What `--features` checks by default: spotify (15 groups, by tag), the service's spec (paging,
/// streams, client credentials, webhooks), and the fixtures of webhooks and callbacks, mixed path
/// segments (dispatchers), the device flow, a streamed chat completion and OpenAPI 3.2's methods.
/// Paths are the repository's; a bare name is a corpus document.
pub const FEATURES_DEFAULT: [&str; 7] = [
    "spotify-3.0.yaml",
    "spec/asset-alerting.yaml",
    "tests/fixtures/webhooks.yaml",
    "tests/fixtures/mixed-paths.yaml",
    "tests/fixtures/device-flow-3.2.yaml",
    "tests/fixtures/openai-chat-stream.yaml",
    "tests/fixtures/methods-3.2.yaml",
];

pub fn run(args: &[String]) -> Result<bool, String> {
    let mut sample = None;
    let mut features = false;
    let mut docs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sample" => {
                let n = args.next().and_then(|n| n.parse::<usize>().ok());
                sample = Some(
                    n.filter(|n| *n > 0)
                        .ok_or("--sample takes a count above 0")?,
                );
            }
            "--features" => features = true,
            doc => docs.push(doc.to_owned()),
        }
    }
    if docs.is_empty() {
        let default: &[&str] = if features {
            &FEATURES_DEFAULT
        } else {
            &DEFAULT
        };
        docs = default.iter().map(|d| (*d).to_owned()).collect();
    }
    let corpus = repo_root().join("..").join("shared").join("corpus");
    if features {
        return features_run(&corpus, &docs, sample);
    }
    let started = Instant::now();
    let mut crates = Vec::new();
    for doc in &docs {
        let path = corpus.join(doc);
        if !path.is_file() {
            println!("slices: {} is absent; skipped", path.display());
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let (api, _) = openapi_gen::load_api(&text).map_err(|d| format!("{doc}:\n{d}"))?;
        let names: Vec<String> = openapi_gen::groups::Groups::of(&api)
            .names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let picked = pick(&names, sample);
        println!("{doc}: {} of {} groups", picked.len(), names.len());
        let base = crate_name("slice", &path);
        for group in picked {
            let mut opts = options(&format!("corpus/{doc}"), &format!("{base}-{group}"));
            opts.groups = vec![group.clone()];
            let generated = openapi_gen::generate(&text, &opts, &Part::ALL)
                .map_err(|d| format!("{doc} --groups {group}:\n{d}"))?;
            for (part, files) in generated.crates {
                crates.push((format!("{base}-{group}-{}", part.dir_name()), files));
            }
        }
    }
    let failed = check_crates("slices", &crates, true)?;
    for name in &failed {
        println!("not clippy-clean: {name}");
    }
    println!(
        "slices: {} of {} crates clippy-clean (-D warnings) in {} s",
        crates.len() - failed.len(),
        crates.len(),
        started.elapsed().as_secs()
    );
    Ok(failed.is_empty())
}

/// `--features`: per document, the whole crates checked with no group and each picked group alone.
fn features_run(corpus: &Path, docs: &[String], sample: Option<usize>) -> Result<bool, String> {
    let started = Instant::now();
    let mut failed = Vec::new();
    let mut runs = 0;
    for doc in docs {
        // A path in the repository (a fixture, the service's spec), or a corpus document's name.
        let path = match repo_root().join(doc) {
            given if given.is_file() => given,
            _ => corpus.join(doc),
        };
        if !path.is_file() {
            println!("slices --features: {} is absent; skipped", path.display());
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let base = crate_name("features", &path);
        let opts = options(&format!("corpus/{doc}"), &base);
        let generated =
            openapi_gen::generate(&text, &opts, &Part::ALL).map_err(|d| format!("{doc}:\n{d}"))?;
        let (api, _) = openapi_gen::load_api(&text).map_err(|d| format!("{doc}:\n{d}"))?;
        let groups = openapi_gen::groups::Groups::of(&api);
        let mut names: Vec<String> = groups.names().into_iter().map(str::to_owned).collect();
        // The models no operation reaches have a feature too, checked alone like a group.
        if groups.unused_components() > 0 && sample.is_none() {
            names.push(openapi_gen::groups::UNUSED_COMPONENTS.to_owned());
        }
        let crates: Vec<(String, Vec<openapi_gen::emit::File>)> = (generated.crates.into_iter())
            .map(|(part, files)| (format!("{base}-{}", part.dir_name()), files))
            .collect();
        let scratch = write_workspace(&base, &crates)?;
        let picked = pick(&names, sample);
        println!(
            "{doc}: no group, {} of {} groups alone",
            picked.len(),
            names.len()
        );
        let mut selections: Vec<(String, Vec<String>)> = vec![("no group".into(), Vec::new())];
        selections.extend(picked.iter().map(|g| (g.clone(), vec![g.clone()])));
        for (label, groups) in selections {
            let mut features = Vec::new();
            for (name, files) in &crates {
                let manifest = files.iter().find(|f| f.path == "Cargo.toml");
                let manifest = manifest.map_or("", |f| f.contents.as_str());
                // Module `webhooks` (the sender and the receiver) is checked in every selection.
                if manifest.contains("\nwebhooks = [") {
                    features.push(format!("{name}/webhooks"));
                }
                for group in &groups {
                    if manifest.contains(&format!("\n{group} = [")) {
                        features.push(format!("{name}/{group}"));
                    }
                }
            }
            let mut command =
                Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
            command.args([
                "clippy",
                "--workspace",
                "--quiet",
                "--message-format",
                "short",
                "--no-default-features",
            ]);
            if !features.is_empty() {
                command.args(["--features", &features.join(",")]);
            }
            let output = command
                .args(["--", "-D", "warnings"])
                .current_dir(&scratch)
                .env("CARGO_TARGET_DIR", build_dir(&repo_root()))
                .env("RUSTFLAGS", "-D warnings")
                .output()
                .map_err(|e| format!("running cargo: {e}"))?;
            runs += 1;
            if !output.status.success() {
                let stderr = String::from_utf8_lossy(&output.stderr);
                for line in stderr
                    .lines()
                    .filter(|l| l.contains("error") || l.contains("warning"))
                    .take(30)
                {
                    eprintln!("    {line}");
                }
                println!("not clippy-clean: {doc} with {label}");
                failed.push(format!("{doc} with {label}"));
            }
        }
    }
    println!(
        "slices --features: {} of {runs} selections clippy-clean (-D warnings) in {} s",
        runs - failed.len(),
        started.elapsed().as_secs()
    );
    Ok(failed.is_empty())
}

/// `n` of `names`, spread evenly (the first always), or all of them.
fn pick(names: &[String], n: Option<usize>) -> Vec<String> {
    match n {
        Some(n) if n < names.len() => (0..n).map(|i| names[i * names.len() / n].clone()).collect(),
        _ => names.to_vec(),
    }
}
