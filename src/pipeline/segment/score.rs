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
//! Beside the depth, each gap has its lexical novelty (how few content
//! words the turns on both sides share), the dialogue act (`answer_weight`
//! on every gap but one where the user answers the assistant's question),
//! the pause and the discourse cue. They add up to the gap's topic signal
//! (depth, weighted lexical novelty, cue) and its score (signal, act,
//! pause). The decision is a logistic combination ([`WEIGHTS`]) of the
//! depth (not the raw similarity), the lexical novelty, the dialogue act and
//! the cue, and of how the gap stands among the gaps around it: its score as
//! a share of the highest around, and how far its signal rises above the
//! stronger of its two neighbours' (a shift seen through the window also
//! lowers the gaps next to it, so a boundary is a local peak); beside them,
//! whether the user asks, whether the reply before asked, the cosine of the
//! two adjacent turns alone, and the length of the user's message (a new
//! request says more than a follow-up). A gap is a boundary when
//!
//! - that combination's probability reaches `segment_cut`;
//! - its topic signal reaches the floor `segment_threshold`: neither an
//!   unanswered question nor a pause splits a session whose turns read
//!   alike and share their words;
//! - the user's message has a content word of its own ("Yes.", "ok thanks"
//!   never start a topic) or opens with a greeting ("hi" opens a
//!   conversation).
//!
//! The weights were fitted by logistic regression on the development
//! dialogues (task-switching dialogue and sessions joining unrelated
//! conversations, weighted alike), and the cut and floor chosen by 2-fold
//! cross-validation: `scripts/bench/segmentation_fit.py` refits and scores
//! them (README, "Topic segments").

use std::collections::HashSet;

use super::{announces_topic, cosine, greets, is_question, Settings, TurnView};

/// The weights of the logistic combination, in the order of
/// [`Score::features`], and its bias (fitted by
/// `scripts/bench/segmentation_fit.py`).
pub const WEIGHTS: [f32; 10] = [0.28, -0.03, -0.20, 0.07, 3.66, 1.25, 0.45, -0.38, -0.57, 1.91];
pub const BIAS: f32 = -3.03;
/// User messages longer than this many words count as this long.
const LONG_MESSAGE: usize = 40;

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
    /// The score: signal, dialogue act and pause.
    pub total: f32,
    /// `total` as a share of the highest score around.
    pub relative_total: f32,
    /// `signal` minus the stronger of the two neighbouring gaps' signals.
    pub local: f32,
    /// Whether the user's message asks a question.
    pub asks: bool,
    /// Whether the reply before ended in a question.
    pub reply_asked: bool,
    /// Cosine of the two turns next to the gap alone.
    pub adjacent: f32,
    /// The user's words, as a share of [`LONG_MESSAGE`].
    pub length: f32,
    /// The logistic combination of [`Score::features`] ([`WEIGHTS`]).
    pub probability: f32,
    /// What `probability` had to reach (`segment_cut`).
    pub cut: f32,
    /// What `signal` had to reach (`segment_threshold`).
    pub floor: f32,
    /// Whether the user's message has a content word of its own (or opens
    /// with a greeting).
    pub content: bool,
}

impl Score {
    /// Whether the gap starts a new segment.
    pub fn is_boundary(&self) -> bool {
        self.content && self.probability >= self.cut && self.signal >= self.floor
    }

    /// What the logistic combination weighs, in the order of [`WEIGHTS`].
    pub fn features(&self) -> [f32; 10] {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        [
            self.depth,
            self.lexical,
            flag(self.answers),
            self.cue,
            self.relative_total,
            self.local,
            flag(self.asks),
            flag(self.reply_asked),
            self.adjacent,
            self.length,
        ]
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
        out.push(Some(Score {
            similarity: sims[i],
            depth,
            lexical,
            answers,
            pause,
            cue,
            signal,
            total,
            asks: is_question(&turns[i].user),
            reply_asked: turns[i - 1].reply_asks,
            adjacent: cosine(vectors[i - 1], vectors[i]),
            length: crate::text::words(&turns[i].user).len().min(LONG_MESSAGE) as f32 / LONG_MESSAGE as f32,
            cut: s.cut,
            floor: s.threshold,
            content,
            ..Score::default()
        }));
    }
    let top = out.iter().flatten().map(|sc| sc.total).fold(0.0f32, f32::max);
    let signals: Vec<Option<f32>> = out.iter().map(|sc| sc.map(|sc| sc.signal)).collect();
    for (i, sc) in out.iter_mut().enumerate() {
        let Some(sc) = sc else { continue };
        let neighbour = [i.checked_sub(1), Some(i + 1)]
            .into_iter()
            .flatten()
            .filter_map(|j| signals.get(j).copied().flatten())
            .reduce(f32::max)
            .unwrap_or(0.0);
        sc.relative_total = if top > 1e-6 { sc.total / top } else { 0.0 };
        sc.local = sc.signal - neighbour;
        let logit = BIAS + WEIGHTS.iter().zip(sc.features()).map(|(w, x)| w * x).sum::<f32>();
        sc.probability = 1.0 / (1.0 + (-logit).exp());
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
