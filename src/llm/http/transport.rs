//! The HTTP transport shared by every wire format: the ureq agent, TLS
//! (the usual web roots, plus a private CA from `ca_file`), the call's
//! deadline, retries with backoff, the reply size cap, and the mapping of
//! every failure onto the [`ModelError`] classes.

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{error_text, HttpOptions};
use crate::llm::{truncate_for_message, ModelError};

/// First retry waits this long; each further retry doubles it.
const BACKOFF_BASE: Duration = Duration::from_millis(250);
/// No single wait between retries is longer, whatever `Retry-After` says.
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// Longest server error message quoted in a [`ModelError`].
const MESSAGE_CHARS: usize = 200;
/// A response body longer than this is a bad reply for that request (a
/// runaway generation, a hostile server), never read whole into memory.
pub const MAX_BODY_BYTES: u64 = 8 << 20;

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

/// What every wire format shares: one agent, its deadline and retries.
pub(super) struct Client {
    pub(super) url: String,
    api_key: Option<String>,
    agent: ureq::Agent,
    timeout: Duration,
    retries: u32,
    pub(super) backoff: Duration,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.url)
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
    pub(super) fn new(opts: HttpOptions) -> Self {
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
            api_key: opts.api_key.filter(|k| !k.is_empty()),
            agent,
            timeout: opts.timeout,
            retries: opts.retries,
            backoff: BACKOFF_BASE,
        }
    }

    pub(super) fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// GET (no body) or POST a JSON body; retry what may succeed later.
    /// The whole call, retries and waits included, ends within `timeout`.
    pub(super) fn call(&self, url: &str, body: Option<&Value>) -> Result<Value, ModelError> {
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
            // The factory refuses such a config; this holds for every
            // caller, on the very URL of this request.
            if !crate::llm::factory::key_may_travel(url) {
                return Err(Failure::Final(ModelError::Refused(format!(
                    "{url} is plain http to another machine: the API key would travel in clear text"
                ))));
            }
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
    let one_line = crate::display::one_line(&text);
    truncate_for_message(&one_line, MESSAGE_CHARS)
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
}
