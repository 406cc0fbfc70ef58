//! The grounding check: every model reply is checked against the words it
//! summarises before it is stored, and the extractive summaries written
//! when a model keeps failing it. Deterministic, cheap, no model.
//!
//! A reply is bad when it
//! - names a number, identifier (path, flag, URL, snake_case, CamelCase,
//!   ALL-CAPS, `code`, "quoted text") or name (a capitalised word inside a
//!   sentence) that its sources do not contain;
//! - only asks (every sentence a question) instead of telling;
//! - loops (a run of words repeated: the definition in [`loops`], shared
//!   with the memory benchmark), or repeats a sentence;
//! - echoes the instructions of the prompt, or copies a worked example;
//! - shares too few content words with its sources (it is about something
//!   else);
//! - says a word twice in a row, or a word of substance twice within four
//!   words, where its sources never do ("Bash Bash", "a special clay for
//!   her first clay");
//! - negates where its sources never do, or judges ("impractical",
//!   "unsafe", "avoid") where they do not: the words that turn a
//!   recommendation around.
//!
//! A turn's one-sentence summary (L2) must also state the answer: words of
//! the reply its request lacks, the first names, numbers and identifiers
//! of the answer's lead clause, and the thing itself where a pronoun
//! would stand for what the turn named; and a sentence of it longer than
//! an L2 may be is refused, not cut ([`Acceptance::max_words`]).

pub use crate::text::{is_stop_word, words};
use std::collections::HashSet;

mod extractive;
mod loops;
mod pronouns;
mod relations;
mod rewrite;
mod settle;
mod sides;
mod terms;
#[cfg(test)]
mod tests;

pub use extractive::{extractive_fold, extractive_turn, is_tool_line};
use loops::{copied, looping};
pub use loops::{LOOP_GRAM, LOOP_TIMES};
pub use relations::Relations;
pub use rewrite::{
    as_question, as_request, in_third_person, is_first_or_second_person, is_first_person, is_first_person_singular,
    is_second_person, is_told_question, rewrite_fault, rewrite_refused, speaker_words, speaks_for_itself,
};
pub use settle::{settle, settle_kept, strained};
pub use sides::{named_people, with_people_named, Sides};
use terms::supported;
pub use terms::{is_empty_term, keeps_its_case, key_terms, terms};

/// Content words of a reply that must come from the sources, at least
/// (stemmed; a faithful paraphrase of a turn keeps most of its words).
const MIN_OVERLAP: f32 = 0.7;

/// Phrases of the prompts that never belong in a summary.
const INSTRUCTION_ECHOES: &[&str] = &[
    "third person",
    "in your own words",
    "running summary:",
    "new turns:",
    "new session summaries:",
    "reply with",
    "no_merge",
    "one-sentence",
    "one short sentence",
    "in your words",
    "the subject first",
    "leave out greetings",
    "short sentences",
    "words in all",
    "memory log",
    "this follows the request",
    "3 to 5 sentences",
    "keep every name",
    "user: ",
    "assistant: ",
];

/// Words every summary uses that say nothing about the topic.
const META_WORDS: &[&str] = &[
    "user",
    "users",
    "assistant",
    "asked",
    "asks",
    "ask",
    "explained",
    "explains",
    "suggested",
    "suggests",
    "recommended",
    "answered",
    "answer",
    "replied",
    "said",
    "says",
    "discussed",
    "conversation",
    "session",
    "question",
    "questions",
    "wanted",
    "wants",
    "mentioned",
    "told",
    "noted",
    "described",
    "talked",
    "about",
    "also",
    "then",
    "they",
    "them",
    "their",
    "summary",
    "turn",
    "turns",
    "told",
    "helped",
    "help",
    "provided",
    "gave",
    "shared",
    "agreed",
    "advised",
    "confirmed",
    "continued",
    "went",
    "discuss",
    "using",
    "used",
    "use",
];

/// Words that say no. A reply with one, from sources without any, turned
/// a statement around.
const NEGATIONS: &[&str] = &["not", "no", "never", "nothing", "none", "nobody", "neither", "nor", "cannot", "without"];

