//! The `leash` program's configuration file, `$XDG_CONFIG_HOME/leash/config.toml`
//! (`~/.config/leash/config.toml`): the same keys as Neovim's `setup()`, validated with
//! errors that name the key.
//!
//! ```toml
//! provider = "claude"
//! shortlist_limit = 60
//! [providers.claude]
//! kind = "anthropic"
//! api_key_env = "ANTHROPIC_API_KEY"
//! ```
//!
//! A missing file means the defaults (offline planning). Keys that only mean something in
//! Neovim (`keymap_modes`, the `lsp`/`keymaps`/`user_commands`/`diagnostics` sources) are
//! accepted so one file can be shared, and have no effect here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::catalog::Args;
use crate::llm::ProviderConfig;
use crate::policy::RaiseRule;
use crate::reach::Reach;

/// What is wrong with the file, naming the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} is not valid TOML: {error}")]
    Syntax { path: String, error: String },
    #[error("{path}: {key} {message}")]
    Key { path: String, key: String, message: String },
}

/// Which catalog sources are on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    pub commands: bool,
    pub options: bool,
    pub scripts: bool,
    pub git: bool,
    pub files: bool,
    pub terminal: bool,
}

impl Default for Sources {
    fn default() -> Self {
        Sources { commands: true, options: true, scripts: true, git: true, files: true, terminal: true }
    }
}

/// An item of the user's own: an argv run on the terminal (always `shell`).
#[derive(Debug, Clone, PartialEq)]
pub struct UserEntry {
    pub id: String,
    pub title: String,
    pub cmd: Vec<String>,
    pub cwd: Option<String>,
    pub args: Args,
    pub aliases: Vec<String>,
    pub description: String,
}

/// The whole configuration, defaults filled in.
#[derive(Debug, Clone)]
pub struct ProgramConfig {
    /// The file it came from (it may not exist).
    pub path: PathBuf,
    pub provider: Option<String>,
    pub providers: BTreeMap<String, Value>,
    pub shortlist_limit: usize,
    pub confirm_before_run: bool,
    pub sources: Sources,
    pub entries: Vec<UserEntry>,
    pub log: bool,
    pub timeout_ms: Option<u64>,
    pub raise: Vec<RaiseRule>,
}

impl Default for ProgramConfig {
    fn default() -> Self {
        ProgramConfig {
            path: PathBuf::new(),
            provider: None,
            providers: BTreeMap::new(),
            shortlist_limit: crate::rank::DEFAULT_SHORTLIST,
            confirm_before_run: true,
            sources: Sources::default(),
            entries: Vec::new(),
            log: true,
            timeout_ms: None,
            raise: Vec::new(),
        }
    }
}

/// `$XDG_CONFIG_HOME`, else `~/.config` (also on macOS, like Helix).
pub fn config_home() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home().map(|h| h.join(".config")))
}

/// `$XDG_STATE_HOME`, else `~/.local/state`.
pub fn state_home() -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home().map(|h| h.join(".local/state")))
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")).map(PathBuf::from)
}

/// Where the configuration file is looked for.
pub fn default_path() -> Option<PathBuf> {
    config_home().map(|c| c.join("leash").join("config.toml"))
}

