//! Decoding held to whole words of a vocabulary. A logit bias can only
//! allow the tokens that spell the allowed words; their pieces still
//! combine into words no source has ("forget-replone", "by.doughs", "300"
//! out of "3" and "00"), which the grounding check then refused. Here each
//! step also checks the word being written: a token may only continue a
//! prefix of an allowed word, or end one, so every word of the reply is a
//! word of its sources or the glue, by construction.

use std::collections::HashSet;
use std::sync::Arc;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use crate::llm::Strain;

/// What a reply held to a vocabulary may write: the allowed tokens (by
/// id, with their text) and the words they must spell.
pub(super) struct Words {
    /// The text of every allowed token, by token id; None: never allowed.
    pieces: Vec<Option<Box<str>>>,
    /// Allowed words, lower-case, as `crate::text::written_words` cuts them.
    words: HashSet<String>,
    /// Every prefix of an allowed word, lower-case.
    prefixes: HashSet<String>,
    /// The words the reply is nudged to write ([`crate::llm::Vocabulary::sought`]),
    /// lower-case.
    sought: Vec<String>,
}

/// The logit added to a token that starts or goes on spelling a sought
/// word not yet written: enough to choose the fact where the model weighs
/// it close to its first choice, not enough to write it anywhere.
const SEEK_BIAS: f32 = 2.0;

/// The word a chunk of text spells, as [`Words`] compares it: without the
/// punctuation around it, lower-case.
fn core(chunk: &str) -> String {
    chunk.trim_matches(|c: char| !word_char(c)).to_lowercase()
}

/// A character kept at the ends of a written word (as
/// `crate::text::written_words` keeps it): a path, a flag, a share.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '/' | '~' | '-' | '_' | '$' | '%')
}

impl Words {
    pub(super) fn new(words: &[String], sought: &[String], pieces: Vec<Option<Box<str>>>) -> Self {
        let words: HashSet<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let mut seen = HashSet::new();
        let sought = sought.iter().map(|w| core(w)).filter(|w| !w.is_empty() && seen.insert(w.clone())).collect();
        let mut prefixes = HashSet::new();
        for w in &words {
            for (i, _) in w.char_indices().skip(1) {
                prefixes.insert(w[..i].to_string());
            }
            prefixes.insert(w.clone());
        }
        Words { pieces, words, prefixes, sought }
    }

    /// Whether a word written whole may stand: a punctuation mark, an
    /// allowed word, or one with "'s".
    fn whole(&self, chunk: &str) -> bool {
        // A word left hanging on a hyphen ("forget- all") is no word.
        let core = core(chunk);
        core.is_empty()
            || self.words.contains(&core)
            || core.strip_suffix("'s").is_some_and(|base| self.words.contains(base))
    }

    /// Whether a word still being written may go on to an allowed one: a
    /// prefix of one (or of its "'s"), or one whole with its punctuation.
    fn partial(&self, chunk: &str) -> bool {
        let core = chunk.trim_start_matches(|c: char| !word_char(c)).to_lowercase();
        core.is_empty()
            || self.prefixes.contains(&core)
            || core.strip_suffix('\'').is_some_and(|base| self.words.contains(base))
            || self.whole(chunk)
    }

    /// Whether `piece` may follow a reply whose last, unfinished word is
    /// `open` (the text after its last whitespace).
    pub(super) fn allows(&self, open: &str, piece: &str) -> bool {
        let text = format!("{open}{piece}");
        let mut chunks: Vec<&str> = text.split(char::is_whitespace).collect();
        let last = chunks.pop().unwrap_or_default();
        chunks.iter().all(|c| self.whole(c)) && self.partial(last)
    }

