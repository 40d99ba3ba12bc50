//! Every integration test of the core in one binary: one link instead of one per file (as ripgrep's
//! `tests/tests.rs`). `autotests = false` in Cargo.toml, so a new file in `tests/` runs only
//! once it is listed here; `every_test_file_is_listed` below fails otherwise.

mod support;

mod hostile_plans;
mod llm_offline;
mod llm_providers;
mod llm_proxy;
mod llm_runtime;
mod policy_neovim;
mod prompt_budget;
mod rank_languages;
mod robustness;
mod second_look;
#[cfg(unix)]
mod sources_discovery;

/// A file in `tests/` that is not a module here would never run (autotests are off).
#[test]
fn every_test_file_is_listed() {
    support::assert_every_test_file_listed(concat!(env!("CARGO_MANIFEST_DIR"), "/tests"), include_str!("tests.rs"));
}
