//! Loops and copies: a reply that repeats a run of words, says a sentence
//! twice, or copies a worked example is a bad reply.
//!
//! One definition of a loop serves the grounding check, the extractive
//! fold (which never writes one) and the memory benchmark
//! (`scripts/bench/memory.py`, `loops()`): the text's words are the runs of
//! letters, digits and `_` (Python's `\w+`), lowercased, and a loop is a
//! run of [`LOOP_GRAM`] words that occurs [`LOOP_TIMES`] times or more.
//! Change the three together (a unit test reads the benchmark's numbers).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::{is_stop_word, META_WORDS};

/// The length of a repeated run of words that makes a loop.
pub const LOOP_GRAM: usize = 4;
/// How often the run must occur.
pub const LOOP_TIMES: usize = 3;

/// The byte ranges of a text's words as the loop rule counts them: runs of
/// letters, digits and `_` (`"Caroline's"` is two words, as for `\w+`).
pub fn word_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric() || c == '_', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// The lowercased words of [`word_spans`].
pub fn loop_words(text: &str) -> Vec<String> {
    word_spans(text).into_iter().map(|r| text[r].to_lowercase()).collect()
}

/// The first run of [`LOOP_GRAM`] words that occurs [`LOOP_TIMES`] times.
pub fn repeated_run(text: &str) -> Option<String> {
    let w = loop_words(text);
    let mut seen: HashMap<&[String], usize> = HashMap::new();
    for gram in w.windows(LOOP_GRAM) {
        let n = seen.entry(gram).or_default();
        *n += 1;
        if *n >= LOOP_TIMES {
            return Some(gram.join(" "));
        }
    }
    None
}

/// A loop (see the module's definition), or a sentence of four words or
/// more said twice.
pub fn looping(reply: &str) -> Option<String> {
    if let Some(run) = repeated_run(reply) {
        return Some(run);
    }
    let mut sentences = HashSet::new();
    reply
        .split(['.', '!', '?'])
        .map(|s| s.trim().to_lowercase())
        .filter(|s| s.split_whitespace().count() >= 4)
        .find(|s| !sentences.insert(s.clone()))
}

/// Writes text piece by piece so that the whole never loops: each piece
/// loses the words that would complete a run's [`LOOP_TIMES`]th occurrence
/// (every word it loses is in the text already, in that run).
#[derive(Default)]
pub struct LoopGuard {
    tail: Vec<String>,
    counts: HashMap<Vec<String>, usize>,
}

impl LoopGuard {
    /// The piece without the words that would make the text loop, counted
    /// as written; `None` when no word of it is left.
    pub fn admit(&mut self, piece: &str) -> Option<String> {
        let mut piece = piece.to_string();
        loop {
            let spans = word_spans(&piece);
            if spans.is_empty() {
                return None;
            }
            let words: Vec<String> = spans.iter().map(|r| piece[r.clone()].to_lowercase()).collect();
            let lead = self.tail.len().min(LOOP_GRAM - 1);
            let all: Vec<&String> = self.tail[self.tail.len() - lead..].iter().chain(&words).collect();
            let mut new: HashMap<Vec<String>, usize> = HashMap::new();
            let mut offending = None;
            for (j, gram) in all.windows(LOOP_GRAM).enumerate() {
                if j + LOOP_GRAM <= lead {
                    continue;
                }
                let gram: Vec<String> = gram.iter().map(|w| w.to_string()).collect();
                let n = new.entry(gram.clone()).or_default();
                *n += 1;
                if *n + self.counts.get(&gram).copied().unwrap_or(0) >= LOOP_TIMES {
                    offending = Some(j.max(lead) - lead);
                    break;
                }
            }
            let Some(k) = offending else {
                for (gram, n) in new {
                    *self.counts.entry(gram).or_default() += n;
                }
                self.tail.extend(words);
                return Some(piece);
            };
            let end = spans.get(k + 1).map_or(spans[k].end, |next| next.start);
            piece.replace_range(spans[k].start..end, "");
        }
    }
}

/// A run of four words of a worked example that the reply has, with a
/// content word its sources do not have ("the user asked how" is the form
/// the examples teach; "cron's minimal PATH must" is their content).
pub fn copied(reply: &[String], example: &[String], source_words: &HashSet<String>) -> Option<String> {
    let grams: HashSet<&[String]> = example.windows(4).collect();
    reply
        .windows(4)
        .find(|g| {
            grams.contains(g)
                && g.iter().any(|w| !source_words.contains(w) && !is_stop_word(w) && !META_WORDS.contains(&w.as_str()))
        })
        .map(|g| g.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_counted_as_the_benchmark_counts_them() {
        assert_eq!(
            loop_words("Caroline's well-being, snake_case 70%!"),
            ["caroline", "s", "well", "being", "snake_case", "70"]
        );
    }

    #[test]
    fn the_benchmark_shares_the_definition() {
        let bench = include_str!("../../../scripts/bench/memory.py");
        let def = format!("def loops(text, n={LOOP_GRAM}, times={LOOP_TIMES}):");
        assert!(bench.contains(&def), "scripts/bench/memory.py must define `{def}`");
        assert!(bench.contains(r#"re.findall(r"\w+", text.lower())"#), "the benchmark's words are \\w+");
    }

    #[test]
    fn a_run_said_three_times_is_a_loop_also_across_apostrophes() {
        // `words` keeps "caroline's" whole; the loop rule splits it as \w+ does.
        let r = "Caroline's plan was good. Caroline's plan was bold. Caroline's plan was new.";
        assert_eq!(repeated_run(r).as_deref(), Some("caroline s plan was"));
        assert_eq!(repeated_run("Caroline's plan was good. Caroline's plan was bold."), None);
        assert!(looping("They went to the lake. They went to the lake.").is_some(), "a sentence said twice");
    }

    #[test]
    fn the_guard_drops_only_the_words_that_complete_a_loop() {
        let mut g = LoopGuard::default();
        let pieces = [
            "Caroline told Melanie that she went to a support group.",
            "Caroline told Melanie that she is researching adoption.",
            "Caroline told Melanie that she paints sunsets.",
        ];
        let out: Vec<String> = pieces.iter().filter_map(|p| g.admit(p)).collect();
        assert_eq!(out[..2], pieces[..2]);
        assert_eq!(out[2], "Melanie that she paints sunsets.");
        assert_eq!(repeated_run(&out.join(" ")), None, "{out:?}");
        assert_eq!(g.admit("?!"), None, "a piece without words");
    }

    #[test]
    fn the_guard_counts_runs_across_pieces() {
        let mut g = LoopGuard::default();
        let out: Vec<String> = ["a photo of", "a dog", "a photo of", "a dog", "a photo of", "a dog"]
            .iter()
            .filter_map(|p| g.admit(p))
            .collect();
        let text = out.join(" ");
        assert_eq!(repeated_run(&text), None, "{text}");
        assert!(text.starts_with("a photo of a dog a photo of a dog"), "{text}");
    }
}
