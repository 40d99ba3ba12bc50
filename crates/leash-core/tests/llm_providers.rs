//! Each provider against a local server speaking its wire format: good plans,
//! structured-output requests, retries, deadlines, errors, truncation, cancellation.

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use leash_core::llm::{LlmError, ProviderConfig};
use leash_core::planner::{self, LogRecord, PlanOutcome, PlanRequest};
use leash_core::policy::Policy;
use leash_core::profile::Profile;
use leash_core::runtime::{CancelToken, JobResult};
use serde_json::{json, Value};
use support::*;

const KEY: &str = "sk-test-SECRET-0123456789abcdef";
const REQUEST: &str = "turn on word wrap";

fn config(kind: &str, url: &str, extra: Value) -> Config {
    let model = match kind {
        "anthropic" => "claude-haiku-4-5",
        "openai" => "gpt-test",
        _ => "qwen-test",
    };
    provider_config(kind, url, model, KEY, extra)
}

fn request(cfg: &ProviderConfig) -> PlanRequest {
    let mut r = PlanRequest::new(REQUEST, Arc::new(catalog()), Policy::new(Profile::Neovim));
    r.provider = cfg.clone();
    r
}

fn run(cfg: &ProviderConfig) -> Result<PlanOutcome, LlmError> {
    planner::plan_blocking(&request(cfg), &CancelToken::new()).map_err(|f| f.error)
}

/// `127.0.0.1:PORT`: how messages name a local test server.
fn at(server: &TestServer) -> String {
    format!("127.0.0.1:{}", server.addr.port())
}

fn assert_wrap_plan(out: &PlanOutcome) {
    let plan = out.plan.to_json();
    assert_eq!(plan["steps"][0]["key"], json!("wrap"), "{plan}");
    assert_eq!(plan["steps"][0]["value"], json!(true), "{plan}");
    assert_eq!(plan["dropped"], json!([]), "{plan}");
    let line = out.log.to_line();
    assert!(!line.contains(KEY), "the key is in the log line");
    assert!(!line.contains('\n'));
}

fn assert_no_key(e: &LlmError) {
    assert!(!e.to_string().contains(KEY), "key in message: {e}");
    assert!(!format!("{e:?}").contains(KEY), "key in Debug: {e:?}");
}

// ---- good plans and what each request carries ----

#[test]
fn anthropic_good_plan_with_json_schema_output() {
    let server = TestServer::start(vec![Reply::json(200, anthropic_text(WRAP_PLAN, "end_turn"))]);
    let out = run(&config("anthropic", &server.url(), json!({}))).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(out.log.structured, "json_schema");
    assert_eq!(out.log.usage.input_tokens, Some(812));
    assert!(out.log.raw.contains("\"wrap\""), "the raw answer is the text block, not the thinking block");
    let line: Value = serde_json::from_str(&out.log.to_line()).unwrap();
    assert_eq!(line["request"], json!(REQUEST));
    assert_eq!(line["provider"], json!("anthropic"));
    assert_eq!(line["model"], json!("claude-haiku-4-5"));
    assert!(line["shortlist"].as_u64().unwrap() >= 2);
    assert!(line["timings"]["total_ms"].as_f64().unwrap() >= line["timings"]["model_ms"].as_f64().unwrap());
    assert_eq!(line["plan"]["steps"][0]["key"], json!("wrap"));

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert!(r.header("authorization").is_none());
    let body = r.json();
    assert_eq!(body["model"], json!("claude-haiku-4-5"));
    assert_eq!(body["max_tokens"], json!(1024));
    assert_eq!(body["messages"][0]["role"], json!("user"));
    assert!(body["messages"][0]["content"].as_str().unwrap().contains("Request: turn on word wrap"));
    assert!(body["system"].as_str().unwrap().contains("JSON"));
    assert_eq!(body["output_config"]["format"]["type"], json!("json_schema"));
    let schema = &body["output_config"]["format"]["schema"];
    let e = enums(schema);
    assert!(e.contains(&"wrap".to_string()) && e.contains(&"linebreak".to_string()), "shortlist enums: {e:?}");
    assert!(!e.contains(&"guifont".to_string()), "only the shortlist: {e:?}");
    assert!(body.get("tools").is_none());
}

