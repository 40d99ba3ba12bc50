//! The Helix frontend: the `leash helix …` subcommands a Helix key binding starts.
//!
//! Released Helix (25.07) has no plugin system and no IPC, so the frontend is the
//! `leash` program itself, started by the snippet [`keys::snippet`] prints. `do` is the
//! dialog (request, plan, `y`/`n`, programs on the terminal); `take` hands what Helix must
//! run to the key binding's macro; `resume` runs the programs a plan puts after Helix's
//! commands; `ask` and `plan` are the plan-only pair behind `space ,`. The same core ranks, asks the model and validates; [`apply`] turns each
//! validated step into what leash or Helix does for it.

pub mod apply;
pub mod catalog;
pub mod commandline;
pub mod config_toml;
pub mod context;
pub mod dialog;
pub mod error;
pub mod keys;
pub mod present;
pub mod process;
pub mod state;
pub mod statics;
pub mod tty;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use self::apply::{Env, HandOff, HelixAction, HelixPlan, Typed};
use self::context::HelixContext;
use self::dialog::{Row, Screen, Style};
pub use self::error::HelixError;
use crate::config_file::ProgramConfig;
use leash_core::planner::{self, PlanRequest};
use leash_core::policy::Policy;
use leash_core::profile::Profile;
use leash_core::prompt::Context;
use leash_core::runtime::CancelToken;

/// Flags the subcommands share.
#[derive(Debug, Clone, Default)]
pub struct Args {
    /// The here-document's tail (`--tag`).
    pub tag: Option<String>,
    /// Helix's config.toml (`--helix-config`); else the one the running Helix reads.
    pub helix_config: Option<PathBuf>,
    /// The leash configuration file (`--config`); else `$XDG_CONFIG_HOME/leash/config.toml`.
    pub config: Option<PathBuf>,
}

/// Fixed status messages for Helix's status line (never model text: `:echo` expands).
const DONE: &str = "leash: done";
const CANCELLED: &str = "leash: cancelled, nothing changed";
const FAILED: &str = "leash: nothing applied (see the dialog)";
const NOTHING: &str = "leash: nothing to apply";

/// A program the plan runs after Helix's commands: what `do` leaves for `resume`.
#[derive(Debug, Serialize, Deserialize)]
struct Later {
    /// The step's place in the plan.
    index: usize,
    argv: Vec<String>,
    cwd: PathBuf,
    shown: String,
    env: Vec<(String, String)>,
    /// Started in the background (a file manager), not run on the terminal.
    detached: bool,
}

/// The plan `space ,` showed, which `space .` offers to apply as it was shown.
#[derive(Debug, Serialize, Deserialize)]
struct Preview {
    request: String,
    cwd: PathBuf,
    file: Option<PathBuf>,
    /// The model's answer the plan came from.
    answer: String,
    /// The validated plan as it was shown: applied only when the answer validates to
    /// exactly this again against the catalog as it is then.
    validated: serde_json::Value,
    /// Seconds since the Unix epoch.
    at: u64,
}

/// How long a previewed plan is offered.
const PREVIEW_SECS: u64 = 30 * 60;

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn read_stdin() -> String {
    let mut text = String::new();
    let _ = std::io::stdin().take(64 * 1024).read_to_string(&mut text);
    text
}

/// The model's configuration and its key, as far as they can be checked without asking it.
fn key_ready(cfg: &ProgramConfig) -> Result<(), HelixError> {
    let provider = cfg.provider_config()?;
    Ok(leash_core::llm::check_key(&provider)?)
}

fn load_config(args: &Args) -> Result<ProgramConfig, HelixError> {
    let path = match &args.config {
        Some(p) => p.clone(),
        None => crate::config_file::default_path().ok_or(HelixError::NoConfigHome)?,
    };
    Ok(ProgramConfig::load(&path)?)
}

/// The config.toml the running Helix reads.
pub fn helix_config_path(args: &Args) -> Option<PathBuf> {
    args.helix_config
        .clone()
        .or_else(|| process::helix_pid().filter(|&p| process::is_helix(p)).and_then(process::helix_config_arg))
        .or_else(config_toml::default_path)
}

/// An error for the dialog: its detail keeps its line breaks (a TOML error points at the
/// line with a caret below it), each line shown with its controls made visible.
fn error_rows(what: &str, detail: &str) -> Vec<Row> {
    let mut rows = vec![vec![(what.to_string(), Style::Error)], Vec::new()];
    rows.extend(detail.lines().map(|l| vec![(dialog::visible(l), Style::Plain)]));
    rows
}

