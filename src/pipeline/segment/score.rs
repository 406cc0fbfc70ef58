//! The decision: a topic signal at every gap between two turns, and a rule
//! that asks for evidence of a change of topic, measured against the
//! session around the gap, not against the base rate of a training set.
//!
//! The signal of the gap before turn `i` adds up:
//!
//! - [`DEPTH_WEIGHT`] times the TextTiling depth: the turns `i-W..i` and
//!   `i..i+W` (as far as they are known) are averaged into two vectors and
//!   their cosine taken; the depth is how far that cosine falls below the
//!   nearest peaks on both sides (climbing while it rises, at most
//!   [`CONTEXT`] gaps away). Of all the signals it tells a change of
//!   conversation from a shift inside one best on every kind of dialogue
//!   with such labels (AUC 0.90 on whole task dialogues joined, 0.93 on
//!   joined pieces), hence its weight;
//! - [`LONG_DEPTH_WEIGHT`] times the same depth over blocks of
//!   [`LONG_WINDOW`] turns: a change of conversation or task changes what a
//!   whole stretch of turns is about, while a shift between the parts of one
//!   request (the next question about the same form, the same bug) leaves
//!   the longer blocks alike. Beside the adaptive threshold below it lifts
//!   the joins above the shifts inside one conversation (whole task
//!   dialogues joined: Pk 0.294 to 0.272) and, as the bar it sets is
//!   relative, still lets a conversation that is only questions on one
//!   document split between them;
//! - the novelty of the two blocks: [`SIMILARITY_WEIGHT`] times 1 minus that
//!   cosine (a change of subject reads differently in absolute terms, not
//!   only beside its neighbours);
//! - `lexical_weight` times the lexical novelty (how few content words the
//!   turns on both sides share);
//! - [`ADJACENT_WEIGHT`] times 1 minus the cosine of the two turns next to
//!   the gap alone (the new turn itself reads differently, not only the
//!   blocks around it);
//! - [`NOVELTY_WEIGHT`] times the share of the user's content words that
//!   the two turns before do not have: a new request names new things, a
//!   follow-up refers back to what was said ("does it", "that one");
//! - `question_weight` times that share of new words when the user asks a
//!   question of their own (a new request names new things: a question
//!   about what was just said is a follow-up, and an answer to the
//!   assistant never opens a segment), `cue_weight` when the user announces a new topic or greets,
//!   and `pause_weight` for a long pause.
//!
//! A gap starts a new segment when
//!
//! - the user's message may open one: it has a word of substance (not only
//!   stop words and acknowledgements: "thanks", "ok do it", "That fixed
//!   it." never do) and does not answer the assistant's question, or it
//!   announces a new topic or greets; a farewell ("Great chatting with
//!   you!") never does;
//! - its signal reaches `segment_floor` and [`RELATIVE`] times the
//!   strongest signal of the gaps within [`CONTEXT`] on both sides that
//!   could open a segment (a per-session adaptive threshold: beside a
//!   change of conversation, a follow-up that reads a little differently
//!   is no shift);
//! - the running segment has at least `segment_min_turns` turns;
//! - the running segment is not small talk alone ([`is_small_talk_turn`]:
//!   "Hey Melanie! Just wanted to say hi!" — "Hey Caroline! What's up?"):
//!   a greeting before the first subject opens that subject's segment,
//!   however strong the change from it, even an overwhelming one.
//!
//! A message that opens with a salutation ("Hi, I'm looking for …") starts
//! a conversation: it needs the floor alone, not the share of the shifts
//! around it nor the minimum length (people do not greet inside one). Not
//! "Hey", which also calls for attention inside a conversation ("Hey, the
//! build broke again"), and not a greeting of a user who greeted in one of
//! the [`GREETING_HABIT`] turns before: that user greets by habit.
//!
//! An overwhelming shift (signal at least `segment_strong`, the long depth
//! counted only once [`LONG_KNOWN`] turns from the gap on are known) needs
//! no minimum length; it must still reach the threshold (in a session where
//! every turn reads differently, its strongest shift sets the bar). No local peak is asked for: the minimum length already
//! keeps a shift smeared over two gaps from splitting twice, and task
//! dialogue changes its request at consecutive turns. The rule is judged per gap with what is
//! known: the past always, the following turns where they are captured
//! (backfill, a backlog, threshold mode); a decision once taken is never
//! revisited. The defaults were chosen by leave-one-dataset-out validation
//! over task dialogue, chit-chat, joined conversations, LoCoMo sessions and
//! coding-agent sessions (`scripts/bench/segmentation_lodo.py`, docs/memory.md "Topic
//! segments").

