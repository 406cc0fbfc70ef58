//! Claude Code transcripts: JSON Lines under ~/.claude/projects/, one
//! record per line with `type` (`user`, `assistant`, `summary`, `system`,
//! …), `message.role`, `message.content` (a string or a list of `text`,
//! `thinking`, `tool_use`, `tool_result`, `image` blocks), `uuid`,
//! `parentUuid`, `timestamp`, `sessionId`, `cwd`, `isSidechain`, `isMeta`.
//!
//! A turn starts at a user record that carries a prompt (not tool results)
//! and runs to the next one; its key is that record's `uuid`. Assistant
//! text is kept, tool calls and results become one short line each,
//! thinking is dropped.

use serde_json::Value;

use super::{short, Carry, Draft, Line, ParseState, Parser};

/// Characters of a tool call's argument or a tool result kept in its line.
const TOOL_LINE: usize = 120;

pub struct ClaudeParser {
    state: ParseState,
    fallback_session: Option<String>,
}

impl ClaudeParser {
    pub fn new(carry: Carry, fallback_session: Option<String>) -> ClaudeParser {
        ClaudeParser { state: ParseState::new(carry), fallback_session }
    }

    fn skip(&mut self, what: &str) {
        self.state.skip(what);
    }

    fn start_turn(&mut self, rec: &Record, prompt: String, line: &Line<'_>) {
        if let Some(t) = self.state.current.take() {
            self.state.done.push(t);
        }
        if let Some(s) = rec.get("sessionId").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            self.state.carry.session = Some(s.to_string());
        }
        if let Some(c) = rec.get("cwd").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            self.state.carry.cwd = Some(c.to_string());
        }
        let at = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
        let key = rec
            .get("uuid")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| at.clone().map(|t| format!("at:{t}")))
            .unwrap_or_else(|| format!("line:{}", line.no));
        self.state.current = Some(Draft {
            session: self.state.carry.session.clone().or_else(|| self.fallback_session.clone()).unwrap_or_default(),
            project: None,
            cwd: self.state.carry.cwd.clone(),
            key,
            at,
            user: prompt,
            assistant: String::new(),
            has_text: false,
            ends_with_words: false,
            start: line.offset,
            start_line: line.no,
        });
    }
}

/// The fields of a record the parser reads. The others (`toolUseResult`,
/// which repeats a tool's whole output, the usage, file snapshots) are
/// skipped as they are parsed, not built into a tree: most of a
/// transcript's bytes are in them.
#[derive(Default, serde::Deserialize)]
struct Record {
    #[serde(rename = "type")]
    kind: Option<Value>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<Value>,
    #[serde(rename = "isMeta")]
    is_meta: Option<Value>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<Value>,
    #[serde(rename = "sessionId")]
    session_id: Option<Value>,
    cwd: Option<Value>,
    timestamp: Option<Value>,
    uuid: Option<Value>,
    message: Option<Value>,
}

impl Record {
    /// A line's record. What the fields cannot hold (not an object, a key
    /// given twice) is read as any JSON value is, the last of two keys
    /// winning; what is not JSON is the error.
    fn parse(text: &str) -> Result<Record, String> {
        if let Ok(r) = serde_json::from_str::<Record>(text) {
            return Ok(r);
        }
        let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let field = |k: &str| v.get(k).filter(|f| !f.is_null()).cloned();
        Ok(Record {
            kind: field("type"),
            is_sidechain: field("isSidechain"),
            is_meta: field("isMeta"),
            is_compact_summary: field("isCompactSummary"),
            session_id: field("sessionId"),
            cwd: field("cwd"),
            timestamp: field("timestamp"),
            uuid: field("uuid"),
            message: field("message"),
        })
    }

    fn get(&self, key: &str) -> Option<&Value> {
        match key {
            "type" => self.kind.as_ref(),
            "isSidechain" => self.is_sidechain.as_ref(),
            "isMeta" => self.is_meta.as_ref(),
            "isCompactSummary" => self.is_compact_summary.as_ref(),
            "sessionId" => self.session_id.as_ref(),
            "cwd" => self.cwd.as_ref(),
            "timestamp" => self.timestamp.as_ref(),
            "uuid" => self.uuid.as_ref(),
            "message" => self.message.as_ref(),
            _ => None,
        }
    }
}

