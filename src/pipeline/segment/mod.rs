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
//! - lexical novelty: the share of the user's content words (stemmed to
//!   their first five letters) that the previous turn does not have;
//! - the time gap inside the session: a long pause adds to the score but is
//!   never a boundary on its own;
//! - discourse cues in the user's words: "different question", "unrelated",
//!   "by the way" raise the score; a first sentence that refers back ("it",
//!   "that", "those") or opens with "and", "also", "what about" lowers it.
//!
//! A gap is a boundary when its score reaches an absolute floor and a share
//! of the highest score among the gaps around it. The model's NO_MERGE
//! verdict is one more vote only when the model can be trusted (see
//! [`Settings::model_votes`]); everything here is pure, so the decision is
//! unit-tested on scripted vectors and texts.

mod score;
#[cfg(test)]
mod tests;

pub use score::{judge, Score, CONTEXT, WINDOW};

use serde::{Deserialize, Serialize};

/// Which signals split a session into topic segments (`[summaries] segmenter`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The embedding, lexical and pause signals; the model's NO_MERGE
    /// verdict counts too when the backend is a server (not the small
    /// in-process default).
    #[default]
    Auto,
    /// The embedding, lexical and pause signals only.
    Embedding,
    /// The model's NO_MERGE verdict only (what ragger did before it had a
    /// segmenter; useless with a small model).
    Model,
    /// Never split by topic (a segment still rolls over at its size limit).
    Off,
}

/// Why an L3 segment started (stored in `summaries.start_reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartReason {
    /// The session's first segment.
    First,
    /// The segmenter's score crossed the threshold.
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
    pub mode: Mode,
    /// The floor a score must reach to start a new segment.
    pub threshold: f32,
    /// The share of the highest score among the gaps around that a score
    /// must also reach (a threshold relative to the session's own scores).
    pub relative: f32,
    /// Weight of lexical novelty against the semantic depth (weight 1).
    pub lexical_weight: f32,
    /// Added to the score for a pause of `pause_ms` or longer (in proportion below).
    pub pause_weight: f32,
    pub pause_ms: i64,
    /// Added for a cue that announces a new topic; subtracted (times 2/3)
    /// for one that refers back.
    pub cue_weight: f32,
    /// Whether the model is asked for, and believed on, NO_MERGE.
    pub model_votes: bool,
}

impl Settings {
    /// Whether the embedding signals are used.
    pub fn uses_signals(&self) -> bool {
        matches!(self.mode, Mode::Auto | Mode::Embedding)
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
    /// The text's unit vector, when the embedder is available.
    pub vector: Option<Vec<f32>>,
}

/// The text of a turn that is embedded and compared (the embedder cuts it
/// to its maximum sequence length).
pub fn turn_text(user: &str, assistant: &str) -> String {
    format!("{user}\n{assistant}")
}

/// What the user's words say about the topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cue {
    NewTopic,
    RefersBack,
    None,
}

/// Words that refer to something said before.
const REFERS_BACK: &[&str] =
    &["it", "its", "that", "this", "these", "those", "they", "them", "there", "he", "she", "him", "her"];
/// First words that continue what was said.
const CONTINUES: &[&str] = &[
    "and",
    "also",
    "so",
    "but",
    "then",
    "ok",
    "okay",
    "thanks",
    "great",
    "yes",
    "no",
    "sure",
    "what about",
    "how about",
];
const NEW_TOPIC_ADJ: &[&str] = &["different", "another", "unrelated", "new", "separate", "other"];
const NEW_TOPIC_NOUN: &[&str] = &["question", "topic", "subject", "thing", "issue"];
const NEW_TOPIC_PHRASES: &[&str] = &[
    "change of topic",
    "change the topic",
    "change of subject",
    "change the subject",
    "switching gears",
    "switching topics",
    "on another note",
    "by the way",
    "something else",
    "btw",
];

/// Discourse cues in a user's message. Plain word lists, English only: a
/// message in another language simply has no cue.
pub fn cue(user: &str) -> Cue {
    let words = crate::pipeline::grounding::words(user);
    let joined = format!(" {} ", words.join(" "));
    let announced = NEW_TOPIC_PHRASES.iter().any(|p| joined.contains(&format!(" {p} ")))
        || words.windows(2).any(|w| NEW_TOPIC_ADJ.contains(&w[0].as_str()) && NEW_TOPIC_NOUN.contains(&w[1].as_str()));
    if announced {
        return Cue::NewTopic;
    }
    let first_sentence = user.split(['.', '?', '!', '\n']).find(|s| !s.trim().is_empty()).unwrap_or("");
    let first = crate::pipeline::grounding::words(first_sentence);
    let opens = CONTINUES.iter().any(|c| joined.starts_with(&format!(" {c} ")));
    if opens || first.iter().any(|w| REFERS_BACK.contains(&w.as_str())) {
        return Cue::RefersBack;
    }
    Cue::None
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
