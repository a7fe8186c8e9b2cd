//! The corpus report: every document of ../shared/corpus loaded, lowered and generated, and
//! optionally compiled.

use crate::compile::{check_crates, crate_name, spec_files};
use crate::{options, repo_root};
use openapi_gen::Part;
use std::time::Instant;

/// Documents above this size are left out of `--skip-large` compile runs.
const LARGE: u64 = 1_000_000;

pub fn run(compile: bool, skip_large: bool) -> Result<bool, String> {
    let dir = repo_root().join("..").join("shared").join("corpus");
    if !dir.is_dir() {
        println!("corpus: {} is absent; skipped", dir.display());
        return Ok(true);
    }
    let mut crates = Vec::new();
    let (mut loaded, mut generated_count, mut total) = (0, 0, 0);
    for path in spec_files(&dir)? {
        total += 1;
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let name = crate_name("corpus", &path);
        let started = Instant::now();
        match openapi_gen::generate(
            &text,
            &options(&format!("corpus/{file}"), &name),
            &[Part::Models],
        ) {
            Ok(generated) => {
                loaded += 1;
                generated_count += 1;
                let warnings = generated.diagnostics.warnings().count();
                let lines: usize = generated
                    .crates
                    .iter()
                    .flat_map(|(_, f)| f)
                    .map(|f| f.contents.lines().count())
                    .sum();
                println!(
                    "generated  {file:<42} {lines:>7} lines  {warnings:>4} warnings  {:>6} ms",
                    started.elapsed().as_millis()
                );
                if !(skip_large && size > LARGE) {
                    for (part, files) in generated.crates {
                        crates.push((format!("{name}-{}", part.dir_name()), files));
                    }
                }
            }
            Err(diags) => {
                let first = diags
                    .errors()
                    .next()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                println!("failed     {file:<42} {first}");
            }
        }
    }
    let mut compiled_ok = true;
    let mut summary =
        format!("corpus: {total} documents, {loaded} loaded, {generated_count} generated");
    if compile {
        let failed = check_crates("corpus", &crates)?;
        compiled_ok = failed.is_empty();
        summary.push_str(&format!(
            ", {} of {} compiled",
            crates.len() - failed.len(),
            crates.len()
        ));
        for name in failed {
            println!("did not compile: {name}");
        }
    }
    println!("{summary}");
    Ok(generated_count == total && compiled_ok)
}