/// Text of a content value: a string, or the `text` blocks of a list.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What the import report counts images and documents as.
pub const NON_TEXT: &str = "non-text content";

/// Blocks of a content list that hold no text (images, documents).
fn non_text_blocks(content: &Value) -> usize {
    match content {
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| !matches!(b.get("type").and_then(Value::as_str), Some("text" | "tool_result")))
            .count(),
        _ => 0,
    }
}

/// The one argument that says what a tool call did.
pub fn tool_argument(input: &Value) -> String {
    for k in ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "cmd"] {
        if let Some(v) = input.get(k) {
            return match v {
                Value::String(s) => s.clone(),
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
                other => other.to_string(),
            };
        }
    }
    match input {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Parser for ClaudeParser {
    fn feed(&mut self, line: &Line<'_>) -> Result<(), String> {
        let text = std::str::from_utf8(line.bytes).map_err(|e| format!("not valid UTF-8 ({e})"))?;
        let mut rec = Record::parse(text)?;
        let kind = rec.kind.take();
        let Some(kind) = kind.as_ref().and_then(Value::as_str) else {
            self.skip("untyped");
            return Ok(());
        };
        if kind != "user" && kind != "assistant" {
            self.skip(kind);
            return Ok(());
        }
        if rec.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            self.skip("sidechain");
            return Ok(());
        }
        let content = match rec.message.take() {
            Some(Value::Object(mut m)) => m.remove("content").unwrap_or(Value::Null),
            _ => Value::Null,
        };
        if kind == "user" {
            if rec.get("isMeta").and_then(Value::as_bool) == Some(true)
                || rec.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
            {
                self.skip("meta");
                return Ok(());
            }
            let results: Vec<&Value> = match &content {
                Value::Array(b) => {
                    b.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")).collect()
                }
                _ => vec![],
            };
            if results.is_empty() {
                for _ in 0..non_text_blocks(&content) {
                    self.skip(NON_TEXT);
                }
                let prompt = text_of(&content);
                let t = prompt.trim_start();
                if t.is_empty() {
                    self.skip("empty user");
                    return Ok(());
                }
                // Slash commands (/clear, /model) and their output: no conversation.
                if t.starts_with("<command-name>") || t.starts_with("<local-command-") {
                    self.skip("command");
                    return Ok(());
                }
                // An interruption belongs to the turn it interrupted.
                if t.starts_with("[Request interrupted by user") {
                    if let Some(turn) = self.state.current.as_mut() {
                        turn.push_assistant("[interrupted by the user]", false);
                    }
                    return Ok(());
                }
                self.start_turn(&rec, prompt, line);
                return Ok(());
            }
            let Some(turn) = self.state.current.as_mut() else {
                self.skip("tool result without prompt");
                return Ok(());
            };
            for r in results {
                let body = short(&text_of(r.get("content").unwrap_or(&Value::Null)), TOOL_LINE);
                let error = if r.get("is_error").and_then(Value::as_bool) == Some(true) { "error: " } else { "" };
                turn.push_assistant(&format!("[result: {error}{body}]"), false);
            }
            return Ok(());
        }
        // assistant
        let Some(turn) = self.state.current.as_mut() else {
            self.skip("assistant without prompt");
            return Ok(());
        };
        let mut non_text = 0;
        match &content {
            Value::String(s) => {
                turn.push_assistant(s, true);
            }
            Value::Array(blocks) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                            turn.push_assistant(t, true);
                        }
                        Some("tool_use") => {
                            let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                            let arg = short(&tool_argument(b.get("input").unwrap_or(&Value::Null)), TOOL_LINE);
                            turn.push_assistant(&format!("[tool {name}: {arg}]"), false);
                        }
                        // The model's thinking: not memory.
                        Some("thinking" | "redacted_thinking") => {}
                        // Images, documents: no text to keep.
                        _ => non_text += 1,
                    }
                }
            }
            _ => {}
        }
        for _ in 0..non_text {
            self.skip(NON_TEXT);
        }
        Ok(())
    }

    fn state(&mut self) -> &mut ParseState {
        &mut self.state
    }

    // A turn is a prompt and every record after it: nothing but the turn
    // and the carry is kept between lines.
    fn resumable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn run(lines: &[&str]) -> (Vec<Draft>, BTreeMap<String, u64>) {
        crate::import::parse_all(&mut ClaudeParser::new(Carry::default(), None), lines)
    }

    #[test]
    fn a_turn_is_a_prompt_and_everything_until_the_next_prompt() {
        let (turns, skipped) = run(&[
            r#"{"type":"summary","summary":"x","leafUuid":"l"}"#,
            r#"{"type":"user","uuid":"u1","sessionId":"S","cwd":"/src/app","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"fix the build"}}"#,
            r#"{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"secret plan"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"cargo build"}}]}}"#,
            r#"{"type":"user","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"error[E0425]: x\nmore"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"text","text":"Fixed the typo."}]}}"#,
            r#"{"type":"user","uuid":"u2","sessionId":"S","cwd":"/src/app","timestamp":"2026-01-01T00:01:00Z","message":{"role":"user","content":[{"type":"text","text":"thanks"}]}}"#,
        ]);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].key, "u1");
        assert_eq!(turns[0].session, "S");
        assert_eq!(turns[0].cwd.as_deref(), Some("/src/app"));
        assert_eq!(turns[0].user, "fix the build");
        assert_eq!(turns[0].assistant, "[tool Bash: cargo build]\n[result: error[E0425]: x more]\nFixed the typo.");
        assert!(!turns[0].assistant.contains("secret"));
        assert!(turns[0].has_text);
        assert_eq!(turns[1].user, "thanks");
        assert!(!turns[1].has_text);
        assert_eq!(skipped.get("summary"), Some(&1));
    }

    #[test]
    fn records_read_as_json_values_a_repeated_key_and_a_line_that_is_no_object() {
        let (turns, skipped) = run(&[
            r#"["type", "user"]"#,
            r#"{"type":"user","uuid":"u1","sessionId":"S","message":{"role":"user","content":"first"},"message":{"role":"user","content":"second"},"toolUseResult":{"stdout":"x"}}"#,
            r#"{"type":"assistant","uuid":"a1","message":{"content":[{"type":"text","text":"done"}]},"toolUseResult":{"file":{"content":"long"}}}"#,
        ]);
        assert_eq!(skipped.get("untyped"), Some(&1), "{skipped:?}");
        assert_eq!(turns.len(), 1);
        assert_eq!((turns[0].user.as_str(), turns[0].assistant.as_str()), ("second", "done"));
    }

    #[test]
    fn sidechains_and_meta_records_are_skipped() {
        let (turns, skipped) = run(&[
            r#"{"type":"user","uuid":"u1","sessionId":"S","isMeta":true,"message":{"role":"user","content":"Caveat"}}"#,
            r#"{"type":"user","uuid":"u2","sessionId":"S","isSidechain":true,"message":{"role":"user","content":"sub task"}}"#,
            r#"{"type":"assistant","uuid":"a0","message":{"role":"assistant","content":"orphan"}}"#,
            r#"{"type":"user","uuid":"u3","sessionId":"S","message":{"role":"user","content":"<command-name>/clear</command-name>"}}"#,
            r#"{"type":"user","uuid":"u4","sessionId":"S","message":{"role":"user","content":"<local-command-stdout></local-command-stdout>"}}"#,
        ]);
        assert!(turns.is_empty());
        assert_eq!(skipped.get("meta"), Some(&1));
        assert_eq!(skipped.get("sidechain"), Some(&1));
        assert_eq!(skipped.get("assistant without prompt"), Some(&1));
        assert_eq!(skipped.get("command"), Some(&2));
    }
}
