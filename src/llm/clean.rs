//! Reply cleaning: turns what a model wrote into the text we store.
//!
//! Small models and misconfigured servers leak reasoning blocks, chat
//! template tokens, role headers, quotes and "Summary:" labels. Everything
//! here is pure string work so it can be tested on real-looking samples.

/// Reasoning blocks some models emit before the answer.
const REASONING_TAGS: [&str; 3] = ["think", "thinking", "reasoning"];

/// Words a leading label such as "Here is the updated summary:" is made of.
#[rustfmt::skip]
const LABEL_WORDS: &[&str] = &[
    "here", "here's", "is", "the", "a", "an", "my", "your", "this", "sure", "okay", "ok", "of",
    "updated", "update", "new", "revised", "merged", "running", "current", "final", "combined",
    "session", "turn", "project", "conversation", "short", "brief", "concise", "one-sentence",
    "one", "sentence", "summary", "answer", "response", "output", "result", "user", "user's", "question",
    "request", "discussion", "chat", "exchange", "following", "below",
];
/// A label must contain one of these, so "Sure, here is" alone stays.
const LABEL_KEYS: &[&str] = &["summary", "answer", "response", "output", "result"];

/// Whether `text` (the end of a rendered prompt, where the reply starts)
/// opens a reasoning block, as the templates of some reasoning models do.
pub fn opens_reasoning(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    REASONING_TAGS.iter().any(|tag| lower.contains(&format!("<{tag}>")))
}

/// Clean a raw model reply. The result may be empty; the caller treats an
/// empty result as a bad reply.
pub fn clean_reply(raw: &str) -> String {
    // Removing one thing can form another (`<thi<|x|>nk>` loses its token
    // and becomes `<think>`), so clean until nothing changes. A reply that
    // has not settled after a few rounds is garbage: empty, a bad reply.
    let mut text = raw.to_string();
    for _ in 0..8 {
        let next = clean_once(&text);
        if next == text {
            return next;
        }
        text = next;
    }
    String::new()
}

fn clean_once(raw: &str) -> String {
    let text = strip_reasoning(raw);
    let text = strip_template_tokens(&text);
    let mut text = strip_role_header(text.trim()).to_string();
    // Decorations nest in either order (`**Summary:** "…"`, `"Summary: …"`),
    // so peel them until nothing changes.
    for _ in 0..8 {
        let next = strip_wrapping(strip_label(text.trim()));
        if next == text {
            break;
        }
        text = next;
    }
    crate::display::one_line(&text)
}

/// Whether the tag or token at `start..end` of `text` is written about
/// rather than leaked: quoted on both sides (`` `</think>` ``, "<|im_end|>"),
/// or standing as a word inside a sentence ("what <|im_end|> means": text
/// before it on its line that does not end a sentence, a space on each
/// side, text after it on its line). Leaks sit at the start or end of the
/// reply or a line, after a finished sentence, or glued to words.
fn is_mention(text: &str, start: usize, end: usize) -> bool {
    const OPENING: &[char] = &['`', '"', '\'', '“', '‘', '«', '(', '['];
    const CLOSING: &[char] = &['`', '"', '\'', '”', '’', '»', ')', ']'];
    let (before, after) = (&text[..start], &text[end..]);
    if before.ends_with(OPENING) && after.starts_with(CLOSING) {
        return true;
    }
    let line_before = before.rsplit('\n').next().unwrap_or_default();
    let line_after = after.split('\n').next().unwrap_or_default();
    line_before.ends_with([' ', '\t'])
        && !line_before.trim().is_empty()
        && !line_before.trim_end().ends_with(['.', '!', '?', ':', ';'])
        && line_after.starts_with([' ', '\t'])
        && !line_after.trim().is_empty()
}

/// The first occurrence of `tag` in `lower` (the text, ASCII-lowercased)
/// at or after `from` that is not a mention.
fn find_leak(text: &str, lower: &str, tag: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = lower[at..].find(tag) {
        let pos = at + i;
        if !is_mention(text, pos, pos + tag.len()) {
            return Some(pos);
        }
        at = pos + tag.len();
    }
    None
}

