//! Text from the database shown on a terminal. Turn text, ids and model
//! replies are data, not terminal commands: control characters (escape
//! sequences, carriage returns, backspaces, C1 codes, bidirectional
//! overrides) are rendered visibly as `\x1b`, `\u{9b}`, … so they can
//! neither recolour, retitle, clear nor forge output. `--json` output is
//! exact and never goes through here.

/// The widest column any table takes from its data; longer values overflow
/// their column instead of widening it (and a huge id cannot make a format
/// width out of range).
pub const MAX_COLUMN: usize = 40;

/// A single-line field (an id, a time): every control character escaped,
/// tab and newline included.
pub fn line(s: &str) -> String {
    escape(s, false)
}

/// Multi-line text (a summary, a turn): newlines and tabs kept, every other
/// control character escaped.
pub fn text(s: &str) -> String {
    escape(s, true)
}

/// Text on one line: every run of whitespace (newlines included) as one
/// space, none at the ends.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The width of a column of `values` (already made visible): the longest,
/// at least `min`, at most [`MAX_COLUMN`].
pub fn column_width<'a>(values: impl IntoIterator<Item = &'a str>, min: usize) -> usize {
    values.into_iter().map(|v| v.chars().count()).max().unwrap_or(0).clamp(min, MAX_COLUMN.max(min))
}

fn escape(s: &str, keep_lines: bool) -> String {
    if !s.chars().any(|c| needs_escape(c, keep_lines)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c, keep_lines) {
            let n = c as u32;
            if n < 0x80 {
                out.push_str(&format!("\\x{n:02x}"));
            } else {
                out.push_str(&format!("\\u{{{n:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_escape(c: char, keep_lines: bool) -> bool {
    if keep_lines && (c == '\n' || c == '\t') {
        return false;
    }
    c.is_control() // C0, DEL, C1
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') // bidi overrides and isolates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_run() {
        assert_eq!(line("\x1b]0;pwned\x07title"), "\\x1b]0;pwned\\x07title");
        assert_eq!(line("a\nb\tc\r"), "a\\x0ab\\x09c\\x0d");
        assert_eq!(text("a\nb\tc\r\x1b[2J"), "a\nb\tc\\x0d\\x1b[2J");
        assert_eq!(text("\u{9b}31m \u{202e}txt"), "\\u{9b}31m \\u{202e}txt");
        assert_eq!(text("plain – ünïcödé 文字"), "plain – ünïcödé 文字");
    }

    #[test]
    fn column_widths_are_capped() {
        let long = "x".repeat(65_536);
        assert_eq!(column_width([long.as_str(), "ab"], 7), MAX_COLUMN);
        assert_eq!(column_width(["ab"], 7), 7);
        assert_eq!(column_width(["abcdefghij"], 7), 10);
        assert_eq!(column_width([], 1), 1);
    }
}
