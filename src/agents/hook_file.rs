//! The hooks object Claude Code's `settings.json` and Codex's `hooks.json`
//! share: `"hooks"` maps an event name to a list of matcher groups
//! `{"matcher"?, "hooks": [{"type": "command", "command": "…"}]}`
//! (https://code.claude.com/docs/en/hooks, "Configuration";
//! https://developers.openai.com/codex/hooks and
//! codex-rs/config/src/hook_config.rs `HooksFile`/`MatcherGroup`).
//!
//! The files are read and written back with their keys in their order
//! (serde_json's `preserve_order`), so only ragger's entries change.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde_json::{json, Map, Value};

use super::{is_ragger_hook, shell_split};

/// A JSON settings file's object; an empty or absent file is an empty one.
pub fn parse(path: &Path, text: Option<&str>) -> Result<Map<String, Value>> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else { return Ok(Map::new()) };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => bail!("{}: not a JSON object; left as it is", path.display()),
        Err(e) => bail!("{}: not valid JSON ({e}); left as it is", path.display()),
    }
}

/// Two-space JSON, ending with a newline when the file did (or is new).
pub fn render(root: Map<String, Value>, before: Option<&str>) -> String {
    let mut s = serde_json::to_string_pretty(&Value::Object(root)).expect("JSON");
    if before.is_none_or(|b| b.ends_with('\n')) {
        s.push('\n');
    }
    s
}

/// Where ragger's hook for one event is: the indexes of its matcher group
/// and of the handler in it (Codex names a hook's trust by them), and its
/// argument vector.
pub struct Ours {
    pub group: usize,
    pub handler: usize,
    pub argv: Vec<String>,
}

/// The first command hook of `event` that is ragger's for `agent`.
pub fn find(hooks: &Map<String, Value>, event: &str, agent: &str) -> Option<Ours> {
    let groups = hooks.get(event).and_then(Value::as_array)?;
    for (g, group) in groups.iter().enumerate() {
        let Some(list) = group.get("hooks").and_then(Value::as_array) else { continue };
        for (h, hook) in list.iter().enumerate() {
            if hook.get("type").and_then(Value::as_str) != Some("command") {
                continue;
            }
            let Some(c) = hook.get("command").and_then(Value::as_str) else { continue };
            let argv = shell_split(c);
            if is_ragger_hook(&argv, agent) {
                return Some(Ours { group: g, handler: h, argv });
            }
        }
    }
    None
}

/// Give `root["hooks"]` ragger's `command` for each of `events`: a ragger
/// entry that names another binary or config is updated in place, a
/// missing one is added as a matcher group of its own after the user's;
/// every other key and hook is kept as it is.
pub fn merge(
    root: &mut Map<String, Value>,
    path: &Path,
    events: &[&str],
    agent: &str,
    command: &str,
    changes: &mut Vec<String>,
) -> Result<()> {
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| anyhow!("{}: \"hooks\" is not an object", path.display()))?;
    for &event in events {
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        let groups =
            groups.as_array_mut().ok_or_else(|| anyhow!("{}: \"hooks\".\"{event}\" is not a list", path.display()))?;
        let mut found = false;
        for group in groups.iter_mut() {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else { continue };
            for hook in list.iter_mut() {
                let Some(c) = hook.get("command").and_then(Value::as_str) else { continue };
                if hook.get("type").and_then(Value::as_str) != Some("command")
                    || !is_ragger_hook(&shell_split(c), agent)
                {
                    continue;
                }
                if c != command {
                    changes.push(format!("{event} hook updated (was `{c}`)"));
                    hook["command"] = Value::String(command.to_string());
                }
                found = true;
            }
        }
        if !found {
            groups.push(json!({"hooks": [{"type": "command", "command": command}]}));
            changes.push(format!("{event} hook added"));
        }
    }
    Ok(())
}
