//! The OpenAI-compatible wire format: `GET /models`, `POST /chat/completions`
//! (llama-server, llama-cpp-python, LM Studio, vLLM, Ollama's `/v1`).

use serde_json::{json, Value};

use super::{count, error_text, messages_json, model_list, plain_f64, seconds, WireFormat};
use crate::llm::{ModelError, Reply, Request, Usage};

/// OpenAI's chat completions.
#[derive(Debug, Default)]
pub struct OpenAi;

impl WireFormat for OpenAi {
    const NAME: &'static str = "openai";
    const LIST_PATH: &'static str = "/models";
    const CHAT_PATH: &'static str = "/chat/completions";

    fn listed_models<'a>(url: &str, listing: &'a Value) -> Result<Vec<&'a str>, ModelError> {
        Ok(model_list(url, listing, "data")?.iter().filter_map(|m| m.get("id").and_then(Value::as_str)).collect())
    }

    fn chat_body(req: &Request, model: Option<String>) -> Value {
        let mut body = json!({
            "messages": messages_json(req),
            "temperature": plain_f64(req.temperature),
            "max_tokens": req.max_tokens,
            "stream": false,
        });
        if let Some(model) = model {
            body["model"] = json!(model);
        }
        if !req.stop.is_empty() {
            body["stop"] = json!(req.stop);
        }
        body
    }

    fn parse_reply(url: &str, reply: &Value) -> Result<Reply, ModelError> {
        if let Some(err) = reply.get("error") {
            return Err(ModelError::BadReply(format!("{url}: {}", error_text(err))));
        }
        let choice = reply
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .ok_or_else(|| ModelError::BadReply(format!("{url}: no choices in the reply")))?;
        let content = choice.get("message").and_then(|m| m.get("content"));
        let text = match content {
            Some(Value::String(s)) => s.clone(),
            // Some servers send content as a list of typed parts.
            Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
            _ => return Err(ModelError::BadReply(format!("{url}: no text in choices[0].message.content"))),
        };
        let usage = reply.get("usage");
        // llama.cpp's server adds `timings` (milliseconds; `prompt_n` counts
        // the prompt tokens it evaluated, after its prompt cache).
        let timings = reply.get("timings");
        let millis = |key| timings.and_then(|t| t.get(key)).and_then(Value::as_f64).and_then(|ms| seconds(ms / 1e3));
        Ok(Reply {
            text,
            usage: Usage {
                prompt_tokens: count(usage.and_then(|u| u.get("prompt_tokens"))),
                completion_tokens: count(usage.and_then(|u| u.get("completion_tokens"))),
                prompt_evaluated: count(timings.and_then(|t| t.get("prompt_n"))),
                prompt_time: millis("prompt_ms"),
                generation_time: millis("predicted_ms"),
            },
            strain: None,
        })
    }
}
