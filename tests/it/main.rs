//! The integration tests of the generator and the generated crates, in one test binary (one link
//! instead of one per file, as in matklad's "Delete Cargo Integration Tests"). Each module was a
//! file of its own under `tests/`; its tests keep their names, prefixed by the module
//! (`server_http::...`), and its insta snapshots are `snapshots/it__<module>__<name>.snap`.
//!
//! New tests go into a module here: a new file `tests/it/<name>.rs` and a `mod <name>;` line
//! below (a fixture's crates are dev-dependencies in `tests/Cargo.toml`). A new `[[test]]` target
//! only for tests that need a process to themselves, with a comment saying why.

mod broken_parts_roundtrip;
mod client_roundtrip;
mod client_snapshots;
mod corpus;
mod device_flow_roundtrip;
mod drift;
mod errors_formats_roundtrip;
mod generator_snapshots;
mod group_features;
mod idempotency_roundtrip;
mod in_process_roundtrip;
mod lenient_roundtrip;
mod lossy_roundtrip;
mod methods_roundtrip;
mod middleware_layers;
mod mixed_paths_roundtrip;
mod models_roundtrip;
mod multi_file_roundtrip;
mod openai_stream;
mod param_styles_roundtrip;
mod read_write_only_roundtrip;
mod rfc6570_roundtrip;
mod server_http;
mod streaming_roundtrip;
mod type_sizes;
mod unions_roundtrip;
mod webhooks_only_roundtrip;
mod webhooks_roundtrip;
