//! The HTTP memory-model backends: any OpenAI-compatible
//! `/v1/chat/completions` server and Ollama's native `/api/chat`.
//!
//! Owns the wire formats, timeouts, retries with backoff and the mapping of
//! every failure onto the [`ModelError`] classes. http, or https through
//! rustls (the usual web roots, plus a private CA from `ca_file`).

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{truncate_for_message, MemoryModel, ModelError, Reply, Request, Usage};

/// First retry waits this long; each further retry doubles it.
const BACKOFF_BASE: Duration = Duration::from_millis(250);
/// No single wait between retries is longer, whatever `Retry-After` says.
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// Longest server error message quoted in a [`ModelError`].
const MESSAGE_CHARS: usize = 200;
/// A response body longer than this is a bad reply for that request (a
/// runaway generation, a hostile server), never read whole into memory.
pub const MAX_BODY_BYTES: u64 = 8 << 20;

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

/// A TLS client configuration that trusts the usual web roots and the
/// certificates of the PEM file `ca_file` (a private CA, a self-signed
/// server).
pub fn tls_with_ca(ca_file: &Path) -> Result<Arc<rustls::ClientConfig>, ModelError> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::CertificateDer;
    let bad = |why: String| ModelError::Refused(format!("[memory_model] ca_file {}: {why}", ca_file.display()));
    let certs = CertificateDer::pem_file_iter(ca_file)
        .map_err(|e| bad(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad("no PEM certificate in it".into()));
    }
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    for cert in certs {
        roots.add(cert).map_err(|e| bad(e.to_string()))?;
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
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

/// A memory model behind an OpenAI-compatible server (llama-server,
/// llama-cpp-python, LM Studio, vLLM, Ollama's `/v1`).
#[derive(Debug)]
pub struct OpenAiModel {
    client: Client,
}

/// A memory model behind Ollama's native API.
#[derive(Debug)]
pub struct OllamaModel {
    client: Client,
}

impl OpenAiModel {
    pub fn new(opts: HttpOptions) -> Self {
        OpenAiModel { client: Client::new(opts) }
    }

    /// Change the first retry delay (tests use a short one).
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.client.backoff = base;
        self
    }
}

impl OllamaModel {
    pub fn new(opts: HttpOptions) -> Self {
        OllamaModel { client: Client::new(opts) }
    }

    /// Change the first retry delay (tests use a short one).
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.client.backoff = base;
        self
    }
}

impl MemoryModel for OpenAiModel {
    fn describe(&self) -> String {
        self.client.describe("openai")
    }

    fn model_id(&self) -> String {
        self.client.model_id("openai")
    }

    fn preflight(&self) -> Result<(), ModelError> {
        let url = self.client.endpoint("/models");
        let listing = self.client.call(&url, None).map_err(listing_failed)?;
        let ids: Vec<&str> = listing
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| ModelError::Unavailable(format!("{url}: no model list (`data`) in the reply")))?
            .iter()
            .filter_map(|m| m.get("id").and_then(Value::as_str))
            .collect();
        self.client.pick_model(&url, &ids)
    }

    fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
        let mut body = json!({
            "messages": messages_json(req),
            "temperature": plain_f64(req.temperature),
            "max_tokens": req.max_tokens,
            "stream": false,
        });
        if let Some(model) = self.client.request_model() {
            body["model"] = json!(model);
        }
        if !req.stop.is_empty() {
            body["stop"] = json!(req.stop);
        }
        let url = self.client.endpoint("/chat/completions");
        let reply = self.client.call(&url, Some(&body))?;
        parse_openai_reply(&url, &reply)
    }
}

impl MemoryModel for OllamaModel {
    fn describe(&self) -> String {
        self.client.describe("ollama")
    }

    fn model_id(&self) -> String {
        self.client.model_id("ollama")
    }

