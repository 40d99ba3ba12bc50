//! OpenAI Chat Completions (`POST {base}/chat/completions`), which also serves Azure
//! OpenAI v1, OpenRouter, Groq, Mistral, DeepSeek, LM Studio, vLLM, llama.cpp and
//! Ollama's `/v1`.
//!
//! `response_format` is `json_schema` (strict), `json_object` or absent, per the
//! provider's `structured` setting. An answer of any status that refuses the response
//! format steps down (the compact schema when the schema was too much, then
//! `json_object`, then none), remembered for the session: llama.cpp's Python server, for
//! one, answers `json_schema` with a 500 validation error.

use reqwest::header::{HeaderMap, AUTHORIZATION};
use reqwest::Url;
use serde_json::{json, Value};

use super::error::LlmError;
use super::http::KeyInUse;
use super::provider_config::{is_openai_cloud, Resolved, Structured};
use super::{endpoint, headers_with_key, rejection_naming, Ask, Ladder, ModelRequest, Output, Read, Usage, WireFormat};

/// An OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAi {
    pub(crate) r: Resolved,
}

impl OpenAi {
    pub(crate) fn new(r: Resolved) -> OpenAi {
        OpenAi { r }
    }
}

impl WireFormat for OpenAi {
    fn resolved(&self) -> &Resolved {
        &self.r
    }

    fn ladder(&self) -> &'static Ladder {
        &LADDER
    }

    fn url(&self) -> Url {
        endpoint(&self.r.base, None, "chat/completions")
    }

    fn headers(&self, key: Option<&KeyInUse>) -> Result<HeaderMap, LlmError> {
        headers_with_key(&self.r, key, AUTHORIZATION, true)
    }

    fn body(&self, req: &ModelRequest<'_>, ask: Ask) -> Value {
        let cloud = is_openai_cloud(&self.r.base);
        let mut body = json!({
            "model": self.r.model,
            "messages": [
                {"role": "system", "content": req.system},
                {"role": "user", "content": req.user},
            ],
        });
        // OpenAI's newer models reject `max_tokens`; most other servers only know it.
        let tokens_field = if cloud { "max_completion_tokens" } else { "max_tokens" };
        body[tokens_field] = json!(self.r.max_tokens);
        // Local servers default to a temperature of 1; OpenAI's reasoning models reject
        // anything but their default.
        match (self.r.temperature, cloud) {
            (Some(t), _) => body["temperature"] = json!(t),
            (None, false) => body["temperature"] = json!(0),
            (None, true) => {}
        }
        match ask.mode {
            Structured::JsonSchema => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": "plan", "schema": req.schema_for(ask), "strict": true},
                });
            }
            Structured::JsonObject if ask.object_schema => {
                body["response_format"] = json!({"type": "json_object", "schema": req.schema_for(ask)});
            }
            Structured::JsonObject => body["response_format"] = json!({"type": "json_object"}),
            Structured::Tool | Structured::None => {}
        }
        body
    }

    fn read(&self, body: &Value) -> Result<Read, LlmError> {
        let provider = &self.r.label();
        let malformed = |m: &str| LlmError::Malformed { provider: provider.clone(), message: m.to_string() };
        let choice = body
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .ok_or_else(|| malformed("it has no “choices”"))?;
        let message = choice.get("message").ok_or_else(|| malformed("its first choice has no “message”"))?;
        let usage = Usage {
            input_tokens: body.pointer("/usage/prompt_tokens").and_then(Value::as_u64),
            output_tokens: body.pointer("/usage/completion_tokens").and_then(Value::as_u64),
        };
        if let Some(refusal) = message.get("refusal").and_then(Value::as_str).filter(|r| !r.trim().is_empty()) {
            return Err(LlmError::Refused { provider: provider.clone(), message: refusal.chars().take(300).collect() });
        }
        let finish = choice.get("finish_reason").and_then(Value::as_str).unwrap_or("");
        if finish == "content_filter" {
            return Err(LlmError::Refused {
                provider: provider.clone(),
                message: "the answer was withheld by the content filter".into(),
            });
        }
        let content = match message.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(Value::Array(parts)) => {
                parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
            }
            Some(_) => return Err(malformed("its message content is neither text nor null")),
        };
        let truncated = finish == "length";
        if !content.trim().is_empty() || (truncated && !content.is_empty()) {
            return Ok(Read { output: Output::Text(content), usage, truncated });
        }
        // Some servers answer a schema request with a tool call.
        let args = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .and_then(|c| c.pointer("/function/arguments"))
            .and_then(Value::as_str);
        if let Some(a) = args.filter(|a| !a.trim().is_empty()) {
            return Ok(Read { output: Output::Text(a.to_string()), usage, truncated });
        }
        if truncated {
            return Ok(Read { output: Output::Text(String::new()), usage, truncated });
        }
        let hint = if content.is_empty() {
            String::new()
        } else {
            format!(
                "; the server sent only white space: try {} = 'json_schema' or 'none'",
                self.r.setting("structured")
            )
        };
        Err(LlmError::Empty { provider: provider.clone(), hint })
    }
}

/// How an OpenAI-compatible server steps down: `json_schema` → `json_object` with the
/// schema beside it (llama.cpp's servers enforce it with their grammar; others ignore it
/// or refuse it) → `json_object` → none.
const LADDER: Ladder = Ladder {
    rejection: |e| {
        rejection_naming(e, &["response_format", "json_schema", "json_object", "structured output", "schema"])
    },
    below: |ask| match (ask.mode, ask.object_schema) {
        (Structured::JsonSchema, _) => Some(Ask { mode: Structured::JsonObject, object_schema: true, ..ask }),
        (Structured::JsonObject, true) => Some(Ask { object_schema: false, ..ask }),
        (Structured::JsonObject, false) => Some(Ask { mode: Structured::None, ..ask }),
        (Structured::Tool | Structured::None, _) => None,
    },
};
