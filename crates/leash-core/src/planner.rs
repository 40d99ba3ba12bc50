//! The planning pipeline: a request becomes a validated plan.
//!
//! rank the catalog → build the prompt → ask the provider (or the offline planner) →
//! parse → (one second look) → validate. A [`PlanRequest`] says everything a plan needs;
//! [`plan`] runs it on the caller's runtime, [`start`] as a job that returns at once (the
//! editor's way), [`plan_blocking`] to completion on this thread (the `leash` program's).
//! An editor keeps its catalog between requests as a [`session::SessionCatalog`] and
//! polls a started plan as a [`polled::PolledJob`].
//!
//! **Second look.** When the model's first answer asks for look-ups (`"lookup": [names or
//! a few words]`, at most five), each one is searched in the whole catalog: the entry it
//! names exactly (an id, a key, an alias, `:command`), then the ranker's best. What is
//! found is put at the top of the shortlist and the model is asked once more; that
//! second answer is the plan, whatever it asks for. The first answer's steps are not run.
//! Validation is the same as for any plan: a found entry is only shown to the model,
//! never trusted. The offline planner never looks up.
//!
//! Every exchange is recorded in the [`LogRecord`] (never the key), also when planning
//! fails, so the raw answer of a plan that could not be read is still there to see.

pub mod offline;
pub mod polled;
pub mod session;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::time::Instant;

use crate::catalog::Catalog;
use crate::entry::Entry;
use crate::llm::{self, Answer, AnyProvider, LlmError, ModelRequest, Output, Provider, ProviderConfig};
use crate::llm::{ProviderKind, Usage};
use crate::plan::{self, Plan};
use crate::policy::Policy;
use crate::prompt::{self, Context, Found, Round};
use crate::rank::{self, Mode};
use crate::runtime::{self, CancelToken, JobHandle, RuntimeError};
use crate::validate::{self, ValidatedPlan};

/// Default shortlist size (the ranker's, one constant for every frontend).
pub use crate::rank::DEFAULT_SHORTLIST;
/// The most entries one look-up adds: the exact match, then the ranker's best.
pub const PER_LOOKUP: usize = 3;

pub use crate::llm::Progress;

/// Everything a plan needs. Build it with [`PlanRequest::new`] and set the fields that
/// differ from the defaults.
#[derive(Clone)]
pub struct PlanRequest {
    /// What the user asked for, in their words.
    pub request: String,
    pub catalog: Arc<Catalog>,
    /// The ranker's index of `catalog` (built on first use when the caller has none yet).
    pub index: Arc<rank::IndexCell>,
    /// Shortlist size ([`DEFAULT_SHORTLIST`]).
    pub limit: usize,
    /// Where the request was made, and current setting values.
    pub context: Context,
    /// The model to ask; the default configuration is the offline planner.
    pub provider: ProviderConfig,
    pub policy: Policy,
    /// Told about look-ups as they start.
    pub progress: Option<Progress>,
    /// Told once, when the local work is done: the prompt is made and goes to the
    /// provider next, or the offline plan is made. The editor does its own deferred work from then on, so
    /// that it does not compete with the planner's before the request left.
    pub leaving: Option<Leaving>,
}

/// See [`PlanRequest::leaving`].
pub type Leaving = Arc<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for PlanRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanRequest")
            .field("request", &self.request)
            .field("catalog", &self.catalog.len())
            .field("limit", &self.limit)
            .field("context", &self.context)
            .field("provider", &self.provider)
            .field("policy", &self.policy)
            .field("progress", &self.progress.is_some())
            .field("leaving", &self.leaving.is_some())
            .finish()
    }
}

impl PlanRequest {
    /// A request planned offline over a [`DEFAULT_SHORTLIST`]-entry shortlist, with no
    /// context; set `provider`, `context`, `limit` as needed.
    pub fn new(request: impl Into<String>, catalog: Arc<Catalog>, policy: Policy) -> PlanRequest {
        PlanRequest {
            request: request.into(),
            catalog,
            index: Arc::default(),
            limit: DEFAULT_SHORTLIST,
            context: Context::default(),
            provider: ProviderConfig::default(),
            policy,
            progress: None,
            leaving: None,
        }
    }
}

/// A validated plan and the record of how it was made.
#[derive(Debug, Clone, Serialize)]
pub struct PlanOutcome {
    pub plan: ValidatedPlan,
    pub log: LogRecord,
}