use std::collections::{HashMap, HashSet};

use super::{announces_subject, closes, cosine, greeting_of, is_question, is_salutation, Settings, TurnView};

/// Turns on each side of a gap that are averaged (the TextTiling block).
pub const WINDOW: usize = 2;
/// Turns on each side of a gap in the long blocks, whose depth tells a
/// change of conversation from a shift inside one.
pub const LONG_WINDOW: usize = 6;
/// Gaps on each side of a judged one that set the session's scale (the
/// peaks and the mean). The caller passes [`REACH`] turns on each side
/// where they exist, so that the neighbours' signals are whole.
pub const CONTEXT: usize = 10;
/// Turns on each side of the judged ones that their scores read: the
/// neighbours' peaks, and the long blocks around those.
pub const REACH: usize = 2 * CONTEXT + LONG_WINDOW;
/// Weight of the blocks' dissimilarity (1 - cosine) in the signal.
pub const SIMILARITY_WEIGHT: f32 = 2.0;
/// The share of the strongest signal around a gap that it must reach.
pub const RELATIVE: f32 = 0.75;
/// Weight of the TextTiling depth in the signal.
pub const DEPTH_WEIGHT: f32 = 2.5;
/// Weight of the depth over the long blocks in the signal.
pub const LONG_DEPTH_WEIGHT: f32 = 6.0;
/// Turns from a gap on that must be known before its long depth counts
/// toward an overwhelming shift: the turn after the gap alone is no
/// stretch (a live session's newest turn).
pub const LONG_KNOWN: usize = 2;
/// Weight of the dissimilarity (1 - cosine) of the two turns next to the gap.
pub const ADJACENT_WEIGHT: f32 = 1.0;
/// Weight of the share of the user's content words that are new.
pub const NOVELTY_WEIGHT: f32 = 0.6;
/// Turns before a gap whose words a user's words are measured against.
const RECENT: usize = 2;
/// A user who greeted in one of this many turns before greets by habit:
/// the greeting opens no conversation.
pub const GREETING_HABIT: usize = 3;

/// Words that acknowledge or agree and say nothing about a topic.
const ACKNOWLEDGEMENTS: &[&str] = &[
    "thanks",
    "thank",
    "thx",
    "ty",
    "ok",
    "okay",
    "k",
    "great",
    "nice",
    "perfect",
    "cool",
    "good",
    "fine",
    "awesome",
    "sounds",
    "looks",
    "look",
    "right",
    "sure",
    "yes",
    "yep",
    "yeah",
    "yup",
    "no",
    "nope",
    "done",
    "fixed",
    "works",
    "worked",
    "working",
    "agreed",
    "agree",
    "correct",
    "exactly",
    "go",
    "ahead",
    "proceed",
    "continue",
    "please",
    "lgtm",
    "excellent",
    "wonderful",
    "alright",
    "got",
    "understood",
    "sorry",
    "wow",
    "amazing",
    "haha",
    "lol",
    "hmm",
    "well",
    "true",
    "indeed",
    // Thanks for the other's words, and wishes: "Your kind words mean a
    // lot", "Glad to hear it, good luck!"
    "kind",
    "words",
    "mean",
    "means",
    "lot",
    "appreciate",
    "appreciated",
    "glad",
    "thankful",
    "grateful",
    "luck",
    "care",
    "congrats",
    "congratulations",
];