#[test]
fn anthropic_forced_tool_for_older_models() {
    let tool_answer = json!({
        "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "plan", "input": serde_json::from_str::<Value>(WRAP_PLAN).unwrap()}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 2}
    });
    let server = TestServer::start(vec![Reply::json(200, tool_answer)]);
    let out = run(&config("anthropic", &server.url(), json!({"model": "claude-3-5-haiku-20241022"}))).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(out.log.structured, "tool");
    let body = server.requests()[0].json();
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "plan"}));
    assert_eq!(body["tools"][0]["name"], json!("plan"));
    assert!(enums(&body["tools"][0]["input_schema"]).contains(&"wrap".to_string()));
    assert!(body.get("output_config").is_none());
}

#[test]
fn anthropic_schema_rejection_downgrades_to_the_tool_once() {
    let rejected = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "output_config.format: Extra inputs are not permitted"}});
    let tool_answer = json!({
        "content": [{"type": "tool_use", "id": "t", "name": "plan", "input": serde_json::from_str::<Value>(WRAP_PLAN).unwrap()}],
        "stop_reason": "tool_use"
    });
    let server = TestServer::start(vec![Reply::json(400, rejected), Reply::json(200, tool_answer)]);
    let cfg = config("anthropic", &server.url(), json!({}));
    let out = run(&cfg).unwrap();
    assert_wrap_plan(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0].json().get("output_config").is_some());
    assert!(reqs[1].json().get("tools").is_some());
    // Remembered: the next request goes straight to the tool.
    run(&cfg).unwrap();
    assert!(server.requests()[2].json().get("tools").is_some());
}

#[test]
fn openai_good_plan_with_strict_json_schema() {
    let server = TestServer::start(vec![Reply::json(200, openai_text(WRAP_PLAN, "stop"))]);
    let out = run(&config("openai", &format!("{}/v1", server.url()), json!({}))).unwrap();
    assert_wrap_plan(&out);
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    let body = r.json();
    assert_eq!(body["messages"][0]["role"], json!("system"));
    assert_eq!(body["messages"][1]["role"], json!("user"));
    assert_eq!(body["response_format"]["type"], json!("json_schema"));
    assert_eq!(body["response_format"]["json_schema"]["strict"], json!(true));
    assert_eq!(body["response_format"]["json_schema"]["name"], json!("plan"));
    assert!(enums(&body["response_format"]["json_schema"]["schema"]).contains(&"wrap".to_string()));
    assert_eq!(body["max_tokens"], json!(1024), "a local server gets max_tokens");
    assert_eq!(body["temperature"], json!(0), "a local server gets an explicit temperature");
}

#[test]
fn openai_json_object_and_plain_modes() {
    let fenced = format!("Here you go:\n```json\n{WRAP_PLAN}\n```");
    let server = TestServer::start(vec![Reply::json(200, openai_text(&fenced, "stop"))]);
    let out = run(&config("openai", &server.url(), json!({"structured": "json_object"}))).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(server.requests()[0].json()["response_format"], json!({"type": "json_object"}));
    run(&config("openai", &server.url(), json!({"structured": "none"}))).unwrap();
    assert!(server.requests()[1].json().get("response_format").is_none());
}

#[test]
fn openai_custom_key_header_and_headers() {
    let server = TestServer::start(vec![Reply::json(200, openai_text(WRAP_PLAN, "stop"))]);
    let cfg = config("openai", &server.url(), json!({"api_key_header": "api-key", "headers": {"x-gateway": "g1"}}));
    run(&cfg).unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.header("api-key"), Some(KEY));
    assert!(r.header("authorization").is_none());
    assert_eq!(r.header("x-gateway"), Some("g1"));
}

