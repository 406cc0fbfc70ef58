//! Codex CLI rollout files: JSON Lines under ~/.codex/sessions/YYYY/MM/DD/,
//! each record `{timestamp, type, payload}` with type `session_meta`
//! (payload.id, payload.cwd), `turn_context` (cwd, turn_id in newer
//! versions), `response_item` (payload.type `message` with role and
//! `input_text`/`output_text` content, `function_call`,
//! `function_call_output`, `custom_tool_call`, `local_shell_call`,
//! `reasoning`, …), `event_msg` (`user_message`, `agent_message`,
//! token counts, …) and `compacted`.
//!
//! A turn starts at the user's prompt (an `event_msg` user_message or a
//! user `message` that is not injected context such as
//! `<environment_context>`; the two copies of one prompt are one turn) and
//! its key is the turn id of its `turn_context` when the file has one — the
//! id `ragger hook codex` gets from `notify`, so both doors agree — else the
//! prompt's timestamp.

use serde_json::Value;

use super::claude::tool_argument;
use super::{short, Carry, Draft, Line, ParseState, Parser};

const TOOL_LINE: usize = 120;

pub struct CodexParser {
    state: ParseState,
    fallback_session: Option<String>,
    /// The current turn already has its turn id.
    current_has_id: bool,
    /// A turn id seen before its prompt: (id, offset, line).
    pending_id: Option<(String, u64, u64)>,
}

/// User messages Codex writes itself: instructions and environment context.
fn injected(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<environment_context>")
        || t.starts_with("<user_instructions>")
        || t.starts_with("<permissions instructions>")
        || t.starts_with("<user_shell_command>")
        || t.starts_with("# AGENTS.md instructions")
        || t.starts_with("<turn_aborted>")
}

fn is_text_block(b: &Value) -> bool {
    matches!(b.get("type").and_then(Value::as_str), Some("input_text" | "output_text" | "text"))
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| is_text_block(b))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

impl CodexParser {
    pub fn new(carry: Carry, fallback_session: Option<String>) -> CodexParser {
        CodexParser { state: ParseState::new(carry), fallback_session, current_has_id: false, pending_id: None }
    }

    fn skip(&mut self, what: &str) {
        self.state.skip(what);
    }

    fn prompt(&mut self, text: String, at: Option<String>, line: &Line<'_>) {
        if text.trim().is_empty() {
            return;
        }
        // The same prompt as a response item and as an event: one turn.
        if let Some(t) = &self.state.current {
            if t.assistant.is_empty() && t.user.trim() == text.trim() {
                return;
            }
        }
        if let Some(t) = self.state.current.take() {
            self.state.done.push(t);
        }
        let (key, start, start_line, has_id) = match self.pending_id.take() {
            Some((id, off, no)) => (id, off, no, true),
            None => (format!("at:{}", at.clone().unwrap_or_else(|| line.no.to_string())), line.offset, line.no, false),
        };
        self.current_has_id = has_id;
        self.state.current = Some(Draft {
            session: self.state.carry.session.clone().or_else(|| self.fallback_session.clone()).unwrap_or_default(),
            project: None,
            cwd: self.state.carry.cwd.clone(),
            key,
            at,
            user: text,
            assistant: String::new(),
            has_text: false,
            ends_with_words: false,
            start,
            start_line,
        });
    }

    fn turn_id(&mut self, id: String, line: &Line<'_>) {
        match self.state.current.as_mut() {
            // A turn context written after its prompt names that turn.
            Some(t) if !self.current_has_id && t.assistant.is_empty() => {
                t.key = id;
                self.current_has_id = true;
            }
            _ => self.pending_id = Some((id, line.offset, line.no)),
        }
    }

    fn assistant(&mut self, text: &str, words: bool) -> bool {
        match self.state.current.as_mut() {
            Some(t) => {
                t.push_assistant(text, words);
                true
            }
            None => false,
        }
    }
}