/// Remove `<think>…</think>` blocks (any of [`REASONING_TAGS`], any case).
/// An unterminated block runs to the end. A closing tag with no opening
/// one before it (templates that put `<think>` into the prompt, a repeated
/// closing tag) drops everything before it. Tags a summary mentions (see
/// [`is_mention`]) are text, not blocks.
fn strip_reasoning(raw: &str) -> String {
    let mut text = raw.to_string();
    for tag in REASONING_TAGS {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        loop {
            // ASCII lowercasing keeps byte offsets, so positions carry over.
            let lower = text.to_ascii_lowercase();
            match (find_leak(&text, &lower, &open, 0), find_leak(&text, &lower, &close, 0)) {
                (o, Some(c)) if o.is_none_or(|o| o > c) => text.replace_range(..c + close.len(), ""),
                (Some(start), _) => {
                    let end = find_leak(&text, &lower, &close, start).map_or(text.len(), |e| e + close.len());
                    text.replace_range(start..end, "");
                }
                _ => break,
            }
        }
    }
    text
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Token {
    /// End of a turn: what follows is the model talking to itself.
    End,
    /// Start of a turn: a role name follows on the same line.
    Start,
    /// Llama-3 `<|start_header_id|>role<|end_header_id|>`.
    Header,
    /// Any other special token: dropped.
    Other,
}

/// Recognise a special token at the start of `s`; returns its length.
fn token_at(s: &str) -> Option<(usize, Token)> {
    const FIXED: [(&str, Token); 6] = [
        ("<s>", Token::Other),
        ("</s>", Token::End),
        ("<bos>", Token::Other),
        ("<eos>", Token::End),
        ("<start_of_turn>", Token::Start),
        ("<end_of_turn>", Token::End),
    ];
    if let Some(rest) = s.strip_prefix("<|") {
        let end = rest.find("|>")?;
        let name = &rest[..end];
        if name.is_empty() || name.len() > 48 || name.contains(|c: char| c.is_whitespace() || c == '<') {
            return None;
        }
        let kind = match name {
            "im_end" | "eot_id" | "endoftext" | "end_of_text" | "end" | "eos" | "return" => Token::End,
            "im_start" | "start" => Token::Start,
            "start_header_id" => Token::Header,
            _ => Token::Other,
        };
        return Some((2 + end + 2, kind));
    }
    FIXED.iter().find(|(t, _)| s.starts_with(t)).map(|(t, k)| (t.len(), *k))
}

/// Remove leaked chat-template tokens. Text after an end-of-turn token is
/// dropped once some answer has been seen (SmolLM-style runaway turns).
/// Tokens a summary mentions (see [`is_mention`]) are kept as text.
fn strip_template_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('<') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let Some((len, kind)) = token_at(rest) else {
            out.push('<');
            rest = &rest[1..];
            continue;
        };
        let at = text.len() - rest.len();
        if is_mention(text, at, at + len) {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        rest = &rest[len..];
        match kind {
            Token::End if !out.trim().is_empty() => return out,
            Token::End | Token::Other => {}
            Token::Start => rest = skip_role_line(rest),
            Token::Header => {
                if let Some(e) = rest.find("<|end_header_id|>") {
                    rest = &rest[e + "<|end_header_id|>".len()..];
                }
            }
        }
    }
    out.push_str(rest);
    let kept = strip_partial_token(&out).len();
    out.truncate(kept);
    out
}

/// After a start-of-turn token: drop the role name and its newline.
fn skip_role_line(s: &str) -> &str {
    let line_end = s.find('\n').unwrap_or(s.len());
    let word = s[..line_end].trim();
    if word.len() <= 20 && word.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
        return s.get(line_end + 1..).unwrap_or("");
    }
    s
}

/// A reply cut by `max_tokens` can end in half a token such as `<|im_e`.
fn strip_partial_token(s: &str) -> &str {
    match s.rfind("<|") {
        Some(p) if s.len() - p <= 24 && !s[p..].contains(|c: char| c.is_whitespace()) => &s[..p],
        _ => s,
    }
}

