//! Provider configuration: what the user writes (`providers.NAME = { … }` in Lua, or the
//! CLI's flags) and the resolved form with every default filled in.

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;
use serde::{Deserialize, Deserializer, Serialize};

use super::error::LlmError;
use super::keys::KeySource;

/// The wire dialect a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI Chat Completions and every server that copies it.
    Openai,
    /// Ollama's native `/api/chat`.
    Ollama,
    /// No network: the ranker alone, for direct requests.
    Offline,
}

impl ProviderKind {
    /// Every kind, in the order messages list them: the one list of the dialects (the
    /// configuration schema and `:checkhealth` read it).
    pub const ALL: [ProviderKind; 4] =
        [ProviderKind::Anthropic, ProviderKind::Openai, ProviderKind::Ollama, ProviderKind::Offline];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Openai => "openai",
            ProviderKind::Ollama => "ollama",
            ProviderKind::Offline => "offline",
        }
    }

    pub fn parse(s: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The environment variable a request reads the key from when the user names none,
    /// for the dialect's own service.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            ProviderKind::Openai => Some("OPENAI_API_KEY"),
            ProviderKind::Ollama | ProviderKind::Offline => None,
        }
    }

    /// The names of [`ProviderKind::ALL`].
    pub fn names() -> [&'static str; 4] {
        ProviderKind::ALL.map(ProviderKind::as_str)
    }
}

/// How the provider is asked to keep to the plan's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structured {
    /// The schema itself: Anthropic `output_config.format`, OpenAI `response_format`
    /// `json_schema` (strict), Ollama `format: <schema>`.
    JsonSchema,
    /// JSON without a schema: OpenAI `json_object`, Ollama `format: "json"`.
    JsonObject,
    /// Anthropic only: one forced tool whose input schema is the plan.
    Tool,
    /// Prompt only; the parser finds the JSON object in the text.
    None,
}

impl Structured {
    pub fn as_str(self) -> &'static str {
        match self {
            Structured::JsonSchema => "json_schema",
            Structured::JsonObject => "json_object",
            Structured::Tool => "tool",
            Structured::None => "none",
        }
    }
}

/// One provider's configuration, as the user writes it. Every field is optional; unknown
/// fields are an error that names them.
#[derive(Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The name under `providers` (`anthropic`, `groq`…); used in messages.
    #[serde(default)]
    pub name: Option<String>,
    /// The dialect; defaults to the name when the name is a dialect.
    #[serde(default)]
    pub kind: Option<ProviderKind>,
    /// Base URL: `https://api.anthropic.com`, `https://api.openai.com/v1`,
    /// `http://127.0.0.1:11434`.
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// Extra request headers (gateways, `OpenAI-Project`…).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The deadline for the whole request, retries included.
    #[serde(default, deserialize_with = "opt_u64")]
    pub timeout_ms: Option<u64>,
    #[serde(default, deserialize_with = "opt_u64")]
    pub connect_timeout_ms: Option<u64>,
    #[serde(default, deserialize_with = "opt_u64")]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub temperature: Option<f64>,
    /// The environment variable holding the key (`ANTHROPIC_API_KEY` by default).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// A file holding the key (`~/` is expanded).
    #[serde(default)]
    pub api_key_file: Option<String>,
    /// A command printing the key, as an argv list (no shell), run when a request is made.
    #[serde(default)]
    pub api_key_cmd: Option<Vec<String>>,
    /// The header carrying the key instead of the dialect's own (`api-key` for Azure).
    #[serde(default)]
    pub api_key_header: Option<String>,
    #[serde(default)]
    pub structured: Option<Structured>,
    /// A PEM file of extra CA certificates (company proxies).
    #[serde(default)]
    pub ca_file: Option<String>,
    /// Retries on connection errors, 408, 409, 429, 5xx; at most 2 by default.
    #[serde(default, deserialize_with = "opt_u64")]
    pub retries: Option<u64>,
    /// How the frontend names these settings in messages (not a setting itself).
    #[serde(skip)]
    pub settings_in: SettingsIn,
    /// The option a deadline message names instead of `providers.NAME.timeout_ms`: a
    /// frontend sets it (`timeout_ms`) when the provider's table sets no deadline, so the
    /// top-level `timeout_ms` is the one the user set or would set. Not a setting itself.
    #[serde(default)]
    pub timeout_setting: Option<String>,
}

