//! Anthropic Messages API: `POST {url}/v1/messages` with `x-api-key` and
//! `anthropic-version: 2023-06-01`.
//!
//! Structured output is `output_config.format` (a JSON schema; Claude 4.5 and later), or
//! one forced tool named `plan` whose input schema is the plan. An answer that refuses
//! the schema steps down (the compact schema when it was too large, then the tool, then
//! none), remembered for the session. Schema keywords Anthropic does not take (`pattern`,
//! `minimum`, `maximum`) are left out. Content blocks are picked by type: thinking blocks
//! may come first.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;
use serde_json::{json, Value};

use super::error::LlmError;
use super::http::KeyInUse;
use super::provider_config::{Resolved, Structured};
use super::{endpoint, headers_with_key, rejection_naming, Ask, Ladder, ModelRequest, Output, Read, Usage, WireFormat};

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
}

impl WireFormat for Anthropic {
    fn resolved(&self) -> &Resolved {
        &self.r
    }

    fn ladder(&self) -> &'static Ladder {
        &LADDER
    }

    fn url(&self) -> Url {
        endpoint(&self.r.base, Some("v1"), "messages")
    }

    fn headers(&self, key: Option<&KeyInUse>) -> Result<HeaderMap, LlmError> {
        let mut h = headers_with_key(&self.r, key, HeaderName::from_static("x-api-key"), false)?;
        h.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        Ok(h)
    }

    /// The request body for `mode`.
    fn body(&self, req: &ModelRequest<'_>, ask: Ask) -> Value {
        let mut body = json!({
            "model": self.r.model,
            "max_tokens": self.r.max_tokens,
            "system": req.system,
            "messages": [{"role": "user", "content": req.user}],
        });
        if let Some(t) = self.r.temperature {
            body["temperature"] = json!(t);
        }
        match ask.mode {
            Structured::JsonSchema => {
                let schema = without_keywords(req.schema_for(ask));
                body["output_config"] = json!({"format": {"type": "json_schema", "schema": schema}});
            }
            Structured::Tool => {
                body["tools"] = json!([{
                    "name": TOOL_NAME,
                    "description": "Return the plan for the user's request.",
                    "input_schema": without_keywords(req.schema_for(ask)),
                }]);
                body["tool_choice"] = json!({"type": "tool", "name": TOOL_NAME});
            }
            Structured::JsonObject | Structured::None => {}
        }
        body
    }

    /// Reads a 2xx body.
    fn read(&self, body: &Value) -> Result<Read, LlmError> {
        let provider = &self.r.label();
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
        let truncated = matches!(stop, "max_tokens" | "model_context_window_exceeded");
        if truncated {
            return Ok(Read { output: Output::Text(text), usage, truncated });
        }
        if stop == "refusal" {
            let message = if text.trim().is_empty() { "the request was declined".to_string() } else { one_line(&text) };
            return Err(LlmError::Refused { provider: provider.clone(), message });
        }
        let tool_input = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .find(|b| b.get("name").and_then(Value::as_str) == Some(TOOL_NAME))
            .and_then(|b| b.get("input"));
        if let Some(input) = tool_input {
            return match input {
                Value::Object(m) => Ok(Read { output: Output::Object(m.clone()), usage, truncated }),
                _ => Err(malformed("the plan tool's input is not an object")),
            };
        }
        if text.trim().is_empty() {
            return Err(LlmError::Empty { provider: provider.clone(), hint: String::new() });
        }
        Ok(Read { output: Output::Text(text), usage, truncated })
    }
}

/// How Anthropic steps down: `output_config` → the forced tool → none.
const LADDER: Ladder = Ladder {
    rejection: |e| {
        rejection_naming(
            e,
            &[
                "output_config",
                "output_format",
                "json_schema",
                "structured output",
                "extra inputs",
                "not supported",
                "schema",
                "grammar",
            ],
        )
    },
    below: |ask| match ask.mode {
        Structured::JsonSchema => Some(Ask { mode: Structured::Tool, ..ask }),
        Structured::Tool => Some(Ask { mode: Structured::None, ..ask }),
        Structured::JsonObject | Structured::None => None,
    },
};

/// The schema without the keywords Anthropic's structured output does not support.
fn without_keywords(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "pattern" | "minimum" | "maximum"))
                .map(|(k, v)| (k.clone(), without_keywords(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_keywords).collect()),
        other => other.clone(),
    }
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    s.chars().take(300).collect()
}
