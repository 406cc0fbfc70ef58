//! Build the configured memory model backend. Construction is cheap: the
//! local backend loads its GGUF at the first call, HTTP backends connect
//! then.

use std::time::Duration;

use super::{MemoryModel, ModelError};
use crate::config::{Backend, Config};
use crate::paths::Paths;

pub fn from_config(config: &Config, paths: &Paths, verbose: u8) -> Result<Box<dyn MemoryModel>, ModelError> {
    let m = &config.memory_model;
    match m.backend {
        Backend::Openai | Backend::Ollama => {
            let api_key = match m.api_key_env.as_deref().filter(|s| !s.is_empty()) {
                Some(var) => Some(std::env::var(var).map_err(|_| {
                    ModelError::Refused(format!(
                        "[memory_model] api_key_env names {var}, which is not set in the environment"
                    ))
                })?),
                None => None,
            };
            let opts = super::http::HttpOptions {
                url: m.url.clone(),
                model: m.model.clone(),
                api_key,
                timeout: Duration::from_secs(m.timeout_seconds.max(1)),
                retries: m.retries,
            };
            Ok(if m.backend == Backend::Openai {
                Box::new(super::http::OpenAiModel::new(opts))
            } else {
                Box::new(super::http::OllamaModel::new(opts))
            })
        }
        Backend::Local => local(config, paths, verbose),
    }
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

/// Where the configured model lives, for messages and `doctor`.
pub fn location(config: &Config, paths: &Paths) -> String {
    let m = &config.memory_model;
    match m.backend {
        Backend::Local => m.model_path.clone().unwrap_or_else(|| paths.default_gguf()).display().to_string(),
        _ => m.url.clone(),
    }
}
