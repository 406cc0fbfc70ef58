//! Text from the database shown on a terminal. Turn text, ids and model
//! replies are data, not terminal commands: control characters (escape
//! sequences, carriage returns, backspaces, C1 codes, bidirectional
//! overrides) are rendered visibly as `\x1b`, `\u{9b}`, … so they can
//! neither recolour, retitle, clear nor forge output. `--json` output is
//! exact and never goes through here.

use std::ffi::OsStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether headings are coloured; set once from `--color` ([`set_color`]).
static COLOR: AtomicBool = AtomicBool::new(false);

/// The style of a heading: a session, a turn, a summary, a search hit, a
/// `status` label.
const HEADING: anstyle::Style =
    anstyle::Style::new().bold().fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Cyan)));

/// Whether to colour: `forced` by `--color always|never`; otherwise (auto)
/// only on a terminal and only when `NO_COLOR` is unset or empty
/// (no-color.org: an explicit flag wins over the variable).
pub fn color_wanted(forced: Option<bool>, no_color: Option<&OsStr>, stdout_is_terminal: bool) -> bool {
    forced.unwrap_or(stdout_is_terminal && no_color.is_none_or(OsStr::is_empty))
}

/// Turn heading colour on or off for the rest of the process.
pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
}

/// A heading line (already made visible), coloured when colour is on.
pub fn heading(s: &str) -> String {
    if COLOR.load(Ordering::Relaxed) {
        format!("{}{s}{}", HEADING.render(), HEADING.render_reset())
    } else {
        s.to_string()
    }
}

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

/// A diagnostic on stderr (an error, a warning, a note): `ragger: ` and the
/// message with every control character but newline and tab shown, not
/// sent. Errors quote what came from outside (a server's reply, a path, the
/// bad line of a TOML file), so every human-facing message goes through here.
pub fn eprint(msg: &str) {
    eprintln!("ragger: {}", text(msg));
}

/// A writer that shows control characters (as [`text`]) before they reach
/// the terminal: for human formats streamed to stdout (Markdown export).
pub struct Visible<W: std::io::Write>(pub W);

impl<W: std::io::Write> std::io::Write for Visible<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Callers write whole formatted pieces (`write!`); a piece that is
        // not UTF-8 is shown with replacement characters.
        self.0.write_all(text(&String::from_utf8_lossy(buf)).as_bytes())?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The width of a column of `values` (already made visible): the longest,
/// at least `min`, at most [`MAX_COLUMN`].
pub fn column_width<'a>(values: impl IntoIterator<Item = &'a str>, min: usize) -> usize {
    values.into_iter().map(|v| v.chars().count()).max().unwrap_or(0).clamp(min, MAX_COLUMN.max(min))
}

/// Whitespace collapsed: one line, words separated by single spaces (a
/// preview, an error message quoted from elsewhere). Control characters are
/// not escaped here; pass the result through [`line`] to show it.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An `f32` setting as the `f64` that prints as it was written (`0.2`,
/// not `0.20000000298023224`): the shortest decimal of the `f32`.
pub fn plain_f64(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
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
    fn a_visible_writer_escapes_what_passes_through() {
        use std::io::Write;
        let mut out = Visible(Vec::new());
        write!(out, "# T\x1b]0;x\x07\n\tok\u{9b}").unwrap();
        assert_eq!(String::from_utf8(out.0).unwrap(), "# T\\x1b]0;x\\x07\n\tok\\u{9b}");
    }

    #[test]
    fn one_line_collapses_every_run_of_whitespace() {
        assert_eq!(one_line("  a\n\tb   c \r\n"), "a b c");
        assert_eq!(one_line(""), "");
    }

    #[test]
    fn f32_settings_print_as_written() {
        assert_eq!(plain_f64(0.2).to_string(), "0.2");
        assert_eq!(plain_f64(0.35).to_string(), "0.35");
        assert_eq!(plain_f64(1.0).to_string(), "1");
        assert_ne!(f64::from(0.2f32).to_string(), "0.2", "the plain widening is what this avoids");
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color_unless_forced() {
        let set = Some(OsStr::new("1"));
        assert!(color_wanted(None, None, true));
        assert!(color_wanted(None, Some(OsStr::new("")), true), "an empty NO_COLOR is unset");
        assert!(!color_wanted(None, set, true));
        assert!(!color_wanted(None, None, false), "not a terminal");
        assert!(color_wanted(Some(true), set, false), "always");
        assert!(!color_wanted(Some(false), None, true), "never");
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
