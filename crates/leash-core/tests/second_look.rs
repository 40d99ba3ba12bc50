//! The second look and the structured-output ladder, for each provider's wire format
//! against a local server: a model that asks to look entries up is shown them and asked
//! once more; a server that refuses the response format (whatever the status) is asked
//! the next way down, and the session remembers it.

use crate::support;

use std::time::Duration;

use leash_core::llm::{LlmError, ProviderConfig};
use leash_core::planner::{self, PlanFailure, PlanOutcome};
use leash_core::runtime::CancelToken;
use serde_json::{json, Value};
use support::*;

/// The first shortlist holds two entries, so `tabstop` is not in it.
const LIMIT: usize = 2;
const REQUEST: &str = "turn on word wrap";

fn config(kind: &str, url: &str, extra: Value) -> Config {
    provider_config(kind, url, "m", "sk-test-second-look", extra)
}

fn run(cfg: &ProviderConfig, limit: usize) -> Result<PlanOutcome, PlanFailure> {
    let mut req = plan_request(REQUEST, cfg);
    req.limit = limit;
    planner::plan_blocking(&req, &CancelToken::new())
}

fn answer(kind: &str, text: &str) -> Value {
    match kind {
        "anthropic" => anthropic_text(text, "end_turn"),
        "openai" => openai_text(text, "stop"),
        _ => ollama_text(text, "stop"),
    }
}

/// The user message and the schema of a captured request, in any of the dialects.
fn user_and_schema(kind: &str, body: &Value) -> (String, Value) {
    match kind {
        // A model older than Claude 4.5 ("m") is asked with the forced tool.
        "anthropic" => (
            body["messages"][0]["content"].as_str().unwrap().to_string(),
            match &body["output_config"]["format"]["schema"] {
                Value::Null => body["tools"][0]["input_schema"].clone(),
                schema => schema.clone(),
            },
        ),
        "openai" => (
            body["messages"][1]["content"].as_str().unwrap().to_string(),
            body["response_format"]["json_schema"]["schema"].clone(),
        ),
        _ => (body["messages"][1]["content"].as_str().unwrap().to_string(), body["format"].clone()),
    }
}

const LOOKUP: &str = r#"{"reply": "Let me look that up.", "steps": [], "lookup": ["tabstop", "ts"]}"#;
const WITH_TABSTOP: &str = r#"{"reply": "Tabs of 4 and wrapping.", "steps": [{"type": "setting", "key": "tabstop", "value": 4, "why": "tabs"}, {"type": "setting", "key": "wrap", "value": true, "why": "wrap"}]}"#;

#[test]
fn each_wire_format_takes_a_second_look() {
    for kind in ["anthropic", "openai", "ollama"] {
        let server = TestServer::start(vec![
            Reply::json(200, answer(kind, LOOKUP)),
            Reply::json(200, answer(kind, WITH_TABSTOP)),
        ]);
        let out = run(&config(kind, &server.url(), json!({})), LIMIT).unwrap_or_else(|f| panic!("{kind}: {f}"));
        let plan = out.plan.to_json();
        assert_eq!(plan["steps"][0]["key"], json!("tabstop"), "{kind}: {plan}");
        assert_eq!(plan["steps"][0]["value"], json!(4));
        assert_eq!(plan["dropped"], json!([]));

        let reqs = server.requests();
        assert_eq!(reqs.len(), 2, "{kind}: one extra round");
        let (user1, schema1) = user_and_schema(kind, &reqs[0].json());
        let (user2, schema2) = user_and_schema(kind, &reqs[1].json());
        assert!(!user1.contains("- tabstop"), "{kind}: not in the first shortlist:\n{user1}");
        assert!(!enums(&schema1).contains(&"tabstop".to_string()));
        assert!(schema1["properties"].get("lookup").is_some(), "{kind}: the first schema offers look-ups");
        assert!(user2.contains("- tabstop (number"), "{kind}: found and shown:\n{user2}");
        assert!(user2.contains("You asked to look up:\n- \"tabstop\": tabstop"), "{kind}:\n{user2}");
        assert!(enums(&schema2).contains(&"tabstop".to_string()), "{kind}: the second schema names it");
        assert!(schema2["properties"].get("lookup").is_none(), "{kind}: no look-up the second time");

        // The log holds both exchanges and what was found.
        let line: Value = serde_json::from_str(&out.log.to_line()).unwrap();
        assert_eq!(line["exchanges"].as_array().unwrap().len(), 2, "{kind}: {line}");
        assert_eq!(line["exchanges"][0]["lookup"], json!(["tabstop", "ts"]));
        assert!(line["exchanges"][0]["raw"].as_str().unwrap().contains("\"lookup\""));
        assert!(line["exchanges"][1]["raw"].as_str().unwrap().contains("Tabs of 4"));
        assert_eq!(line["lookups"][0]["query"], json!("tabstop"));
        assert_eq!(line["lookups"][0]["names"][0], json!("tabstop"));
        assert_eq!(line["raw"], line["exchanges"][1]["raw"]);
    }
}