    fn preflight(&self) -> Result<(), ModelError> {
        let url = self.client.endpoint("/api/tags");
        let listing = self.client.call(&url, None).map_err(listing_failed)?;
        let names: Vec<&str> = listing
            .get("models")
            .and_then(Value::as_array)
            .ok_or_else(|| ModelError::Unavailable(format!("{url}: no model list (`models`) in the reply")))?
            .iter()
            .filter_map(|m| m.get("name").or_else(|| m.get("model")).and_then(Value::as_str))
            .collect();
        self.client.pick_model(&url, &names)
    }

    fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
        let mut options = json!({
            "temperature": plain_f64(req.temperature),
            "num_predict": req.max_tokens,
        });
        if !req.stop.is_empty() {
            options["stop"] = json!(req.stop);
        }
        let body = json!({
            "model": self.client.request_model().unwrap_or_default(),
            "messages": messages_json(req),
            "stream": false,
            "think": false,
            "options": options,
        });
        let url = self.client.endpoint("/api/chat");
        let reply = self.client.call(&url, Some(&body))?;
        parse_ollama_reply(&url, &reply)
    }
}

/// A model listing that fails is no item's fault: the server is not usable.
fn listing_failed(e: ModelError) -> ModelError {
    match e {
        ModelError::BadReply(m) => ModelError::Unavailable(m),
        other => other,
    }
}

fn messages_json(req: &Request) -> Value {
    req.messages.iter().map(|m| json!({ "role": m.role, "content": m.content })).collect()
}

/// `0.2f32` as `0.2`, not `0.20000000298023224`, so request bodies read well.
fn plain_f64(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

fn parse_openai_reply(url: &str, reply: &Value) -> Result<Reply, ModelError> {
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
    let millis = |key| timings.and_then(|t| t.get(key)).and_then(Value::as_f64).and_then(|ms| duration(ms / 1e3));
    Ok(Reply {
        text,
        usage: Usage {
            prompt_tokens: count(usage.and_then(|u| u.get("prompt_tokens"))),
            completion_tokens: count(usage.and_then(|u| u.get("completion_tokens"))),
            prompt_evaluated: count(timings.and_then(|t| t.get("prompt_n"))),
            prompt_time: millis("prompt_ms"),
            generation_time: millis("predicted_ms"),
        },
    })
}

fn parse_ollama_reply(url: &str, reply: &Value) -> Result<Reply, ModelError> {
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
    })
}

fn count(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok())
}

fn nanos(v: Option<&Value>) -> Option<Duration> {
    v.and_then(Value::as_u64).map(Duration::from_nanos)
}

/// Seconds as a duration; `None` for what a server should not send
/// (negative, not finite, absurdly large).
fn duration(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
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

/// What the transport layer shares between the two backends.
struct Client {
    url: String,
    model: String,
    api_key: Option<String>,
    agent: ureq::Agent,
    timeout: Duration,
    retries: u32,
    backoff: Duration,
    /// The server's own name for the model, once preflight has seen the
    /// listing; requests use it, provenance keeps the configured name.
    resolved: OnceLock<String>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .finish_non_exhaustive()
    }
}

/// One failed attempt: whether another attempt may help.
enum Failure {
    Retry { error: ModelError, retry_after: Option<Duration> },
    Final(ModelError),
}

impl Client {
    fn new(opts: HttpOptions) -> Self {
        // Each request gets the call's remaining time as its overall
        // deadline (see `attempt`); ureq applies it to pooled connections
        // too, where per-read timeouts are not set.
        let mut agent = ureq::AgentBuilder::new()
            .timeout_connect(opts.timeout)
            .timeout(opts.timeout)
            .user_agent(concat!("ragger/", env!("CARGO_PKG_VERSION")));
        if let Some(tls) = opts.tls {
            agent = agent.tls_config(tls);
        }
        let agent = agent.build();
        Client {
            url: opts.url.trim_end_matches('/').to_string(),
            model: opts.model,
            api_key: opts.api_key.filter(|k| !k.is_empty()),
            agent,
            timeout: opts.timeout,
            retries: opts.retries,
            backoff: BACKOFF_BASE,
            resolved: OnceLock::new(),
        }
    }

    fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    fn describe(&self, backend: &str) -> String {
        let model = match (self.model.as_str(), self.resolved.get()) {
            ("", Some(r)) => format!("{r} (first listed)"),
            ("", None) => "(first listed)".to_string(),
            (m, _) => m.to_string(),
        };
        format!("{backend} {} model {model}", self.url)
    }

    fn model_id(&self, backend: &str) -> String {
        let name = if !self.model.is_empty() {
            self.model.as_str()
        } else if let Some(r) = self.resolved.get() {
            // A listed path is machine-specific; its file name is not.
            r.rsplit(['/', '\\']).next().unwrap_or(r)
        } else {
            "default"
        };
        format!("{backend}:{name}")
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

    /// GET (no body) or POST a JSON body; retry what may succeed later.
    /// The whole call, retries and waits included, ends within `timeout`.
    fn call(&self, url: &str, body: Option<&Value>) -> Result<Value, ModelError> {
        let deadline = Instant::now() + self.timeout;
        let mut attempt = 0;
        loop {
            let failure = match self.attempt(url, body, deadline) {
                Ok(text) => return parse_json(url, &text),
                Err(f) => f,
            };
            match failure {
                Failure::Retry { error, retry_after } if attempt < self.retries => {
                    let delay = self.backoff.saturating_mul(1 << attempt.min(16)).min(BACKOFF_CAP);
                    let delay = retry_after.map_or(delay, |ra| delay.max(ra)).min(BACKOFF_CAP);
                    if Instant::now() + delay >= deadline {
                        return Err(error);
                    }
                    thread::sleep(delay);
                    attempt += 1;
                }
                Failure::Retry { error, .. } | Failure::Final(error) => return Err(error),
            }
        }
    }

    fn attempt(&self, url: &str, body: Option<&Value>, deadline: Instant) -> Result<String, Failure> {
        let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
            return Err(self.timed_out(url));
        };
        let mut req = match body {
            Some(_) => self.agent.post(url),
            None => self.agent.get(url),
        }
        .timeout(left);
        if let Some(key) = &self.api_key {
            req = req.set("Authorization", &format!("Bearer {key}"));
        }
        let result = match body {
            Some(b) => req.send_json(b),
            None => req.call(),
        };
        match result {
            Ok(resp) => self.read_body(url, resp),
            Err(ureq::Error::Status(code, resp)) => Err(status_failure(url, code, resp)),
            Err(ureq::Error::Transport(t)) => Err(self.transport_failure(url, &t)),
        }
    }

    fn transport_failure(&self, url: &str, t: &ureq::Transport) -> Failure {
        use ureq::ErrorKind as K;
        if let Some(io) = std::error::Error::source(t).and_then(|s| s.downcast_ref::<std::io::Error>()) {
            if is_timeout(io) {
                return self.io_failure(url, io);
            }
        }
        let detail = transport_detail(t);
        match t.kind() {
            K::InvalidUrl | K::UnknownScheme | K::InsecureRequestHttpsOnly => {
                Failure::Final(ModelError::Refused(format!("{url}: {detail}")))
            }
            // Refused, DNS, reset or a connection closed without an
            // answer: the server may be starting or restarting.
            K::ConnectionFailed | K::Dns | K::Io | K::BadStatus | K::BadHeader => Failure::Retry {
                error: ModelError::Unavailable(format!("cannot reach {url}: {detail}")),
                retry_after: None,
            },
            _ => Failure::Final(ModelError::Unavailable(format!("{url}: {detail}"))),
        }
    }

    /// The body as text, up to [`MAX_BODY_BYTES`]: a longer one is a bad
    /// reply for this request, not a sign that the server is down.
    fn read_body(&self, url: &str, resp: ureq::Response) -> Result<String, Failure> {
        let mut bytes = Vec::new();
        resp.into_reader().take(MAX_BODY_BYTES + 1).read_to_end(&mut bytes).map_err(|e| self.io_failure(url, &e))?;
        if bytes.len() as u64 > MAX_BODY_BYTES {
            return Err(Failure::Final(ModelError::BadReply(format!(
                "{url}: reply body longer than {} MiB",
                MAX_BODY_BYTES >> 20
            ))));
        }
        String::from_utf8(bytes)
            .map_err(|_| Failure::Final(ModelError::BadReply(format!("{url}: reply body is not UTF-8"))))
    }

