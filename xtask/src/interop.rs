//! `cargo xtask interop`: the generated code against tools nobody here wrote.
//!
//! For each document of tests/interop/expected.json:
//! - **Prism** (`prism mock --errors`, static, then dynamic with `-d`): a driver program calls
//!   every operation of the generated client once, with arguments sampled from the schemas,
//!   through a recording proxy; an operation is *accepted* when Prism finds no violation in the
//!   request, and *decoded* when the client returns its success value or a documented error.
//! - **schemathesis** (where the document asks for it): `st run --checks all` against the
//!   generated server, implemented by a stub that answers each operation's first documented
//!   response.
//!
//! The figures must not fall below those recorded in expected.json, every operation not accepted
//! or not decoded must be listed among its exclusions with a cause, and an exclusion blamed on
//! Prism must show its proof: the exact request our client sent, sent again raw, which Prism
//! refuses the same way. Every process started is stopped on the way out, and all traffic stays
//! on 127.0.0.1.

mod programs;
use openapi_gen::samples;

use crate::compile::build_dir;
use crate::{options, repo_root};
use openapi_gen::Part;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EXPECTED: &str = "tests/interop/expected.json";
const MODES: [&str; 2] = ["static", "dynamic"];

#[derive(Deserialize)]
struct Expected {
    documents: Vec<Document>,
    exclusions: Vec<Exclusion>,
    #[serde(default)]
    schemathesis_exclusions: Vec<CheckExclusion>,
}

#[derive(Deserialize)]
struct Document {
    name: String,
    spec: String,
    operations: usize,
    prism: BTreeMap<String, Figures>,
    schemathesis: Option<Schemathesis>,
}

#[derive(Deserialize, Clone, Copy, Default, PartialEq)]
struct Figures {
    accepted: usize,
    decoded: usize,
}

#[derive(Deserialize)]
struct Schemathesis {
    max_examples: u32,
    /// Failures per check: at most this many.
    failures: BTreeMap<String, usize>,
}

/// An operation that Prism does not accept, or whose answer the client does not decode.
#[derive(Deserialize)]
struct Exclusion {
    document: String,
    operation: String,
    modes: Vec<String>,
    /// `accepted` (Prism refuses the request: it is not decoded either) or `decoded`.
    not: String,
    /// `prism` (a Prism bug: `issue` and `proof` required), `ours, open` (a fault of the
    /// generated code, for the lead to fix), `limit` (a limit of the generated code by design)
    /// or `document` (the document contradicts itself).
    cause: String,
    #[serde(default)]
    issue: Option<String>,
    why: String,
    #[serde(default)]
    proof: Option<Proof>,
}

/// The request our client sent, as raw HTTP/1.1 (`\r\n` line ends), and Prism's status for it.
#[derive(Deserialize)]
struct Proof {
    request: String,
    status: u16,
}

/// A schemathesis failure explained: which check, on which operation, and why.
#[derive(Deserialize)]
struct CheckExclusion {
    document: String,
    operation: String,
    check: String,
    cause: String,
    why: String,
}