/// `leash helix do`: the dialog. Leaves a [`HandOff`] for `take` and prints nothing.
pub fn run_do(args: &Args) {
    let context = HelixContext::parse(&read_stdin(), args.tag.as_deref());
    state::clear("apply");
    state::clear("resume");
    let status = match Screen::open() {
        Ok(mut screen) => {
            let handoff = dialog_flow(&mut screen, args, &context);
            drop(screen);
            handoff
        }
        Err(_) => HandOff { status: FAILED.into(), ..HandOff::default() },
    };
    let _ = state::put("apply", &status);
}

/// `leash helix take`: prints the macro Helix replays (exactly one line, no newline).
pub fn run_take() -> String {
    state::take::<HandOff>("apply").unwrap_or(HandOff { status: NOTHING.into(), ..HandOff::default() }).to_macro()
}

/// `leash helix resume`: runs the programs the plan puts after Helix's commands, on the
/// terminal, once Helix ran those commands. Prints nothing.
pub fn run_resume() {
    let Some(later) = state::take::<Vec<Later>>("resume") else { return };
    let Ok(mut screen) = Screen::open() else { return };
    screen.terminal();
    for l in &later {
        if let Err(e) = run_later(&mut screen, l) {
            step_failed(&mut screen, l.index, &e);
            break;
        }
    }
    screen.any_key("Press any key to return to Helix");
}

/// `leash helix ask`: reads the request for `space ,`, plans it on the terminal (with
/// progress; Esc cancels) and leaves the popup's text for `plan` and the plan for
/// `space .`. Applies nothing.
pub fn run_ask(args: &Args) {
    let context_text = read_stdin();
    state::clear("popup");
    state::clear("preview");
    let Ok(mut screen) = Screen::open() else { return };
    let context = HelixContext::parse(&context_text, args.tag.as_deref());
    // A configuration or key error is shown before the user types a request.
    let ready = load_config(args).and_then(|cfg| key_ready(&cfg).map(|()| cfg));
    let text = match ready {
        Err(e) => Some(Err(e)),
        Ok(cfg) => {
            let Some(request) = screen.ask(&hint(&context, None)) else { return };
            preview(&mut screen, &cfg, args, &context, &request)
        }
    };
    let text = match text {
        Some(Ok(text)) => text,
        // Line by line: the popup keeps line breaks (a TOML error's caret line).
        Some(Err(e)) => format!("leash: {}", e.to_string().lines().map(dialog::visible).collect::<Vec<_>>().join("\n")),
        None => return,
    };
    // Helix shows the output inside a Markdown code block: a fence in model text must
    // not end it.
    let _ = state::put("popup", &text.replace("```", "` ` `"));
}

