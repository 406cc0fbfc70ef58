//! One real round trip through the openai HTTP backend, for
//! `scripts/e2e-llama-server.sh`: preflight, one summarization-like
//! completion, then the cleaned text, latency and token counts on stdout.
//!
//!     cargo run --example http_roundtrip -- http://127.0.0.1:8080/v1 [MODEL]
//!
//! An empty or missing MODEL uses the first model the server lists.

use std::time::{Duration, Instant};

use ragger::llm::http::{HttpOptions, OpenAiModel};
use ragger::llm::{clean, MemoryModel, Message, ModelError, Request};

fn main() -> Result<(), ModelError> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "http://127.0.0.1:8080/v1".to_string());
    let model = OpenAiModel::new(HttpOptions {
        url,
        model: args.next().unwrap_or_default(),
        api_key: None,
        timeout: Duration::from_secs(120),
        tls: None,
        retries: 2,
    });

    let started = Instant::now();
    model.preflight()?;
    println!("preflight_ms: {}", started.elapsed().as_millis());
    println!("backend: {}", model.describe());
    println!("model_id: {}", model.model_id());

    let req = Request {
        messages: vec![
            Message::system(
                "You keep the memory of a conversation. Summarize the turn below in one \
                 sentence, in the third person, in at most 30 words. Reply with the sentence only.",
            ),
            Message::user(
                "User: How do I run a backup script every 20 minutes?\n\
                 Assistant: Run `crontab -e` and add the line `*/20 * * * * /home/me/backup.sh`; \
                 cron will then start the script every 20 minutes.",
            ),
        ],
        temperature: 0.2,
        max_tokens: 80,
        stop: vec![],
        settled: None,
        vocabulary: None,
    };
    let started = Instant::now();
    let raw = model.generate(&req)?;
    let latency = started.elapsed();
    let text = clean::clean_reply(&raw.text);

    println!("raw: {:?}", raw.text);
    println!("text: {text}");
    println!("latency_ms: {}", latency.as_millis());
    let show = |n: Option<u32>| n.map_or("unknown".to_string(), |n| n.to_string());
    println!("prompt_tokens: {}", show(raw.usage.prompt_tokens));
    println!("completion_tokens: {}", show(raw.usage.completion_tokens));
    if text.is_empty() {
        return Err(ModelError::BadReply("empty text after cleaning".into()));
    }
    Ok(())
}
