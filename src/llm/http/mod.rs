//! The HTTP memory-model backends: a [`WireFormat`] per server dialect
//! (`openai.rs`: any OpenAI-compatible `/v1/chat/completions`; `ollama.rs`:
//! Ollama's native `/api/chat`) over one transport (`transport.rs`: the
//! agent, TLS, deadlines, retries with backoff, size caps and the mapping
//! of every failure onto the [`ModelError`] classes).
//!
//! Adding a backend: a file with a type implementing [`WireFormat`], and
//! its arm in `llm/factory.rs`.

mod ollama;
mod openai;
mod transport;

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{json, Value};

pub use ollama::Ollama;
pub use openai::OpenAi;
pub use transport::{tls_with_ca, MAX_BODY_BYTES};

use super::{MemoryModel, ModelError, Reply, Request};
// `0.2f32` as `0.2` in request bodies, not `0.20000000298023224`.
use crate::display::plain_f64;
use transport::Client;

/// How to reach an HTTP model server.
#[derive(Clone)]
pub struct HttpOptions {
    /// Base URL: `http://127.0.0.1:8080/v1` for openai,
    /// `http://127.0.0.1:11434` for ollama.
    pub url: String,
    /// Model name as the server lists it. Empty (openai only): the first
    /// model the server lists.
    pub model: String,
    /// Sent as `Authorization: Bearer`; never printed.
    pub api_key: Option<String>,
    /// Deadline of one model call, retries included: connecting, sending
    /// and reading the whole answer (not per read: a server that drips a
    /// byte a second is cut off too).
    pub timeout: Duration,
    /// Extra attempts after a connection error, 429 or 5xx.
    pub retries: u32,
    /// TLS settings for https (from [`tls_with_ca`]); `None`: the web roots.
    pub tls: Option<Arc<rustls::ClientConfig>>,
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

/// One server dialect: where its model listing and chat calls are, and how
/// their JSON reads and is written. The transport does the rest.
pub trait WireFormat: Send + Sync + fmt::Debug {
    /// The backend's name in descriptions and provenance ids (`openai:…`).
    const NAME: &'static str;
    /// Path of the model listing, after the base URL.
    const LIST_PATH: &'static str;
    /// Path of a chat call, after the base URL.
    const CHAT_PATH: &'static str;
    /// The model names in a listing reply from `url`.
    fn listed_models<'a>(url: &str, listing: &'a Value) -> Result<Vec<&'a str>, ModelError>;
    /// The JSON body of a chat call; `model`: the name to send, if known.
    fn chat_body(req: &Request, model: Option<String>) -> Value;
    /// The text and usage of a chat reply from `url`.
    fn parse_reply(url: &str, reply: &Value) -> Result<Reply, ModelError>;
}

/// A memory model behind an HTTP server speaking `W`.
#[derive(Debug)]
pub struct HttpModel<W: WireFormat> {
    client: Client,
    /// The configured name; empty: the first listed.
    model: String,
    /// The server's own name for the model, once preflight has seen the
    /// listing; requests use it, provenance keeps the configured name.
    resolved: OnceLock<String>,
    wire: PhantomData<W>,
}

/// A memory model behind an OpenAI-compatible server.
pub type OpenAiModel = HttpModel<OpenAi>;
/// A memory model behind Ollama's native API.
pub type OllamaModel = HttpModel<Ollama>;

impl<W: WireFormat> HttpModel<W> {
    pub fn new(opts: HttpOptions) -> Self {
        let model = opts.model.clone();
        HttpModel { client: Client::new(opts), model, resolved: OnceLock::new(), wire: PhantomData }
    }

    /// Change the first retry delay (tests use a short one).
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.client.backoff = base;
        self
    }

    /// The name to send in requests, if any is known.
    fn request_model(&self) -> Option<String> {
        self.resolved.get().cloned().or_else(|| (!self.model.is_empty()).then(|| self.model.clone()))
    }

    /// Check the configured model against the server's listing and
    /// remember the server's name for it.
    fn pick_model(&self, url: &str, listed: &[&str]) -> Result<(), ModelError> {
        let found = if self.model.is_empty() {
            listed.first().copied()
        } else {
            listed
                .iter()
                .copied()
                .find(|l| *l == self.model)
                .or_else(|| listed.iter().copied().find(|l| model_matches(l, &self.model)))
        };
        match found {
            Some(name) => {
                let _ = self.resolved.set(name.to_string());
                Ok(())
            }
            None if listed.is_empty() => Err(ModelError::Unavailable(format!("{url} lists no models"))),
            None => {
                let shown: Vec<&str> = listed.iter().copied().take(5).collect();
                let more = if listed.len() > shown.len() { ", …" } else { "" };
                Err(ModelError::Unavailable(format!(
                    "model {:?} is not listed by {url} (listed: {}{more})",
                    self.model,
                    shown.join(", ")
                )))
            }
        }
    }
}

impl<W: WireFormat> MemoryModel for HttpModel<W> {
    fn describe(&self) -> String {
        let model = match (self.model.as_str(), self.resolved.get()) {
            ("", Some(r)) => format!("{r} (first listed)"),
            ("", None) => "(first listed)".to_string(),
            (m, _) => m.to_string(),
        };
        format!("{} {} model {model}", W::NAME, self.client.url)
    }

