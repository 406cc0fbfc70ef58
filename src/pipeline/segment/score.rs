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
//! The score adds lexical novelty (the share of the user's content words
//! that the previous turn lacks), the pause and the discourse cue. A gap is
//! a boundary when its score reaches both the absolute floor
//! (`segment_threshold`) and `segment_relative` times the highest score of
//! the gaps around it — a threshold relative to the session's own scores,
//! so a session of unrelated conversations splits at its joins only, and a
//! session whose every question moves on splits at most of them — and the
//! user's message has a content word of its own ("Yes.", "ok thanks" never
//! start a topic).

use std::collections::HashSet;

use super::{cosine, cue, Cue, Settings, TurnView};

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
    pub pause: f32,
    /// Discourse cue of the user's words (positive: a new topic announced).
    pub cue: f32,
    pub total: f32,
    /// What `total` had to reach: the larger of the floor and the
    /// relative share of the highest score around.
    pub bar: f32,
    /// Whether the user's message has a content word of its own.
    pub content: bool,
}

impl Score {
    /// Whether the gap starts a new segment.
    pub fn is_boundary(&self) -> bool {
        self.content && self.total >= self.bar
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
        let user = stems([turns[i].user.as_str()]);
        let lexical = novelty(&words[i - 1], &user);
        let gap = (turns[i].at - turns[i - 1].at).max(0) as f32;
        let pause = if s.pause_ms > 0 { s.pause_weight * (gap / s.pause_ms as f32).min(1.0) } else { 0.0 };
        let cue = match cue(&turns[i].user) {
            Cue::NewTopic => s.cue_weight,
            Cue::RefersBack => -s.cue_weight * 2.0 / 3.0,
            Cue::None => 0.0,
        };
        let total = depth + s.lexical_weight * lexical + pause + cue;
        let content = !user.is_empty();
        out.push(Some(Score { similarity: sims[i], depth, lexical, pause, cue, total, bar: 0.0, content }));
    }
    let highest = out.iter().flatten().map(|sc| sc.total).fold(f32::MIN, f32::max);
    for sc in out.iter_mut().flatten() {
        sc.bar = s.threshold.max(s.relative * highest);
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

/// The share of `new` that `old` lacks (0 when `new` is empty).
pub(super) fn novelty(old: &HashSet<String>, new: &HashSet<String>) -> f32 {
    if new.is_empty() {
        return 0.0;
    }
    new.iter().filter(|w| !old.contains(*w)).count() as f32 / new.len() as f32
}

/// Words that carry the topic: stop words and words under three letters
/// are dropped, the rest cut to their first five letters (a crude stem
/// that joins "backup", "backups" and "backed").
pub(super) fn stems<'a>(texts: impl IntoIterator<Item = &'a str>) -> HashSet<String> {
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
