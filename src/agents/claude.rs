//! Claude Code's files.
//!
//! Hooks live in `~/.claude/settings.json` under `"hooks"`: each event name
//! maps to a list of matcher groups `{"matcher"?, "hooks": [{"type":
//! "command", "command": "…"}]}` (https://code.claude.com/docs/en/hooks,
//! "Configuration"). ragger registers `SessionStart` (memory in),
//! `Stop` (each turn out) and `SessionEnd` (the last turn, even one without
//! words).
//!
//! The MCP server is registered at user scope, where `claude mcp add
//! --scope user` writes it: the top-level `"mcpServers"` of `~/.claude.json`,
//! `{"type": "stdio", "command", "args", "env"}`
//! (https://code.claude.com/docs/en/mcp, "MCP installation scopes").
//!
//! Both files are JSON written by Claude Code with two-space indentation;
//! they are read and written back with their keys in their order
//! (`hook_file`), so only ragger's entries change.

use std::path::Path;

use anyhow::{anyhow, Result};
use serde_json::{json, Map, Value};

use super::hook_file::{find, merge, parse, render};
use super::{judge, read_optional, Edit, Found, Wiring};

/// The hook events ragger registers.
pub const EVENTS: [&str; 3] = ["SessionStart", "Stop", "SessionEnd"];
pub const AGENT: &str = "claude-code";
/// The MCP server's name.
pub const SERVER: &str = "ragger";

/// `settings.json` with ragger's three hooks: an entry of ragger's that
/// names another binary or config is updated in place; every other key and
/// hook is kept as it is.
pub fn settings_edit(path: &Path, wiring: &Wiring) -> Result<Edit> {
    let before = read_optional(path)?;
    let mut root = parse(path, before.as_deref())?;
    let command = wiring.shell(&["hook", AGENT]);
    let mut changes = Vec::new();
    merge(&mut root, path, &EVENTS, AGENT, &command, &mut changes)?;
    let after = render(root, before.as_deref());
    Ok(Edit { path: path.to_path_buf(), before, after, changes })
}

/// `~/.claude.json` with ragger's user-scope MCP server; the rest of the
/// file (Claude Code's own state) kept.
pub fn mcp_edit(path: &Path, wiring: &Wiring) -> Result<Edit> {
    let before = read_optional(path)?;
    let mut root = parse(path, before.as_deref())?;
    let args: Vec<Value> = wiring.argv(&["mcp"])[1..].iter().cloned().map(Value::String).collect();
    let servers = root.entry("mcpServers").or_insert_with(|| json!({}));
    let servers =
        servers.as_object_mut().ok_or_else(|| anyhow!("{}: \"mcpServers\" is not an object", path.display()))?;
    let mut changes = Vec::new();
    match servers.get_mut(SERVER).and_then(Value::as_object_mut) {
        Some(entry) => {
            let same = entry.get("command").and_then(Value::as_str) == Some(wiring.exe())
                && entry.get("args").and_then(Value::as_array) == Some(&args);
            if !same {
                changes.push(format!(
                    "MCP server {SERVER} updated (was {} {})",
                    entry.get("command").unwrap_or(&Value::Null),
                    entry.get("args").unwrap_or(&Value::Null)
                ));
                entry.insert("type".into(), "stdio".into());
                entry.insert("command".into(), wiring.exe().into());
                entry.insert("args".into(), Value::Array(args));
            }
        }
        None => {
            servers.insert(SERVER.into(), json!({"type": "stdio", "command": wiring.exe(), "args": args, "env": {}}));
            changes.push(format!("MCP server {SERVER} added (user scope)"));
        }
    }
    let after = render(root, before.as_deref());
    Ok(Edit { path: path.to_path_buf(), before, after, changes })
}

/// Check the hooks and the MCP server against this binary.
pub fn check(settings: &Path, claude_json: &Path, wiring: &Wiring) -> Found {
    let mut found = Found::default();
    let exe = wiring.exe();
    match read_optional(settings).and_then(|t| parse(settings, t.as_deref())) {
        Err(e) => found.problems.push(format!("{e:#}")),
        Ok(root) => {
            let empty = Map::new();
            let hooks = root.get("hooks").and_then(Value::as_object).unwrap_or(&empty);
            let mut missing = Vec::new();
            for event in EVENTS {
                match find(hooks, event, AGENT) {
                    None => missing.push(event),
                    Some(ours) => judge(&ours.argv, &format!("{event} hook"), exe, &mut found),
                }
            }
            if !missing.is_empty() {
                found.problems.push(format!("no ragger {} hook in {}", missing.join(", "), settings.display()));
            }
        }
    }
    match read_optional(claude_json).and_then(|t| parse(claude_json, t.as_deref())) {
        Err(e) => found.problems.push(format!("{e:#}")),
        Ok(root) => match root.get("mcpServers").and_then(|s| s.get(SERVER)) {
            None => found
                .problems
                .push(format!("no MCP server {SERVER} at user scope (\"mcpServers\" in {})", claude_json.display())),
            Some(entry) => {
                let mut argv: Vec<String> =
                    entry.get("command").and_then(Value::as_str).map(str::to_string).into_iter().collect();
                argv.extend(
                    entry
                        .get("args")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_string),
                );
                judge(&argv, "MCP server", exe, &mut found);
            }
        },
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wiring() -> Wiring {
        Wiring { prefix: vec!["/bin/ragger".into(), "--config".into(), "/c/config.toml".into()] }
    }

    #[test]
    fn settings_keep_other_hooks_and_keys_in_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let mine = r#"{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "/old/ragger hook claude-code"}]}]
  },
  "model": "opus"
}"#;
        std::fs::write(&path, mine).unwrap();
        let edit = settings_edit(&path, &wiring()).unwrap();
        assert!(edit.changed());
        let v: Value = serde_json::from_str(&edit.after).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["permissions", "hooks", "model"], "the user's order");
        let stop = &v["hooks"]["Stop"];
        assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(stop[1]["hooks"][0]["command"], "/bin/ragger --config /c/config.toml hook claude-code");
        let start = &v["hooks"]["SessionStart"];
        assert_eq!(start.as_array().unwrap().len(), 1, "the old ragger hook is updated in place: {start}");
        assert_eq!(start[0]["matcher"], "startup");
        assert_eq!(start[0]["hooks"][0]["command"], "/bin/ragger --config /c/config.toml hook claude-code");
        assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["type"], "command");
        assert!(!edit.after.ends_with('\n'), "no newline added to a file without one");
        std::fs::write(&path, &edit.after).unwrap();
        assert!(!settings_edit(&path, &wiring()).unwrap().changed(), "a second run changes nothing");
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, r#"{"hooks": {"Stop": "oops"}}"#).unwrap();
        let e = settings_edit(&path, &wiring()).err().unwrap().to_string();
        assert!(e.contains("\"hooks\".\"Stop\" is not a list"), "{e}");
        std::fs::write(&path, "{not json").unwrap();
        assert!(settings_edit(&path, &wiring()).err().unwrap().to_string().contains("not valid JSON"));
    }
}
