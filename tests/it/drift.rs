//! The drift check: the checked-in generated/ matches the spec, and a one-word change to a
//! description in the spec is caught, naming the file that would change.

use integration_tests::repo_root;
use openapi_gen::Part;
use openapi_gen::emit::Options;

/// The options `cargo xtask codegen` uses (the service keeps `format: uri` a `String`, its enums
/// closed and its formats typed, and has no feature per operation group).
fn xtask_options() -> Options {
    let mut opts = Options::new(
        "asset-alerting",
        "spec/asset-alerting.yaml",
        "cargo xtask codegen",
    );
    opts.uri_as_url = false;
    opts.open_enums = false;
    opts.typed_formats = true;
    opts.group_features = false;
    opts
}

fn drift_for(spec: &str) -> Vec<String> {
    let generated =
        openapi_gen::generate(spec, &xtask_options(), &Part::ALL).unwrap_or_else(|d| panic!("{d}"));
    let root = repo_root();
    let mut drifted = Vec::new();
    for (part, files) in &generated.crates {
        let dir = root.join("generated").join(part.dir_name());
        for path in openapi_gen::output::drift(&dir, files) {
            drifted.push(
                path.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
    drifted
}

#[test]
fn checked_in_code_matches_the_spec() {
    let spec = std::fs::read_to_string(repo_root().join("spec/asset-alerting.yaml")).unwrap();
    assert_eq!(
        drift_for(&spec),
        Vec::<String>::new(),
        "run `cargo xtask codegen`"
    );
}

#[test]
fn a_one_word_description_change_is_drift() {
    let spec = std::fs::read_to_string(repo_root().join("spec/asset-alerting.yaml")).unwrap();
    let changed = spec.replacen(
        "description: Name of the account.",
        "description: Title of the account.",
        1,
    );
    assert_ne!(
        spec, changed,
        "the spec no longer has the description this test edits"
    );
    let drifted = drift_for(&changed);
    assert!(
        drifted.contains(&"generated/models/src/types.rs".to_owned()),
        "{drifted:?}"
    );
}
