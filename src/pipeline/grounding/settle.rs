//! When a reply being written is already decided: the local backend stops
//! writing it there (see [`crate::llm::Settled`]).

use std::sync::Arc;

use super::{Acceptance, Grounds};
use crate::llm::clean::clean_reply;
use crate::llm::{Settled, Strain};
use crate::pipeline::tidy;

/// The [`Settled`] of a reply that will be cleaned, tidied to at most
/// `max_sentences` (as [`tidy::tidy`]) and checked against `sources`: its
/// complete sentences, made into the text that would be stored, decide it
///
/// - when they have a [lasting fault](Grounds::lasting_fault): the reply
///   is refused whatever follows;
/// - when they are `max_sentences`: tidying keeps no more.
///
/// So the stored outcome is the same as if the model had written on. The
/// sentences of the reply so far are the first sentences of the whole, so
/// cleaned and tidied they are the start of the whole's text, except
/// around markup: a closing reasoning tag drops what came before it, and
/// quotes or bold around the whole reply come off. A reply with `<`
/// or not starting with a letter or digit is therefore written to the end.
pub fn settle(sources: &[&str], examples: &[&str], max_sentences: Option<usize>) -> Settled {
    let grounds = Grounds::new(sources, examples);
    Settled(Arc::new(move |so_far: &str, _| {
        if so_far.contains('<') || !so_far.trim_start().starts_with(char::is_alphanumeric) {
            return None;
        }
        let text = tidy::tidy(&clean_reply(so_far), max_sentences);
        if let Some(fault) = grounds.lasting_fault(&text) {
            return Some(fault);
        }
        max_sentences
            .filter(|&n| tidy::sentences(&text).len() >= n)
            .map(|n| format!("the {n} sentence(s) that are kept are written"))
    }))
}

/// The [`Settled`] of a reply whose sentences are accepted one by one
/// ([`Acceptance::keep`]): decided once `good` of its complete sentences
/// pass (and, with `max_strain`, were not forced out of the model beyond
/// it: [`strained`]), or once it has `max_sentences`.
pub fn settle_kept(acceptance: Arc<Acceptance>, good: usize, max_sentences: usize, max_strain: Option<f32>) -> Settled {
    Settled(Arc::new(move |so_far: &str, strain| {
        if so_far.contains('<') || !so_far.trim_start().starts_with(char::is_alphanumeric) {
            return None;
        }
        let text = tidy::tidy(&clean_reply(so_far), None);
        let sentences = tidy::sentences(&text);
        let free = |s: &&str| max_strain.is_none_or(|max| strained(strain, s, max).is_none());
        let ok = sentences.iter().filter(|s| acceptance.fault(s).is_none() && free(s)).count();
        if ok >= good {
            return Some(format!("{ok} good sentence(s) are written"));
        }
        (sentences.len() >= max_sentences).then(|| format!("{max_sentences} sentences are written"))
    }))
}

/// The mean cost of `sentence`'s tokens ([`Strain::of`]) where it is more
/// than `max`: the model was made to write it.
pub fn strained(strain: Option<&Strain>, sentence: &str, max: f32) -> Option<f32> {
    strain.and_then(|st| st.of(sentence)).filter(|&cost| cost > max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: &str =
        "User: How should I back up /srv every night?\nAssistant: Use restic from a cron job to a USB disk.";

    fn settled(s: &Settled, text: &str) -> Option<String> {
        (s.0)(text, None)
    }

    #[test]
    fn a_reply_is_settled_by_a_fault_no_continuation_undoes() {
        let s = settle(&[TURN], &[], None);
        assert_eq!(settled(&s, "The user asked how to back up /srv. "), None);
        let why = settled(&s, "The user asked how to back up /srv. Restic was suggested by Melanie. ").unwrap();
        assert!(why.contains("Melanie"), "{why}");
        // What the caller checks of the whole reply fails for the same reason.
        let whole =
            "The user asked how to back up /srv. Restic was suggested by Melanie. It runs from cron to a USB disk.";
        assert_eq!(super::super::check(whole, &[TURN], &[]), Some(why));
    }

    #[test]
    fn a_fault_of_the_whole_that_more_text_may_cure_settles_nothing() {
        // Only a question so far: the next sentence may tell.
        let s = settle(&[TURN], &[], None);
        assert_eq!(settled(&s, "How should /srv be backed up every night? "), None);
    }

    #[test]
    fn a_reply_is_settled_once_it_has_the_sentences_that_are_kept() {
        let s = settle(&[TURN], &[], Some(2));
        assert_eq!(settled(&s, "The user asked how to back up /srv. "), None);
        // A repeated sentence is dropped by tidying, so it does not count.
        assert_eq!(settled(&s, "The user asked how to back up /srv. The user asked how to back up /srv. "), None);
        assert!(settled(&s, "The user asked how to back up /srv. The assistant suggested restic. ").is_some());
    }

    #[test]
    fn a_kept_reply_is_settled_by_its_good_sentences_not_its_first_fault() {
        let s = settle_kept(Arc::new(Acceptance::new(&[TURN], &[], &[], None)), 1, 3, None);
        assert_eq!(settled(&s, "Restic was suggested by Melanie. "), None, "a bad first sentence decides nothing");
        assert!(settled(&s, "Restic was suggested by Melanie. Restic runs from cron to a USB disk. ").is_some());
        assert!(settled(&s, "Melanie. Bob. Alice. ").is_some(), "three sentences end it");
    }

    #[test]
    fn a_good_sentence_the_model_was_forced_into_does_not_settle_a_reply() {
        let s = settle_kept(Arc::new(Acceptance::new(&[TURN], &[], &[], None)), 1, 3, Some(0.5));
        let first = "Restic runs from cron to a USB disk. ";
        let mut strain = Strain::default();
        strain.push(first, 1.5);
        assert_eq!((s.0)(first, Some(&strain)), None, "the model writes on");
        let second = "Use restic from a cron job. ";
        strain.push(second, 0.1);
        assert!((s.0)(&format!("{first}{second}"), Some(&strain)).is_some());
        // Unstrained, or with no limit, the first sentence settles it.
        assert!((s.0)(first, None).is_some());
        let unlimited = settle_kept(Arc::new(Acceptance::new(&[TURN], &[], &[], None)), 1, 3, None);
        let mut forced = Strain::default();
        forced.push(first, 1.5);
        assert!((unlimited.0)(first, Some(&forced)).is_some());
    }

    #[test]
    fn markup_or_a_wrapped_reply_is_written_to_the_end() {
        let s = settle(&[TURN], &[], None);
        assert!(settled(&s, "Restic, says Melanie. ").is_some());
        assert_eq!(settled(&s, "Restic, says Melanie.</think> The user asked about /srv. "), None);
        assert_eq!(settled(&s, "\"Restic, says Melanie. "), None);
        assert_eq!(settled(&s, "**Restic, says Melanie. "), None);
    }
}