#[test]
fn ollama_good_plan_with_format_schema() {
    let server = TestServer::start(vec![Reply::json(200, ollama_text(WRAP_PLAN, "stop"))]);
    let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": server.url(), "model": "qwen-test"})).unwrap();
    let out = run(&cfg).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(out.log.usage.output_tokens, Some(35));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/api/chat");
    assert!(r.header("authorization").is_none(), "no key for a local ollama");
    let body = r.json();
    assert_eq!(body["stream"], json!(false));
    assert_eq!(body["think"], json!(false));
    assert_eq!(body["options"]["num_predict"], json!(1024));
    assert_eq!(body["options"]["temperature"], json!(0.0));
    assert!(enums(&body["format"]).contains(&"wrap".to_string()));
}

// ---- retries ----

#[test]
fn rate_limit_then_success_honours_retry_after_ms() {
    let limited = json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}});
    let server = TestServer::start(vec![
        Reply::json(429, limited).header("retry-after-ms", "200"),
        Reply::json(200, anthropic_text(WRAP_PLAN, "end_turn")),
    ]);
    let out = run(&config("anthropic", &server.url(), json!({}))).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(out.log.attempts, 2);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let waited = reqs[1].at - reqs[0].at;
    assert!(waited >= Duration::from_millis(200), "waited only {waited:?}");
    assert!(waited < Duration::from_millis(2000), "waited {waited:?}");
}

#[test]
fn the_wait_before_a_retry_is_told_as_progress() {
    let limited = json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}});
    let server = TestServer::start(vec![
        Reply::json(429, limited).header("retry-after-ms", "200"),
        Reply::json(200, anthropic_text(WRAP_PLAN, "end_turn")),
    ]);
    let heard = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let cfg = config("anthropic", &server.url(), json!({}));
    let mut req = request(&cfg);
    let sink = Arc::clone(&heard);
    req.progress = Some(Arc::new(move |line: &str| sink.lock().unwrap().push(line.to_string())));
    let out = planner::plan_blocking(&req, &CancelToken::new()).map_err(|f| f.error).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(
        *heard.lock().unwrap(),
        vec!["rate-limited (429): asking again in 0.2 s".to_string(), "asking again (attempt 2)".to_string()]
    );
}

#[test]
fn rate_limit_then_success_honours_retry_after_seconds() {
    let limited =
        json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}});
    let server = TestServer::start(vec![
        Reply::json(429, limited).header("retry-after", "1"),
        Reply::json(200, openai_text(WRAP_PLAN, "stop")),
    ]);
    let out = run(&config("openai", &server.url(), json!({}))).unwrap();
    assert_wrap_plan(&out);
    let reqs = server.requests();
    assert!(reqs[1].at - reqs[0].at >= Duration::from_secs(1));
}

#[test]
fn retry_after_past_the_deadline_fails_at_once() {
    let limited = json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}});
    let server = TestServer::start(vec![Reply::json(429, limited).header("retry-after", "120")]);
    let t = Instant::now();
    let err = run(&config("anthropic", &server.url(), json!({"timeout_ms": 5000}))).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(matches!(err, LlmError::RateLimited { .. }), "{err:?}");
    assert!(err.to_string().contains("retry in 120 s"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn server_errors_twice_then_success() {
    let server = TestServer::start(vec![
        Reply::json(500, json!({"error": {"message": "boom", "type": "server_error"}})),
        Reply::json(503, json!({"error": {"message": "busy", "type": "server_error"}})),
        Reply::json(200, openai_text(WRAP_PLAN, "stop")),
    ]);
    let out = run(&config("openai", &server.url(), json!({}))).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(server.requests().len(), 3);
    assert_eq!(out.log.attempts, 3);
}

#[test]
fn overloaded_three_times_is_reported_after_two_retries() {
    let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let server = TestServer::start(vec![Reply::json(529, overloaded).header("retry-after-ms", "10")]);
    let err = run(&config("anthropic", &server.url(), json!({}))).unwrap_err();
    assert_eq!(server.requests().len(), 3, "one try and two retries");
    assert_eq!(
        err.to_string(),
        format!(
            "529 from anthropic at {} after 3 attempts: Overloaded; the service may be overloaded, try again later",
            at(&server)
        )
    );
}

#[test]
fn unauthorized_is_not_retried_and_names_the_key_source_not_the_key() {
    let body = json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key {KEY}")}});
    let server = TestServer::start(vec![Reply::json(401, body)]);
    let cfg = config("anthropic", &server.url(), json!({}));
    let err = run(&cfg).unwrap_err();
    assert_eq!(server.requests().len(), 1, "401 is never retried");
    assert!(matches!(err, LlmError::Auth { status: 401, .. }));
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("401 from anthropic at {}: the API key in ", at(&server))), "{msg}");
    assert!(msg.ends_with("was rejected; check it"), "{msg}");
    assert_no_key(&err);
    assert!(!format!("{:?}", cfg.config).contains(KEY));
    let line = LogRecord::failure(&request(&cfg), &err, Duration::from_millis(5)).to_line();
    assert!(line.contains("\"code\":\"auth\"") && !line.contains(KEY), "{line}");
}

