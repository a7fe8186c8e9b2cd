//! The corpus report: every document of ../shared/corpus loaded, lowered and generated, with the
//! operations its server and client generate of those it declares, and optionally compiled:
//! models, server and client, each `cargo clippy`-clean with warnings denied.

use crate::compile::{build_dir, check_crates, crate_name, spec_files, write_workspace};
use crate::{options, repo_root};
use openapi_gen::Part;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
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
    let mut operations = Vec::new();
    for (path, outcome) in generate_all(spec_files(&dir)?)? {
        total += 1;
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let name = crate_name("corpus", &path);
        match outcome.generated {
            Ok(generated) => {
                loaded += 1;
                generated_count += 1;
                let warnings = generated.diagnostics.warnings().count();
                let server = server_operations(&generated);
                operations.push((file.clone(), outcome.in_document, server, outcome.client));
                let lines: usize = generated
                    .crates
                    .iter()
                    .flat_map(|(_, f)| f)
                    .map(|f| f.contents.lines().count())
                    .sum();
                println!(
                    "generated  {file:<42} {lines:>7} lines  {warnings:>4} warnings  {:>6} ms",
                    outcome.ms
                );
                if !(skip_large && size > LARGE) {
                    for (part, files) in generated.crates {
                        crates.push((format!("{name}-{}", part.dir_name()), files));
                    }
                }
            }
            Err(first) => println!("failed     {file:<42} {first}"),
        }
    }
    println!("\noperations generated (server / client) of the document's:");
    for (file, in_document, server, client) in &operations {
        let mark = if server == in_document && client == in_document {
            ""
        } else {
            "  (some not generated: see the warnings)"
        };
        println!("  {file:<42} {server:>4} / {client:>4} of {in_document:>4}{mark}");
    }
    let mut compiled_ok = true;
    let mut summary =
        format!("corpus: {total} documents, {loaded} loaded, {generated_count} generated");
    if compile {
        let started = Instant::now();
        let failed = check_crates("corpus", &crates, true)?;
        compiled_ok = failed.is_empty();
        summary.push_str(&format!(
            ", {} of {} crates clippy-clean (-D warnings) in {} s",
            crates.len() - failed.len(),
            crates.len(),
            started.elapsed().as_secs()
        ));
        for name in failed {
            println!("not clippy-clean: {name}");
        }
    }
    println!("{summary}");
    Ok(generated_count == total && compiled_ok)
}

/// One document generated: the crates (or the first error), the operations the document
/// declares and those its client has, and how long it took.
struct Outcome {
    generated: Result<openapi_gen::Generated, String>,
    in_document: usize,
    client: usize,
    ms: u128,
}

