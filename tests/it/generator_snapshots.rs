//! Snapshots of what the generator emits for the fixtures in tests/fixtures (one construct each),
//! the IR of the service's spec, and the rule that 3.0 and 3.1 spellings of a schema give identical
//! code. `cargo xtask fixtures` compiles every fixture's output as well.

use integration_tests::repo_root;
use openapi_gen::Part;
use openapi_gen::emit::Options;

fn options(source: &str) -> Options {
    Options::new("fixture", source, "cargo xtask fixtures")
}

fn fixture_text(name: &str) -> String {
    let path = repo_root().join("tests/fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The models crate of a fixture, as one text: every generated file except the copied runtime.
fn models_of(name: &str, source: &str) -> String {
    let generated = openapi_gen::generate(&fixture_text(name), &options(source), &[Part::Models])
        .unwrap_or_else(|d| panic!("{name}:\n{d}"));
    let mut out = String::new();
    for diag in &generated.diagnostics.0 {
        out.push_str(&format!("// diagnostic: {diag}\n"));
    }
    for (_, files) in &generated.crates {
        for file in files {
            if [
                "src/wire.rs",
                "src/validation.rs",
                "src/bytes.rs",
                "src/style.rs",
                "src/file.rs",
                "src/tagged.rs",
            ]
            .contains(&file.path.as_str())
            {
                continue;
            }
            out.push_str(&format!(
                "// ===== {} =====\n{}\n",
                file.path, file.contents
            ));
        }
    }
    out
}

macro_rules! fixture_snapshot {
    ($test:ident, $file:literal) => {
        #[test]
        fn $test() {
            insta::assert_snapshot!(
                stringify!($test),
                models_of($file, concat!("tests/fixtures/", $file))
            );
        }
    };
}

fixture_snapshot!(nullable, "nullable-3.1.yaml");
fixture_snapshot!(const_value, "const-3.1.yaml");
fixture_snapshot!(exclusive_bounds, "exclusive-bounds-3.1.yaml");
fixture_snapshot!(examples, "examples-3.1.yaml");
fixture_snapshot!(ref_siblings, "ref-siblings-3.1.yaml");
fixture_snapshot!(numeric_strings, "numeric-strings.yaml");
fixture_snapshot!(enums, "enums.yaml");
fixture_snapshot!(naming, "naming.yaml");
fixture_snapshot!(recursion, "recursion.yaml");
fixture_snapshot!(composition, "composition.yaml");
fixture_snapshot!(maps, "maps.yaml");
fixture_snapshot!(type_unions, "type-unions.yaml");
fixture_snapshot!(defaults, "defaults.yaml");
fixture_snapshot!(formats, "formats.yaml");
fixture_snapshot!(errors_formats, "errors-formats.yaml");
fixture_snapshot!(discriminator, "discriminator-3.1.yaml");
fixture_snapshot!(lossy, "lossy-3.0.yaml");
fixture_snapshot!(read_write_only, "read-write-only.yaml");
fixture_snapshot!(package_info, "package-info.yaml");
fixture_snapshot!(openapi_3_2, "openapi-3.2.yaml");
fixture_snapshot!(embedded_defs, "embedded-defs-3.1.yaml");

/// By default `format: uri` is a `String` that `Validate` checks (a client keeps whatever a server
/// answers); `uri_as_url` (the CLI's `--uri-as-url`) opts into `url::Url`.
#[test]
fn uri_is_a_checked_string_unless_url_is_asked_for() {
    let mut opts = options("tests/fixtures/formats.yaml");
    let as_url = {
        let mut opts = opts.clone();
        opts.uri_as_url = true;
        openapi_gen::generate(&fixture_text("formats.yaml"), &opts, &[Part::Models])
            .unwrap_or_else(|d| panic!("{d}"))
    };
    let types = as_url.crates[0]
        .1
        .iter()
        .find(|f| f.path == "src/types.rs")
        .unwrap();
    assert!(types.contents.contains("::url::Url"), "{}", types.contents);
    opts.uri_as_url = false;
    let generated = openapi_gen::generate(&fixture_text("formats.yaml"), &opts, &[Part::Models])
        .unwrap_or_else(|d| panic!("{d}"));
    let files = &generated.crates[0].1;
    let text = |path: &str| {
        files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.contents.clone())
            .unwrap_or_default()
    };
    assert!(text("src/types.rs").contains("pub website: Option<String>,"));
    assert!(text("src/constraints.rs").contains("validation::uri(v0, path, errors);"));
    assert!(!text("Cargo.toml").contains("url ="));
}

/// `format: byte` pulls in the base64 runtime and its dependency only where it is used.
#[test]
fn byte_format_runtime_only_where_used() {
    for (name, uses) in [("errors-formats.yaml", true), ("formats.yaml", false)] {
        let generated = openapi_gen::generate(&fixture_text(name), &options(name), &[Part::Models])
            .unwrap_or_else(|d| panic!("{d}"));
        let files = &generated.crates[0].1;
        let has = |path: &str| files.iter().any(|f| f.path == path);
        let manifest = &files
            .iter()
            .find(|f| f.path == "Cargo.toml")
            .expect("manifest")
            .contents;
        assert_eq!(has("src/bytes.rs"), uses, "{name}");
        assert_eq!(manifest.contains("base64 = "), uses, "{name}");
        assert_eq!(manifest.contains("fancy-regex = "), uses, "{name}");
    }
}

/// The 3.0 and 3.1 spellings of the same schemas must generate byte-identical crates.
#[test]
fn spec_30_and_31_pairs_generate_identical_code() {
    let pairs = [
        "nullable",
        "const",
        "exclusive-bounds",
        "examples",
        "ref-siblings",
        "discriminator",
    ];
    for pair in pairs {
        let v30 = models_of(&format!("{pair}-3.0.yaml"), "pair");
        let v31 = models_of(&format!("{pair}-3.1.yaml"), "pair");
        if v30 != v31 {
            let diff = similar_lines(&v30, &v31);
            panic!("{pair}: the 3.0 and 3.1 fixtures generate different code:\n{diff}");
        }
    }
}

/// A stream's item written as 3.1's `schema` and as 3.2's `itemSchema` (for an event stream, the
/// `contentSchema` of the event's `data`) must generate byte-identical crates, without warnings.
#[test]
fn streams_spelled_in_3_1_and_3_2_generate_identical_code() {
    let crates = |name: &str| {
        let generated = openapi_gen::generate(&fixture_text(name), &options("pair"), &Part::ALL)
            .unwrap_or_else(|d| panic!("{name}:\n{d}"));
        assert!(
            generated.diagnostics.0.is_empty(),
            "{name}: {}",
            generated.diagnostics
        );
        let mut out = String::new();
        for (_, files) in &generated.crates {
            for file in files {
                out.push_str(&format!(
                    "// ===== {} =====\n{}\n",
                    file.path, file.contents
                ));
            }
        }
        out
    };
    let (v31, v32) = (crates("streaming-3.1.yaml"), crates("streaming-3.2.yaml"));
    assert!(v31.contains("crate::stream::Events<crate::models::Tick"));
    if v31 != v32 {
        let diff = similar_lines(&v31, &v32);
        panic!("the 3.1 and 3.2 streaming fixtures generate different code:\n{diff}");
    }
}

fn similar_lines(a: &str, b: &str) -> String {
    a.lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .take(10)
        .map(|(x, y)| format!("- {x}\n+ {y}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every fixture has a header saying what it covers.
#[test]
fn fixtures_say_what_they_cover() {
    let dir = repo_root().join("tests/fixtures");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let mut path = entry.unwrap().path();
        // A document split over files says it in its root file.
        if path.is_dir() {
            path = path.join("openapi.yaml");
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
        assert!(
            header.iter().any(|l| l.contains("Covers: ")),
            "{} must start with a comment saying `Covers: ...`",
            path.display()
        );
    }
}

/// The IR of the service's own spec: types, operations, security, as the emitters see them.
#[test]
fn service_spec_ir() {
    let text = std::fs::read_to_string(repo_root().join("spec/asset-alerting.yaml")).unwrap();
    let (api, diagnostics) = openapi_gen::load_api(&text).unwrap_or_else(|d| panic!("{d}"));
    // Nothing may be approximated (the `event` webhook is generated like the operations).
    assert!(
        diagnostics.0.is_empty(),
        "the service spec should generate without warnings:\n{diagnostics}"
    );
    insta::assert_json_snapshot!("service_spec_ir", api);
}

/// Same input, byte-identical output.
#[test]
fn output_is_deterministic() {
    let text = std::fs::read_to_string(repo_root().join("spec/asset-alerting.yaml")).unwrap();
    let run = || {
        let generated = openapi_gen::generate(&text, &options("spec"), &Part::ALL).unwrap();
        generated
            .crates
            .into_iter()
            .flat_map(|(_, files)| files)
            .map(|f| (f.path, f.contents))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

/// A malformed document is a diagnostic with the pointer of the offending node, not a panic.
#[test]
fn malformed_documents_get_pointer_diagnostics() {
    let cases = [
        (
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Missing'}\n",
            "/paths/~1a/get/responses/200/content/application~1json/schema",
        ),
        (
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A: {$ref: 'other.yaml#/B'}\n",
            "/components/schemas/A",
        ),
        ("swagger: '2.0'\n", "/swagger"),
        (
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n        x: {type: [string, integer], enum: 5}\n",
            "/components/schemas/A",
        ),
    ];
    for (text, pointer) in cases {
        let err = match openapi_gen::load_api_with(text, true) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e,
        };
        let first = err.errors().next().expect("an error diagnostic");
        assert!(
            first.pointer.starts_with(pointer),
            "expected a diagnostic at {pointer}, got {first}"
        );
        assert!(
            !first.message.contains("internal generator error"),
            "{first}"
        );
    }
}

/// The names a crate root exports (`pub use path::{A, B};`), leaving out modules and crates.
fn root_exports(lib_rs: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in lib_rs.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let leaves = match rest.split_once('{') {
            Some((_, list)) => list.trim_end_matches('}').to_owned(),
            None => rest.rsplit("::").next().unwrap_or_default().to_owned(),
        };
        for leaf in leaves.split(',') {
            // `a as b` exports `b`; `*` exports the document's own types.
            let name = leaf.rsplit(" as ").next().unwrap_or_default().trim();
            if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// A schema named like an item a generated crate exports at its root, like a numeric-string
/// marker of the models' `patterns`, or like a tagged union's encoding helper must not collide
/// with it. runtime-names.yaml has a schema for every such name (checked here, so a new runtime
/// name cannot be missed) and `cargo xtask fixtures` compiles its crates; here, the models keep
/// clear of the names their own root exports.
#[test]
fn schemas_named_like_runtime_items_do_not_collide() {
    let text = fixture_text("runtime-names.yaml");
    let generated = openapi_gen::generate(&text, &options("runtime-names"), &Part::ALL)
        .unwrap_or_else(|d| panic!("{d}"));
    let (api, _) = openapi_gen::load_api(&text).unwrap_or_else(|d| panic!("{d}"));
    let schemas: Vec<String> = api
        .types
        .iter()
        .filter(|t| t.name_hint.pinned)
        .map(|t| openapi_gen::naming::type_ident(&t.name_hint.base))
        .collect();
    let type_names: Vec<&str> = api.types.iter().map(|t| t.name.as_str()).collect();
    let mut runtime = vec!["Numeric1".to_owned(), "Tagged".to_owned()];
    for (part, files) in &generated.crates {
        let lib = files
            .iter()
            .find(|f| f.path == "src/lib.rs")
            .expect("lib.rs");
        let exports = root_exports(&lib.contents);
        assert!(!exports.is_empty(), "{part:?} exports nothing?");
        if *part == Part::Models {
            for name in &exports {
                assert!(
                    !type_names.contains(&name.as_str()),
                    "a model is named {name}"
                );
            }
        }
        runtime.extend(exports);
    }
    // The server's trait is named after the document's title, not a runtime name.
    runtime.retain(|name| name != "RuntimeNamesApi");
    for name in &runtime {
        assert!(
            schemas.contains(name),
            "runtime-names.yaml has no schema named {name}: add one"
        );
    }
    assert!(!type_names.contains(&"Numeric1"), "{type_names:?}");
    assert!(runtime.len() >= 17, "{runtime:?}");
}

/// tests/fixtures/multi-file as the generator reads it (`openapi-gen bundle`): one document whose
/// schemas from other files are components and whose other objects are inlined.
#[test]
fn multi_file_bundle() {
    let path = repo_root().join("tests/fixtures/multi-file/openapi.yaml");
    let bundled = openapi_gen::read(&path).unwrap_or_else(|d| panic!("{d}"));
    let mut out = String::new();
    for diag in &bundled.diagnostics.0 {
        out.push_str(&format!("# diagnostic: {diag}\n"));
    }
    let files: Vec<String> = bundled
        .files
        .iter()
        .map(|f| {
            f.strip_prefix(path.parent().unwrap())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    out.push_str(&format!("# files: {}\n", files.join(", ")));
    out.push_str(&serde_json::to_string_pretty(&bundled.document).unwrap());
    insta::assert_snapshot!("multi_file_bundle", out);
}

/// Without `strict`, the same documents generate what their flaws leave (nothing, for the
/// swagger one: a hard error), and say what they left out at the same pointers.
#[test]
fn malformed_parts_are_left_out_with_their_pointer() {
    let cases = [
        (
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Missing'}\n  /b:\n    get:\n      responses:\n        '204': {description: ok}\n",
            "warning: /paths/~1a/get: operation left out: `/paths/~1a/get/responses/200/content/application~1json/schema`: `$ref` `#/components/schemas/Missing` names nothing in the document",
        ),
        (
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n        x: {type: [string, integer], enum: 5}\n        y: {type: string}\n",
            "warning: /components/schemas/A/properties/x: read as any JSON value (`serde_json::Value`): `/components/schemas/A/properties/x/enum`: `enum` must be an array",
        ),
    ];
    for (text, expected) in cases {
        let (api, diags) = openapi_gen::load_api(text).unwrap_or_else(|d| panic!("{d}"));
        assert!(!api.types.is_empty() || !api.operations.is_empty());
        let warnings = diags.to_string();
        assert!(warnings.contains(expected), "{warnings}");
    }
    let hard = openapi_gen::load_api("swagger: '2.0'\n").unwrap_err();
    assert_eq!(hard.errors().next().unwrap().pointer, "/swagger");
    // Every part has a flaw: nothing is left, which is an error naming the flaws.
    let nothing = openapi_gen::load_api(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {A: {enum: 3}}}\n",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        nothing.lines().collect::<Vec<_>>(),
        [
            "error: /components/schemas/A/enum: `enum` must be an array",
            "error: /: nothing is left to generate: every operation and type of the document needs a part with a flaw above",
        ]
    );
}

/// tests/fixtures/broken-parts.yaml: what its flaws leave out (the warnings, in order) and the
/// operations generated for the rest; `strict` refuses it, naming every flaw.
#[test]
fn broken_parts_are_left_out() {
    let text = fixture_text("broken-parts.yaml");
    let generated = openapi_gen::generate(&text, &options("broken-parts"), &Part::ALL)
        .unwrap_or_else(|d| panic!("{d}"));
    let (api, _) = openapi_gen::load_api(&text).unwrap();
    let mut out = format!(
        "# operations: {} of {}: {}\n",
        generated.operations.0,
        generated.operations.1,
        api.operations
            .iter()
            .map(|o| o.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for diag in &generated.diagnostics.0 {
        out.push_str(&format!("{diag}\n"));
    }
    insta::assert_snapshot!("broken_parts_left_out", out);
    assert_eq!(generated.crates.len(), 3);

    let mut strict = options("broken-parts");
    strict.strict = true;
    let refused = openapi_gen::generate(&text, &strict, &Part::ALL)
        .err()
        .expect("strict refuses");
    assert!(refused.errors().count() >= 5, "{refused}");
}

/// tests/fixtures/map-refs: maps written as a `$ref` to another file's map, inlined where they
/// stand (`openapi-gen bundle` writes them so), each with a warning; file paths relative to the
/// fixture.
#[test]
fn map_refs_bundle() {
    let dir = repo_root().join("tests/fixtures/map-refs");
    let bundled = openapi_gen::read(&dir.join("openapi.yaml")).unwrap_or_else(|d| panic!("{d}"));
    assert!(!bundled.diagnostics.has_errors(), "{}", bundled.diagnostics);
    let prefix = format!("{}/", dir.canonicalize().unwrap().display());
    let mut out = String::new();
    for diag in &bundled.diagnostics.0 {
        out.push_str(&format!(
            "# diagnostic: {}\n",
            diag.to_string().replace(&prefix, "")
        ));
    }
    out.push_str(&serde_json::to_string_pretty(&bundled.document).unwrap());
    insta::assert_snapshot!("map_refs_bundle", out);
    let generated =
        openapi_gen::generate_file(&dir.join("openapi.yaml"), &options("map-refs"), &Part::ALL)
            .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(generated.operations, (3, 3));
    let models = &generated.crates[0].1;
    let types = &models
        .iter()
        .find(|f| f.path == "src/types.rs")
        .unwrap()
        .contents;
    for field in [
        "pub droplet_ids: Option<Vec<i64>>",
        "pub entry_port: i64",
        "pub r#ref: String",
    ] {
        assert!(types.contains(field), "{field}:\n{types}");
    }
}
