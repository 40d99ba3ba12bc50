//! `leash`: the core's command-line program. Every editor without a Lua host (Helix
//! first) reaches the ranker, prompt, validator and planner through it; JSON in, JSON out.
//!
//! Each subcommand is one row of [`SUBCOMMANDS`]: its name, the flags it takes, whether it
//! takes words, its help and the function that runs it. A flag is one row of [`FLAGS`]
//! and one arm of [`Flags::set`]. Adding a subcommand or a flag is a row (and an arm);
//! a flag a subcommand does not list is a usage error naming both.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

use leash_core::catalog::Catalog;
use leash_core::llm::ProviderConfig;
use leash_core::planner::PlanRequest;
use leash_core::policy::Policy;
use leash_core::profile::Profile;
use leash_core::prompt::{self, Context};
use leash_core::rank::{self, Mode, DEFAULT_SHORTLIST};
use leash_core::validate;
use serde_json::{json, Value};

const ABOUT: &str = "leash — rank, prompt and validate plans for an editor driven by a language model";

const FOOTER: &str = "\
A catalog file is {\"version\": 1, \"editor\": \"neovim\", \"entries\": [...]}; an entry with
\"key\" is a setting, one with \"id\" an item. Errors go to stderr; the exit status is 1
for a failure and 2 for a usage error.
";

/// A subcommand: its name, the flags it takes, its positional words, its help, its code.
struct Subcommand {
    name: &'static str,
    /// Names from [`FLAGS`].
    flags: &'static [&'static str],
    /// What the positional words are (`QUERY...`), or `None` if it takes none.
    words: Option<&'static str>,
    /// Usage lines and what it does, as `leash --help` and `leash NAME --help` print them.
    help: &'static str,
    run: fn(Flags) -> Result<(), CliError>,
}

