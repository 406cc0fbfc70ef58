//! The properties that hostile input must not break, shared by the fuzz
//! targets (`fuzz/fuzz_targets/`) and the fixed-seed random tests of the
//! test suite (`tests/cli/hostile.rs` includes this file with `#[path]`: the
//! fuzz crate is its own workspace, built by cargo fuzz with sanitizer
//! flags, so plain inclusion is the one way both builds share it). Each
//! function panics, naming the input, when a property fails.

#![allow(dead_code)] // each fuzz target uses one half

use ragger::capture::{parse_line, validate};
use ragger::llm::clean::clean_reply;
use ragger::pipeline::verdict::{is_no_merge, is_topic_shift};

/// Field limit used when fuzzing `validate`.
pub const MAX_FIELD: usize = 4096;

/// Chat-template tokens that must never survive cleaning.
const TEMPLATE_TOKENS: &[&str] = &[
    "<|im_start|>",
    "<|im_end|>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|endoftext|>",
    "<start_of_turn>",
    "<end_of_turn>",
];

/// The capture JSON Lines parser and validation: never panic; an accepted
/// turn has a trimmed non-empty session, some text, fields within the
/// limit and no NUL in its keys.
pub fn check_capture_line(line: &[u8]) {
    let Ok(input) = parse_line(line) else { return };
    let Ok(turn) = validate(input.clone(), MAX_FIELD, 0) else { return };
    let ctx = || format!("input {:?}", String::from_utf8_lossy(line));
    assert!(!turn.session.is_empty(), "empty session accepted: {}", ctx());
    assert_eq!(turn.session, turn.session.trim(), "untrimmed session: {}", ctx());
    assert!(!turn.session.contains('\0'), "NUL in session: {}", ctx());
    assert!(!turn.user.trim().is_empty() || !turn.assistant.trim().is_empty(), "empty turn accepted: {}", ctx());
    for f in [&turn.session, &turn.user, &turn.assistant] {
        assert!(f.len() <= MAX_FIELD, "oversized field accepted: {}", ctx());
    }
    if let Some(p) = turn.project.as_ref().map(|p| &p.name) {
        assert!(!p.is_empty() && !p.contains('\0') && p.len() <= MAX_FIELD, "bad project: {}", ctx());
    }
    if let Some(k) = &turn.id {
        assert!(!k.is_empty() && !k.contains('\0') && k.len() <= MAX_FIELD, "bad key: {}", ctx());
    }
    // Texts are stored verbatim: validation never rewrites them.
    assert_eq!(turn.user, input.user, "user text changed: {}", ctx());
    assert_eq!(turn.assistant, input.assistant, "assistant text changed: {}", ctx());
}

/// Reply cleaning and the verdict: never panic; the cleaned text has no
/// reasoning tags and no template tokens except where it writes about them, no surrounding or doubled
/// whitespace; cleaning is stable (a cleaned reply cleans to itself, so
/// nothing is left for a second pass to strip); NO_MERGE is recognised
/// only when nothing but the verdict is there.
pub fn check_reply(raw: &str) {
    let cleaned = clean_reply(raw);
    let ctx = || format!("raw {raw:?} cleaned {cleaned:?}");
    // A tag or token survives only where a summary writes about it: quoted
    // on both sides, or a word between spaces inside a line.
    let lower = cleaned.to_ascii_lowercase();
    let written_about = |pos: usize, len: usize| {
        let (before, after) = (&cleaned[..pos], &cleaned[pos + len..]);
        let quoted = before.ends_with(['`', '"', '\'', '“', '‘', '«', '(', '['])
            && after.starts_with(['`', '"', '\'', '”', '’', '»', ')', ']']);
        quoted
            || (before.ends_with(' ')
                && after.starts_with(' ')
                && !before.trim().is_empty()
                && !after.trim().is_empty())
    };
    let tags = ["<think>", "</think>", "<thinking>", "</thinking>", "<reasoning>", "</reasoning>"];
    for tok in tags.iter().chain(TEMPLATE_TOKENS) {
        for (pos, _) in lower.match_indices(tok) {
            assert!(written_about(pos, tok.len()), "{tok} survived cleaning outside a mention: {}", ctx());
        }
    }
    assert_eq!(cleaned, cleaned.trim(), "untrimmed: {}", ctx());
    assert!(!cleaned.contains("  ") && !cleaned.contains('\n'), "whitespace not collapsed: {}", ctx());
    assert_eq!(clean_reply(&cleaned), cleaned, "cleaning again changes it: {}", ctx());
    if is_no_merge(&cleaned) {
        let core: String = cleaned.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
        assert_eq!(core, "nomerge", "a verdict with other words in it: {}", ctx());
    }
    check_verdict(raw);
}

/// The verdict on any text: `is_no_merge` only when its letters and
/// digits are exactly NO MERGE; `is_topic_shift` only when that holds for
/// the whole text or for its first sentence.
pub fn check_verdict(text: &str) {
    let core = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    if is_no_merge(text) {
        assert_eq!(core(text), "nomerge", "is_no_merge({text:?}) but it has other words");
        assert!(is_topic_shift(text), "is_no_merge({text:?}) but not a topic shift");
    }
    if is_topic_shift(text) {
        let first = text.split(['.', '\n', ':', '!', ';']).next().unwrap_or("");
        assert!(
            core(text) == "nomerge" || core(first) == "nomerge",
            "is_topic_shift({text:?}) but its first sentence is not the verdict"
        );
    }
}
