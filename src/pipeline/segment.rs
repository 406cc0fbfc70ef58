//! The topic segmenter: decides, before a merge, whether a new turn
//! continues the running L3 segment or starts a new one. Its signals do not
//! depend on a capable memory model:
//!
//! - semantic novelty: 1 − cosine between the new turn's own text (user +
//!   assistant, embedded with the embedder that is loaded for search
//!   anyway) and the mean of the segment's last [`TAIL`] turns;
//! - lexical novelty: the share of the new turn's content words (stemmed to
//!   their first five letters) that the segment's last turns do not have,
//!   which separates two technical tasks that embed alike;
//! - look-ahead: when the next turn is already captured (backfill, a
//!   backlog, threshold mode), the same two scores for the new turn and the
//!   next one together are averaged in, so a single off-topic remark does
//!   not split a segment whose topic carries on;
//! - the time gap inside the session: a long pause adds to the score but is
//!   never a boundary on its own;
//! - discourse cues in the user's words: "different question", "unrelated",
//!   "by the way" raise the score; a first sentence that refers back ("it",
//!   "that", "those") or opens with "and", "also", "what about" lowers it.
//!
//! The model's NO_MERGE verdict is one more vote only when the model can be
//! trusted (see [`Settings::model_votes`]); everything here is pure, so the
//! decision is unit-tested on scripted vectors and texts.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

/// Turns at the end of the running segment that a new turn is compared with.
pub const TAIL: usize = 3;

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
    /// A score above this starts a new segment.
    pub threshold: f32,
    /// Weight of lexical novelty against semantic novelty (weight 1).
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

/// How the score of a new turn was made up (logged with `-v`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    pub semantic: f32,
    pub lexical: f32,
    pub pause: f32,
    /// Discourse cue of the user's words (positive: a new topic announced).
    pub cue: f32,
    /// With look-ahead: the scores of the new turn and the next together.
    pub ahead: Option<f32>,
    pub total: f32,
}

/// The score of `new` against the segment's last turns `tail` (oldest
/// first), with the next captured turn when there is one. `None` when a
/// vector is missing (no embedder): the caller falls back.
pub fn score(tail: &[TurnView], new: &TurnView, next: Option<&TurnView>, s: &Settings) -> Option<Score> {
    let tail = &tail[tail.len().saturating_sub(TAIL)..];
    let last = tail.last()?;
    let centre = mean(tail.iter().map(|t| t.vector.as_deref()))?;
    let old_words = stems(tail.iter().map(|t| t.text.as_str()));
    let semantic = 1.0 - cosine(&centre, new.vector.as_deref()?);
    let lexical = novelty(&old_words, &stems([new.text.as_str()]));
    let gap = (new.at - last.at).max(0) as f32;
    let pause = if s.pause_ms > 0 { s.pause_weight * (gap / s.pause_ms as f32).min(1.0) } else { 0.0 };
    let here = semantic + s.lexical_weight * lexical;
    let ahead = next.and_then(|n| {
        let both = mean([new.vector.as_deref(), n.vector.as_deref()])?;
        let lex = novelty(&old_words, &stems([new.text.as_str(), n.text.as_str()]));
        Some(1.0 - cosine(&centre, &both) + s.lexical_weight * lex)
    });
    let cue = match cue(&new.user) {
        Cue::NewTopic => s.cue_weight,
        Cue::RefersBack => -s.cue_weight * 2.0 / 3.0,
        Cue::None => 0.0,
    };
    let total = match ahead {
        Some(a) => (here + a) / 2.0 + pause + cue,
        None => here + pause + cue,
    };
    Some(Score { semantic, lexical, pause, cue, ahead, total })
}

