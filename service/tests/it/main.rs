//! The service's integration tests, in one test binary (one link instead of one per file, as in
//! matklad's "Delete Cargo Integration Tests"). Each module was a file of its own under
//! `service/tests/`; its tests keep their names, prefixed by the module (`api::...`).
//!
//! New tests go into a module here: a new file `tests/it/<name>.rs` and a `mod <name>;` line
//! below. A file directly under `tests/` is a binary of its own: only for tests that need a
//! process to themselves, saying why at its top (as `tests/operations.rs` does).
//!
//! Every module shares this process: the harness in `support` (one throwaway PostgreSQL cluster
//! for the whole binary, one database per test), the `metrics` recorder, and the test threads.
//! The crash and shutdown tests signal the service binary they spawn, never this process, so they
//! are modules here too.

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod accounts;
mod api;
mod crash;
mod drive;
mod fairness;
mod instances;
mod live_events;
mod notifications;
mod portal;
mod portal_borders;
mod shutdown;
mod statistics;
mod store;
mod telemetry;
mod teltonika_crash;
mod token_throttle;
mod trackers;
