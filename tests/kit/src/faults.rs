//! Fault injection for the standalone fake server (`examples/fake_server.rs`),
//! used by the reliability scripts (`scripts/reliability/`):
//!
//! - `--faults SEED`: each chat completion draws, from a generator seeded
//!   with SEED and the request's number, either a normal reply or a fault:
//!   a hang (the client times out), a 500, a dropped connection, malformed
//!   JSON, a JSON body of the wrong shape, empty text, a `<think>`-only
//!   reply, an enormous (1 MiB) reply, leaked template tokens, a reply that
//!   mentions NO_MERGE inside a sentence, or a slow reply; since issue 15
//!   also a reply dripped a byte at a time (the client's whole-request
//!   deadline must cut it), a 400 for this request (a content filter), a
//!   body over ragger's 8 MiB limit, and a reply full of terminal escape
//!   sequences. A request whose prompt contains `POISON` always gets a 400
//!   (a poison item: it must fail alone, not stall the queue). Model-list
//!   checks fail now and then too (a server that is restarting).
//! - `--jitter-ms N`: a random extra delay of 0..=N ms before every chat
//!   reply (seeded by `--faults` or `--seed`).
//!
//! Normal replies are the topic-scripted model's (topic_model.rs): an L2
//! keeps its turn's `[topic:x]` tag, a merge whose new material brings a
//! topic the running summary lacks is answered `NO_MERGE`, so a backlog
//! with scripted topic changes produces real topic shifts.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::fake_server::{Action, Recorded};
use crate::topic_model;

/// Bytes of the enormous reply.
const ENORMOUS: usize = 1 << 20;
/// Bytes of a body over ragger's limit (8 MiB).
const OVERSIZED: usize = 9 << 20;

/// What one chat request gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    None,
    Hang,
    Status500,
    Drop,
    Malformed,
    WrongShape,
    Empty,
    ThinkOnly,
    Enormous,
    TemplateJunk,
    MentionsNoMerge,
    Slow,
    Drip,
    Status400,
    Oversized,
    Escapes,
}

/// (fault, weight out of 100) for chat requests under `--faults`.
const MENU: &[(Fault, u64)] = &[
    (Fault::None, 39),
    (Fault::Drip, 1),
    (Fault::Status400, 2),
    (Fault::Oversized, 1),
    (Fault::Escapes, 2),
    (Fault::Hang, 3),
    (Fault::Status500, 6),
    (Fault::Drop, 5),
    (Fault::Malformed, 5),
    (Fault::WrongShape, 3),
    (Fault::Empty, 5),
    (Fault::ThinkOnly, 5),
    (Fault::Enormous, 5),
    (Fault::TemplateJunk, 5),
    (Fault::MentionsNoMerge, 8),
    (Fault::Slow, 5),
];

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::None => "none",
            Fault::Hang => "hang",
            Fault::Status500 => "status500",
            Fault::Drop => "drop",
            Fault::Malformed => "malformed",
            Fault::WrongShape => "wrong_shape",
            Fault::Empty => "empty",
            Fault::ThinkOnly => "think_only",
            Fault::Enormous => "enormous",
            Fault::TemplateJunk => "template_junk",
            Fault::MentionsNoMerge => "mentions_no_merge",
            Fault::Slow => "slow",
            Fault::Drip => "drip",
            Fault::Status400 => "status400",
            Fault::Oversized => "oversized",
            Fault::Escapes => "escapes",
        }
    }
}

pub struct Chaos {
    seed: u64,
    faults: bool,
    jitter_ms: u64,
    next: AtomicU64,
    tally: Mutex<BTreeMap<&'static str, u64>>,
}

impl Chaos {
    /// `faults`: the `--faults` seed; `seed`: `--seed` (used when there is
    /// no `--faults`); `jitter_ms`: `--jitter-ms`.
    pub fn new(faults: Option<u64>, seed: u64, jitter_ms: u64) -> Chaos {
        Chaos {
            seed: faults.unwrap_or(seed),
            faults: faults.is_some(),
            jitter_ms,
            next: AtomicU64::new(0),
            tally: Mutex::new(BTreeMap::new()),
        }
    }

    /// The answer to one request.
    pub fn reply(&self, r: &Recorded) -> Action {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let mut rng = fastrand::Rng::with_seed(self.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if !r.is_chat() {
            // A restarting server fails its model list now and then.
            if self.faults && rng.u64(..100) < 3 {
                self.count("models_500");
                return Action::status(500, "fake fault: model list unavailable");
            }
            return Action::text("");
        }
        if self.faults && r.prompt().contains("POISON") {
            self.count("poison");
            return Action::status(400, "fake fault: this request is refused by the content filter");
        }
        let fault = if self.faults { pick(rng.u64(..100)) } else { Fault::None };
        self.count(fault.name());
        let jitter = Duration::from_millis(rng.u64(..=self.jitter_ms));
        let action = match fault {
            Fault::None => Action::Text(normal(r)),
            Fault::Hang => return Action::Hang,
            Fault::Status500 => Action::status(500, "fake fault: internal server error"),
            Fault::Drop => Action::Drop,
            Fault::Malformed => Action::Malformed,
            Fault::WrongShape => Action::raw(200, r#"{"choices": [], "object": "chat.completion"}"#),
            Fault::Empty => Action::text(["", "   \n", "\"\""][rng.usize(..3)]),
            Fault::ThinkOnly => Action::text(if rng.bool() {
                format!("<think>\nThe user wants a summary. {}\n</think>", normal(r))
            } else {
                format!("<think>\nLet me see. {} I should", normal(r))
            }),
            Fault::Enormous => {
                let sentence = format!("{} ", normal(r));
                Action::Text(sentence.repeat(ENORMOUS / sentence.len() + 1))
            }
            Fault::TemplateJunk => Action::Text(if rng.bool() {
                format!("<|im_start|>assistant\n{}<|im_end|>\n<|im_start|>user\nThanks!<|im_end|>", normal(r))
            } else {
                "<|im_start|>assistant\n<|im_end|>".to_string()
            }),
            Fault::MentionsNoMerge => Action::Text(format!("{} Nobody replied NO_MERGE or asked about it.", normal(r))),
            Fault::Slow => Action::delayed(Duration::from_millis(200 + rng.u64(..800)), Action::Text(normal(r))),
            Fault::Drip => return Action::Drip(Duration::from_millis(200)),
            Fault::Status400 => Action::status(400, "fake fault: refused by the content filter"),
            Fault::Oversized => {
                let body = serde_json::json!({"choices": [{"message": {"content": "x".repeat(OVERSIZED)}}]});
                Action::raw(200, body.to_string())
            }
            Fault::Escapes => Action::Text(format!(
                "\x1b]0;pwned\x07{} \x1b[2J\x1b[H\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\",
                normal(r)
            )),
        };
        if jitter.is_zero() {
            action
        } else {
            Action::delayed(jitter, action)
        }
    }

    fn count(&self, what: &'static str) {
        *self.tally.lock().unwrap().entry(what).or_default() += 1;
    }

    /// `FAULTS none=12 hang=1 …` for the log.
    pub fn tally_line(&self) -> String {
        let t = self.tally.lock().unwrap();
        let parts: Vec<String> = t.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("FAULTS {}", parts.join(" "))
    }
}

fn pick(mut roll: u64) -> Fault {
    for (fault, weight) in MENU {
        if roll < *weight {
            return *fault;
        }
        roll -= weight;
    }
    Fault::None
}

/// A well-behaved model: the topic-scripted one.
fn normal(r: &Recorded) -> String {
    topic_model::reply_text(r)
}
