//! The checkable terms of a text (numbers, identifiers, names), whether
//! sources support them, and the key terms of a segment.

use std::collections::HashSet;

use super::{is_stop_word, words, META_WORDS};

/// A term is supported when the sources contain it as a word, or (for
/// terms with punctuation: paths, flags, numbers with units) as text.
pub(super) fn supported(term: &str, source_lower: &str, source_words: &HashSet<String>) -> bool {
    let t = term.to_lowercase();
    if source_words.contains(&t) {
        return true;
    }
    // A name's possessive is the name: "Caroline's" of a turn that says
    // "Caroline" (decoding held to the turn's words writes it so).
    if let Some(base) = possessive_base(&t) {
        return supported(base, source_lower, source_words);
    }
    if t.chars().any(|c| !c.is_alphanumeric()) && source_lower.contains(&t) {
        return true;
    }
    // A number is supported by the same digits: "70" by "70%", "1,000" by "1000".
    if t.chars().any(|c| c.is_ascii_digit()) {
        let digits: String = t.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
        let digits = digits.trim_matches('.');
        return !digits.is_empty() && source_numbers(source_lower).contains(digits);
    }
    false
}

/// The word a possessive or "'s" contraction is made of: "caroline" of
/// "caroline's", "she" of "she's"; None for any other word.
pub(super) fn possessive_base(w: &str) -> Option<&str> {
    w.strip_suffix("'s").or_else(|| w.strip_suffix("’s")).filter(|b| !b.is_empty())
}

fn source_numbers(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() || (c == '.' && !cur.is_empty()) {
            cur.push(c);
        } else if c == ',' && !cur.is_empty() {
            // thousands separator: keep going
        } else if !cur.is_empty() {
            out.insert(std::mem::take(&mut cur).trim_matches('.').to_string());
        }
    }
    if !cur.is_empty() {
        out.insert(cur.trim_matches('.').to_string());
    }
    out
}

/// The checkable terms of a text: numbers, identifiers and names. Names
/// are capitalised words that do not start a sentence.
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |t: &str| {
        // A leading dot is part of the name (".github/workflows/ci.yml",
        // ".env"); a trailing one ends the sentence.
        const MARKS: &str = ",;:!?()[]{}<>\"'`«»“”‘’。，、；：！？（）";
        let t =
            t.trim_start_matches(|c: char| MARKS.contains(c)).trim_end_matches(|c: char| MARKS.contains(c) || c == '.');
        if !t.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(t)) {
            out.push(t.to_string());
        }
    };
    for quoted in between(text, '`').into_iter().chain(between(text, '"')) {
        if quoted.chars().count() <= 60 && !quoted.trim().is_empty() {
            push(quoted.trim());
        }
    }
    let mut sentence_start = true;
    for raw in text.split_whitespace() {
        let token = raw.trim_matches(|c: char| ",;:!?()[]{}<>\"'`«»“”‘’。，、；：！？（）".contains(c));
        let bare = without_line_number(token.trim_end_matches('.'));
        let name = !sentence_start && is_name(bare);
        if is_identifier(bare) || bare.chars().any(|c| c.is_ascii_digit()) || name {
            push(bare);
        }
        sentence_start = raw.ends_with(['.', '!', '?', ':']) || raw.ends_with(".\"");
    }
    out
}

/// A word without the line number `grep -n` and compilers put before it
/// ("31:EMAIL_HOST" is `EMAIL_HOST` on line 31): the number is where it
/// was found, not part of its name. A time ("10:30") keeps its digits.
fn without_line_number(token: &str) -> &str {
    match token.split_once(':') {
        Some((n, rest))
            if !n.is_empty()
                && n.chars().all(|c| c.is_ascii_digit())
                && rest.starts_with(|c: char| c.is_alphabetic() || matches!(c, '_' | '/' | '.')) =>
        {
            rest
        }
        _ => token,
    }
}

fn between(text: &str, quote: char) -> Vec<&str> {
    let pairs = text.matches(quote).count() / 2;
    text.split(quote).skip(1).step_by(2).take(pairs).collect()
}

/// Paths, flags, URLs, snake_case, CamelCase, dotted names, ALL-CAPS.
fn is_identifier(t: &str) -> bool {
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    if t.chars().count() < 2 {
        return false;
    }
    t.contains("://")
        || (t.starts_with('/') && letters > 0)
        || t.starts_with("--")
        || (t.starts_with('-') && t.len() == 2 && letters == 1)
        || (t.contains('_') && letters > 0)
        || (t.contains('/') && letters > 0 && !t.contains(' '))
        || (t.contains('.') && t.split('.').all(|p| !p.is_empty()) && letters > 0 && !t.ends_with('.'))
        || is_camel(t)
        || (letters >= 2 && t.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()) && !is_chat_shorthand(t))
}

/// Chat shorthand written in capitals ("BTW", "OMG", "TBH"): an
/// interjection or an aside, not a name or an identifier.
const CHAT_SHORTHAND: &[&str] = &[
    "btw", "fyi", "omg", "lol", "lmao", "rofl", "tbh", "imo", "imho", "idk", "brb", "ttyl", "jk", "np", "thx", "ty",
    "pls", "plz", "smh", "afaik", "iirc", "ikr", "ok",
];

fn is_chat_shorthand(t: &str) -> bool {
    CHAT_SHORTHAND.contains(&t.to_lowercase().as_str())
}

/// An identifier as code writes it: a flag (`--password-file`), a path or
/// URL, a snake_case or dotted name (`EMAIL_PORT`, `settings.py`); not a
/// capitalised or ALL-CAPS word, which prose has too.
pub(super) fn is_code_identifier(t: &str) -> bool {
    is_identifier(t)
        && t.chars().any(char::is_alphabetic)
        && (t.starts_with("--") || ["://", "/", "_", "."].iter().any(|p| t.contains(p)))
}

