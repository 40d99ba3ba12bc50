//! Model providers: one wire dialect each (`anthropic`, `openai`-compatible, `ollama`),
//! each saying only what its format decides (`WireFormat`) behind the [`Provider`]
//! trait, and the structured-output ladder they share. The planning pipeline that uses
//! them is [`crate::planner`] (with its offline planner, which needs no provider).
//!
//! One deadline covers a whole request, key command and retries included (see [`http`]
//! for the retry policy). Cancelling drops the future, which closes the connection. A
//! key is read when a request is made, lives in a [`keys::Secret`], and never reaches an
//! error, a log record or `Debug` output.

pub mod anthropic;
pub mod error;
pub mod http;
pub mod keys;
pub mod ollama;
pub mod openai;
pub mod provider_config;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::Url;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::prompt;
use crate::runtime::CancelToken;

pub use error::LlmError;
pub use keys::Secret;
pub use provider_config::{KeyFrom, KeyReport, ProviderConfig, ProviderKind, SettingsIn, Structured};

use http::KeyInUse;
use provider_config::{KeyPlan, Resolved};

/// Called from the planner's thread with one short line when a request reaches a stage
/// worth telling the user about (`looking up laststatus`, `rate-limited (429): asking
/// again in 2 s`).
pub type Progress = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// What a provider is asked: the prompt's two messages and the plan's schemas (the
/// compact one is for providers that refuse the full one), and who hears of a wait
/// before a retry.
#[derive(Clone, Copy)]
pub struct ModelRequest<'a> {
    pub system: &'a str,
    pub user: &'a str,
    pub schema: &'a Value,
    pub compact_schema: &'a Value,
    pub progress: Option<&'a Progress>,
}

