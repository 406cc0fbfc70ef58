//! Prompt texts. Plain instructions: each backend applies the model's own
//! chat template. Bump a version when its text changes; every derived row
//! records the version that produced it.

use super::verdict;
use crate::llm::Message;
use crate::text::cut;

pub const L2_VERSION: i64 = 4;
pub const FRESH_VERSION: i64 = 3;
pub const MERGE_VERSION: i64 = 3;
/// A segment digest (L3): the model's topic line over the turns' notes.
pub const TOPIC_VERSION: i64 = 1;
/// A segment digest with a topic line and clauses a speaker said in the
/// first person rewritten by the model in the third person ([`rewrite`]).
pub const REWRITE_VERSION: i64 = 2;
/// Rows written without the model after its replies failed the grounding
/// check (see `grounding`): the sources, extracted.
pub const EXTRACTIVE_VERSION: i64 = -1;
/// Rows copied from their input without a model call (the first L3 of a
/// segment made from one L2, the first L4 made from one L3).
pub const COPY_VERSION: i64 = 0;

const L2_SYSTEM: &str = "You write one-sentence summaries of conversation turns for a memory log: a short note \
(one sentence, at most 25 words) of each turn's subject, then its outcome (the answer, the fix, the decision) \
or who said what. \
Keep every name, number, command, path and flag exactly as written; add nothing that was not said.";

const KEEP: &str = "Keep every name, number, command, path and flag exactly as written; add nothing that was not said.";

/// A worked example of a merge, as an earlier exchange of the chat.
const MERGE_EXAMPLE: (&str, &str, &str) = (
    "Listing a folder's files in Python: os.listdir, or pathlib's iterdir for Path objects.",
    "- Skipping hidden files: filter out names that start with a dot.\n- Sorting the files by date: sorted with os.path.getmtime as the key.",
    "Listing a folder's files in Python with os.listdir or pathlib's iterdir, skipping hidden files by their leading dot and sorting by date with os.path.getmtime.",
);

/// A worked example of a topic line: notes, then their topic.
const TOPIC_EXAMPLE: (&str, &str) = (
    "- The user asked how to list a folder's files in Python; the assistant suggested os.listdir.\n\
- The user asked how to skip hidden files; the assistant said to filter out names starting with a dot.",
    "Listing a folder's files in Python with os.listdir",
);

/// The texts of every worked example: a reply that copies them is bad.
pub fn example_texts() -> Vec<&'static str> {
    let mut out: Vec<&str> = L2_EXAMPLES.iter().flat_map(|(u, a, s)| [*u, *a, *s]).collect();
    out.extend([MERGE_EXAMPLE.0, MERGE_EXAMPLE.1, MERGE_EXAMPLE.2, TOPIC_EXAMPLE.0, TOPIC_EXAMPLE.1]);
    out.extend(REWRITE_EXAMPLES.iter().flat_map(|(said, rewrite)| [*said, *rewrite]));
    out
}

const REWRITE_SYSTEM: &str = "Rewrite what a speaker said as one short sentence in the third person that names \
the speaker: I, me, my, we and our become the speaker's name, he, she, they, his, her or their. \
Keep every name, number and detail; add nothing.";

/// Worked examples of a rewrite (sharing no words with LoCoMo's subjects
/// or the test fixtures): a past event, a possessive, a plural first person.
const REWRITE_EXAMPLES: [(&str, &str); 3] = [
    ("Dana: I adopted a beagle from the shelter last spring!", "Dana adopted a beagle from the shelter last spring."),
    ("Omar: My sister gave me this guitar when I turned 30.", "Omar's sister gave him this guitar when he turned 30."),
    (
        "Lena: We're so grateful for the help I've had from my neighbours.",
        "Lena is so grateful for the help she has had from her neighbours.",
    ),
];

/// Reply tokens for a rewritten clause.
pub const REWRITE_REPLY_TOKENS: u32 = 64;

