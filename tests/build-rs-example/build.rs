//! Generates the API of tests/fixtures/webhooks.yaml into `$OUT_DIR/api.rs`: models, server and
//! client, with the webhooks' sender and receiver.

use openapi_gen::{ModuleOptions, Part};
use std::path::PathBuf;

fn main() {
    let spec = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../fixtures/webhooks.yaml");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("api.rs");
    let mut options = ModuleOptions::new("tests/fixtures/webhooks.yaml");
    options.parts = vec![Part::Models, Part::Server, Part::Client];
    options.webhooks = true;
    let warnings =
        openapi_gen::write_module(&spec, &out, &options).unwrap_or_else(|e| panic!("{e}"));
    for warning in warnings.0 {
        println!("cargo::warning={warning}");
    }
}