/// Plans `request` for `space ,`: the popup's text, or `None` when cancelled.
fn preview(
    screen: &mut Screen,
    cfg: &ProgramConfig,
    args: &Args,
    context: &HelixContext,
    request: &str,
) -> Option<Result<String, HelixError>> {
    let prepared = match prepare(cfg, context, args) {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let outcome = match plan_waiting(screen, cfg, &prepared, request) {
        Planned::Done(o) => o,
        Planned::Cancelled => return None,
        Planned::Failed(e) => return Some(Err(e)),
    };
    let plan = HelixPlan::new(&outcome.plan, &prepared.env(cfg, context));
    let (current, notes) = settings_view(&plan, args, false);
    let mut rows = vec![vec![(format!("leash plan for: {}", dialog::visible(request)), Style::Heading)], Vec::new()];
    if outcome.plan.steps.is_empty() && !outcome.plan.choices.is_empty() {
        rows.extend(choice_rows(&outcome.plan));
        rows.push(Vec::new());
        rows.push(vec![("Nothing was applied: space . asks again and offers these to pick.".into(), Style::Note)]);
        return Some(Ok(dialog::plain(&rows)));
    }
    rows.extend(present::rows(&plan, &current, &notes));
    rows.push(Vec::new());
    let answer = outcome.log.exchanges.last().filter(|x| !x.truncated).map(|x| x.raw.clone());
    let kept = match (answer, serde_json::to_value(&outcome.plan)) {
        (Some(answer), Ok(validated)) if !plan.steps.is_empty() => state::put(
            "preview",
            &Preview {
                request: request.to_string(),
                cwd: prepared.cwd.clone(),
                file: context.file.clone(),
                answer,
                validated,
                at: now_secs(),
            },
        )
        .is_ok(),
        _ => false,
    };
    let note = if kept {
        "Nothing was applied: space . then Enter alone (or the same request) shows this plan again and applies it after y."
    } else {
        "Nothing was applied: space . asks again and applies after y."
    };
    rows.push(vec![(note.into(), Style::Note)]);
    Some(Ok(dialog::plain(&rows)))
}

/// The offline planner's candidates as rows: what it is not sure of, then each one
/// numbered with what it changes.
fn choice_rows(plan: &leash_core::validate::ValidatedPlan) -> Vec<Row> {
    let mut rows = vec![vec![(dialog::visible(&plan.reply), Style::Plain)], Vec::new()];
    for (i, c) in plan.choices.iter().enumerate() {
        rows.push(vec![(format!("{}  ", i + 1), Style::Keys), (dialog::visible(&c.label), Style::Plain)]);
    }
    rows
}

/// `leash helix plan`: the text `ask` left for Helix's popup. Empty (no popup) when `ask`
/// was cancelled.
pub fn run_plan(_args: &Args) -> String {
    state::take::<String>("popup").unwrap_or_default()
}

/// What planning on the terminal ended with.
enum Planned {
    Done(Box<planner::PlanOutcome>),
    Cancelled,
    Failed(HelixError),
}

/// Asks the model on the core's runtime while this thread keeps the screen and the keys
/// (progress, Esc cancels).
fn plan_waiting(screen: &mut Screen, cfg: &ProgramConfig, prepared: &Prepared, request: &str) -> Planned {
    let cancel = CancelToken::new();
    let (tx, rx) = mpsc::channel();
    let job_cancel = cancel.clone();
    let plan_request = prepared.request(cfg, request);
    let spawned = std::thread::Builder::new().name("leash-plan".into()).spawn(move || {
        let r = planner::plan_blocking(&plan_request, &job_cancel);
        let _ = tx.send(r);
    });
    if let Err(e) = spawned {
        return Planned::Failed(HelixError::PlanThread(e));
    }
    let status = format!("Planning with {}…", prepared.provider.display_name());
    let Some(result) = screen.wait(&status, || rx.try_recv().ok(), || cancel.cancel()) else {
        return Planned::Cancelled;
    };
    match result {
        Ok(o) => {
            log(cfg, &o.log.to_line());
            Planned::Done(Box::new(o))
        }
        Err(e) if e.error.is_cancelled() => Planned::Cancelled,
        Err(e) => {
            log(cfg, &e.log.to_line());
            Planned::Failed(e.error.into())
        }
    }
}

/// The plan `space ,` showed, validated again now: `Err` when it no longer validates to
/// exactly what was shown (Helix, the project or leash's configuration changed since).
fn previewed_plan(p: &Preview, prepared: &Prepared) -> Result<leash_core::validate::ValidatedPlan, HelixError> {
    let plan = leash_core::validate::validate_text(
        &p.answer,
        &prepared.catalog.catalog,
        &prepared.policy,
        prepared.model_context.range,
    )
    .map_err(|_| HelixError::PreviewChanged)?;
    match serde_json::to_value(&plan) {
        Ok(v) if v == p.validated => Ok(plan),
        _ => Err(HelixError::PreviewChanged),
    }
}

/// What planning needs, built once per request.
struct Prepared {
    cwd: PathBuf,
    catalog: catalog::HelixCatalog,
    policy: Policy,
    provider: leash_core::llm::ProviderConfig,
    model_context: Context,
    workspace: config_toml::Workspace,
    keys: statics::UserKeys,
}

impl Prepared {
    /// The core's planning request for `request` (the same planner Neovim uses).
    fn request(&self, cfg: &ProgramConfig, request: &str) -> PlanRequest {
        PlanRequest {
            request: request.to_string(),
            catalog: std::sync::Arc::clone(&self.catalog.catalog),
            index: Default::default(),
            limit: cfg.shortlist_limit,
            context: self.model_context.clone(),
            provider: self.provider.clone(),
            policy: self.policy.clone(),
            progress: None,
            leaving: None,
        }
    }

    fn env<'a>(&'a self, cfg: &'a ProgramConfig, context: &'a HelixContext) -> Env<'a> {
        Env {
            cwd: &self.cwd,
            context,
            discovered: &self.catalog.discovered,
            config: cfg,
            workspace: &self.workspace,
            keys: &self.keys,
        }
    }
}

