//! What each stage of the generator costs, in process, on corpus documents of growing size:
//! load (text to JSON tree), lower, to_openapi, build (the IR), naming, patterns, and emitting
//! models, server and client. Each stage gets the previous stage's output, prepared outside the
//! timing loop.
//!
//! `cargo bench -p integration-tests --bench pipeline`; `PIPELINE_DOCS=stripe-3.0.json,...` picks the
//! documents (names in ../shared/corpus). Whole-process runs against other generators:
//! `generator/bench/compare.sh`.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use integration_tests::{corpus_dir, generator_options};
use openapi_gen::diagnostics::Diagnostics;
use openapi_gen::emit::{self, Patterns};
use openapi_gen::{build, load, lower, naming};
use std::hint::black_box;

const DEFAULT_DOCS: &str = "petstore-expanded-3.0.yaml,oxide-3.0.json,stripe-3.0.json";

fn documents() -> Vec<(String, String)> {
    let Some(dir) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return Vec::new();
    };
    let names = std::env::var("PIPELINE_DOCS").unwrap_or_else(|_| DEFAULT_DOCS.to_owned());
    names
        .split(',')
        .map(|name| {
            let path = dir.join(name.trim());
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (name.trim().to_owned(), text)
        })
        .collect()
}

fn stages(c: &mut Criterion) {
    for (name, text) in documents() {
        let mut group = c.benchmark_group(&name);
        group.sample_size(10);
        let opts = generator_options("bench", &name);

        group.bench_function("load", |b| {
            b.iter(|| load::parse_text(black_box(&text)).unwrap())
        });
        let tree = load::parse_text(&text).unwrap();
        group.bench_function("lower", |b| {
            b.iter_batched(
                || tree.clone(),
                |mut tree| lower::lower_document(&mut tree, &mut Diagnostics::default()),
                BatchSize::LargeInput,
            )
        });
        let mut lowered = tree;
        lower::lower_document(&mut lowered, &mut Diagnostics::default());
        group.bench_function("to_openapi", |b| {
            b.iter_batched(
                || lowered.clone(),
                |tree| load::to_openapi(tree).unwrap(),
                BatchSize::LargeInput,
            )
        });
        let openapi = load::to_openapi(lowered).unwrap();
        group.bench_function("build", |b| {
            b.iter(|| build::build(black_box(&openapi), &mut Diagnostics::default()))
        });
        let built = build::build(&openapi, &mut Diagnostics::default());
        group.bench_function("naming", |b| {
            b.iter_batched(
                || built.clone(),
                |mut api| naming::resolve(&mut api),
                BatchSize::LargeInput,
            )
        });
        let mut api = built;
        naming::resolve(&mut api);
        group.bench_function("patterns", |b| {
            b.iter(|| Patterns::collect(black_box(&api), &mut Diagnostics::default()))
        });
        let patterns = Patterns::collect(&api, &mut Diagnostics::default());
        group.bench_function("emit_models", |b| {
            b.iter(|| emit::models::emit(black_box(&api), &patterns, &opts).unwrap())
        });
        group.bench_function("emit_server", |b| {
            b.iter(|| emit::server::emit(black_box(&api), &patterns, &opts).unwrap())
        });
        group.bench_function("emit_client", |b| {
            b.iter(|| emit::client::emit(black_box(&api), &patterns, &opts).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