/// Kills the process when dropped (also on early returns and panics).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Checks every document of expected.json, or those named; `--build-only`: writes and builds
/// their programs, and stops there (CI starts its background fuzzing after this build, which
/// the checks' next run finds done: unchanged files are left as they are).
pub fn run(args: &[String]) -> Result<bool, String> {
    let build_only = args.iter().any(|a| a == "--build-only");
    let only: Vec<String> = args
        .iter()
        .filter(|a| *a != "--build-only")
        .cloned()
        .collect();
    let root = repo_root();
    let text = std::fs::read_to_string(root.join(EXPECTED)).map_err(|e| e.to_string())?;
    let mut expected: Expected =
        serde_json::from_str(&text).map_err(|e| format!("{EXPECTED}: {e}"))?;
    if !only.is_empty() {
        expected.documents.retain(|d| only.contains(&d.name));
    }
    // As `cargo xtask corpus`: the corpus documents are checked where ../shared is beside the clone.
    expected.documents.retain(|d| {
        let present = root.join(&d.spec).is_file();
        if !present {
            println!("interop: {} is absent; {} skipped", d.spec, d.name);
        }
        present
    });
    let prism = prism_command(&root)?;
    // Rewritten in place, each file only where its content changed: a document no longer checked
    // keeps its folder, which no longer is a member.
    let scratch = root.join("target").join("xtask-interop");
    let mut members = Vec::new();
    for doc in &expected.documents {
        members.extend(write_document(&root, &scratch, doc)?);
    }
    let manifest = format!(
        "[workspace]\nresolver = \"3\"\nmembers = [\n{}\n]\n",
        members
            .iter()
            .map(|m| format!("    \"{m}\","))
            .collect::<Vec<_>>()
            .join("\n")
    );
    write_if_changed(&scratch.join("Cargo.toml"), &manifest)?;
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| e.to_string())?;
    write_if_changed(&scratch.join("Cargo.lock"), &lock)?;
    let started = Instant::now();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--workspace", "--bins", "--quiet"])
        .current_dir(&scratch)
        .env("CARGO_TARGET_DIR", build_dir(&root))
        .env("RUSTFLAGS", "-D warnings")
        // Line tables only (a panic's backtrace keeps its lines): full debug info for every
        // dependency costs build and link time, and nothing here runs under a debugger.
        .env("CARGO_PROFILE_DEV_DEBUG", "line-tables-only")
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the interop programs do not build ({})",
            scratch.display()
        ));
    }
    println!(
        "interop: programs built in {} s",
        started.elapsed().as_secs()
    );
    if build_only {
        return Ok(true);
    }
    let bin_dir = build_dir(&root).join("debug");
    let mut clean = true;
    let mut table = Vec::new();
    for doc in &expected.documents {
        let (ok, row) = check_document(&root, &scratch, &bin_dir, &prism, doc, &expected)?;
        clean &= ok;
        table.push(row);
    }
    println!(
        "\n{:<34} {:>4}  {:>17}  {:>17}",
        "document", "ops", "static acc/dec", "dynamic acc/dec"
    );
    for row in &table {
        println!("{row}");
    }
    if !clean {
        eprintln!(
            "\ninterop: FAILED (see above; {EXPECTED} records the expected figures and every exclusion)"
        );
    }
    Ok(clean)
}

/// Prism: `$PRISM`, else .ci/node's (`npm install --prefix .ci/node`), else one on the PATH.
fn prism_command(root: &Path) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PRISM") {
        return Ok(PathBuf::from(path));
    }
    let local = root.join(".ci/node/node_modules/.bin/prism");
    if local.is_file() {
        return Ok(local);
    }
    Command::new("prism")
        .arg("--version")
        .output()
        .map(|_| PathBuf::from("prism"))
        .map_err(|_| {
            "Prism is not installed: npm install --prefix .ci/node @stoplight/prism-cli@5.14.2"
                .to_owned()
        })
}

/// Generates the document's crates and its two programs under `scratch/{name}`.
fn write_document(root: &Path, scratch: &Path, doc: &Document) -> Result<Vec<String>, String> {
    let path = root.join(&doc.spec);
    let prefix = format!("interop-{}", doc.name);
    let opts = options(&doc.spec, &prefix);
    let (mut api, diags) =
        openapi_gen::load_bundled(openapi_gen::read(&path).map_err(|d| d.to_string())?)
            .map_err(|d| format!("{}:\n{d}", doc.spec))?;
    openapi_gen::formats::apply(&mut api, &opts);
    let generated = openapi_gen::generate_api(api.clone(), diags, &opts, &Part::ALL)
        .map_err(|d| format!("{}:\n{d}", doc.spec))?;
    let dir = scratch.join(&doc.name);
    let mut members = Vec::new();
    let mut server_files = BTreeMap::new();
    for (part, files) in &generated.crates {
        let crate_dir = dir.join(part.dir_name());
        openapi_gen::output::write_crate(&crate_dir, files)
            .map_err(|e| format!("writing {}: {e}", crate_dir.display()))?;
        members.push(format!("{}/{}", doc.name, part.dir_name()));
        if *part == Part::Server {
            for f in files {
                server_files.insert(f.path.clone(), f.contents.clone());
            }
        }
    }
    let get = |p: &str| server_files.get(p).cloned().unwrap_or_default();
    let stub = programs::stub(&api, &get("src/api.rs"), &get("src/responses.rs"))
        .map_err(|e| format!("{}: the stub server: {e}", doc.name))?;
    let program = dir.join("interop");
    std::fs::create_dir_all(program.join("src/bin")).map_err(|e| e.to_string())?;
    let write = |p: &str, text: &str| write_if_changed(&program.join(p), text);
    write("Cargo.toml", &programs::manifest(&prefix))?;
    // Named after the document: every document's programs share one target directory.
    write(
        &format!("src/bin/{}-driver.rs", doc.name),
        &programs::driver(&api),
    )?;
    write(&format!("src/bin/{}-stub.rs", doc.name), &stub)?;
    members.push(format!("{}/interop", doc.name));
    Ok(members)
}

