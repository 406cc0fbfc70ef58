//! Probe of one short ask for the memory model (issue 31): rewrite what a
//! speaker said in the first person ("Caroline: I went to a LGBTQ support
//! group yesterday.") as a third-person sentence ("Caroline went to a LGBTQ
//! support group yesterday."), as a digest (L3) asks it
//! (`[summaries] rewrite_clauses`). Measures how often each model's rewrite
//! passes the shipped check (`grounding::rewrite_fault`, beside the
//! grounding check of any reply) and what a call costs.
//!
//! The clauses are those a rewrite is asked for (first person, no second
//! person, `grounding::speaks_for_itself`) among the first turns of a
//! LoCoMo conversation, cut as the digest cuts them (`digest::turn_clauses`).
//! Decoding as shipped: the prompt `prompts::rewrite`, held to the clause's
//! words (`digest::rewrite_vocabulary`) unless `--free`, at the default
//! temperature.
//!
//! Usage: cargo run --release --example rewrite_probe -- LOCOMO_JSON N GGUF [GGUF...] [--free] [-v]
//! Prints a table row per model: clauses, rewrites that pass, ms per call;
//! with `-v`, every rewrite and its verdict.

use std::process::ExitCode;
use std::time::Instant;

use ragger::config::Summaries;
use ragger::llm::local::{LocalModel, LocalOptions};
use ragger::llm::{complete, MemoryModel, Request};
use ragger::pipeline::{digest, grounding, prompts};

/// The first-person clauses of the first `turns` utterances, with their speaker.
fn clauses(path: &str, turns: usize) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let conv = json.get(0).and_then(|c| c.get("conversation")).ok_or(format!("{path}: no conversation"))?;
    let mut out = Vec::new();
    let mut seen = 0;
    for n in 1.. {
        let Some(session) = conv.get(format!("session_{n}")).and_then(|s| s.as_array()) else { break };
        for u in session {
            if seen >= turns {
                return Ok(out);
            }
            seen += 1;
            let (Some(who), Some(said)) = (u["speaker"].as_str(), u["text"].as_str()) else { continue };
            for c in digest::turn_clauses(&format!("{who}: {said}")) {
                if let Some((who, said)) = digest::named_speaker(&c).filter(|(_, s)| grounding::speaks_for_itself(s)) {
                    out.push((who.to_string(), said.to_string()));
                }
            }
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let held = !args.iter().any(|a| a == "--free");
    let args: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let (Some(data), Some(turns), models) =
        (args.first(), args.get(1).and_then(|n| n.parse().ok()), &args[2.min(args.len())..])
    else {
        eprintln!("usage: rewrite_probe LOCOMO_JSON N GGUF [GGUF...] [--free] [-v]");
        return ExitCode::from(2);
    };
    let clauses = match clauses(data, turns) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rewrite_probe: {e}");
            return ExitCode::from(66);
        }
    };
    let s = Summaries::default();
    println!("| model | decoding | clauses | rewrites that pass | ms per call |\n|---|---|---|---|---|");
    for path in models {
        let model = LocalModel::new(LocalOptions {
            model_path: path.into(),
            threads: 1,
            context_tokens: 2048,
            seed: 42,
            verbose_log: false,
            parallel: 1,
        });
        if let Err(e) = model.load() {
            eprintln!("rewrite_probe: {path}: {e}");
            return ExitCode::from(69);
        }
        let (mut passed, started) = (0, Instant::now());
        for (who, said) in &clauses {
            let req = Request {
                messages: prompts::rewrite(who, said, s.max_input_chars),
                temperature: s.temperature,
                max_tokens: prompts::REWRITE_REPLY_TOKENS,
                stop: vec!["\n".into()],
                settled: None,
                vocabulary: held.then(|| digest::rewrite_vocabulary(who, said)),
            };
            let reply = match complete(&model, &req) {
                Ok(r) => ragger::pipeline::tidy::tidy(&r.text, None),
                Err(e) => format!("(error: {e})"),
            };
            let keeps = held && model.keeps_vocabulary();
            let verdict = grounding::rewrite_refused(who, said, &reply, &prompts::example_texts(), keeps);
            passed += usize::from(verdict.is_none());
            if verbose {
                println!("{who}: {said}\n  => {reply}\n  {}", verdict.as_deref().unwrap_or("PASS"));
            }
        }
        let name = std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into());
        let n = clauses.len().max(1);
        let ms = started.elapsed().as_millis() as usize / n;
        let decoding = if held { "held to the clause's words" } else { "free" };
        println!(
            "| {name} | {decoding} | {} | {passed} ({:.0}%) | {ms} |",
            clauses.len(),
            100.0 * passed as f32 / n as f32
        );
    }
    ExitCode::SUCCESS
}