/// Whether a score starts a new segment.
pub fn is_boundary(score: &Score, s: &Settings) -> bool {
    score.total > s.threshold
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

fn mean<'a>(vectors: impl IntoIterator<Item = Option<&'a [f32]>>) -> Option<Vec<f32>> {
    let mut sum: Option<Vec<f32>> = None;
    for v in vectors {
        let v = v?;
        match &mut sum {
            None => sum = Some(v.to_vec()),
            Some(s) if s.len() == v.len() => s.iter_mut().zip(v).for_each(|(a, b)| *a += b),
            Some(_) => return None,
        }
    }
    sum
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

/// The share of `new` that `old` lacks (0 when `new` is empty).
fn novelty(old: &HashSet<String>, new: &HashSet<String>) -> f32 {
    if new.is_empty() {
        return 0.0;
    }
    new.iter().filter(|w| !old.contains(*w)).count() as f32 / new.len() as f32
}

/// Words that carry the topic: stop words and words under three letters
/// are dropped, the rest cut to their first five letters (a crude stem
/// that joins "backup", "backups" and "backed").
fn stems<'a>(texts: impl IntoIterator<Item = &'a str>) -> HashSet<String> {
    let mut out = HashSet::new();
    for text in texts {
        for word in crate::pipeline::grounding::words(text) {
            if word.chars().count() < 3 || crate::pipeline::grounding::is_stop_word(&word) {
                continue;
            }
            out.insert(word.chars().take(5).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            mode: Mode::Auto,
            threshold: 0.9,
            lexical_weight: 0.3,
            pause_weight: 0.15,
            pause_ms: 20 * 60_000,
            cue_weight: 0.3,
            model_votes: false,
        }
    }

    fn turn(id: i64, minute: i64, text: &str, v: &[f32]) -> TurnView {
        TurnView { id, at: minute * 60_000, text: text.into(), user: String::new(), vector: Some(v.to_vec()) }
    }

    #[test]
    fn cues_in_the_users_words() {
        assert_eq!(cue("Different question: my sourdough bread comes out dense. Why?"), Cue::NewTopic);
        assert_eq!(cue("Unrelated, but by the way: how do I renew a passport?"), Cue::NewTopic);
        assert_eq!(cue("How long should I bake it and at what temperature?"), Cue::RefersBack);
        assert_eq!(cue("And what about the nightly job?"), Cue::RefersBack);
        assert_eq!(cue("How should I back up my home server?"), Cue::None);
        assert_eq!(cue(""), Cue::None);
    }

    #[test]
    fn an_announced_topic_change_raises_the_score_and_a_reference_lowers_it() {
        let s = settings();
        let tail = [turn(1, 0, "restic backup of /srv", &[1.0, 0.0])];
        let mut plain = turn(2, 1, "sourdough starter", &[0.6, 0.8]);
        let base = score(&tail, &plain, None, &s).unwrap().total;
        plain.user = "Another question: sourdough starter?".into();
        let announced = score(&tail, &plain, None, &s).unwrap();
        plain.user = "Is it weak?".into();
        let back = score(&tail, &plain, None, &s).unwrap();
        assert!((announced.total - base - s.cue_weight).abs() < 1e-6, "{announced:?}");
        assert!(back.total < base && back.cue < 0.0, "{back:?}");
    }

    #[test]
    fn a_turn_on_the_same_topic_continues_the_segment() {
        let s = settings();
        let tail = [
            turn(1, 0, "How do I back up /srv with restic every night?", &[1.0, 0.1, 0.0]),
            turn(2, 2, "Should the restic repository be encrypted?", &[0.9, 0.2, 0.0]),
        ];
        let new = turn(3, 4, "How do I check that restic backups restore?", &[0.95, 0.15, 0.05]);
        let sc = score(&tail, &new, None, &s).unwrap();
        assert!(!is_boundary(&sc, &s), "{sc:?}");
        assert!(sc.semantic < 0.05, "{sc:?}");
    }

    #[test]
    fn a_turn_on_another_topic_starts_a_segment() {
        let s = settings();
        let tail = [turn(1, 0, "How do I back up /srv with restic every night?", &[1.0, 0.0, 0.0])];
        let new = turn(2, 3, "My sourdough bread comes out dense. Why?", &[0.0, 1.0, 0.0]);
        let sc = score(&tail, &new, None, &s).unwrap();
        assert!(is_boundary(&sc, &s), "{sc:?}");
        assert_eq!(sc.lexical, 1.0, "no shared content word");
    }

    #[test]
    fn lexical_novelty_splits_tasks_that_embed_alike() {
        let s = settings();
        let v = [1.0, 0.0, 0.0];
        let near = [0.8, 0.6, 0.0]; // cosine 0.8: alike but not the same
        let tail = [turn(1, 0, "Fix the nginx upstream timeout in proxy.conf", &v)];
        let same_words = turn(2, 1, "The nginx upstream timeout in proxy.conf still fires", &near);
        let other_words = turn(3, 1, "Rename the postgres column created_on in migrations", &near);
        let a = score(&tail, &same_words, None, &s).unwrap();
        let b = score(&tail, &other_words, None, &s).unwrap();
        assert!(b.total > a.total + 0.2, "{a:?} {b:?}");
        assert!(!is_boundary(&a, &s) && b.lexical == 1.0);
    }

    #[test]
    fn a_pause_raises_the_score_but_is_not_a_boundary_alone() {
        let s = settings();
        let tail = [turn(1, 0, "restic backup of /srv", &[1.0, 0.0])];
        let soon = turn(2, 1, "restic backup of /srv again", &[1.0, 0.0]);
        let later = turn(3, 600, "restic backup of /srv again", &[1.0, 0.0]);
        let a = score(&tail, &soon, None, &s).unwrap();
        let b = score(&tail, &later, None, &s).unwrap();
        assert!(b.pause > a.pause && (b.pause - s.pause_weight).abs() < 1e-6);
        assert!(!is_boundary(&b, &s), "{b:?}");
    }

    #[test]
    fn look_ahead_keeps_a_single_aside_in_the_segment() {
        let s = settings();
        let tail = [
            turn(1, 0, "restic backup schedule for /srv", &[1.0, 0.0, 0.0]),
            turn(2, 1, "restic forget keep daily snapshots", &[1.0, 0.0, 0.0]),
        ];
        // A half-off-topic turn, then the backup topic carries on.
        let aside = turn(3, 2, "also disk usage of snapshots", &[0.3, 0.95, 0.0]);
        let back = turn(4, 3, "restic check of the backup repository", &[1.0, 0.0, 0.0]);
        let alone = score(&tail, &aside, None, &s).unwrap();
        let with_next = score(&tail, &aside, Some(&back), &s).unwrap();
        assert!(with_next.ahead.is_some());
        assert!(with_next.total < alone.total, "{alone:?} {with_next:?}");
        assert!(!is_boundary(&with_next, &s), "{with_next:?}");
    }

    #[test]
    fn missing_vectors_give_no_score() {
        let s = settings();
        let tail = [turn(1, 0, "a", &[1.0])];
        let mut new = turn(2, 1, "b", &[1.0]);
        new.vector = None;
        assert!(score(&tail, &new, None, &s).is_none());
        assert!(score(&[], &turn(2, 1, "b", &[1.0]), None, &s).is_none());
    }
}
