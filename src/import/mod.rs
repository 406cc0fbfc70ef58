//! Reading agents' own transcript files (Claude Code, Codex CLI, ragger's
//! JSON Lines) into turns, incrementally: what a file has already given is
//! remembered per file (byte offset, line, a check hash of the bytes before
//! it) so a hook on a long transcript reads only the tail. Turns are stored
//! through capture's own door (`capture::Door`: exclusion, redaction,
//! validation) and `insert`, so everything capture does
//! to a turn (limits, redaction) applies to imports too.

pub mod claude;
pub mod codex;
pub mod file;

use std::collections::BTreeMap;

use serde::Serialize;

/// A transcript format `ragger import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Claude Code's session transcripts (~/.claude/projects/*/SESSION.jsonl)
    ClaudeCode,
    /// Codex CLI's rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)
    Codex,
    /// ragger's own capture format, what `capture --stdin` reads
    Jsonl,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Jsonl => "jsonl",
        }
    }
}

/// One turn read from a transcript, before validation. Saved with a
/// file's mark while it is still open (`file::OpenTurn`), so its fields
/// are read back with defaults for any a later version adds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Draft {
    pub session: String,
    /// Project as the transcript gives it (ragger's JSON Lines).
    pub project: Option<String>,
    /// Working folder of the turn (agents' transcripts): names the project.
    pub cwd: Option<String>,
    /// Idempotency key from the transcript's own ids.
    pub key: String,
    /// RFC 3339 event time of the record that starts the turn.
    pub at: Option<String>,
    pub user: String,
    pub assistant: String,
    /// Whether the assistant said something in words (not only tool calls).
    pub has_text: bool,
    /// Whether the last thing the assistant did was saying something in
    /// words (not a tool call or result): the reply may be complete.
    pub ends_with_words: bool,
    /// Byte offset and line number (1-based) where the turn starts.
    pub start: u64,
    pub start_line: u64,
}

impl Draft {
    /// Add a line to the reply: the assistant's `words`, or a tool line.
    fn push_assistant(&mut self, text: &str, words: bool) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if !self.assistant.is_empty() {
            self.assistant.push('\n');
        }
        self.assistant.push_str(text);
        self.has_text |= words;
        self.ends_with_words = words;
    }

    /// Complete the reply with the agent's own copy of its last message
    /// (Claude Code's Stop hook gives it, written before the transcript
    /// may have it): added when the reply read so far does not end in
    /// words and does not hold it already. Returns whether it was added.
    pub fn complete_with(&mut self, last_message: &str) -> bool {
        let m = last_message.trim();
        if m.is_empty() || self.ends_with_words || self.assistant.contains(m) {
            return false;
        }
        self.push_assistant(m, true);
        true
    }
}

/// What a parser carries across an incremental read: the session and the
/// working directory a format states once (Codex's session meta).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Carry {
    pub session: Option<String>,
    pub cwd: Option<String>,
}

/// One line of a transcript: its 1-based number, byte offset and bytes.
pub struct Line<'a> {
    pub no: u64,
    pub offset: u64,
    pub bytes: &'a [u8],
}

/// A transcript parser: fed line by line, collects finished turns.
/// What every transcript parser keeps between lines: the carry, the turn
/// still open, the finished turns and the counts of lines passed over.
#[derive(Default)]
pub struct ParseState {
    pub carry: Carry,
    pub current: Option<Draft>,
    pub done: Vec<Draft>,
    pub skipped: BTreeMap<String, u64>,
}

impl ParseState {
    pub fn new(carry: Carry) -> ParseState {
        ParseState { carry, ..ParseState::default() }
    }
    /// Count a line passed over, by what it was.
    pub fn skip(&mut self, what: &str) {
        *self.skipped.entry(what.to_string()).or_default() += 1;
    }
}

