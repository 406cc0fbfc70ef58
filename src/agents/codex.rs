//! Codex CLI's `~/.codex/config.toml`, edited with `toml_edit` so comments,
//! order and formatting stay as the user wrote them.
//!
//! - `notify`: a top-level argument vector; Codex runs it after each turn
//!   with the notification JSON appended as the last argument
//!   (https://developers.openai.com/codex/config-reference, `notify`;
//!   codex-rs/core/src/user_notification.rs). There is one: a program the
//!   user already has is kept and run by ragger after itself
//!   (`ragger hook codex --then PROGRAM ARGS…`).
//! - `[mcp_servers.ragger]`: `command` and `args`, written as a table (a
//!   top-level dotted `mcp_servers.ragger = {…}` breaks a file that has an
//!   `[mcp_servers]` table already). https://developers.openai.com/codex/mcp
//!
//! Codex's own hooks (`hooks.json`) are `codex_hooks.rs`.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use toml_edit::{Array, DocumentMut, Item, Table, Value};

use super::{is_ragger_hook, judge, read_optional, Edit, Found, Wiring};

pub const AGENT: &str = "codex";
pub const SERVER: &str = "ragger";
/// Between ragger's hook and the user's own notify program.
pub const THEN: &str = "--then";

fn parse(path: &Path, text: Option<&str>) -> Result<DocumentMut> {
    match text {
        None => Ok(DocumentMut::new()),
        Some(t) => t.parse().map_err(|e| anyhow!("{}: not valid TOML ({e}); left as it is", path.display())),
    }
}

/// A TOML array of strings as a vector; None if it is anything else.
fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(|x| x.as_str().map(str::to_string)).collect()
}

fn array(words: &[String]) -> Value {
    Value::Array(words.iter().collect::<Array>())
}

/// The notify vector ragger wants, given the one there now.
pub fn notify_for(current: Option<&[String]>, wiring: &Wiring) -> (Vec<String>, Option<String>) {
    let mut want = wiring.argv(&["hook", AGENT]);
    let note = match current {
        None => None,
        Some(argv) if is_ragger_hook(argv, AGENT) => {
            // ragger's own (maybe an older path): keep the program it runs.
            if let Some(i) = argv.iter().position(|w| w == THEN) {
                want.extend(argv[i..].iter().cloned());
            }
            None
        }
        Some([]) => None,
        Some(theirs) => {
            want.push(THEN.to_string());
            want.extend(theirs.iter().cloned());
            Some(format!("kept your notify program ({}): ragger runs it after itself", theirs.join(" ")))
        }
    };
    (want, note)
}

