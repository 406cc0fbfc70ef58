//! The decision: a TextTiling-style depth score at every gap between two
//! turns, measured against the scale of the session around it.
//!
//! For the gap before turn `i` the turns `i-W..i` and `i..i+W` (as far as
//! they are known) are averaged into two vectors and their cosine taken;
//! the gap's depth is how far that cosine falls below the nearest peaks on
//! both sides (climbing while the cosine rises). A topic change is a deep
//! valley; a turn that merely reads differently from its neighbour, in a
//! conversation whose turns all differ, is not. In live every-turn mode no
//! later turn exists, so the right side is the new turn alone and only the
//! left peak counts.
//!
//! The score adds lexical novelty (how few content words the turns on
//! both sides share), the dialogue act (`answer_weight` on every gap but
//! one where the user answers the assistant's question), the pause and the
//! discourse cue. A gap is a boundary when
//!
//! - its score reaches `segment_relative` times the highest score of the
//!   gaps around it — a bar relative to the session's own scores, so a
//!   session of unrelated conversations splits at its joins only, and a
//!   session whose every question moves on splits at most of them;
//! - its topic signal (depth, lexical novelty and cue, without the dialogue
//!   act and the pause) reaches the floor `segment_threshold`: neither an
//!   unanswered question nor a pause splits a session whose turns read
//!   alike and share their words;
//! - the user's message has a content word of its own ("Yes.", "ok thanks"
//!   never start a topic) or opens with a greeting ("hi" opens a
//!   conversation).
//!
//! The weights and bars were chosen by 2-fold cross-validation on the
//! development dialogues (README, "Topic segments").

use std::collections::HashSet;

use super::{announces_topic, cosine, greets, is_question, Settings, TurnView};

/// Turns on each side of a gap that are averaged (the TextTiling block).
pub const WINDOW: usize = 2;
/// Turns before and after the judged ones that set the session's scale.
pub const CONTEXT: usize = 10;

/// How the score of a gap was made up (logged with `-v`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Cosine of the mean vectors of the turns before and after the gap.
    pub similarity: f32,
    /// How far `similarity` lies below the peaks on both sides.
    pub depth: f32,
    pub lexical: f32,
    /// Whether the user answers the assistant's question (no `answer_weight`).
    pub answers: bool,
    pub pause: f32,
    /// Discourse cue of the user's words (a new topic announced).
    pub cue: f32,
    /// The topic signal: depth, weighted lexical novelty and cue.
    pub signal: f32,
    pub total: f32,
    /// What `total` had to reach: the relative share of the highest score
    /// around.
    pub bar: f32,
    /// What `signal` had to reach (`segment_threshold`).
    pub floor: f32,
    /// Whether the user's message has a content word of its own (or opens
    /// with a greeting).
    pub content: bool,
}

impl Score {
    /// Whether the gap starts a new segment.
    pub fn is_boundary(&self) -> bool {
        self.content && self.total >= self.bar && self.signal >= self.floor
    }
}

/// Scores of every gap of `turns` (consecutive turns of one session, in
/// order): entry `i` is the gap before turn `i`, `None` for turn 0. `None`
/// as a whole when a vector is missing (no embedder): the caller falls back.
pub fn judge(turns: &[TurnView], s: &Settings) -> Option<Vec<Option<Score>>> {
    let vectors: Vec<&[f32]> = turns.iter().map(|t| t.vector.as_deref()).collect::<Option<_>>()?;
    let n = turns.len();
    let sims: Vec<f32> = (0..n).map(|i| if i == 0 { 0.0 } else { gap_similarity(&vectors, i) }).collect();
    let words: Vec<HashSet<String>> = turns.iter().map(|t| stems([t.text.as_str()])).collect();
    let mut out: Vec<Option<Score>> = Vec::with_capacity(n);
    if n > 0 {
        out.push(None);
    }
    for i in 1..n {
        let depth = peak(&sims, i, -1) + peak(&sims, i, 1) - 2.0 * sims[i];
        let lexical = block_novelty(&words, i);
        // A greeting opens a conversation: it answers nothing and needs no
        // content word (sessions that join conversations start one with "hi").
        let greeting = greets(&turns[i].user);
        let answers = turns[i - 1].reply_asks && !is_question(&turns[i].user) && !greeting;
        let act = if answers { 0.0 } else { s.answer_weight };
        let gap = (turns[i].at - turns[i - 1].at).max(0) as f32;
        let pause = if s.pause_ms > 0 { s.pause_weight * (gap / s.pause_ms as f32).min(1.0) } else { 0.0 };
        let cue = if announces_topic(&turns[i].user) { s.cue_weight } else { 0.0 };
        let signal = depth + s.lexical_weight * lexical + cue;
        let total = signal + act + pause;
        let content = greeting || !stems([turns[i].user.as_str()]).is_empty();
        let floor = s.threshold;
        out.push(Some(Score {
            similarity: sims[i],
            depth,
            lexical,
            answers,
            pause,
            cue,
            signal,
            total,
            bar: 0.0,
            floor,
            content,
        }));
    }
    let highest = out.iter().flatten().map(|sc| sc.total).fold(f32::MIN, f32::max);
    for sc in out.iter_mut().flatten() {
        sc.bar = s.relative * highest;
    }
    Some(out)
}

/// Cosine of the mean vectors of the [`WINDOW`] turns before gap `i` and
/// the [`WINDOW`] turns from `i` on (fewer at the ends).
fn gap_similarity(vectors: &[&[f32]], i: usize) -> f32 {
    let left = mean(&vectors[i.saturating_sub(WINDOW)..i]);
    let right = mean(&vectors[i..(i + WINDOW).min(vectors.len())]);
    cosine(&left, &right)
}

/// The highest similarity reached by climbing from gap `i` in direction
/// `step` while it does not fall (gap 0 does not exist).
fn peak(sims: &[f32], i: usize, step: isize) -> f32 {
    let mut best = sims[i];
    let mut k = i as isize + step;
    while k >= 1 && (k as usize) < sims.len() && sims[k as usize] >= best {
        best = sims[k as usize];
        k += step;
    }
    best
}

fn mean(vectors: &[&[f32]]) -> Vec<f32> {
    let mut sum = vec![0f32; vectors.first().map_or(0, |v| v.len())];
    for v in vectors {
        if v.len() == sum.len() {
            sum.iter_mut().zip(v.iter()).for_each(|(a, b)| *a += b);
        }
    }
    sum
}

/// How few content words the [`WINDOW`] turns before gap `i` and the
/// [`WINDOW`] turns from `i` on share: 1 minus the overlap coefficient of
/// their stems (1 when a side has none).
pub(super) fn block_novelty(words: &[HashSet<String>], i: usize) -> f32 {
    let union = |side: &[HashSet<String>]| side.iter().flatten().cloned().collect::<HashSet<String>>();
    let left = union(&words[i.saturating_sub(WINDOW)..i]);
    let right = union(&words[i..(i + WINDOW).min(words.len())]);
    let smaller = left.len().min(right.len()).max(1);
    1.0 - left.intersection(&right).count() as f32 / smaller as f32
}

/// Words that carry the topic: stop words and words under three letters
/// are dropped, the rest cut to their first five letters (a crude stem
/// that joins "backup", "backups" and "backed").
pub(super) fn stems<'a>(texts: impl IntoIterator<Item = &'a str>) -> HashSet<String> {
    let mut out = HashSet::new();
    for text in texts {
        for word in crate::text::words(text) {
            if word.chars().count() < 3 || crate::text::is_stop_word(&word) {
                continue;
            }
            out.insert(word.chars().take(5).collect());
        }
    }
    out
}