/// Why no plan came back, and the record of what happened until then.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct PlanFailure {
    #[source]
    pub error: LlmError,
    /// Boxed: a failure travels through `Result`s, and the record is large.
    pub log: Box<LogRecord>,
}

/// The job a planning request runs as.
pub type PlanJob = JobHandle<Result<PlanOutcome, PlanFailure>>;

/// Starts [`plan`] on the runtime and returns at once (the editor's `plan_start`).
/// `JobHandle::cancel` drops the request; the result is then `JobResult::Cancelled`.
pub fn start(request: PlanRequest) -> Result<PlanJob, RuntimeError> {
    runtime::spawn_cancellable(move |cancel| async move { plan(&request, &cancel).await })
}

/// Runs [`plan`] to completion, blocking this thread (the `leash` program). Must not be
/// called from inside the runtime.
pub fn plan_blocking(request: &PlanRequest, cancel: &CancelToken) -> Result<PlanOutcome, PlanFailure> {
    match runtime::block_on(plan(request, cancel)) {
        Ok(r) => r,
        Err(e) => {
            let error = LlmError::Internal(e.to_string());
            Err(PlanFailure { log: Box::new(LogRecord::failure(request, &error, Duration::ZERO)), error })
        }
    }
}

/// Turns a request into a validated plan (see the module documentation). Cancelling
/// `cancel` ends the call at once with [`LlmError::Cancelled`].
pub async fn plan(req: &PlanRequest, cancel: &CancelToken) -> Result<PlanOutcome, PlanFailure> {
    // Current values a frontend handed over as text are read here, on this thread.
    let read;
    let req = if req.context.current_text.is_some() {
        let mut owned = req.clone();
        if let Err(message) = owned.context.read_current_text() {
            let error = LlmError::Config(message);
            return Err(PlanFailure { log: Box::new(LogRecord::failure(req, &error, Duration::ZERO)), error });
        }
        read = owned;
        &read
    } else {
        req
    };
    let mut run = Run { req, started: std::time::Instant::now(), timings: Timings::default(), exchanges: Vec::new() };
    match run.plan(cancel).await {
        Ok((plan, model, lookups, shortlist)) => {
            let log = run.record(&model, shortlist, lookups, Some(plan.clone()), None);
            Ok(PlanOutcome { plan, log })
        }
        Err(error) => {
            let log = run.record("", 0, Vec::new(), None, Some(&error));
            Err(PlanFailure { error, log: Box::new(log) })
        }
    }
}

/// One planning run: the request and what was recorded so far.
struct Run<'a> {
    req: &'a PlanRequest,
    started: std::time::Instant,
    timings: Timings,
    exchanges: Vec<Exchange>,
}

type Planned = (ValidatedPlan, String, Vec<Found>, usize);

