//! The grounding check: every model reply is checked against the words it
//! summarises before it is stored, and the extractive summaries written
//! when a model keeps failing it. Deterministic, cheap, no model.
//!
//! A reply is bad when it
//! - names a number, identifier (path, flag, URL, snake_case, CamelCase,
//!   ALL-CAPS, `code`, "quoted text") or name (a capitalised word inside a
//!   sentence) that its sources do not contain;
//! - loops (a run of words repeated), or repeats a sentence;
//! - echoes the instructions of the prompt, or copies a worked example;
//! - shares too few content words with its sources (it is about something
//!   else).

use std::collections::HashSet;

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

pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.contains(&w)
}

/// Why a reply is bad, or `None` when it may be stored.
pub fn check(reply: &str, sources: &[&str], examples: &[&str]) -> Option<String> {
    let source_text = sources.join("\n");
    let source_lower = source_text.to_lowercase();
    let source_words: HashSet<String> = words(&source_text).into_iter().collect();
    let reply_lower = reply.to_lowercase();
    for echo in INSTRUCTION_ECHOES {
        if reply_lower.contains(echo) && !source_lower.contains(echo) {
            return Some(format!("the reply echoes the prompt ({echo:?})"));
        }
    }
    if let Some(run) = looping(reply) {
        return Some(format!("the reply loops ({run:?} repeated)"));
    }
    let invented: Vec<String> =
        terms(reply).into_iter().filter(|t| !supported(t, &source_lower, &source_words)).collect();
    if !invented.is_empty() {
        return Some(format!("the reply names what its sources do not: {}", invented.join(", ")));
    }
    let reply_words = words(reply);
    for example in examples {
        if let Some(gram) = copied(&reply_words, &words(example), &source_words) {
            return Some(format!("the reply copies a worked example ({gram:?})"));
        }
    }
    let content = content_words(reply);
    if content.is_empty() && !unspaced(reply) && !content_words(&source_text).is_empty() {
        return Some("the reply says nothing about its sources".into());
    }
    // Word overlap means nothing for scripts written without spaces (a
    // Chinese clause is one "word"): there only the terms are checked.
    if !content.is_empty() && !unspaced(reply) {
        let stems: HashSet<String> = source_words.iter().map(|w| stem(w)).collect();
        let shared = content.iter().filter(|w| stems.contains(&stem(w))).count();
        let share = shared as f32 / content.len() as f32;
        if share < MIN_OVERLAP {
            return Some(format!("the reply shares too little with its sources ({:.0}% of its words)", share * 100.0));
        }
    }
    None
}

/// [`check`] for a fold's reply, which must also keep something of each of
/// its parts: the running summary and the new items (a merge that drops
/// either lost memory).
pub fn check_merge(reply: &str, running: &str, items: &[&str], examples: &[&str]) -> Option<String> {
    let mut sources = vec![running];
    sources.extend_from_slice(items);
    if let Some(why) = check(reply, &sources, examples) {
        return Some(why);
    }
    let reply_stems: HashSet<String> = content_words(reply).iter().map(|w| stem(w)).collect();
    for (what, part) in [("running summary", running.to_string()), ("new material", items.join(" "))] {
        let stems: HashSet<String> = content_words(&part).iter().map(|w| stem(w)).collect();
        let kept = stems.iter().filter(|s| reply_stems.contains(*s)).count();
        // At least a quarter of each part's words (two for a short one).
        let need = (stems.len() / 4).max(2).min(stems.len());
        if kept < need {
            return Some(format!("the reply drops the {what}"));
        }
    }
    None
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

fn stem(w: &str) -> String {
    w.chars().take(5).collect()
}

/// A term is supported when the sources contain it as a word, or (for
/// terms with punctuation: paths, flags, numbers with units) as text.
fn supported(term: &str, source_lower: &str, source_words: &HashSet<String>) -> bool {
    let t = term.to_lowercase();
    if source_words.contains(&t) {
        return true;
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
        let t = t.trim_matches(|c: char| ",.;:!?()[]{}<>\"'`«»“”‘’。，、；：！？（）".contains(c));
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
        let bare = token.trim_end_matches('.');
        let name = !sentence_start && is_name(bare);
        if is_identifier(bare) || bare.chars().any(|c| c.is_ascii_digit()) || name {
            push(bare);
        }
        sentence_start = raw.ends_with(['.', '!', '?', ':']) || raw.ends_with(".\"");
    }
    out
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
        || (letters >= 2 && t.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()))
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
    !(is_stop_word(&lower) || META_WORDS.contains(&lower.as_str()))
}

