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
    message: Option<Message>,
}

/// A record's message: only its content is read (the model, the usage
/// and the rest are skipped as they are parsed).
#[derive(Default, serde::Deserialize)]
struct Message {
    #[serde(default)]
    content: Content,
}

/// A message's (or a tool result's) content: a string, or a list of
/// blocks; anything else holds nothing.
#[derive(Default)]
enum Content {
    #[default]
    Empty,
    Text(String),
    Blocks(Vec<Block>),
}

/// One block of a content list: `text`, `tool_use`, `tool_result`,
/// `thinking`, `image`, … with the fields the parser reads; a thinking
/// block's text, a signature, an image's data are skipped unread.
#[derive(Default, serde::Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
    name: Option<String>,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    content: Content,
    is_error: Option<bool>,
}

impl<'de> serde::Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Content, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Content;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Content, E> {
                Ok(Content::Text(s.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Content, E> {
                Ok(Content::Text(s))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(Content::Empty)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Content, E> {
                Ok(Content::Empty)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Content, E> {
                Ok(Content::Empty)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Content, E> {
                Ok(Content::Empty)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Content, E> {
                Ok(Content::Empty)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Content, E> {
                Ok(Content::Empty)
            }
        }
        d.deserialize_any(Visit)
    }
}

impl Content {
    /// The content of a JSON value read as any value is (a record the
    /// typed fields could not hold): a block that is no object, or whose
    /// fields have other types, holds what its fields of the right type say.
    fn of(v: Option<&Value>) -> Content {
        let str_of = |b: &Value, k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
        match v {
            Some(Value::String(s)) => Content::Text(s.clone()),
            Some(Value::Array(blocks)) => Content::Blocks(
                blocks
                    .iter()
                    .map(|b| Block {
                        kind: str_of(b, "type"),
                        text: str_of(b, "text"),
                        name: str_of(b, "name"),
                        input: b.get("input").cloned().unwrap_or(Value::Null),
                        content: Content::of(b.get("content")),
                        is_error: b.get("is_error").and_then(Value::as_bool),
                    })
                    .collect(),
            ),
            _ => Content::Empty,
        }
    }

    fn blocks(&self) -> &[Block] {
        match self {
            Content::Blocks(b) => b,
            _ => &[],
        }
    }

    /// The text: the string, or the `text` blocks of the list.
    fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Blocks(blocks) => blocks
                .iter()
                .filter(|b| b.kind.as_deref() == Some("text"))
                .filter_map(|b| b.text.as_deref())
                .collect::<Vec<_>>()
                .join("\n"),
            Content::Empty => String::new(),
        }
    }
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
            message: v
                .get("message")
                .filter(|m| m.is_object())
                .map(|m| Message { content: Content::of(m.get("content")) }),
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
            _ => None,
        }
    }
}

/// What the import report counts images and documents as.
pub const NON_TEXT: &str = "non-text content";

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
        let content = rec.message.take().map(|m| m.content).unwrap_or_default();
        if kind == "user" {
            if rec.get("isMeta").and_then(Value::as_bool) == Some(true)
                || rec.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
            {
                self.skip("meta");
                return Ok(());
            }
            let results: Vec<&Block> =
                content.blocks().iter().filter(|b| b.kind.as_deref() == Some("tool_result")).collect();
            if results.is_empty() {
                // Images, documents: no text to keep.
                for _ in content.blocks().iter().filter(|b| !matches!(b.kind.as_deref(), Some("text" | "tool_result")))
                {
                    self.skip(NON_TEXT);
                }
                let prompt = content.text();
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
                let body = short(&r.content.text(), TOOL_LINE);
                let error = if r.is_error == Some(true) { "error: " } else { "" };
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
            Content::Text(s) => {
                turn.push_assistant(s, true);
            }
            Content::Blocks(blocks) => {
                for b in blocks {
                    match b.kind.as_deref() {
                        Some("text") => turn.push_assistant(b.text.as_deref().unwrap_or(""), true),
                        Some("tool_use") => {
                            let name = b.name.as_deref().unwrap_or("tool");
                            let arg = short(&tool_argument(&b.input), TOOL_LINE);
                            turn.push_assistant(&format!("[tool {name}: {arg}]"), false);
                        }
                        // The model's thinking: not memory.
                        Some("thinking" | "redacted_thinking") => {}
                        // Images, documents: no text to keep.
                        _ => non_text += 1,
                    }
                }
            }
            Content::Empty => {}
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
    fn blocks_of_other_shapes_are_read_by_what_their_fields_hold() {
        let (turns, skipped) = run(&[
            r#"{"type":"user","uuid":"u1","sessionId":"S","message":{"content":[{"type":"text","text":"run it"},{"type":"image","source":{}}]}}"#,
            r#"{"type":"assistant","uuid":"a1","message":{"content":["a bare string",{"type":"text","text":7},{"type":"tool_use","name":"Bash","input":{"command":["ls","-l"]}}]}}"#,
            r#"{"type":"user","uuid":"r1","message":{"content":[{"type":"tool_result","is_error":"yes","content":[{"type":"text","text":"a\n  b"},{"type":"text","text":"c"}]}]}}"#,
            r#"{"type":"assistant","uuid":"a2","message":{"content":[{"type":"text","text":"done"}],"usage":{"input_tokens":3}}}"#,
        ]);
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].user, "run it");
        assert_eq!(turns[0].assistant, "[tool Bash: ls -l]\n[result: a b c]\ndone");
        assert_eq!(skipped.get(NON_TEXT), Some(&2), "the image and the bare string: {skipped:?}");
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