impl std::fmt::Debug for ModelRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRequest")
            .field("system", &self.system)
            .field("user", &self.user)
            .field("schema", &self.schema)
            .field("compact_schema", &self.compact_schema)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl<'a> ModelRequest<'a> {
    pub fn from_prompt(p: &'a prompt::Prompt) -> ModelRequest<'a> {
        ModelRequest {
            system: &p.system,
            user: &p.user,
            schema: &p.schema,
            compact_schema: &p.compact_schema,
            progress: None,
        }
    }

    /// The schema to send when asking the way `ask` says.
    pub(crate) fn schema_for(&self, ask: Ask) -> &'a Value {
        if ask.compact {
            self.compact_schema
        } else {
            self.schema
        }
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
    /// How structured output was asked for when the answer came back.
    pub ask: Ask,
    /// The model as the server names it.
    pub model: String,
    /// The answer stopped at `max_tokens`: it is never completed or used as a plan, only
    /// reported (with the text, to show whether the model was looping).
    pub truncated: bool,
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

/// What one provider's wire format decides: where to post, with which headers, the body
/// for an [`Ask`], how to read the answer, and which structured-output modes to step down
/// through. The key, the retries, the deadline and the answer's bookkeeping are the same
/// for every format: the [`Provider`] impl below.
pub(crate) trait WireFormat: Sync {
    fn resolved(&self) -> &Resolved;
    fn ladder(&self) -> &'static Ladder;
    fn url(&self) -> Url;
    fn headers(&self, key: Option<&KeyInUse>) -> Result<HeaderMap, LlmError>;
    fn body(&self, req: &ModelRequest<'_>, ask: Ask) -> Value;
    fn read(&self, body: &Value) -> Result<Read, LlmError>;
}

impl<W: WireFormat> Provider for W {
    fn name(&self) -> &str {
        &self.resolved().name
    }

    fn model(&self) -> &str {
        &self.resolved().model
    }

    async fn complete(&self, req: &ModelRequest<'_>, deadline: Instant) -> Result<Answer, LlmError> {
        let started = Instant::now();
        let r = self.resolved();
        let key = key_for(r, deadline).await?;
        let headers = self.headers(key.as_ref())?;
        let (reply, ask, extra) =
            post_with_fallback(r, &self.url(), &headers, key.as_ref(), deadline, self.ladder(), req.progress, |ask| {
                self.body(req, ask)
            })
            .await?;
        Ok(answer(r, &reply, self.read(&reply.body)?, extra, started, ask))
    }
}

/// Asks the configured provider once (with its retries and deadline), cancellable.
pub async fn complete(
    config: &ProviderConfig,
    request: &ModelRequest<'_>,
    cancel: &CancelToken,
) -> Result<Answer, LlmError> {
    let Some(provider) = AnyProvider::new(config)? else {
        return Err(LlmError::Config("the offline planner takes no prompt; use planner::plan".into()));
    };
    let deadline = Instant::now() + provider.deadline();
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(LlmError::Cancelled),
        r = provider.complete(request, deadline) => r,
    }
}

/// The URL of a provider's endpoint `path` under the configured `base`: `base` itself
/// when it already ends with `path`, else `path` joined to it, after `prefix` unless the
/// base ends with that (`http://host` and `http://host/v1` both give
/// `http://host/v1/messages`).
pub(crate) fn endpoint(base: &Url, prefix: Option<&str>, path: &str) -> Url {
    let have = base.path().trim_end_matches('/');
    if have.ends_with(&format!("/{path}")) {
        return base.clone();
    }
    match prefix {
        Some(p) if !have.ends_with(&format!("/{p}")) => join_url(base, &format!("{p}/{path}")),
        _ => join_url(base, path),
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
        None if required => {
            Err(LlmError::NoKey { provider: r.label(), hint: source.missing_hint(&|field| r.setting(field)) })
        }
        None => Ok(None),
    }
}

/// Whether the key a request will need is where the configuration says, checked before
/// the user types a request: an unset variable or a missing or empty key file is the
/// error planning would end with. A key command is not run here (it may prompt or be
/// slow); planning reads it.
pub fn check_key(config: &ProviderConfig) -> Result<(), LlmError> {
    if config.resolved_kind()? == ProviderKind::Offline {
        return Ok(());
    }
    let r = config.resolve()?;
    let KeyPlan::Required(source) = &r.key else { return Ok(()) };
    let present = match source {
        keys::KeySource::Env(var) => std::env::var(var).is_ok_and(|v| !v.trim().is_empty()),
        keys::KeySource::File(path) => match std::fs::read_to_string(path) {
            Ok(text) => !text.trim().is_empty(),
            Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        },
        keys::KeySource::Command(_) => true,
    };
    if present {
        Ok(())
    } else {
        Err(LlmError::NoKey { provider: r.label(), hint: source.missing_hint(&|field| r.setting(field)) })
    }
}

/// How a request asks for structure: the mode, whether with the compact schema, and (for
/// `json_object`) whether the schema rides along as `response_format.schema`, the way
/// llama.cpp's servers take one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ask {
    pub mode: Structured,
    pub compact: bool,
    pub object_schema: bool,
}

impl Ask {
    /// Asking as configured: the mode with the full schema.
    pub(crate) fn configured(mode: Structured) -> Ask {
        Ask { mode, compact: false, object_schema: false }
    }

    /// Whether a schema is sent at all (so a compact one can help).
    fn sends_schema(self) -> bool {
        matches!(self.mode, Structured::JsonSchema | Structured::Tool) || self.object_schema
    }

    /// `json_schema`, `json_schema (compact)`, `json_object (schema)`, `json_object`, …:
    /// how the answer was asked for, in the log.
    pub fn label(self) -> &'static str {
        match (self.mode, self.object_schema, self.compact) {
            (Structured::JsonSchema, _, false) => "json_schema",
            (Structured::JsonSchema, _, true) => "json_schema (compact)",
            (Structured::JsonObject, true, false) => "json_object (schema)",
            (Structured::JsonObject, true, true) => "json_object (compact schema)",
            (Structured::JsonObject, false, _) => "json_object",
            (Structured::Tool, _, false) => "tool",
            (Structured::Tool, _, true) => "tool (compact)",
            (Structured::None, _, _) => "none",
        }
    }
}