pub trait Parser {
    /// Feed one non-blank line. `Err` is a malformed line (the reason).
    fn feed(&mut self, line: &Line<'_>) -> Result<(), String>;
    fn state(&mut self) -> &mut ParseState;
    /// A line the next read must start at (at the latest), as (offset,
    /// line number): what was read from it is still needed (Codex: a turn
    /// id seen before its prompt).
    fn resume_at(&self) -> Option<(u64, u64)> {
        None
    }
    /// Whether the open turn's key is final (Codex: a turn id may still
    /// follow a prompt with no reply yet).
    fn open_key_final(&self) -> bool {
        true
    }
    /// Finished turns so far (taken).
    fn take_done(&mut self) -> Vec<Draft> {
        std::mem::take(&mut self.state().done)
    }
    /// The turn still open at the end of the input, if any.
    fn open_turn(&mut self) -> Option<Draft> {
        self.state().current.take()
    }
    /// Whether the parser's whole state between lines is its carry and
    /// its open turn, so a read may go on from the end of the last one
    /// with the open turn handed back ([`Parser::resume`]) instead of
    /// starting over at that turn.
    fn resumable(&self) -> bool {
        false
    }
    /// Go on with `open`, the turn a read of the lines before this one
    /// left open.
    fn resume(&mut self, open: Draft) {
        self.state().current = Some(open);
    }
    fn carry(&mut self) -> Carry {
        self.state().carry.clone()
    }
    fn skipped(&mut self) -> &mut BTreeMap<String, u64> {
        &mut self.state().skipped
    }
}

/// Feed `lines` to a parser as one file (line numbers and offsets as a
/// reader would give them); the turns found, the open one last, and the
/// counts of lines passed over.
#[cfg(test)]
pub fn parse_all(p: &mut dyn Parser, lines: &[&str]) -> (Vec<Draft>, BTreeMap<String, u64>) {
    let mut off = 0;
    for (i, l) in lines.iter().enumerate() {
        p.feed(&Line { no: i as u64 + 1, offset: off, bytes: l.as_bytes() }).unwrap();
        off += l.len() as u64 + 1;
    }
    let mut out = p.take_done();
    out.extend(p.open_turn());
    (out, p.skipped().clone())
}

pub fn parser(format: Format, carry: Carry, fallback_session: Option<String>) -> Box<dyn Parser> {
    match format {
        Format::ClaudeCode => Box::new(claude::ClaudeParser::new(carry, fallback_session)),
        Format::Codex => Box::new(codex::CodexParser::new(carry, fallback_session)),
        Format::Jsonl => Box::new(JsonlParser::default()),
    }
}

/// Counts of one import, per file or in total.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct Report {
    pub files: u64,
    pub turns: u64,
    pub stored: u64,
    pub duplicates: u64,
    /// Turns stored before with a shorter reply (read while it was being
    /// written), now stored complete.
    pub updated: u64,
    /// Turns `forget` removed: not stored again.
    pub forgotten: u64,
    pub rejected: u64,
    /// Each refused turn: file, line and why. The next run reads it again.
    pub refused: Vec<Refused>,
    /// Turns of excluded projects or `.ragger-ignore` folders.
    pub excluded: u64,
    /// Secrets redacted in the stored turns.
    pub redactions: u64,
    pub malformed: u64,
    /// Records skipped, by type (unknown types, sidechains, meta records).
    pub skipped: BTreeMap<String, u64>,
    /// Bytes read from the files (the tail only, when imported before).
    pub bytes_read: u64,
    /// Bytes left for a later run (a hook's size or time limit).
    pub unread_bytes: u64,
}

/// A turn the door refused, where it starts.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Refused {
    pub file: String,
    pub line: u64,
    pub reason: String,
}