/// Every document generated, in the order given, on as many threads as there are cores: the
/// generator is single-threaded, and the big documents take seconds each in a dev build.
fn generate_all(paths: Vec<PathBuf>) -> Result<Vec<(PathBuf, Outcome)>, String> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut done: Vec<(usize, PathBuf, Outcome)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(paths.len()))
            .map(|_| {
                scope.spawn(|| -> Result<Vec<(usize, PathBuf, Outcome)>, String> {
                    let mut mine = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = paths.get(index) else {
                            return Ok(mine);
                        };
                        mine.push((index, path.clone(), generate_one(path)?));
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for worker in workers {
            all.extend(
                worker
                    .join()
                    .map_err(|_| "a generating thread panicked")??,
            );
        }
        Ok::<_, String>(all)
    })?;
    done.sort_by_key(|(index, _, _)| *index);
    Ok(done
        .into_iter()
        .map(|(_, path, outcome)| (path, outcome))
        .collect())
}

fn generate_one(path: &Path) -> Result<Outcome, String> {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = crate_name("corpus", path);
    let started = Instant::now();
    let in_document = openapi_gen::load::parse_text(&text)
        .map(|document| document_operations(&document))
        .unwrap_or(0);
    let generated = openapi_gen::generate(
        &text,
        &options(&format!("corpus/{file}"), &name),
        &Part::ALL,
    )
    .map_err(|diags| {
        diags
            .errors()
            .next()
            .map(ToString::to_string)
            .unwrap_or_default()
    });
    let client = match &generated {
        Ok(_) => openapi_gen::load_api(&text)
            .map(|(api, _)| api.operations.len())
            .unwrap_or(0),
        Err(_) => 0,
    };
    Ok(Outcome {
        generated,
        in_document,
        client,
        ms: started.elapsed().as_millis(),
    })
}

/// The operations the generated server handles: its router's handlers.
pub fn server_operations(generated: &openapi_gen::Generated) -> usize {
    generated
        .crates
        .iter()
        .filter(|(part, _)| *part == Part::Server)
        .flat_map(|(_, files)| files)
        .filter(|f| f.path == "src/router.rs")
        .map(|f| f.contents.matches("async fn handle_").count())
        .sum()
}

/// The operations a document declares: the method keys under `paths` (webhooks aside).
pub fn document_operations(document: &serde_json::Value) -> usize {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    document
        .get("paths")
        .and_then(|paths| paths.as_object())
        .map(|paths| {
            paths
                .values()
                .filter_map(|item| item.as_object())
                .map(|item| {
                    item.keys()
                        .filter(|k| METHODS.contains(&k.as_str()))
                        .count()
                })
                .sum()
        })
        .unwrap_or(0)
}

/// `corpus --doc NAME,...`: the doc tests of the models and client crates (every client method's
/// example, the READMEs') of the corpus documents whose file names start with the given names,
/// generated into one scratch workspace and run by one `cargo test --doc`, timed. The server
/// crates are left out: building stripe's costs more than the rest together, for one example
/// whose shape the fixtures' servers test. Built without debug information, which a doc test
/// that never runs does not need.
pub fn doc(names: &[String]) -> Result<bool, String> {
    let dir = repo_root().join("..").join("shared").join("corpus");
    if !dir.is_dir() {
        println!("corpus: {} is absent; skipped", dir.display());
        return Ok(true);
    }
    let files = spec_files(&dir)?;
    let mut crates = Vec::new();
    for wanted in names {
        let path = files
            .iter()
            .find(|p| {
                p.file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{wanted}-")))
            })
            .ok_or_else(|| format!("corpus --doc: no document named {wanted}"))?;
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let name = crate_name("corpus", path);
        let generated = openapi_gen::generate(
            &text,
            &options(&format!("corpus/{file}"), &name),
            &Part::ALL,
        )
        .map_err(|d| format!("{file}:\n{d}"))?;
        for (part, files) in generated.crates {
            crates.push((format!("{name}-{}", part.dir_name()), files));
        }
    }
    let scratch = write_workspace("doc", &crates)?;
    let tested: Vec<&String> = crates
        .iter()
        .map(|(name, _)| name)
        .filter(|name| !name.ends_with("-server"))
        .collect();
    let started = Instant::now();
    let output =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["test", "--doc", "--no-fail-fast", "--quiet"])
            .args(tested.iter().flat_map(|name| ["-p", name.as_str()]))
            .current_dir(&scratch)
            .env("CARGO_TARGET_DIR", build_dir(&repo_root()))
            .env("CARGO_PROFILE_DEV_DEBUG", "0")
            .output()
            .map_err(|e| format!("running cargo: {e}"))?;
    let elapsed = started.elapsed().as_secs();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let passed: usize = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    if !output.status.success() {
        for line in stdout
            .lines()
            .chain(stderr.lines())
            .filter(|l| l.contains("FAILED") || l.contains("error") || l.starts_with("---- "))
            .take(60)
        {
            eprintln!("    {line}");
        }
    }
    println!(
        "corpus --doc {}: {} crates, {passed} doc tests passed, {} in {elapsed} s",
        names.join(","),
        tested.len(),
        if output.status.success() {
            "none failed"
        } else {
            "SOME FAILED"
        },
    );
    Ok(output.status.success())
}
