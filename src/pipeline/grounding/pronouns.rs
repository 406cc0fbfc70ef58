//! A pronoun where the turn names the thing. An L2 stands alone: nothing
//! before it says what "it" is. SmolLM2-135M wrote "The user wants to run
//! it weekly" of "Run restic check weekly", which keeps every other word
//! and passes every other check, and the one thing the turn was about is
//! gone.
//!
//! The check reads each "it" or "them" of a sentence with the words on
//! either side ("run … weekly") and looks for the same two words in a line
//! of the turn with one to [`GAP`] words between them, a content word
//! among them ("Run restic check weekly"). When the turn has them so and
//! never with the pronoun between, and the sentence has not named those
//! words before the pronoun, the pronoun stands for what the turn named.

use std::collections::HashSet;

use super::{is_stop_word, stem, words};

/// At most this many words a pronoun may stand for.
const GAP: usize = 3;

const PRONOUNS: &[&str] = &["it", "them"];

/// The turn's lines, as lowercase words, read once.
pub struct Named {
    lines: Vec<Vec<String>>,
}

impl Named {
    pub fn new(sources: &[&str]) -> Self {
        let lines = sources.iter().flat_map(|s| s.lines()).map(words).filter(|l| !l.is_empty()).collect();
        Named { lines }
    }

    /// What a pronoun of `sentence` stands for, when the turn names it and
    /// the sentence does not ("restic check" of "run it weekly").
    pub fn unnamed(&self, sentence: &str) -> Option<String> {
        let ws = words(sentence);
        for i in 1..ws.len().saturating_sub(1) {
            if !PRONOUNS.contains(&ws[i].as_str()) {
                continue;
            }
            let (prev, next) = (stem(&ws[i - 1]), stem(&ws[i + 1]));
            let before: HashSet<String> = ws[..i].iter().map(|w| stem(w)).collect();
            let mut as_said = false;
            let mut stood_for = None;
            for line in &self.lines {
                for (j, w) in line.iter().enumerate() {
                    if stem(w) != prev {
                        continue;
                    }
                    for k in j + 2..line.len().min(j + 2 + GAP) {
                        if stem(&line[k]) != next {
                            continue;
                        }
                        let between = &line[j + 1..k];
                        if between.iter().any(|b| PRONOUNS.contains(&b.as_str())) {
                            as_said = true;
                        } else if between.iter().any(|b| !is_stop_word(b) && !before.contains(&stem(b))) {
                            stood_for.get_or_insert_with(|| between.join(" "));
                        }
                    }
                }
            }
            if let (false, Some(thing)) = (as_said, stood_for) {
                return Some(thing);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: &str = "How do I check that the backups can actually be restored?\n\
        Run restic check weekly and do a test restore of one folder into /tmp each month, comparing it with diff -r.";

    #[test]
    fn a_pronoun_for_what_the_turn_names_is_found() {
        let named = Named::new(&[TURN]);
        assert_eq!(
            named
                .unnamed("The user wants to run it weekly and do a test on one folder into /tmp each month.")
                .as_deref(),
            Some("restic check")
        );
    }

    #[test]
    fn a_pronoun_the_turn_says_too_or_the_sentence_names_first_is_no_fault() {
        let named = Named::new(&[TURN]);
        // The turn says "comparing it with" itself.
        assert_eq!(named.unnamed("The assistant suggested comparing it with diff -r."), None);
        // The sentence names restic check before "it".
        assert_eq!(named.unnamed("Restic check matters, so the assistant said to run it weekly."), None);
        // No pronoun, or one at the sentence's end.
        assert_eq!(named.unnamed("The assistant said to run restic check weekly."), None);
        assert_eq!(named.unnamed("The user asked how to check it."), None);
    }
}
