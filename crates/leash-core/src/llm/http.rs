//! One JSON POST with the retry policy, inside one deadline.
//!
//! Retried (at most `retries` times, 2 by default): connection errors, 408, 409, 429, 5xx
//! and 529, waiting what `retry-after-ms` / `retry-after` (seconds or an HTTP date) asks
//! when it fits before the deadline, else an exponential backoff with jitter. Never
//! retried: 400, 401, 403, 404, 413, 422, quota and spend-limit errors. The deadline
//! covers every attempt and every wait; when it passes, the request is dropped.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;
use reqwest::{Client, StatusCode, Url};
use serde_json::Value;
use tokio::time::Instant;

use super::error::LlmError;
use super::keys::{KeySource, Secret};
use super::provider_config::{ProviderKind, Resolved};

/// The largest answer body read, in bytes.
pub const MAX_BODY_BYTES: usize = 8 << 20;
/// Backoff: 0.5 s · 2^(attempt−1), at most 8 s, times (1 − 0.25·jitter).
const BACKOFF_BASE: Duration = Duration::from_millis(500);
const BACKOFF_CAP: Duration = Duration::from_secs(8);

/// A key in use for one request, with where it came from (for messages).
pub(crate) struct KeyInUse {
    pub secret: Secret,
    pub source: KeySource,
}

/// A successful answer.
#[derive(Debug)]
pub(crate) struct Reply {
    pub body: Value,
    /// Attempts made, counting the successful one.
    pub attempts: u32,
}

/// One attempt's failure: the error to report if no retry follows, whether a retry may
/// help, and the delay the server asked for.
struct Failure {
    error: LlmError,
    retry: bool,
    server_delay: Option<Duration>,
}

fn clients() -> &'static Mutex<HashMap<String, Client>> {
    static CLIENTS: OnceLock<Mutex<HashMap<String, Client>>> = OnceLock::new();
    CLIENTS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A client for this configuration (cached: building one loads the system's roots).
/// Loopback URLs bypass every proxy, so `HTTPS_PROXY` never captures a local server.
pub(crate) fn client(r: &Resolved) -> Result<Client, LlmError> {
    let cache_key = format!(
        "{}|{}|{}",
        r.connect_timeout.as_millis(),
        r.loopback,
        r.ca_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
    );
    if let Some(c) = clients().lock().unwrap_or_else(|e| e.into_inner()).get(&cache_key) {
        return Ok(c.clone());
    }
    let mut builder =
        Client::builder().connect_timeout(r.connect_timeout).user_agent(concat!("leash/", env!("CARGO_PKG_VERSION")));
    if r.loopback {
        builder = builder.no_proxy();
    }
    if let Some(path) = &r.ca_file {
        let pem = std::fs::read(path)
            .map_err(|e| LlmError::Config(format!("{}: cannot read {}: {e}", r.setting("ca_file"), path.display())))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
            LlmError::Config(format!("{}: {} is not a PEM certificate file: {e}", r.setting("ca_file"), path.display()))
        })?;
        if certs.is_empty() {
            return Err(LlmError::Config(format!(
                "{}: {} holds no PEM certificate",
                r.setting("ca_file"),
                path.display()
            )));
        }
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
    let c = builder
        .build()
        .map_err(|e| LlmError::Config(format!("providers.{}: cannot set up the HTTP client: {e}", r.name)))?;
    clients().lock().unwrap_or_else(|e| e.into_inner()).insert(cache_key, c.clone());
    Ok(c)
}

/// `scheme://host:port` of a URL, for messages (never a path or a query).
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

pub(crate) fn deadline_error(r: &Resolved) -> LlmError {
    LlmError::Deadline { provider: r.label(), deadline: r.deadline, setting: r.deadline_setting() }
}