/// How a gap's signal was made up, and what the rule asked of it (logged
/// with `-v`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Cosine of the mean vectors of the turns before and after the gap.
    pub similarity: f32,
    /// How far `similarity` lies below the peaks on both sides.
    pub depth: f32,
    /// The same depth over blocks of [`LONG_WINDOW`] turns.
    pub long_depth: f32,
    pub lexical: f32,
    /// Cosine of the two turns next to the gap alone.
    pub adjacent: f32,
    /// The share of the user's content words that the [`RECENT`] turns
    /// before the gap do not have (0 when the user has none).
    pub novelty: f32,
    pub pause: f32,
    /// Discourse cue of the user's words (a new topic announced).
    pub cue: f32,
    /// The dialogue act: `question_weight` times `novelty` when the user
    /// asks a question of their own.
    pub question: f32,
    /// The topic signal.
    pub signal: f32,
    /// The strongest signal of the gaps around that could open a segment.
    pub strongest: f32,
    /// What `signal` had to reach: the floor or [`RELATIVE`] times
    /// `strongest`, the higher.
    pub threshold: f32,
    /// `segment_strong`.
    pub strong: f32,
    /// Whether the user answers the assistant's question.
    pub answers: bool,
    /// Whether at least [`LONG_KNOWN`] turns from the gap on are known, so
    /// that `long_depth` counts toward an overwhelming shift.
    pub long_known: bool,
    /// How many turns just before the gap are small talk from end to end
    /// ([`is_small_talk_turn`]): a running segment of nothing else has no
    /// topic to change.
    pub small_talk_before: usize,
    /// Whether the user's message has a word of substance, announces a
    /// topic or greets, and is no farewell.
    pub substance: bool,
    /// Whether the user's message opens a conversation: it opens with a
    /// salutation ("Hi", "Hello"; not "Hey") and the user did not greet in
    /// the [`GREETING_HABIT`] turns before. Judged against the floor alone
    /// (see [`judge`]).
    pub opens_conversation: bool,
}

/// What the rule made of a gap, given the turns of the running segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A new segment: the shift is strong enough.
    NewSegment,
    /// Acknowledgement or filler: no word of substance.
    Filler,
    /// An answer to the assistant's question continues its topic.
    Answer,
    /// Below the floor or the share of the strongest shift around.
    Weak,
    /// The running segment is shorter than `segment_min_turns`.
    TooShort,
    /// The running segment is small talk: there is no topic to change yet.
    SmallTalk,
}

impl Verdict {
    /// Why, in words (for `-v`).
    pub fn why(self) -> &'static str {
        match self {
            Verdict::NewSegment => "new segment",
            Verdict::Filler => "continues (no word of substance, or a farewell)",
            Verdict::Answer => "continues (answers the assistant)",
            Verdict::Weak => "continues (below the threshold)",
            Verdict::TooShort => "continues (the segment is too short for this shift)",
            Verdict::SmallTalk => "continues (the segment so far is small talk)",
        }
    }
}

impl Score {
    /// Whether the message may open a segment at all.
    pub fn opens(&self) -> bool {
        self.substance && !self.answers
    }

    /// The rule, for a gap that follows `running` turns of the running
    /// segment.
    pub fn verdict(&self, running: usize, min_turns: usize) -> Verdict {
        if !self.substance {
            return Verdict::Filler;
        }
        if self.answers {
            return Verdict::Answer;
        }
        // A greeting and how-are-you before the first subject open the
        // segment of that subject, however strong the change from them.
        if running > 0 && running <= self.small_talk_before {
            return Verdict::SmallTalk;
        }
        if self.signal < self.threshold {
            return Verdict::Weak;
        }
        // An overwhelming shift is exempt from the minimum length only: it
        // is still judged against the session around it.
        if running < min_turns && self.overwhelming() < self.strong && !self.opens_conversation {
            return Verdict::TooShort;
        }
        Verdict::NewSegment
    }

    /// The signal measured against `strong`: without the long depth
    /// where the stretch after the gap is not yet known.
    pub fn overwhelming(&self) -> f32 {
        if self.long_known {
            self.signal
        } else {
            self.signal - LONG_DEPTH_WEIGHT * self.long_depth
        }
    }

    /// Whether the gap starts a new segment after `running` turns.
    pub fn is_boundary(&self, running: usize, min_turns: usize) -> bool {
        self.verdict(running, min_turns) == Verdict::NewSegment
    }
}

/// Whether the user's message has a word of substance: a content word that
/// is neither a stop word nor an acknowledgement.
pub fn has_substance(user: &str) -> bool {
    has_substance_beside(user, &HashSet::new())
}

/// [`has_substance`] in a conversation between `speakers` (the names of
/// its "Name:" labels, lower case): a line's label and a speaker's name
/// are no subject ("Caroline: Thanks, Melanie! Your kind words mean a lot.").
pub fn has_substance_beside(user: &str, speakers: &HashSet<String>) -> bool {
    user.lines().any(|line| {
        let said = crate::pipeline::digest::without_label(line);
        crate::text::words(said).iter().any(|w| {
            w.chars().count() >= 3
                && !crate::text::is_stop_word(w)
                && !ACKNOWLEDGEMENTS.contains(&w.as_str())
                && !speakers.contains(w)
        })
    })
}