/// What a refusal of the structured-output request is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// The schema is too large or uses something the provider does not take: the compact
    /// schema may pass.
    Schema,
    /// The mode itself is not supported: step down to the next one.
    Mode,
}

/// How one dialect steps down: which refusals are about structured output, and the mode
/// below each one.
pub(crate) struct Ladder {
    /// Whether an error (of any status) refuses the structured-output request, and how.
    pub rejection: fn(&LlmError) -> Option<Rejection>,
    /// The next way of asking down; `None` at the bottom.
    pub below: fn(Ask) -> Option<Ask>,
}

/// Words in an error that say the schema itself is too much for the provider. ("Extra
/// inputs are not permitted" is not one: it refuses the field, so the mode steps down.)
const SCHEMA_TOO_MUCH: &[&str] = &[
    "too large",
    "too complex",
    "too many",
    "too long",
    "grammar",
    "anyof",
    "identical first keys",
    "exceeds",
    "limit",
    "pattern",
    "minimum",
    "maximum",
];

/// A rejection when the error is an answer that names one of `words` (the provider's
/// structured-output parameters), whatever its status: a schema rejection when it also
/// says the schema is too much, else a rejection of the mode.
pub(crate) fn rejection_naming(e: &LlmError, words: &[&str]) -> Option<Rejection> {
    let message = match e {
        LlmError::Http { message, .. } | LlmError::Server { message, .. } => message.to_ascii_lowercase(),
        _ => return None,
    };
    if !words.iter().any(|w| message.contains(w)) {
        return None;
    }
    if SCHEMA_TOO_MUCH.iter().any(|w| message.contains(w)) {
        Some(Rejection::Schema)
    } else {
        Some(Rejection::Mode)
    }
}

/// The way of asking each endpoint settled on this session, after a step down.
fn settled() -> &'static Mutex<HashMap<String, Ask>> {
    static MAP: OnceLock<Mutex<HashMap<String, Ask>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(HashMap::new()))
}

fn settled_key(r: &Resolved) -> String {
    format!("{}|{}|{}|{:?}", r.kind.as_str(), r.base, r.model, r.structured)
}

/// How to ask this endpoint first: where an earlier request settled, else as configured.
pub(crate) fn first_ask(r: &Resolved) -> Ask {
    settled()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&settled_key(r))
        .copied()
        .unwrap_or(Ask::configured(r.structured))
}

fn settle(r: &Resolved, ask: Ask) {
    settled().lock().unwrap_or_else(|e| e.into_inner()).insert(settled_key(r), ask);
}

/// Posts the body built for each way of asking, stepping down when the provider refuses
/// the structured-output request (whatever the status): the full schema, then the
/// compact one when the schema was too much, then each mode below, down to none. Where
/// it settles is remembered for the session, so later requests start there. A refusal
/// is never retried (it would not change). Returns the reply, how it was asked, and the
/// attempts the steps added.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn post_with_fallback(
    r: &Resolved,
    url: &Url,
    headers: &reqwest::header::HeaderMap,
    key: Option<&KeyInUse>,
    deadline: Instant,
    ladder: &Ladder,
    progress: Option<&Progress>,
    body: impl Fn(Ask) -> Value,
) -> Result<(http::Reply, Ask, u32), LlmError> {
    let mut ask = first_ask(r);
    let mut extra = 0;
    let final_error = |e: &LlmError| (ladder.rejection)(e).is_some();
    loop {
        match http::post_json(r, url, headers, &body(ask), key, deadline, &final_error, progress).await {
            Ok(reply) => {
                if ask != Ask::configured(r.structured) {
                    settle(r, ask);
                }
                return Ok((reply, ask, extra));
            }
            Err(e) => {
                let next = match (ladder.rejection)(&e) {
                    Some(Rejection::Schema) if ask.sends_schema() && !ask.compact => Some(Ask { compact: true, ..ask }),
                    Some(_) => (ladder.below)(ask),
                    None => None,
                };
                match next {
                    Some(n) => {
                        extra += 1;
                        ask = n;
                    }
                    None => return Err(e),
                }
            }
        }
    }
}