#[test]
fn quota_errors_are_not_retried() {
    let body = json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "code": "insufficient_quota"}});
    let server = TestServer::start(vec![Reply::json(429, body).header("retry-after", "0")]);
    let err = run(&config("openai", &server.url(), json!({}))).unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert!(matches!(err, LlmError::Quota { .. }), "{err:?}");
    assert!(err.to_string().contains("billing"), "{err}");
}

#[test]
fn bad_request_and_not_found_are_not_retried() {
    let server = TestServer::start(vec![Reply::json(
        404,
        json!({"error": "model 'qwen-test' not found, try pulling it first"}),
    )]);
    let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": server.url(), "model": "qwen-test"})).unwrap();
    let err = run(&cfg).unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert!(err.to_string().contains("ollama pull qwen-test"), "{err}");

    let server = TestServer::start(vec![Reply::json(422, json!({"error": {"message": "unprocessable"}}))]);
    let err = run(&config("openai", &server.url(), json!({}))).unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert_eq!(err.to_string(), format!("422 from openai at {}: unprocessable", at(&server)));
}

// ---- deadlines and the network ----

#[test]
fn a_slow_server_runs_past_the_deadline() {
    // The message names the option that set the deadline: the provider's own, or the
    // top-level one a frontend filled in (`timeout_setting`).
    for (setting, named) in [(None, "providers.ollama.timeout_ms"), (Some("timeout_ms"), "timeout_ms")] {
        let server =
            TestServer::start(vec![Reply::json(200, ollama_text(WRAP_PLAN, "stop")).after(Duration::from_secs(5))]);
        let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": server.url(), "model": "qwen-test",
            "timeout_ms": 300, "timeout_setting": setting}))
        .unwrap();
        let t = Instant::now();
        let err = run(&cfg).unwrap_err();
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(300) && took < Duration::from_millis(1500), "{took:?}");
        assert_eq!(
            err.to_string(),
            format!("ollama at {} did not answer within 0.3 s (deadline); raise {named}", at(&server))
        );
        assert!(server.wait_for_hang_up(Duration::from_secs(2)), "the request was dropped");
    }
}

#[test]
fn the_deadline_covers_retries() {
    let server = TestServer::start(vec![Reply::json(500, json!({"error": {"message": "boom"}}))]);
    let t = Instant::now();
    let err = run(&config("openai", &server.url(), json!({"timeout_ms": 400}))).unwrap_err();
    assert!(t.elapsed() < Duration::from_millis(1200), "{:?}", t.elapsed());
    assert!(matches!(err, LlmError::Server { status: 500, .. } | LlmError::Deadline { .. }), "{err:?}");
}

#[test]
fn connection_refused_says_whether_the_server_runs() {
    let url = format!("http://127.0.0.1:{}", dead_port());
    let cfg = ProviderConfig::from_json(
        &json!({"name": "lmstudio", "kind": "openai", "url": url, "model": "m", "retries": 1}),
    )
    .unwrap();
    let err = run(&cfg).unwrap_err();
    assert_eq!(err.to_string(), format!("lmstudio: connection refused at {url}: is the server running?"));
    assert_eq!(err.code(), "connect");
}

