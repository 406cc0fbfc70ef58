//! Ollama's native wire format: `GET /api/tags`, `POST /api/chat`.

use std::time::Duration;

use serde_json::{json, Value};

use super::{count, error_text, messages_json, model_list, plain_f64, WireFormat};
use crate::llm::{ModelError, Reply, Request, Usage};

/// Ollama's `/api/chat`.
#[derive(Debug, Default)]
pub struct Ollama;

impl WireFormat for Ollama {
    const NAME: &'static str = "ollama";
    const LIST_PATH: &'static str = "/api/tags";
    const CHAT_PATH: &'static str = "/api/chat";

    fn listed_models<'a>(url: &str, listing: &'a Value) -> Result<Vec<&'a str>, ModelError> {
        Ok(model_list(url, listing, "models")?
            .iter()
            .filter_map(|m| m.get("name").or_else(|| m.get("model")).and_then(Value::as_str))
            .collect())
    }

    fn chat_body(req: &Request, model: Option<String>) -> Value {
        let mut options = json!({
            "temperature": plain_f64(req.temperature),
            "num_predict": req.max_tokens,
        });
        if !req.stop.is_empty() {
            options["stop"] = json!(req.stop);
        }
        json!({
            "model": model.unwrap_or_default(),
            "messages": messages_json(req),
            "stream": false,
            "think": false,
            "options": options,
        })
    }

    fn parse_reply(url: &str, reply: &Value) -> Result<Reply, ModelError> {
        if let Some(err) = reply.get("error") {
            return Err(ModelError::BadReply(format!("{url}: {}", error_text(err))));
        }
        let text = reply
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .ok_or_else(|| ModelError::BadReply(format!("{url}: no text in message.content")))?;
        Ok(Reply {
            text: text.to_string(),
            usage: Usage {
                prompt_tokens: count(reply.get("prompt_eval_count")),
                completion_tokens: count(reply.get("eval_count")),
                prompt_evaluated: None,
                prompt_time: nanos(reply.get("prompt_eval_duration")),
                generation_time: nanos(reply.get("eval_duration")),
            },
            strain: None,
        })
    }
}

fn nanos(v: Option<&Value>) -> Option<Duration> {
    v.and_then(Value::as_u64).map(Duration::from_nanos)
}
