//! The topic segmenter: decides, before a merge, whether a new turn
//! continues the running L3 segment or starts a new one. Its signals do not
//! depend on a capable memory model (see [`score`] for the decision):
//!
//! - semantic depth: each turn's own text (user + assistant) is embedded
//!   once with the embedder that is loaded for search anyway; at each gap
//!   the mean vectors of the turns on both sides are compared, and the gap
//!   scores how far that similarity falls below its neighbouring peaks
//!   (TextTiling's depth score), with the following turns where they are
//!   already captured (backfill, a backlog, threshold mode) and the past
//!   only in live every-turn mode;
//! - lexical novelty: how few of the content words (stemmed to their first
//!   five letters) of the turns on both sides of the gap are shared;
//! - the turn's own shift: how far the new turn's vector lies from the one
//!   before, and how many of the user's content words the two turns before
//!   do not have (a new request names new things; a follow-up refers back);
//! - the dialogue act: a user who answers the assistant's question (the
//!   reply ended in "?", the user's message is no question and no
//!   greeting) continues its topic, and so does a message without a word of
//!   substance ("thanks", "ok do it", "That fixed it.") or one that says
//!   goodbye ("Great chatting with you! Take care.");
//! - the time gap inside the session: a long pause adds a little to the
//!   signal but is never a boundary on its own;
//! - discourse cues in the user's words: "different question", "unrelated",
//!   "by the way", or a greeting that opens a conversation ("Hi, ...")
//!   raise the signal. A greeting opens a conversation: it is never an
//!   answer, and it may start a segment without a content word ("hi").
//!
//! - the dialogue act, again: a question of the user's own (not an answer)
//!   is a new request and raises the signal, in proportion to the new
//!   words it brings.
//!
//! A gap is a boundary when its signal reaches a floor and a share of the
//! strongest shift around it, and the running segment is long enough,
//! unless the shift is overwhelming (see [`score`]). The
//! model's NO_MERGE verdict is one more vote only when the model can be
//! trusted (see [`Settings::model_votes`]); everything here is pure, so the
//! decision is unit-tested on scripted vectors and texts.

mod score;
#[cfg(test)]
mod tests;

use crate::pipeline::digest::{NEW_TOPIC_ADJ, NEW_TOPIC_NOUN, NEW_TOPIC_PHRASES};
pub use score::{
    has_substance, has_substance_beside, judge, Score, Verdict, ADJACENT_WEIGHT, CONTEXT, DEPTH_WEIGHT,
    LONG_DEPTH_WEIGHT, LONG_WINDOW, NOVELTY_WEIGHT, REACH, RELATIVE, WINDOW,
};

pub use crate::config::Segmenter;

/// Why an L3 segment started (stored in `summaries.start_reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartReason {
    /// The session's first segment.
    First,
    /// The segmenter saw a change of topic.
    TopicShift,
    /// The running summary reached `max_summary_tokens`.
    Rollover,
    /// The session had been closed as idle; a new turn reopened it.
    Pause,
    /// The memory model answered NO_MERGE (only when it is trusted).
    ModelNoMerge,
    /// Folds of this material kept failing: it became a segment of its own.
    FoldFailed,
}

impl StartReason {
    pub fn name(self) -> &'static str {
        match self {
            StartReason::First => "first",
            StartReason::TopicShift => "topic_shift",
            StartReason::Rollover => "rollover",
            StartReason::Pause => "pause",
            StartReason::ModelNoMerge => "model_no_merge",
            StartReason::FoldFailed => "fold_failed",
        }
    }
    /// Counted as a topic shift in a pass report.
    pub fn is_shift(self) -> bool {
        matches!(self, StartReason::TopicShift | StartReason::ModelNoMerge)
    }
}

/// The segmenter's settings, resolved from `[summaries]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub mode: Segmenter,
    /// The topic signal a gap must reach to start a new segment (it must
    /// also reach the session's own mean signal around the gap).
    pub floor: f32,
    /// The topic signal of an overwhelming shift: it may end a segment
    /// shorter than `min_turns`, and needs no local peak.
    pub strong: f32,
    /// The fewest turns of a segment that a weaker shift may end.
    pub min_turns: usize,
    /// Weight of lexical novelty in the topic signal.
    pub lexical_weight: f32,
    /// Added to the signal for a pause of `pause_ms` or longer (in proportion below).
    pub pause_weight: f32,
    pub pause_ms: i64,
    /// Added for a cue that announces a new topic.
    pub cue_weight: f32,
    /// Added when the user asks a question of their own (a new request).
    pub question_weight: f32,
    /// Whether the model is asked for, and believed on, NO_MERGE.
    pub model_votes: bool,
}

impl Settings {
    /// Whether the embedding signals are used.
    pub fn uses_signals(&self) -> bool {
        matches!(self.mode, Segmenter::Auto | Segmenter::Embedding)
    }
}