/// `assistant\n…` or `Assistant: …` at the very start. A bare "Assistant"
/// followed by a space is left alone: it may start a real sentence.
fn strip_role_header(s: &str) -> &str {
    for role in ["assistant", "model", "ai"] {
        let Some(head) = s.get(..role.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(role) {
            continue;
        }
        let rest = &s[role.len()..];
        let after_colon = rest.strip_prefix(':');
        let rest_trimmed = after_colon.unwrap_or(rest).trim_start_matches([' ', '\t']);
        if after_colon.is_some() || rest_trimmed.starts_with('\n') || rest.trim().is_empty() {
            return rest_trimmed.trim_start();
        }
    }
    s
}

/// Remove one leading label such as `Summary:`, `**Updated summary:**`,
/// `Here is the summary:` or a markdown heading `## Summary`.
fn strip_label(s: &str) -> &str {
    let first_line_end = s.find('\n').unwrap_or(s.len());
    if s.starts_with('#') && is_label(&s[..first_line_end]) {
        return s[first_line_end..].trim_start();
    }
    // A label sits in the first 80 bytes; cut there on a char boundary.
    let mut head_end = first_line_end.min(80);
    while !s.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let Some(colon) = s[..head_end].find(':') else {
        return s;
    };
    if !is_label(&s[..colon]) {
        return s;
    }
    s[colon + 1..].trim_start_matches(['*', '_']).trim_start()
}

fn is_label(head: &str) -> bool {
    let head = head.trim_matches(|c: char| c == '*' || c == '_' || c == '#' || c.is_whitespace());
    let words: Vec<String> = head
        .split_whitespace()
        .map(|w| w.trim_matches([',', '!', '.', '*', '_']).replace('’', "'").to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty()
        && words.len() <= 8
        && words.iter().all(|w| LABEL_WORDS.contains(&w.as_str()))
        && words.iter().any(|w| LABEL_KEYS.contains(&w.as_str()))
}

/// Remove one pair of quotes, backticks, a code fence or bold markers
/// around the whole text, when the same marks do not also occur inside.
fn strip_wrapping(s: &str) -> String {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("```").and_then(|r| r.strip_suffix("```")) {
        if !inner.contains("```") {
            // A language tag such as ```text stands alone on the first line.
            let inner = match inner.split_once('\n') {
                Some((tag, body)) if !tag.trim().contains(' ') => body,
                _ => inner,
            };
            return inner.trim().to_string();
        }
    }
    const PAIRS: [(&str, &str); 8] =
        [("**", "**"), ("\"", "\""), ("“", "”"), ("„", "“"), ("«", "»"), ("`", "`"), ("‘", "’"), ("'", "'")];
    for (open, close) in PAIRS {
        let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close)) else {
            continue;
        };
        if s.len() < open.len() + close.len() {
            continue;
        }
        let clean_inside = match open {
            // Apostrophes inside words (user's, it’s) are not quotes.
            "'" | "‘" => !has_quote_boundary(inner, '\'') && !has_quote_boundary(inner, '’') && !inner.contains('‘'),
            _ => !inner.contains(open) && !inner.contains(close),
        };
        if clean_inside {
            return inner.trim().to_string();
        }
    }
    s.to_string()
}

