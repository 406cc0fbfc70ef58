//! Last touches on a cleaned summary before it is stored. Small models
//! loop: the same sentence again and again until max_tokens. A repeated
//! sentence carries nothing, so only its first occurrence is kept, and an
//! L2 is held to the two sentences it was asked for (at most).

/// Split into sentences at `.`, `!` or `?` followed by whitespace
/// ([`crate::llm::ends_sentence`]); the last piece may be unterminated.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if crate::llm::ends_sentence(bytes, i) {
            let s = text[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + 1;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

fn key(sentence: &str) -> String {
    sentence.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Drop sentences that repeat an earlier one (ignoring case and
/// punctuation); keep at most `max_sentences` when given.
pub fn tidy(text: &str, max_sentences: Option<usize>) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<&str> = Vec::new();
    for s in sentences(text) {
        if seen.insert(key(s)) {
            kept.push(s);
        }
    }
    if let Some(n) = max_sentences {
        kept.truncate(n.max(1));
    }
    kept.join(" ")
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn repeated_sentences_are_kept_once() {
        let looped = "The user asked how long to bake it. The user asked how long to bake it. \
                      The user asked how long to bake it. The assistant said 40 minutes. the user asked how long to bake it";
        assert_eq!(tidy(looped, None), "The user asked how long to bake it. The assistant said 40 minutes.");
    }

    #[test]
    fn an_l2_keeps_at_most_two_sentences() {
        let t = "The user asked about X. The assistant explained Y. Then it added Z. And more.";
        assert_eq!(tidy(t, Some(2)), "The user asked about X. The assistant explained Y.");
    }

    #[test]
    fn text_without_repeats_is_unchanged() {
        let t = "Version 1.2 of the tool was discussed. It works, e.g. on Linux!";
        assert_eq!(tidy(t, None), t);
    }
}
