//! Who did what: a sentence whose every word its sources have can still
//! join words they keep apart. SmolLM2-135M, decoding with a turn's own
//! words, wrote "cron always encrypts" of "restic always encrypts; keep the
//! password in a root-only file … so cron can run unattended", and "oven
//! temperature can be a 20-25 minutes" of a turn that said "250 C" and
//! "20-25 minutes" of different things. Both pass every word-level check.
//!
//! The relation check reads a sentence's content words clause by clause
//! and asks, for each two next to each other, whether some line of the
//! sources has them close together (within [`WINDOW`] words), or one is
//! the speaker who said the line the other is in ("Caroline: I went to a
//! support group" supports "Caroline went to a support group"). A sentence
//! that joins more than a quarter of its pairs against the sources says
//! something they do not.

use std::collections::HashSet;

use super::{content_words, stem};

/// Two words of a source line this close or closer may be said of each
/// other.
const WINDOW: usize = 10;

/// Words that end a clause: the words on either side of one need not be
/// related.
const CLAUSE_WORDS: &[&str] = &[
    "and", "but", "so", "then", "while", "because", "which", "that", "who", "when", "where", "after", "before", "or",
    "if", "until", "since", "though", "although", "whether",
];

/// One line of the sources: its speaker's stems, if it has a "Name:"
/// label, and the stems of its content words with their places.
struct Line {
    speaker: HashSet<String>,
    stems: Vec<(usize, String)>,
}

/// The sources, read once for the relation check.
pub struct Relations {
    lines: Vec<Line>,
}

impl Relations {
    pub fn new(sources: &[&str]) -> Self {
        let lines = sources
            .iter()
            .flat_map(|s| s.lines())
            .map(|line| {
                let (speaker, text) = match crate::pipeline::digest::speaker_label(line) {
                    Some((who, rest)) => (content_words(who).iter().map(|w| stem(w)).collect(), rest),
                    None => (HashSet::new(), line),
                };
                let stems = crate::text::words(text)
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| content_words(w).len() == 1)
                    .map(|(i, w)| (i, stem(w)))
                    .collect();
                Line { speaker, stems }
            })
            .collect();
        Relations { lines }
    }

    fn related(&self, a: &str, b: &str) -> bool {
        a == b
            || self.lines.iter().any(|line| {
                let at =
                    |s: &str| -> Vec<usize> { line.stems.iter().filter(|(_, t)| t == s).map(|(i, _)| *i).collect() };
                let (ia, ib) = (at(a), at(b));
                (line.speaker.contains(a) && !ib.is_empty())
                    || (line.speaker.contains(b) && !ia.is_empty())
                    || ia.iter().any(|i| ib.iter().any(|j| i.abs_diff(*j) <= WINDOW))
            })
    }

    /// The pairs of next-to-each-other content words of `sentence` (in
    /// one clause) that no line of the sources relates, and how many
    /// pairs it has.
    pub fn unrelated(&self, sentence: &str) -> (Vec<(String, String)>, usize) {
        let mut pairs = 0;
        let mut unrelated = Vec::new();
        for clause in clauses(sentence) {
            for two in clause.windows(2) {
                pairs += 1;
                if !self.related(&stem(&two[0]), &stem(&two[1])) {
                    unrelated.push((two[0].clone(), two[1].clone()));
                }
            }
        }
        (unrelated, pairs)
    }

    /// Why a sentence cannot be kept: it joins more than a quarter of its
    /// pairs of words against the sources.
    pub fn fault(&self, sentence: &str) -> Option<String> {
        let (unrelated, pairs) = self.unrelated(sentence);
        (!unrelated.is_empty() && unrelated.len() * 4 > pairs).then(|| {
            let shown: Vec<String> = unrelated.iter().map(|(a, b)| format!("{a} … {b}")).collect();
            format!("the sentence joins what its sources keep apart: {}", shown.join(", "))
        })
    }
}

/// The content words of a sentence, clause by clause: cut at punctuation
/// inside the sentence and at the words that join clauses.
fn clauses(sentence: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for chunk in sentence.split([',', ';', ':', '(', ')', '—']) {
        let mut clause = Vec::new();
        for w in crate::text::words(chunk) {
            if CLAUSE_WORDS.contains(&w.as_str()) {
                out.push(std::mem::take(&mut clause));
            } else if content_words(&w).len() == 1 && !crate::pipeline::digest::is_glue(&w) {
                clause.push(w);
            }
        }
        out.push(clause);
    }
    out.retain(|c| c.len() > 1);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESTIC: &str = "Should the restic repository be encrypted if the disk stays at home?\n\
        restic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended.";
    const BREAD: &str = "How long should I bake it and at what temperature?\n\
        Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown.";

    #[test]
    fn a_sentence_that_keeps_its_sources_relations_passes() {
        let r = Relations::new(&[RESTIC]);
        for ok in [
            "The user asked whether the restic repository should be encrypted; the assistant said restic always encrypts.",
            "The assistant said to keep the password in a root-only file with --password-file.",
        ] {
            assert_eq!(r.fault(ok), None, "{ok}");
        }
        let r = Relations::new(&[BREAD]);
        let ok = "The assistant said to bake in a preheated Dutch oven at 250 C, then 20-25 minutes at 230 C.";
        assert_eq!(r.fault(ok), None);
    }

    #[test]
    fn a_sentence_that_joins_what_its_sources_keep_apart_is_refused() {
        let r = Relations::new(&[RESTIC]);
        let why = r.fault("The assistant explained that cron always encrypts the password.").expect("refused");
        assert!(why.contains("cron … "), "{why}");
        let r = Relations::new(&[BREAD]);
        assert!(r.fault("The user asked how long to bake it; oven temperature can be a 20-25 minutes.").is_some());
    }

    #[test]
    fn a_speaker_is_related_to_what_their_line_says() {
        let turn =
            "Caroline: I went to a LGBTQ support group yesterday and it was so powerful, the stories moved me.\n\
            Melanie: Wow, that's cool! I painted a lake sunrise last year.";
        let r = Relations::new(&[turn]);
        assert_eq!(r.fault("Caroline went to an LGBTQ support group yesterday."), None);
        assert_eq!(r.fault("Melanie painted a lake sunrise last year."), None);
        assert!(r.fault("Melanie went to a support group; Caroline painted a lake sunrise.").is_some());
    }

    #[test]
    fn a_clause_is_read_on_its_own() {
        assert_eq!(
            clauses("The backup runs nightly, and restic checks the repository weekly."),
            vec![
                vec!["backup".to_string(), "runs".into(), "nightly".into()],
                vec!["restic".into(), "checks".into(), "repository".into(), "weekly".into()]
            ]
        );
    }
}
