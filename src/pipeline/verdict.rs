//! The merge protocol, whole: the token a trusted model answers instead
//! of a merged summary when the new material is about a different topic,
//! the prompt sentence that asks for it (`prompts::merge` appends it), and
//! the parser that recognises the answer. The verdict is one vote of the
//! segmenter (`segment`), asked for only when the model can be trusted
//! with it; everywhere else (an L2, a fresh summary, an untrusted merge) a
//! reply that is the verdict is a bad reply.

/// What a trusted model replies instead of a summary on a topic shift.
pub const TOKEN: &str = "NO_MERGE";

/// The sentence of a merge prompt that asks for the verdict; `items` names
/// the new material ("new turns", "new session summaries").
pub fn request(items: &str) -> String {
    format!("If the {items} are about a different topic, reply with exactly {TOKEN} and nothing else.")
}

/// The merge verdict: the reply is the token alone, or the token as its
/// own first sentence followed by an explanation ("NO_MERGE. The new turn
/// is about cooking."), which small models often add. A summary that
/// merely mentions NO_MERGE inside a sentence is not a verdict.
pub fn is_topic_shift(reply: &str) -> bool {
    if is_no_merge(reply) {
        return true;
    }
    match reply.find(['.', '\n', ':', '!', ';']) {
        Some(end) => is_no_merge(&reply[..end]),
        None => false,
    }
}

/// True when the text is the single token (any case, `NO MERGE` and
/// `NO-MERGE` too), ignoring surrounding punctuation and markdown.
pub fn is_no_merge(text: &str) -> bool {
    let core = text.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
    let Some(rest) = core.strip_prefix("no") else {
        return false;
    };
    let Some(sep) = rest.strip_suffix("merge") else {
        return false;
    };
    sep.chars().all(|c| c == '_' || c == '-' || c.is_whitespace())
}

#[cfg(test)]
mod tests {
    //! One set: what the token looks like, which replies are the verdict
    //! (the token alone, or as the first sentence), which are summaries
    //! that mention it, and that the prompt asks for what the parser reads.

    use super::*;
    use crate::llm::clean::clean_reply;
    use crate::pipeline::prompts::{merge, Scope};

    #[test]
    fn the_token_alone_in_any_dress_is_the_token() {
        for s in [
            "NO_MERGE",
            "no_merge",
            "NO_MERGE.",
            "no_merge.",
            "**NO_MERGE**",
            "\"NO_MERGE.\"",
            "`NO_MERGE`",
            "NO MERGE",
            "No-Merge",
            " NO_MERGE\n",
        ] {
            assert!(is_no_merge(s), "{s:?}");
            assert!(is_topic_shift(s), "{s:?}");
        }
        assert!(is_no_merge(&clean_reply("<think>different topic</think>\n\nNO_MERGE<|im_end|>")));
    }

    #[test]
    fn text_around_the_token_is_not_the_token() {
        for s in [
            "The user asked what NO_MERGE means in the prompt.",
            "NO_MERGE was discussed.",
            "NO_MERGE. The new turn is about cooking.",
            "MERGE",
            "NO",
            "",
        ] {
            assert!(!is_no_merge(s), "{s:?}");
        }
    }

    #[test]
    fn the_token_as_the_first_sentence_is_the_verdict() {
        // Not the token alone (above), but the verdict with its reason.
        for yes in
            ["NO_MERGE. The new turn is about cooking.", "NO_MERGE\nBecause...", "no_merge: new topic", "**no_merge.**"]
        {
            assert!(is_topic_shift(yes), "{yes}");
        }
    }

    #[test]
    fn a_mention_inside_a_sentence_is_not_the_verdict() {
        for no in [
            "NO_MERGE is not needed; the user continued with Rust.",
            "The user asked whether NO_MERGE applies. The assistant said no.",
            "The user asked what NO_MERGE means in the prompt.",
            "NO_MERGE was discussed.",
            "They discussed merges.",
            "MERGE",
            "NO",
            "",
        ] {
            assert!(!is_topic_shift(no), "{no}");
        }
    }

    #[test]
    fn the_merge_prompt_asks_a_trusted_model_for_what_the_parser_reads() {
        let items = ["The user asked about lifetimes."];
        let asked = merge(Scope::Session, "They discussed Rust.", &items, 3000, true, 40);
        let text = &asked.last().unwrap().content;
        assert!(text.contains("NO_MERGE"));
        assert!(text.ends_with(&request("new turns")), "{text}");
        let quiet = merge(Scope::Session, "They discussed Rust.", &items, 3000, false, 40);
        assert!(!quiet.iter().any(|m| m.content.contains("NO_MERGE")), "not asked of an untrusted model");
        // The reply the sentence asks for ("exactly NO_MERGE") is the verdict.
        assert!(is_topic_shift(TOKEN));
    }
}