impl Report {
    pub fn add(&mut self, other: &Report) {
        self.files += other.files;
        self.turns += other.turns;
        self.stored += other.stored;
        self.duplicates += other.duplicates;
        self.updated += other.updated;
        self.forgotten += other.forgotten;
        self.rejected += other.rejected;
        self.refused.extend(other.refused.iter().cloned());
        self.excluded += other.excluded;
        self.redactions += other.redactions;
        self.malformed += other.malformed;
        self.bytes_read += other.bytes_read;
        self.unread_bytes += other.unread_bytes;
        for (k, v) in &other.skipped {
            *self.skipped.entry(k.clone()).or_default() += v;
        }
    }
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// One short line: whitespace collapsed, at most `max` characters.
pub fn short(text: &str, max: usize) -> String {
    // Words are joined only until the line is known to be too long: a tool
    // result can be megabytes, of which 120 characters are kept.
    let mut flat = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > 0 {
            flat.push(' ');
            chars += 1;
        }
        flat.push_str(word);
        chars += word.chars().count();
        if chars > max {
            break;
        }
    }
    if chars <= max {
        return flat;
    }
    let mut s: String = flat.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Cut `text` to at most `max` bytes on a character boundary, keeping the
/// beginning and the end (the ask and the conclusion), marking the cut.
pub fn fit(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    const MARK: &str = "\n[… cut by ragger import …]\n";
    if max <= MARK.len() + 8 {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        return text[..end].to_string();
    }
    let room = max - MARK.len();
    let mut head = room * 2 / 3;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (room - head);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}{MARK}{}", &text[..head], &text[tail..])
}

/// ragger's own format: each line is one turn, as `capture --stdin` reads.
#[derive(Default)]
struct JsonlParser {
    state: ParseState,
}

impl Parser for JsonlParser {
    fn feed(&mut self, line: &Line<'_>) -> Result<(), String> {
        let t = crate::capture::parse_line(line.bytes)?;
        // Without an id the door derives the key from the (redacted) turn,
        // as `capture --stdin` does, so the same line read again, even from
        // another file or after a fix above it, is stored once.
        let key = t.id.clone().unwrap_or_default();
        self.state.done.push(Draft {
            session: t.session,
            project: t.project,
            cwd: None,
            key,
            at: t.at,
            user: t.user,
            assistant: t.assistant,
            has_text: true,
            ends_with_words: true,
            start: line.offset,
            start_line: line.no,
        });
        Ok(())
    }
    fn state(&mut self) -> &mut ParseState {
        &mut self.state
    }
}

/// The capture input for a draft, with fields cut to `max_field_bytes`.
pub fn to_input(d: Draft, max_field_bytes: usize) -> crate::capture::TurnInput {
    crate::capture::TurnInput {
        session: d.session,
        project: d.project,
        user: fit(&d.user, max_field_bytes),
        assistant: fit(&d.assistant, max_field_bytes),
        at: d.at,
        id: Some(d.key).filter(|k| !k.is_empty()),
        kind: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_both_ends_within_the_limit() {
        let text = format!("{}{}", "a".repeat(500), "z".repeat(500));
        let out = fit(&text, 200);
        assert!(out.len() <= 200, "{}", out.len());
        assert!(out.starts_with('a') && out.ends_with('z') && out.contains("cut by ragger import"));
        assert_eq!(fit("short", 200), "short");
        let multi = "é".repeat(300);
        assert!(fit(&multi, 101).len() <= 101);
    }

    #[test]
    fn short_collapses_and_cuts() {
        assert_eq!(short("a\n  b", 10), "a b");
        assert_eq!(short(&"x".repeat(20), 5), "xxxx…");
        // The whole text collapsed, then cut: the same line whatever its length.
        let long = "  ab\tcdé  fg\n".repeat(50);
        for max in [1, 2, 3, 4, 5, 8, 9, 10, 119, 120, 121, 500, 700] {
            let flat = crate::display::one_line(&long);
            let want =
                if flat.chars().count() <= max { flat } else { flat.chars().take(max - 1).chain(['…']).collect() };
            assert_eq!(short(&long, max), want, "max {max}");
        }
    }
}
