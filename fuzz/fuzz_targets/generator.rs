//! The generator's `load -> lower -> IR -> emit` (its library's `generate`, models, server and
//! client) over arbitrary documents.
//!
//! The input's first byte chooses how the rest is read:
//! - even: the rest is the document's text (YAML or JSON), as arbitrary bytes;
//! - odd: two bytes give a length `n`, the next `n` bytes are a list of structured mutations
//!   (decoded with `arbitrary`), the remaining bytes a seed document (a fixture). The document is
//!   parsed, mutated (keys deleted, types swapped, `$ref`s pointing anywhere, reference cycles,
//!   huge numbers, deep nesting, subtrees copied elsewhere), written back as JSON and generated.
//!
//! Invariant: generated crates, or diagnostics each with a JSON pointer; never a panic (the
//! library turns one into an "internal generator error", which fails here), never unbounded memory
//! or time (run with `-rss_limit_mb=2048 -timeout=60`). Compiling what is generated is left to
//! `cargo xtask mutations`, which compiles a sample.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use openapi_gen::Part;
use openapi_gen::emit::Options;
use serde_json::{Value, json};

#[derive(Arbitrary, Debug)]
enum Mutation {
    /// Removes the node (a key of its object, an item of its array).
    Delete(u32),
    /// Replaces the node with a value of another type.
    Swap(u32, Kind),
    /// Replaces the node with a `$ref` to another node of the document, or to any text.
    RefTo(u32, u32),
    RefText(u32, String),
    /// Makes the node a `$ref` to one of its ancestors (a cycle through it).
    Cycle(u32, u8),
    /// Replaces the node with a number at the edge of what JSON and Rust can hold.
    Huge(u32, u8),
    /// Wraps the node in `depth` levels of one schema keyword.
    Nest(u32, Wrapper, u16),
    /// Copies the node over another.
    Copy(u32, u32),
    /// Sets a key of the node (an object) to a value of some kind.
    Insert(u32, String, Kind),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Kind {
    Null,
    Bool,
    Integer,
    Float,
    String,
    Array,
    Object,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Wrapper {
    Items,
    AllOf,
    OneOf,
    Properties,
    AdditionalProperties,
    Not,
    Array,
}

impl Kind {
    fn value(self) -> Value {
        match self {
            Kind::Null => Value::Null,
            Kind::Bool => json!(true),
            Kind::Integer => json!(-1),
            Kind::Float => json!(0.5),
            Kind::String => json!("x"),
            Kind::Array => json!([]),
            Kind::Object => json!({}),
        }
    }
}

const HUGE: [&str; 8] = [
    "18446744073709551615",
    "-9223372036854775808",
    "9223372036854775808",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "5e-324",
    "4294967296",
    "1e20",
];

/// The JSON pointers of every node, depth first (at most a bounded number).
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    if out.len() >= 20_000 {
        return;
    }
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(v, p, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(v, p, out);
            }
        }
        _ => {}
    }
}

fn pick(list: &[String], n: u32) -> Option<&str> {
    (!list.is_empty()).then(|| list[n as usize % list.len()].as_str())
}

/// The parent pointer and last token of `pointer`.
fn split(pointer: &str) -> (&str, String) {
    let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    (parent, last.replace("~1", "/").replace("~0", "~"))
}