impl Run<'_> {
    async fn plan(&mut self, cancel: &CancelToken) -> Result<Planned, LlmError> {
        let req = self.req;
        if cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        let provider = AnyProvider::new(&req.provider)?;
        let catalog = &*req.catalog;

        let t = std::time::Instant::now();
        let index = req.index.get(catalog);
        let shortlist = rank::rank(index, catalog, &req.request, req.limit, Mode::Any);
        self.timings.rank_ms = ms(t.elapsed());
        let entries: Vec<&Entry> = shortlist.iter().map(|r| r.entry).collect();

        let Some(provider) = provider else {
            let offline = offline::plan(&req.request, catalog, index, &shortlist, &req.context);
            let parsed = self.read(offline.answer, 1, &[])?;
            let mut plan = self.validate(&parsed);
            plan.choices = self.validate_choices(offline.choices);
            // Candidates the checker refused leave nothing to pick: a model's job then.
            if plan.steps.is_empty() && plan.choices.is_empty() && parsed.reply == offline::NOT_SURE {
                plan.reply = offline::needs_model_line(catalog).to_string();
            }
            self.leaving();
            return Ok((plan, String::new(), Vec::new(), entries.len()));
        };

        // A refined plan keeps what it refines within reach ("no, only this buffer"
        // names none of it).
        let entries = with_previous(catalog, &req.context, entries);
        let t = std::time::Instant::now();
        let first = prompt::build_round(&req.request, &entries, &req.context, Round::First, &[]);
        self.timings.prompt_ms = ms(t.elapsed());
        self.leaving();
        let answer = self.ask(&provider, &first, req.progress.as_ref(), cancel).await?;
        let mut model = answer.model.clone();
        let mut parsed = self.read(answer, 1, &[])?;
        let mut lookups = Vec::new();

        if !parsed.lookup.is_empty() {
            if let Some(progress) = &req.progress {
                // The names are the model's: written out so none hides the rest.
                progress(&crate::text::visible(&format!("looking up {}", parsed.lookup.join(", "))));
            }
            let t = std::time::Instant::now();
            let (found, widened) = look_up(catalog, index, &parsed.lookup, &entries);
            let second = prompt::build_round(&req.request, &widened, &req.context, Round::Second, &found);
            self.timings.prompt_ms += ms(t.elapsed());
            let answer = self.ask(&provider, &second, req.progress.as_ref(), cancel).await?;
            model = answer.model.clone();
            let asked = std::mem::take(&mut parsed.lookup);
            parsed = self.read(answer, 2, &asked)?;
            lookups = found;
        }
        Ok((self.validate(&parsed), model, lookups, entries.len()))
    }

    /// The local work is done: tells [`PlanRequest::leaving`], and records when.
    fn leaving(&mut self) {
        self.timings.local_ms = ms(self.started.elapsed());
        if let Some(leaving) = &self.req.leaving {
            leaving();
        }
    }

    async fn ask(
        &mut self,
        provider: &AnyProvider,
        prompt: &prompt::Prompt,
        progress: Option<&Progress>,
        cancel: &CancelToken,
    ) -> Result<Answer, LlmError> {
        let t = std::time::Instant::now();
        let deadline = Instant::now() + provider.deadline();
        let request = ModelRequest { progress, ..ModelRequest::from_prompt(prompt) };
        let answer = tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(LlmError::Cancelled),
            r = provider.complete(&request, deadline) => r,
        };
        self.timings.model_ms += ms(t.elapsed());
        answer
    }

    /// Records an answer and reads the plan in it; a cut-off answer is an error that says
    /// whether the model was looping.
    fn read(&mut self, answer: Answer, round: u8, asked: &[String]) -> Result<Plan, LlmError> {
        let raw = answer.output.raw();
        let mut exchange = Exchange {
            round,
            structured: answer.ask.label(),
            attempts: answer.attempts,
            model_ms: ms(answer.elapsed),
            usage: answer.usage,
            raw: cap(raw.clone()),
            truncated: answer.truncated,
            lookup: Vec::new(),
            ignored_lookup: Vec::new(),
        };
        let label = self.provider_label();
        let parsed = if answer.truncated {
            let setting = self.setting("max_tokens");
            let max_tokens = self.max_tokens();
            Err(LlmError::Truncated { provider: label, max_tokens, setting, looping: llm::repeats_itself(&raw) })
        } else {
            match &answer.output {
                Output::Text(text) => plan::parse(text),
                Output::Object(map) => plan::plan_from_object(map),
            }
            .map_err(|source| LlmError::NotAPlan { provider: label, source })
        };
        if let Ok(p) = &parsed {
            // The second answer may not look up again: recorded, not followed.
            if asked.is_empty() {
                exchange.lookup = p.lookup.clone();
            } else {
                exchange.ignored_lookup = p.lookup.clone();
            }
        }
        self.exchanges.push(exchange);
        parsed
    }

    fn validate(&mut self, parsed: &Plan) -> ValidatedPlan {
        let t = std::time::Instant::now();
        let v = validate::validate(parsed, &self.req.catalog, &self.req.policy, self.req.context.range);
        self.timings.validate_ms = ms(t.elapsed());
        v
    }

    /// The offline planner's candidates, each validated like a plan; one the validator
    /// would change (a step dropped) is not offered.
    fn validate_choices(&self, choices: Vec<offline::Choice>) -> Vec<validate::Choice> {
        let req = self.req;
        choices
            .into_iter()
            .filter_map(|c| {
                let parsed = plan::plan_from_object(&c.plan).ok()?;
                let plan = validate::validate(&parsed, &req.catalog, &req.policy, req.context.range);
                (plan.dropped.is_empty() && plan.steps.len() == parsed.steps.len() && !plan.steps.is_empty())
                    .then_some(validate::Choice { label: crate::text::visible(&c.label), plan })
            })
            .collect()
    }

    fn provider_label(&self) -> String {
        self.req.provider.resolve().map(|r| r.label()).unwrap_or_else(|_| self.req.provider.display_name())
    }

    fn setting(&self, field: &str) -> String {
        self.req.provider.resolve().map(|r| r.setting(field)).unwrap_or_else(|_| field.to_string())
    }

    fn max_tokens(&self) -> u32 {
        self.req.provider.resolve().map(|r| r.max_tokens).unwrap_or_default()
    }

    fn record(
        &mut self,
        model: &str,
        shortlist: usize,
        lookups: Vec<Found>,
        plan: Option<ValidatedPlan>,
        error: Option<&LlmError>,
    ) -> LogRecord {
        let req = self.req;
        self.timings.total_ms = ms(self.started.elapsed());
        let exchanges = std::mem::take(&mut self.exchanges);
        let last = exchanges.last();
        LogRecord {
            time_ms: now_ms(),
            request: req.request.clone(),
            provider: req.provider.display_name(),
            kind: req.provider.resolved_kind().map(ProviderKind::as_str).unwrap_or("unknown"),
            model: if model.is_empty() { req.provider.model.clone().unwrap_or_default() } else { model.to_string() },
            structured: last.map(|e| e.structured).unwrap_or(""),
            shortlist,
            attempts: exchanges.iter().map(|e| e.attempts).sum(),
            timings: self.timings,
            usage: Usage {
                input_tokens: sum(exchanges.iter().map(|e| e.usage.input_tokens)),
                output_tokens: sum(exchanges.iter().map(|e| e.usage.output_tokens)),
            },
            raw: last.map(|e| e.raw.clone()).unwrap_or_default(),
            lookups,
            exchanges,
            plan,
            error: error.map(|e| LogError { code: e.code(), message: e.to_string() }),
        }
    }
}

