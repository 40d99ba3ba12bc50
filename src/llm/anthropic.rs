//! Anthropic Messages API: `POST {url}/v1/messages` with `x-api-key` and
//! `anthropic-version: 2023-06-01`.
//!
//! Structured output is `output_config.format` (a JSON schema; Claude 4.5 and later), or
//! one forced tool named `plan` whose input schema is the plan. A 400 that rejects
//! `output_config` downgrades to the tool once, remembered for the session. Content
//! blocks are picked by type: thinking blocks may come first.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;
use serde_json::{json, Value};
use tokio::time::Instant;

use super::config::{Resolved, Structured};
use super::error::LlmError;
use super::http::KeyInUse;
use super::{
    answer, downgraded, headers_with_key, join_url, key_for, post_with_fallback, Answer, ModelRequest, Output,
    Provider, Usage,
};

pub const API_VERSION: &str = "2023-06-01";
/// The forced tool's name.
pub const TOOL_NAME: &str = "plan";

/// An Anthropic endpoint.
#[derive(Debug, Clone)]
pub struct Anthropic {
    pub(crate) r: Resolved,
}

impl Anthropic {
    pub(crate) fn new(r: Resolved) -> Anthropic {
        Anthropic { r }
    }

    fn url(&self) -> Url {
        let path = self.r.base.path().trim_end_matches('/');
        if path.ends_with("/messages") {
            self.r.base.clone()
        } else if path.ends_with("/v1") {
            join_url(&self.r.base, "messages")
        } else {
            join_url(&self.r.base, "v1/messages")
        }
    }

    fn headers(&self, key: Option<&KeyInUse>) -> Result<HeaderMap, LlmError> {
        let mut h = headers_with_key(&self.r, key, HeaderName::from_static("x-api-key"), false)?;
        h.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        Ok(h)
    }

    /// The request body for `mode`.
    pub(crate) fn body(&self, req: &ModelRequest<'_>, mode: Structured) -> Value {
        let mut body = json!({
            "model": self.r.model,
            "max_tokens": self.r.max_tokens,
            "system": req.system,
            "messages": [{"role": "user", "content": req.user}],
        });
        if let Some(t) = self.r.temperature {
            body["temperature"] = json!(t);
        }
        match mode {
            Structured::JsonSchema => {
                body["output_config"] = json!({"format": {"type": "json_schema", "schema": req.schema}});
            }
            Structured::Tool => {
                body["tools"] = json!([{
                    "name": TOOL_NAME,
                    "description": "Return the plan for the user's request.",
                    "input_schema": req.schema,
                }]);
                body["tool_choice"] = json!({"type": "tool", "name": TOOL_NAME});
            }
            Structured::JsonObject | Structured::None => {}
        }
        body
    }

    /// Reads a 2xx body.
    pub(crate) fn read(&self, body: &Value) -> Result<(Output, Usage), LlmError> {
        let provider = &self.r.name;
        let malformed = |m: &str| LlmError::Malformed { provider: provider.clone(), message: m.to_string() };
        let blocks =
            body.get("content").and_then(Value::as_array).ok_or_else(|| malformed("it has no “content” list"))?;
        let stop = body.get("stop_reason").and_then(Value::as_str).unwrap_or("");
        let text: String = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("");
        let usage = Usage {
            input_tokens: body.pointer("/usage/input_tokens").and_then(Value::as_u64),
            output_tokens: body.pointer("/usage/output_tokens").and_then(Value::as_u64),
        };
        match stop {
            "max_tokens" | "model_context_window_exceeded" => {
                return Err(LlmError::Truncated { provider: provider.clone(), max_tokens: self.r.max_tokens })
            }
            "refusal" => {
                let message =
                    if text.trim().is_empty() { "the request was declined".to_string() } else { one_line(&text) };
                return Err(LlmError::Refused { provider: provider.clone(), message });
            }
            _ => {}
        }
        let tool_input = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .find(|b| b.get("name").and_then(Value::as_str) == Some(TOOL_NAME))
            .and_then(|b| b.get("input"));
        if let Some(input) = tool_input {
            return match input {
                Value::Object(m) => Ok((Output::Object(m.clone()), usage)),
                _ => Err(malformed("the plan tool's input is not an object")),
            };
        }
        if text.trim().is_empty() {
            return Err(LlmError::Empty { provider: provider.clone(), hint: String::new() });
        }
        Ok((Output::Text(text), usage))
    }

    fn initial_mode(&self) -> Structured {
        if self.r.structured == Structured::JsonSchema && downgraded(&self.r) {
            Structured::Tool
        } else {
            self.r.structured
        }
    }
}

/// Whether a 400 says the structured-output parameter is not supported.
fn rejects_output_config(e: &LlmError) -> bool {
    match e {
        LlmError::Http { status: 400, message, .. } => {
            let m = message.to_ascii_lowercase();
            ["output_config", "output_format", "json_schema", "structured output", "extra inputs", "not supported"]
                .iter()
                .any(|w| m.contains(w))
        }
        _ => false,
    }
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    s.chars().take(300).collect()
}

impl Provider for Anthropic {
    fn name(&self) -> &str {
        &self.r.name
    }

    fn model(&self) -> &str {
        &self.r.model
    }

    async fn complete(&self, req: &ModelRequest<'_>, deadline: Instant) -> Result<Answer, LlmError> {
        let started = Instant::now();
        let key = key_for(&self.r, deadline).await?;
        let headers = self.headers(key.as_ref())?;
        let (reply, mode, extra) = post_with_fallback(
            &self.r,
            &self.url(),
            &headers,
            key.as_ref(),
            deadline,
            self.initial_mode(),
            Structured::Tool,
            rejects_output_config,
            |mode| self.body(req, mode),
        )
        .await?;
        Ok(answer(&self.r, &reply, self.read(&reply.body)?, extra, started, mode))
    }
}
