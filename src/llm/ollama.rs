//! Ollama's native API: `POST {url}/api/chat` with `stream: false`, `think: false` and
//! the plan's schema in `format`.

use reqwest::header::{HeaderMap, AUTHORIZATION};
use reqwest::Url;
use serde_json::{json, Value};
use tokio::time::Instant;

use super::config::{Resolved, Structured};
use super::error::LlmError;
use super::http::{self, KeyInUse};
use super::{answer, headers_with_key, join_url, key_for, Answer, ModelRequest, Output, Provider, Usage};

/// An Ollama server.
#[derive(Debug, Clone)]
pub struct Ollama {
    pub(crate) r: Resolved,
}

impl Ollama {
    pub(crate) fn new(r: Resolved) -> Ollama {
        Ollama { r }
    }

    fn url(&self) -> Url {
        let path = self.r.base.path().trim_end_matches('/');
        if path.ends_with("/api/chat") {
            self.r.base.clone()
        } else if path.ends_with("/api") {
            join_url(&self.r.base, "chat")
        } else {
            join_url(&self.r.base, "api/chat")
        }
    }

    fn headers(&self, key: Option<&KeyInUse>) -> Result<HeaderMap, LlmError> {
        headers_with_key(&self.r, key, AUTHORIZATION, true)
    }

    pub(crate) fn body(&self, req: &ModelRequest<'_>) -> Value {
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
        match self.r.structured {
            Structured::JsonSchema => body["format"] = req.schema.clone(),
            Structured::JsonObject => body["format"] = json!("json"),
            Structured::Tool | Structured::None => {}
        }
        body
    }

    pub(crate) fn read(&self, body: &Value) -> Result<(Output, Usage), LlmError> {
        let provider = &self.r.name;
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
        if body.get("done_reason").and_then(Value::as_str) == Some("length") {
            return Err(LlmError::Truncated { provider: provider.clone(), max_tokens: self.r.max_tokens });
        }
        let content = message.get("content").and_then(Value::as_str).unwrap_or("");
        if content.trim().is_empty() {
            let thinking = message.get("thinking").and_then(Value::as_str).is_some_and(|t| !t.trim().is_empty());
            let hint = if thinking {
                "; the model spent its answer thinking: use a non-thinking model or raise max_tokens".to_string()
            } else {
                String::new()
            };
            return Err(LlmError::Empty { provider: provider.clone(), hint });
        }
        Ok((Output::Text(content.to_string()), usage))
    }
}

impl Provider for Ollama {
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
        let body = self.body(req);
        let reply = http::post_json(&self.r, &self.url(), &headers, &body, key.as_ref(), deadline).await?;
        Ok(answer(&self.r, &reply, self.read(&reply.body)?, 0, started, self.r.structured))
    }
}
