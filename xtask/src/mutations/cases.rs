//! The cases of a run: which document case `i` of a seed mutates and how, what the generator made
//! of it, and the worker process that runs them (a stack overflow aborts a process, so the
//! command runs the cases in a child it can outlive).

use super::mutate::{self, Kind, Mutation};
use crate::compile::spec_files;
use crate::corpus::{document_operations, server_operations};
use crate::{options, repo_root};
use fastrand::Rng;
use openapi_gen::{Diagnostics, Generated, Part};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A document's slots in the schedule of cases: one per this many bytes it is smaller than, at
/// least one and at most [`MOST_SLOTS`]. Generating takes 0.1 s (petstore) to 12-24 s (openai,
/// stripe) a document in the dev build `cargo xtask` runs, mostly in syn, proc-macro2 and
/// prettyplease: opt-level on openapi-gen alone gave the same CPU time (and took 2 more minutes to
/// build), so the large documents get one case in about 170, which keeps 200 cases near a minute.
const SLOT_BYTES: u64 = 300_000;
const MOST_SLOTS: u64 = 50;

/// What the generator made of a mutated document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Every operation the document declares (the corpus's documents generate all of theirs).
    Full,
    /// Some operations dropped, with warnings.
    Partial,
    /// A refusal nothing could be salvaged from (its kind).
    Refused(String),
    /// A panic, another error, operations dropped silently, or a crash.
    Failed(String),
}

/// The errors a document may be refused with: (what the message contains, the kind's name).
const HARD_ERRORS: [(&str, &str); 4] = [
    ("invalid JSON", "unparsable"),
    ("invalid YAML", "unparsable"),
    ("missing `openapi` version", "no `openapi` version"),
    ("nothing is left to generate", "nothing left to generate"),
];

fn refusal(errors: &Diagnostics) -> Outcome {
    let messages: Vec<String> = errors.errors().map(ToString::to_string).collect();
    let kind = |m: &String| HARD_ERRORS.iter().find(|(text, _)| m.contains(text));
    if let Some(panic) = messages
        .iter()
        .find(|m| m.contains("internal generator error"))
    {
        return Outcome::Failed(panic.clone());
    }
    // "Nothing is left" names, before it, the flaws that left everything out.
    let nothing_left = messages.iter().any(|m| m.contains(HARD_ERRORS[3].0));
    if nothing_left {
        return Outcome::Refused(HARD_ERRORS[3].1.to_owned());
    }
    if let Some(other) = messages.iter().find(|m| kind(m).is_none()) {
        return Outcome::Failed(other.clone());
    }
    match messages.first().and_then(kind) {
        Some((_, name)) => Outcome::Refused((*name).to_owned()),
        None => Outcome::Failed("refused without an error".to_owned()),
    }
}

/// Classifies a result against the operations the mutated document declares.
pub fn classify(result: Result<Generated, Diagnostics>, declared: usize) -> Outcome {
    let generated = match result {
        Ok(generated) => generated,
        Err(errors) => return refusal(&errors),
    };
    let operations = server_operations(&generated);
    if operations >= declared {
        Outcome::Full
    } else if generated.diagnostics.warnings().next().is_some() {
        Outcome::Partial
    } else {
        Outcome::Failed(format!(
            "{} of {declared} operations dropped without a warning",
            declared - operations
        ))
    }
}

/// One case as the worker reports it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub index: u64,
    pub file: String,
    pub kind: Kind,
    pub change: String,
    /// `None` while the generator runs.
    pub outcome: Option<Outcome>,
    pub ms: u64,
}

impl Record {
    /// `case 7 of seed 1: petstore.yaml, component deleted: deleted /components/schemas/Pet`.
    pub fn describe(&self, seed: u64) -> String {
        format!(
            "case {} of seed {seed}: {}, {}: {}",
            self.index,
            self.file,
            self.kind.name(),
            self.change
        )
    }
}

pub struct Document {
    pub file: String,
    pub size: u64,
    value: Option<Value>,
}

/// One mutated document.
pub struct Case {
    pub index: u64,
    pub document: usize,
    pub mutation: Mutation,
    pub text: String,
    /// The operations the mutated document declares.
    pub declared: usize,
}