/// Whether a turn is small talk from end to end: every sentence of both
/// sides greets, thanks, acknowledges, asks after the other or announces
/// news without giving it ([`crate::pipeline::digest::is_small_talk`],
/// [`crate::pipeline::digest::is_filler`]): "Caroline: Hey Melanie! Just
/// wanted to say hi!" answered "Melanie: Hey Caroline! Good to talk to you
/// again. What's up?". A turn with nothing in it is none.
pub fn is_small_talk_turn(text: &str) -> bool {
    use crate::pipeline::digest::{is_filler, is_small_talk, without_label};
    let sentences: Vec<&str> =
        text.lines().flat_map(|line| crate::pipeline::tidy::sentences(without_label(line))).collect();
    !sentences.is_empty() && sentences.iter().all(|s| is_small_talk(s) || is_filler(s))
}

/// The names of a conversation's speakers, in lower case: the "Name:"
/// labels that open the user's or the assistant's side of at least two of
/// `turns`. A label seen once ("Error: connection refused") names no one.
pub(super) fn speakers(turns: &[TurnView]) -> HashSet<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for t in turns {
        let assistant = t.text.strip_prefix(t.user.as_str()).map(|rest| rest.trim_start_matches('\n'));
        for side in std::iter::once(t.user.as_str()).chain(assistant) {
            if let Some((who, _)) = side.lines().next().and_then(crate::pipeline::digest::named_speaker) {
                *seen.entry(who).or_default() += 1;
            }
        }
    }
    seen.into_iter().filter(|&(_, n)| n >= 2).flat_map(|(who, _)| crate::text::words(who)).collect()
}

