//! Every way a model call can fail, each with a message that names the provider and says
//! what to do. No message ever holds a key.

use std::time::Duration;

use crate::plan::ParseError;

/// Why no answer came back from the model.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider configuration is wrong (unknown key, bad URL, missing model…).
    #[error("{0}")]
    Config(String),
    /// No key was found where the configuration says to look.
    #[error("no API key for {provider}: {hint}")]
    NoKey { provider: String, hint: String },
    /// The key file or command failed.
    #[error("{0}")]
    Key(String),
    /// 401: the key was rejected.
    #[error("{status} from {provider}: {key} was rejected; check it")]
    Auth { provider: String, status: u16, key: String },
    /// Any other status that retrying cannot fix (400, 403, 404, 413, 422…).
    #[error("{status} from {provider}: {message}{hint}")]
    Http { provider: String, status: u16, message: String, hint: String },
    /// A quota or spend limit was reached: retrying will not help.
    #[error(
        "{status} from {provider}: quota or spend limit reached ({message}); check the account's plan and billing"
    )]
    Quota { provider: String, status: u16, message: String },
    /// Still rate-limited after the retries, or told to wait past the deadline.
    #[error("{provider} is rate-limiting requests{}; try again later", retry_text(.retry_in))]
    RateLimited { provider: String, retry_in: Option<Duration> },
    /// Still failing with 408/409/5xx/529 after the retries.
    #[error("{status} from {provider} after {attempts} attempt{}: {message}; the service may be overloaded, try again later", if *.attempts == 1 { "" } else { "s" })]
    Server { provider: String, status: u16, message: String, attempts: u32 },
    /// The deadline passed (it covers the retries). `setting` names the timeout as the
    /// user writes it.
    #[error("{provider} did not answer within {} (deadline); raise {setting}", seconds(.deadline))]
    Deadline { provider: String, deadline: Duration, setting: String },
    /// No connection could be made.
    #[error("{provider}: {message} at {url}: {hint}")]
    Connect { provider: String, url: String, message: String, hint: String },
    /// The 2xx body is not what the dialect promises.
    #[error("{provider} sent an answer leash cannot read: {message}")]
    Malformed { provider: String, message: String },
    /// `max_tokens` / `length`: the answer was cut off; it is never completed. `looping`
    /// when the answer ends by repeating itself: a larger limit would not help.
    #[error("{}", truncated_text(.provider, *.max_tokens, .setting, *.looping))]
    Truncated { provider: String, max_tokens: u32, setting: String, looping: bool },
    /// The model declined (`refusal`, `content_filter`).
    #[error("{provider} refused to answer: {message}")]
    Refused { provider: String, message: String },
    /// An empty answer.
    #[error("{provider} returned an empty answer{hint}")]
    Empty { provider: String, hint: String },
    /// The answer has no plan in it.
    #[error("the answer from {provider} is not a plan: {source}")]
    NotAPlan {
        provider: String,
        #[source]
        source: ParseError,
    },
    /// The request was cancelled. Not a failure: report it as cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The runtime could not run the request.
    #[error("internal error: {0}")]
    Internal(String),
}

fn truncated_text(provider: &str, max_tokens: u32, setting: &str, looping: bool) -> String {
    if looping {
        format!(
            "the model at {provider} repeated itself until max_tokens ({max_tokens}) cut its answer off: it is stuck \
             in a loop, so a larger {setting} will not help; nothing was run (try again, or another model)"
        )
    } else {
        format!("the answer from {provider} was cut off at max_tokens ({max_tokens}); nothing was run; raise {setting}")
    }
}

fn retry_text(d: &Option<Duration>) -> String {
    match d {
        Some(d) => format!(" (it asks to retry in {})", seconds(d)),
        None => String::new(),
    }
}

/// `30 s`, `0.2 s`, `1.5 s`.
pub(crate) fn seconds(d: &Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        let s = format!("{:.1}", d.as_secs_f64());
        let s = if s == "0.0" { format!("{:.3}", d.as_secs_f64()) } else { s };
        format!("{s} s")
    }
}

impl LlmError {
    /// A stable word for the kind of failure, for Lua, the CLI's JSON and the log.
    pub fn code(&self) -> &'static str {
        match self {
            LlmError::Config(_) => "config",
            LlmError::NoKey { .. } => "no_key",
            LlmError::Key(_) => "key",
            LlmError::Auth { .. } => "auth",
            LlmError::Http { .. } => "http",
            LlmError::Quota { .. } => "quota",
            LlmError::RateLimited { .. } => "rate_limited",
            LlmError::Server { .. } => "server",
            LlmError::Deadline { .. } => "deadline",
            LlmError::Connect { .. } => "connect",
            LlmError::Malformed { .. } => "malformed",
            LlmError::Truncated { .. } => "truncated",
            LlmError::Refused { .. } => "refused",
            LlmError::Empty { .. } => "empty",
            LlmError::NotAPlan { .. } => "not_a_plan",
            LlmError::Cancelled => "cancelled",
            LlmError::Internal(_) => "internal",
        }
    }

    /// Whether this is a cancellation (shown as "cancelled", not as an error).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, LlmError::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_to_do() {
        let e = LlmError::Deadline {
            provider: "anthropic".into(),
            deadline: Duration::from_secs(30),
            setting: "providers.anthropic.timeout_ms".into(),
        };
        assert_eq!(
            e.to_string(),
            "anthropic did not answer within 30 s (deadline); raise providers.anthropic.timeout_ms"
        );
        let e = LlmError::Deadline { provider: "x".into(), deadline: Duration::from_millis(200), setting: "t".into() };
        assert!(e.to_string().contains("within 0.2 s"));
        let e = LlmError::Truncated {
            provider: "openai at 127.0.0.1:8080".into(),
            max_tokens: 1024,
            setting: "\"max_tokens\" in --config".into(),
            looping: false,
        };
        assert_eq!(
            e.to_string(),
            "the answer from openai at 127.0.0.1:8080 was cut off at max_tokens (1024); nothing was run; raise \"max_tokens\" in --config"
        );
        let e = LlmError::Truncated {
            provider: "local".into(),
            max_tokens: 1024,
            setting: "providers.local.max_tokens".into(),
            looping: true,
        };
        assert!(e.to_string().contains("repeated itself") && e.to_string().contains("will not help"), "{e}");
        let e = LlmError::Connect {
            provider: "ollama".into(),
            url: "http://127.0.0.1:1234".into(),
            message: "connection refused".into(),
            hint: "is the server running?".into(),
        };
        assert_eq!(e.to_string(), "ollama: connection refused at http://127.0.0.1:1234: is the server running?");
        let e = LlmError::Auth {
            provider: "anthropic".into(),
            status: 401,
            key: "the API key in ANTHROPIC_API_KEY".into(),
        };
        assert_eq!(e.to_string(), "401 from anthropic: the API key in ANTHROPIC_API_KEY was rejected; check it");
    }
}