/// True when `q` occurs inside `s` other than between two letters/digits.
fn has_quote_boundary(s: &str, q: char) -> bool {
    let chars: Vec<char> = s.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        c == q && !(i > 0 && chars[i - 1].is_alphanumeric() && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_sentence_is_unchanged() {
        let s = "The user asked how to rotate logs with logrotate and the assistant gave a config.";
        assert_eq!(clean_reply(s), s);
    }

    #[test]
    fn a_prompt_that_opens_a_reasoning_block_is_told_apart() {
        assert!(opens_reasoning("<|im_start|>assistant\n<think>\n"));
        assert!(opens_reasoning("<|Assistant|><THINK>"));
        assert!(!opens_reasoning("<|im_start|>assistant\n"));
        assert!(!opens_reasoning("think about it"));
    }

    #[test]
    fn qwen_think_block_is_removed() {
        let raw = "<think>\nOkay, the user wants a one-sentence summary. Let me see: they asked about \
                   cron syntax.\n</think>\n\nThe user asked how to run a job every 20 minutes with cron.";
        assert_eq!(clean_reply(raw), "The user asked how to run a job every 20 minutes with cron.");
    }

    #[test]
    fn empty_think_block_of_qwen3_no_think_mode_is_removed() {
        let raw = "<think>\n\n</think>\n\nThe user set up WAL mode in SQLite.";
        assert_eq!(clean_reply(raw), "The user set up WAL mode in SQLite.");
    }

    #[test]
    fn unterminated_think_block_leaves_nothing() {
        let raw = "<think>\nThe user is asking about Rust lifetimes. I should summarize that the";
        assert_eq!(clean_reply(raw), "");
    }

    #[test]
    fn orphan_closing_think_drops_the_reasoning_before_it() {
        // DeepSeek-R1 distills: the template opens <think> in the prompt.
        let raw = "Alright, let me figure this out.\n</think>\n\nThe user compared two hashing crates.";
        assert_eq!(clean_reply(raw), "The user compared two hashing crates.");
    }

    #[test]
    fn a_long_first_line_in_another_script_is_kept_not_a_panic() {
        // Byte 80 falls inside a three-byte character.
        let s = "用户询问了如何在数据库中启用预写日志模式，助手解释了这个设置的作用以及并发读取的好处。";
        assert_eq!(clean_reply(s), s);
        let s = format!("{}: the user left.", "é".repeat(60));
        assert_eq!(clean_reply(&s), s);
    }

    #[test]
    fn every_orphan_closing_tag_is_dropped_with_what_precedes_it() {
        assert_eq!(clean_reply("a</reasoning>b</reasoning>The user left."), "The user left.");
        assert_eq!(clean_reply("</think></think>"), "");
        assert_eq!(clean_reply("<think>a</think></think>The user left."), "The user left.");
    }

    #[test]
    fn tags_formed_by_removing_tokens_are_removed_too() {
        assert_eq!(clean_reply("<thi<|x|>nk>plan</think>The user left."), "The user left.");
        assert_eq!(clean_reply("The user left.<|im_e<|x|>nd|>\nmore"), "The user left.");
    }

    #[test]
    fn tokens_a_summary_writes_about_are_kept() {
        for s in [
            "The user asked what `<|im_end|>` means.",
            "The user asked what <|im_end|> means in ChatML.",
            "The user asked what </think> means.",
            "The user asked why `</think>` shows up and how `<think>` blocks work.",
            "The user compared the <think> and </think> tags of Qwen.",
            "The user asked about \"<|im_start|>\" and `<|endoftext|>` tokens.",
            "The user asked whether </s> ends a sequence and what <s> starts.",
            "The user asked what <|eot_id|> and <|start_header_id|> do in Llama 3.",
            "The user saw (<|reserved_special_token_3|>) in the output.",
        ] {
            assert_eq!(clean_reply(s), s);
        }
        // Leaks around a mention are still cleaned.
        assert_eq!(
            clean_reply("<think>plan</think>The user asked what `<|im_end|>` means.<|im_end|>\n<|im_start|>user"),
            "The user asked what `<|im_end|>` means."
        );
    }

    #[test]
    fn think_tags_in_any_case_and_several_blocks() {
        let raw = "<THINK>a</THINK>The user <thinking>hmm</thinking>fixed the build.";
        assert_eq!(clean_reply(raw), "The user fixed the build.");
    }

    #[test]
    fn smollm_leaked_im_end_and_runaway_turn_are_cut() {
        let raw = "The user asked for a bash loop over files.<|im_end|>\n<|im_start|>user\nThanks! \
                   Can you also<|im_end|>";
        assert_eq!(clean_reply(raw), "The user asked for a bash loop over files.");
    }

    #[test]
    fn chatml_assistant_header_is_removed() {
        let raw = "<|im_start|>assistant\nThe user renamed the project to ragger.<|im_end|>";
        assert_eq!(clean_reply(raw), "The user renamed the project to ragger.");
    }

    #[test]
    fn llama3_headers_and_eot_are_removed() {
        let raw = "<|start_header_id|>assistant<|end_header_id|>\n\nThe user debugged a segfault in \
                   the FFI layer.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nmore";
        assert_eq!(clean_reply(raw), "The user debugged a segfault in the FFI layer.");
    }

    #[test]
    fn leading_end_token_does_not_empty_the_reply() {
        let raw = "<|im_end|>\n<|im_start|>assistant\nThe user wrote tests.";
        assert_eq!(clean_reply(raw), "The user wrote tests.");
    }

    #[test]
    fn sentencepiece_markers_and_unknown_special_tokens_are_removed() {
        assert_eq!(clean_reply("<s> The user wrote docs.</s> junk"), "The user wrote docs.");
        assert_eq!(clean_reply("The user<|reserved_special_token_3|> left."), "The user left.");
        assert_eq!(clean_reply("<|assistant|>\nThe user left.<|end|>"), "The user left.");
        assert_eq!(clean_reply("<|endoftext|>The user left.<|endoftext|>"), "The user left.");
    }

    #[test]
    fn gemma_turn_markers_are_removed() {
        let raw = "<start_of_turn>model\nThe user tuned the cache size.<end_of_turn>";
        assert_eq!(clean_reply(raw), "The user tuned the cache size.");
    }

    #[test]
    fn half_token_at_the_end_of_a_cut_reply_is_removed() {
        assert_eq!(clean_reply("The user left early.<|im_e"), "The user left early.");
    }

    #[test]
    fn angle_brackets_in_real_text_survive() {
        let s = "The user compared a < b and Vec<u8> with <T as Trait>.";
        assert_eq!(clean_reply(s), s);
    }

    #[test]
    fn role_header_at_start_is_removed() {
        assert_eq!(clean_reply("assistant\nThe user left."), "The user left.");
        assert_eq!(clean_reply("Assistant: The user left."), "The user left.");
        // A sentence that starts with the word is not a header.
        assert_eq!(clean_reply("Assistant explained the flags."), "Assistant explained the flags.");
    }

    #[test]
    fn wrapping_quotes_are_removed() {
        assert_eq!(clean_reply("\"The user left.\""), "The user left.");
        assert_eq!(clean_reply("“The user left.”"), "The user left.");
        assert_eq!(clean_reply("‘The user’s build failed.’"), "The user’s build failed.");
        assert_eq!(clean_reply("'The user's build failed.'"), "The user's build failed.");
        assert_eq!(clean_reply("`The user left.`"), "The user left.");
        assert_eq!(clean_reply("`\"The user left.\"`"), "The user left.");
        assert_eq!(clean_reply("```\nThe user left.\n```"), "The user left.");
        assert_eq!(clean_reply("```text\nThe user left.\n```"), "The user left.");
    }

    #[test]
    fn inner_quotes_are_not_mistaken_for_wrapping() {
        let s = "\"cargo\" failed and \"rustc\" too";
        assert_eq!(clean_reply(s), s);
        let s = "'foo' and 'bar' were renamed";
        assert_eq!(clean_reply(s), s);
    }

    #[test]
    fn leading_labels_are_removed() {
        assert_eq!(clean_reply("Summary: The user left."), "The user left.");
        assert_eq!(clean_reply("**Summary:** The user left."), "The user left.");
        assert_eq!(clean_reply("**Summary**: The user left."), "The user left.");
        assert_eq!(clean_reply("Updated summary:\nThe user left."), "The user left.");
        assert_eq!(clean_reply("Sure! Here's the updated summary: The user left."), "The user left.");
        assert_eq!(clean_reply("## Session summary\nThe user left."), "The user left.");
        assert_eq!(clean_reply("Summary: \"The user left.\""), "The user left.");
        assert_eq!(clean_reply("\"Summary: The user left.\""), "The user left.");
        // SmolLM2-135M's lead-in to the demo's first L3.
        assert_eq!(clean_reply("Here is the summary of the user's question: The user left."), "The user left.");
    }

    #[test]
    fn a_colon_in_a_real_sentence_is_kept() {
        let s = "The user asked for a summary: how WAL mode works.";
        assert_eq!(clean_reply(s), s);
        let s = "Note: the user prefers tabs.";
        assert_eq!(clean_reply(s), s);
    }

    #[test]
    fn whitespace_is_collapsed() {
        assert_eq!(clean_reply("  The user\n\n  left\t early. \n"), "The user left early.");
    }

    #[test]
    fn everything_at_once() {
        let raw = "<think>\nLet me write it.\n</think>\n<|im_start|>assistant\n**Updated summary:** \
                   \"The user  set up cron\nand systemd timers.\"<|im_end|>\n<|im_start|>user";
        assert_eq!(clean_reply(raw), "The user set up cron and systemd timers.");
    }

    #[test]
    fn nothing_left_is_empty() {
        assert_eq!(clean_reply(""), "");
        assert_eq!(clean_reply("<|im_end|>"), "");
        assert_eq!(clean_reply("  \"\"  "), "");
        assert_eq!(clean_reply("Summary:"), "");
    }
}