/// POSTs `body` as JSON to `url` and returns the 2xx JSON body, retrying as the policy
/// says, until `deadline`. An error `settled` says is final (a refusal of the request's
/// structured-output part, whatever its status) is returned at once: retrying the same
/// body would not change it. `progress` hears of each wait before a retry.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn post_json(
    r: &Resolved,
    url: &Url,
    headers: &HeaderMap,
    body: &Value,
    key: Option<&KeyInUse>,
    deadline: Instant,
    settled: &(dyn Fn(&LlmError) -> bool + Sync),
    progress: Option<&super::Progress>,
) -> Result<Reply, LlmError> {
    let client = client(r)?;
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        if Instant::now() >= deadline {
            return Err(deadline_error(r));
        }
        let exchange = async {
            let resp =
                client.post(url.clone()).headers(headers.clone()).json(body).send().await.map_err(Sent::Connect)?;
            let status = resp.status();
            let resp_headers = resp.headers().clone();
            if resp.content_length().is_some_and(|n| n > MAX_BODY_BYTES as u64) {
                return Err(Sent::TooLarge);
            }
            let bytes = resp.bytes().await.map_err(Sent::Body)?;
            Ok((status, resp_headers, bytes))
        };
        let outcome = match tokio::time::timeout_at(deadline, exchange).await {
            Err(_) => return Err(deadline_error(r)),
            Ok(o) => o,
        };
        let failure = match outcome {
            Ok((status, _, bytes)) if status.is_success() => {
                if bytes.len() > MAX_BODY_BYTES {
                    return Err(too_large(r));
                }
                return match serde_json::from_slice::<Value>(&bytes) {
                    Ok(body) => Ok(Reply { body, attempts: attempt }),
                    Err(e) => Err(LlmError::Malformed {
                        provider: r.label(),
                        message: format!("the body is not JSON ({e}): {}", excerpt(&bytes, key)),
                    }),
                };
            }
            Ok((status, resp_headers, bytes)) => classify(r, status, &resp_headers, &bytes, key, attempt),
            Err(Sent::TooLarge) => return Err(too_large(r)),
            Err(Sent::Connect(e)) => Failure { error: connect_error(r, url, &e), retry: true, server_delay: None },
            Err(Sent::Body(e)) => Failure {
                error: LlmError::Connect {
                    provider: r.name.clone(),
                    url: origin(url),
                    message: "the connection broke while the answer was being read".into(),
                    hint: format!("check the network and the server ({})", innermost(&e)),
                },
                retry: true,
                server_delay: None,
            },
        };
        if !failure.retry || attempt > r.retries || settled(&failure.error) {
            return Err(failure.error);
        }
        let remaining = deadline.saturating_duration_since(Instant::now());
        let delay = match failure.server_delay {
            Some(d) if d > remaining => {
                return Err(match failure.error {
                    LlmError::RateLimited { provider, .. } => LlmError::RateLimited { provider, retry_in: Some(d) },
                    other => other,
                })
            }
            Some(d) => d,
            None => backoff(attempt),
        };
        if delay >= remaining {
            return Err(failure.error);
        }
        if let Some(progress) = progress {
            progress(&format!("{}: asking again in {}", retry_reason(&failure.error), super::error::seconds(&delay)));
        }
        tokio::time::sleep(delay).await;
        if let Some(progress) = progress {
            progress(&format!("asking again (attempt {})", attempt + 1));
        }
    }
}

enum Sent {
    Connect(reqwest::Error),
    Body(reqwest::Error),
    TooLarge,
}

fn too_large(r: &Resolved) -> LlmError {
    LlmError::Malformed { provider: r.label(), message: format!("the answer is larger than {MAX_BODY_BYTES} bytes") }
}

/// The start of a body, for messages, with the key scrubbed out.
fn excerpt(bytes: &[u8], key: Option<&KeyInUse>) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut s: String = text.trim().chars().take(200).collect();
    if text.trim().chars().count() > 200 {
        s.push('…');
    }
    if s.is_empty() {
        s = "(empty)".into();
    }
    match key {
        Some(k) => k.secret.scrub(&s),
        None => s,
    }
}