const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "rank",
        flags: &["--catalog", "--limit", "--mode", "--batch"],
        words: Some("QUERY..."),
        help: "\
  leash rank --catalog FILE [--limit N] [--mode any|all] QUERY...
      Prints a JSON array of {\"id\", \"kind\", \"score\"}, best first (a setting's id is
      its key). Default limit 60, mode any (a word may match on its own; scores add up).
  leash rank --catalog FILE [--limit N] [--mode any|all] --batch
      Reads JSON lines {\"qid\", \"query\", \"k\"} on stdin and writes one line
      {\"qid\", \"ranking\": [ids...]} per query (k, when given, overrides --limit).
",
        run: cmd_rank,
    },
    Subcommand {
        name: "prompt",
        flags: &["--catalog", "--limit", "--mode", "--context"],
        words: Some("REQUEST..."),
        help: "\
  leash prompt --catalog FILE [--limit N] [--mode any|all] [--context JSON] REQUEST...
      Prints {\"system\", \"user\", \"schema\", \"shortlist\"}: the messages a model is sent.
      JSON context fields: os, filetype, selection, project, editor, and range: the
      user's lines [FIRST, LAST], which items marked \"range\": true run on.
",
        run: cmd_prompt,
    },
    Subcommand {
        name: "validate",
        flags: &["--catalog", "--profile", "--context"],
        words: None,
        help: "\
  leash validate --catalog FILE [--profile neovim|generic] [--context JSON]
      Reads the model's raw answer on stdin and prints the validated plan:
      {\"reply\", \"confirm\", \"steps\", \"dropped\"}, each dropped step as
      {\"index\", \"code\", \"reason\"} (code: a stable name such as unknown_key or
      unsafe_argument). The profile defaults to the catalog's \"editor\" field; a
      context range goes to the steps that take one.
",
        run: cmd_validate,
    },
    Subcommand {
        name: "plan",
        flags: &[
            "--catalog",
            "--provider",
            "--model",
            "--url",
            "--config",
            "--limit",
            "--context",
            "--profile",
            "--raw",
        ],
        words: Some("REQUEST..."),
        help: "\
  leash plan --catalog FILE [--provider NAME] [--model M] [--url U] [--config JSON]
             [--limit N] [--context JSON] [--profile neovim|generic] [--raw] REQUEST...
      Ranks, asks the model and prints the validated plan. NAME is anthropic, openai,
      ollama or offline (the default: no network, direct requests only); --config takes
      the provider table as JSON ({\"kind\": \"openai\", \"url\": ..., \"model\": ...,
      \"api_key_env\": ..., \"timeout_ms\": ..., \"max_tokens\": ..., \"structured\": ...}),
      on top of NAME when both are given, checked key by key as a provider table of the
      config file is (a null leaves a key unset). Keys come from ANTHROPIC_API_KEY,
      OPENAI_API_KEY… or the config's api_key_file / api_key_cmd. When the model asks
      to look entries up, they are searched in the whole catalog and it is asked once
      more. --raw prints the whole record instead of the plan: every exchange with the
      model's raw answer, look-ups, timings and the plan (also when planning fails; the
      error still goes to stderr). --context may carry \"current\": {KEY: VALUE} with the
      settings' current values.
",
        run: cmd_plan,
    },
    Subcommand {
        name: "mcp",
        flags: &["--server"],
        words: None,
        help: "\
  leash mcp [--server ADDR]
      An MCP server on stdin/stdout for coding agents (claude mcp add --scope user leash
      -- leash mcp). It reaches the running Neovim at ADDR, default $NVIM (set inside
      Neovim's :terminal; Codex passes it on only with env_vars = [\"NVIM\"] in its
      [mcp_servers.leash] table): a socket path, or HOST:PORT for nvim --listen
      HOST:PORT. Its tools: catalog_search {request, limit?}, propose_plan {plan},
      editor_state. A plan is checked by leash in that Neovim and shown in its plan
      window; the call returns when the person decided. See :help leash-mcp.
",
        run: cmd_mcp,
    },
    Subcommand {
        name: "catalog",
        flags: &["--catalog"],
        words: None,
        help: "\
  leash catalog --catalog FILE
      Checks a catalog file and prints its counts per kind.
",
        run: cmd_catalog,
    },
];

/// A flag: its name and the placeholder of its value (`None` for a switch).
struct FlagSpec {
    name: &'static str,
    value: Option<&'static str>,
}

const FLAGS: &[FlagSpec] = &[
    FlagSpec { name: "--catalog", value: Some("FILE") },
    FlagSpec { name: "--limit", value: Some("N") },
    FlagSpec { name: "--mode", value: Some("any|all") },
    FlagSpec { name: "--batch", value: None },
    FlagSpec { name: "--raw", value: None },
    FlagSpec { name: "--context", value: Some("JSON") },
    FlagSpec { name: "--profile", value: Some("neovim|generic") },
    FlagSpec { name: "--provider", value: Some("NAME") },
    FlagSpec { name: "--model", value: Some("M") },
    FlagSpec { name: "--url", value: Some("U") },
    FlagSpec { name: "--config", value: Some("JSON") },
    FlagSpec { name: "--server", value: Some("ADDR") },
];

/// What went wrong, in words a user can act on.
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("{message}\nRun `{}` for usage.", help_command(.command))]
    Usage { message: String, command: Option<&'static str> },
    #[error("cannot read catalog {path}: {error}")]
    ReadCatalog { path: String, error: std::io::Error },
    #[error("catalog {path}: {error}")]
    Catalog { path: String, error: leash_core::catalog::CatalogError },
    #[error("{0}")]
    Parse(#[from] leash_core::plan::ParseError),
    #[error("reading standard input: {0}")]
    Stdin(std::io::Error),
    #[error("writing standard output: {0}")]
    Stdout(std::io::Error),
    #[error("{0}")]
    Plan(#[from] leash_core::planner::PlanFailure),
    #[error("{0}")]
    Provider(#[from] leash_core::llm::LlmError),
    #[error("{0}")]
    Mcp(#[from] leash::mcp::McpError),
    #[error("batch line {line}: {message}")]
    Batch { line: usize, message: String },
    /// A Helix frontend error that is not about the command line (a config file).
    #[cfg(unix)]
    #[error(transparent)]
    Helix(#[from] leash::helix::HelixError),
    /// `leash helix` where the frontend cannot run (it draws on `/dev/tty`).
    #[cfg(not(unix))]
    #[error("the Helix frontend needs a Unix terminal (/dev/tty)")]
    NoTerminal,
}

fn help_command(command: &Option<&'static str>) -> String {
    match command {
        Some(name) => format!("leash {name} --help"),
        None => "leash --help".into(),
    }
}

impl CliError {
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage { .. } => 2,
            _ => 1,
        }
    }
}

/// A usage error of subcommand `command`.
fn usage(command: &'static str, message: impl Into<String>) -> CliError {
    CliError::Usage { message: message.into(), command: Some(command) }
}

/// The flags and positional words given to one subcommand.
#[derive(Default)]
struct Flags {
    /// The subcommand's name, for messages.
    command: &'static str,
    help: bool,
    catalog: Option<String>,
    limit: Option<usize>,
    mode: Option<Mode>,
    batch: bool,
    raw: bool,
    context: Option<String>,
    profile: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    url: Option<String>,
    config: Option<String>,
    server: Option<String>,
    words: Vec<String>,
}

impl Flags {
    /// Parses `args` for `sub`: only the flags it lists, words only if it takes them.
    fn parse(sub: &Subcommand, args: &[String]) -> Result<Flags, CliError> {
        let mut f = Flags { command: sub.name, ..Flags::default() };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let word = match arg.as_str() {
                "-h" | "--help" => {
                    f.help = true;
                    continue;
                }
                "--" => {
                    for w in it.by_ref() {
                        f.word(sub, w)?;
                    }
                    break;
                }
                s if s.starts_with("--") => s,
                s => {
                    f.word(sub, s)?;
                    continue;
                }
            };
            let (name, inline) = match word.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (word, None),
            };
            let Some(spec) = FLAGS.iter().find(|s| s.name == name) else {
                return Err(usage(sub.name, format!("unknown flag {name} for leash {}", sub.name)));
            };
            if !sub.flags.contains(&spec.name) {
                let takes = sub.flags.join(", ");
                return Err(usage(sub.name, format!("leash {} does not take {name} (it takes {takes})", sub.name)));
            }
            let value = match (spec.value, inline) {
                (None, Some(_)) => return Err(usage(sub.name, format!("{name} takes no value"))),
                (None, None) => None,
                (Some(_), Some(v)) => Some(v),
                (Some(_), None) => {
                    Some(it.next().cloned().ok_or_else(|| usage(sub.name, format!("{name} needs a value")))?)
                }
            };
            f.set(spec.name, value)?;
        }
        Ok(f)
    }

    fn word(&mut self, sub: &Subcommand, word: &str) -> Result<(), CliError> {
        if sub.words.is_none() {
            return Err(usage(sub.name, format!("leash {} takes no arguments, not “{word}”", sub.name)));
        }
        self.words.push(word.to_string());
        Ok(())
    }

    /// Stores flag `name` (a row of [`FLAGS`]); `value` is `Some` exactly for flags with one.
    fn set(&mut self, name: &'static str, value: Option<String>) -> Result<(), CliError> {
        let command = self.command;
        let text = || value.clone().unwrap_or_default();
        match name {
            "--catalog" => self.catalog = Some(text()),
            "--limit" => {
                let v = text();
                let n = v.parse().map_err(|_| usage(command, format!("--limit takes a whole number, not “{v}”")))?;
                self.limit = Some(n);
            }
            "--mode" => {
                let v = text();
                let mode = Mode::parse(&v).ok_or_else(|| usage(command, format!("--mode is any or all, not “{v}”")))?;
                self.mode = Some(mode);
            }
            "--batch" => self.batch = true,
            "--raw" => self.raw = true,
            "--context" => self.context = Some(text()),
            "--profile" => self.profile = Some(text()),
            "--provider" => self.provider = Some(text()),
            "--model" => self.model = Some(text()),
            "--url" => self.url = Some(text()),
            "--config" => self.config = Some(text()),
            "--server" => self.server = Some(text()),
            other => return Err(usage(command, format!("{other} is listed but not handled (a bug in leash)"))),
        }
        Ok(())
    }

    /// The positional words joined, or a usage error naming what is missing.
    fn request(&self) -> Result<String, CliError> {
        if self.words.is_empty() {
            let what = SUBCOMMANDS.iter().find(|s| s.name == self.command).and_then(|s| s.words).unwrap_or("words");
            return Err(usage(self.command, format!("leash {} needs {what}", self.command)));
        }
        Ok(self.words.join(" "))
    }
}

/// `leash --help`: every subcommand's help.
fn help() -> String {
    let mut out = format!("{ABOUT}\n\nUSAGE\n");
    for sub in SUBCOMMANDS {
        out.push_str(sub.help);
    }
    out.push_str(HELIX_USAGE);
    out.push_str("  leash --version | --help\n  leash COMMAND --help\n\n");
    out.push_str(FOOTER);
    out
}

fn load_catalog(f: &Flags) -> Result<Catalog, CliError> {
    let path = f.catalog.clone().ok_or_else(|| usage(f.command, "--catalog FILE is required"))?;
    let text = std::fs::read_to_string(&path).map_err(|error| CliError::ReadCatalog { path: path.clone(), error })?;
    let catalog = Catalog::from_json(&text).map_err(|error| CliError::Catalog { path, error })?;
    Ok(leash_core::policy::narrow_catalog(catalog))
}

fn print(out: &mut impl Write, v: &Value) -> Result<(), CliError> {
    writeln!(out, "{v}").map_err(CliError::Stdout)
}

fn ranked_json(r: &rank::Ranked) -> Value {
    json!({"id": r.entry.name(), "kind": r.entry.kind(), "score": r.score})
}

fn cmd_rank(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let index = rank::Index::new(&catalog);
    let limit = f.limit.unwrap_or(DEFAULT_SHORTLIST);
    let mode = f.mode.unwrap_or_default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if !f.batch {
        let ranked = rank::rank(&index, &catalog, &f.request()?, limit, mode);
        print(&mut out, &Value::Array(ranked.iter().map(ranked_json).collect()))?;
        return out.flush().map_err(CliError::Stdout);
    }
    if !f.words.is_empty() {
        return Err(usage(f.command, "leash rank --batch reads its queries on stdin, not as arguments"));
    }
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(CliError::Stdin)?;
        if line.trim().is_empty() {
            continue;
        }
        let batch_err = |message: String| CliError::Batch { line: n + 1, message };
        let q: Value = serde_json::from_str(&line).map_err(|e| batch_err(e.to_string()))?;
        let query = q.get("query").and_then(Value::as_str).ok_or_else(|| batch_err("missing “query”".into()))?;
        let k = q.get("k").and_then(Value::as_u64).map_or(limit, |k| k as usize);
        let ranking: Vec<&str> = rank::rank(&index, &catalog, query, k, mode).iter().map(|r| r.entry.name()).collect();
        print(&mut out, &json!({"qid": q.get("qid").cloned().unwrap_or(Value::Null), "ranking": ranking}))?;
    }
    out.flush().map_err(CliError::Stdout)
}

fn context_for(f: &Flags, catalog: &Catalog) -> Result<Context, CliError> {
    let mut context: Context = match &f.context {
        Some(text) => serde_json::from_str(text)
            .map_err(|e| usage(f.command, format!("--context is not a JSON object of context fields: {e}")))?,
        None => Context::default(),
    };
    if context.editor.is_empty() && catalog.editor() == "neovim" {
        context.editor = "Neovim".into();
    }
    Ok(context)
}

fn cmd_prompt(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let request = f.request()?;
    let context = context_for(&f, &catalog)?;
    let limit = f.limit.unwrap_or(DEFAULT_SHORTLIST);
    let shortlist = rank::rank(&rank::Index::new(&catalog), &catalog, &request, limit, f.mode.unwrap_or_default());
    let p = prompt::build(&request, &shortlist, &context);
    let v = serde_json::to_value(&p).unwrap_or(Value::Null);
    print(&mut std::io::stdout().lock(), &v)
}

fn policy_for(f: &Flags, catalog: &Catalog) -> Result<Policy, CliError> {
    let name = f.profile.as_deref().unwrap_or(catalog.editor());
    Ok(Policy::new(Profile::for_editor(name).map_err(|m| usage(f.command, m.to_string()))?))
}

fn cmd_validate(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let policy = policy_for(&f, &catalog)?;
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).map_err(CliError::Stdin)?;
    let context = context_for(&f, &catalog)?;
    let plan = validate::validate_text(&text, &catalog, &policy, context.range)?;
    print(&mut std::io::stdout().lock(), &plan.to_json())
}

fn cmd_plan(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let request = f.request()?;
    let context = context_for(&f, &catalog)?;
    let policy = policy_for(&f, &catalog)?;
    let mut config = match (&f.config, &f.provider) {
        (Some(text), name) => {
            let mut v: Value =
                serde_json::from_str(text).map_err(|e| usage(f.command, format!("--config is not JSON: {e}")))?;
            if !v.is_object() {
                return Err(usage(f.command, "--config takes a JSON object of provider settings"));
            }
            // --provider names what --config does not.
            if let (Some(name), Value::Object(m)) = (name, &mut v) {
                if !m.contains_key("name") && !m.contains_key("kind") && name != "offline" {
                    m.insert("name".into(), Value::String(name.clone()));
                }
            }
            leash_core::schema::check_provider(&v).map_err(|e| usage(f.command, format!("--config: {e}")))?
        }
        (None, Some(name)) if name != "offline" => ProviderConfig::named(name),
        (None, _) => ProviderConfig::default(),
    };
    config.settings_in = leash_core::llm::SettingsIn::Cli;
    if let Some(model) = &f.model {
        config.model = Some(model.clone());
    }
    if let Some(url) = &f.url {
        config.url = Some(url.clone());
    }
    let mut req = PlanRequest::new(request, std::sync::Arc::new(catalog), policy);
    req.limit = f.limit.unwrap_or(DEFAULT_SHORTLIST);
    req.context = context;
    req.provider = config;
    let cancel = leash_core::runtime::CancelToken::new();
    match leash_core::planner::plan_blocking(&req, &cancel) {
        Ok(outcome) if f.raw => {
            writeln!(std::io::stdout().lock(), "{}", outcome.log.to_line()).map_err(CliError::Stdout)
        }
        Ok(outcome) => print(&mut std::io::stdout().lock(), &outcome.plan.to_json()),
        Err(failure) => {
            if f.raw {
                writeln!(std::io::stdout().lock(), "{}", failure.log.to_line()).map_err(CliError::Stdout)?;
            }
            Err(failure.into())
        }
    }
}

fn cmd_catalog(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let mut counts = serde_json::Map::new();
    for e in catalog.entries() {
        let slot = counts.entry(e.kind().to_string()).or_insert(json!(0));
        *slot = json!(slot.as_u64().unwrap_or(0) + 1);
    }
    print(
        &mut std::io::stdout().lock(),
        &json!({"editor": catalog.editor(), "entries": catalog.len(), "kinds": counts}),
    )
}

fn cmd_mcp(f: Flags) -> Result<(), CliError> {
    if f.server.as_deref() == Some("") {
        return Err(usage(
            f.command,
            "--server takes Neovim's address (a socket path or HOST:PORT), not an empty word",
        ));
    }
    Ok(leash::mcp::run(leash::mcp::Options { server: f.server })?)
}

const HELIX_USAGE: &str = "\
  leash helix keys | do | take | resume | ask | plan | catalog   (see `leash helix --help`)
      The Helix frontend: a key binding in Helix's config.toml starts these.
";

const HELIX_HELP: &str = include_str!("helix-help.txt");

/// A usage error of `leash helix`.
fn helix_usage(message: impl Into<String>) -> CliError {
    usage("helix", message)
}

/// `leash helix …`: a thin dispatch to the Helix frontend (src/helix/), which has
/// subcommands of its own.
#[cfg(unix)]
fn cmd_helix(args: &[String]) -> Result<(), CliError> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(helix_usage("helix needs a subcommand: keys, do, take, resume, ask, plan or catalog"));
    };
    let mut opts = leash::helix::Args::default();
    let mut program: Option<String> = None;
    let mut install = false;
    let mut force = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| helix_usage(format!("{name} needs a value")));
        match a.as_str() {
            "--tag" => opts.tag = Some(value("--tag")?),
            "--helix-config" => opts.helix_config = Some(value("--helix-config")?.into()),
            "--config" => opts.config = Some(value("--config")?.into()),
            "--command" if sub == "keys" => program = Some(value("--command")?),
            "--install" if sub == "keys" => install = true,
            "--force" if sub == "keys" => force = true,
            other => return Err(helix_usage(format!("leash helix {sub}: unknown argument {other}"))),
        }
    }
    let mut out = std::io::stdout().lock();
    let text = match sub.as_str() {
        "-h" | "--help" | "help" => HELIX_HELP.to_string(),
        "keys" => {
            let program = match program {
                Some(p) => p,
                None => std::env::current_exe()
                    .map_err(|e| helix_usage(format!("cannot find leash's own path ({e}); pass --command leash")))?
                    .to_string_lossy()
                    .into_owned(),
            };
            if install {
                let path = leash::helix::install_target(&opts)?;
                leash::helix::install_keys(&program, opts.helix_config.as_deref(), &path, force)?;
                format!("leash: added space . and space , (and leash's own keys under space F12) to {} (run :config-reload in Helix)\n", path.display())
            } else {
                leash::helix::keys(&program, opts.helix_config.as_deref()).map_err(|e| helix_usage(e.to_string()))?
            }
        }
        "do" => {
            leash::helix::run_do(&opts);
            String::new()
        }
        "take" => return write!(out, "{}", leash::helix::run_take()).map_err(CliError::Stdout),
        "resume" => {
            leash::helix::run_resume();
            String::new()
        }
        "ask" => {
            leash::helix::run_ask(&opts);
            String::new()
        }
        "plan" => leash::helix::run_plan(&opts),
        "catalog" => format!("{}\n", leash::helix::catalog_json(&opts)?),
        other => return Err(helix_usage(format!("unknown helix subcommand “{other}”"))),
    };
    write!(out, "{text}").map_err(CliError::Stdout)
}