/// Ask for a clause a speaker said in the first person ("Caroline: I went
/// to a support group yesterday.") as one third-person sentence that names
/// them ("Caroline went to a support group yesterday."): a digest made of
/// such sentences is the model's text and no quote. A short ask a small
/// model does far better than free prose (BENCHMARKS.md, stop 54).
pub fn rewrite(speaker: &str, clause: &str, max_chars: usize) -> Vec<Message> {
    let mut messages = vec![Message::system(REWRITE_SYSTEM)];
    for (said, rewrite) in REWRITE_EXAMPLES {
        messages.push(Message::user(said));
        messages.push(Message::assistant(rewrite));
    }
    messages.push(Message::user(format!("{speaker}: {}", cut(clause.trim(), max_chars))));
    messages
}

/// Worked examples, as earlier turns of the chat: small models copy the
/// form of an example far more reliably than they follow instructions
/// (SmolLM2-135M echoed the turn back for about half of the turns without
/// them). Written to share no words with the pipeline's test fixtures. (An
/// example between two people, and examples in a terser "subject: outcome"
/// form, were tried: SmolLM2 copied them as the summary of unrelated turns.)
const L2_EXAMPLES: [(&str, &str, &str); 2] = [
    (
        "How do I list the files in a folder with Python?",
        "Use os.listdir(path), or pathlib.Path(path).iterdir() if you want Path objects.",
        "The user asked how to list the files in a folder with Python; the assistant suggested os.listdir or pathlib's iterdir.",
    ),
    (
        "Why does my script work in my shell but not from cron?",
        "Cron runs jobs with a minimal environment; set PATH at the top of the crontab or use absolute paths.",
        "The user asked why a script failed under cron; the assistant explained that cron's minimal PATH must be set or absolute paths used.",
    ),
];

fn turn_text(user: &str, assistant: &str) -> String {
    format!("User: {user}\n\nAssistant: {assistant}")
}