/// `config.toml` with ragger's notify and MCP server.
pub fn config_edit(path: &Path, wiring: &Wiring) -> Result<Edit> {
    let before = read_optional(path)?;
    let mut doc = parse(path, before.as_deref())?;
    let mut changes = Vec::new();

    // notify
    let current = match doc.get("notify") {
        None => None,
        Some(item) => Some(item.as_value().and_then(strings).ok_or_else(|| {
            anyhow!(
                "{}: notify is not a list of strings; left as it is (Codex takes an argument vector)",
                path.display()
            )
        })?),
    };
    let (want, note) = notify_for(current.as_deref(), wiring);
    if current.as_deref() != Some(&want[..]) {
        match &current {
            None => changes.push("notify added".to_string()),
            Some(old) => changes.push(format!("notify updated (was {})", old.join(" "))),
        }
        changes.extend(note);
        match doc.get_mut("notify").and_then(Item::as_value_mut) {
            // In place: the key keeps its comments and position.
            Some(v) => {
                let decor = v.decor().clone();
                *v = array(&want);
                *v.decor_mut() = decor;
            }
            None => {
                doc.insert("notify", Item::Value(array(&want)));
            }
        }
    }

    // [mcp_servers.ragger]
    let args: Vec<String> = wiring.argv(&["mcp"])[1..].to_vec();
    if doc.get("mcp_servers").is_none() {
        let mut t = Table::new();
        t.set_implicit(true);
        doc.insert("mcp_servers", Item::Table(t));
    }
    let servers = doc
        .get_mut("mcp_servers")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| anyhow!("{}: mcp_servers is not a table", path.display()))?;
    let existing = servers.get(SERVER);
    let same = existing.is_some_and(|e| {
        e.get("command").and_then(Item::as_str) == Some(wiring.exe())
            && e.get("args").and_then(Item::as_value).and_then(strings).as_deref() == Some(&args[..])
    });
    let is_table = existing.is_some_and(Item::is_table);
    if let Some(e) = existing.filter(|_| !same) {
        if !e.is_table_like() {
            bail!("{}: mcp_servers.{SERVER} is not a table", path.display());
        }
        let old = |k: &str| e.get(k).map(|v| v.to_string().trim().to_string()).unwrap_or_default();
        changes.push(format!(
            "[mcp_servers.{SERVER}] updated (was command = {}, args = {})",
            old("command"),
            old("args")
        ));
    }
    if !same || !is_table {
        // A table of its own, keeping the other keys of an entry there
        // (env, timeouts), also when it was written inline or dotted.
        let mut table = Table::new();
        if let Some(e) = servers.get(SERVER).and_then(Item::as_table_like) {
            for (k, v) in e.iter() {
                let v = match v {
                    Item::Value(v) => {
                        let mut v = v.clone();
                        v.decor_mut().clear();
                        Item::Value(v)
                    }
                    other => other.clone(),
                };
                table.insert(k, v);
            }
        }
        if existing.is_none() {
            changes.push(format!("[mcp_servers.{SERVER}] added"));
        } else if same {
            changes.push(format!("mcp_servers.{SERVER} rewritten as a table"));
        }
        table.insert("command", toml_edit::value(wiring.exe()));
        table.insert("args", Item::Value(array(&args)));
        servers.remove(SERVER);
        servers.insert(SERVER, Item::Table(table));
    }
    let after = doc.to_string();
    Ok(Edit { path: path.to_path_buf(), before, after, changes })
}

/// What `doctor` finds of ragger in Codex's config and hooks file, for
/// the Codex `support` says is installed.
pub fn check(path: &Path, hooks: &Path, wiring: &Wiring, support: super::codex_hooks::Support) -> Found {
    let mut found = Found::default();
    let doc = match read_optional(path).and_then(|t| parse(path, t.as_deref())) {
        Ok(d) => d,
        Err(e) => {
            found.problems.push(format!("{e:#}"));
            return found;
        }
    };
    let exe = wiring.exe();
    match doc.get("notify").and_then(Item::as_value).and_then(strings) {
        Some(argv) if is_ragger_hook(&argv, AGENT) => judge(&argv, "notify", exe, &mut found),
        Some(_) => found.problems.push(format!("notify in {} runs another program, not ragger", path.display())),
        None => found.problems.push(format!("no notify in {}", path.display())),
    }
    super::codex_hooks::check(hooks, &doc, wiring, support, &mut found);
    let server = doc.get("mcp_servers").and_then(|s| s.get(SERVER));
    match server {
        None => found.problems.push(format!("no [mcp_servers.{SERVER}] in {}", path.display())),
        Some(s) => {
            let mut argv: Vec<String> =
                s.get("command").and_then(Item::as_str).map(str::to_string).into_iter().collect();
            argv.extend(s.get("args").and_then(Item::as_value).and_then(strings).unwrap_or_default());
            judge(&argv, "MCP server", exe, &mut found);
        }
    }
    found
}