#[test]
fn a_malformed_body_is_reported() {
    let server = TestServer::start(vec![Reply::raw(200, "<html>gateway says hi</html>")]);
    let err = run(&config("anthropic", &server.url(), json!({}))).unwrap_err();
    assert!(matches!(err, LlmError::Malformed { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "anthropic at {} sent an answer leash cannot read: the body is not JSON",
            at(&server)
        )),
        "{err}"
    );

    let server = TestServer::start(vec![Reply::json(200, json!({"object": "chat.completion"}))]);
    let err = run(&config("openai", &server.url(), json!({}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("openai at {} sent an answer leash cannot read: it has no “choices”", at(&server))
    );

    let server = TestServer::start(vec![Reply::json(200, openai_text("I think you should wrap.", "stop"))]);
    let err = run(&config("openai", &server.url(), json!({}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("the answer from openai at {} is not a plan: the answer contains no JSON object", at(&server))
    );
}

#[test]
fn a_body_cut_mid_way_is_retried() {
    let good = anthropic_text(WRAP_PLAN, "end_turn");
    let server = TestServer::start(vec![Reply::json(200, good.clone()).cut_after(20), Reply::json(200, good)]);
    let out = run(&config("anthropic", &server.url(), json!({}))).unwrap();
    assert_wrap_plan(&out);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn truncated_answers_are_reported_not_completed() {
    let cut = &WRAP_PLAN[..40];
    let server = TestServer::start(vec![Reply::json(200, anthropic_text(cut, "max_tokens"))]);
    let err = run(&config("anthropic", &server.url(), json!({"max_tokens": 64}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the answer from anthropic at {} was cut off at max_tokens (64); nothing was run; raise providers.anthropic.max_tokens",
            at(&server)
        )
    );

    let server = TestServer::start(vec![Reply::json(200, openai_text(cut, "length"))]);
    let err = run(&config("openai", &server.url(), json!({}))).unwrap_err();
    assert!(matches!(err, LlmError::Truncated { max_tokens: 1024, .. }), "{err:?}");

    let server = TestServer::start(vec![Reply::json(200, ollama_text(cut, "length"))]);
    let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": server.url(), "model": "q"})).unwrap();
    assert!(matches!(run(&cfg).unwrap_err(), LlmError::Truncated { .. }));
    assert_eq!(server.requests().len(), 1, "a truncated answer is not retried");
}

#[test]
fn refusals_are_reported_and_not_retried() {
    let server = TestServer::start(vec![Reply::json(200, anthropic_text("I can't help with that.", "refusal"))]);
    let err = run(&config("anthropic", &server.url(), json!({}))).unwrap_err();
    assert_eq!(err.to_string(), format!("anthropic at {} refused to answer: I can't help with that.", at(&server)));
    assert_eq!(server.requests().len(), 1);

    let refusal = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "No."}, "finish_reason": "stop"}]});
    let server = TestServer::start(vec![Reply::json(200, refusal)]);
    let err = run(&config("openai", &server.url(), json!({}))).unwrap_err();
    assert!(matches!(err, LlmError::Refused { .. }), "{err:?}");
}

#[test]
fn ollama_thinking_without_content_says_why() {
    let body = json!({"model": "q", "message": {"role": "assistant", "content": "", "thinking": "Let me think..."}, "done": true, "done_reason": "stop"});
    let server = TestServer::start(vec![Reply::json(200, body)]);
    let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": server.url(), "model": "q"})).unwrap();
    let err = run(&cfg).unwrap_err();
    assert!(err.to_string().contains("non-thinking model"), "{err}");
}

// ---- keys ----

#[test]
fn a_missing_key_says_where_to_put_one() {
    let server = TestServer::start(vec![Reply::json(200, anthropic_text(WRAP_PLAN, "end_turn"))]);
    let cfg = ProviderConfig::from_json(&json!({
        "name": "anthropic", "url": server.url(), "api_key_env": "LEASH_TEST_UNSET_VARIABLE_9f3"
    }))
    .unwrap();
    let err = run(&cfg).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "no API key for anthropic at {}: set LEASH_TEST_UNSET_VARIABLE_9f3 or providers.anthropic.api_key_file (or api_key_cmd)",
            at(&server)
        )
    );
    assert!(server.requests().is_empty(), "nothing is sent without a key");
}

