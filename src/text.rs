//! Plain-text rules shared by the pipeline, search and the context block:
//! lowercase words, English stop words, and cutting a long text to length
//! with its head and tail kept.

#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these",
    "those", "i", "you", "he", "she", "we", "they", "me", "my", "your", "our", "their", "his", "her", "them",
    "us", "do", "does", "did", "done", "have", "has", "had", "not", "no", "yes", "can", "could", "would",
    "should", "will", "shall", "may", "might", "must", "just", "also", "very", "really", "what", "which", "who",
    "whom", "whose", "when", "where", "why", "how", "there", "here", "about", "into", "over", "under", "up",
    "down", "out", "than", "too", "more", "most", "some", "any", "all", "each", "other", "such", "only", "own",
    "same", "few", "much", "many", "well", "oh", "ok", "okay", "like", "get", "got", "go", "going", "know",
    "think", "want", "need", "make", "sure", "thanks", "thank", "hi", "hello", "please", "im", "dont", "it's",
    "that's", "i'm", "don't", "can't", "let", "one", "way", "new", "use",
];

/// Lowercase words (letters, digits and `_'-` inside).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || ((c == '_' || c == '\'' || c == '-') && !cur.is_empty()) {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur).trim_end_matches(['\'', '-', '_']).to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur.trim_end_matches(['\'', '-', '_']).to_string());
    }
    out
}

/// The words of a text as written (case kept), without the punctuation
/// around them: `/srv`, `--password-file`, `EMAIL_PORT`, `don't`.
pub fn written_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '/' | '~' | '-' | '_' | '$' | '%')))
        .map(|w| w.trim_end_matches(['-', '/']))
        .filter(|w| !w.is_empty())
}

/// A word with its first letter upper-case.
pub fn capitalized(w: &str) -> String {
    let mut c = w.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// A common English word that says nothing about the topic.
pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.contains(&w)
}

/// Cut text to at most `max` characters, keeping the beginning and the end
/// (a session's opening intent matters) with a visible marker between.
pub fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let marker_len = 40;
    let keep = max.saturating_sub(marker_len);
    let head = keep * 2 / 3;
    let tail = keep - head;
    let omitted = n - head - tail;
    let h: String = text.chars().take(head).collect();
    let t: String = text.chars().skip(n - tail).collect();
    format!("{h} […{omitted} characters omitted…] {t}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_head_and_tail_and_marks_the_cut() {
        let text: String = (0..1000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let c = cut(&text, 200);
        assert!(c.starts_with(&text[..100]));
        assert!(c.ends_with(&text[text.len() - 50..]));
        assert!(c.contains("characters omitted"));
        assert!(c.chars().count() <= 200 + 10);
        assert_eq!(cut("short", 200), "short");
    }

    #[test]
    fn written_words_keep_case_and_identifiers_but_not_the_punctuation_around() {
        let w: Vec<&str> = written_words("Run `restic check` (weekly), set EMAIL_PORT=587; see /srv/data/.").collect();
        assert_eq!(w, ["Run", "restic", "check", "weekly", "set", "EMAIL_PORT=587", "see", "/srv/data"]);
        assert_eq!(capitalized("émile"), "Émile");
    }

    #[test]
    fn cut_is_char_safe() {
        let text = "é".repeat(500);
        let c = cut(&text, 100);
        assert!(c.contains("omitted"));
    }
}
