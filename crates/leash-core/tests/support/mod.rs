//! A scripted HTTP/1.1 server on 127.0.0.1 for the provider tests: it answers each
//! request with the next scripted reply (the last one repeats), after an optional delay,
//! and records every request (method, path, headers, body, arrival time) and whether the
//! client hung up while it was waiting.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub delay: Duration,
    /// Close the connection after this many body bytes (a broken answer).
    pub cut_after: Option<usize>,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Reply {
        Reply::raw(status, &body.to_string()).header("content-type", "application/json")
    }

    pub fn raw(status: u16, body: &str) -> Reply {
        Reply { status, headers: Vec::new(), body: body.as_bytes().to_vec(), delay: Duration::ZERO, cut_after: None }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    pub fn cut_after(mut self, bytes: usize) -> Reply {
        self.cut_after = Some(bytes);
        self
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Captured {
    pub method: String,
    pub path: String,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Captured {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    /// The whole request as text (to check a key appears nowhere but where it should).
    pub fn text(&self) -> String {
        let mut s = format!("{} {}\n", self.method, self.path);
        for (k, v) in &self.headers {
            s.push_str(&format!("{k}: {v}\n"));
        }
        s.push_str(&String::from_utf8_lossy(&self.body));
        s
    }
}

#[derive(Default)]
struct Shared {
    requests: Mutex<Vec<Captured>>,
    /// Requests whose client hung up before the reply was written.
    hung_up: AtomicUsize,
}

pub struct TestServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TestServer {
    /// Starts a server on 127.0.0.1 (a free port) on its own thread and runtime.
    pub fn start(replies: Vec<Reply>) -> TestServer {
        assert!(!replies.is_empty());
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        std_listener.set_nonblocking(true).expect("nonblocking");
        let addr = std_listener.local_addr().expect("addr");
        let shared = Arc::new(Shared::default());
        let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
        let replies = Arc::new(replies);
        let next = Arc::new(AtomicUsize::new(0));
        let s = shared.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("listener");
                loop {
                    tokio::select! {
                        _ = &mut stop_rx => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let (s, replies, next) = (s.clone(), replies.clone(), next.clone());
                            tokio::spawn(async move {
                                let _ = serve(stream, s, replies, next).await;
                            });
                        }
                    }
                }
            });
        });
        TestServer { addr, shared, stop: Some(stop_tx) }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Captured> {
        self.shared.requests.lock().unwrap().clone()
    }

    pub fn hung_up(&self) -> usize {
        self.shared.hung_up.load(Ordering::SeqCst)
    }

    /// Waits until `n` requests arrived (or panics after `timeout`).
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) {
        let start = Instant::now();
        while self.requests().len() < n {
            assert!(start.elapsed() < timeout, "expected {n} requests, got {}", self.requests().len());
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    pub fn wait_for_hang_up(&self, timeout: Duration) -> bool {
        let start = Instant::now();
        while self.hung_up() == 0 {
            if start.elapsed() > timeout {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// A port on 127.0.0.1 that nothing listens on.
pub fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    port
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn serve(
    mut stream: TcpStream,
    shared: Arc<Shared>,
    replies: Arc<Vec<Reply>>,
    next: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_string();
    let path = first.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    shared.requests.lock().unwrap().push(Captured { method, path, headers, body, at: Instant::now() });
    let i = next.fetch_add(1, Ordering::SeqCst);
    let reply = replies[i.min(replies.len() - 1)].clone();

    if !reply.delay.is_zero() {
        // Wait, but notice a client that hangs up meanwhile.
        let mut probe = [0u8; 1];
        tokio::select! {
            _ = tokio::time::sleep(reply.delay) => {}
            r = stream.read(&mut probe) => {
                if matches!(r, Ok(0) | Err(_)) {
                    shared.hung_up.fetch_add(1, Ordering::SeqCst);
                    return Ok(());
                }
            }
        }
    }
    let mut out = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!("content-length: {}\r\nconnection: close\r\n\r\n", reply.body.len()));
    stream.write_all(out.as_bytes()).await?;
    let body = match reply.cut_after {
        Some(n) => &reply.body[..n.min(reply.body.len())],
        None => &reply.body[..],
    };
    stream.write_all(body).await?;
    stream.flush().await?;
    stream.shutdown().await?;
    Ok(())
}

/// The small Neovim catalog the unit tests use too (`tests/data/test-catalog.json`), as
/// the Neovim profile narrows it.
pub fn catalog() -> leash_core::catalog::Catalog {
    let value =
        serde_json::from_str(include_str!("../../../../tests/data/test-catalog.json")).expect("test catalog JSON");
    let catalog = leash_core::catalog::Catalog::from_value(&value).expect("test catalog");
    leash_core::policy::narrow_catalog(catalog)
}

/// A planning request for `request` over the test catalog, asking `provider`.
pub fn plan_request(request: &str, provider: &leash_core::llm::ProviderConfig) -> leash_core::planner::PlanRequest {
    let mut r = leash_core::planner::PlanRequest::new(
        request,
        std::sync::Arc::new(catalog()),
        leash_core::policy::Policy::new(leash_core::profile::Profile::Neovim),
    );
    r.provider = provider.clone();
    r
}

/// A file holding `key`, unique to this test and removed when dropped (also when the
/// test fails).
pub fn key_file(key: &str) -> tempfile::TempPath {
    let mut file = tempfile::Builder::new().prefix("leash-test-key-").tempfile().expect("create key file");
    std::io::Write::write_all(&mut file, format!("{key}\n").as_bytes()).expect("write key file");
    file.into_temp_path()
}

/// A provider config and the key file it reads, which lives as long as the config.
pub struct Config {
    pub config: leash_core::llm::ProviderConfig,
    _key: tempfile::TempPath,
}

impl std::ops::Deref for Config {
    type Target = leash_core::llm::ProviderConfig;
    fn deref(&self) -> &leash_core::llm::ProviderConfig {
        &self.config
    }
}

impl std::ops::DerefMut for Config {
    fn deref_mut(&mut self) -> &mut leash_core::llm::ProviderConfig {
        &mut self.config
    }
}

/// The provider `kind` at `url` with `model`, its key `key` in a file, and the fields of
/// `extra` on top.
pub fn provider_config(kind: &str, url: &str, model: &str, key: &str, extra: Value) -> Config {
    let key = key_file(key);
    let mut v = serde_json::json!({"name": kind, "url": url, "model": model, "api_key_file": key.to_str().expect("utf-8 path")});
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    Config { config: leash_core::llm::ProviderConfig::from_json(&v).expect("config"), _key: key }
}

/// Every string inside any `enum` of a JSON schema.
pub fn enums(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "enum" {
                        if let Value::Array(a) = x {
                            out.extend(a.iter().filter_map(|s| s.as_str().map(str::to_string)));
                        }
                    } else {
                        walk(x, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

/// The plan a good model answers "turn on word wrap" with.
pub const WRAP_PLAN: &str = r#"{"reply": "Wrapping long lines.", "steps": [{"type": "setting", "key": "wrap", "value": true, "scope": "global", "why": "wrap long lines"}]}"#;

pub fn anthropic_text(text: &str, stop: &str) -> Value {
    serde_json::json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [
            {"type": "thinking", "thinking": "They want {\"steps\": []} maybe", "signature": "sig"},
            {"type": "text", "text": text}
        ],
        "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 812, "output_tokens": 41}
    })
}

pub fn openai_text(text: &str, finish: &str) -> Value {
    serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": null}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 700, "completion_tokens": 30, "total_tokens": 730}
    })
}

pub fn ollama_text(text: &str, done_reason: &str) -> Value {
    serde_json::json!({
        "model": "qwen-test", "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": true, "done_reason": done_reason,
        "total_duration": 1000, "prompt_eval_count": 600, "eval_count": 35
    })
}

/// Fails for a file in `dir` (a crate's `tests/`) that `listing` (its `tests.rs`) does not
/// declare as a module: with `autotests = false` it would never run.
pub fn assert_every_test_file_listed(dir: &str, listing: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "tests") {
            assert!(listing.contains(&format!("\nmod {module};")), "tests/{name} is not listed in tests/tests.rs");
        }
    }
}