#[test]
fn anthropic_tool_answers_take_a_second_look_too() {
    let tool = |plan: &str| {
        json!({"content": [{"type": "tool_use", "id": "t", "name": "plan", "input": serde_json::from_str::<Value>(plan).unwrap()}],
               "stop_reason": "tool_use"})
    };
    let server = TestServer::start(vec![Reply::json(200, tool(LOOKUP)), Reply::json(200, tool(WITH_TABSTOP))]);
    let out = run(&config("anthropic", &server.url(), json!({"structured": "tool"})), LIMIT).unwrap();
    assert_eq!(out.plan.to_json()["steps"][0]["key"], json!("tabstop"));
    assert_eq!(server.requests().len(), 2);
    assert!(server.requests()[1].json()["tools"][0]["input_schema"]["properties"].get("lookup").is_none());
}

#[test]
fn at_most_one_extra_round_and_validation_is_unchanged() {
    let again = r#"{"reply": "Still looking.", "steps": [{"type": "setting", "key": "fontsize", "value": 16}], "lookup": ["fontsize"]}"#;
    let server = TestServer::start(vec![
        Reply::json(200, openai_text(LOOKUP, "stop")),
        Reply::json(200, openai_text(again, "stop")),
    ]);
    let out = run(&config("openai", &server.url(), json!({})), LIMIT).unwrap();
    assert_eq!(server.requests().len(), 2, "a second look-up is not followed");
    let plan = out.plan.to_json();
    assert_eq!(plan["steps"], json!([]));
    assert_eq!(plan["dropped"][0]["reason"], json!("unknown setting “fontsize”"), "{plan}");
    let line: Value = serde_json::from_str(&out.log.to_line()).unwrap();
    assert_eq!(line["exchanges"][1]["ignored_lookup"], json!(["fontsize"]));
}

#[test]
fn the_steps_of_an_answer_that_looks_up_are_not_run() {
    let both = r#"{"reply": "x", "steps": [{"type": "setting", "key": "wrap", "value": true}], "lookup": ["tabstop"]}"#;
    let none = r#"{"reply": "Nothing to do after all.", "steps": []}"#;
    let server = TestServer::start(vec![
        Reply::json(200, ollama_text(both, "stop")),
        Reply::json(200, ollama_text(none, "stop")),
    ]);
    let out = run(&config("ollama", &server.url(), json!({})), LIMIT).unwrap();
    assert_eq!(out.plan.to_json()["steps"], json!([]), "the second answer is the plan");
    assert_eq!(out.plan.reply, "Nothing to do after all.");
}

#[test]
fn a_failed_second_exchange_keeps_the_first_in_the_log() {
    let server = TestServer::start(vec![
        Reply::json(200, anthropic_text(LOOKUP, "end_turn")),
        Reply::json(200, anthropic_text("I am not sure.", "end_turn")),
    ]);
    let failure = run(&config("anthropic", &server.url(), json!({})), LIMIT).unwrap_err();
    assert!(matches!(failure.error, LlmError::NotAPlan { .. }), "{failure}");
    let line: Value = serde_json::from_str(&failure.log.to_line()).unwrap();
    assert_eq!(line["exchanges"].as_array().unwrap().len(), 2, "{line}");
    assert_eq!(line["raw"], json!("I am not sure."), "the raw answer of a plan that could not be read");
    assert_eq!(line["error"]["code"], json!("not_a_plan"));
}