/// The answer from a provider's reply: its output and usage as `read` found them, the
/// model the server names (else the configured one), attempts and time.
pub(crate) fn answer(
    r: &Resolved,
    reply: &http::Reply,
    read: Read,
    extra_attempts: u32,
    started: Instant,
    ask: Ask,
) -> Answer {
    let model = reply.body.get("model").and_then(Value::as_str).unwrap_or(&r.model).to_string();
    Answer {
        output: read.output,
        usage: read.usage,
        attempts: extra_attempts + reply.attempts,
        elapsed: started.elapsed(),
        ask,
        model,
        truncated: read.truncated,
    }
}

/// What a dialect's reader found in a 2xx body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Read {
    pub output: Output,
    pub usage: Usage,
    /// Stopped at `max_tokens` (`length`, `max_tokens`): the output is whatever came.
    pub truncated: bool,
}

/// Whether a text ends by repeating itself: the same span of 1 to 400 bytes at least four
/// times in a row (and over at least 48 bytes) at its end, or half of its last 24 lines
/// identical. A model stuck in a loop (often white space under JSON mode) writes until
/// `max_tokens` stops it; saying so beats "raise max_tokens".
pub fn repeats_itself(text: &str) -> bool {
    let t = text.as_bytes();
    for period in 1..=400usize {
        let need = (period * 4).max(48);
        if need > t.len() {
            break;
        }
        let tail = &t[t.len() - need..];
        if (period..need).all(|i| tail[i] == tail[i - period]) {
            return true;
        }
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let last: Vec<&str> = lines.iter().rev().take(24).copied().collect();
    if last.len() >= 8 {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for l in &last {
            *counts.entry(l).or_default() += 1;
        }
        if counts.values().any(|&n| n * 2 >= last.len()) {
            return true;
        }
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_found_under_any_base_a_user_writes() {
        let at = |base: &str, prefix, path| endpoint(&Url::parse(base).unwrap(), prefix, path).to_string();
        for base in ["http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/", "http://h:1/v1/messages"] {
            assert_eq!(at(base, Some("v1"), "messages"), "http://h:1/v1/messages", "{base}");
        }
        assert_eq!(at("http://h/proxy", Some("api"), "chat"), "http://h/proxy/api/chat");
        assert_eq!(at("http://h/v1", None, "chat/completions"), "http://h/v1/chat/completions");
        assert_eq!(at("http://h/v1/chat/completions/", None, "chat/completions"), "http://h/v1/chat/completions/");
    }

    #[test]
    fn a_looping_answer_is_recognised() {
        assert!(repeats_itself(&format!("{{\"reply\": \"ok\", \"steps\": [{}", "\n".repeat(300))));
        let step = r#"{"type": "item", "id": "cmd:write", "args": "", "why": "save"}, "#;
        assert!(repeats_itself(&format!("{{\"steps\": [{}", step.repeat(12))));
        let lines: String =
            (0..20).map(|i| if i % 2 == 0 { "I will wrap.\n".to_string() } else { format!("step {i}\n") }).collect();
        assert!(repeats_itself(&lines));
        // A long, varied answer that was merely cut off is not a loop.
        let varied: String = (0..200).map(|i| format!("word{i} ")).collect();
        assert!(!repeats_itself(&varied));
        assert!(!repeats_itself(
            r#"{"reply": "Turning on word wrap.", "steps": [{"type": "setting", "key": "wrap", "value": tr"#
        ));
    }
}