/// The key bindings of the files Helix merges, in its order: config.toml, then the
/// project's.
fn user_keys(args: &Args, workspace: &config_toml::Workspace) -> statics::UserKeys {
    let mut keys = statics::UserKeys::default();
    if let Some(path) = helix_config_path(args) {
        match config_toml::ConfigFile::read(&path) {
            Ok(f) => {
                keys.add(&path.display().to_string(), f.keys_normal());
                keys.yank_register(&path.display().to_string(), f.get("default-yank-register"));
            }
            Err(e) => keys.unreadable(e.to_string()),
        }
    }
    match workspace {
        config_toml::Workspace::File(f) => {
            keys.add(&f.path().display().to_string(), f.keys_normal());
            keys.yank_register(&f.path().display().to_string(), f.get("default-yank-register"));
        }
        config_toml::Workspace::Broken(e) => keys.unreadable(e.to_string()),
        config_toml::Workspace::None => {}
    }
    keys
}

fn prepare(cfg: &ProgramConfig, context: &HelixContext, args: &Args) -> Result<Prepared, HelixError> {
    let cwd = std::env::current_dir().map_err(HelixError::NoWorkingDirectory)?;
    let version = catalog::detect_version();
    let file = context.file.as_deref().map(|f| leash_core::project::absolute(&cwd, f));
    let catalog = catalog::build(version, &cwd, file.as_deref(), cfg)?;
    let policy = Policy::new(Profile::Helix).with_raise_rules(cfg.core.raise.clone());
    let provider = cfg.provider_config()?;
    let (stack, _) = leash_core::project::stack::stack(&cwd);
    let model_context = Context {
        os: std::env::consts::OS.to_string(),
        filetype: context.language.clone(),
        selection: context.selection_words(),
        project: stack.join(", "),
        editor: "Helix".into(),
        // Helix commands take no line range.
        range: None,
        current: current_values(&catalog.catalog, helix_config_path(args).as_deref()),
        current_text: None,
        colorschemes: Vec::new(),
        previous: None,
    };
    let workspace = config_toml::Workspace::find(&cwd);
    let keys = user_keys(args, &workspace);
    Ok(Prepared { cwd, catalog, policy, provider, model_context, workspace, keys })
}

/// Appends one exchange to `$XDG_STATE_HOME/leash/leash.log` (mode 0600) when logging is on.
fn log(cfg: &ProgramConfig, line: &str) {
    if !cfg.core.log {
        return;
    }
    let Ok(dir) = state::dir() else { return };
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    if let Ok(mut f) = options.open(dir.join("leash.log")) {
        use std::io::Write;
        let _ = writeln!(f, "{line}");
    }
}

fn hint(context: &HelixContext, previewed: Option<&str>) -> Vec<Row> {
    let mut where_ = match &context.file {
        Some(f) => format!("In {}", f.display()),
        None => "In a scratch buffer".into(),
    };
    if !context.language.is_empty() {
        where_.push_str(&format!(" ({})", context.language));
    }
    if let Some((a, b)) = context.selection.filter(|(a, b)| b > a) {
        where_.push_str(&format!(", lines {a}–{b} selected"));
    }
    let mut rows = vec![vec![(dialog::visible(&where_), Style::Note)]];
    match previewed {
        Some(request) => rows.push(vec![(
            format!("Enter alone or the same request: the plan space , showed for “{}”", dialog::visible(request)),
            Style::Note,
        )]),
        None => rows.push(vec![("For example: relative line numbers and a vertical split".into(), Style::Note)]),
    }
    rows
}