    fn timed_out(&self, url: &str) -> Failure {
        Failure::Final(ModelError::Unavailable(format!("no answer from {url} within {}s", self.timeout.as_secs_f32())))
    }

    /// A timed-out read is not retried: the same request would most likely
    /// time out again, and the run is better stopped (exit 69) than
    /// blocked for `timeout × retries`.
    fn io_failure(&self, url: &str, e: &std::io::Error) -> Failure {
        if is_timeout(e) {
            self.timed_out(url)
        } else {
            Failure::Retry {
                error: ModelError::Unavailable(format!("connection to {url} failed: {e}")),
                retry_after: None,
            }
        }
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock)
}

/// ureq's message without the URL it prefixes (ours names the URL once).
fn transport_detail(t: &ureq::Transport) -> String {
    let mut s = t.kind().to_string();
    if let Some(m) = t.message() {
        s = format!("{s}: {m}");
    }
    if let Some(src) = std::error::Error::source(t) {
        s = format!("{s}: {src}");
    }
    s
}

fn status_failure(url: &str, code: u16, resp: ureq::Response) -> Failure {
    let retry_after = resp.header("Retry-After").and_then(|v| v.trim().parse::<u64>().ok()).map(Duration::from_secs);
    let body = resp.into_string().unwrap_or_default();
    let message = server_message(&body);
    let text = if message.is_empty() {
        format!("HTTP {code} from {url}")
    } else {
        format!("HTTP {code} from {url}: {message}")
    };
    match code {
        // The server is busy, restarting, or behind a proxy that lost it.
        408 | 429 | 502 | 503 | 504 => Failure::Retry { error: ModelError::Unavailable(text), retry_after },
        // The configuration is wrong (key, model name, URL): no item helps.
        401 | 403 | 404 | 405 => Failure::Final(ModelError::Refused(text)),
        // The server is up and failed this request (500 from a prompt that
        // crashes a template, …): another try may pass, then it is the
        // item's fault.
        500..=599 => Failure::Retry { error: ModelError::BadReply(text), retry_after },
        // This request was refused for its content (400 from a content
        // filter, 413 or 422 for a prompt too long): the item's fault.
        _ => Failure::Final(ModelError::BadReply(text)),
    }
}

/// The error message of an error response: OpenAI's `error.message`,
/// Ollama's `error`, FastAPI's `detail`, or the body itself; one short line.
fn server_message(body: &str) -> String {
    let text = match serde_json::from_str::<Value>(body) {
        Ok(v) => v
            .get("error")
            .map(error_text)
            .or_else(|| v.get("message").and_then(Value::as_str).map(str::to_string))
            .or_else(|| v.get("detail").map(error_text))
            .unwrap_or_else(|| body.to_string()),
        Err(_) => body.to_string(),
    };
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_for_message(&one_line, MESSAGE_CHARS)
}

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

fn parse_json(url: &str, text: &str) -> Result<Value, ModelError> {
    serde_json::from_str(text).map_err(|e| {
        ModelError::BadReply(format!("{url}: reply is not JSON ({e}): {:?}", truncate_for_message(text, 80)))
    })
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
    fn server_messages_from_each_dialect() {
        assert_eq!(
            server_message(r#"{"error":{"message":"The model `x` does not exist","type":"invalid_request_error"}}"#),
            "The model `x` does not exist"
        );
        assert_eq!(
            server_message(r#"{"error":"model \"x\" not found, try pulling it first"}"#),
            "model \"x\" not found, try pulling it first"
        );
        assert_eq!(
            server_message(r#"{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error"}]}"#),
            "field required"
        );
        assert_eq!(server_message("Bad Gateway\n"), "Bad Gateway");
        assert!(server_message(&"x".repeat(1000)).chars().count() <= MESSAGE_CHARS + 1);
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
        e.client.resolved.set("/m/SmolLM2.gguf".into()).unwrap();
        assert_eq!(e.model_id(), "openai:SmolLM2.gguf");
    }
}