/// Where the user writes provider settings, so that a message names the one to change
/// the way the user can change it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SettingsIn {
    /// The Lua setup table: `providers.NAME.max_tokens`.
    #[default]
    Lua,
    /// The `leash` program's `--config` JSON: `"max_tokens" in --config`.
    Cli,
}

impl fmt::Debug for ProviderConfig {
    /// Header values may hold credentials: only their names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("url", &self.url)
            .field("model", &self.model)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("timeout_ms", &self.timeout_ms)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("max_tokens", &self.max_tokens)
            .field("temperature", &self.temperature)
            .field("api_key_env", &self.api_key_env)
            .field("api_key_file", &self.api_key_file)
            .field("api_key_cmd", &self.api_key_cmd)
            .field("api_key_header", &self.api_key_header)
            .field("structured", &self.structured)
            .field("ca_file", &self.ca_file)
            .field("retries", &self.retries)
            .field("settings_in", &self.settings_in)
            .field("timeout_setting", &self.timeout_setting)
            .finish()
    }
}

/// Accepts any whole, non-negative number (Lua numbers arrive as floats).
fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a whole non-negative number")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            u64::try_from(v)
                .map(Some)
                .map_err(|_| E::custom(format!("{v} is negative; expected a whole non-negative number")))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            if v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 {
                Ok(Some(v as u64))
            } else {
                Err(E::custom(format!("{v} is not a whole non-negative number")))
            }
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(V)
        }
    }
    d.deserialize_option(V)
}

/// Default deadline for a cloud endpoint.
pub const CLOUD_DEADLINE: Duration = Duration::from_secs(30);
/// Default deadline for a local endpoint (a cold model load takes a while).
pub const LOCAL_DEADLINE: Duration = Duration::from_secs(120);
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
pub const DEFAULT_RETRIES: u32 = 2;
/// More retries than this are not useful inside one deadline.
pub const MAX_RETRIES: u32 = 5;

pub const ANTHROPIC_URL: &str = "https://api.anthropic.com";
pub const ANTHROPIC_MODEL: &str = "claude-haiku-4-5";
pub const OPENAI_URL: &str = "https://api.openai.com/v1";
pub const OPENAI_MODEL: &str = "gpt-5.4-mini";
pub const OLLAMA_URL: &str = "http://127.0.0.1:11434";
/// The model `provider = 'ollama'` asks for when none is set (the README's example): the
/// offline planner's hint names `provider = 'ollama'` alone, which must then reach Ollama,
/// whose "not found" becomes "run `ollama pull qwen3:8b`".
pub const OLLAMA_MODEL: &str = "qwen3:8b";

/// Where the key comes from, once resolved from the configuration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyPlan {
    /// No key is sent.
    None,
    /// A key is required from this source.
    Required(KeySource),
    /// Sent when the environment variable is set (local servers need none).
    Optional(KeySource),
}

/// A provider's dialect, server and key, as [`ProviderConfig::key_report`] gives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyReport {
    pub kind: &'static str,
    /// The base URL requests go to (what `:checkhealth` asks whether it answers).
    pub url: String,
    /// Where the key is read from; `None` when none is sent.
    pub key: Option<KeyFrom>,
    /// Whether a request fails without it (a local server's key is sent only when set).
    pub required: bool,
}

/// Where a key is read from, named as the user wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "lowercase")]
pub enum KeyFrom {
    Env { name: String },
    File { path: String },
    Command { program: String },
}

/// A configuration with every default filled in.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub name: String,
    pub kind: ProviderKind,
    pub base: Url,
    pub model: String,
    pub headers: HeaderMap,
    pub deadline: Duration,
    pub connect_timeout: Duration,
    pub max_tokens: u32,
    pub temperature: Option<f64>,
    pub key: KeyPlan,
    pub key_header: Option<HeaderName>,
    pub structured: Structured,
    pub ca_file: Option<PathBuf>,
    pub retries: u32,
    /// The host is this machine (proxies are bypassed).
    pub loopback: bool,
    /// The URL is the dialect's own service (not another server speaking it).
    pub default_url: bool,
    pub settings_in: SettingsIn,
    /// See [`ProviderConfig::timeout_setting`].
    pub timeout_setting: Option<String>,
}