/// Scores of every gap of `turns` (consecutive turns of one session, in
/// order): entry `i` is the gap before turn `i`, `None` for turn 0. `None`
/// as a whole when a vector is missing (no embedder): the caller falls back.
/// Gaps within `2 * CONTEXT` of either end of `turns` lack part of their
/// context unless that end is the session's.
pub fn judge(turns: &[TurnView], s: &Settings) -> Option<Vec<Option<Score>>> {
    let vectors: Vec<&[f32]> = turns.iter().map(|t| t.vector.as_deref()).collect::<Option<_>>()?;
    let n = turns.len();
    if n == 0 {
        return Some(vec![]);
    }
    let sims: Vec<f32> = (0..n).map(|i| if i == 0 { 0.0 } else { gap_similarity(&vectors, i, WINDOW) }).collect();
    let longs: Vec<f32> = (0..n).map(|i| if i == 0 { 0.0 } else { gap_similarity(&vectors, i, LONG_WINDOW) }).collect();
    let words: Vec<HashSet<String>> = turns.iter().map(|t| stems([t.text.as_str()])).collect();
    let users: Vec<HashSet<String>> = turns.iter().map(|t| stems([t.user.as_str()])).collect();
    let speakers = speakers(turns);
    // Each turn's greeting, read once: it is a cue, what opens a
    // conversation, and a habit of the turns after it.
    let greetings: Vec<Option<&str>> = turns.iter().map(|t| greeting_of(&t.user)).collect();
    let small_talk: Vec<bool> = turns.iter().map(|t| is_small_talk_turn(&t.text)).collect();
    let mut out: Vec<Option<Score>> = vec![None];
    for i in 1..n {
        let (lo, hi) = (i.saturating_sub(CONTEXT).max(1), (i + CONTEXT).min(n - 1));
        let depth = depth_at(&sims, i, lo, hi);
        let long_depth = depth_at(&longs, i, lo, hi);
        let lexical = block_novelty(&words, i);
        let adjacent = cosine(vectors[i - 1], vectors[i]);
        let novelty = user_novelty(&users[i], &words[i.saturating_sub(RECENT)..i]);
        // A greeting opens a conversation: it answers nothing and needs no
        // word of substance (sessions that join conversations start one with "hi").
        let greeting = greetings[i].is_some();
        let announced = greeting || announces_subject(&turns[i].user);
        let answers = turns[i - 1].reply_asks && !is_question(&turns[i].user) && !greeting && !announced;
        let gap = (turns[i].at - turns[i - 1].at).max(0) as f32;
        let pause = if s.pause_ms > 0 { s.pause_weight * (gap / s.pause_ms as f32).min(1.0) } else { 0.0 };
        let cue = if announced { s.cue_weight } else { 0.0 };
        // A farewell closes the talk it ends: it has nothing to start.
        let substance =
            !closes(&turns[i].user) && (greeting || announced || has_substance_beside(&turns[i].user, &speakers));
        // A question of the user's own is a new request in proportion to
        // the new things it names (an answer to the assistant is none, and a
        // message without substance opens nothing).
        let question =
            if substance && !answers && is_question(&turns[i].user) { s.question_weight * novelty } else { 0.0 };
        let signal = DEPTH_WEIGHT * depth
            + LONG_DEPTH_WEIGHT * long_depth
            + SIMILARITY_WEIGHT * (1.0 - sims[i])
            + s.lexical_weight * lexical
            + ADJACENT_WEIGHT * (1.0 - adjacent)
            + NOVELTY_WEIGHT * novelty
            + cue
            + question
            + pause;
        out.push(Some(Score {
            similarity: sims[i],
            depth,
            long_depth,
            lexical,
            adjacent,
            novelty,
            pause,
            cue,
            question,
            signal,
            strong: s.strong,
            answers,
            substance,
            long_known: n - i >= LONG_KNOWN,
            small_talk_before: small_talk[..i].iter().rev().take_while(|&&t| t).count(),
            opens_conversation: is_salutation(greetings[i])
                && !greetings[i.saturating_sub(GREETING_HABIT)..i].iter().any(Option::is_some),
            ..Score::default()
        }));
    }
    let scored: Vec<Score> = out.iter().flatten().copied().collect();
    // scored[i - 1] is gap i.
    for (i, slot) in out.iter_mut().enumerate().skip(1) {
        let (lo, hi) = (i.saturating_sub(CONTEXT).max(1), (i + CONTEXT).min(n - 1));
        let strongest = (lo..=hi).map(|j| &scored[j - 1]).filter(|o| o.opens()).map(|o| o.signal).fold(0.0, f32::max);
        let sc = slot.as_mut().expect("every gap is scored");
        sc.strongest = strongest;
        // A salutation ("Hi, I need …") opens a new conversation: beside the
        // floor it needs no share of the shifts around it, and it may end a
        // short segment. Inside a conversation people do not greet (7 of
        // the 7,405 user turns of SuperDialseg's dialogues past their
        // first, none of TIAGE's); where conversations are joined, a
        // quarter of the joins open with one.
        sc.threshold = if sc.opens_conversation { s.floor } else { s.floor.max(RELATIVE * strongest) };
    }
    Some(out)
}

/// Cosine of the mean vectors of the `window` turns before gap `i` and
/// the `window` turns from `i` on (fewer at the ends).
fn gap_similarity(vectors: &[&[f32]], i: usize, window: usize) -> f32 {
    let left = mean(&vectors[i.saturating_sub(window)..i]);
    let right = mean(&vectors[i..(i + window).min(vectors.len())]);
    cosine(&left, &right)
}

/// TextTiling's depth of gap `i`: how far its similarity lies below the
/// peaks reached by climbing on both sides within the gaps `lo..=hi`.
fn depth_at(sims: &[f32], i: usize, lo: usize, hi: usize) -> f32 {
    peak(sims, i, -1, lo, hi) + peak(sims, i, 1, lo, hi) - 2.0 * sims[i]
}

/// The highest similarity reached by climbing from gap `i` in direction
/// `step` while it does not fall, within the gaps `lo..=hi`.
fn peak(sims: &[f32], i: usize, step: isize, lo: usize, hi: usize) -> f32 {
    let mut best = sims[i];
    let mut k = i as isize + step;
    while k >= lo as isize && k <= hi as isize && sims[k as usize] >= best {
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

/// The share of `user`'s stems that none of the `recent` turns has (0
/// when `user` has none: a message without content words names nothing new).
pub(super) fn user_novelty(user: &HashSet<String>, recent: &[HashSet<String>]) -> f32 {
    if user.is_empty() {
        return 0.0;
    }
    let new = user.iter().filter(|w| !recent.iter().any(|r| r.contains(*w))).count();
    new as f32 / user.len() as f32
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