impl ProgramConfig {
    /// Reads the file at `path`; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<ProgramConfig, ConfigError> {
        let shown = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => ProgramConfig::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(ProgramConfig { path: path.to_path_buf(), ..ProgramConfig::default() })
            }
            Err(error) => Err(ConfigError::Read { path: shown, error }),
        }
    }

    /// Parses the file's text; `path` is for messages.
    pub fn parse(text: &str, path: &Path) -> Result<ProgramConfig, ConfigError> {
        let shown = path.display().to_string();
        let root = crate::toml_json::parse(text)
            .map_err(|e| ConfigError::Syntax { path: shown.clone(), error: e.to_string() })?;
        let bad = |key: &str, message: String| ConfigError::Key { path: shown.clone(), key: key.to_string(), message };
        let mut cfg = ProgramConfig { path: path.to_path_buf(), ..ProgramConfig::default() };
        let Value::Object(top) = root else { return Ok(cfg) };
        for (key, v) in &top {
            match key.as_str() {
                "provider" => cfg.provider = Some(string(v).ok_or_else(|| bad(key, type_msg("a string", v)))?),
                "providers" => cfg.providers = providers(v, &bad)?,
                "shortlist_limit" => cfg.shortlist_limit = integer_in(v, 1, 500).map_err(|m| bad(key, m))? as usize,
                "confirm_before_run" => cfg.confirm_before_run = boolean(v).map_err(|m| bad(key, m))?,
                "log" => cfg.log = boolean(v).map_err(|m| bad(key, m))?,
                "timeout_ms" => cfg.timeout_ms = Some(integer_in(v, 1000, 600_000).map_err(|m| bad(key, m))?),
                "sources" => cfg.sources = sources(v, &bad)?,
                "entries" => cfg.entries = entries(v, &bad)?,
                "raise" => cfg.raise = raise(v, &bad)?,
                "keymap_modes" => {
                    let ok = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
                    if !ok {
                        return Err(bad(key, type_msg("a list of strings", v)));
                    }
                }
                other => return Err(bad(other, unknown_msg(other, TOP_KEYS))),
            }
        }
        if let Some(name) = &cfg.provider {
            let builtin = ["anthropic", "openai", "ollama", "offline"].contains(&name.as_str());
            if !builtin && !cfg.providers.contains_key(name) {
                let known: Vec<&str> = cfg.providers.keys().map(String::as_str).collect();
                let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                return Err(bad(
                    "provider",
                    format!("names “{name}”, which is not defined in [providers] (known: {known})"),
                ));
            }
        }
        Ok(cfg)
    }

    /// The provider configuration the planner uses: the named provider's table (with the
    /// top-level `timeout_ms` when it sets none), or the offline planner.
    pub fn provider_config(&self) -> Result<ProviderConfig, crate::llm::LlmError> {
        let Some(name) = self.provider.as_deref().filter(|n| *n != "offline") else {
            return Ok(ProviderConfig::default());
        };
        let mut table = match self.providers.get(name) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        table.entry("name").or_insert_with(|| Value::String(name.to_string()));
        if !table.contains_key("timeout_ms") {
            // A deadline message then names the top-level key, the one to change.
            table.insert("timeout_setting".into(), Value::from("timeout_ms"));
            if let Some(ms) = self.timeout_ms {
                table.insert("timeout_ms".into(), Value::from(ms));
            }
        }
        ProviderConfig::from_json(&Value::Object(table))
    }
}

const TOP_KEYS: &[&str] = &[
    "provider",
    "providers",
    "shortlist_limit",
    "confirm_before_run",
    "sources",
    "entries",
    "keymap_modes",
    "log",
    "timeout_ms",
    "raise",
];

fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a table",
    }
}

fn type_msg(want: &str, v: &Value) -> String {
    format!("should be {want}, not {}", json_type(v))
}

fn boolean(v: &Value) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| type_msg("true or false", v))
}

fn integer_in(v: &Value, lo: u64, hi: u64) -> Result<u64, String> {
    match v.as_u64() {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("should be a whole number from {lo} to {hi}, not {v}")),
    }
}

/// “is not a known key (did you mean `providers`?)”.
fn unknown_msg(key: &str, known: &[&str]) -> String {
    let close = known
        .iter()
        .map(|k| (distance(key, k), *k))
        .min()
        .filter(|(d, _)| *d <= 2.max(key.chars().count() / 3))
        .map(|(_, k)| format!(" (did you mean “{k}”?)"))
        .unwrap_or_default();
    format!("is not a known key{close}; known keys: {}", known.join(", "))
}

/// Levenshtein distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + usize::from(ca != *cb)));
        }
        prev = cur;
    }
    prev[b.len()]
}

type Bad<'a> = &'a dyn Fn(&str, String) -> ConfigError;

fn providers(v: &Value, bad: Bad<'_>) -> Result<BTreeMap<String, Value>, ConfigError> {
    let Value::Object(m) = v else { return Err(bad("providers", type_msg("a table of [providers.NAME] tables", v))) };
    let mut out = BTreeMap::new();
    for (name, table) in m {
        let key = format!("providers.{name}");
        let Value::Object(fields) = table else { return Err(bad(&key, type_msg("a table", table))) };
        let mut with_name = fields.clone();
        with_name.entry("name").or_insert_with(|| Value::String(name.clone()));
        // The core's own reader names an unknown or ill-typed field.
        if let Err(e) = ProviderConfig::from_json(&Value::Object(with_name)) {
            let message = e.to_string();
            let message = message.strip_prefix(&format!("providers.{name}: ")).unwrap_or(&message).to_string();
            return Err(bad(&key, message));
        }
        out.insert(name.clone(), table.clone());
    }
    Ok(out)
}