/// One third-person sentence about one turn. The instructions and examples
/// come first, in messages of their own, so that every L2 prompt shares
/// them (an in-process model evaluates them once per run). A follow-up
/// ("That fixed it.") comes with the request it follows (`before`).
pub fn turn_summary(user: &str, assistant: &str, max_chars: usize, before: Option<&str>) -> Vec<Message> {
    let half = max_chars / 2;
    let mut messages = vec![Message::system(L2_SYSTEM)];
    for (u, a, summary) in L2_EXAMPLES {
        messages.push(Message::user(turn_text(u, a)));
        messages.push(Message::assistant(summary));
    }
    let mut text = turn_text(&cut(user.trim(), half), &cut(assistant.trim(), max_chars - half));
    if let Some(before) = before {
        text = format!("(This follows the request: {})\n\n{text}", cut(before.trim(), 300));
    }
    messages.push(Message::user(text));
    messages
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

/// Reply tokens an L2 may take (under `[summaries] max_tokens`): the one
/// sentence it asks for (two at most are kept) with room to spare.
pub const L2_REPLY_TOKENS: u32 = 200;
/// Reply tokens a fold may take (under `[summaries] max_tokens`): the 3 to
/// 5 sentences it asks for with room to spare. A small model that rambles
/// on to `max_tokens` (500) spent twice the time on a reply the grounding
/// check then refused (BENCHMARKS.md, issue 19).
pub const FOLD_REPLY_TOKENS: u32 = 256;

/// How long a fold's reply may be, in the prompt's words.
fn length(budget_words: usize) -> String {
    let sentences = (budget_words / 20).clamp(1, 6);
    if sentences == 1 {
        format!("one sentence of at most {budget_words} words")
    } else {
        format!("at most {sentences} short sentences ({budget_words} words in all)")
    }
}

/// A fresh summary of several items (no running summary yet), within
/// `budget_words`.
pub use super::digest::TOPIC_MAX_WORDS;
/// Reply tokens for a topic line.
pub const TOPIC_REPLY_TOKENS: u32 = 32;

/// Ask for the topic line of a segment digest: a short title of what its
/// notes are about, in their words. A short ask a small model does well,
/// where free prose over the same notes loses their names and numbers.
pub fn topic(notes: &[&str], max_chars: usize) -> Vec<Message> {
    let ask = |notes: &str| {
        format!(
            "Here are the notes of one part of a conversation:\n\n{notes}\n\n\
Write its topic: a title of at most 8 words naming what it is about, with the names and terms the notes use. \
Reply with the title only.\n\nTitle:"
        )
    };
    vec![
        Message::system("You give short, exact titles to parts of a conversation kept in a memory log."),
        Message::user(ask(TOPIC_EXAMPLE.0)),
        Message::assistant(TOPIC_EXAMPLE.1),
        Message::user(ask(&cut(&bullets(notes), max_chars))),
    ]
}

pub fn fresh(scope: Scope, items: &[&str], max_chars: usize, budget_words: usize) -> Vec<Message> {
    let ask = |items: &str, budget_words: usize| {
        format!(
            "Summarise these {} in {}, in the third person, in your words: \
the subject first, then the facts that matter (names, numbers, decisions, what worked). \
Leave out greetings and thanks. Reply with the summary only.\n\n{items}\n\nSummary:",
            scope.items(),
            length(budget_words),
        )
    };
    let (ex_first, ex_new, ex_summary) = MERGE_EXAMPLE;
    vec![
        Message::system(format!("You keep a short running summary of a {}. {KEEP}", scope.noun())),
        Message::user(ask(&format!("- {ex_first}\n{ex_new}"), 30)),
        Message::assistant(ex_summary),
        Message::user(ask(&cut(&bullets(items), max_chars), budget_words)),
    ]
}

/// Fold new items into the running summary. With `ask_verdict` (a model
/// that is trusted to judge topics) the prompt ends with the merge
/// protocol's request (`verdict`); otherwise ragger's segmenter has
/// already decided that the items continue the running summary, and the
/// model is not asked.
pub fn merge(
    scope: Scope,
    running: &str,
    items: &[&str],
    max_chars: usize,
    ask_verdict: bool,
    budget_words: usize,
) -> Vec<Message> {
    let budget_running = max_chars / 2;
    let new = cut(&bullets(items), max_chars - budget_running.min(running.len()));
    let ask = |running: &str, new: &str| {
        let mut text = format!(
            "Running summary:\n{running}\n\n{}:\n{new}\n\n\
Reply with the updated summary, rewritten to cover both in {}, in the third person; \
keep what is still current, drop what is not.",
            crate::text::capitalized(scope.items()),
            length(budget_words),
        );
        if ask_verdict {
            text.push(' ');
            text.push_str(&verdict::request(scope.items()));
        }
        text
    };
    let (ex_running, ex_new, ex_summary) = MERGE_EXAMPLE;
    vec![
        Message::system(format!("You keep a short running summary of a {}. {KEEP}", scope.noun())),
        Message::user(ask(ex_running, ex_new)),
        Message::assistant(ex_summary),
        Message::user(ask(&cut(running, budget_running), &new)),
    ]
}

fn bullets(items: &[&str]) -> String {
    items.iter().map(|s| format!("- {}", s.trim())).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_summary_ends_with_the_turn_after_fixed_examples() {
        let a = turn_summary("How do I zip a folder?", "Use shutil.make_archive.", 3000, None);
        let b = turn_summary("Other question", "Other answer", 3000, None);
        let last = &a.last().unwrap().content;
        assert!(last.contains("How do I zip a folder?") && last.contains("Use shutil.make_archive."));
        assert_eq!(a[..a.len() - 1], b[..b.len() - 1], "everything before the turn is shared");
        assert!(a[0].content.contains("one-sentence") && a[0].content.contains("at most 25 words"));
        let long = turn_summary(&"u".repeat(5000), &"a".repeat(5000), 400, None);
        let follow = turn_summary("That fixed it.", "Great.", 3000, Some("Why does SMTP time out?"));
        assert!(follow.last().unwrap().content.contains("Why does SMTP time out?"));
        assert!(long.last().unwrap().content.chars().count() < 500);
    }

    /// Whether the verdict is asked for is tested with the protocol, in
    /// `verdict`.
    #[test]
    fn merge_prompt_names_both_parts() {
        for ask_verdict in [true, false] {
            let m = merge(
                Scope::Session,
                "They discussed Rust.",
                &["The user asked about lifetimes."],
                3000,
                ask_verdict,
                40,
            );
            let text = &m.last().unwrap().content;
            assert!(text.contains("They discussed Rust."));
            assert!(text.contains("- The user asked about lifetimes."));
        }
    }
}