impl Resolved {
    /// The provider as messages name it: its name, and where it is when that is not the
    /// dialect's own service (`openai at 127.0.0.1:8080`), so a message names the server,
    /// not only the protocol.
    pub fn label(&self) -> String {
        if self.default_url {
            return self.name.clone();
        }
        let host = self.base.host_str().unwrap_or("?");
        match self.base.port() {
            Some(port) => format!("{} at {host}:{port}", self.name),
            None => format!("{} at {host}", self.name),
        }
    }

    /// A provider setting as the user writes it: `providers.NAME.FIELD` in Lua,
    /// `"FIELD" in --config` for the `leash` program.
    pub fn setting(&self, field: &str) -> String {
        match self.settings_in {
            SettingsIn::Lua => format!("providers.{}.{field}", self.name),
            SettingsIn::Cli => format!("\"{field}\" in --config"),
        }
    }

    /// The option that sets the deadline, as the user writes it: the one they set.
    pub fn deadline_setting(&self) -> String {
        self.timeout_setting.clone().unwrap_or_else(|| self.setting("timeout_ms"))
    }
}

impl ProviderConfig {
    /// A configuration that names a provider and leaves everything else to defaults.
    pub fn named(name: &str) -> ProviderConfig {
        ProviderConfig { name: Some(name.to_string()), ..ProviderConfig::default() }
    }

    /// Reads a configuration from a JSON object; unknown keys are an error naming them.
    pub fn from_json(value: &serde_json::Value) -> Result<ProviderConfig, LlmError> {
        let name = value.get("name").and_then(|v| v.as_str()).unwrap_or("provider").to_string();
        ProviderConfig::deserialize(value).map_err(|e| LlmError::Config(format!("providers.{name}: {e}")))
    }

    /// The provider's name for messages: the configured name, else the kind.
    pub fn display_name(&self) -> String {
        match (&self.name, self.kind) {
            (Some(n), _) if !n.is_empty() => n.clone(),
            (_, Some(k)) => k.as_str().to_string(),
            _ => "offline".to_string(),
        }
    }

    /// The dialect: `kind`, else the name when it is a dialect; no name and no kind is
    /// the offline planner.
    pub fn resolved_kind(&self) -> Result<ProviderKind, LlmError> {
        if let Some(k) = self.kind {
            return Ok(k);
        }
        match self.name.as_deref() {
            None | Some("") => Ok(ProviderKind::Offline),
            Some(n) => ProviderKind::parse(n).ok_or_else(|| {
                LlmError::Config(format!(
                    "providers.{n}: unknown provider; set kind = 'anthropic', 'openai', 'ollama' or 'offline'"
                ))
            }),
        }
    }

    /// What a frontend reports about this provider before any request (`:checkhealth`):
    /// its dialect and where its key comes from, by the rule a request follows (a default
    /// key goes only to its own service: a local server needs none). Never the key.
    pub fn key_report(&self) -> Result<KeyReport, LlmError> {
        let r = self.resolve()?;
        let (source, required) = match r.key {
            KeyPlan::None => (None, false),
            KeyPlan::Required(s) => (Some(s), true),
            KeyPlan::Optional(s) => (Some(s), false),
        };
        let key = source.map(|s| match s {
            KeySource::Env(name) => KeyFrom::Env { name },
            KeySource::File(path) => KeyFrom::File { path: path.display().to_string() },
            KeySource::Command(argv) => KeyFrom::Command { program: argv.first().cloned().unwrap_or_default() },
        });
        Ok(KeyReport { kind: r.kind.as_str(), url: r.base.to_string(), key, required })
    }