fn sum(values: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    values.fold(None, |acc, v| match (acc, v) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    })
}

/// Searches the whole catalog for each look-up: the entry it names exactly first, then
/// the ranker's best, [`PER_LOOKUP`] at most. Returns what each one found, and the
/// shortlist with the entries it did not hold yet put first.
pub fn look_up<'a>(
    catalog: &'a Catalog,
    index: &rank::Index,
    queries: &[String],
    shortlist: &[&'a Entry],
) -> (Vec<Found>, Vec<&'a Entry>) {
    let mut found = Vec::with_capacity(queries.len());
    let mut added: Vec<&'a Entry> = Vec::new();
    for query in queries {
        let mut hits: Vec<&'a Entry> = Vec::with_capacity(PER_LOOKUP);
        if let Some(e) = catalog.find(query) {
            hits.push(e);
        }
        for r in rank::rank(index, catalog, query, PER_LOOKUP + 1, Mode::Any) {
            if hits.len() == PER_LOOKUP {
                break;
            }
            if !hits.iter().any(|h| std::ptr::eq(*h, r.entry)) {
                hits.push(r.entry);
            }
        }
        for h in &hits {
            let known = shortlist.iter().chain(added.iter()).any(|e| std::ptr::eq(*e, *h));
            if !known {
                added.push(h);
            }
        }
        found.push(Found { query: query.clone(), names: hits.iter().map(|e| e.name().to_string()).collect() });
    }
    let widened = added.into_iter().chain(shortlist.iter().copied()).collect();
    (found, widened)
}

/// The shortlist with the entries the plan being refined named (`context.previous`)
/// put first, each once; unknown names are skipped (the catalog may have changed).
pub fn with_previous<'a>(catalog: &'a Catalog, context: &Context, shortlist: Vec<&'a Entry>) -> Vec<&'a Entry> {
    let Some(previous) = &context.previous else { return shortlist };
    let mut out: Vec<&'a Entry> = Vec::with_capacity(shortlist.len() + previous.steps.len());
    for name in previous.names() {
        if let Some(e) = catalog.get(name) {
            if !out.iter().any(|o| std::ptr::eq(*o, e)) {
                out.push(e);
            }
        }
    }
    for e in shortlist {
        if !out.iter().any(|o| std::ptr::eq(*o, e)) {
            out.push(e);
        }
    }
    out
}

/// Milliseconds spent in each stage (model time summed over the exchanges).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    /// From the start until the prompt went to the provider (or the offline plan was made).
    pub local_ms: f64,
    pub rank_ms: f64,
    pub prompt_ms: f64,
    pub model_ms: f64,
    pub validate_ms: f64,
    pub total_ms: f64,
}

