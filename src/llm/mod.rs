//! Model providers and the planning glue.
//!
//! [`plan`] turns a request into a validated plan: rank → prompt → provider → parse →
//! validate. Each provider speaks one wire dialect behind the [`Provider`] trait
//! (`anthropic`, `openai`-compatible, `ollama`); `offline` answers direct requests from
//! the ranker alone and is the default when nothing is configured.
//!
//! One deadline covers a whole request, key command and retries included (see [`http`]
//! for the retry policy). Cancelling drops the future, which closes the connection. A
//! key is read when a request is made, lives in a [`keys::Secret`], and never reaches an
//! error, a log record or `Debug` output.

pub mod anthropic;
pub mod config;
pub mod error;
pub mod http;
pub mod keys;
pub mod offline;
pub mod ollama;
pub mod openai;

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Url;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::catalog::Catalog;
use crate::policy::Policy;
use crate::prompt::{self, Context};
use crate::rank::{self, Mode};
use crate::runtime::{self, CancelToken, JobHandle, RuntimeError};
use crate::validate::{self, ValidatedPlan};

pub use config::{ProviderConfig, ProviderKind, Structured};
pub use error::LlmError;
pub use keys::Secret;

use config::{KeyPlan, Resolved};
use http::KeyInUse;

/// What a provider is asked: the prompt's two messages and the plan's schema.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub system: &'a str,
    pub user: &'a str,
    pub schema: &'a Value,
}

impl<'a> ModelRequest<'a> {
    pub fn from_prompt(p: &'a prompt::Prompt) -> ModelRequest<'a> {
        ModelRequest { system: &p.system, user: &p.user, schema: &p.schema }
    }
}

/// The model's answer: text to parse, or an object (tool input, offline plan).
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    Text(String),
    Object(Map<String, Value>),
}

impl Output {
    /// The answer as text, for the log.
    pub fn raw(&self) -> String {
        match self {
            Output::Text(t) => t.clone(),
            Output::Object(m) => serde_json::to_string(m).unwrap_or_default(),
        }
    }
}

/// Token counts, when the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
}

/// One completed model call.
#[derive(Debug, Clone)]
pub struct Answer {
    pub output: Output,
    pub usage: Usage,
    /// HTTP attempts made (retries and a structured-output downgrade count).
    pub attempts: u32,
    pub elapsed: Duration,
    /// The structured-output mode the answer came back under.
    pub structured: Structured,
    /// The model as the server names it.
    pub model: String,
}

/// A model endpoint.
pub trait Provider {
    /// The configured name (`anthropic`, `groq`…).
    fn name(&self) -> &str;
    fn model(&self) -> &str;
    /// Asks the model; gives up at `deadline`. Dropping the future cancels the request.
    fn complete(
        &self,
        request: &ModelRequest<'_>,
        deadline: Instant,
    ) -> impl Future<Output = Result<Answer, LlmError>> + Send;
}

/// A provider of any dialect.
#[derive(Debug, Clone)]
pub enum AnyProvider {
    Anthropic(anthropic::Anthropic),
    Openai(openai::OpenAi),
    Ollama(ollama::Ollama),
}

impl AnyProvider {
    /// The provider a configuration names; `None` for the offline planner.
    pub fn new(config: &ProviderConfig) -> Result<Option<AnyProvider>, LlmError> {
        if config.resolved_kind()? == ProviderKind::Offline {
            return Ok(None);
        }
        let r = config.resolve()?;
        Ok(Some(match r.kind {
            ProviderKind::Anthropic => AnyProvider::Anthropic(anthropic::Anthropic::new(r)),
            ProviderKind::Openai => AnyProvider::Openai(openai::OpenAi::new(r)),
            ProviderKind::Ollama => AnyProvider::Ollama(ollama::Ollama::new(r)),
            ProviderKind::Offline => return Ok(None),
        }))
    }