pub struct Corpus {
    pub dir: PathBuf,
    pub documents: Vec<Document>,
    /// Case `i` mutates document `schedule[i % len]`.
    schedule: Vec<usize>,
}

/// Where the corpus is: ../shared/corpus beside the repository.
pub fn corpus_dir() -> PathBuf {
    repo_root().join("..").join("shared").join("corpus")
}

impl Corpus {
    /// The documents of `dir`, scheduled for `seed`.
    pub fn open(dir: &Path, seed: u64) -> Result<Corpus, String> {
        let documents = spec_files(dir)?
            .into_iter()
            .map(|path| Document {
                file: path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string(),
                size: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
                value: None,
            })
            .collect();
        let mut corpus = Corpus {
            dir: dir.to_path_buf(),
            documents,
            schedule: Vec::new(),
        };
        corpus.schedule(seed);
        Ok(corpus)
    }

    /// Each document's slots (see [`SLOT_BYTES`]), shuffled by the seed: every run of as many
    /// cases as there are slots mutates every document.
    fn schedule(&mut self, seed: u64) {
        let slots = |size: u64| (SLOT_BYTES / size.max(1)).clamp(1, MOST_SLOTS) as usize;
        self.schedule = (0..self.documents.len())
            .flat_map(|d| std::iter::repeat_n(d, slots(self.documents[d].size)))
            .collect();
        Rng::with_seed(seed).shuffle(&mut self.schedule);
    }