    pub(crate) fn resolve(&self) -> Result<Resolved, LlmError> {
        let kind = self.resolved_kind()?;
        let name = self.display_name();
        let bad = |what: String| LlmError::Config(format!("providers.{name}: {what}"));

        let default_url = match kind {
            ProviderKind::Anthropic => ANTHROPIC_URL,
            ProviderKind::Openai => OPENAI_URL,
            ProviderKind::Ollama => OLLAMA_URL,
            ProviderKind::Offline => "http://127.0.0.1",
        };
        let url_text = self.url.as_deref().filter(|u| !u.trim().is_empty()).unwrap_or(default_url).trim();
        let base = Url::parse(url_text).map_err(|e| bad(format!("url “{url_text}” is not a URL ({e})")))?;
        let is_default_url = Url::parse(default_url).is_ok_and(|d| d.origin() == base.origin());
        if !matches!(base.scheme(), "http" | "https") {
            return Err(bad(format!("url “{url_text}” must start with http:// or https://")));
        }
        if !base.username().is_empty() || base.password().is_some() {
            return Err(bad("url must not contain a user name or password; use api_key_env".into()));
        }
        let loopback = is_loopback(&base);
        let local = loopback || is_lan(&base);

        let model = match self.model.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            Some(m) => m.to_string(),
            None => match kind {
                ProviderKind::Anthropic => ANTHROPIC_MODEL.to_string(),
                ProviderKind::Openai if is_openai_cloud(&base) => OPENAI_MODEL.to_string(),
                ProviderKind::Offline => String::new(),
                ProviderKind::Ollama => OLLAMA_MODEL.to_string(),
                ProviderKind::Openai => return Err(bad(format!("no model: set providers.{name}.model"))),
            },
        };

        let mut headers = HeaderMap::new();
        for (k, v) in &self.headers {
            let hn =
                HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad(format!("header name “{k}” is not valid")))?;
            let mut hv =
                HeaderValue::from_str(v).map_err(|_| bad(format!("the value of header “{k}” is not valid")))?;
            hv.set_sensitive(true);
            headers.insert(hn, hv);
        }

        let deadline = match self.timeout_ms {
            Some(0) => return Err(bad("timeout_ms must be more than 0".into())),
            Some(ms) => Duration::from_millis(ms),
            None if local => LOCAL_DEADLINE,
            None => CLOUD_DEADLINE,
        };
        let connect_timeout = match self.connect_timeout_ms {
            Some(0) => return Err(bad("connect_timeout_ms must be more than 0".into())),
            Some(ms) => Duration::from_millis(ms),
            None => CONNECT_TIMEOUT,
        };
        let max_tokens = match self.max_tokens {
            Some(0) => return Err(bad("max_tokens must be more than 0".into())),
            Some(n) => u32::try_from(n).map_err(|_| bad(format!("max_tokens {n} is too large")))?,
            None => DEFAULT_MAX_TOKENS,
        };
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(bad(format!("temperature {t} must be between 0 and 2")));
            }
        }
        let retries = match self.retries {
            Some(n) if n > MAX_RETRIES as u64 => return Err(bad(format!("retries {n} is more than {MAX_RETRIES}"))),
            Some(n) => n as u32,
            None => DEFAULT_RETRIES,
        };

        let structured = match (kind, self.structured) {
            (ProviderKind::Anthropic, Some(Structured::JsonObject)) => {
                return Err(bad("structured must be 'json_schema', 'tool' or 'none' for anthropic".into()))
            }
            (ProviderKind::Anthropic, Some(s)) => s,
            (ProviderKind::Anthropic, None) if anthropic_supports_json_outputs(&model) => Structured::JsonSchema,
            (ProviderKind::Anthropic, None) => Structured::Tool,
            (_, Some(Structured::Tool)) => {
                return Err(bad(
                    "structured = 'tool' is for anthropic; use 'json_schema', 'json_object' or 'none'".into()
                ))
            }
            (_, Some(s)) => s,
            (_, None) => Structured::JsonSchema,
        };

        let key_header = match self.api_key_header.as_deref() {
            None => None,
            Some(h) => Some(
                HeaderName::from_bytes(h.as_bytes())
                    .map_err(|_| bad(format!("api_key_header “{h}” is not a header name")))?,
            ),
        };
        let key = self.key_plan(kind, &name, &base)?;
        let ca_file = self.ca_file.as_deref().map(crate::paths::expand_home);

        Ok(Resolved {
            name,
            kind,
            base,
            model,
            headers,
            deadline,
            connect_timeout,
            max_tokens,
            temperature: self.temperature,
            key,
            key_header,
            structured,
            ca_file,
            retries,
            loopback,
            default_url: is_default_url && kind != ProviderKind::Ollama,
            settings_in: self.settings_in,
            timeout_setting: self.timeout_setting.clone(),
        })
    }

    fn key_plan(&self, kind: ProviderKind, name: &str, base: &Url) -> Result<KeyPlan, LlmError> {
        if let Some(argv) = &self.api_key_cmd {
            if argv.is_empty() || argv[0].trim().is_empty() {
                return Err(LlmError::Config(format!(
                    "providers.{name}.api_key_cmd must be a list like {{'pass', 'show', 'anthropic'}}"
                )));
            }
            return Ok(KeyPlan::Required(KeySource::Command(argv.clone())));
        }
        if let Some(path) = self.api_key_file.as_deref().filter(|p| !p.is_empty()) {
            return Ok(KeyPlan::Required(KeySource::File(crate::paths::expand_home(path))));
        }
        if let Some(var) = self.api_key_env.as_deref().filter(|v| !v.is_empty()) {
            return Ok(match kind {
                ProviderKind::Anthropic | ProviderKind::Openai => KeyPlan::Required(KeySource::Env(var.to_string())),
                _ => KeyPlan::Optional(KeySource::Env(var.to_string())),
            });
        }
        // A default key goes only to the service it belongs to, never to another server.
        let own_service = kind != ProviderKind::Openai || is_openai_cloud(base);
        Ok(match kind.default_key_env().filter(|_| own_service) {
            Some(var) => KeyPlan::Required(KeySource::Env(var.into())),
            None => KeyPlan::None,
        })
    }
}

