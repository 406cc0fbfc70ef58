//! The model's merge verdict: the token a trusted model answers on a topic
//! shift (the prompt sentence that asks for it is in `prompts::merge`) and
//! the parser that recognises it. The verdict is one vote of the segmenter
//! (`segment`), asked for only when the model can be trusted with it.

use crate::llm::clean::is_no_merge;

/// What a trusted model replies instead of a summary on a topic shift.
pub const TOKEN: &str = "NO_MERGE";

/// The merge verdict: the reply is NO_MERGE alone, or NO_MERGE as its own
/// first sentence followed by an explanation ("NO_MERGE. The new turn is
/// about cooking."), which small models often add. A summary that merely
/// mentions NO_MERGE inside a sentence is not a verdict.
pub fn is_topic_shift(reply: &str) -> bool {
    if is_no_merge(reply) {
        return true;
    }
    match reply.find(['.', '\n', ':', '!', ';']) {
        Some(end) => is_no_merge(&reply[..end]),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_topic_shift;

    #[test]
    fn verdict_alone_or_as_first_sentence_is_a_shift() {
        for yes in [
            "NO_MERGE",
            "**NO_MERGE**",
            "no_merge.",
            "NO_MERGE. The new turn is about cooking.",
            "NO_MERGE\nBecause...",
        ] {
            assert!(is_topic_shift(yes), "{yes}");
        }
    }

    #[test]
    fn a_mention_inside_a_sentence_is_not_a_shift() {
        for no in [
            "NO_MERGE is not needed; the user continued with Rust.",
            "The user asked whether NO_MERGE applies. The assistant said no.",
            "They discussed merges.",
        ] {
            assert!(!is_topic_shift(no), "{no}");
        }
    }
}