/// What an error body says, in any of the dialects.
#[derive(Debug, Default)]
pub(crate) struct ErrorInfo {
    /// `error.type` (Anthropic, OpenAI).
    pub kind: String,
    /// `error.code`, or Anthropic's `error.details.error_code`.
    pub code: String,
    pub message: String,
}

pub(crate) fn error_info(bytes: &[u8], key: Option<&KeyInUse>) -> ErrorInfo {
    let text_of = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let mut info = ErrorInfo::default();
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        match v.get("error") {
            Some(Value::String(s)) => info.message = s.clone(),
            Some(e @ Value::Object(_)) => {
                info.kind = text_of(e.get("type"));
                info.code = text_of(e.get("code"));
                if info.code.is_empty() {
                    info.code = text_of(e.get("details").and_then(|d| d.get("error_code")));
                }
                info.message = text_of(e.get("message"));
            }
            _ => info.message = text_of(v.get("message")),
        }
    }
    if info.message.is_empty() {
        info.message = excerpt(bytes, None);
    }
    let mut m: String = info.message.trim().chars().take(300).collect();
    if let Some(k) = key {
        m = k.secret.scrub(&m);
    }
    info.message = m;
    info
}

/// Decides what a non-2xx answer means.
fn classify(
    r: &Resolved,
    status: StatusCode,
    headers: &HeaderMap,
    bytes: &[u8],
    key: Option<&KeyInUse>,
    attempts: u32,
) -> Failure {
    let info = error_info(bytes, key);
    let provider = r.label();
    let code = status.as_u16();
    let is_quota = code == 402
        || ["insufficient_quota", "billing_error", "enforced_spend_limit_reached", "billing_hard_limit_reached"]
            .iter()
            .any(|q| info.kind == *q || info.code == *q)
        || info.message.contains("exceeded your current quota");
    let should_retry =
        headers.get("x-should-retry").and_then(|v| v.to_str().ok()).map(|v| v.trim().eq_ignore_ascii_case("true"));
    let server_delay = retry_after(headers);
    let fail = |error| Failure { error, retry: false, server_delay: None };

    if is_quota {
        return fail(LlmError::Quota { provider, status: code, message: info.message });
    }
    match code {
        401 => {
            let key_text = match key {
                Some(k) => {
                    super::keys::forget(&k.source);
                    k.source.describe()
                }
                None => format!("the request without an API key (set {})", r.setting("api_key_env")),
            };
            fail(LlmError::Auth { provider, status: code, key: key_text })
        }
        403 => fail(LlmError::Http {
            provider: provider.clone(),
            status: code,
            message: info.message,
            hint: format!("; the key may lack access to model “{}” or to this region", r.model),
        }),
        404 => {
            let hint = match r.kind {
                ProviderKind::Ollama => format!("; run `ollama pull {}` or check {}", r.model, r.setting("model")),
                _ => format!("; check {} (“{}”) and {}", r.setting("model"), r.model, r.setting("url")),
            };
            fail(LlmError::Http { provider, status: code, message: info.message, hint })
        }
        // A server that says the request itself is invalid (a validation error, as
        // llama.cpp's Python server sends with 500) gives the same answer every time.
        500..=599 if should_retry != Some(true) && rejects_the_request(&info) => fail(LlmError::Http {
            provider,
            status: code,
            message: info.message,
            hint: "; the server rejects the request itself, so it was not retried".into(),
        }),
        408 | 409 | 429 | 500..=599 if should_retry != Some(false) => {
            let error = if code == 429 {
                LlmError::RateLimited { provider, retry_in: server_delay }
            } else {
                LlmError::Server { provider, status: code, message: info.message, attempts }
            };
            Failure { error, retry: true, server_delay }
        }
        _ if should_retry == Some(true) && !matches!(code, 400 | 401 | 403 | 404 | 413 | 422) => Failure {
            error: LlmError::Server { provider, status: code, message: info.message, attempts },
            retry: true,
            server_delay,
        },
        413 => fail(LlmError::Http {
            provider,
            status: code,
            message: info.message,
            hint: "; the request is too large: lower the shortlist limit".into(),
        }),
        _ => fail(LlmError::Http { provider, status: code, message: info.message, hint: String::new() }),
    }
}

