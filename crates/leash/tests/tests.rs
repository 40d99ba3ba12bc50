//! Every integration test of the `leash` program in one binary: one link instead of one
//! per file. `autotests = false` in Cargo.toml, so a new file in `tests/` runs only once
//! it is listed here; `every_test_file_is_listed` below fails otherwise.

// The local model server and helpers the core's integration tests use.
#[path = "../../leash-core/tests/support/mod.rs"]
mod support;

mod cli;
#[cfg(unix)]
mod helix_cli;
#[cfg(unix)]
mod offline_requests;

/// A file in `tests/` that is not a module here would never run (autotests are off).
#[test]
fn every_test_file_is_listed() {
    support::assert_every_test_file_listed(concat!(env!("CARGO_MANIFEST_DIR"), "/tests"), include_str!("tests.rs"));
}