fn host_ip(url: &Url) -> Option<IpAddr> {
    url.host_str()?.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

/// localhost, 127.0.0.0/8, ::1.
pub(crate) fn is_loopback(url: &Url) -> bool {
    if let Some(ip) = host_ip(url) {
        return ip.is_loopback();
    }
    let host = url.host_str().unwrap_or("").trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost")
}

/// A private-network or `.local`/`.lan` host: a local server, with the local deadline.
fn is_lan(url: &Url) -> bool {
    match host_ip(url) {
        Some(IpAddr::V4(a)) => a.is_private() || a.is_link_local(),
        Some(IpAddr::V6(a)) => (a.segments()[0] & 0xfe00) == 0xfc00 || (a.segments()[0] & 0xffc0) == 0xfe80,
        None => {
            let host = url.host_str().unwrap_or("").to_ascii_lowercase();
            host.ends_with(".local") || host.ends_with(".lan") || host.ends_with(".internal") || !host.contains('.')
        }
    }
}

/// OpenAI's own service, or Azure OpenAI: the hosts that want `max_completion_tokens`.
pub(crate) fn is_openai_cloud(url: &Url) -> bool {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    host == "api.openai.com" || host.ends_with(".openai.azure.com")
}

/// Whether an Anthropic model takes `output_config.format` (Claude 4.5 and later). A name
/// without a version (an alias behind a gateway) gets the forced tool, which every model
/// takes.
pub(crate) fn anthropic_supports_json_outputs(model: &str) -> bool {
    let model = model.rsplit('/').next().unwrap_or(model);
    let numbers: Vec<u32> = model
        .split(['-', '.', '@', ':'])
        .filter(|t| !t.is_empty() && t.len() <= 2 && t.chars().all(|c| c.is_ascii_digit()))
        .filter_map(|t| t.parse().ok())
        .collect();
    match numbers.as_slice() {
        [] => false,
        [major] => *major >= 5,
        [major, minor, ..] => (*major, *minor) >= (4, 5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_report_follows_the_rule_a_request_follows() {
        let p = |v: serde_json::Value| serde_json::from_value::<ProviderConfig>(v).unwrap().key_report().unwrap();
        let env = |name: &str| Some(KeyFrom::Env { name: name.into() });
        let r = p(serde_json::json!({"name": "anthropic"}));
        assert_eq!((r.kind, r.key, r.required), ("anthropic", env("ANTHROPIC_API_KEY"), true));
        let r = p(serde_json::json!({"name": "openai"}));
        assert_eq!((r.kind, r.key, r.required), ("openai", env("OPENAI_API_KEY"), true));
        // A default key goes only to its own service: a local server is asked without one.
        let r =
            p(serde_json::json!({"name": "local", "kind": "openai", "url": "http://127.0.0.1:8080/v1", "model": "m"}));
        assert_eq!((r.kind, r.key, r.required), ("openai", None, false));
        assert_eq!(r.url, "http://127.0.0.1:8080/v1");
        let r = p(serde_json::json!({"name": "ollama", "model": "m"}));
        assert_eq!((r.kind, r.key, r.required), ("ollama", None, false));
        let r = p(serde_json::json!({"name": "ollama", "model": "m", "api_key_env": "OLLAMA_KEY"}));
        assert_eq!((r.key, r.required), (env("OLLAMA_KEY"), false));
        let r = p(serde_json::json!({"name": "anthropic", "api_key_cmd": ["pass", "show", "x"]}));
        assert_eq!((r.key, r.required), (Some(KeyFrom::Command { program: "pass".into() }), true));
    }

    #[test]
    fn every_kind_reads_back_from_its_name() {
        for kind in ProviderKind::ALL {
            assert_eq!(ProviderKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ProviderKind::names(), ["anthropic", "openai", "ollama", "offline"]);
    }
    use serde_json::json;

    #[test]
    fn json_outputs_by_model_version() {
        for m in
            ["claude-haiku-4-5", "claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-opus-5", "claude-sonnet-4.5"]
        {
            assert!(anthropic_supports_json_outputs(m), "{m}");
        }
        for m in
            ["claude-3-5-sonnet-20241022", "claude-sonnet-4-20250514", "claude-opus-4-1-20250805", "my-gateway-alias"]
        {
            assert!(!anthropic_supports_json_outputs(m), "{m}");
        }
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = ProviderConfig::from_json(&json!({"name": "anthropic", "api_key": "x"})).unwrap_err().to_string();
        assert!(err.contains("providers.anthropic") && err.contains("unknown field `api_key`"), "{err}");
    }

    #[test]
    fn defaults_per_provider() {
        let a = ProviderConfig::named("anthropic").resolve().unwrap();
        assert_eq!(a.deadline, CLOUD_DEADLINE);
        assert_eq!(a.connect_timeout, CONNECT_TIMEOUT);
        assert_eq!(a.structured, Structured::JsonSchema);
        assert_eq!(a.key, KeyPlan::Required(KeySource::Env("ANTHROPIC_API_KEY".into())));
        let o = ProviderConfig::from_json(&json!({"name": "ollama", "model": "qwen3:4b"})).unwrap().resolve().unwrap();
        assert_eq!(o.deadline, LOCAL_DEADLINE);
        assert!(o.loopback);
        assert_eq!(o.key, KeyPlan::None);
        // `provider = 'ollama'` alone, as the offline planner's hint says: the default model.
        let o = ProviderConfig::named("ollama").resolve().unwrap();
        assert_eq!((o.model.as_str(), o.loopback), (OLLAMA_MODEL, true));
        let lm = ProviderConfig::from_json(
            &json!({"name": "lmstudio", "kind": "openai", "url": "http://localhost:1234/v1", "model": "m"}),
        )
        .unwrap()
        .resolve()
        .unwrap();
        assert_eq!(lm.key, KeyPlan::None);
        assert_eq!(lm.deadline, LOCAL_DEADLINE);
        let err = ProviderConfig::named("groq").resolve().unwrap_err().to_string();
        assert!(err.contains("kind"), "{err}");
        assert_eq!(ProviderConfig::default().resolved_kind().unwrap(), ProviderKind::Offline);
    }

    #[test]
    fn lua_style_numbers_are_accepted() {
        let c = ProviderConfig::from_json(&json!({"name": "openai", "timeout_ms": 2500.0, "retries": 1})).unwrap();
        assert_eq!(c.timeout_ms, Some(2500));
        assert!(ProviderConfig::from_json(&json!({"name": "openai", "timeout_ms": 2.5})).is_err());
    }

    #[test]
    fn debug_hides_header_values() {
        let mut c = ProviderConfig::named("openai");
        c.headers.insert("Authorization".into(), "Bearer sk-secret".into());
        assert!(!format!("{c:?}").contains("sk-secret"));
    }
}
