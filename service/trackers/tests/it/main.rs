//! The trackers crate's integration tests, in one test binary (one link instead of one per file,
//! as in matklad's "Delete Cargo Integration Tests"). Each module was a file of its own under
//! `service/trackers/tests/`; its tests keep their names, prefixed by the module.
//!
//! New tests go into a module here: a new file `tests/it/<name>.rs` and a `mod <name>;` line below.

mod osmand_endpoint;
mod teltonika_listener;