/// Writes `text` unless the file holds it already: a new modification time makes cargo rebuild.
fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

fn wait_for(port: u16, child: &mut Running, what: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.0.try_wait() {
            return Err(format!("{what} exited before listening: {status}"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(format!(
        "{what} did not listen on 127.0.0.1:{port} within 60 s"
    ))
}

fn start_prism(
    prism: &Path,
    spec: &Path,
    dynamic: bool,
    log: &Path,
) -> Result<(Running, u16), String> {
    let port = free_port()?;
    let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let mut command = Command::new(prism);
    command
        .args([
            "mock",
            "--errors",
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .arg(spec);
    if dynamic {
        command.args(["-d", "--seed", "1"]);
    }
    let child = command
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("starting {}: {e}", prism.display()))?;
    let mut running = Running(child);
    wait_for(port, &mut running, "prism")?;
    Ok((running, port))
}

/// Whether Prism let the request through: no `sl-violations`, and no Prism error of its own
/// (request validation, no route, no method, missing credentials).
fn accepted(row: &Value) -> bool {
    let status = row["status"].as_u64().unwrap_or(0);
    row["sent"] == true
        && row["violations"].as_str().unwrap_or("").is_empty()
        && !(status >= 400
            && row["response_body"]
                .as_str()
                .unwrap_or("")
                .contains("stoplight.io/prism/errors#"))
        && status != 599
}

fn decoded(row: &Value) -> bool {
    matches!(row["outcome"].as_str(), Some("ok" | "api"))
}

fn check_document(
    root: &Path,
    scratch: &Path,
    bin_dir: &Path,
    prism: &Path,
    doc: &Document,
    expected: &Expected,
) -> Result<(bool, String), String> {
    let spec = root.join(&doc.spec);
    let logs = scratch.join(&doc.name);
    let mut clean = true;
    let mut rows: Vec<Value> = Vec::new();
    for mode in MODES {
        rows.extend(drive(bin_dir, prism, &spec, &logs, doc, mode)?);
    }
    let mut figures = BTreeMap::new();
    for mode in MODES {
        let of_mode: Vec<&Value> = rows.iter().filter(|r| r["mode"] == mode).collect();
        if of_mode.len() != doc.operations {
            println!(
                "{}: {mode}: {} operations called, {} expected",
                doc.name,
                of_mode.len(),
                doc.operations
            );
            clean = false;
        }
        let got = Figures {
            accepted: of_mode.iter().filter(|r| accepted(r)).count(),
            decoded: of_mode.iter().filter(|r| decoded(r)).count(),
        };
        let want = doc.prism.get(mode).copied().unwrap_or_default();
        if got.accepted < want.accepted || got.decoded < want.decoded {
            println!(
                "{}: {mode}: accepted {} (recorded {}), decoded {} (recorded {}): REGRESSION",
                doc.name, got.accepted, want.accepted, got.decoded, want.decoded
            );
            clean = false;
        } else if got != want {
            println!(
                "{}: {mode}: accepted {} (recorded {}), decoded {} (recorded {}): better than recorded, update {EXPECTED}",
                doc.name, got.accepted, want.accepted, got.decoded, want.decoded
            );
        }
        figures.insert(mode, got);
        for row in &of_mode {
            let op = row["operation"].as_str().unwrap_or_default();
            let miss = if !accepted(row) {
                "accepted"
            } else if !decoded(row) {
                "decoded"
            } else {
                continue;
            };
            let listed = expected.exclusions.iter().find(|e| {
                e.document == doc.name
                    && e.operation == op
                    && e.modes.iter().any(|m| m == mode)
                    && (e.not == miss || e.not == "accepted")
            });
            match listed {
                Some(e) => println!(
                    "{}: {mode}: {op}: not {miss}: excluded ({}{})",
                    doc.name,
                    e.cause,
                    e.issue
                        .as_deref()
                        .map(|i| format!(", {i}"))
                        .unwrap_or_default()
                ),
                None => {
                    clean = false;
                    println!(
                        "{}: {mode}: {op}: not {miss}, and not listed among the exclusions\n    request: {}\n    headers: {}\n    body: {}\n    answer: {} {}\n    violations: {}\n    client: {} {}",
                        doc.name,
                        row["request"],
                        row["request_headers"],
                        row["request_body"],
                        row["status"],
                        row["response_body"],
                        row["violations"],
                        row["outcome"],
                        row["detail"]
                    );
                }
            }
        }
    }
    // The proof of each exclusion blamed on Prism: our client's exact bytes, sent again raw.
    let mut mocks: BTreeMap<&str, (Running, u16)> = BTreeMap::new();
    for e in expected
        .exclusions
        .iter()
        .filter(|e| e.document == doc.name)
    {
        if e.why.trim().is_empty() {
            println!(
                "{}: {}: an exclusion without a reason",
                doc.name, e.operation
            );
            clean = false;
        }
        if e.cause != "prism" {
            continue;
        }
        let (Some(issue), Some(proof)) = (&e.issue, &e.proof) else {
            println!(
                "{}: {}: blamed on Prism without an issue and a proof",
                doc.name, e.operation
            );
            clean = false;
            continue;
        };
        for mode in MODES.iter().filter(|m| e.modes.iter().any(|n| n == *m)) {
            let Some(row) = rows
                .iter()
                .find(|r| r["mode"] == *mode && r["operation"] == e.operation.as_str())
            else {
                continue;
            };
            // A mock server a proof crashed is started again.
            if let Some((running, _)) = mocks.get_mut(mode)
                && !matches!(running.0.try_wait(), Ok(None))
            {
                mocks.remove(mode);
            }
            if !mocks.contains_key(mode) {
                let log = logs.join(format!("prism-{mode}-proofs.log"));
                mocks.insert(mode, start_prism(prism, &spec, *mode == "dynamic", &log)?);
            }
            if let Err(why) = proves(proof, row, mocks[mode].1) {
                println!(
                    "{}: {mode}: {}: the proof of {issue} fails: {why}",
                    doc.name, e.operation
                );
                clean = false;
            }
        }
    }
    drop(mocks);
    if let Some(st) = &doc.schemathesis {
        clean &= schemathesis(&spec, bin_dir, &logs, doc, st, expected)?;
    }
    let cell = |m: &str| format!("{}/{}", figures[m].accepted, figures[m].decoded);
    let row = format!(
        "{:<34} {:>4}  {:>17}  {:>17}",
        doc.name,
        doc.operations,
        cell("static"),
        cell("dynamic")
    );
    Ok((clean, row))
}

/// Every operation called once against Prism in `mode`; when a request kills Prism, it is
/// started again and the driver goes on after that operation.
fn drive(
    bin_dir: &Path,
    prism: &Path,
    spec: &Path,
    logs: &Path,
    doc: &Document,
    mode: &str,
) -> Result<Vec<Value>, String> {
    let mut rows: Vec<Value> = Vec::new();
    for run in 0.. {
        let log = logs.join(format!("prism-{mode}-{run}.log"));
        let (mut mock, port) = start_prism(prism, spec, mode == "dynamic", &log)?;
        let output = Command::new(bin_dir.join(format!("{}-driver", doc.name)))
            .arg(format!("{mode}=http://127.0.0.1:{port}"))
            .arg(rows.len().to_string())
            .current_dir(logs)
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("running the driver: {e}"))?;
        let before = rows.len();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let mut row: Value =
                serde_json::from_str(line).map_err(|e| format!("driver output {line}: {e}"))?;
            if row["status"] == 599 {
                // Give Prism a moment to go down, then tell a crash from a refused connection.
                std::thread::sleep(Duration::from_millis(300));
                row["prism_crashed"] = Value::Bool(!matches!(mock.0.try_wait(), Ok(None)));
            }
            rows.push(row);
        }
        let _ = std::fs::write(
            logs.join(format!("driver-{mode}-{run}.jsonl")),
            &output.stdout,
        );
        drop(mock);
        if rows.len() == before || rows.len() >= doc.operations || run > doc.operations {
            break;
        }
    }
    Ok(rows)
}

/// The proof's request is the one the client sent (request line and every header it names), and
/// Prism, sent those bytes raw, answers the recorded status.
fn proves(proof: &Proof, row: &Value, port: u16) -> Result<(), String> {
    let (head, body) = proof
        .request
        .split_once("\r\n\r\n")
        .ok_or("the proof's request has no blank line after its headers")?;
    if body != row["request_body"].as_str().unwrap_or_default() {
        return Err(format!(
            "the client sent the body {}, the proof has {body:?}",
            row["request_body"]
        ));
    }
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let sent = row["request"].as_str().unwrap_or_default();
    if request_line.strip_suffix(" HTTP/1.1") != Some(sent) {
        return Err(format!(
            "the client sent `{sent}`, the proof has `{request_line}`"
        ));
    }
    let headers: Vec<(String, String)> = row["request_headers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| {
            Some((
                h[0].as_str()?.to_ascii_lowercase(),
                h[1].as_str()?.to_owned(),
            ))
        })
        .collect();
    for line in lines {
        let (name, value) = line
            .split_once(": ")
            .ok_or_else(|| format!("bad header line {line}"))?;
        let name = name.to_ascii_lowercase();
        if name == "host" || name == "connection" || name == "content-length" {
            continue;
        }
        if !headers.iter().any(|(n, v)| *n == name && v == value) {
            return Err(format!("the client did not send the header `{line}`"));
        }
    }
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    let bytes = proof.request.replace("{port}", &port.to_string());
    stream
        .write_all(bytes.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status: u16 = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if status != proof.status {
        let head: String = answer.chars().take(400).collect();
        return Err(format!(
            "Prism answered {status}, the proof expects {}:\n{head}",
            proof.status
        ));
    }
    Ok(())
}

/// schemathesis against the stub server: failures per check must not exceed those recorded, and
/// each failing (operation, check) must be explained.
fn schemathesis(
    spec: &Path,
    bin_dir: &Path,
    logs: &Path,
    doc: &Document,
    st: &Schemathesis,
    expected: &Expected,
) -> Result<bool, String> {
    let port = free_port()?;
    let log = std::fs::File::create(logs.join("stub.log")).map_err(|e| e.to_string())?;
    let child = Command::new(bin_dir.join(format!("{}-stub", doc.name)))
        .arg(format!("127.0.0.1:{port}"))
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("starting the stub: {e}"))?;
    let mut stub = Running(child);
    wait_for(port, &mut stub, "the stub server")?;
    // Hypothesis keeps the examples that failed in these folders and tries them first next
    // time: a run must start from the seed alone, as on a fresh clone.
    for cache in [".hypothesis", ".schemathesis"] {
        let _ = std::fs::remove_dir_all(logs.join(cache));
    }
    let report = logs.join("schemathesis.json");
    let started = Instant::now();
    let child = Command::new(std::env::var("SCHEMATHESIS").unwrap_or_else(|_| "st".into()))
        .arg("run")
        .arg(spec)
        .args(["--url", &format!("http://127.0.0.1:{port}")])
        .args([
            "--checks",
            "all",
            "--max-examples",
            &st.max_examples.to_string(),
        ])
        .args([
            "--seed",
            "1",
            "--workers",
            "1",
            "--suppress-health-check",
            "all",
        ])
        .args([
            "--request-timeout",
            "10",
            "--report",
            "ndjson",
            "--report-ndjson-path",
        ])
        .arg(&report)
        .current_dir(logs)
        .stdout(std::fs::File::create(logs.join("schemathesis.log")).map_err(|e| e.to_string())?)
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("running schemathesis: {e}"))?;
    let mut run = Running(child);
    loop {
        if run.0.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(240) {
            println!("{}: schemathesis did not finish within 240 s", doc.name);
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    drop(run);
    drop(stub);
    let failures = schemathesis_failures(&report)?;
    let mut clean = true;
    let mut per_check: BTreeMap<String, usize> = BTreeMap::new();
    for (operation, check, detail) in &failures {
        *per_check.entry(check.clone()).or_default() += 1;
        let listed = expected
            .schemathesis_exclusions
            .iter()
            .find(|e| e.document == doc.name && &e.operation == operation && &e.check == check);
        match listed {
            Some(e) => println!(
                "{}: schemathesis: {operation}: {check}: excluded ({}: {})",
                doc.name, e.cause, e.why
            ),
            None => {
                clean = false;
                println!(
                    "{}: schemathesis: {operation}: {check}: not listed among the exclusions\n    {detail}",
                    doc.name
                );
            }
        }
    }
    for (check, count) in &per_check {
        let allowed = st.failures.get(check).copied().unwrap_or(0);
        if *count > allowed {
            println!(
                "{}: schemathesis: {check}: {count} failures, {allowed} recorded: REGRESSION",
                doc.name
            );
            clean = false;
        }
    }
    println!(
        "{}: schemathesis ({} s): failures per check {:?}",
        doc.name,
        started.elapsed().as_secs(),
        per_check
    );
    Ok(clean)
}

/// (operation, check, detail) of each failing check in schemathesis' NDJSON events: the request
/// (method, URI, headers, body) and the response (status, body) of the case that failed.
fn schemathesis_failures(report: &Path) -> Result<Vec<(String, String, String)>, String> {
    let text = std::fs::read_to_string(report).map_err(|e| format!("{}: {e}", report.display()))?;
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(recorder) = event.get("ScenarioFinished").map(|e| &e["recorder"]) else {
            continue;
        };
        let label = recorder["label"].as_str().unwrap_or("?");
        let Some(checks) = recorder["checks"].as_object() else {
            continue;
        };
        for (case, results) in checks {
            for result in results.as_array().into_iter().flatten() {
                if result["status"] != "failure" {
                    continue;
                }
                let name = result["name"].as_str().unwrap_or("?").to_owned();
                let failure = &result["failure_info"]["failure"];
                let interaction = &recorder["interactions"][case];
                let body = |v: &Value| {
                    v["$base64"]
                        .as_str()
                        .map(|b| String::from_utf8_lossy(&base64_decode(b)).into_owned())
                        .unwrap_or_default()
                };
                let request = &interaction["request"];
                let response = &interaction["response"];
                let detail = format!(
                    "{}\n    request: {} {} headers {} body {:?}\n    response: {} {:?}",
                    failure["message"]
                        .as_str()
                        .unwrap_or_default()
                        .replace('\n', " / "),
                    request["method"].as_str().unwrap_or_default(),
                    request["uri"].as_str().unwrap_or_default(),
                    request["headers"],
                    body(&request["body"]),
                    response["status_code"],
                    body(&response["content"]),
                );
                out.push((label.to_owned(), name, detail));
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    Ok(out)
}

/// Standard base64 (schemathesis' encoding of bodies), padding optional.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut buffer, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let Some(value) = ALPHABET.iter().position(|&a| a == c) else {
            continue;
        };
        buffer = (buffer << 6) | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    out
}