    fn resolved(&self) -> &Resolved {
        match self {
            AnyProvider::Anthropic(p) => p.resolved(),
            AnyProvider::Openai(p) => p.resolved(),
            AnyProvider::Ollama(p) => p.resolved(),
        }
    }

    /// The whole-request deadline this provider is configured with.
    pub fn deadline(&self) -> Duration {
        self.resolved().deadline
    }
}

impl Provider for AnyProvider {
    fn name(&self) -> &str {
        &self.resolved().name
    }

    fn model(&self) -> &str {
        &self.resolved().model
    }

    async fn complete(&self, request: &ModelRequest<'_>, deadline: Instant) -> Result<Answer, LlmError> {
        match self {
            AnyProvider::Anthropic(p) => p.complete(request, deadline).await,
            AnyProvider::Openai(p) => p.complete(request, deadline).await,
            AnyProvider::Ollama(p) => p.complete(request, deadline).await,
        }
    }
}

macro_rules! resolved_accessor {
    ($($t:ty),*) => {$(
        impl $t {
            pub(crate) fn resolved(&self) -> &Resolved {
                &self.r
            }
        }
    )*};
}
resolved_accessor!(anthropic::Anthropic, openai::OpenAi, ollama::Ollama);

/// Asks the configured provider once (with its retries and deadline), cancellable.
pub async fn complete(
    config: &ProviderConfig,
    request: &ModelRequest<'_>,
    cancel: &CancelToken,
) -> Result<Answer, LlmError> {
    let Some(provider) = AnyProvider::new(config)? else {
        return Err(LlmError::Config("the offline planner takes no prompt; use llm::plan".into()));
    };
    let deadline = Instant::now() + provider.deadline();
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(LlmError::Cancelled),
        r = provider.complete(request, deadline) => r,
    }
}

/// `base` + `/` + `suffix`, keeping the base's path and dropping its query.
pub(crate) fn join_url(base: &Url, suffix: &str) -> Url {
    let mut u = base.clone();
    let path = format!("{}/{}", base.path().trim_end_matches('/'), suffix);
    u.set_path(&path);
    u
}

/// The key for a request, read now (never at startup).
pub(crate) async fn key_for(r: &Resolved, deadline: Instant) -> Result<Option<KeyInUse>, LlmError> {
    let (source, required) = match &r.key {
        KeyPlan::None => return Ok(None),
        KeyPlan::Required(s) => (s, true),
        KeyPlan::Optional(s) => (s, false),
    };
    match keys::read(source, &r.name, deadline).await? {
        Some(secret) => Ok(Some(KeyInUse { secret, source: source.clone() })),
        None if required => Err(LlmError::NoKey { provider: r.name.clone(), hint: source.missing_hint(&r.name) }),
        None => Ok(None),
    }
}

fn downgrades() -> &'static Mutex<HashSet<String>> {
    static SET: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    SET.get_or_init(|| Mutex::new(HashSet::new()))
}

fn downgrade_key(r: &Resolved) -> String {
    format!("{}|{}|{}", r.kind.as_str(), r.base, r.model)
}

/// Whether this endpoint and model rejected schema output earlier in the session.
pub(crate) fn downgraded(r: &Resolved) -> bool {
    downgrades().lock().unwrap_or_else(|e| e.into_inner()).contains(&downgrade_key(r))
}

pub(crate) fn remember_downgrade(r: &Resolved) {
    downgrades().lock().unwrap_or_else(|e| e.into_inner()).insert(downgrade_key(r));
}

