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
//! A missing file means the defaults (offline planning). The keys shared with Neovim are
//! checked by the one schema (`leash_core::schema`; here an entry runs a `cmd`, never a Lua
//! function). Keys that only mean something in Neovim (`keymap_modes`, the
//! `lsp`/`keymaps`/`user_commands`/`diagnostics` sources) are accepted so one file can be
//! shared, and have no effect here.

use std::path::{Path, PathBuf};

use serde_json::Value;

use leash_core::entry::Args;
use leash_core::llm::ProviderConfig;
use leash_core::schema::{Config, Issue, Issues, Runs};

/// What is wrong with the file, naming the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} is not valid TOML: {error}")]
    Syntax { path: String, error: String },
    /// Every key that is wrong, each `key: what is wrong`.
    #[error("{path}: {issues}")]
    Keys { path: String, issues: Issues },
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
    /// The keys Neovim's `setup()` shares (see `leash_core::schema`).
    pub core: Config,
    /// `core.shortlist_limit`, else the ranker's default.
    pub shortlist_limit: usize,
    pub entries: Vec<UserEntry>,
}

impl Default for ProgramConfig {
    fn default() -> Self {
        ProgramConfig {
            path: PathBuf::new(),
            core: Config::default(),
            shortlist_limit: leash_core::rank::DEFAULT_SHORTLIST,
            entries: Vec::new(),
        }
    }
}

/// The key this file reads itself: Neovim's `keymap_modes` (accepted, no effect).
const OWN_KEYS: [&str; 1] = ["keymap_modes"];

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

    /// Parses the file's text; `path` is for messages. Every wrong key is named.
    pub fn parse(text: &str, path: &Path) -> Result<ProgramConfig, ConfigError> {
        let shown = path.display().to_string();
        let root = leash_core::toml_json::parse(text)
            .map_err(|e| ConfigError::Syntax { path: shown.clone(), error: e.to_string() })?;
        let mut issues = Vec::new();
        let core = leash_core::schema::check(&root, &OWN_KEYS, Runs::CmdOnly).unwrap_or_else(|Issues(found)| {
            issues = found;
            Config::default()
        });
        if let Some(v) = root.get("keymap_modes") {
            if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
                let message = format!("should be a list of strings, not {}", json_type(v));
                issues.push(Issue { path: "keymap_modes".into(), message });
            }
        }
        if !issues.is_empty() {
            issues.sort_by_key(Issue::to_string);
            return Err(ConfigError::Keys { path: shown, issues: Issues(issues) });
        }
        let shortlist_limit = core.shortlist_limit.unwrap_or(leash_core::rank::DEFAULT_SHORTLIST);
        let entries = core
            .entries
            .iter()
            .map(|e| UserEntry {
                id: e.name().to_string(),
                title: e.title.clone(),
                cmd: e.cmd.clone().unwrap_or_default(),
                cwd: e.cwd.clone(),
                args: e.args(),
                aliases: e.aliases.clone(),
                description: e.description.clone().unwrap_or_default(),
            })
            .collect();
        Ok(ProgramConfig { path: path.to_path_buf(), core, shortlist_limit, entries })
    }

    /// The provider configuration the planner uses: the named provider's table (with the
    /// top-level `timeout_ms` when it sets none), or the offline planner.
    pub fn provider_config(&self) -> Result<ProviderConfig, leash_core::llm::LlmError> {
        Ok(self.core.provider_config().unwrap_or_default())
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use leash_core::reach::Reach;

    fn parse(text: &str) -> Result<ProgramConfig, ConfigError> {
        ProgramConfig::parse(text, Path::new("/cfg/leash/config.toml"))
    }

    /// The message a user sees for `text`, which must not parse.
    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
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
        assert_eq!(c.core.provider.as_deref(), Some("local"));
        assert_eq!(c.shortlist_limit, 40);
        assert!(!c.core.confirm_before_run && !c.core.sources.git && c.core.sources.scripts);
        assert_eq!(c.entries[0].cmd, ["make", "deploy"]);
        assert_eq!(c.core.raise[0].reach, Reach::Shell);
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
        let e = error("provders = 1\n");
        assert_eq!(e, "/cfg/leash/config.toml: provders: unknown option (did you mean 'providers'?)");
        let e = error("[providers.groq]\nkind = \"openai\"\napi_key = \"x\"\n");
        assert!(e.contains("providers.groq.api_key: a key does not belong in the config"), "{e}");
        let e = error("[providers.groq]\nkind = \"gpt\"\n");
        assert!(e.contains("providers.groq.kind: should be one of 'anthropic', 'openai'"), "{e}");
        let e = error("shortlist_limit = 0\n");
        assert!(e.contains("shortlist_limit: should be an integer from 1 to 500, not 0"), "{e}");
        let e = error("provider = \"claude\"\n");
        assert!(e.contains("provider: 'claude' is neither a built-in kind"), "{e}");
        let e = error("[sources]\ngti = false\n");
        assert!(e.contains("sources.gti: unknown option (did you mean 'sources.git'?)"), "{e}");
        let e = error("[sources]\ngit = \"no\"\n");
        assert!(e.contains("sources.git: should be a boolean, not string"), "{e}");
        let e = error("[[entries]]\nid = \"a\"\ntitle = \"a\"\n");
        assert!(e.contains("entries[1]: cmd should be a non-empty list"), "{e}");
        let e = error("raise = [{ pattern = \"x\", reach = \"harmless\" }]\n");
        assert!(e.contains("raise[1]: reach should be 'safe', 'edit', 'write', 'code' or 'shell'"), "{e}");
        // Every wrong key at once, in the order of their paths.
        let e = error("timeout_ms = 5\nlog = 1\nkeymap_modes = 2\n");
        assert_eq!(
            e,
            "/cfg/leash/config.toml: keymap_modes: should be a list of strings, not a number; \
             log: should be a boolean, not number; timeout_ms: should be an integer from 1000 to 600000, not 5"
        );
        assert!(matches!(parse("provider = \n"), Err(ConfigError::Syntax { .. })));
        assert!(error("provider = \n").contains("is not valid TOML"));
    }

    #[test]
    fn a_missing_file_is_the_defaults() {
        let c = ProgramConfig::load(Path::new("/nonexistent/leash/config.toml")).unwrap();
        assert_eq!(c.core.provider, None);
        assert_eq!(c.provider_config().unwrap().resolved_kind().unwrap(), leash_core::llm::ProviderKind::Offline);
    }
}