/// A run of four words that occurs three times, or a sentence said twice.
fn looping(reply: &str) -> Option<String> {
    let w = words(reply);
    let mut seen: std::collections::HashMap<&[String], usize> = std::collections::HashMap::new();
    for gram in w.windows(4) {
        let n = seen.entry(gram).or_default();
        *n += 1;
        if *n >= 3 {
            return Some(gram.join(" "));
        }
    }
    let mut sentences = HashSet::new();
    reply
        .split(['.', '!', '?'])
        .map(|s| s.trim().to_lowercase())
        .filter(|s| s.split_whitespace().count() >= 4)
        .find(|s| !sentences.insert(s.clone()))
}

/// A run of four words of a worked example that the reply has, with a
/// content word its sources do not have ("the user asked how" is the form
/// the examples teach; "cron's minimal PATH must" is their content).
fn copied(reply: &[String], example: &[String], source_words: &HashSet<String>) -> Option<String> {
    let grams: HashSet<&[String]> = example.windows(4).collect();
    reply
        .windows(4)
        .find(|g| {
            grams.contains(g)
                && g.iter().any(|w| !source_words.contains(w) && !is_stop_word(w) && !META_WORDS.contains(&w.as_str()))
        })
        .map(|g| g.join(" "))
}

/// An L2 written without the model: the user's request and the assistant's
/// sentence that answers it best, each cut to a sentence's length.
pub fn extractive_turn(user: &str, assistant: &str) -> String {
    let ask = first_sentence(user);
    let asked: HashSet<String> = words(user).iter().map(|w| stem(w)).collect();
    let answer = sentences(assistant)
        .into_iter()
        .enumerate()
        .max_by(|(i, a), (j, b)| {
            let score = |s: &str| words(s).iter().filter(|w| !is_stop_word(w) && asked.contains(&stem(w))).count();
            score(a).cmp(&score(b)).then(j.cmp(i))
        })
        .map(|(_, s)| s);
    let clip = |s: &str| crate::pipeline::prompts::cut(s.trim(), 240);
    match (ask.is_empty(), answer) {
        (false, Some(a)) => format!("{ASKED}{}{ANSWERED}{}", clip(&ask), clip(a)),
        (false, None) => format!("The user said: {}", clip(&ask)),
        (true, Some(a)) => format!("The assistant said: {}", clip(a)),
        (true, None) => String::new(),
    }
}

fn first_sentence(text: &str) -> String {
    sentences(text).into_iter().next().unwrap_or_default().to_string()
}

fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace()) || c == '\n';
        if end {
            let s = text[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + c.len_utf8();
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// A fold written without the model: the running summary and the new
/// items, in order, within `max_chars` (the beginning and the end kept).
/// Extractive turn summaries are joined in a compact form ("request —
/// answer"), so their scaffolding is not repeated turn after turn.
pub fn extractive_fold(running: Option<&str>, items: &[&str], max_chars: usize) -> String {
    let mut parts: Vec<String> = running.into_iter().map(str::to_string).collect();
    parts.extend(items.iter().map(|s| compact(s.trim())));
    crate::pipeline::prompts::cut(&parts.join(" "), max_chars)
}

/// An extractive turn summary without its labels.
fn compact(item: &str) -> String {
    let Some(rest) = item.strip_prefix(ASKED) else {
        return item.to_string();
    };
    match rest.split_once(ANSWERED) {
        Some((ask, answer)) => format!("{} — {}", ask.trim(), answer.trim()),
        None => rest.trim().to_string(),
    }
}

const ASKED: &str = "The user asked: ";
const ANSWERED: &str = " The assistant answered: ";

/// The identifiers and names of a segment's turns, in order of first
/// appearance, at most `max`: what keyword search must find even when the
/// prose dropped it.
pub fn key_terms<'a>(texts: impl IntoIterator<Item = &'a str>, max: usize) -> Vec<String> {
    let texts: Vec<&str> = texts.into_iter().collect();
    let mut out: Vec<String> = Vec::new();
    let push = |t: String, out: &mut Vec<String>| {
        if out.len() < max && t.chars().count() <= 80 && !out.iter().any(|o| o.eq_ignore_ascii_case(&t)) {
            out.push(t);
        }
    };
    // The words the turns keep coming back to (a tool's name in lower
    // case, the dish, the library): content words said three times or more.
    let mut counts: Vec<(String, usize)> = Vec::new();
    for w in texts.iter().flat_map(|t| words(t)) {
        if w.chars().count() < 4 || is_stop_word(&w) || META_WORDS.contains(&w.as_str()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: &str = "User: How should I back up my home server's /srv folder every night?\n\nAssistant: Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 to prune old snapshots.";

    #[test]
    fn a_faithful_paraphrase_passes() {
        let r = "The user asked how to back up /srv nightly; the assistant suggested restic from a cron job to a USB disk, pruning with restic forget --keep-daily 7.";
        assert_eq!(check(r, &[TURN], &[]), None);
    }

    #[test]
    fn an_invented_identifier_or_number_fails() {
        let r = "The user asked about backups; the assistant suggested encrypting the restic repository with AES256.";
        let why = check(r, &[TURN], &[]).unwrap();
        assert!(why.contains("AES256"), "{why}");
        let r = "The user asked about backups; the assistant suggested restic, keeping 30 snapshots.";
        assert!(check(r, &[TURN], &[]).unwrap().contains("30"));
    }

    #[test]
    fn an_invented_name_fails_but_a_sentence_start_does_not() {
        let r = "Restic was suggested for /srv backups to a USB disk, as Melanie recommended.";
        assert!(check(r, &[TURN], &[]).unwrap().contains("Melanie"));
    }

    #[test]
    fn a_loop_fails() {
        let r = "They made a fifth sourdough loaf, then they made a sixth sourdough loaf, then they made a seventh sourdough loaf, then they made an eighth sourdough loaf.";
        let src = "They made sourdough loaf after loaf: fifth, sixth, seventh, eighth.";
        assert!(check(r, &[src], &[]).unwrap().contains("loops"), "{:?}", check(r, &[src], &[]));
    }

    #[test]
    fn an_echo_of_the_prompt_fails() {
        let r = "3 to 5 sentences, in the third person, in your own words: New turns: - restic backup /srv";
        assert!(check(r, &[TURN], &[]).unwrap().contains("echoes"));
    }

    #[test]
    fn a_copied_example_fails() {
        let ex = "The user asked why a script failed under cron; the assistant explained that cron's minimal PATH must be set or absolute paths used.";
        let r = "The user asked about restic backups of /srv; the assistant explained that cron's minimal path must be set.";
        let why = check(r, &[TURN], &[ex]).unwrap();
        assert!(why.contains("example") || why.contains("PATH"), "{why}");
    }

    #[test]
    fn an_empty_of_content_reply_fails() {
        assert!(check("Okay, sure.", &[TURN], &[]).unwrap().contains("says nothing"));
        assert!(check("Nothing.", &[TURN], &[]).is_some());
    }

    #[test]
    fn the_form_of_the_examples_is_no_copy() {
        let ex = "The user asked how to list the files in a folder with Python; the assistant suggested os.listdir.";
        let r = "The user asked how to back up /srv every night; the assistant suggested restic with a cron job.";
        assert_eq!(check(r, &[TURN], &[ex]), None);
    }

    #[test]
    fn a_reply_about_something_else_fails() {
        let r = "The conversation covered baking bread with a starter, hydration and oven temperature.";
        assert!(check(r, &[TURN], &[]).unwrap().contains("too little"));
    }

    #[test]
    fn a_reply_in_a_script_without_spaces_is_checked_for_terms_only() {
        let src = "如何启用预写日志？ 使用 PRAGMA journal_mode=WAL。";
        assert_eq!(check("用户询问了如何启用预写日志，助手建议使用 PRAGMA journal_mode=WAL。", &[src], &[]), None);
        assert!(check("用户询问了如何启用预写日志，助手建议使用 PRAGMA journal_mode=OFF。", &[src], &[]).is_some());
    }

    #[test]
    fn numbers_match_their_digits() {
        let src = "Start around 70% hydration: 700 g water per kilo; bake at 250 C. It costs 1,000 dollars.";
        assert_eq!(
            check(
                "The assistant suggested 70 hydration, 700 g water per kilo, bake at 250 C; it costs 1000 dollars.",
                &[src],
                &[]
            ),
            None
        );
    }

    #[test]
    fn extractive_turn_keeps_the_request_and_the_answering_sentence() {
        let s = extractive_turn(
            "Should the restic repository be encrypted if the disk stays at home?",
            "Good question. restic always encrypts the repository; keep the password in a root-only file. Pass it with --password-file.",
        );
        assert!(s.starts_with("The user asked: Should the restic repository be encrypted"), "{s}");
        assert!(s.contains("restic always encrypts"), "{s}");
        assert_eq!(check(&s, &["Should the restic repository be encrypted if the disk stays at home? Good question. restic always encrypts the repository; keep the password in a root-only file. Pass it with --password-file."], &[]), None);
    }

    #[test]
    fn a_merge_must_keep_both_parts() {
        let running = "The user set up restic backups of /srv to a USB disk.";
        let new = ["The user asked about sourdough hydration; the assistant suggested 70% water."];
        let both =
            "The user set up restic backups of /srv to a USB disk, then asked about sourdough hydration at 70% water.";
        assert_eq!(check_merge(both, running, &new, &[]), None);
        let dropped = "The user asked about sourdough hydration; the assistant suggested 70% water.";
        assert!(check_merge(dropped, running, &new, &[]).unwrap().contains("running summary"));
    }

    #[test]
    fn an_extractive_fold_does_not_repeat_the_turns_labels() {
        let turns = [
            ("How do I back up /srv?", "Use restic backup /srv nightly."),
            ("Is the repository encrypted?", "restic always encrypts it."),
            ("How do I test a restore?", "Run restic check and restore one folder."),
            ("Can cron run it unattended?", "Pass --password-file in the crontab."),
        ];
        let items: Vec<String> = turns.iter().map(|(u, a)| extractive_turn(u, a)).collect();
        let refs: Vec<&str> = items.iter().map(String::as_str).collect();
        let fold = extractive_fold(None, &refs, 3000);
        assert!(fold.starts_with("How do I back up /srv? — Use restic backup /srv nightly."), "{fold}");
        assert!(!fold.contains("The user asked"), "{fold}");
        assert_eq!(looping(&fold), None, "{fold}");
        assert_eq!(check(&fold, &refs, &[]), None);
    }

    #[test]
    fn key_terms_keep_identifiers_names_and_measures() {
        let t = key_terms(
            [
                "restic always encrypts; pass it with --password-file so cron can back up /srv unattended.",
                "Start around 70% hydration, then bake in a Dutch oven at 250 C for 20 minutes.",
            ],
            40,
        );
        for want in ["--password-file", "/srv", "70%", "250 C", "Dutch"] {
            assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
        }
        assert!(!t.iter().any(|x| x == "20"), "a bare small number is no key term: {t:?}");
        let t = key_terms(["restic backup /srv", "restic check", "restic forget --keep-daily 7"], 40);
        assert_eq!(t[0], "restic", "{t:?}");
    }
}