    /// Whether `piece` after `open` starts or goes on spelling a sought
    /// word that `written` lacks. The first letters of a sought word that
    /// are a word of their own ("the" of "theme") do not count: they may
    /// stand for that word.
    pub(super) fn seeks(&self, open: &str, piece: &str, written: &HashSet<String>) -> bool {
        if self.sought.is_empty() {
            return false;
        }
        let text = format!("{open}{piece}");
        let last = text.rsplit(char::is_whitespace).next().unwrap_or_default();
        let begun = last.trim_start_matches(|c: char| !word_char(c)).to_lowercase();
        if begun.is_empty() {
            return false;
        }
        self.sought
            .iter()
            .filter(|s| !written.contains(*s))
            .any(|s| s.starts_with(&begun) && (*s == begun || !self.words.contains(&begun)))
    }
}

/// The sampler of one reply, with its words held to a vocabulary when the
/// request has one.
pub(super) struct Sampling {
    sampler: LlamaSampler,
    words: Option<(Arc<Words>, String)>,
    /// The words the reply has written whole, lower-case.
    written: HashSet<String>,
    /// The cost of the token last sampled ([`constraint_cost`]).
    cost: f32,
    /// The reply's tokens with their costs.
    strain: Strain,
}

/// What holding the next token to the allowed ones costs the model, in
/// nats: −ln of the share of its probability (softmax of the logits) that
/// the allowed tokens have, given each token's (logit, allowed). 0 when it
/// would have written an allowed token anyway; large when the vocabulary
/// makes it write what it did not mean.
pub(super) fn constraint_cost(tokens: impl Iterator<Item = (f32, bool)> + Clone) -> f32 {
    let max = tokens.clone().map(|(l, _)| l).fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return 0.0;
    }
    let (mut all, mut kept) = (0f64, 0f64);
    for (l, allowed) in tokens {
        let p = f64::from(l - max).exp();
        all += p;
        if allowed {
            kept += p;
        }
    }
    if kept <= 0.0 {
        return f32::INFINITY;
    }
    (all.ln() - kept.ln()).max(0.0) as f32
}

impl Sampling {
    pub(super) fn new(sampler: LlamaSampler, words: Option<Words>) -> Self {
        Sampling {
            sampler,
            words: words.map(|w| (Arc::new(w), String::new())),
            written: HashSet::new(),
            cost: 0.0,
            strain: Strain::default(),
        }
    }

    /// Sample and accept the next token from the `idx`-th logits of the
    /// last decode.
    pub(super) fn sample(
        &mut self,
        ctx: &LlamaContext<'_>,
        idx: i32,
        is_eog: impl Fn(LlamaToken) -> bool,
    ) -> LlamaToken {
        let Some((words, open)) = &self.words else { return self.sampler.sample(ctx, idx) };
        let mut candidates = ctx.token_data_array_ith(idx);
        let allowed: Vec<bool> = candidates
            .data
            .iter()
            .map(|d| match words.pieces.get(d.id().0 as usize) {
                Some(Some(piece)) => words.allows(open, piece),
                _ => is_eog(d.id()),
            })
            .collect();
        self.cost = constraint_cost(candidates.data.iter().map(|d| d.logit()).zip(allowed.iter().copied()));
        for (d, &allowed) in candidates.data.iter_mut().zip(&allowed) {
            let id = d.id();
            if !allowed {
                d.set_logit(f32::NEG_INFINITY);
            } else if matches!(words.pieces.get(id.0 as usize), Some(Some(piece)) if words.seeks(open, piece, &self.written))
            {
                d.set_logit(d.logit() + SEEK_BIAS);
            }
        }
        candidates.apply_sampler(&mut self.sampler);
        // Every allowed token may be banned only where no word of the
        // vocabulary goes on: the reply then ends there.
        let token = candidates.selected_token().filter(|_| candidates.data.iter().any(|d| d.logit().is_finite()));
        let token = token
            .unwrap_or_else(|| candidates.data.iter().map(|d| d.id()).find(|&t| is_eog(t)).unwrap_or(LlamaToken(0)));
        self.sampler.accept(token);
        token
    }

    /// How far the vocabulary bent the reply written so far; None without one.
    pub(super) fn strain(&mut self) -> Option<Strain> {
        self.words.is_some().then(|| std::mem::take(&mut self.strain))
    }

    /// [`Sampling::strain`], looked at.
    pub(super) fn strain_so_far(&self) -> Option<&Strain> {
        self.words.as_ref().map(|_| &self.strain)
    }