/// Whether a word is written as code is (`ci.yml`, `--password-file`,
/// `EMAIL_PORT`, `eBay`): its case is part of it, so a clause that starts
/// with it keeps it as written rather than capitalised.
pub fn keeps_its_case(word: &str) -> bool {
    let t = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    // A word that starts upper case is the same capitalised: only a
    // lower-case start with a capital after it ("eBay", "sendMail") says so.
    let lower_then_upper = t.chars().next().is_some_and(char::is_lowercase) && t.chars().any(char::is_uppercase);
    is_code_identifier(t) || lower_then_upper
}

fn is_camel(t: &str) -> bool {
    let chars: Vec<char> = t.chars().collect();
    chars.iter().all(|c| c.is_alphanumeric())
        && chars.windows(2).skip(1).any(|w| w[0].is_lowercase() && w[1].is_uppercase())
}

/// A capitalised word (not "I", not a word every summary starts with).
fn is_name(t: &str) -> bool {
    let mut chars = t.chars();
    let Some(first) = chars.next() else { return false };
    if !first.is_uppercase() || t.chars().count() < 2 || !t.chars().all(|c| c.is_alphabetic() || c == '\'' || c == '-')
    {
        return false;
    }
    let lower = t.to_lowercase();
    // "I've", "I'd", "I'll" are the speaker, however the stop list spells them.
    let speaker = lower.split_once('\'').is_some_and(|(head, _)| head == "i");
    !(speaker || is_stop_word(&lower) || META_WORDS.contains(&lower.as_str()) || is_chat_shorthand(t))
}

/// The identifiers and names of a segment's turns, in order of first
/// appearance, at most `max`: what keyword search must find even when the
/// prose dropped it.
pub fn key_terms<'a>(texts: impl IntoIterator<Item = &'a str>, max: usize) -> Vec<String> {
    let owned: Vec<String> = texts.into_iter().map(without_tool_markers).collect();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut out: Vec<String> = Vec::new();
    let push = |t: String, out: &mut Vec<String>| {
        if out.len() < max
            && t.chars().count() <= 80
            && !is_empty_term(&t)
            && !out.iter().any(|o| o.eq_ignore_ascii_case(&t))
        {
            out.push(t);
        }
    };
    // The words the turns keep coming back to (a tool's name in lower
    // case, the dish, the library): content words said three times or more.
    let mut counts: Vec<(String, usize)> = Vec::new();
    for w in texts.iter().flat_map(|t| words(t)) {
        // NLTK's stopwords too: "until" is said three times in the demo's bread turns.
        if w.chars().count() < 4
            || is_stop_word(&w)
            || crate::search::is_stopword(&w)
            || META_WORDS.contains(&w.as_str())
        {
            continue;
        }
        match counts.iter_mut().find(|(c, _)| *c == w) {
            Some((_, n)) => *n += 1,
            None => counts.push((w, 1)),
        }
    }
    for (w, _) in counts.into_iter().filter(|(_, n)| *n >= 3).take(8) {
        push(w, &mut out);
    }
    for text in &texts {
        for t in terms(text).into_iter().chain(measures(text)) {
            // A bare small number says nothing on its own ("7", "20").
            let bare_number = t.chars().all(|c| c.is_ascii_digit()) && t.len() < 3;
            if !bare_number {
                push(t, &mut out);
            }
        }
    }
    out
}

/// A text with the markers of its tool lines left out: "[tool Bash: gh
/// run view 8812]" keeps "gh run view 8812", "[result: Cache not found]"
/// keeps "Cache not found". The markers are the importer's scaffolding,
/// said on every tool line: counted as the turns' own words, "tool",
/// "Bash" and "result" were key terms of every agent session.
fn without_tool_markers(text: &str) -> String {
    text.lines()
        .map(|line| {
            let t = line.trim_start();
            let inner = if t.starts_with("[tool ") {
                t.split_once(": ").map(|(_, rest)| rest)
            } else {
                t.strip_prefix("[result: ")
            };
            inner.map_or(line, |rest| rest.strip_suffix(']').unwrap_or(rest))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a word says nothing as a key term: thanks, praise or an
/// acknowledgement ("great", "awesome", "OK", "BTW"), or a stop word's
/// contraction ("I've", "what's", "Here's"). Search finds such words in
/// the turns anyway; beside a summary they are noise.
pub fn is_empty_term(t: &str) -> bool {
    let lower = t.to_lowercase().replace('’', "'");
    if lower.contains(' ') {
        return false;
    }
    let head = lower.split('\'').next().unwrap_or_default();
    let filler = crate::pipeline::digest::is_filler;
    filler(&lower) || (lower.contains('\'') && (is_stop_word(head) || filler(head)))
}

/// Numbers with their unit ("250 C", "4-6 hours", "700 g").
fn measures(text: &str) -> Vec<String> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for w in toks.windows(2) {
        let n = w[0].trim_matches(|c: char| "(,;:".contains(c));
        let unit = w[1].trim_end_matches(|c: char| ",.;:)".contains(c));
        if n.chars().next().is_some_and(|c| c.is_ascii_digit())
            && n.chars().all(|c| c.is_ascii_digit() || ".-,%".contains(c))
            && !unit.is_empty()
            && unit.chars().count() <= 8
            && unit.chars().all(|c| c.is_alphabetic() || c == '°')
            && !is_stop_word(&unit.to_lowercase())
        {
            out.push(format!("{n} {unit}"));
        }
    }
    out
}
