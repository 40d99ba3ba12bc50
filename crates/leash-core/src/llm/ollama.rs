//! Ollama's native API: `POST {url}/api/chat` with `stream: false`, `think: false` and
//! the plan's schema in `format`. An answer that refuses the format steps down (the
//! compact schema, then `"json"`, then none), remembered for the session.

use reqwest::header::{HeaderMap, AUTHORIZATION};
use reqwest::Url;
use serde_json::{json, Value};

use super::error::LlmError;
use super::http::KeyInUse;
use super::provider_config::{Resolved, Structured};
use super::{endpoint, headers_with_key, rejection_naming, Ask, Ladder, ModelRequest, Output, Read, Usage, WireFormat};

/// An Ollama server.
#[derive(Debug, Clone)]
pub struct Ollama {
    pub(crate) r: Resolved,
}

impl Ollama {
    pub(crate) fn new(r: Resolved) -> Ollama {
        Ollama { r }
    }
}

impl WireFormat for Ollama {
    fn resolved(&self) -> &Resolved {
        &self.r
    }

    fn ladder(&self) -> &'static Ladder {
        &LADDER
    }

    fn url(&self) -> Url {
        endpoint(&self.r.base, Some("api"), "chat")
    }

    fn headers(&self, key: Option<&KeyInUse>) -> Result<HeaderMap, LlmError> {
        headers_with_key(&self.r, key, AUTHORIZATION, true)
    }

    fn body(&self, req: &ModelRequest<'_>, ask: Ask) -> Value {
        let mut body = json!({
            "model": self.r.model,
            "messages": [
                {"role": "system", "content": req.system},
                {"role": "user", "content": req.user},
            ],
            "stream": false,
            "think": false,
            "options": {
                "temperature": self.r.temperature.unwrap_or(0.0),
                "num_predict": self.r.max_tokens,
            },
        });
        match ask.mode {
            Structured::JsonSchema => body["format"] = req.schema_for(ask).clone(),
            Structured::JsonObject => body["format"] = json!("json"),
            Structured::Tool | Structured::None => {}
        }
        body
    }

    fn read(&self, body: &Value) -> Result<Read, LlmError> {
        let provider = &self.r.label();
        if let Some(e) = body.get("error").and_then(Value::as_str) {
            return Err(LlmError::Malformed {
                provider: provider.clone(),
                message: format!("it reports an error: {e}"),
            });
        }
        let message = body
            .get("message")
            .ok_or_else(|| LlmError::Malformed {
                provider: provider.clone(), message: "it has no “message”".into()
            })?;
        let usage = Usage {
            input_tokens: body.get("prompt_eval_count").and_then(Value::as_u64),
            output_tokens: body.get("eval_count").and_then(Value::as_u64),
        };
        let truncated = body.get("done_reason").and_then(Value::as_str) == Some("length");
        let content = message.get("content").and_then(Value::as_str).unwrap_or("");
        if content.trim().is_empty() && !truncated {
            let thinking = message.get("thinking").and_then(Value::as_str).is_some_and(|t| !t.trim().is_empty());
            let hint = if thinking {
                "; the model spent its answer thinking: use a non-thinking model or raise max_tokens".to_string()
            } else {
                String::new()
            };
            return Err(LlmError::Empty { provider: provider.clone(), hint });
        }
        Ok(Read { output: Output::Text(content.to_string()), usage, truncated })
    }
}

/// How Ollama steps down: `format: <schema>` → `format: "json"` → none.
const LADDER: Ladder = Ladder {
    rejection: |e| rejection_naming(e, &["format", "schema", "grammar"]),
    below: |ask| match ask.mode {
        Structured::JsonSchema => Some(Ask { mode: Structured::JsonObject, ..ask }),
        Structured::JsonObject => Some(Ask { mode: Structured::None, ..ask }),
        Structured::Tool | Structured::None => None,
    },
};