    /// The text of the token just sampled, for the word being written.
    pub(super) fn wrote(&mut self, piece: &str) {
        if let Some((_, open)) = &mut self.words {
            self.strain.push(piece, self.cost);
            match piece.rfind(char::is_whitespace) {
                Some(at) => {
                    let done = format!("{open}{}", &piece[..at]);
                    self.written.extend(done.split_whitespace().map(core));
                    *open = piece[at..].trim_start().to_string();
                }
                None => open.push_str(piece),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Words {
        Words::new(&list.iter().map(|w| w.to_string()).collect::<Vec<_>>(), &[], Vec::new())
    }

    #[test]
    fn a_token_may_only_go_on_to_a_word_of_the_vocabulary() {
        let w = words(&["forget", "restic", "--password-file", "02:00", "70%", "by", "the", "250"]);
        assert!(w.allows("", " rest"));
        assert!(w.allows("rest", "ic"));
        assert!(w.allows("restic", ","));
        assert!(w.allows("restic,", " the"));
        assert!(w.allows("", " --pass"));
        assert!(w.allows("--pass", "word-file."));
        assert!(w.allows("02:", "00"));
        assert!(w.allows("", " Restic"), "a capitalised word is the word");
        assert!(w.allows("", " (restic"), "an opening bracket");
        assert!(w.allows("restic", "'s"));
        // Pieces that would spell words no source has.
        assert!(!w.allows("forget", "-re"), "forget-re… is no word");
        assert!(!w.allows("forget-", " all"), "nor a word left on its hyphen");
        assert!(!w.allows("by", ".d"), "by.doughs");
        assert!(!w.allows("25", "00"), "2500 out of 25 and 00");
        assert!(!w.allows("", " 300"));
        assert!(!w.allows("rest", "ful "), "a word ended whole must be one");
        assert!(!w.allows("resti", " the"), "an unfinished word may not be left");
        assert!(w.allows("", " ."), "punctuation alone");
    }

    #[test]
    fn holding_a_token_costs_minus_the_log_of_the_allowed_share() {
        let logits = [0.0, 3f32.ln(), f32::NEG_INFINITY];
        let cost =
            |allowed: fn(usize) -> bool| constraint_cost(logits.iter().enumerate().map(move |(i, &l)| (l, allowed(i))));
        let near = |a: f32, b: f32| (a - b).abs() < 1e-5;
        // Token 1 has 3/4 of the probability, token 0 a quarter.
        assert!(near(cost(|i| i == 1), (4f32 / 3.0).ln()));
        assert!(near(cost(|i| i == 0), 4f32.ln()));
        assert!(near(cost(|i| i < 2), 0.0), "nothing the model would write is barred");
        assert!(near(cost(|_| true), 0.0));
        assert_eq!(cost(|i| i == 2), f32::INFINITY, "only what the model gives no chance");
    }

    #[test]
    fn a_sought_word_is_favoured_until_it_is_written() {
        let list: Vec<String> =
            ["restic", "check", "the", "theme", "ran", "--password-file"].iter().map(|w| w.to_string()).collect();
        let sought: Vec<String> = vec!["Restic".into(), "theme".into(), "--password-file".into()];
        let w = Words::new(&list, &sought, Vec::new());
        let none = HashSet::new();
        assert!(w.seeks("", " rest", &none), "starting a sought word");
        assert!(w.seeks("rest", "ic", &none), "going on with it");
        assert!(w.seeks("", " (--pass", &none), "after an opening bracket");
        assert!(!w.seeks("", " check", &none), "a word not sought");
        assert!(!w.seeks("", " the", &none), "a word of its own that starts a sought one");
        assert!(w.seeks("", " them", &none), "…but not once it can only be the sought one");
        let written: HashSet<String> = ["restic".to_string()].into();
        assert!(!w.seeks("", " restic", &written), "a fact written once is not sought again");
        assert!(!Words::new(&list, &[], Vec::new()).seeks("", " rest", &none), "nothing sought");
    }
}