/// One question and answer.
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    /// 1, or 2 for the second look.
    pub round: u8,
    /// How structured output was asked for when it was answered: `json_schema`,
    /// `json_schema (compact)` (the provider refused the full schema), `json_object
    /// (schema)`, `json_object`, `tool`, `none`.
    pub structured: &'static str,
    pub attempts: u32,
    pub model_ms: f64,
    pub usage: Usage,
    /// The model's answer as it came (capped at 64 KiB).
    pub raw: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// What the first answer asked to look up.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lookup: Vec<String>,
    /// Look-ups the second answer asked for anyway (not followed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored_lookup: Vec<String>,
}

/// One planning request, for the log: one JSON line, never the key.
#[derive(Debug, Clone, Serialize)]
pub struct LogRecord {
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    pub request: String,
    pub provider: String,
    pub kind: &'static str,
    pub model: String,
    /// The structured-output mode of the last exchange.
    pub structured: &'static str,
    /// The first shortlist's size.
    pub shortlist: usize,
    /// HTTP attempts over every exchange.
    pub attempts: u32,
    pub timings: Timings,
    pub usage: Usage,
    /// The last answer as it came (capped at 64 KiB); every answer is in `exchanges`.
    pub raw: String,
    /// What each look-up found (second look only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lookups: Vec<Found>,
    pub exchanges: Vec<Exchange>,
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

    /// A record for a request that failed before any exchange.
    pub fn failure(req: &PlanRequest, error: &LlmError, elapsed: Duration) -> LogRecord {
        let mut run =
            Run { req, started: std::time::Instant::now(), timings: Timings::default(), exchanges: Vec::new() };
        let mut record = run.record("", 0, Vec::new(), None, Some(error));
        record.timings.total_ms = ms(elapsed);
        record
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog() -> Catalog {
        crate::test_catalog::neovim()
    }

    #[test]
    fn a_look_up_finds_exact_names_first_then_the_ranker() {
        let c = catalog();
        let wrap = c.get("wrap").unwrap();
        let queries: Vec<String> =
            [":g", "laststatus", "format", "status line", "fontsize"].iter().map(|s| s.to_string()).collect();
        let (found, widened) = look_up(&c, &rank::Index::new(&c), &queries, &[wrap]);
        assert_eq!(found[0].names[0], "cmd:global", "an item alias, written as a command");
        assert_eq!(found[1].names[0], "laststatus");
        assert_eq!(found[2].names[0], "user:Format", "a user command, whatever the case");
        assert!(found[3].names.contains(&"statusline".to_string()), "{:?}", found[3]);
        assert!(found.iter().all(|f| f.names.len() <= PER_LOOKUP));
        // New entries come first, each once, then the shortlist as it was.
        assert_eq!(widened.last().unwrap().name(), "wrap");
        let names: Vec<&str> = widened.iter().map(|e| e.name()).collect();
        let mut dedup = names.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len(), "{names:?}");
        assert!(names.starts_with(&["cmd:global"]));
    }

    #[test]
    fn a_refined_request_keeps_the_entries_of_the_plan_it_refines() {
        let c = catalog();
        let vsplit = c.get("cmd:vsplit").unwrap();
        let mut ctx = Context::default();
        assert_eq!(with_previous(&c, &ctx, vec![vsplit]).len(), 1, "no previous plan: the shortlist as it was");
        ctx.previous = Some(prompt::Previous {
            request: "turn on wrap and split".into(),
            steps: vec![
                json!({"type": "setting", "key": "wrap", "value": true}),
                json!({"type": "item", "id": "cmd:vsplit", "args": []}),
                json!({"type": "item", "id": "cmd:gone"}),
                json!({"type": "terminal", "command": "ls"}),
            ],
        });
        let names: Vec<&str> = with_previous(&c, &ctx, vec![vsplit]).iter().map(|e| e.name()).collect();
        assert_eq!(names, ["wrap", "cmd:vsplit"], "named entries first, each once, unknown ones skipped");
    }

    #[test]
    fn sums_of_optional_counts() {
        assert_eq!(sum([None, None].into_iter()), None);
        assert_eq!(sum([Some(2), None, Some(3)].into_iter()), Some(5));
    }
}
