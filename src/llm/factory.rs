//! Build the configured memory model backend. Construction is cheap: the
//! local backend loads its GGUF at the first call, HTTP backends connect
//! then.

use std::time::Duration;

use super::http::{HttpModel, HttpOptions, Ollama, OpenAi, WireFormat};
use super::{MemoryModel, ModelError};
use crate::config::{Backend, Config, MemoryModelConfig};
use crate::paths::Paths;

pub fn from_config(config: &Config, paths: &Paths, verbose: u8) -> Result<Box<dyn MemoryModel>, ModelError> {
    let m = &config.memory_model;
    match m.backend {
        Backend::Openai => http::<OpenAi>(m),
        Backend::Ollama => http::<Ollama>(m),
        Backend::Local => local(config, paths, verbose),
    }
}

/// An HTTP backend speaking `W` (see `llm/http/`).
fn http<W: WireFormat + 'static>(m: &MemoryModelConfig) -> Result<Box<dyn MemoryModel>, ModelError> {
    let api_key = match m.api_key_env.as_deref().filter(|s| !s.is_empty()) {
        Some(var) => Some(std::env::var(var).map_err(|_| {
            ModelError::Refused(format!("[memory_model] api_key_env names {var}, which is not set in the environment"))
        })?),
        None => None,
    };
    if api_key.is_some() && !key_may_travel(&m.url) {
        return Err(ModelError::Refused(format!(
            "[memory_model] url {} is plain http to another machine: the API key named by api_key_env \
             would travel in clear text; use a server on this machine or unset api_key_env",
            m.url
        )));
    }
    let opts = HttpOptions {
        url: m.url.clone(),
        model: m.model.clone(),
        api_key,
        timeout: Duration::from_secs(m.timeout_seconds.max(1)),
        retries: m.retries,
        tls: m.ca_file.as_deref().map(super::http::tls_with_ca).transpose()?,
    };
    Ok(Box::new(HttpModel::<W>::new(opts)))
}

#[cfg(feature = "local")]
fn local(config: &Config, paths: &Paths, verbose: u8) -> Result<Box<dyn MemoryModel>, ModelError> {
    let m = &config.memory_model;
    Ok(Box::new(super::local::LocalModel::new(super::local::LocalOptions {
        model_path: m.model_path.clone().unwrap_or_else(|| paths.default_gguf()),
        threads: Config::threads(m.threads),
        context_tokens: m.context_tokens,
        seed: m.seed,
        verbose_log: verbose >= 2,
        parallel: m.parallel,
    })))
}

#[cfg(not(feature = "local"))]
fn local(_: &Config, _: &Paths, _: u8) -> Result<Box<dyn MemoryModel>, ModelError> {
    Err(ModelError::Refused(
        "[memory_model] backend = \"local\" but this ragger was built without the `local` feature; \
         rebuild with default features or use backend = \"openai\" or \"ollama\""
            .into(),
    ))
}

/// Whether an API key may be sent to `url`: not over plain http, unless
/// the server is on this machine (a loopback address or `localhost`).
/// Decided on the URL as the HTTP client parses it (the `url` crate, which
/// ureq uses), never by splitting the string: `http://a:1\@127.0.0.1/`
/// goes to `a` (a backslash ends the authority of an http URL).
pub(crate) fn key_may_travel(url: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url.trim()) else {
        return false; // the client refuses it too; nothing is sent
    };
    if parsed.scheme() != "http" {
        return parsed.scheme() == "https";
    }
    match parsed.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Where the configured model lives, for messages and `doctor`.
pub fn location(config: &Config, paths: &Paths) -> String {
    let m = &config.memory_model;
    match m.backend {
        Backend::Local => m.model_path.clone().unwrap_or_else(|| paths.default_gguf()).display().to_string(),
        _ => m.url.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::key_may_travel;

    #[test]
    fn an_api_key_travels_in_clear_text_only_to_this_machine() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://127.9.9.9/v1",
            "http://localhost:11434",
            "HTTP://LOCALHOST:1/v1",
            "http://[::1]:8080/v1",
            "http://user@127.0.0.1:8080/v1",
            "https://api.example.com/v1",
        ] {
            assert!(key_may_travel(url), "{url}");
        }
        for url in [
            "http://api.example.com/v1",
            "http://192.168.1.5:8080/v1",
            "http://[2001:db8::1]:8080/v1",
            "http://127.0.0.1.evil.example/v1",
            "http://localhost.evil.example/v1",
            "http://127.0.0.1@evil.example/v1",
            // A backslash ends the authority: the request goes to 192.0.2.2.
            "http://192.0.2.2:8080\\@127.0.0.1/v1",
            "http://192.0.2.2\\@localhost/v1",
            "http://0.0.0.0:8080/v1",
            "not a url",
        ] {
            assert!(!key_may_travel(url), "{url}");
        }
    }
}