/// The current value of each setting step and the notes about config.toml.
fn settings_view(
    plan: &HelixPlan,
    args: &Args,
    applying: bool,
) -> (HashMap<usize, (serde_json::Value, &'static str)>, Vec<Row>) {
    let mut current = HashMap::new();
    let mut notes = Vec::new();
    if plan.settings().next().is_none() {
        return (current, notes);
    }
    let Some(path) = helix_config_path(args) else {
        notes.push(vec![("Helix's config.toml was not found (HOME is not set).".into(), Style::Error)]);
        return (current, notes);
    };
    match config_toml::ConfigFile::read(&path) {
        Ok(file) => {
            for s in &plan.steps {
                if let HelixAction::Setting { key, .. } = &s.action {
                    current.insert(s.step.index, current_value(Some(&file), key));
                }
            }
            let path = dialog::visible(&path.display().to_string());
            let note = if applying {
                format!("Settings are written to {path} and Helix reloads it.")
            } else {
                format!("Settings would be written to {path}.")
            };
            notes.push(vec![(note, Style::Note)]);
        }
        Err(e) => notes.push(vec![(dialog::visible(&e.to_string()), Style::Error)]),
    }
    (current, notes)
}

/// A setting's value as Helix has it: from config.toml, else Helix's default (with a note
/// saying so). The same value the dialog shows as "current" is the one the model is told.
fn current_value(file: Option<&config_toml::ConfigFile>, key: &str) -> (serde_json::Value, &'static str) {
    match file.and_then(|f| f.get(key)) {
        Some(v) => (v, ""),
        None => {
            let default = leash_core::profile::helix::data().option(key).map(|o| o.default.clone()).unwrap_or_default();
            // Helix's data gives no default for `rulers`: its default is no rulers.
            let default = match default {
                serde_json::Value::Null if leash_core::profile::helix::is_list_option(key) => serde_json::json!([]),
                d => d,
            };
            (default, " (Helix's default)")
        }
    }
}

/// The current value of every setting of the catalog, for the model's context. A
/// config.toml that cannot be read or parsed gives no values at all (the dialog says why)
/// rather than Helix's defaults, which would then be wrong.
fn current_values(
    catalog: &leash_core::catalog::Catalog,
    config_toml: Option<&std::path::Path>,
) -> std::collections::BTreeMap<String, serde_json::Value> {
    let file = match config_toml {
        // A missing config.toml reads as empty: Helix runs on its defaults.
        Some(path) => match config_toml::ConfigFile::read(path) {
            Ok(f) => Some(f),
            Err(_) => return Default::default(),
        },
        None => None,
    };
    catalog
        .entries()
        .iter()
        .filter_map(|e| match e {
            leash_core::entry::Entry::Setting(s) => Some(s.key.clone()),
            leash_core::entry::Entry::Item(_) => None,
        })
        .map(|key| {
            let (v, _) = current_value(file.as_ref(), &key);
            (key, v)
        })
        .filter(|(_, v)| !v.is_null())
        .collect()
}

fn dialog_flow(screen: &mut Screen, args: &Args, context: &HelixContext) -> HandOff {
    let cancelled = || HandOff { status: CANCELLED.into(), ..HandOff::default() };
    let failed = |screen: &mut Screen, what: &str, error: &HelixError| {
        screen.confirm(&error_rows(what, &error.to_string()), None);
        HandOff { status: FAILED.into(), ..HandOff::default() }
    };
    let cfg = match load_config(args) {
        Ok(c) => c,
        Err(e) => return failed(screen, "leash: the configuration file has an error", &e),
    };
    // Before the user types a request that could not be planned.
    if let Err(e) = key_ready(&cfg) {
        return failed(screen, "leash: cannot plan", &e);
    }
    // The plan `space ,` showed in this folder for this file, offered once.
    let previewed = state::take::<Preview>("preview").filter(|p| {
        now_secs().saturating_sub(p.at) < PREVIEW_SECS
            && std::env::current_dir().is_ok_and(|d| d == p.cwd)
            && p.file == context.file
    });
    let hint = hint(context, previewed.as_ref().map(|p| p.request.as_str()));
    let Some(request) = screen.ask_or_empty(&hint, previewed.is_some()) else { return cancelled() };
    let prepared = match prepare(&cfg, context, args) {
        Ok(p) => p,
        Err(e) => return failed(screen, "leash: cannot plan", &e),
    };
    // The same request (or none) applies what was shown; another request plans anew.
    let mut validated = match previewed.filter(|p| request.is_empty() || request == p.request) {
        Some(p) => match previewed_plan(&p, &prepared) {
            Ok(plan) => plan,
            Err(e) => return failed(screen, "leash: the previewed plan was not applied", &e),
        },
        None => match plan_waiting(screen, &cfg, &prepared, &request) {
            Planned::Done(o) => o.plan,
            Planned::Cancelled => return cancelled(),
            Planned::Failed(e) => return failed(screen, "leash: planning failed; nothing was run", &e),
        },
    };
    // The offline planner was not sure: the candidate picked is the plan.
    if validated.steps.is_empty() && !validated.choices.is_empty() {
        match screen.choose(&choice_rows(&validated), validated.choices.len()) {
            Some(i) => validated = validated.choices.swap_remove(i).plan,
            None => return cancelled(),
        }
    }
    let plan = HelixPlan::new(&validated, &prepared.env(&cfg, context));
    let (current, notes) = settings_view(&plan, args, true);
    let config_broken = notes.iter().any(|r| r.iter().any(|(_, s)| *s == Style::Error));
    let rows = present::rows(&plan, &current, &notes);
    if config_broken {
        screen.confirm(&rows, None);
        return HandOff { status: FAILED.into(), ..HandOff::default() };
    }
    if plan.steps.is_empty() {
        screen.confirm(&rows, None);
        return HandOff { status: NOTHING.into(), ..HandOff::default() };
    }
    if !plan.may_skip_confirmation && !screen.confirm(&rows, Some(&present::question(&plan))) {
        return cancelled();
    }
    apply_plan(screen, &plan, args)
}

/// Runs what leash runs in the dialog (settings, programs) in plan order and returns
/// what Helix runs after it: its commands in plan order, then `leash helix resume` for
/// the programs the plan puts after them. The first failing step stops the plan: nothing
/// after it runs, in leash or in Helix.
fn apply_plan(screen: &mut Screen, plan: &HelixPlan, args: &Args) -> HandOff {
    let mut handoff = HandOff::default();
    let mut later = Vec::new();
    let mut terminal = false;
    let mut failed = false;
    // `index`: the step's place among the steps that run, as the dialog numbers it.
    for (index, s) in plan.steps.iter().enumerate() {
        let outcome = match &s.action {
            HelixAction::Setting { key, value } => write_setting(args, key, value).map(|()| handoff.reload = true),
            HelixAction::Command { line } => {
                handoff.typed.push(Typed::Line(line.clone()));
                Ok(())
            }
            HelixAction::Keys { keys, waits, .. } => {
                handoff.typed.push(Typed::Keys(keys.clone()));
                handoff.waits = *waits;
                Ok(())
            }
            HelixAction::Program { argv, cwd, shown, env } => {
                let l = Later {
                    index,
                    argv: argv.clone(),
                    cwd: cwd.clone(),
                    shown: shown.clone(),
                    env: env.clone(),
                    detached: false,
                };
                if s.after_helix {
                    later.push(l);
                    Ok(())
                } else {
                    if !terminal {
                        screen.terminal();
                        terminal = true;
                    }
                    run_later(screen, &l)
                }
            }
            HelixAction::Delete { path } => {
                delete(path).map(|()| handoff.typed.push(Typed::Line("buffer-close!".into())))
            }
            HelixAction::Detached { argv } => {
                let l = Later {
                    index,
                    argv: argv.clone(),
                    cwd: PathBuf::new(),
                    shown: argv.join(" "),
                    env: Vec::new(),
                    detached: true,
                };
                if s.after_helix {
                    later.push(l);
                    Ok(())
                } else {
                    run_later(screen, &l)
                }
            }
        };
        if let Err(e) = outcome {
            if !terminal {
                screen.terminal();
                terminal = true;
            }
            step_failed(screen, index, &e);
            failed = true;
            break;
        }
    }
    if !failed && !later.is_empty() {
        // The programs wait in the state folder for the macro's `leash helix resume`.
        let resume = std::env::current_exe()
            .map_err(HelixError::OwnPath)
            .and_then(|exe| keys::resume_line(&exe.to_string_lossy()).map_err(HelixError::from))
            .and_then(|line| state::put("resume", &later).map(|()| line).map_err(HelixError::from));
        match resume {
            Ok(line) => handoff.resume = Some(line),
            Err(e) => {
                if !terminal {
                    screen.terminal();
                    terminal = true;
                }
                step_failed(screen, later[0].index, &HelixError::Resume(Box::new(e)));
                failed = true;
            }
        }
    }
    if terminal {
        screen.any_key("Press any key to return to Helix");
    }
    handoff.status = if failed { "leash: stopped at a failing step (see the dialog)" } else { DONE }.into();
    handoff
}

/// Runs one program: on the terminal, or started in the background.
fn run_later(screen: &mut Screen, l: &Later) -> Result<(), HelixError> {
    if l.detached {
        return start_detached(&l.argv);
    }
    screen.print(&vec![("$ ".into(), Style::Keys), (dialog::visible(&l.shown), Style::Command)]);
    run_program(screen, &l.argv, &l.cwd, &l.env)
}

/// Starts a program in the background (a file manager), detached from the terminal.
fn start_detached(argv: &[String]) -> Result<(), HelixError> {
    let Some((program, rest)) = argv.split_first() else { return Err(HelixError::NothingToRun) };
    Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|source| HelixError::Start { program: program.clone(), source })
}