fn sources(v: &Value, bad: Bad<'_>) -> Result<Sources, ConfigError> {
    let Value::Object(m) = v else { return Err(bad("sources", type_msg("a table", v))) };
    const KNOWN: &[&str] = &[
        "commands",
        "options",
        "scripts",
        "git",
        "files",
        "terminal",
        "user_commands",
        "keymaps",
        "lsp",
        "diagnostics",
    ];
    let mut s = Sources::default();
    for (k, val) in m {
        let key = format!("sources.{k}");
        let on = boolean(val).map_err(|msg| bad(&key, msg))?;
        match k.as_str() {
            "commands" => s.commands = on,
            "options" => s.options = on,
            "scripts" => s.scripts = on,
            "git" => s.git = on,
            "files" => s.files = on,
            "terminal" => s.terminal = on,
            "user_commands" | "keymaps" | "lsp" | "diagnostics" => {}
            other => return Err(bad(&key, unknown_msg(other, KNOWN))),
        }
    }
    Ok(s)
}

fn entries(v: &Value, bad: Bad<'_>) -> Result<Vec<UserEntry>, ConfigError> {
    let Value::Array(list) = v else { return Err(bad("entries", type_msg("a list of [[entries]] tables", v))) };
    let mut out: Vec<UserEntry> = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let key = format!("entries[{}]", i + 1);
        let Value::Object(m) = e else { return Err(bad(&key, type_msg("a table", e))) };
        let field = |f: &str| m.get(f);
        let text = |f: &str| -> Result<Option<String>, ConfigError> {
            match field(f) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(bad(&format!("{key}.{f}"), type_msg("a string", other))),
            }
        };
        let list_of_strings = |f: &str| -> Result<Option<Vec<String>>, ConfigError> {
            match field(f) {
                None => Ok(None),
                Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
                    Ok(Some(a.iter().filter_map(string).collect()))
                }
                Some(other) => Err(bad(&format!("{key}.{f}"), type_msg("a list of strings", other))),
            }
        };
        for f in m.keys() {
            if !["id", "title", "cmd", "cwd", "args", "reach", "aliases", "description", "run"].contains(&f.as_str()) {
                return Err(bad(&format!("{key}.{f}"), "is not a field of an entry".into()));
            }
        }
        if m.contains_key("run") {
            return Err(bad(&format!("{key}.run"), "is a Lua function in Neovim; here an entry runs a cmd".into()));
        }
        let id = text("id")?.map(|s| s.strip_prefix("entry:").unwrap_or(&s).to_string()).unwrap_or_default();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)) {
            return Err(bad(&format!("{key}.id"), "needs letters, digits, “_”, “.” or “-”".into()));
        }
        if out.iter().any(|u| u.id == id) {
            return Err(bad(&format!("{key}.id"), format!("repeats the id “{id}”")));
        }
        let title = text("title")?.filter(|t| !t.trim().is_empty()).ok_or_else(|| bad(&key, "needs a title".into()))?;
        let cmd = list_of_strings("cmd")?
            .filter(|c| !c.is_empty())
            .ok_or_else(|| bad(&format!("{key}.cmd"), "should be a non-empty list of strings (an argv)".into()))?;
        let args = match text("args")?.as_deref() {
            None | Some("none") => Args::None,
            Some("optional") => Args::Optional,
            Some("required") => Args::Required,
            Some(other) => {
                return Err(bad(&format!("{key}.args"), format!("should be none, optional or required, not “{other}”")))
            }
        };
        if let Some(r) = text("reach")? {
            // A program is `shell` whatever is declared; a declaration can only be valid.
            if Reach::parse(&r).is_none() {
                return Err(bad(
                    &format!("{key}.reach"),
                    format!("should be safe, edit, write, code or shell, not “{r}”"),
                ));
            }
        }
        out.push(UserEntry {
            id,
            title,
            cmd,
            cwd: text("cwd")?,
            args,
            aliases: list_of_strings("aliases")?.unwrap_or_default(),
            description: text("description")?.unwrap_or_default(),
        });
    }
    Ok(out)
}