    fn model_id(&self) -> String {
        let name = if !self.model.is_empty() {
            self.model.as_str()
        } else if let Some(r) = self.resolved.get() {
            // A listed path is machine-specific; its file name is not.
            r.rsplit(['/', '\\']).next().unwrap_or(r)
        } else {
            "default"
        };
        format!("{}:{name}", W::NAME)
    }

    fn preflight(&self) -> Result<(), ModelError> {
        let url = self.client.endpoint(W::LIST_PATH);
        let listing = self.client.call(&url, None).map_err(listing_failed)?;
        self.pick_model(&url, &W::listed_models(&url, &listing)?)
    }

    fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
        let body = W::chat_body(req, self.request_model());
        let url = self.client.endpoint(W::CHAT_PATH);
        let reply = self.client.call(&url, Some(&body))?;
        W::parse_reply(&url, &reply)
    }
}

/// A model listing that fails is no item's fault: the server is not usable.
fn listing_failed(e: ModelError) -> ModelError {
    match e {
        ModelError::BadReply(m) => ModelError::Unavailable(m),
        other => other,
    }
}

/// Whether a listed model name is the configured one: exactly, up to
/// Ollama's `:latest` tag, or by file name (llama.cpp servers list the
/// model's path, with or without `.gguf`).
fn model_matches(listed: &str, wanted: &str) -> bool {
    let file = listed.rsplit(['/', '\\']).next().unwrap_or(listed);
    listed == wanted
        || listed.strip_suffix(":latest") == Some(wanted)
        || wanted.strip_suffix(":latest") == Some(listed)
        || file == wanted
        || file.strip_suffix(".gguf") == Some(wanted)
}

/// The array `field` of a model listing from `url`.
fn model_list<'a>(url: &str, listing: &'a Value, field: &str) -> Result<&'a Vec<Value>, ModelError> {
    listing
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::Unavailable(format!("{url}: no model list (`{field}`) in the reply")))
}

fn messages_json(req: &Request) -> Value {
    req.messages.iter().map(|m| json!({ "role": m.role, "content": m.content })).collect()
}

fn count(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok())
}

/// Seconds as a duration; `None` for what a server should not send
/// (negative, not finite, absurdly large).
fn seconds(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

/// The text of an `error` field: a string, OpenAI's `{message}`, a
/// validation list's first entry.
fn error_text(err: &Value) -> String {
    match err {
        Value::String(s) => s.clone(),
        Value::Object(o) => o
            .get("message")
            .or_else(|| o.get("msg"))
            .and_then(Value::as_str)
            .map_or_else(|| err.to_string(), str::to_string),
        Value::Array(items) => items.first().map_or_else(String::new, error_text),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_names_match_with_tags_and_paths() {
        assert!(model_matches("qwen2.5:0.5b", "qwen2.5:0.5b"));
        assert!(model_matches("llama3:latest", "llama3"));
        assert!(model_matches("llama3", "llama3:latest"));
        assert!(model_matches("/models/SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_1.gguf"));
        assert!(model_matches("/models/SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_1"));
        assert!(!model_matches("llama3:8b", "llama3"));
        assert!(!model_matches("qwen2.5", "qwen"));
    }

    #[test]
    fn temperature_is_written_as_typed() {
        assert_eq!(json!(plain_f64(0.2)).to_string(), "0.2");
        assert_eq!(json!(plain_f64(0.0)).to_string(), "0.0");
    }

    #[test]
    fn api_key_never_shows_in_debug_output() {
        let opts = HttpOptions {
            url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            api_key: Some("sk-secret".into()),
            timeout: Duration::from_secs(1),
            retries: 0,
            tls: None,
        };
        assert!(!format!("{opts:?}").contains("sk-secret"));
        assert!(!format!("{:?}", OpenAiModel::new(opts)).contains("sk-secret"));
    }

    #[test]
    fn ids_and_descriptions() {
        let opts = |model: &str| HttpOptions {
            url: "http://127.0.0.1:8080/v1/".into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(1),
            retries: 0,
            tls: None,
        };
        let m = OpenAiModel::new(opts("qwen2.5-0.5b"));
        assert_eq!(m.model_id(), "openai:qwen2.5-0.5b");
        assert_eq!(m.describe(), "openai http://127.0.0.1:8080/v1 model qwen2.5-0.5b");
        let o = OllamaModel::new(opts("llama3"));
        assert_eq!(o.model_id(), "ollama:llama3");
        let e = OpenAiModel::new(opts(""));
        e.resolved.set("/m/SmolLM2.gguf".into()).unwrap();
        assert_eq!(e.model_id(), "openai:SmolLM2.gguf");
    }

    #[test]
    fn each_wire_format_builds_its_own_body() {
        let req = Request {
            messages: vec![crate::llm::Message::user("hi")],
            temperature: 0.2,
            max_tokens: 7,
            stop: vec!["END".into()],
            settled: None,
            vocabulary: None,
        };
        let openai = OpenAi::chat_body(&req, None);
        assert_eq!(openai["max_tokens"], 7);
        assert_eq!(openai["stop"], json!(["END"]));
        assert!(openai.get("model").is_none(), "no model name known: none sent");
        let ollama = Ollama::chat_body(&req, Some("llama3".into()));
        assert_eq!(ollama["model"], "llama3");
        assert_eq!(ollama["options"]["num_predict"], 7);
        assert_eq!(ollama["options"]["stop"], json!(["END"]));
    }
}
