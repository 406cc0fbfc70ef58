//! The memory model: one interface for every backend (in-process llama.cpp,
//! OpenAI-compatible HTTP, Ollama HTTP). The summarization code depends only
//! on [`MemoryModel`] and [`complete`].

pub mod clean;
pub mod factory;
pub mod http;
#[cfg(feature = "local")]
pub mod local;

use std::fmt;
use std::time::Duration;

use serde::Serialize;

/// Who said a message. Prompts are plain text; each backend applies the
/// model's own chat template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into() }
    }
}

#[derive(Clone, Debug)]
pub struct Request {
    pub messages: Vec<Message>,
    pub temperature: f32,
    pub max_tokens: u32,
    pub stop: Vec<String>,
}

/// What a call cost, as far as the backend reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub prompt_tokens: Option<u32>,
    pub completion_tokens: Option<u32>,
    /// Prompt tokens actually evaluated: the rest came from a cached prefix.
    pub prompt_evaluated: Option<u32>,
    /// Time spent evaluating the prompt.
    pub prompt_time: Option<Duration>,
    /// Time spent generating the completion.
    pub generation_time: Option<Duration>,
}

/// A reply. From a backend's `generate` the text is raw; from [`complete`]
/// it is cleaned and never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub usage: Usage,
}

/// The three classes of failure the pipeline acts on differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// Connection refused, DNS, timeout, 5xx after retries, model file
    /// missing: stop the run (exit 69), count no attempt against any item.
    Unavailable(String),
    /// Unparseable or empty reply: counts one attempt against that item.
    BadReply(String),
    /// 4xx (bad model name, bad key): exit 78 with the server's message.
    Refused(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Unavailable(m) => write!(f, "memory model unavailable: {m}"),
            ModelError::BadReply(m) => write!(f, "bad reply from memory model: {m}"),
            ModelError::Refused(m) => write!(f, "memory model refused the request: {m}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// One memory model backend.
pub trait MemoryModel: Send + Sync {
    /// Human description for `doctor` and errors: backend plus URL or path.
    fn describe(&self) -> String;
    /// Provenance id stored beside every derived row, e.g.
    /// `openai:qwen2.5-0.5b` or `local:SmolLM2-135M-Instruct.Q4_1.gguf`.
    fn model_id(&self) -> String;
    /// One cheap check that the model can answer (endpoint up and model
    /// listed; for `local`, the file exists and is a GGUF). Loads nothing big.
    fn preflight(&self) -> Result<(), ModelError>;
    /// Run one chat completion; the text is returned raw (uncleaned).
    fn generate(&self, req: &Request) -> Result<Reply, ModelError>;
}

/// A cleaned reply longer than this many bytes per token of `max_tokens`
/// was not produced within the limit (a server that ignores it, a runaway
/// model): a bad reply, never a stored summary. English averages about
/// four bytes a token; sixteen leaves room for long words and other scripts.
pub const MAX_REPLY_BYTES_PER_TOKEN: usize = 16;

/// Generate and clean. An empty reply after cleaning is a bad reply, and
/// so is one far longer than `max_tokens` allows (0: no limit).
pub fn complete(model: &dyn MemoryModel, req: &Request) -> Result<Reply, ModelError> {
    let raw = model.generate(req)?;
    let text = clean::clean_reply(&raw.text);
    if text.is_empty() {
        return Err(ModelError::BadReply(format!(
            "empty text after cleaning (raw reply: {:?})",
            truncate_for_message(&raw.text, 80)
        )));
    }
    let limit = req.max_tokens as usize * MAX_REPLY_BYTES_PER_TOKEN;
    if limit > 0 && text.len() > limit {
        return Err(ModelError::BadReply(format!(
            "reply of {} bytes, longer than max_tokens ({}) allows (reply: {:?})",
            text.len(),
            req.max_tokens,
            truncate_for_message(&text, 80)
        )));
    }
    Ok(Reply { text, usage: raw.usage })
}

/// Shorten a string for an error message, on a char boundary.
pub fn truncate_for_message(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max_chars).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(String);

    impl MemoryModel for Fixed {
        fn describe(&self) -> String {
            "fixed".into()
        }
        fn model_id(&self) -> String {
            "fixed".into()
        }
        fn preflight(&self) -> Result<(), ModelError> {
            Ok(())
        }
        fn generate(&self, _: &Request) -> Result<Reply, ModelError> {
            Ok(Reply { text: self.0.clone(), usage: Usage::default() })
        }
    }

    fn request(max_tokens: u32) -> Request {
        Request { messages: vec![Message::user("x")], temperature: 0.0, max_tokens, stop: vec![] }
    }

    #[test]
    fn a_reply_far_longer_than_max_tokens_allows_is_a_bad_reply() {
        let long = Fixed("word ".repeat(1000));
        assert!(
            matches!(complete(&long, &request(200)), Err(ModelError::BadReply(m)) if m.contains("max_tokens (200)"))
        );
        assert!(complete(&long, &request(400)).is_ok(), "5000 bytes fit 400 tokens");
        assert!(complete(&long, &request(0)).is_ok(), "0: no limit");
    }
}