/// One turn as the segmenter sees it.
#[derive(Clone, Debug, Default)]
pub struct TurnView {
    pub id: i64,
    /// Event time, ms.
    pub at: i64,
    /// User and assistant text.
    pub text: String,
    /// The user's words alone (for discourse cues).
    pub user: String,
    /// Whether the assistant's reply ends with a question.
    pub reply_asks: bool,
    /// The text's unit vector, when the embedder is available.
    pub vector: Option<Vec<f32>>,
}

/// The text of a turn that is embedded and compared (the embedder cuts it
/// to its maximum sequence length).
pub fn turn_text(user: &str, assistant: &str) -> String {
    format!("{user}\n{assistant}")
}

/// First words that greet: a message that opens with one opens a conversation.
const GREETINGS: &[&str] = &["hi", "hello", "hey", "greetings", "good morning", "good afternoon", "good evening"];
/// The greeting that is also how a speaker calls for attention inside a
/// conversation ("Hey, the build broke again"): a cue, but it does not
/// open a conversation by itself (see [`is_salutation`]).
const ATTENTION: &str = "hey";
/// First words of a question that has no question mark.
const QUESTION_OPENERS: &[&str] = &[
    "what", "how", "why", "when", "where", "who", "which", "can", "could", "do", "does", "is", "are", "will", "would",
    "should", "may",
];

/// Whether the user's message announces a new topic: a phrase such as
/// "different question" or "by the way", or a greeting at its start.
/// Plain word lists, English only: a message in another language simply
/// has no cue.
pub fn announces_topic(user: &str) -> bool {
    announces_subject(user) || greets(user)
}

/// Whether the user's message names a change of subject ("different
/// question", "by the way"): [`announces_topic`] without the greeting,
/// for a caller that has read the greeting already.
pub(super) fn announces_subject(user: &str) -> bool {
    let words = crate::text::words(user);
    says_any(&words, NEW_TOPIC_PHRASES)
        || words.windows(2).any(|w| NEW_TOPIC_ADJ.contains(&w[0].as_str()) && NEW_TOPIC_NOUN.contains(&w[1].as_str()))
}

/// Whether the user's message opens with a greeting ("Hi", "Hello there",
/// "Good morning"), after a speaker's label where its first line has one
/// ("Caroline: Hey Mel!"): it opens a conversation, so it answers no
/// question of the assistant's and needs no content word to start a segment.
pub fn greets(user: &str) -> bool {
    greeting_of(user).is_some()
}

/// Whether a greeting is a salutation ("Hi", "Hello", "Good morning"; not
/// "Hey"): what opens a new conversation.
fn is_salutation(greeting: Option<&str>) -> bool {
    greeting.is_some_and(|g| g != ATTENTION)
}

/// The greeting the user's message opens with, if any.
fn greeting_of(user: &str) -> Option<&'static str> {
    let line = user.trim_start().lines().next().unwrap_or("");
    let said = crate::pipeline::digest::named_speaker(line).map_or(user, |(_, rest)| rest);
    // Whole words as written: "hello.c" is a file, not "hello".
    let first: Vec<String> = said
        .split_whitespace()
        .take(2)
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .collect();
    GREETINGS.iter().copied().find(|g| {
        let greeting: Vec<&str> = g.split(' ').collect();
        first.len() >= greeting.len() && greeting.iter().zip(&first).all(|(a, b)| a == b)
    })
}

/// Phrases that close a conversation. A farewell refers to the talk that
/// ends, not to a new subject, so it never opens a segment.
const FAREWELLS: &[&str] = &[
    "bye",
    "goodbye",
    "good night",
    "take care",
    "talk soon",
    "talk later",
    "talk to you later",
    "talk to you soon",
    "chat soon",
    "chat later",
    "catch you later",
    "see you later",
    "see you soon",
    "see ya",
    "great chatting",
    "nice chatting",
    "good chatting",
    "great talking",
    "nice talking",
    "good talking",
    "great catching up",
    "have a good day",
    "have a great day",
    "have a nice day",
    "have a good one",
    "have a good night",
    "have a good weekend",
    "have a great weekend",
    "have a great evening",
];

/// Whether the user's message says goodbye ("Great chatting with you! Take
/// care.", "Thanks, have a nice day") and asks nothing: it closes the
/// conversation instead of starting a topic.
fn closes(user: &str) -> bool {
    !asks(user) && says_any(&crate::text::words(user), FAREWELLS)
}

/// Whether `words` hold one of `phrases` as whole words, in order.
fn says_any(words: &[String], phrases: &[&str]) -> bool {
    let joined = format!(" {} ", words.join(" "));
    phrases.iter().any(|p| joined.contains(&format!(" {p} ")))
}

/// Whether a message is a question: it ends with "?" or opens like one.
pub fn is_question(text: &str) -> bool {
    let text = text.trim();
    text.ends_with('?') || crate::text::words(text).first().is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()))
}

/// Whether a text ends by asking something: an assistant's reply that
/// asks the user, or a farewell that still asks a question.
pub fn asks(reply: &str) -> bool {
    reply.trim().ends_with('?')
}

/// Cosine of two vectors of any length (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}
