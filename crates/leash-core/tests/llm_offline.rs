//! The offline planner through the whole pipeline: the default with no provider.

use crate::support;

use leash_core::llm::ProviderConfig;
use leash_core::planner::{self, offline};
use leash_core::runtime::CancelToken;
use serde_json::{json, Value};
use support::plan_request;

fn plan(request: &str) -> Value {
    let out = planner::plan_blocking(&plan_request(request, &ProviderConfig::default()), &CancelToken::new()).unwrap();
    assert_eq!(out.log.provider, "offline");
    assert_eq!(out.log.kind, "offline");
    out.plan.to_json()
}

#[test]
fn turn_on_word_wrap() {
    let p = plan("turn on word wrap");
    assert_eq!(p["steps"][0]["type"], json!("setting"), "{p}");
    assert_eq!(p["steps"][0]["key"], json!("wrap"));
    assert_eq!(p["steps"][0]["value"], json!(true));
    assert_eq!(p["steps"].as_array().unwrap().len(), 1);
}

#[test]
fn set_tabstop_to_4() {
    let p = plan("set tabstop to 4");
    assert_eq!(p["steps"][0]["key"], json!("tabstop"), "{p}");
    assert_eq!(p["steps"][0]["value"], json!(4));
}

#[test]
fn relative_line_numbers_and_vsplit() {
    assert_eq!(plan("relative line numbers")["steps"][0]["key"], json!("relativenumber"));
    let p = plan("vsplit");
    assert_eq!(p["steps"][0]["id"], json!("cmd:vsplit"), "{p}");
}

#[test]
fn make_the_font_bigger_needs_a_model() {
    let p = plan("make the font bigger");
    assert_eq!(p["steps"], json!([]), "{p}");
    assert_eq!(p["reply"], json!(offline::NEEDS_MODEL));
    assert!(offline::NEEDS_MODEL.starts_with("offline can't plan this: :help leash-providers"));
}

// ---- everyday requests (tests/data/offline-requests*.jsonl) against the real catalogs