/// Posts the body built for `mode`. When the server rejects JSON-schema output
/// (`rejects`), falls back once to `fallback` and remembers that for the session.
/// Returns the reply, the mode that answered and the attempts the fallback added.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn post_with_fallback(
    r: &Resolved,
    url: &Url,
    headers: &reqwest::header::HeaderMap,
    key: Option<&KeyInUse>,
    deadline: Instant,
    mut mode: Structured,
    fallback: Structured,
    rejects: fn(&LlmError) -> bool,
    body: impl Fn(Structured) -> Value,
) -> Result<(http::Reply, Structured, u32), LlmError> {
    let mut extra = 0;
    loop {
        match http::post_json(r, url, headers, &body(mode), key, deadline).await {
            Ok(reply) => return Ok((reply, mode, extra)),
            Err(e) if mode == Structured::JsonSchema && mode != fallback && rejects(&e) => {
                extra += 1;
                remember_downgrade(r);
                mode = fallback;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The answer from a provider's reply: its output and usage as `read` found them, the
/// model the server names (else the configured one), attempts and time.
pub(crate) fn answer(
    r: &Resolved,
    reply: &http::Reply,
    read: (Output, Usage),
    extra_attempts: u32,
    started: Instant,
    structured: Structured,
) -> Answer {
    let (output, usage) = read;
    let model = reply.body.get("model").and_then(Value::as_str).unwrap_or(&r.model).to_string();
    Answer { output, usage, attempts: extra_attempts + reply.attempts, elapsed: started.elapsed(), structured, model }
}

/// The configured headers plus the key: in `r.key_header` as it is when one is
/// configured, else in `default` (`Authorization: Bearer …` when `bearer`). The value is
/// marked sensitive so no debug output shows it.
pub(crate) fn headers_with_key(
    r: &Resolved,
    key: Option<&KeyInUse>,
    default: reqwest::header::HeaderName,
    bearer: bool,
) -> Result<reqwest::header::HeaderMap, LlmError> {
    let mut h = r.headers.clone();
    if let Some(k) = key {
        let (name, value) = match &r.key_header {
            Some(name) => (name.clone(), k.secret.expose().to_string()),
            None if bearer => (default, format!("Bearer {}", k.secret.expose())),
            None => (default, k.secret.expose().to_string()),
        };
        let mut v = reqwest::header::HeaderValue::from_str(&value)
            .map_err(|_| LlmError::Key(format!("{} contains characters a header cannot carry", k.source.describe())))?;
        v.set_sensitive(true);
        h.insert(name, v);
    }
    Ok(h)
}

/// Milliseconds spent in each stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    pub rank_ms: f64,
    pub prompt_ms: f64,
    pub model_ms: f64,
    pub validate_ms: f64,
    pub total_ms: f64,
}

/// One exchange, for the log: one JSON line, never the key.
#[derive(Debug, Clone, Serialize)]
pub struct LogRecord {
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    pub request: String,
    pub provider: String,
    pub kind: &'static str,
    pub model: String,
    pub structured: &'static str,
    pub shortlist: usize,
    pub attempts: u32,
    pub timings: Timings,
    pub usage: Usage,
    /// The model's answer as it came (capped at 64 KiB).
    pub raw: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<ValidatedPlan>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<LogError>,
}

/// A failure in the log.
#[derive(Debug, Clone, Serialize)]
pub struct LogError {
    pub code: &'static str,
    pub message: String,
}

impl LogRecord {
    /// The record as one JSON line (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| format!("{{\"error\":{{\"code\":\"log\",\"message\":{:?}}}}}", e.to_string()))
    }

    /// A record for a request that failed.
    pub fn failure(request: &str, config: &ProviderConfig, error: &LlmError, elapsed: Duration) -> LogRecord {
        let kind = config.resolved_kind().map(ProviderKind::as_str).unwrap_or("unknown");
        LogRecord {
            time_ms: now_ms(),
            request: request.to_string(),
            provider: config.display_name(),
            kind,
            model: config.model.clone().unwrap_or_default(),
            structured: "",
            shortlist: 0,
            attempts: 0,
            timings: Timings { total_ms: ms(elapsed), ..Timings::default() },
            usage: Usage::default(),
            raw: String::new(),
            plan: None,
            error: Some(LogError { code: error.code(), message: error.to_string() }),
        }
    }
}

/// A validated plan and the record of how it was made.
#[derive(Debug, Clone, Serialize)]
pub struct PlanOutcome {
    pub plan: ValidatedPlan,
    pub log: LogRecord,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

const MAX_RAW_LOG: usize = 64 << 10;

fn cap(mut s: String) -> String {
    if s.len() > MAX_RAW_LOG {
        let mut end = MAX_RAW_LOG;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

/// Turns `request` into a validated plan: rank the catalog (`limit` entries), build the
/// prompt, ask the provider (or the offline planner), parse and validate. Cancelling
/// `cancel` ends the call at once with [`LlmError::Cancelled`].
pub async fn plan(
    request: &str,
    catalog: &Catalog,
    limit: usize,
    context: &Context,
    config: &ProviderConfig,
    policy: &Policy,
    cancel: &CancelToken,
) -> Result<PlanOutcome, LlmError> {
    let started = std::time::Instant::now();
    if cancel.is_cancelled() {
        return Err(LlmError::Cancelled);
    }
    let kind = config.resolved_kind()?;
    let provider = AnyProvider::new(config)?;

    let t = std::time::Instant::now();
    let shortlist = rank::rank(catalog, request, limit, Mode::Any);
    let rank_ms = ms(t.elapsed());
    let t = std::time::Instant::now();
    let prompt = prompt::build(request, &shortlist, context);
    let prompt_ms = ms(t.elapsed());
    let shortlist_len = shortlist.len();

    let t = std::time::Instant::now();
    let answer = match &provider {
        None => offline::answer(request, catalog, &shortlist),
        Some(p) => {
            let deadline = Instant::now() + p.deadline();
            let req = ModelRequest::from_prompt(&prompt);
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                r = p.complete(&req, deadline) => r?,
            }
        }
    };
    let model_ms = ms(t.elapsed());
    let provider_name = config.display_name();

    let t = std::time::Instant::now();
    let parsed = match &answer.output {
        Output::Text(text) => crate::plan::parse(text),
        Output::Object(map) => crate::plan::plan_from_object(map),
    };
    let parsed = parsed.map_err(|source| LlmError::NotAPlan { provider: provider_name.clone(), source })?;
    let mut validated = validate::validate(&parsed, catalog, policy);
    crate::range::apply(&mut validated, catalog, context.range);
    let validate_ms = ms(t.elapsed());

    let log = LogRecord {
        time_ms: now_ms(),
        request: request.to_string(),
        provider: provider_name,
        kind: kind.as_str(),
        model: answer.model.clone(),
        structured: answer.structured.as_str(),
        shortlist: shortlist_len,
        attempts: answer.attempts,
        timings: Timings { rank_ms, prompt_ms, model_ms, validate_ms, total_ms: ms(started.elapsed()) },
        usage: answer.usage,
        raw: cap(answer.output.raw()),
        plan: Some(validated.clone()),
        error: None,
    };
    Ok(PlanOutcome { plan: validated, log })
}

/// The job a planning request runs as.
pub type PlanJob = JobHandle<Result<PlanOutcome, LlmError>>;

/// Starts [`plan`] on the runtime and returns at once (the editor's `plan_start`).
/// `JobHandle::cancel` drops the request; the result is then `JobResult::Cancelled`.
pub fn plan_start(
    request: String,
    catalog: Arc<Catalog>,
    limit: usize,
    context: Context,
    config: ProviderConfig,
    policy: Policy,
) -> Result<PlanJob, RuntimeError> {
    runtime::spawn_cancellable(move |cancel| async move {
        plan(&request, &catalog, limit, &context, &config, &policy, &cancel).await
    })
}

/// Runs [`plan`] to completion on the runtime, blocking this thread (the CLI's `leash
/// plan`). Must not be called from inside the runtime.
pub fn plan_blocking(
    request: &str,
    catalog: &Catalog,
    limit: usize,
    context: &Context,
    config: &ProviderConfig,
    policy: &Policy,
    cancel: &CancelToken,
) -> Result<PlanOutcome, LlmError> {
    runtime::block_on(plan(request, catalog, limit, context, config, policy, cancel))
        .map_err(|e| LlmError::Internal(e.to_string()))?
}
