//! The local server stays reachable with proxies set in the environment, while other
//! hosts still go through the proxy. This binary holds one test only, because it changes
//! the process environment.

use crate::support;

use std::time::Duration;

use leash_core::llm::ProviderConfig;
use leash_core::planner;
use leash_core::runtime::CancelToken;
use serde_json::json;
use support::*;

#[test]
fn loopback_bypasses_a_dead_proxy_and_other_hosts_use_it() {
    let dead_proxy = format!("http://127.0.0.1:{}", dead_port());
    for var in ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        std::env::set_var(var, &dead_proxy);
    }
    for var in ["NO_PROXY", "no_proxy"] {
        std::env::remove_var(var);
    }
    let run = |cfg: &ProviderConfig| {
        planner::plan_blocking(&plan_request("turn on word wrap", cfg), &CancelToken::new()).map_err(|f| f.error)
    };

    for host in ["127.0.0.1", "localhost"] {
        let server = TestServer::start(vec![Reply::json(200, ollama_text(WRAP_PLAN, "stop"))]);
        let url = format!("http://{host}:{}", server.addr.port());
        let cfg = ProviderConfig::from_json(&json!({"name": "ollama", "url": url, "model": "q", "timeout_ms": 5000}))
            .unwrap();
        let out = run(&cfg).unwrap_or_else(|e| panic!("{host}: {e}"));
        assert_eq!(out.plan.to_json()["steps"][0]["key"], json!("wrap"));
        server.wait_for_requests(1, Duration::from_secs(1));
    }

    // Any other host goes through the (dead) proxy, and the message says so.
    let cfg = ProviderConfig::from_json(&json!({
        "name": "gateway", "kind": "openai", "url": "http://leash-proxy-check.invalid/v1", "model": "m", "retries": 0
    }))
    .unwrap();
    let err = run(&cfg).unwrap_err().to_string();
    assert!(err.contains("connection refused") && err.contains("HTTP_PROXY"), "{err}");
}