#[test]
fn the_offline_planner_never_looks_up() {
    let out = run(&ProviderConfig::default(), LIMIT).unwrap();
    assert_eq!(out.plan.to_json()["steps"][0]["key"], json!("wrap"));
    assert_eq!(out.log.exchanges.len(), 1);
    assert!(out.log.lookups.is_empty());
}

// ---- the structured-output ladder ----

/// What llama-cpp-python's OpenAI-compatible server (0.3.x) answers when asked for
/// `response_format: {"type": "json_schema", …}`: a 500 carrying its request validation
/// error, which names the field.
const LLAMA_CPP_PYTHON_500: &str = include_str!("../../../tests/data/llama-cpp-python-json-schema-500.json");

#[test]
fn a_llama_cpp_500_on_json_schema_steps_down_to_json_object_with_the_schema_and_is_remembered() {
    let server = TestServer::start(vec![
        Reply::raw(500, LLAMA_CPP_PYTHON_500).header("content-type", "application/json"),
        Reply::json(200, openai_text(WRAP_PLAN, "stop")),
    ]);
    let cfg = config("openai", &format!("{}/v1", server.url()), json!({}));
    let out = run(&cfg, 60).unwrap();
    assert_eq!(out.plan.to_json()["steps"][0]["key"], json!("wrap"));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "the 500 is not retried: it would not change");
    assert_eq!(reqs[0].json()["response_format"]["type"], json!("json_schema"));
    let second = reqs[1].json();
    assert_eq!(second["response_format"]["type"], json!("json_object"));
    assert!(enums(&second["response_format"]["schema"]).contains(&"wrap".to_string()), "the schema rides along");
    assert_eq!(out.log.structured, "json_object (schema)");
    assert_eq!(out.log.attempts, 2);
    // Remembered for the session: the next request starts there.
    run(&cfg, 60).unwrap();
    assert_eq!(server.requests()[2].json()["response_format"]["type"], json!("json_object"));
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn every_refusal_of_the_format_steps_down_to_none() {
    let refuse = |what: &str| {
        Reply::json(
            400,
            json!({"error": {"message": format!("Invalid parameter: {what}"), "type": "invalid_request_error"}}),
        )
    };
    let server = TestServer::start(vec![
        refuse("response_format json_schema is not supported by this model"),
        refuse("response_format.schema: unrecognized request argument"),
        refuse("response_format json_object is not supported"),
        Reply::json(200, openai_text(WRAP_PLAN, "stop")),
    ]);
    let out = run(&config("openai", &server.url(), json!({})), 60).unwrap();
    let formats: Vec<Value> = server.requests().iter().map(|r| r.json()["response_format"].clone()).collect();
    assert_eq!(formats[0]["type"], json!("json_schema"));
    assert_eq!(formats[1]["type"], json!("json_object"));
    assert!(formats[1].get("schema").is_some());
    assert_eq!(formats[2], json!({"type": "json_object"}));
    assert_eq!(formats[3], Value::Null, "no response_format at all");
    assert_eq!(out.log.structured, "none");
}

#[test]
fn a_schema_too_large_is_sent_again_compact() {
    let too_large = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "The compiled grammar is too large, which would cause performance issues. Simplify your tool schemas or reduce the number of strict tools."}});
    let server =
        TestServer::start(vec![Reply::json(400, too_large), Reply::json(200, anthropic_text(WRAP_PLAN, "end_turn"))]);
    // A model that takes output_config (Claude 4.5 and later).
    let cfg = config("anthropic", &server.url(), json!({"model": "claude-haiku-4-5"}));
    let out = run(&cfg, 60).unwrap();
    assert_eq!(out.plan.to_json()["steps"][0]["key"], json!("wrap"));
    let reqs = server.requests();
    let branches = |r: &Captured| {
        r.json()["output_config"]["format"]["schema"]["properties"]["steps"]["items"]["anyOf"].as_array().unwrap().len()
    };
    // The full schema gives each shortlisted setting its own branch (its own value type);
    // the compact one has a single setting branch whose value is any of their types.
    let setting_value_types = |r: &Captured| -> Vec<Value> {
        r.json()["output_config"]["format"]["schema"]["properties"]["steps"]["items"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["properties"]["type"]["enum"] == json!(["setting"]))
            .map(|b| b["properties"]["value"]["type"].clone())
            .collect()
    };
    assert!(setting_value_types(&reqs[0]).iter().all(Value::is_string), "one type per setting branch");
    let compact = setting_value_types(&reqs[1]);
    assert_eq!(compact.len(), 1);
    assert!(compact[0].is_array(), "{compact:?}");
    // Only the setting branches differ: items and the terminal step keep theirs.
    assert_eq!(branches(&reqs[1]), branches(&reqs[0]) - setting_value_types(&reqs[0]).len() + 1);
    assert_eq!(out.log.structured, "json_schema (compact)");
    run(&cfg, 60).unwrap();
    let again = setting_value_types(&server.requests()[2]);
    assert!(again.len() == 1 && again[0].is_array(), "remembered: {again:?}");
}