    /// Case `index` of `seed`: its document from the schedule, its mutation from its own RNG.
    pub fn case(&mut self, seed: u64, index: u64) -> Result<Case, String> {
        let mut rng = Rng::with_seed(seed.wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let document = *self
            .schedule
            .get((index % self.schedule.len().max(1) as u64) as usize)
            .ok_or("the corpus has no documents")?;
        let doc = &mut self.documents[document];
        if doc.value.is_none() {
            let path = self.dir.join(&doc.file);
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let value =
                openapi_gen::load::parse_text(&text).map_err(|e| format!("{}: {e}", doc.file))?;
            doc.value = Some(value);
        }
        let mut mutated = doc.value.clone().expect("parsed above");
        let mutation = mutate::mutate(&mut mutated, &mut rng)
            .ok_or_else(|| format!("{}: nothing in it to break", doc.file))?;
        let text = serde_json::to_string(&mutated).map_err(|e| e.to_string())?;
        Ok(Case {
            index,
            document,
            mutation,
            text,
            declared: document_operations(&mutated),
        })
    }

    /// Generates a case: models, server and client, in crates named after the case.
    pub fn generate(&self, case: &Case) -> Result<Generated, Diagnostics> {
        let name = format!("mutation-{}", case.index);
        let source = format!("mutations/{}", self.documents[case.document].file);
        openapi_gen::generate(&case.text, &options(&source, &name), &Part::ALL)
    }

    pub fn record(&self, case: &Case) -> Record {
        Record {
            index: case.index,
            file: self.documents[case.document].file.clone(),
            kind: case.mutation.kind,
            change: case.mutation.change.clone(),
            outcome: None,
            ms: 0,
        }
    }

    /// Writes a case's mutated document (pretty JSON) under target/mutations/.
    pub fn write(&self, seed: u64, case: &Case) -> Result<PathBuf, String> {
        let dir = repo_root().join("target").join("mutations");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let file = &self.documents[case.document].file;
        let stem = file
            .rsplit_once('.')
            .map_or(file.as_str(), |(stem, _)| stem);
        let path = dir.join(format!("seed-{seed}-case-{}-{stem}.json", case.index));
        let value: Value = serde_json::from_str(&case.text).map_err(|e| e.to_string())?;
        let pretty = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        std::fs::write(&path, pretty).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(path)
    }
}

/// `xtask mutations-worker SEED FIRST END`: runs cases `FIRST..END`, printing `start {record}`
/// before generating each and `done {record}` after, for the command to read.
pub fn worker(args: &[String]) -> Result<bool, String> {
    let number = |i: usize| -> Result<u64, String> {
        let text = args
            .get(i)
            .ok_or("usage: mutations-worker SEED FIRST END")?;
        text.parse().map_err(|_| format!("not a number: {text}"))
    };
    let (seed, first, end) = (number(0)?, number(1)?, number(2)?);
    let mut corpus = Corpus::open(&corpus_dir(), seed)?;
    let mut out = std::io::stdout().lock();
    let mut say = |word: &str, record: &Record| -> Result<(), String> {
        let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
        writeln!(out, "{word} {json}")
            .and_then(|()| out.flush())
            .map_err(|e| e.to_string())
    };
    for index in first..end {
        let case = corpus.case(seed, index)?;
        let mut record = corpus.record(&case);
        say("start", &record)?;
        let started = Instant::now();
        record.outcome = Some(classify(corpus.generate(&case), case.declared));
        record.ms = started.elapsed().as_millis() as u64;
        say("done", &record)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use openapi_gen::Diagnostic;
    use openapi_gen::emit::File;

    fn errors(messages: &[&str]) -> Diagnostics {
        Diagnostics(
            messages
                .iter()
                .map(|m| Diagnostic::error("/x", *m))
                .collect(),
        )
    }

    /// Generated crates whose server handles `operations`, with `warnings`.
    fn generated(operations: usize, warnings: usize) -> Generated {
        let router = File {
            path: "src/router.rs".to_owned(),
            contents: "async fn handle_op() {}\n".repeat(operations),
        };
        let warning = Diagnostic::warning("/paths/~1a/get", "left out: its schema is missing");
        Generated {
            crates: vec![(Part::Server, vec![router])],
            diagnostics: Diagnostics(vec![warning; warnings]),
            files: Vec::new(),
            operations: (operations, operations + warnings),
        }
    }

    #[test]
    fn refusals_are_told_apart_from_failures() {
        let refused = |m: &[&str]| refusal(&errors(m));
        let kind = |k: &str| Outcome::Refused(k.to_owned());
        assert_eq!(
            refused(&["nothing is left to generate: every schema is broken"]),
            kind("nothing left to generate")
        );
        assert_eq!(
            refused(&["missing `openapi` version field"]),
            kind("no `openapi` version")
        );
        assert_eq!(refused(&["invalid YAML at line 1"]), kind("unparsable"));
        assert!(matches!(
            refused(&["`$ref` to a missing schema"]),
            Outcome::Failed(_)
        ));
        assert!(matches!(
            refused(&["nothing is left to generate", "internal generator error (a bug): x"]),
            Outcome::Failed(m) if m.contains("internal")
        ));
        assert_eq!(
            refused(&["unresolved $ref", "nothing is left to generate"]),
            kind("nothing left to generate")
        );
        assert!(matches!(
            refused(&["missing `openapi` version", "unresolved $ref"]),
            Outcome::Failed(m) if m.contains("unresolved")
        ));
        assert!(matches!(refused(&[]), Outcome::Failed(_)));
    }

    #[test]
    fn dropped_operations_need_a_warning() {
        assert_eq!(classify(Ok(generated(4, 0)), 4), Outcome::Full);
        assert_eq!(classify(Ok(generated(3, 1)), 4), Outcome::Partial);
        assert!(matches!(
            classify(Ok(generated(3, 0)), 4),
            Outcome::Failed(m) if m.starts_with("1 of 4 operations dropped")
        ));
        let panic = errors(&["internal generator error (a bug, please report it): boom"]);
        assert!(matches!(classify(Err(panic), 4), Outcome::Failed(_)));
    }

    /// A corpus of documents of these sizes (never read: only their schedule is).
    fn corpus(sizes: &[u64], seed: u64) -> Corpus {
        let documents = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| Document {
                file: format!("d{i}.json"),
                size,
                value: None,
            })
            .collect();
        let mut corpus = Corpus {
            dir: PathBuf::new(),
            documents,
            schedule: Vec::new(),
        };
        corpus.schedule(seed);
        corpus
    }

    #[test]
    fn the_schedule_gives_small_documents_more_cases_and_every_document_one() {
        let sizes = [5_000, 60_000, 3_000_000, 1_000];
        let schedule = corpus(&sizes, 1).schedule;
        let count = |d| schedule.iter().filter(|&&s| s == d).count();
        assert_eq!([count(0), count(1), count(2), count(3)], [50, 5, 1, 50]);
        assert_eq!(corpus(&sizes, 1).schedule, schedule);
        assert_ne!(corpus(&sizes, 2).schedule, schedule);
    }
}