/// Whether an error body says the request is invalid (so sending it again cannot help):
/// an `invalid_request_error`, or a request-validation message (pydantic's, as
/// llama-cpp-python's server answers with 500).
fn rejects_the_request(info: &ErrorInfo) -> bool {
    let m = info.message.to_ascii_lowercase();
    info.kind == "invalid_request_error"
        || info.code == "invalid_request_error"
        || ["validation error", "input should be", "field required", "extra inputs are not permitted"]
            .iter()
            .any(|w| m.contains(w))
}

/// The delay a server asks for: `retry-after-ms`, then `retry-after` in seconds or as an
/// HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let v = get("retry-after")?;
    if let Ok(s) = v.parse::<f64>() {
        return (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s));
    }
    let when = parse_http_date(v)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(when.saturating_sub(now)))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` → seconds since the epoch.
pub(crate) fn parse_http_date(s: &str) -> Option<u64> {
    let rest = s.split_once(',').map(|(_, r)| r).unwrap_or(s);
    let parts: Vec<&str> = rest.split_whitespace().collect();
    if parts.len() != 5 || !parts[4].eq_ignore_ascii_case("GMT") {
        return None;
    }
    let day: u64 = parts[0].parse().ok()?;
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let month = MONTHS.iter().position(|m| parts[1].eq_ignore_ascii_case(m))? as u64 + 1;
    let year: i64 = parts[2].parse().ok().filter(|y| (1970..=9999).contains(y))?;
    let hms: Vec<u64> = parts[3].split(':').map(|x| x.parse().ok()).collect::<Option<Vec<_>>>()?;
    if hms.len() != 3 || !(1..=31).contains(&day) || hms[0] > 23 || hms[1] > 59 || hms[2] > 60 {
        return None;
    }
    // Days from the civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    let secs = days * 86400 + (hms[0] * 3600 + hms[1] * 60 + hms[2]) as i64;
    u64::try_from(secs).ok()
}

/// A number in [0, 1) from the clock's nanoseconds (no rand crate needed for jitter).
fn jitter() -> f64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    // Scramble the low bits so consecutive calls differ.
    let x = (nanos as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    (x % 1_000_000) as f64 / 1_000_000.0
}

/// What a retry waits out, in a few words for the progress line.
fn retry_reason(e: &LlmError) -> String {
    match e {
        LlmError::RateLimited { .. } => "rate-limited (429)".to_string(),
        LlmError::Server { status, .. } | LlmError::Http { status, .. } => format!("the server answered {status}"),
        LlmError::Connect { message, .. } => message.clone(),
        _ => "the request failed".to_string(),
    }
}

/// The wait before retry number `attempt` (1-based).
pub(crate) fn backoff(attempt: u32) -> Duration {
    let exp = BACKOFF_BASE.saturating_mul(1u32 << attempt.saturating_sub(1).min(8));
    exp.min(BACKOFF_CAP).mul_f64(1.0 - 0.25 * jitter())
}

/// The innermost error's text (reqwest's outer text repeats the URL).
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cur = err.source();
    }
    None
}

/// A connection failure, in words that say what to check.
fn connect_error(r: &Resolved, url: &Url, e: &reqwest::Error) -> LlmError {
    let inner = innermost(e);
    let lower = inner.to_ascii_lowercase();
    let (message, hint) = if io_kind(e) == Some(std::io::ErrorKind::ConnectionRefused)
        || lower.contains("connection refused")
    {
        ("connection refused".to_string(), "is the server running?".to_string())
    } else if e.is_timeout() || io_kind(e) == Some(std::io::ErrorKind::TimedOut) {
        (
            format!("no connection within {}", super::error::seconds(&r.connect_timeout)),
            format!(
                "check the url, the network and any proxy (HTTPS_PROXY), or raise {}",
                r.setting("connect_timeout_ms")
            ),
        )
    } else if lower.contains("dns")
        || lower.contains("lookup")
        || lower.contains("resolve")
        || lower.contains("name or service")
    {
        ("the host name could not be resolved".to_string(), format!("check {} and the network", r.setting("url")))
    } else if lower.contains("certificate") || lower.contains("unknownissuer") || lower.contains("tls") {
        (
            format!("the TLS connection failed ({inner})"),
            format!("behind a company proxy, set {} to its CA certificate (PEM)", r.setting("ca_file")),
        )
    } else {
        (format!("could not connect ({inner})"), "check the url, the network and any proxy (HTTPS_PROXY)".to_string())
    };
    let hint = match (r.loopback, proxy_in_env(url)) {
        (false, Some(var)) => format!("{hint} (requests go through the proxy in {var})"),
        _ => hint,
    };
    // The url is said already: the provider's name, not its label ("ollama at host:port").
    LlmError::Connect { provider: r.name.clone(), url: origin(url), message, hint }
}

/// The environment variable naming the proxy a request to `url` goes through, if any.
fn proxy_in_env(url: &Url) -> Option<&'static str> {
    let names: &[&'static str] = if url.scheme() == "https" {
        &["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
    } else {
        &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
    };
    names.iter().copied().find(|n| std::env::var_os(n).is_some_and(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn a_bad_ca_file_is_a_config_error() {
        // Removed when dropped, also when an assertion fails.
        let mut file = tempfile::Builder::new().prefix("leash-test-ca-").tempfile().unwrap();
        std::io::Write::write_all(&mut file, b"not a certificate").unwrap();
        let path = file.into_temp_path();
        let mut c = crate::llm::ProviderConfig::named("anthropic");
        c.ca_file = Some(path.display().to_string());
        let err = client(&c.resolve().unwrap()).unwrap_err().to_string();
        assert!(err.starts_with("providers.anthropic.ca_file:") && err.contains("no PEM certificate"), "{err}");
        c.ca_file = Some("/nonexistent/leash-ca.pem".into());
        let err = client(&c.resolve().unwrap()).unwrap_err().to_string();
        assert!(err.contains("cannot read /nonexistent/leash-ca.pem"), "{err}");
    }

    #[test]
    fn http_dates() {
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784111777));
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(parse_http_date("yesterday"), None);
        assert_eq!(parse_http_date("Thu, 01 Jan 99999999999999999 00:00:00 GMT"), None);
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("Thu, 01 Jan 1970 00:00:00 GMT"));
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        for attempt in 1..12 {
            let d = backoff(attempt);
            let full = BACKOFF_BASE.saturating_mul(1 << (attempt - 1).min(8)).min(BACKOFF_CAP);
            assert!(d <= full && d >= full.mul_f64(0.75), "{attempt}: {d:?}");
        }
    }

    #[test]
    fn error_bodies_of_every_dialect() {
        let a = error_info(br#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down","details":{"error_code":"enforced_spend_limit_reached"}}}"#, None);
        assert_eq!(
            (a.kind.as_str(), a.code.as_str(), a.message.as_str()),
            ("rate_limit_error", "enforced_spend_limit_reached", "slow down")
        );
        let o = error_info(br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#, None);
        assert_eq!(o.kind, "insufficient_quota");
        let l = error_info(br#"{"error":"model 'x' not found, try pulling it first"}"#, None);
        assert!(l.message.contains("not found"));
        let raw = error_info(b"<html>Bad Gateway</html>", None);
        assert_eq!(raw.message, "<html>Bad Gateway</html>");
    }
}
