//! Probe of one short ask for the memory model (issue 31): rewrite a
//! speaker's own clause ("Caroline: I went to a LGBTQ support group
//! yesterday.") as a third-person sentence ("Caroline went to a LGBTQ
//! support group yesterday."). A digest (L3) is today made of such clauses
//! as said; if a model rewrote them faithfully, the digest would be the
//! model's text, in the third person, without quoting. This measures how
//! often each model's rewrite passes a strict check, and its cost.
//!
//! The clauses are the first-person clauses (five words or more) of the
//! first turns of a LoCoMo conversation, cut as the digest cuts them
//! (`digest::turn_clauses`). The check: no first person left; the speaker
//! named; every content word the clause's (a pronoun or a form of "be"
//! aside); every name and number kept; at least 70% of the clause's
//! content words kept; at most three words longer. Greedy decoding.
//!
//! Usage: cargo run --release --example rewrite_probe -- LOCOMO_JSON N GGUF [GGUF...]
//! Prints per model: clauses, passed, ms per call; with `-v` (after N), every
//! rewrite and its verdict.

use std::collections::HashSet;
use std::process::ExitCode;
use std::time::Instant;

use ragger::llm::local::{LocalModel, LocalOptions};
use ragger::llm::{complete, Message, Request};
use ragger::pipeline::{digest, grounding};

const SYSTEM: &str = "Rewrite what a speaker said as one short sentence in the third person that names the speaker. \
Keep every name, number and detail; add nothing.";

/// Worked examples, sharing no words with LoCoMo's subjects.
const EXAMPLES: [(&str, &str); 2] = [
    ("Dana: I adopted a beagle from the shelter last spring!", "Dana adopted a beagle from the shelter last spring."),
    ("Omar: My sister gave me this guitar when I turned 30.", "Omar's sister gave him this guitar when he turned 30."),
];

const FIRST_PERSON: &[&str] = &[
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "us",
    "our",
    "ours",
    "ourselves",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "we're",
    "we've",
    "we'd",
    "we'll",
];

/// Words a third-person rewrite may add.
const ADDED: &[&str] = &[
    "he",
    "she",
    "they",
    "his",
    "her",
    "hers",
    "their",
    "him",
    "them",
    "herself",
    "himself",
    "themselves",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "will",
    "would",
    "be",
    "been",
    "being",
];

fn words(text: &str) -> Vec<String> {
    ragger::text::words(text)
}

/// Why a rewrite fails, or None.
fn fault(speaker: &str, said: &str, rewrite: &str) -> Option<String> {
    let rw = words(rewrite);
    if let Some(w) = rw.iter().find(|w| FIRST_PERSON.contains(&w.as_str())) {
        return Some(format!("first person left ({w})"));
    }
    let name = speaker.to_lowercase();
    if !rw.iter().any(|w| w == &name || w.strip_suffix("'s") == Some(name.as_str())) {
        return Some("speaker not named".into());
    }
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    let source: HashSet<String> = grounding::content_stems(said);
    let allowed: HashSet<String> = ADDED.iter().map(|w| stem(w)).chain([stem(&name)]).collect();
    let new: Vec<String> = grounding::content_stems(rewrite)
        .into_iter()
        .filter(|s| !source.contains(s) && !allowed.contains(s) && !s.starts_with(&stem(&name)))
        .collect();
    if !new.is_empty() {
        return Some(format!("words not said: {}", new.join(", ")));
    }
    let lower = rewrite.to_lowercase();
    if let Some(t) = grounding::terms(said).into_iter().find(|t| !lower.contains(&t.to_lowercase())) {
        return Some(format!("dropped {t}"));
    }
    let kept = grounding::content_stems(rewrite);
    let own: Vec<String> =
        source.into_iter().filter(|s| !FIRST_PERSON.iter().any(|f| stem(f) == *s) && !allowed.contains(s)).collect();
    let share = own.iter().filter(|s| kept.contains(*s)).count() as f32 / own.len().max(1) as f32;
    if share < 0.7 {
        return Some(format!("kept {:.0}% of the clause's words", share * 100.0));
    }
    if rw.len() > words(said).len() + 3 {
        return Some("longer than the clause".into());
    }
    None
}

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
                let body = c.strip_prefix(&format!("{who}: ")).unwrap_or(&c).to_string();
                let ws = words(&body);
                if ws.len() >= 5 && ws.iter().any(|w| FIRST_PERSON.contains(&w.as_str())) {
                    out.push((who.to_string(), body));
                }
            }
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let args: Vec<&String> = args.iter().filter(|a| *a != "-v").collect();
    let (Some(data), Some(turns), models) =
        (args.first(), args.get(1).and_then(|n| n.parse().ok()), &args[2.min(args.len())..])
    else {
        eprintln!("usage: rewrite_probe LOCOMO_JSON N GGUF [GGUF...] [-v]");
        return ExitCode::from(2);
    };
    let clauses = match clauses(data, turns) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rewrite_probe: {e}");
            return ExitCode::from(66);
        }
    };
    println!("| model | clauses | rewrites that pass | ms per call |\n|---|---|---|---|");
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
            let mut messages = vec![Message::system(SYSTEM)];
            for (a, b) in EXAMPLES {
                messages.push(Message::user(a));
                messages.push(Message::assistant(b));
            }
            messages.push(Message::user(format!("{who}: {said}")));
            let req = Request {
                messages,
                temperature: 0.0,
                max_tokens: 80,
                stop: vec!["\n".into()],
                settled: None,
                vocabulary: None,
            };
            let reply =
                complete(&model, &req).map(|r| r.text.trim().to_string()).unwrap_or_else(|e| format!("(error: {e})"));
            let verdict = fault(who, said, &reply);
            passed += usize::from(verdict.is_none());
            if verbose {
                println!("{who}: {said}\n  => {reply}\n  {}", verdict.as_deref().unwrap_or("PASS"));
            }
        }
        let name = std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into());
        let ms = started.elapsed().as_millis() as usize / clauses.len().max(1);
        println!(
            "| {name} | {} | {passed} ({:.0}%) | {ms} |",
            clauses.len(),
            100.0 * passed as f32 / clauses.len().max(1) as f32
        );
    }
    ExitCode::SUCCESS
}