/// Removes the file a delete step names.
fn delete(path: &Path) -> Result<(), HelixError> {
    std::fs::remove_file(path).map_err(|source| HelixError::Delete { path: path.to_path_buf(), source })
}

fn step_failed(screen: &mut Screen, index: usize, error: &HelixError) {
    screen.print(&vec![(format!("Step {} failed: {}", index + 1, dialog::visible(&error.to_string())), Style::Error)]);
    screen.print(&vec![("The steps after it were not run.".into(), Style::Error)]);
}

/// Writes one setting into Helix's config.toml (read again now: the file may have
/// changed since the plan was shown; one that no longer parses is not written).
fn write_setting(args: &Args, key: &str, value: &leash_core::entry::SettingValue) -> Result<(), HelixError> {
    let path = helix_config_path(args).ok_or(HelixError::NoHelixConfig)?;
    let mut file = config_toml::ConfigFile::read(&path)?;
    file.set(key, value)?;
    Ok(file.write()?)
}

/// Runs one program on the terminal: no stdin (like Helix's own shell commands), output
/// on the terminal, in a process group of its own so Ctrl-C reaches it and not Helix.
fn run_program(screen: &mut Screen, argv: &[String], cwd: &Path, env: &[(String, String)]) -> Result<(), HelixError> {
    use std::os::unix::process::CommandExt;
    let (Some(program), Ok(out), Ok(err)) = (argv.first(), screen.tty.file(), screen.tty.file()) else {
        return Err(HelixError::NothingToRun);
    };
    let mut child = Command::new(program)
        .args(&argv[1..])
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|source| HelixError::Start { program: program.clone(), source })?;
    let mut interrupted = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return match status.code() {
                    Some(0) => Ok(()),
                    Some(code) => Err(HelixError::ExitStatus(code)),
                    None => Err(HelixError::Signal),
                };
            }
            Ok(None) => {}
            Err(e) => return Err(HelixError::Wait(e)),
        }
        if let Some(at) = interrupted {
            if std::time::Instant::now().duration_since(at) > Duration::from_secs(3) {
                let _ = child.kill();
            }
        }
        if let Some(tty::Key::CtrlC) = screen.tty.key(Some(Duration::from_millis(50))) {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-s", "INT", "--", &group]).stderr(Stdio::null()).status();
            interrupted.get_or_insert_with(std::time::Instant::now);
        }
    }
}