/// Codex's config as a document, for what other files' edits depend on
/// (its `[features]`); an absent file is an empty one.
pub fn read_config(path: &Path) -> Result<DocumentMut> {
    parse(path, read_optional(path)?.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wiring() -> Wiring {
        Wiring { prefix: vec!["/bin/ragger".into(), "--config".into(), "/c/config.toml".into()] }
    }

    fn edit(text: &str) -> Edit {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        config_edit(&path, &wiring()).unwrap()
    }

    #[test]
    fn an_existing_mcp_servers_table_gets_a_ragger_table_and_comments_stay() {
        let mine = "# my codex\nmodel = \"o4-mini\" # fast\n\n[mcp_servers.docs]\ncommand = \"docs-server\"\n";
        let e = edit(mine);
        assert!(e.after.starts_with("# my codex\nmodel = \"o4-mini\" # fast\nnotify = ["), "{}", e.after);
        assert!(e.after.contains("[mcp_servers.docs]\ncommand = \"docs-server\"\n"), "{}", e.after);
        assert!(
            e.after.contains(
                "[mcp_servers.ragger]\ncommand = \"/bin/ragger\"\nargs = [\"--config\", \"/c/config.toml\", \"mcp\"]\n"
            ),
            "{}",
            e.after
        );
        let parsed: toml::Value = e.after.parse().unwrap();
        assert_eq!(parsed["mcp_servers"]["docs"]["command"].as_str(), Some("docs-server"));
        assert_eq!(edit(&e.after).changes, Vec::<String>::new(), "a second run changes nothing");
        assert!(!edit(&e.after).changed());
    }

    #[test]
    fn the_users_notify_program_is_kept_and_run_after_ragger() {
        let e = edit("notify = [\"notify-send\", \"Codex\"]\n");
        let parsed: toml::Value = e.after.parse().unwrap();
        let notify: Vec<&str> = parsed["notify"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(
            notify,
            ["/bin/ragger", "--config", "/c/config.toml", "hook", "codex", "--then", "notify-send", "Codex"]
        );
        assert!(
            e.changes.iter().any(|c| c.contains("kept your notify program (notify-send Codex)")),
            "{:?}",
            e.changes
        );
        // Again: the same; a moved binary: the user's program still kept.
        assert!(!edit(&e.after).changed());
        let moved = e.after.replace("/bin/ragger", "/old/ragger");
        assert_eq!(edit(&moved).after, e.after);
    }

    #[test]
    fn the_old_dotted_snippet_becomes_a_table() {
        let old = "mcp_servers.ragger = { command = \"/old/ragger\", args = [\"mcp\"], startup_timeout_sec = 20 }\n";
        let e = edit(old);
        let parsed: toml::Value = e.after.parse().unwrap();
        assert_eq!(parsed["mcp_servers"]["ragger"]["command"].as_str(), Some("/bin/ragger"));
        assert_eq!(parsed["mcp_servers"]["ragger"]["startup_timeout_sec"].as_integer(), Some(20));
        assert!(e.after.contains("[mcp_servers.ragger]\n"), "{}", e.after);
        assert!(!edit(&e.after).changed());
    }

    #[test]
    fn an_explicit_mcp_servers_table_stays_valid() {
        // The case the old dotted snippet broke: `[mcp_servers]` with
        // inline entries; a `notify` written after a table would belong to it.
        let mine = "[mcp_servers]\ndocs = { command = \"docs-server\" }\n\n[profiles.fast]\nmodel = \"m\"\n";
        let e = edit(mine);
        let parsed: toml::Value = e.after.parse().unwrap_or_else(|err| panic!("{err}\n{}", e.after));
        assert_eq!(parsed["mcp_servers"]["docs"]["command"].as_str(), Some("docs-server"));
        assert_eq!(parsed["mcp_servers"]["ragger"]["command"].as_str(), Some("/bin/ragger"));
        assert!(parsed["notify"].is_array(), "notify at the top level: {}", e.after);
        assert!(parsed["profiles"]["fast"].get("notify").is_none());
        assert!(e.after.starts_with("notify = ["), "{}", e.after);
        assert!(!edit(&e.after).changed());
    }

    #[test]
    fn a_notify_that_is_not_a_list_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "notify = \"notify-send\"\n").unwrap();
        let e = config_edit(&path, &wiring()).err().unwrap().to_string();
        assert!(e.contains("notify is not a list of strings"), "{e}");
    }
}
