//! API keys: from an environment variable, a file, or a command (an argv list, no shell)
//! run with a timeout when a request is made, never earlier. A key lives in a [`Secret`],
//! whose `Debug` and `Display` print `***`, and is never put in an error or a log.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use tokio::time::Instant;

use super::error::LlmError;

/// How long a key command may run.
pub const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// A credential. Its `Debug` and `Display` print `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `***` (for server messages
    /// that might echo it).
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where a key comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeySource {
    Env(String),
    File(PathBuf),
    Command(Vec<String>),
}

impl KeySource {
    /// "the API key in ANTHROPIC_API_KEY", for messages.
    pub fn describe(&self) -> String {
        match self {
            KeySource::Env(v) => format!("the API key in {v}"),
            KeySource::File(p) => format!("the API key in {}", p.display()),
            KeySource::Command(argv) => {
                format!("the API key printed by `{}`", argv.first().map(String::as_str).unwrap_or(""))
            }
        }
    }

    /// What to set when there is no key: "set ANTHROPIC_API_KEY or providers.anthropic.api_key_file";
    /// `setting` names a provider setting the way the user writes it.
    pub fn missing_hint(&self, setting: &dyn Fn(&str) -> String) -> String {
        match self {
            KeySource::Env(v) => format!("set {v} or {} (or api_key_cmd)", setting("api_key_file")),
            KeySource::File(p) => format!("write the key to {} or set {}", p.display(), setting("api_key_env")),
            KeySource::Command(_) => format!("check {}", setting("api_key_cmd")),
        }
    }
}

fn command_cache() -> &'static Mutex<HashMap<Vec<String>, Secret>> {
    static CACHE: OnceLock<Mutex<HashMap<Vec<String>, Secret>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Forgets a command's key (after the server rejected it), so the next request runs the
/// command again.
pub(crate) fn forget(source: &KeySource) {
    if let KeySource::Command(argv) = source {
        let mut cache = command_cache().lock().unwrap_or_else(|e| e.into_inner());
        cache.remove(argv);
    }
}

/// Reads the key from its source. `Ok(None)` means the source is empty or absent.
pub(crate) async fn read(source: &KeySource, provider: &str, deadline: Instant) -> Result<Option<Secret>, LlmError> {
    match source {
        KeySource::Env(var) => {
            Ok(std::env::var(var).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).map(Secret))
        }
        KeySource::File(path) => match std::fs::read_to_string(path) {
            Ok(text) => {
                let key = text.trim();
                if key.is_empty() {
                    Ok(None)
                } else {
                    Ok(Some(Secret(key.to_string())))
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => {
                Err(LlmError::Key(format!("cannot read providers.{provider}.api_key_file {}: {e}", path.display())))
            }
        },
        KeySource::Command(argv) => {
            {
                let cache = command_cache().lock().unwrap_or_else(|e| e.into_inner());
                if let Some(k) = cache.get(argv) {
                    return Ok(Some(k.clone()));
                }
            }
            let key = run_command(argv, provider, deadline).await?;
            let mut cache = command_cache().lock().unwrap_or_else(|e| e.into_inner());
            cache.insert(argv.clone(), key.clone());
            Ok(Some(key))
        }
    }
}

async fn run_command(argv: &[String], provider: &str, deadline: Instant) -> Result<Secret, LlmError> {
    let program = argv.first().map(String::as_str).unwrap_or("");
    let what = format!("providers.{provider}.api_key_cmd (`{program}`)");
    let mut cmd = tokio::process::Command::new(crate::paths::expand_home(program));
    cmd.args(argv.get(1..).unwrap_or(&[]))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| LlmError::Key(format!("{what} could not be started: {e}")))?;
    let limit = (Instant::now() + KEY_COMMAND_TIMEOUT).min(deadline);
    let output = match tokio::time::timeout_at(limit, child.wait_with_output()).await {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => return Err(LlmError::Key(format!("{what} failed: {e}"))),
        Err(_) => {
            return Err(LlmError::Key(format!(
                "{what} did not finish within {} s; it was stopped",
                KEY_COMMAND_TIMEOUT.as_secs()
            )))
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        let first: String = first.chars().take(200).collect();
        let status = output.status.code().map(|c| format!("exit status {c}")).unwrap_or_else(|| "a signal".into());
        let detail = if first.is_empty() { String::new() } else { format!(": {first}") };
        return Err(LlmError::Key(format!("{what} failed with {status}{detail}")));
    }
    let Ok(text) = String::from_utf8(output.stdout) else {
        return Err(LlmError::Key(format!("{what} printed something that is not text")));
    };
    let key = text.trim();
    if key.is_empty() {
        return Err(LlmError::Key(format!("{what} printed nothing; it must print the key")));
    }
    if key.contains(['\n', '\r']) {
        return Err(LlmError::Key(format!("{what} printed more than one line; it must print only the key")));
    }
    Ok(Secret(key.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("sk-ant-very-secret");
        assert_eq!(format!("{s:?} {s}"), "*** ***");
        assert_eq!(s.scrub("bad key sk-ant-very-secret!"), "bad key ***!");
    }

    #[cfg(unix)]
    #[test]
    fn command_key_is_trimmed_and_failures_are_clear() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let deadline = Instant::now() + Duration::from_secs(5);
            let src = KeySource::Command(vec!["echo".into(), "sk-from-cmd".into()]);
            assert_eq!(read(&src, "p", deadline).await.unwrap().unwrap().expose(), "sk-from-cmd");
            let bad = KeySource::Command(vec!["sh".into(), "-c".into(), "echo nope >&2; exit 3".into()]);
            let err = read(&bad, "p", deadline).await.unwrap_err().to_string();
            assert!(
                err.contains("exit status 3") && err.contains("nope") && err.contains("providers.p.api_key_cmd"),
                "{err}"
            );
            let missing = KeySource::Command(vec!["/nonexistent/leash-key-helper".into()]);
            assert!(read(&missing, "p", deadline).await.unwrap_err().to_string().contains("could not be started"));
        });
    }
}