#[cfg(not(unix))]
fn cmd_helix(_: &[String]) -> Result<(), CliError> {
    Err(CliError::NoTerminal)
}

fn run(args: Vec<String>) -> Result<(), CliError> {
    let Some((command, rest)) = args.split_first() else {
        return Err(CliError::Usage { message: "no command given".into(), command: None });
    };
    let find = |name: &str| {
        SUBCOMMANDS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| CliError::Usage { message: format!("unknown command “{name}”"), command: None })
    };
    match command.as_str() {
        "-h" | "--help" | "help" => {
            match rest.first() {
                Some(name) => print!("{}", find(name)?.help),
                None => print!("{}", help()),
            }
            Ok(())
        }
        "-V" | "--version" => {
            println!("leash {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        "helix" => cmd_helix(rest),
        name => {
            let sub = find(name)?;
            let flags = Flags::parse(sub, rest)?;
            if flags.help {
                print!("{}", sub.help);
                return Ok(());
            }
            (sub.run)(flags)
        }
    }
}

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("leash: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_flag_exists_is_handled_and_is_in_the_help() {
        for sub in SUBCOMMANDS {
            for name in sub.flags {
                let spec = FLAGS.iter().find(|s| s.name == *name);
                assert!(spec.is_some(), "leash {} lists {name}, which FLAGS lacks", sub.name);
                assert!(sub.help.contains(name), "leash {} --help does not mention {name}", sub.name);
            }
        }
        for spec in FLAGS {
            let value = spec.value.map(|_| match spec.name {
                "--limit" => "3".to_string(),
                "--mode" => "all".to_string(),
                _ => "x".to_string(),
            });
            let mut f = Flags::default();
            assert!(f.set(spec.name, value).is_ok(), "{} is not handled by Flags::set", spec.name);
            assert!(SUBCOMMANDS.iter().any(|s| s.flags.contains(&spec.name)), "no subcommand takes {}", spec.name);
        }
    }
}