/// `leash helix keys`: the snippet.
pub fn keys(program: &str, helix_config: Option<&Path>) -> Result<String, HelixError> {
    Ok(keys::snippet(&keys::KeysOptions { program, helix_config, tag: None })?)
}

/// `leash helix keys --install`: the bindings written into Helix's config.toml (see
/// [`install_target`]); a key bound to something else is replaced only with `force`.
pub fn install_keys(program: &str, helix_config: Option<&Path>, path: &Path, force: bool) -> Result<(), HelixError> {
    Ok(keys::install(&keys::KeysOptions { program, helix_config, tag: None }, path, force)?)
}

/// The config.toml `keys --install` writes: `--helix-config`, else the file the Helix
/// that started leash reads (`hx -c FILE`), else Helix's default. Only a Helix ancestor
/// counts (a `python3 -c CODE` or `tmux -c DIR` says nothing about Helix), and a file
/// named on its command line is written only when it exists: a name on a command line
/// is no reason to create a file.
pub fn install_target(args: &Args) -> Result<PathBuf, HelixError> {
    if let Some(p) = &args.helix_config {
        return Ok(p.clone());
    }
    let from_helix = process::helix_pid().filter(|&p| process::is_helix(p)).and_then(process::helix_config_arg);
    match from_helix {
        Some(p) if p.is_file() => Ok(p),
        Some(p) => Err(HelixError::InstallTargetMissing(p)),
        None => config_toml::default_path().ok_or(HelixError::NoInstallTarget),
    }
}