fn mutate(doc: &mut Value, mutation: Mutation) {
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    let set = |doc: &mut Value, at: &str, new: Value| {
        if let Some(node) = doc.pointer_mut(at) {
            *node = new;
        }
    };
    match mutation {
        Mutation::Delete(n) => {
            let Some(at) = pick(&all, n) else { return };
            let (parent, last) = split(at);
            match doc.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.shift_remove(&last);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = last.parse::<usize>()
                        && i < items.len()
                    {
                        items.remove(i);
                    }
                }
                _ => {}
            }
        }
        Mutation::Swap(n, kind) => {
            if let Some(at) = pick(&all, n) {
                set(doc, &at.to_owned(), kind.value());
            }
        }
        Mutation::RefTo(n, target) => {
            if let (Some(at), Some(target)) = (pick(&all, n), pick(&all, target)) {
                set(doc, &at.to_owned(), json!({"$ref": format!("#{target}")}));
            }
        }
        Mutation::RefText(n, text) => {
            if let Some(at) = pick(&all, n) {
                set(doc, &at.to_owned(), json!({"$ref": text}));
            }
        }
        Mutation::Cycle(n, up) => {
            if let Some(at) = pick(&all, n) {
                let tokens = at.matches('/').count();
                let keep = tokens.saturating_sub(1 + usize::from(up) % tokens.max(1));
                let ancestor: String = at.split('/').take(keep + 1).collect::<Vec<_>>().join("/");
                set(doc, &at.to_owned(), json!({"$ref": format!("#{ancestor}")}));
            }
        }
        Mutation::Huge(n, which) => {
            if let Some(at) = pick(&all, n) {
                let number: Value = serde_json::from_str(HUGE[usize::from(which) % HUGE.len()])
                    .expect("a JSON number");
                set(doc, &at.to_owned(), number);
            }
        }
        Mutation::Nest(n, wrapper, depth) => {
            let Some(at) = pick(&all, n).map(str::to_owned) else {
                return;
            };
            let Some(node) = doc.pointer_mut(&at) else {
                return;
            };
            let mut value = node.take();
            for _ in 0..usize::from(depth) % 300 {
                value = match wrapper {
                    Wrapper::Items => json!({"type": "array", "items": value}),
                    Wrapper::AllOf => json!({"allOf": [value]}),
                    Wrapper::OneOf => json!({"oneOf": [value, {"type": "string"}]}),
                    Wrapper::Properties => json!({"type": "object", "properties": {"p": value}}),
                    Wrapper::AdditionalProperties => {
                        json!({"type": "object", "additionalProperties": value})
                    }
                    Wrapper::Not => json!({"not": value}),
                    Wrapper::Array => json!([value]),
                };
            }
            *node = value;
        }
        Mutation::Copy(from, to) => {
            if let (Some(from), Some(to)) = (pick(&all, from), pick(&all, to)) {
                // Not into its own subtree, which would grow without bound.
                if to.starts_with(from) {
                    return;
                }
                if let Some(value) = doc.pointer(from).cloned() {
                    set(doc, &to.to_owned(), value);
                }
            }
        }
        Mutation::Insert(n, key, kind) => {
            let target = pick(&all, n).unwrap_or("").to_owned();
            if let Some(Value::Object(map)) = doc.pointer_mut(&target) {
                map.insert(key, kind.value());
            } else if target.is_empty()
                && let Value::Object(map) = doc
            {
                map.insert(key, kind.value());
            }
        }
    }
}

fn document(data: &[u8]) -> Option<String> {
    let (&mode, rest) = data.split_first()?;
    if mode % 2 == 0 {
        return std::str::from_utf8(rest).ok().map(str::to_owned);
    }
    let length = usize::from(u16::from_le_bytes([*rest.first()?, *rest.get(1)?]));
    let rest = &rest[2..];
    let (mutations, seed) = rest.split_at(length.min(rest.len()));
    let seed = std::str::from_utf8(seed).ok()?;
    let mut doc = openapi_gen::load::parse_text(seed).ok()?;
    let mut u = Unstructured::new(mutations);
    let mutations: Vec<Mutation> = u.arbitrary().ok()?;
    for mutation in mutations.into_iter().take(16) {
        mutate(&mut doc, mutation);
    }
    serde_json::to_string(&doc).ok()
}

fuzz_target!(
    init: {
        // One core: libFuzzer runs one input at a time, and the machine is shared.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    },
    |data: &[u8]| {
        let Some(text) = document(data) else {
            return;
        };
        let options = Options::new("fuzz", "fuzz.yaml", "openapi-gen generate");
        let diagnostics = match openapi_gen::generate(&text, &options, &Part::ALL) {
            Ok(generated) => generated.diagnostics,
            Err(errors) => {
                assert!(errors.has_errors(), "refused without an error: {errors}");
                errors
            }
        };
        for d in &diagnostics.0 {
            assert!(
                !d.message.contains("internal generator error"),
                "{}: {}",
                d.pointer,
                d.message
            );
            assert!(
                d.pointer.is_empty() || d.pointer.starts_with('/'),
                "not a JSON pointer: {:?} ({})",
                d.pointer,
                d.message
            );
        }
    }
);