impl Parser for CodexParser {
    fn feed(&mut self, line: &Line<'_>) -> Result<(), String> {
        let text = std::str::from_utf8(line.bytes).map_err(|e| format!("not valid UTF-8 ({e})"))?;
        let rec: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let kind = rec.get("type").and_then(Value::as_str).unwrap_or("untyped").to_string();
        let at = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
        let payload = rec.get("payload").cloned().unwrap_or(Value::Null);
        let ptype = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match kind.as_str() {
            "session_meta" => {
                if let Some(id) = payload.get("id").or_else(|| payload.get("session_id")).and_then(Value::as_str) {
                    self.state.carry.session = Some(id.to_string());
                }
                if let Some(cwd) = payload.get("cwd").and_then(Value::as_str) {
                    self.state.carry.cwd = Some(cwd.to_string());
                }
            }
            "turn_context" => {
                if let Some(cwd) = payload.get("cwd").and_then(Value::as_str) {
                    self.state.carry.cwd = Some(cwd.to_string());
                }
                if let Some(id) = payload.get("turn_id").and_then(Value::as_str) {
                    self.turn_id(id.to_string(), line);
                }
            }
            "event_msg" => {
                if ptype == "user_message" {
                    let msg = payload.get("message").and_then(Value::as_str).unwrap_or("").to_string();
                    self.prompt(msg, at, line);
                }
                // agent_message repeats the assistant's response item;
                // token counts and the rest are bookkeeping.
            }
            "response_item" => match ptype {
                "message" => {
                    let role = payload.get("role").and_then(Value::as_str).unwrap_or("");
                    let body = content_text(payload.get("content").unwrap_or(&Value::Null));
                    match role {
                        "user" if injected(&body) => self.skip("injected context"),
                        "user" => {
                            let images = payload
                                .get("content")
                                .and_then(Value::as_array)
                                .map_or(0, |b| b.iter().filter(|b| !is_text_block(b)).count());
                            for _ in 0..images {
                                self.skip(super::claude::NON_TEXT);
                            }
                            self.prompt(body, at, line)
                        }
                        "assistant" => {
                            if !self.assistant(&body, true) {
                                self.skip("assistant without prompt");
                            }
                        }
                        _ => self.skip(&format!("{role} message")),
                    }
                }
                "reasoning" => {}
                "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
                    let name = payload.get("name").and_then(Value::as_str).unwrap_or(ptype).to_string();
                    let arg = match payload.get("arguments").or_else(|| payload.get("input")) {
                        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                            Ok(v @ Value::Object(_)) => tool_argument(&v),
                            _ => s.clone(),
                        },
                        Some(v) => tool_argument(v),
                        None => payload.get("action").map(tool_argument).unwrap_or_default(),
                    };
                    let line_text = format!("[tool {name}: {}]", short(&arg, TOOL_LINE));
                    if !self.assistant(&line_text, false) {
                        self.skip("tool call without prompt");
                    }
                }
                "function_call_output" | "custom_tool_call_output" => {
                    let out = match payload.get("output") {
                        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                            Ok(Value::Object(o)) => {
                                o.get("output").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| s.clone())
                            }
                            _ => s.clone(),
                        },
                        Some(v) => {
                            v.get("content").and_then(Value::as_str).map(str::to_string).unwrap_or(v.to_string())
                        }
                        None => String::new(),
                    };
                    let line_text = format!("[result: {}]", short(&out, TOOL_LINE));
                    if !self.assistant(&line_text, false) {
                        self.skip("tool result without prompt");
                    }
                }
                other => self.skip(&format!("response_item {other}")),
            },
            other => self.skip(other),
        }
        Ok(())
    }

    fn state(&mut self) -> &mut ParseState {
        &mut self.state
    }

    fn resume_at(&self) -> Option<(u64, u64)> {
        self.pending_id.as_ref().map(|(_, offset, no)| (*offset, *no))
    }

    fn open_key_final(&self) -> bool {
        // A turn context written after its prompt names the turn until the
        // reply begins (see `turn_id`).
        self.current_has_id || self.state.current.as_ref().is_none_or(|t| !t.assistant.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn run(lines: &[&str]) -> (Vec<Draft>, BTreeMap<String, u64>) {
        crate::import::parse_all(&mut CodexParser::new(Carry::default(), None), lines)
    }

    #[test]
    fn prompt_copies_are_one_turn_keyed_by_turn_id() {
        let (turns, skipped) = run(&[
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"T1","cwd":"/w/api"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:02Z","type":"turn_context","payload":{"turn_id":"turn-1","cwd":"/w/api"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:03Z","type":"event_msg","payload":{"type":"user_message","message":"run the tests"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"reasoning","summary":[]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:05Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cargo\",\"test\"]}","call_id":"c"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:06Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"{\"output\":\"ok. 3 passed\"}"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:07Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All 3 pass."}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:08Z","type":"event_msg","payload":{"type":"agent_message","message":"All 3 pass."}}"#,
            r#"{"timestamp":"2026-01-01T00:00:09Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"and lint"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:10Z","type":"turn_context","payload":{"turn_id":"turn-2"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:11Z","type":"mystery","payload":{}}"#,
        ]);
        assert_eq!(turns.len(), 2, "{turns:?}");
        assert_eq!(turns[0].key, "turn-1");
        assert_eq!(turns[0].session, "T1");
        assert_eq!(turns[0].cwd.as_deref(), Some("/w/api"));
        assert_eq!(turns[0].user, "run the tests");
        assert_eq!(turns[0].assistant, "[tool shell: cargo test]\n[result: ok. 3 passed]\nAll 3 pass.");
        assert_eq!(turns[0].start_line, 3, "the turn starts at its turn context");
        assert_eq!(turns[1].key, "turn-2", "a turn context after the prompt names that turn");
        assert_eq!(skipped.get("injected context"), Some(&1));
        assert_eq!(skipped.get("mystery"), Some(&1));
    }

    #[test]
    fn without_turn_ids_the_prompt_time_is_the_key() {
        let (turns, _) = run(&[
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"T1","cwd":"/w/api"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
        ]);
        assert_eq!(turns[0].key, "at:2026-01-01T00:00:03Z");
    }
}
