//! `cargo xtask mutations`: the corpus documents broken one part at a time ([`mutate`]), each
//! generated in-process (models, server and client). A broken part may drop what depends on it,
//! never the whole document: the generator must generate the rest, or refuse with one of the
//! errors nothing can be salvaged from, and never panic. A sample of what it generated is then
//! compiled with clippy, warnings denied.
//!
//! Case `i` of seed `s` is derived from `(s, i)` alone, so `--seed s --case i` reruns it, writing
//! its document to a file first.

mod cases;
mod mutate;

pub use cases::worker;

use crate::compile::check_crates;
use cases::{Corpus, Outcome, Record, corpus_dir};
use fastrand::Rng;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Documents at most this large make the compiled sample (clippy of a large document's crates
/// takes minutes).
const SMALL: u64 = 100_000;
/// A case the generator has not finished in this long hangs it: the slowest document (openai)
/// takes about 25 s in a dev build on a loaded machine.
const CASE_LIMIT: Duration = Duration::from_secs(180);

struct Args {
    count: u64,
    seed: u64,
    compile: usize,
    case: Option<u64>,
}

impl Args {
    fn parse(args: &[String]) -> Result<Args, String> {
        let mut parsed = Args {
            count: 200,
            seed: 1,
            compile: 10,
            case: None,
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let mut value = || -> Result<u64, String> {
                let text = args.next().ok_or(format!("{flag} needs a number"))?;
                text.parse()
                    .map_err(|_| format!("{flag}: not a number: {text}"))
            };
            match flag.as_str() {
                "--count" => parsed.count = value()?,
                "--seed" => parsed.seed = value()?,
                "--compile" => parsed.compile = value()? as usize,
                "--case" => parsed.case = Some(value()?),
                _ => return Err(format!("mutations: unknown argument {flag}")),
            }
        }
        Ok(parsed)
    }
}

pub fn run(args: &[String]) -> Result<bool, String> {
    let args = Args::parse(args)?;
    let dir = corpus_dir();
    if !dir.is_dir() {
        println!("mutations: {} is absent; skipped", dir.display());
        return Ok(true);
    }
    let seed = args.seed;
    let mut corpus = Corpus::open(&dir, seed)?;
    if corpus.documents.is_empty() {
        println!("mutations: no documents in {}; skipped", dir.display());
        return Ok(true);
    }
    let started = Instant::now();
    let records = match args.case {
        Some(index) => vec![one_case(&mut corpus, seed, index)?],
        None => run_cases(seed, args.count)?,
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut failures: Vec<String> = records
        .iter()
        .filter(|r| matches!(r.outcome, Some(Outcome::Failed(_))))
        .map(|r| r.describe(seed))
        .collect();
    report(seed, &records, seconds);
    let generated: Vec<(u64, usize)> = records
        .iter()
        .filter(|r| matches!(r.outcome, Some(Outcome::Full | Outcome::Partial)))
        .filter_map(|r| {
            let document = corpus.documents.iter().position(|d| d.file == r.file)?;
            Some((r.index, document))
        })
        .collect();
    let sizes: Vec<u64> = corpus.documents.iter().map(|d| d.size).collect();
    let chosen = sample(seed, &generated, &sizes, args.compile);
    failures.extend(compile(&mut corpus, seed, &chosen)?);
    if !failures.is_empty() {
        println!(
            "\n{} failed; rerun one with `cargo xtask mutations --seed {seed} --case <index>` \
             (it writes the mutated document under target/mutations/ first):",
            failures.len()
        );
        for failure in &failures {
            println!("  {failure}");
        }
    }
    Ok(failures.is_empty())
}

/// Runs one case in this process: its document written first, then every diagnostic printed.
fn one_case(corpus: &mut Corpus, seed: u64, index: u64) -> Result<Record, String> {
    let case = corpus.case(seed, index)?;
    let mut record = corpus.record(&case);
    let path = corpus.write(seed, &case)?;
    println!(
        "{}\nits document: {}",
        record.describe(seed),
        path.display()
    );
    let started = Instant::now();
    let result = corpus.generate(&case);
    record.ms = started.elapsed().as_millis() as u64;
    match &result {
        Ok(generated) => print!("{}", generated.diagnostics),
        Err(errors) => print!("{errors}"),
    }
    record.outcome = Some(cases::classify(result, case.declared));
    Ok(record)
}

/// Runs cases `0..count`, split in as many contiguous ranges as there are cores, each range in
/// worker processes of its own (the generator is single-threaded); the records in case order.
fn run_cases(seed: u64, count: u64) -> Result<Vec<Record>, String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let per = count.div_ceil(threads.max(1));
    let mut records = std::thread::scope(|scope| {
        let ranges: Vec<_> = (0..threads)
            .map(|i| (i * per, ((i + 1) * per).min(count)))
            .filter(|(first, end)| first < end)
            .map(|(first, end)| scope.spawn(move || run_range(seed, first, end)))
            .collect();
        let mut all = Vec::new();
        for range in ranges {
            all.extend(range.join().map_err(|_| "a mutations thread panicked")??);
        }
        Ok::<_, String>(all)
    })?;
    records.sort_by_key(|r| r.index);
    Ok(records)
}

/// Runs cases `first..end` in worker processes, printing failures as they come. A worker the
/// generator crashes (a stack overflow aborts) or hangs (killed after [`CASE_LIMIT`]) fails its
/// case, and the next worker goes on after it.
fn run_range(seed: u64, first: u64, end: u64) -> Result<Vec<Record>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut records = Vec::new();
    let mut next = first;
    while next < end {
        let mut child = Command::new(&exe)
            .args(["mutations-worker", &seed.to_string()])
            .args([next.to_string(), end.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting the mutations worker: {e}"))?;
        // Read on a thread of its own, so that a worker that says nothing can be timed out.
        let stdout = child.stdout.take().expect("piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut running: Option<Record> = None;
        let mut hung = false;
        loop {
            let line = match lines.recv_timeout(CASE_LIMIT) {
                Ok(line) => line.map_err(|e| e.to_string())?,
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    hung = true;
                    let _ = child.kill();
                    break;
                }
            };
            let parse =
                |json: &str| serde_json::from_str::<Record>(json).map_err(|e| e.to_string());
            if let Some(json) = line.strip_prefix("start ") {
                running = Some(parse(json)?);
            } else if let Some(json) = line.strip_prefix("done ") {
                let record = parse(json)?;
                if let Some(Outcome::Failed(message)) = &record.outcome {
                    println!("FAILED {}\n    {message}", record.describe(seed));
                }
                next = record.index + 1;
                running = None;
                records.push(record);
            } else {
                println!("{line}");
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        match running {
            Some(mut stopped) => {
                let message = if hung {
                    format!("the generator ran over {} s; killed", CASE_LIMIT.as_secs())
                } else {
                    format!("the generator crashed the process ({status})")
                };
                println!("FAILED {}\n    {message}", stopped.describe(seed));
                stopped.outcome = Some(Outcome::Failed(message));
                next = stopped.index + 1;
                records.push(stopped);
            }
            None if hung => {
                let limit = CASE_LIMIT.as_secs();
                return Err(format!(
                    "the mutations worker said nothing for {limit} s; killed"
                ));
            }
            None if !status.success() || next < end => {
                return Err(format!("the mutations worker stopped ({status})"));
            }
            None => {}
        }
    }
    Ok(records)
}

/// Outcomes per kind of mutation and per document, then the totals.
fn report(seed: u64, records: &[Record], seconds: f64) {
    let column = |outcome: &Option<Outcome>| match outcome {
        Some(Outcome::Full) => 0,
        Some(Outcome::Partial) => 1,
        Some(Outcome::Refused(_)) => 2,
        _ => 3,
    };
    let mut by_kind: BTreeMap<&str, [u64; 4]> = BTreeMap::new();
    let mut by_file: BTreeMap<&str, ([u64; 4], u64)> = BTreeMap::new();
    let mut refused: BTreeMap<&str, u64> = BTreeMap::new();
    for record in records {
        by_kind.entry(record.kind.name()).or_default()[column(&record.outcome)] += 1;
        let row = by_file.entry(&record.file).or_default();
        row.0[column(&record.outcome)] += 1;
        row.1 += record.ms;
        if let Some(Outcome::Refused(kind)) = &record.outcome {
            *refused.entry(kind).or_default() += 1;
        }
    }
    let header = ["full", "partial", "refused", "failed"];
    println!(
        "\n{:<42} {:>7} {:>7} {:>7} {:>7}",
        "", header[0], header[1], header[2], header[3]
    );
    let line = |name: &str, row: &[u64; 4], extra: String| {
        println!(
            "{name:<42} {:>7} {:>7} {:>7} {:>7}{extra}",
            row[0], row[1], row[2], row[3]
        );
    };
    for (kind, row) in &by_kind {
        line(kind, row, String::new());
    }
    println!();
    for (file, (row, ms)) in &by_file {
        let cases = row.iter().sum::<u64>().max(1);
        line(file, row, format!("   {:>6} ms a case", ms / cases));
    }
    let total = by_kind.values().fold([0; 4], |mut sum, row| {
        (0..4).for_each(|i| sum[i] += row[i]);
        sum
    });
    let refused: Vec<String> = refused.iter().map(|(k, n)| format!("{n} {k}")).collect();
    println!(
        "\nmutations (seed {seed}): {} cases in {seconds:.1} s: {} generated fully, {} partially \
         (operations dropped), {} refused ({}), {} failed",
        records.len(),
        total[0],
        total[1],
        total[2],
        if refused.is_empty() {
            "none".to_owned()
        } else {
            refused.join(", ")
        },
        total[3],
    );
}

/// Up to `count` generated cases `(index, document)` to compile, chosen by the seed: small
/// documents only (when any was generated), one case of each in turn so the sample spans several.
fn sample(seed: u64, generated: &[(u64, usize)], sizes: &[u64], count: usize) -> Vec<u64> {
    let small = generated.iter().any(|&(_, d)| sizes[d] <= SMALL);
    let mut per_document: BTreeMap<(u64, usize), Vec<u64>> = BTreeMap::new();
    for &(index, document) in generated {
        if !small || sizes[document] <= SMALL {
            let key = (sizes[document], document);
            per_document.entry(key).or_default().push(index);
        }
    }
    let mut rng = Rng::with_seed(seed);
    for cases in per_document.values_mut() {
        rng.shuffle(cases);
    }
    let mut chosen = Vec::new();
    for round in 0.. {
        let before = chosen.len();
        chosen.extend(per_document.values().filter_map(|cases| cases.get(round)));
        if chosen.len() == before || chosen.len() >= count {
            break;
        }
    }
    chosen.truncate(count);
    chosen
}

/// Generates the sampled cases again and runs clippy on their crates; returns the failures.
fn compile(corpus: &mut Corpus, seed: u64, sample: &[u64]) -> Result<Vec<String>, String> {
    if sample.is_empty() {
        return Ok(Vec::new());
    }
    let started = Instant::now();
    let mut crates = Vec::new();
    let (mut described, mut labels) = (BTreeMap::new(), Vec::new());
    for &index in sample {
        let case = corpus.case(seed, index)?;
        let generated = corpus
            .generate(&case)
            .map_err(|e| format!("case {index}: {e}"))?;
        for (part, files) in generated.crates {
            crates.push((format!("mutation-{index}-{}", part.dir_name()), files));
        }
        described.insert(index.to_string(), corpus.record(&case).describe(seed));
        labels.push(format!("{index} {}", corpus.documents[case.document].file));
    }
    let failed = check_crates("mutations", &crates, true)?;
    println!(
        "compiled the crates of {} cases ({}): {} of {} clippy-clean (-D warnings) in {:.1} s",
        sample.len(),
        labels.join(", "),
        crates.len() - failed.len(),
        crates.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(failed
        .iter()
        .map(|name| {
            let index = name.split('-').nth(1).unwrap_or_default();
            let case = described.get(index).map_or(name.as_str(), String::as_str);
            format!("{case}\n    {name} is not clippy-clean")
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_sample_prefers_small_documents_spans_several_and_follows_the_seed() {
        let sizes = [5_000, 9_000, 3_000_000];
        let generated: Vec<(u64, usize)> = (0..30).map(|i| (i, (i % 3) as usize)).collect();
        let chosen = sample(7, &generated, &sizes, 4);
        assert_eq!(chosen.len(), 4);
        let documents: HashSet<usize> = chosen.iter().map(|i| (i % 3) as usize).collect();
        assert_eq!(documents, HashSet::from([0, 1]));
        assert_eq!(chosen, sample(7, &generated, &sizes, 4));
        assert_ne!(chosen, sample(8, &generated, &sizes, 4));
        assert_eq!(sample(7, &[(2, 2), (5, 2)], &sizes, 4).len(), 2);
    }

    #[test]
    fn arguments_have_defaults_and_refuse_what_they_do_not_know() {
        let parse =
            |args: &[&str]| Args::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
        let defaults = parse(&[]).unwrap();
        assert_eq!(
            (
                defaults.count,
                defaults.seed,
                defaults.compile,
                defaults.case
            ),
            (200, 1, 10, None)
        );
        let given = parse(&[
            "--count",
            "5",
            "--seed",
            "9",
            "--compile",
            "0",
            "--case",
            "3",
        ])
        .unwrap();
        assert_eq!(
            (given.count, given.seed, given.compile, given.case),
            (5, 9, 0, Some(3))
        );
        assert!(parse(&["--count"]).is_err());
        assert!(parse(&["--count", "x"]).is_err());
        assert!(parse(&["--fast"]).is_err());
    }
}