/// Words that judge a suggestion. A reply with one its sources do not have
/// (compared by stem) made the judgement up: SmolLM2-135M wrote "the
/// assistant explained that using restic backup with a cron job would be
/// impractical" of a turn that recommended exactly that.
#[rustfmt::skip]
const JUDGEMENTS: &[&str] = &[
    "impractical", "impossible", "unnecessary", "unsafe", "insecure", "unreliable", "inefficient", "useless",
    "pointless", "wrong", "bad", "risky", "dangerous", "harmful", "avoid", "avoided", "avoiding", "discouraged",
    "inadvisable", "unwise", "problematic",
];

pub(crate) fn negates<'a>(mut words: impl Iterator<Item = &'a String>) -> bool {
    words.any(|w| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't") || w.ends_with("n\u{2019}t"))
}

/// How many of an answer's own words (those its request lacks) an L2
/// sentence must keep: one in four, at least one and at most three. With
/// decoding held to the turn's words, SmolLM2-135M wrote sentences that
/// pass every other check and say almost nothing ("the assistant explained
/// that it is a recommended and used by cron" of an answer naming
/// `--password-file` and a root-only file): the L2s the model wrote rose
/// from 52% to 90% of 40 LoCoMo turns while their facts fell (fact recall
/// 0.243 to 0.171).
pub fn outcome_words_needed(answer_words: usize) -> usize {
    answer_words.div_ceil(4).clamp(1, 3)
}

/// Why a reply is bad, or `None` when it may be stored.
pub fn check(reply: &str, sources: &[&str], examples: &[&str]) -> Option<String> {
    let grounds = Grounds::new(sources, examples);
    grounds.lasting_fault(reply).or_else(|| grounds.fault_of_whole(reply))
}

/// The words said twice in a row, a possessive counted as its word: a
/// small model's stutter ("Git is run from the Bash Bash 4e5f6a7", "the
/// starter's starter"), which no check of single words sees; and a word
/// of substance said again within [`NEAR`] words, the same stutter with
/// words between ("a special clay for her first clay", "a family outing
/// for a summer outing", "more true to their true"). Each repeat comes
/// with how far apart its two words are (1: in a row).
fn stuttered(ws: &[String]) -> impl Iterator<Item = (String, usize)> {
    let bases: Vec<String> = ws.iter().map(|w| terms::possessive_base(w).unwrap_or(w).to_string()).collect();
    let mut found = Vec::new();
    for (i, a) in bases.iter().enumerate() {
        let substance = a.chars().count() >= 3 && !crate::text::is_stop_word(a);
        let reach = if substance { NEAR } else { 1 };
        for (j, b) in bases.iter().enumerate().take(i + 1 + reach).skip(i + 1) {
            if b == a {
                found.push((b.clone(), j - i));
            }
        }
    }
    found.into_iter()
}

/// How far apart a word of substance may not be said twice ([`stuttered`]).
const NEAR: usize = 4;

/// What a reply is checked against: its sources and the prompt's worked
/// examples, read once.
pub struct Grounds {
    text: String,
    lower: String,
    words: HashSet<String>,
    stems: HashSet<String>,
    /// Words the sources themselves say twice in a row ([`stuttered`]).
    stutters: HashSet<String>,
    examples: Vec<Vec<String>>,
}

impl Grounds {
    pub fn new(sources: &[&str], examples: &[&str]) -> Self {
        let text = sources.join("\n");
        let all = self::words(&text);
        let stutters = stuttered(&all).map(|(w, _)| w).collect();
        let words: HashSet<String> = all.into_iter().collect();
        let stems = words.iter().map(|w| stem(w)).collect();
        Grounds {
            stutters,
            lower: text.to_lowercase(),
            text,
            words,
            stems,
            examples: examples.iter().map(|e| self::words(e)).collect(),
        }
    }

    /// A fault that no continuation of the reply can undo: once text has
    /// it, so has every text that starts with it. An echo of the prompt,
    /// a loop, an invented term, a negation or judgement the sources never
    /// make, a copied example. (A local model stops writing a reply once
    /// its complete sentences have one: [`settle`].)
    pub fn lasting_fault(&self, reply: &str) -> Option<String> {
        let reply_lower = reply.to_lowercase();
        for echo in INSTRUCTION_ECHOES {
            if reply_lower.contains(echo) && !self.lower.contains(echo) {
                return Some(format!("the reply echoes the prompt ({echo:?})"));
            }
        }
        if let Some(run) = looping(reply) {
            return Some(format!("the reply loops ({run:?} repeated)"));
        }
        let invented: Vec<String> =
            terms(reply).into_iter().filter(|t| !supported(t, &self.lower, &self.words)).collect();
        if !invented.is_empty() {
            return Some(format!("the reply names what its sources do not: {}", invented.join(", ")));
        }
        let reply_words = words(reply);
        if let Some((w, apart)) = stuttered(&reply_words).find(|(w, _)| !self.stutters.contains(w)) {
            return Some(if apart == 1 {
                format!("the reply says {w:?} twice in a row")
            } else {
                format!("the reply says {w:?} twice within {apart} words")
            });
        }
        if negates(reply_words.iter()) && !negates(self.words.iter()) {
            return Some("the reply negates where its sources never do".into());
        }
        let judged: Vec<&str> = JUDGEMENTS
            .iter()
            .filter(|j| reply_words.iter().any(|w| w == *j) && !self.stems.contains(&stem(j)))
            .copied()
            .collect();
        if !judged.is_empty() {
            return Some(format!("the reply judges where its sources do not: {}", judged.join(", ")));
        }
        for example in &self.examples {
            if let Some(gram) = copied(&reply_words, example, &self.words) {
                return Some(format!("the reply copies a worked example ({gram:?})"));
            }
        }
        None
    }

    /// Whether a sentence of at least 8 words is a quote: all but at most
    /// one in ten of its words, in order, are a run of one source.
    pub fn quotes(&self, sentence: &str) -> bool {
        let mine = words(sentence);
        if mine.len() < 8 {
            return false;
        }
        let theirs = words(&self.text);
        let mut best = 0;
        let mut run = vec![0usize; theirs.len() + 1];
        for a in &mine {
            let mut next = vec![0usize; theirs.len() + 1];
            for (j, b) in theirs.iter().enumerate() {
                if a == b {
                    next[j + 1] = run[j] + 1;
                    best = best.max(next[j + 1]);
                }
            }
            run = next;
        }
        best * 10 >= mine.len() * 9
    }

    /// A fault of the reply as a whole, which more text may cure: it only
    /// asks, says nothing about its sources, or shares too little with them.
    pub fn fault_of_whole(&self, reply: &str) -> Option<String> {
        if only_asks(reply) {
            return Some("the reply asks instead of telling what was said".into());
        }
        let content = content_words(reply);
        if content.is_empty() && !unspaced(reply) && !content_words(&self.text).is_empty() {
            return Some("the reply says nothing about its sources".into());
        }
        // Word overlap means nothing for scripts written without spaces (a
        // Chinese clause is one "word"): there only the terms are checked.
        if !content.is_empty() && !unspaced(reply) {
            let shared = content.iter().filter(|w| self.stems.contains(&stem(w))).count();
            let share = shared as f32 / content.len() as f32;
            if share < MIN_OVERLAP {
                return Some(format!(
                    "the reply shares too little with its sources ({:.0}% of its words)",
                    share * 100.0
                ));
            }
        }
        None
    }
}

/// What sentence-level acceptance kept of a reply, and why it dropped the rest.
#[derive(Debug, Default)]
pub struct Kept {
    pub sentences: Vec<String>,
    pub dropped: Vec<String>,
}

impl Kept {
    pub fn text(&self) -> String {
        self.sentences.join(" ")
    }
}

/// Sentence-level acceptance: the rules each sentence of a reply meets on
/// its own, read once. A sentence is kept when it has no
/// [lasting fault](Grounds::lasting_fault), tells rather than asks, is
/// written in the third person, is no quote of what was said (`said`: the
/// raw turns; model-written items may be reused), says something, repeats
/// no kept sentence, and — for a turn — states its outcome: a word of the
/// reply that the request did not have, the first facts of the answer's
/// lead clause (`lead_facts`), and no "it" for what the turn named
/// (`pronouns`).
pub struct Acceptance {
    grounds: Grounds,
    said: Grounds,
    outcome: HashSet<String>,
    /// For an L2: the facts of the answer's lead clause it must keep
    /// ([`lead_facts`]).
    lead_facts: Vec<String>,
    /// For an L2: the turn's words, for a pronoun that stands for what
    /// the turn named ([`pronouns`]).
    named: Option<pronouns::Named>,
    /// Every word must come from the sources or the glue (a reply decoded
    /// with the sources' vocabulary: a word that is neither was pieced
    /// together from fragments, "Tune-ups" out of "T", "une" and "-ups").
    own_words_only: bool,
    /// Whether the sources have a content word at all ("hello there" /
    /// "hi" has none, and a summary of it need not either).
    sources_say_something: bool,
    /// Who did what ([`Relations`]): checked for a reply decoded with the
    /// sources' vocabulary, whose words alone prove little.
    relations: Option<Relations>,
    /// The most words a kept sentence may have (an L2's: one sentence).
    max_words: Option<usize>,
    /// Who said what ([`Sides`]): for an L2, whose words a reporting
    /// frame ("the user asked") is followed by.
    sides: Option<Sides>,
    /// For a summary (L3, L4): the speakers its sources label their lines
    /// with (lower case), whose label a reported sentence may not carry
    /// ([`Acceptance::reported`]).
    reported: Option<std::collections::BTreeSet<String>>,
}

impl Acceptance {
    /// `sources`: everything a reply may rest on; `said`: the raw turns
    /// among them; `outcome`: for an L2, the (request, reply) of the turn.
    pub fn new(sources: &[&str], said: &[&str], examples: &[&str], outcome: Option<(&str, &str)>) -> Self {
        let (outcome, lead_facts, named) = match outcome {
            Some((request, reply)) => {
                let asked: HashSet<String> = content_words(request).iter().map(|w| stem(w)).collect();
                let answered = content_words(reply).iter().map(|w| stem(w)).filter(|s| !asked.contains(s)).collect();
                (answered, lead_facts(request, reply), Some(pronouns::Named::new(&[request, reply])))
            }
            None => Default::default(),
        };
        Acceptance {
            grounds: Grounds::new(sources, examples),
            said: Grounds::new(said, &[]),
            outcome,
            lead_facts,
            named,
            own_words_only: false,
            sources_say_something: sources.iter().any(|t| !content_words(t).is_empty()),
            relations: None,
            max_words: None,
            sides: None,
            reported: None,
        }
    }

    /// A summary (L3, L4) reports what was said: a kept sentence neither
    /// speaks as its speakers ("we", beside the "I" every reply is held
    /// to) nor to them ("you"), and carries no speaker's label of its
    /// sources ("Melanie: Yeah, it is."), which makes it a line of the
    /// transcript again. SmolLM2-135M's prose folds of a chat passed every
    /// other check with "Caroline is a great adoption agency to have on
    /// your end of the process" and "Caroline: Whoa, Melanie, that's a
    /// great one. Melanie: Yeah, it is." (BENCHMARKS.md, stop 55).
    pub fn reported(mut self, sources: &[&str]) -> Self {
        let speakers = sources
            .iter()
            .flat_map(|s| s.lines())
            .filter_map(crate::pipeline::digest::named_speaker)
            .map(|(who, _)| who.to_lowercase())
            .collect();
        self.reported = Some(speakers);
        self
    }

    /// Why a sentence of a summary is no report of what was said
    /// ([`Acceptance::reported`]).
    fn unreported(&self, sentence: &str) -> Option<String> {
        let speakers = self.reported.as_ref()?;
        // "US" (the country) is no "us".
        let person = sentence
            .split_whitespace()
            .filter(|t| t.trim_matches(|c: char| !c.is_alphanumeric()) != "US")
            .flat_map(words)
            .find(|w| is_first_or_second_person(w));
        if let Some(w) = person {
            return Some(format!("the sentence speaks as or to a speaker (\"{w}\"), not of them"));
        }
        let lower = sentence.to_lowercase();
        let labelled = speakers.iter().find(|who| {
            lower.match_indices(&format!("{who}:")).any(|(i, _)| !lower[..i].ends_with(|c: char| c.is_alphanumeric()))
        });
        labelled.map(|who| format!("the sentence quotes a line with its speaker's label (\"{who}:\")"))
    }

    /// A kept sentence may have at most `max` words: a longer one is not
    /// cut to fit. SmolLM2-135M's sentences that ran past an L2's 30 words
    /// ended, cut, in the middle of what they were saying ("restic is one
    /// of a set of backup cron job that are run by the…").
    pub fn max_words(mut self, max: usize) -> Self {
        self.max_words = Some(max);
        self
    }

    /// Every word of a kept sentence must come from the sources or the
    /// glue words (for a reply decoded with the sources' vocabulary).
    pub fn own_words_only(mut self, on: bool) -> Self {
        self.own_words_only = on;
        self
    }

    /// Every kept sentence must relate its words as the sources do
    /// ([`Relations`]): for an L2 decoded with the turn's vocabulary.
    pub fn relations_checked(mut self, sources: &[&str], on: bool) -> Self {
        self.relations = on.then(|| Relations::new(sources));
        self
    }

    /// Every kept sentence's reporting frames must be followed by their
    /// own side's words ([`Sides`]): for an L2, whose `user` and
    /// `assistant` sides are known.
    pub fn sides_checked(mut self, user: &[&str], assistant: &str) -> Self {
        self.sides = Some(Sides::new(user, assistant));
        self
    }

    /// Why a sentence cannot be kept, if it cannot.
    pub fn fault(&self, sentence: &str) -> Option<String> {
        if let Some(fault) = self.grounds.lasting_fault(sentence) {
            return Some(fault);
        }
        let length = crate::pipeline::digest::word_count(sentence);
        if let Some(max) = self.max_words.filter(|&max| length > max) {
            return Some(format!("the sentence is longer than a summary of it may be ({length} words; at most {max})"));
        }
        if only_asks(sentence) {
            return Some("the sentence asks instead of telling".into());
        }
        let ws = words(sentence);
        if ws.iter().any(|w| is_first_person_singular(w)) {
            return Some("the sentence is not in the third person".into());
        }
        if self.own_words_only {
            let foreign: Vec<&String> = ws
                .iter()
                .filter(|w| !is_stop_word(w) && !META_WORDS.contains(&w.as_str()))
                .filter(|w| {
                    // "she's", "Mel's": the word the sources (or the glue) have, with "'s".
                    let w = terms::possessive_base(w).unwrap_or(w);
                    !is_stop_word(w) && !crate::pipeline::digest::is_glue(w) && !self.grounds.stems.contains(&stem(w))
                })
                .collect();
            if !foreign.is_empty() {
                let list: Vec<&str> = foreign.iter().map(|w| w.as_str()).collect();
                return Some(format!("the sentence uses words its sources do not: {}", list.join(", ")));
            }
        }
        if let Some(why) = self.relations.as_ref().and_then(|r| r.fault(sentence)) {
            return Some(why);
        }
        if let Some(why) = self.sides.as_ref().and_then(|s| s.fault(sentence)) {
            return Some(why);
        }
        if let Some(why) = self.unreported(sentence) {
            return Some(why);
        }
        if self.said.quotes(sentence) {
            return Some("the sentence quotes what was said".into());
        }
        let content = content_words(sentence);
        if content.is_empty() && !unspaced(sentence) && self.sources_say_something {
            return Some("the sentence says nothing about its sources".into());
        }
        // Word stems mean little in scripts written without spaces.
        let spaced = !unspaced(sentence);
        if spaced && !self.outcome.is_empty() {
            let kept: HashSet<String> = content.iter().map(|w| stem(w)).filter(|s| self.outcome.contains(s)).collect();
            if kept.is_empty() {
                return Some("the sentence leaves out the outcome".into());
            }
            if kept.len() < outcome_words_needed(self.outcome.len()) {
                return Some(format!(
                    "the sentence keeps too little of the outcome ({} of its {} words)",
                    kept.len(),
                    self.outcome.len()
                ));
            }
        }
        if spaced && !self.lead_facts.is_empty() {
            let lower = sentence.to_lowercase();
            let said: HashSet<String> = ws.into_iter().collect();
            if let Some(fact) = self.lead_facts.iter().find(|t| !supported(t, &lower, &said)) {
                return Some(format!("the sentence leaves out the answer's lead fact {fact:?}"));
            }
        }
        if let Some(thing) = self.named.as_ref().and_then(|n| n.unnamed(sentence)) {
            return Some(format!("the sentence says \"it\" where its turn names {thing:?}"));
        }
        None
    }

    /// The sentences of a reply that may be stored, in its order, instead
    /// of refusing the whole reply for one bad word. What is kept is still
    /// the model's own decoding.
    pub fn keep(&self, reply: &str) -> Kept {
        let mut kept = Kept::default();
        let mut seen: Vec<HashSet<String>> = Vec::new();
        for sentence in crate::pipeline::tidy::sentences(reply) {
            let stems: HashSet<String> = content_words(sentence).iter().map(|w| stem(w)).collect();
            let why = self.fault(sentence).or_else(|| {
                seen.iter().any(|s| stems.is_subset(s)).then(|| "the sentence repeats a kept one".to_string())
            });
            match why {
                Some(why) => kept.dropped.push(format!("{why}: {sentence:?}")),
                None => {
                    seen.push(stems);
                    kept.sentences.push(sentence.to_string());
                }
            }
        }
        kept
    }

    /// [`Grounds::fault_of_whole`] of the sources.
    pub fn fault_of_whole(&self, text: &str) -> Option<String> {
        self.grounds.fault_of_whole(text)
    }
}

/// The facts an L2 must keep of its turn: the first two names, numbers
/// and identifiers of the answer's lead clause (its first clause that
/// says something, [`crate::pipeline::digest::turn_clauses`]) that the
/// request does not already have, the speakers' names and their short
/// forms aside. The lead clause is what the request was answered with;
/// SmolLM2-135M wrote "it is 20-25 minutes at 230 C to the lid" of "Bake
/// in a preheated Dutch oven at 250 C for 20 minutes with the lid on,
/// then 20-25 minutes at 230 C with the lid off", which passes every
/// other check and loses the answer. A lead clause without such a fact
/// ("restic always encrypts; … pass it with --password-file …") asks
/// instead for the answer's first code identifier (a flag, path, file or
/// snake_case name, [`terms::is_code_identifier`]) that the request does
/// not have: SmolLM2-135M wrote "cron is a file, and it can also run
/// unattended" of that turn, and the flag was lost to the digest.
fn lead_facts(request: &str, reply: &str) -> Vec<String> {
    use crate::pipeline::digest::{speaker_label, turn_clauses};
    let clauses = turn_clauses(reply);
    let Some(lead) = clauses.first() else {
        return Vec::new();
    };
    let lead = speaker_label(lead).map_or(lead.as_str(), |(_, rest)| rest);
    let speakers: Vec<String> =
        request.lines().chain(reply.lines()).filter_map(speaker_label).flat_map(|(who, _)| words(who)).collect();
    let asked_lower = request.to_lowercase();
    let asked: HashSet<String> = words(request).into_iter().collect();
    let new = |t: &String| !supported(t, &asked_lower, &asked) && !is_speaker(t, &speakers);
    let facts: Vec<String> = terms(lead).into_iter().filter(new).take(2).collect();
    if !facts.is_empty() {
        return facts;
    }
    clauses[1..].iter().flat_map(|c| terms(c)).filter(|t| terms::is_code_identifier(t)).find(new).into_iter().collect()
}

/// Whether a name is one of the speakers' or a short form of one ("Mel"
/// of Melanie, "Caro" of Caroline): whom a line is said to, no fact.
fn is_speaker(term: &str, speakers: &[String]) -> bool {
    let t = term.to_lowercase();
    speakers.iter().any(|s| *s == t || (t.chars().count() >= 3 && s.starts_with(&t)))
}

/// [`Acceptance::keep`] with no raw turns and no outcome asked.
pub fn keep_grounded(reply: &str, sources: &[&str], examples: &[&str]) -> Kept {
    Acceptance::new(sources, &[], examples, None).keep(reply)
}

/// [`check`] for a fold's reply, which must also keep something of each of
/// its parts ([`covers`]).
pub fn check_fold(reply: &str, running: Option<&str>, items: &[&str], examples: &[&str]) -> Option<String> {
    let mut sources: Vec<&str> = running.into_iter().collect();
    sources.extend_from_slice(items);
    check(reply, &sources, examples).or_else(|| covers(reply, running, items))
}

/// Whether a fold's reply keeps something of each of its parts (a merge
/// that drops one lost memory): of the running summary when there is one
/// and of the new material as a whole (a sixth of each part's words, two
/// for a short one), of each new item — a word of its own, one that
/// neither the running summary nor another item has — save at most half
/// of them (a summary within its budget leaves the lesser ones out), and
/// at least half of the names, numbers and identifiers the items carry.
pub fn covers(reply: &str, running: Option<&str>, items: &[&str]) -> Option<String> {
    let reply_stems = content_stems(reply);
    let parts = running.map(|r| ("running summary", r.to_string())).into_iter();
    for (what, part) in parts.chain([("new material", items.join(" "))]) {
        let stems = content_stems(&part);
        let kept = stems.iter().filter(|s| reply_stems.contains(*s)).count();
        let need = (stems.len() / 6).max(2).min(stems.len());
        if kept < need {
            return Some(format!("the reply drops the {what}"));
        }
    }
    let item_stems: Vec<HashSet<String>> = items.iter().map(|i| content_stems(i)).collect();
    let running_stems = running.map(content_stems).unwrap_or_default();
    let dropped: Vec<usize> = (0..items.len())
        .filter(|&i| {
            let own: Vec<&String> = item_stems[i]
                .iter()
                .filter(|s| !running_stems.contains(*s))
                .filter(|s| item_stems.iter().enumerate().all(|(j, other)| j == i || !other.contains(*s)))
                .collect();
            !own.is_empty() && !own.iter().any(|s| reply_stems.contains(*s))
        })
        .collect();
    if dropped.len() > items.len() / 2 {
        let which: Vec<String> = dropped.iter().map(|i| (i + 1).to_string()).collect();
        return Some(format!("the reply drops new item(s) {} of {}", which.join(", "), items.len()));
    }
    // What matters most is named: at least half of the new items' names,
    // numbers and identifiers stay (a summary may drop the lesser ones,
    // not the fix that worked).
    let reply_lower = reply.to_lowercase();
    let mut named: Vec<String> = items.iter().flat_map(|i| terms(i)).map(|t| t.to_lowercase()).collect();
    named.sort();
    named.dedup();
    let kept = named.iter().filter(|t| reply_lower.contains(t.as_str())).count();
    if kept * 2 < named.len() {
        let lost: Vec<&str> = named.iter().filter(|t| !reply_lower.contains(t.as_str())).map(String::as_str).collect();
        return Some(format!("the reply drops what the new material names: {}", lost.join(", ")));
    }
    None
}

/// Whether every sentence of a reply is a question: a summary tells what
/// was said; SmolLM2-135M sometimes restates the user's question instead.
fn only_asks(reply: &str) -> bool {
    let reply = reply.trim();
    reply.ends_with('?') && !reply.split(['.', '!']).rev().skip(1).any(|head| !head.trim().is_empty())
}

/// Whether most letters of a text belong to scripts written without
/// spaces between words (Chinese, Japanese, Thai…).
fn unspaced(text: &str) -> bool {
    let (mut letters, mut unspaced) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        if matches!(c as u32, 0x0E00..=0x0EFF | 0x3040..=0x30FF | 0x3400..=0x9FFF | 0xF900..=0xFAFF) {
            unspaced += 1;
        }
    }
    unspaced * 3 > letters
}

fn content_words(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| w.chars().count() > 2 && !is_stop_word(w) && !META_WORDS.contains(&w.as_str()))
        .collect()
}

/// The content words of a text as the grounding check compares them
/// (stems of their first letters).
pub fn content_stems(text: &str) -> HashSet<String> {
    content_words(text).iter().map(|w| stem(w)).collect()
}

fn stem(w: &str) -> String {
    w.chars().take(5).collect()
}