#[cfg(unix)]
#[test]
fn a_key_command_runs_at_request_time() {
    let server = TestServer::start(vec![Reply::json(200, openai_text(WRAP_PLAN, "stop"))]);
    let cfg = ProviderConfig::from_json(&json!({
        "name": "openai", "url": server.url(), "model": "m", "api_key_cmd": ["echo", "sk-from-a-command-42"]
    }))
    .unwrap();
    run(&cfg).unwrap();
    assert_eq!(server.requests()[0].header("authorization"), Some("Bearer sk-from-a-command-42"));
}

// ---- cancellation ----

/// A plan job for [`REQUEST`] on `cfg`, started on the runtime.
fn start(cfg: &ProviderConfig) -> planner::PlanJob {
    planner::start(request(cfg)).expect("plan job")
}

/// A plan job whose request has reached a server that would answer only after 10 s.
fn job_held_open() -> (TestServer, Config, planner::PlanJob) {
    let server =
        TestServer::start(vec![Reply::json(200, anthropic_text(WRAP_PLAN, "end_turn")).after(Duration::from_secs(10))]);
    let cfg = config("anthropic", &server.url(), json!({}));
    let job = start(&cfg);
    server.wait_for_requests(1, Duration::from_secs(5));
    (server, cfg, job)
}

#[test]
fn cancelling_mid_request_drops_it_promptly() {
    let (server, _cfg, job) = job_held_open();
    assert!(job.try_take().is_none(), "still running");
    let t = Instant::now();
    job.cancel();
    let result = loop {
        if let Some(r) = job.try_take() {
            break r;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert!(t.elapsed() < Duration::from_millis(100), "{:?}", t.elapsed());
    assert!(matches!(result, JobResult::Cancelled), "{result:?}");
    assert!(server.wait_for_hang_up(Duration::from_secs(2)), "the connection was closed");
    assert_eq!(server.requests().len(), 1, "a cancelled request is not retried");
}

#[test]
fn dropping_a_job_drops_its_request() {
    // The server would answer after 10 s; the request must not run that long for nobody.
    let (server, _cfg, job) = job_held_open();
    assert_eq!(server.hung_up(), 0, "the request is open");
    drop(job);
    assert!(server.wait_for_hang_up(Duration::from_secs(2)), "the connection stayed open after the job was dropped");
    assert_eq!(server.requests().len(), 1, "a dropped request is not retried");
}

#[test]
fn a_cancel_token_ends_plan_with_cancelled() {
    let server =
        TestServer::start(vec![Reply::json(200, openai_text(WRAP_PLAN, "stop")).after(Duration::from_secs(10))]);
    let cfg = config("openai", &server.url(), json!({}));
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        c2.cancel();
    });
    let t = Instant::now();
    let err = planner::plan_blocking(&request(&cfg), &cancel).unwrap_err().error;
    assert!(err.is_cancelled(), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(1));
}

#[test]
fn a_job_result_carries_the_plan() {
    let server = TestServer::start(vec![Reply::json(200, ollama_text(WRAP_PLAN, "stop"))]);
    let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": server.url(), "model": "q"})).unwrap();
    let job = start(&cfg);
    let t = Instant::now();
    let result = loop {
        if let Some(r) = job.try_take() {
            break r;
        }
        assert!(t.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(2));
    };
    match result {
        JobResult::Finished(Ok(out)) => assert_wrap_plan(&out),
        other => panic!("{other:?}"),
    }
}
