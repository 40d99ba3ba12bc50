//! `leash`: the core's command-line program. Every editor without a Lua host (Helix
//! first) reaches the ranker, prompt, validator and planner through it; JSON in, JSON out.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

use leash::catalog::Catalog;
use leash::llm::ProviderConfig;
use leash::policy::{Policy, Profile};
use leash::prompt::{self, Context};
use leash::rank::{self, Mode, DEFAULT_SHORTLIST};
use leash::validate;
use serde_json::{json, Value};

const HELP: &str = "\
leash — rank, prompt and validate plans for an editor driven by a language model

USAGE
  leash rank --catalog FILE [--limit N] [--mode any|all] QUERY...
      Prints a JSON array of {\"id\", \"kind\", \"score\"}, best first (a setting's id is
      its key). Default limit 60, mode any (a word may match on its own; scores add up).
  leash rank --catalog FILE [--limit N] [--mode any|all] --batch
      Reads JSON lines {\"qid\", \"query\", \"k\"} on stdin and writes one line
      {\"qid\", \"ranking\": [ids...]} per query (k, when given, overrides --limit).
  leash prompt --catalog FILE [--limit N] [--context JSON] REQUEST...
      Prints {\"system\", \"user\", \"schema\", \"shortlist\"}: the messages a model is sent.
      JSON context fields: os, filetype, selection, project, editor.
  leash validate --catalog FILE [--profile neovim|generic]
      Reads the model's raw answer on stdin and prints the validated plan:
      {\"reply\", \"confirm\", \"steps\", \"dropped\"}, each dropped step as
      {\"index\", \"code\", \"reason\"} (code: a stable name such as unknown_key or
      unsafe_argument). The profile defaults to the catalog's \"editor\" field.
  leash plan --catalog FILE [--provider NAME] [--model M] [--url U] [--config JSON]
             [--limit N] [--context JSON] REQUEST...
      Ranks, asks the model and prints the validated plan. NAME is anthropic, openai,
      ollama or offline (the default: no network, direct requests only); --config takes
      the whole provider table as JSON ({\"kind\": \"openai\", \"url\": ..., \"model\": ...,
      \"api_key_env\": ..., \"timeout_ms\": ...}). Keys come from ANTHROPIC_API_KEY,
      OPENAI_API_KEY… or the config's api_key_file / api_key_cmd.
  leash catalog --catalog FILE
      Checks a catalog file and prints its counts per kind.
  leash --version | --help

A catalog file is {\"version\": 1, \"editor\": \"neovim\", \"entries\": [...]}; an entry with
\"key\" is a setting, one with \"id\" an item. Errors go to stderr; the exit status is 1
for a failure and 2 for a usage error.
";

/// What went wrong, in words a user can act on.
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("{0}\nRun `leash --help` for usage.")]
    Usage(String),
    #[error("cannot read catalog {path}: {error}")]
    ReadCatalog { path: String, error: std::io::Error },
    #[error("catalog {path}: {error}")]
    Catalog { path: String, error: leash::catalog::CatalogError },
    #[error("{0}")]
    Parse(#[from] leash::plan::ParseError),
    #[error("reading standard input: {0}")]
    Stdin(std::io::Error),
    #[error("writing standard output: {0}")]
    Stdout(std::io::Error),
    #[error("{0}")]
    Plan(#[from] leash::llm::LlmError),
    #[error("batch line {line}: {message}")]
    Batch { line: usize, message: String },
}

impl CliError {
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// Parsed flags and positional words.
#[derive(Default)]
struct Flags {
    catalog: Option<String>,
    limit: Option<usize>,
    mode: Option<Mode>,
    batch: bool,
    context: Option<String>,
    profile: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    url: Option<String>,
    config: Option<String>,
    words: Vec<String>,
}

fn parse_flags(args: &[String]) -> Result<Flags, CliError> {
    let mut f = Flags::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| CliError::Usage(format!("{name} needs a value")));
        match arg.as_str() {
            "--catalog" => f.catalog = Some(value("--catalog")?),
            "--limit" => {
                let v = value("--limit")?;
                f.limit =
                    Some(v.parse().map_err(|_| CliError::Usage(format!("--limit takes a whole number, not “{v}”")))?);
            }
            "--mode" => {
                let v = value("--mode")?;
                f.mode =
                    Some(Mode::parse(&v).ok_or_else(|| CliError::Usage(format!("--mode is any or all, not “{v}”")))?);
            }
            "--batch" => f.batch = true,
            "--context" => f.context = Some(value("--context")?),
            "--profile" => f.profile = Some(value("--profile")?),
            "--provider" => f.provider = Some(value("--provider")?),
            "--model" => f.model = Some(value("--model")?),
            "--url" => f.url = Some(value("--url")?),
            "--config" => f.config = Some(value("--config")?),
            "--" => f.words.extend(it.by_ref().cloned()),
            s if s.starts_with("--") => return Err(CliError::Usage(format!("unknown flag {s}"))),
            s => f.words.push(s.to_string()),
        }
    }
    Ok(f)
}

fn load_catalog(f: &Flags) -> Result<Catalog, CliError> {
    let path = f.catalog.clone().ok_or_else(|| CliError::Usage("--catalog FILE is required".into()))?;
    let text = std::fs::read_to_string(&path).map_err(|error| CliError::ReadCatalog { path: path.clone(), error })?;
    Catalog::from_json(&text).map_err(|error| CliError::Catalog { path, error })
}

fn print(out: &mut impl Write, v: &Value) -> Result<(), CliError> {
    writeln!(out, "{v}").map_err(CliError::Stdout)
}

fn ranked_json(r: &rank::Ranked) -> Value {
    json!({"id": r.entry.name(), "kind": r.entry.kind(), "score": r.score})
}

fn cmd_rank(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let limit = f.limit.unwrap_or(DEFAULT_SHORTLIST);
    let mode = f.mode.unwrap_or_default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if !f.batch {
        if f.words.is_empty() {
            return Err(CliError::Usage("rank needs a QUERY (or --batch)".into()));
        }
        let ranked = rank::rank(&catalog, &f.words.join(" "), limit, mode);
        print(&mut out, &Value::Array(ranked.iter().map(ranked_json).collect()))?;
        return out.flush().map_err(CliError::Stdout);
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
        let ranking: Vec<&str> = rank::rank(&catalog, query, k, mode).iter().map(|r| r.entry.name()).collect();
        print(&mut out, &json!({"qid": q.get("qid").cloned().unwrap_or(Value::Null), "ranking": ranking}))?;
    }
    out.flush().map_err(CliError::Stdout)
}

fn context_for(f: &Flags, catalog: &Catalog) -> Result<Context, CliError> {
    let mut context: Context = match &f.context {
        Some(text) => serde_json::from_str(text)
            .map_err(|e| CliError::Usage(format!("--context is not a JSON object of context fields: {e}")))?,
        None => Context::default(),
    };
    if context.editor.is_empty() && catalog.editor() == "neovim" {
        context.editor = "Neovim".into();
    }
    Ok(context)
}

fn cmd_prompt(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    if f.words.is_empty() {
        return Err(CliError::Usage("prompt needs a REQUEST".into()));
    }
    let context = context_for(&f, &catalog)?;
    let request = f.words.join(" ");
    let shortlist = rank::rank(&catalog, &request, f.limit.unwrap_or(DEFAULT_SHORTLIST), f.mode.unwrap_or_default());
    let p = prompt::build(&request, &shortlist, &context);
    let v = serde_json::to_value(&p).unwrap_or(Value::Null);
    print(&mut std::io::stdout().lock(), &v)
}

fn policy_for(f: &Flags, catalog: &Catalog) -> Result<Policy, CliError> {
    let name = f.profile.as_deref().unwrap_or(catalog.editor());
    Ok(Policy::new(Profile::for_editor(name).map_err(CliError::Usage)?))
}

fn cmd_validate(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    let policy = policy_for(&f, &catalog)?;
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).map_err(CliError::Stdin)?;
    let plan = validate::validate_text(&text, &catalog, &policy)?;
    print(&mut std::io::stdout().lock(), &plan.to_json())
}

fn cmd_plan(f: Flags) -> Result<(), CliError> {
    let catalog = load_catalog(&f)?;
    if f.words.is_empty() {
        return Err(CliError::Usage("plan needs a REQUEST".into()));
    }
    let context = context_for(&f, &catalog)?;
    let policy = policy_for(&f, &catalog)?;
    let mut config = match (&f.config, &f.provider) {
        (Some(text), _) => {
            let v: Value =
                serde_json::from_str(text).map_err(|e| CliError::Usage(format!("--config is not JSON: {e}")))?;
            ProviderConfig::from_json(&v)?
        }
        (None, Some(name)) if name != "offline" => ProviderConfig::named(name),
        (None, _) => ProviderConfig::default(),
    };
    if let Some(model) = &f.model {
        config.model = Some(model.clone());
    }
    if let Some(url) = &f.url {
        config.url = Some(url.clone());
    }
    let request = f.words.join(" ");
    let cancel = leash::runtime::CancelToken::new();
    let limit = f.limit.unwrap_or(DEFAULT_SHORTLIST);
    let outcome = leash::llm::plan_blocking(&request, &catalog, limit, &context, &config, &policy, &cancel)?;
    print(&mut std::io::stdout().lock(), &outcome.plan.to_json())
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

fn run(args: Vec<String>) -> Result<(), CliError> {
    let Some((command, rest)) = args.split_first() else {
        return Err(CliError::Usage("no command given".into()));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => {
            print!("{HELP}");
            Ok(())
        }
        "-V" | "--version" => {
            println!("leash {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        "rank" => cmd_rank(parse_flags(rest)?),
        "prompt" => cmd_prompt(parse_flags(rest)?),
        "validate" => cmd_validate(parse_flags(rest)?),
        "plan" => cmd_plan(parse_flags(rest)?),
        "catalog" => cmd_catalog(parse_flags(rest)?),
        other => Err(CliError::Usage(format!("unknown command “{other}”"))),
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