#[test]
fn ollama_steps_down_when_the_format_is_refused() {
    let server = TestServer::start(vec![
        Reply::json(500, json!({"error": "invalid format: json schema could not be converted to a grammar"})),
        Reply::json(200, ollama_text(WRAP_PLAN, "stop")),
    ]);
    let out = run(&config("ollama", &server.url(), json!({})), 60).unwrap();
    assert_eq!(server.requests().len(), 2);
    // The schema could not become a grammar: the compact one is tried first.
    assert_eq!(out.log.structured, "json_schema (compact)");
}

#[test]
fn other_server_errors_are_still_retried() {
    let server = TestServer::start(vec![
        Reply::json(503, json!({"error": {"message": "loading model", "type": "server_error"}}))
            .header("retry-after-ms", "10"),
        Reply::json(200, openai_text(WRAP_PLAN, "stop")),
    ]);
    let out = run(&config("openai", &server.url(), json!({})), 60).unwrap();
    assert_eq!(out.log.structured, "json_schema");
    assert_eq!(server.requests().len(), 2);
}

// ---- what the messages say ----

#[test]
fn a_looping_model_is_reported_as_looping_with_its_answer_in_the_log() {
    let looping = format!(
        "{{\"reply\": \"ok\", \"steps\": [{}",
        r#"{"type": "item", "id": "cmd:vsplit", "args": "", "why": "split"}, "#.repeat(40)
    );
    let server = TestServer::start(vec![Reply::json(200, openai_text(&looping, "length"))]);
    let mut cfg = config("openai", &server.url(), json!({}));
    cfg.settings_in = leash_core::llm::SettingsIn::Cli;
    let failure = run(&cfg, 60).unwrap_err();
    let msg = failure.to_string();
    assert!(matches!(failure.error, LlmError::Truncated { looping: true, .. }), "{msg}");
    assert!(msg.contains("repeated itself") && msg.contains("\"max_tokens\" in --config"), "{msg}");
    assert!(msg.contains(&format!("openai at 127.0.0.1:{}", server.addr.port())), "names the server: {msg}");
    assert!(failure.log.raw.contains("cmd:vsplit"), "the raw answer is kept");
    assert_eq!(server.requests().len(), 1);

    let cut = &WRAP_PLAN[..50];
    let server = TestServer::start(vec![Reply::json(200, openai_text(cut, "length"))]);
    let failure = run(&config("openai", &server.url(), json!({})), 60).unwrap_err();
    assert!(matches!(failure.error, LlmError::Truncated { looping: false, .. }), "{failure}");
    assert!(failure.to_string().ends_with("raise providers.openai.max_tokens"), "{failure}");
}

#[test]
fn a_validation_500_is_not_retried_and_names_the_server() {
    let server = TestServer::start(vec![Reply::json(
        500,
        json!({"error": {"message": "1 validation error for Request\nbody -> temperature\n  Input should be less than or equal to 2", "type": "internal_server_error"}}),
    )]);
    let failure = run(&config("openai", &server.url(), json!({"structured": "none"})), 60).unwrap_err();
    assert_eq!(server.requests().len(), 1, "the same request would get the same answer");
    let msg = failure.to_string();
    assert!(msg.starts_with(&format!("500 from openai at 127.0.0.1:{}", server.addr.port())), "{msg}");
    assert!(!msg.contains("overloaded"), "{msg}");
    std::thread::sleep(Duration::from_millis(1));
}
