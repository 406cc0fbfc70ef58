//! Prompt texts. Plain instructions: each backend applies the model's own
//! chat template. Bump a version when its text changes; every derived row
//! records the version that produced it.

use crate::llm::Message;

pub const L2_VERSION: i64 = 1;
pub const FRESH_VERSION: i64 = 1;
pub const MERGE_VERSION: i64 = 1;
/// Rows copied from their input without a model call (the first L3 of a
/// segment made from one L2, the first L4 made from one L3).
pub const COPY_VERSION: i64 = 0;

const L2_SYSTEM: &str = "You write one-sentence summaries of conversation turns for a memory log.";

/// One third-person sentence about one turn.
pub fn turn_summary(user: &str, assistant: &str, max_chars: usize) -> Vec<Message> {
    let half = max_chars / 2;
    vec![
        Message::system(L2_SYSTEM),
        Message::user(format!(
            "Summarize this conversation turn in one sentence, in the third person \
(for example: \"The user asked how to X; the assistant explained Y.\"). \
Do not quote the text, do not greet, do not add anything else.\n\n\
User: {}\n\nAssistant: {}\n\nOne-sentence summary:",
            cut(user.trim(), half),
            cut(assistant.trim(), max_chars - half)
        )),
    ]
}

/// What is being summarised, for the wording of the fold prompts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Session,
    Project,
}

impl Scope {
    fn noun(self) -> &'static str {
        match self {
            Scope::Session => "conversation",
            Scope::Project => "project",
        }
    }
    fn items(self) -> &'static str {
        match self {
            Scope::Session => "new turns",
            Scope::Project => "new session summaries",
        }
    }
}

/// A fresh summary of several items (no running summary yet).
pub fn fresh(scope: Scope, items: &[&str], max_chars: usize) -> Vec<Message> {
    vec![
        Message::system(format!("You keep a short running summary of a {}.", scope.noun())),
        Message::user(format!(
            "Write a summary of these {} in 3 to 5 sentences, in the third person, \
in your own words. Reply with the summary only.\n\n{}\n\nSummary:",
            scope.items(),
            cut(&bullets(items), max_chars)
        )),
    ]
}

/// Fold new items into the running summary, or answer NO_MERGE on a topic shift.
pub fn merge(scope: Scope, running: &str, items: &[&str], max_chars: usize) -> Vec<Message> {
    let budget_running = max_chars / 2;
    let new = cut(&bullets(items), max_chars - budget_running.min(running.len()));
    vec![
        Message::system(format!("You keep a short running summary of a {}.", scope.noun())),
        Message::user(format!(
            "Running summary:\n{}\n\n{}:\n{}\n\n\
If the {} continue the same topic, reply with the updated summary: 3 to 5 sentences, \
in the third person, in your own words, covering both. \
If they are about a different topic, reply with exactly NO_MERGE and nothing else.",
            cut(running, budget_running),
            capitalize(scope.items()),
            new,
            scope.items()
        )),
    ]
}

fn bullets(items: &[&str]) -> String {
    items.iter().map(|s| format!("- {}", s.trim())).collect::<Vec<_>>().join("\n")
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// Cut text to at most `max` characters, keeping the beginning and the end
/// (a session's opening intent matters) with a visible marker between.
pub fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let marker_len = 40;
    let keep = max.saturating_sub(marker_len);
    let head = keep * 2 / 3;
    let tail = keep - head;
    let omitted = n - head - tail;
    let h: String = text.chars().take(head).collect();
    let t: String = text.chars().skip(n - tail).collect();
    format!("{h} […{omitted} characters omitted…] {t}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_head_and_tail_and_marks_the_cut() {
        let text: String = (0..1000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let c = cut(&text, 200);
        assert!(c.starts_with(&text[..100]));
        assert!(c.ends_with(&text[text.len() - 50..]));
        assert!(c.contains("characters omitted"));
        assert!(c.chars().count() <= 200 + 10);
        assert_eq!(cut("short", 200), "short");
    }

    #[test]
    fn cut_is_char_safe() {
        let text = "é".repeat(500);
        let c = cut(&text, 100);
        assert!(c.contains("omitted"));
    }

    #[test]
    fn merge_prompt_names_the_verdict_and_both_parts() {
        let m = merge(Scope::Session, "They discussed Rust.", &["The user asked about lifetimes."], 3000);
        let text = &m[1].content;
        assert!(text.contains("NO_MERGE"));
        assert!(text.contains("They discussed Rust."));
        assert!(text.contains("- The user asked about lifetimes."));
    }
}