fn raise(v: &Value, bad: Bad<'_>) -> Result<Vec<RaiseRule>, ConfigError> {
    let Value::Array(list) = v else { return Err(bad("raise", type_msg("a list of { pattern, reach } tables", v))) };
    list.iter()
        .enumerate()
        .map(|(i, r)| {
            let key = format!("raise[{}]", i + 1);
            let pattern = r.get("pattern").and_then(Value::as_str).filter(|p| !p.is_empty());
            let reach = r.get("reach").and_then(Value::as_str).and_then(Reach::parse);
            match (pattern, reach) {
                (Some(p), Some(reach)) => Ok(RaiseRule { pattern: p.to_string(), reach }),
                (None, _) => Err(bad(&key, "needs a pattern (an id or key, or a prefix ending in *)".into())),
                (_, None) => Err(bad(&key, "needs a reach of safe, edit, write, code or shell".into())),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ProgramConfig, String> {
        ProgramConfig::parse(text, Path::new("/cfg/leash/config.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn the_same_keys_as_setup() {
        let c = parse(
            r#"
provider = "local"
shortlist_limit = 40
confirm_before_run = false
timeout_ms = 5000
raise = [{ pattern = "script:*", reach = "shell" }]
[sources]
git = false
keymaps = false
[providers.local]
kind = "ollama"
model = "qwen3:8b"
[[entries]]
id = "deploy"
title = "deploy to staging"
cmd = ["make", "deploy"]
"#,
        )
        .unwrap();
        assert_eq!(c.provider.as_deref(), Some("local"));
        assert_eq!(c.shortlist_limit, 40);
        assert!(!c.confirm_before_run && !c.sources.git && c.sources.scripts);
        assert_eq!(c.entries[0].cmd, ["make", "deploy"]);
        assert_eq!(c.raise[0].reach, Reach::Shell);
        let p = c.provider_config().unwrap();
        assert_eq!(p.name.as_deref(), Some("local"));
        assert_eq!(p.timeout_ms, Some(5000), "the top-level deadline fills in");
        assert_eq!(p.timeout_setting.as_deref(), Some("timeout_ms"), "and is the one a deadline message names");
        let c =
            parse("provider = \"local\"\ntimeout_ms = 5000\n[providers.local]\nkind = \"ollama\"\ntimeout_ms = 9000\n")
                .unwrap();
        let p = c.provider_config().unwrap();
        assert_eq!((p.timeout_ms, p.timeout_setting), (Some(9000), None), "the provider's own deadline wins");
    }

    #[test]
    fn errors_name_the_key() {
        let e = parse("provders = 1\n").unwrap_err();
        assert!(e.contains("/cfg/leash/config.toml: provders is not a known key (did you mean “providers”?)"), "{e}");
        let e = parse("[providers.groq]\nkind = \"openai\"\napi_key = \"x\"\n").unwrap_err();
        assert!(e.contains("providers.groq") && e.contains("unknown field `api_key`"), "{e}");
        let e = parse("[providers.groq]\nkind = \"gpt\"\n").unwrap_err();
        assert!(e.contains("providers.groq"), "{e}");
        let e = parse("shortlist_limit = 0\n").unwrap_err();
        assert!(e.contains("shortlist_limit should be a whole number from 1 to 500"), "{e}");
        let e = parse("provider = \"claude\"\n").unwrap_err();
        assert!(e.contains("provider names “claude”, which is not defined"), "{e}");
        let e = parse("[sources]\ngti = false\n").unwrap_err();
        assert!(e.contains("sources.gti is not a known key (did you mean “git”?)"), "{e}");
        let e = parse("[sources]\ngit = \"no\"\n").unwrap_err();
        assert!(e.contains("sources.git should be true or false, not a string"), "{e}");
        let e = parse("[[entries]]\nid = \"a\"\ntitle = \"a\"\n").unwrap_err();
        assert!(e.contains("entries[1].cmd should be a non-empty list"), "{e}");
        let e = parse("raise = [{ pattern = \"x\", reach = \"harmless\" }]\n").unwrap_err();
        assert!(e.contains("raise[1] needs a reach"), "{e}");
        let e = parse("provider = \n").unwrap_err();
        assert!(e.contains("is not valid TOML"), "{e}");
    }

    #[test]
    fn a_missing_file_is_the_defaults() {
        let c = ProgramConfig::load(Path::new("/nonexistent/leash/config.toml")).unwrap();
        assert_eq!(c.provider, None);
        assert_eq!(c.provider_config().unwrap().resolved_kind().unwrap(), crate::llm::ProviderKind::Offline);
    }
}
