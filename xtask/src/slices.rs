//! Slices of the corpus: each operation group of a document generated alone (`--groups`), every
//! crate `cargo clippy`-clean with warnings denied.
//!
//! `cargo xtask slices [--sample N] [DOCUMENT...]`: by default every group of the corpus documents
//! named in [`DEFAULT`]; `--sample N` takes N groups of each document, spread evenly over its groups
//! in document order (CI's sample of the big documents).

use crate::compile::{check_crates, crate_name};
use crate::{options, repo_root};
use openapi_gen::Part;
use std::time::Instant;

/// The document whose every group CI checks (15 groups, by tag); the big ones get `--sample`.
pub const DEFAULT: [&str; 1] = ["spotify-3.0.yaml"];

pub fn run(args: &[String]) -> Result<bool, String> {
    let mut sample = None;
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
            doc => docs.push(doc.to_owned()),
        }
    }
    if docs.is_empty() {
        docs = DEFAULT.iter().map(|d| (*d).to_owned()).collect();
    }
    let corpus = repo_root().join("..").join("shared").join("corpus");
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

/// `n` of `names`, spread evenly (the first always), or all of them.
fn pick(names: &[String], n: Option<usize>) -> Vec<String> {
    match n {
        Some(n) if n < names.len() => (0..n).map(|i| names[i * names.len() / n].clone()).collect(),
        _ => names.to_vec(),
    }
}