/// `leash helix catalog`: the Helix catalog file for this folder, as JSON.
pub fn catalog_json(args: &Args) -> Result<String, HelixError> {
    let cfg = load_config(args)?;
    let cwd = std::env::current_dir().map_err(HelixError::NoWorkingDirectory)?;
    let c = catalog::build(catalog::detect_version(), &cwd, None, &cfg)?;
    Ok(c.catalog.to_json().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_keeps_its_line_breaks() {
        let toml = "TOML parse error at line 2, column 11\n  |\n2 | [providers\n  |           ^\nunclosed table";
        let rows = error_rows("leash: the configuration file has an error", toml);
        let lines: Vec<String> = rows.iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect()).collect();
        assert_eq!(
            lines[2..],
            ["TOML parse error at line 2, column 11", "  |", "2 | [providers", "  |           ^", "unclosed table"]
        );
        assert!(lines.iter().all(|l| !l.contains("^J")));
        // Other controls are still shown, not sent to the terminal.
        assert_eq!(error_rows("e", "a\u{1b}[2Jb")[2][0].0, "a^[[2Jb");
    }

    #[test]
    fn the_offline_planner_s_candidates_are_offered_by_number() {
        let tmp = tempfile::tempdir().unwrap();
        let args = Args { helix_config: Some(tmp.path().join("config.toml")), ..Args::default() };
        let mut prepared = prepare(&ProgramConfig::default(), &HelixContext::default(), &args).unwrap();
        prepared.model_context.current.insert("soft-wrap.enable".into(), json!(false));
        let r = planner::plan_blocking(&prepared.request(&ProgramConfig::default(), "toggle"), &CancelToken::new());
        // "toggle" alone names nothing: no plan, no candidates.
        assert!(r.unwrap().plan.choices.is_empty());
        let plan = planner::plan_blocking(
            &prepared.request(&ProgramConfig::default(), "wrap long lines visually for reading"),
            &CancelToken::new(),
        )
        .unwrap()
        .plan;
        assert!(plan.steps.is_empty() && !plan.choices.is_empty(), "{:?}", plan);
        let lines: Vec<String> =
            choice_rows(&plan).iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect()).collect();
        assert_eq!(lines[0], plan.reply);
        assert!(lines[2].starts_with("1  soft-wrap.enable: off → on"), "{lines:?}");
        assert!(lines.len() <= 2 + leash_core::planner::offline::CHOICES);
    }

    #[test]
    fn a_previewed_plan_is_applied_only_as_it_was_shown() {
        let tmp = tempfile::tempdir().unwrap();
        let args = Args { helix_config: Some(tmp.path().join("config.toml")), ..Args::default() };
        let cfg = ProgramConfig::default();
        let prepared = prepare(&cfg, &HelixContext::default(), &args).unwrap();
        let answer = r#"{"reply": "r", "steps": [
            {"type": "setting", "key": "line-number", "value": "relative", "why": "w"},
            {"type": "item", "id": "cmd:vsplit", "why": "w"},
            {"type": "item", "id": "cmd:no-such-command", "why": "w"}]}"#;
        let shown =
            leash_core::validate::validate_text(answer, &prepared.catalog.catalog, &prepared.policy, None).unwrap();
        let mut p = Preview {
            request: "r".into(),
            cwd: prepared.cwd.clone(),
            file: None,
            answer: answer.into(),
            validated: serde_json::to_value(&shown).unwrap(),
            at: now_secs(),
        };
        let again = previewed_plan(&p, &prepared).unwrap();
        assert_eq!(again, shown);
        assert_eq!(again.steps.len(), 2, "the unknown command stays dropped");
        // What the answer gives now is not what was shown: not applied.
        p.validated["steps"][0]["value"] = json!("absolute");
        assert!(matches!(previewed_plan(&p, &prepared), Err(HelixError::PreviewChanged)));
        p.validated = serde_json::to_value(&shown).unwrap();
        p.answer = "no plan here".into();
        assert!(matches!(previewed_plan(&p, &prepared), Err(HelixError::PreviewChanged)));
    }

    #[test]
    fn a_failing_step_names_its_file_or_program() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = tmp.path().join("gone.txt");
        let e = delete(&gone).unwrap_err().to_string();
        assert!(e.starts_with(&format!("cannot delete {}: ", gone.display())), "{e}");
        let e = start_detached(&["leash-no-such-program".into()]).unwrap_err().to_string();
        assert!(e.starts_with("cannot start leash-no-such-program: "), "{e}");
        assert!(matches!(start_detached(&[]), Err(HelixError::NothingToRun)));
    }

    #[test]
    fn the_model_is_told_each_setting_as_helix_has_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let cat = catalog::build(catalog::Version::data(), dir, None, &ProgramConfig::default()).unwrap().catalog;
        let toml = dir.join("config.toml");

        // No config.toml: Helix's defaults.
        let now = current_values(&cat, Some(&toml));
        assert_eq!(now.get("line-number"), Some(&json!("absolute")));
        assert_eq!(now.get("mouse"), Some(&json!(true)));

        // The user's values win over the defaults; the others stay the defaults.
        std::fs::write(&toml, "# mine\n[editor]\nmouse = false\nscrolloff = 8\n").unwrap();
        let now = current_values(&cat, Some(&toml));
        assert_eq!(now.get("mouse"), Some(&json!(false)));
        assert_eq!(now.get("scrolloff"), Some(&json!(8)));
        assert_eq!(now.get("line-number"), Some(&json!("absolute")));

        // A config.toml that does not parse tells nothing, rather than defaults that may be wrong.
        std::fs::write(&toml, "[editor\nmouse = false\n").unwrap();
        assert!(current_values(&cat, Some(&toml)).is_empty());
    }
}
