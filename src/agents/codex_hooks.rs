//! Codex's own lifecycle hooks, beside `notify`.
//!
//! Codex runs command hooks it finds in `~/.codex/hooks.json` (or inline
//! `[hooks]` tables of `config.toml`), of the shape Claude Code's settings
//! have: event → matcher groups → `{"type": "command", "command"}`
//! (https://developers.openai.com/codex/hooks, "Where Codex looks for
//! hooks"; codex-rs/config/src/hook_config.rs `HooksFile`, whose root takes
//! no other key). Each hook gets one JSON object on stdin
//! (codex-rs/hooks/src/schema.rs `SessionStartCommandInput`,
//! `StopCommandInput`). ragger registers:
//!
//! - `SessionStart`: its stdout, JSON with
//!   `hookSpecificOutput.additionalContext` (or plain text), becomes context
//!   for the model (codex-rs/hooks/src/events/session_start.rs);
//! - `Stop`: the end of each turn, with `transcript_path` (the rollout) and
//!   `last_assistant_message`; stdout must be empty or JSON, exit 2 would
//!   make Codex continue the turn, any other code is shown as a failed hook
//!   (codex-rs/hooks/src/events/stop.rs).
//!
//! Which Codex has them (its changelog and docs/hooks.md history): 0.114.0
//! added them as an experiment behind `[features] codex_hooks = true`; from
//! 0.130.0 they are on by default (`[features] hooks = false` turns them
//! off, `codex_hooks` is the old name) and a hook the user added runs only
//! once it has been reviewed and trusted in Codex (`/hooks`), which Codex
//! records in `config.toml` as `[hooks.state."FILE:EVENT:GROUP:HANDLER"]
//! trusted_hash` (codex-rs/hooks/src/engine/discovery.rs). ragger does not
//! write that trust itself: it is the user's review of what runs.
//! `notify` stays in every case: it stores each turn in Codex versions
//! without hooks and while the hooks wait for that review, under the same
//! key (the turn id) as the Stop hook's import of the rollout.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Result;
use toml_edit::{DocumentMut, Item};

use super::hook_file::{find, merge, parse, render};
use super::{judge, read_optional, Edit, Found, Wiring};

/// The hook events ragger registers with Codex.
pub const EVENTS: [&str; 2] = ["SessionStart", "Stop"];
pub const AGENT: &str = super::codex::AGENT;

/// A Codex version, as `codex --version` prints it (`codex-cli 0.130.0`).
pub type Version = (u32, u32, u32);

/// The first Codex with hooks (experimental, behind a feature flag).
pub const HOOKS_SINCE: Version = (0, 114, 0);
/// The first Codex that runs hooks by default, once trusted.
pub const DEFAULT_SINCE: Version = (0, 130, 0);

/// How long `codex --version` may take.
const VERSION_WAIT: Duration = Duration::from_secs(3);

pub fn parse_version(out: &str) -> Option<Version> {
    let word = out.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let mut parts = word.split(['.', '-', '+']).map(|p| p.parse::<u32>());
    Some((parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?))
}

pub fn show(v: Version) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// The version of the `codex` on PATH; None when there is none (or it
/// does not answer in time).
pub fn installed_version() -> Option<Version> {
    let mut child = Command::new("codex")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let until = Instant::now() + VERSION_WAIT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    parse_version(&out)
}

/// What the installed Codex does with hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// No `codex` on PATH: registered as for a current Codex (an older one
    /// never reads hooks.json).
    Unknown,
    /// Before 0.114.0: none; notify alone.
    None(Version),
    /// 0.114.0 to 0.129: an experiment, run only with `[features]
    /// codex_hooks = true`.
    Flagged(Version),
    /// 0.130.0 on: run by default, once trusted.
    Default(Version),
}

impl std::fmt::Display for Support {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Support::Unknown => write!(f, "no `codex` on PATH to ask its version"),
            Support::None(v) => write!(f, "Codex {} has no hooks (they came in {})", show(v), show(HOOKS_SINCE)),
            Support::Flagged(v) => write!(f, "Codex {} has hooks as an experiment", show(v)),
            Support::Default(v) => write!(f, "Codex {} runs hooks", show(v)),
        }
    }
}

impl Support {
    pub fn of(version: Option<Version>) -> Support {
        match version {
            None => Support::Unknown,
            Some(v) if v < HOOKS_SINCE => Support::None(v),
            Some(v) if v < DEFAULT_SINCE => Support::Flagged(v),
            Some(v) => Support::Default(v),
        }
    }
    /// Whether the hooks must be trusted in Codex before they run.
    fn needs_trust(self) -> bool {
        matches!(self, Support::Unknown | Support::Default(_))
    }
}

fn feature(config: &DocumentMut, key: &str) -> Option<bool> {
    config.get("features")?.get(key)?.as_bool()
}

/// Why Codex will not run the hooks although it has them, from its
/// `[features]`; None: it runs them.
pub fn off_because(support: Support, config: &DocumentMut) -> Option<String> {
    match support {
        Support::None(_) => None,
        Support::Flagged(v) => (feature(config, "codex_hooks") != Some(true))
            .then(|| format!("Codex {} runs hooks only with `[features] codex_hooks = true` in config.toml", show(v))),
        Support::Unknown | Support::Default(_) => {
            let on = feature(config, "hooks").or_else(|| feature(config, "codex_hooks")).unwrap_or(true);
            (!on).then(|| "hooks are off in config.toml (`[features] hooks = false`)".to_string())
        }
    }
}

/// `hooks.json` with ragger's SessionStart and Stop hooks, every other key
/// and hook kept; None when this Codex has no hooks.
pub fn hooks_edit(path: &Path, wiring: &Wiring, support: Support, config: &DocumentMut) -> Result<Option<Edit>> {
    if let Support::None(_) = support {
        return Ok(None);
    }
    let before = read_optional(path)?;
    let mut root = parse(path, before.as_deref())?;
    let mut changes = Vec::new();
    merge(&mut root, path, &EVENTS, AGENT, &wiring.shell(&["hook", AGENT]), &mut changes)?;
    if !changes.is_empty() {
        match off_because(support, config) {
            Some(why) => changes.push(format!("{why}: until then notify stores the turns")),
            None if support.needs_trust() => changes
                .push("Codex runs them once you trust them: `/hooks` in Codex (notify stores turns until then)".into()),
            None => {}
        }
    }
    let after = render(root, before.as_deref());
    Ok(Some(Edit { path: path.to_path_buf(), before, after, changes }))
}

/// The trust state Codex keeps for one hook: (enabled, trusted), from
/// `[hooks.state."KEY"]` in config.toml.
fn state(config: &DocumentMut, key: &str) -> (bool, bool) {
    let Some(s) = config.get("hooks").and_then(|h| h.get("state")).and_then(|s| s.get(key)) else {
        return (true, false);
    };
    let enabled = s.get("enabled").and_then(Item::as_bool).unwrap_or(true);
    (enabled, s.get("trusted_hash").and_then(Item::as_str).is_some_and(|h| !h.is_empty()))
}

/// Codex's label of an event in a trust key.
fn label(event: &str) -> &'static str {
    match event {
        "SessionStart" => "session_start",
        _ => "stop",
    }
}

/// Check ragger's hooks in `hooks.json` (and their trust in config.toml)
/// into `found`.
pub fn check(path: &Path, config: &DocumentMut, wiring: &Wiring, support: Support, found: &mut Found) {
    if let Support::None(_) = support {
        found.notes.push(support.to_string());
        return;
    }
    let root = match read_optional(path).and_then(|t| parse(path, t.as_deref())) {
        Ok(r) => r,
        Err(e) => {
            found.problems.push(format!("{e:#}"));
            return;
        }
    };
    let empty = serde_json::Map::new();
    let hooks = root.get("hooks").and_then(serde_json::Value::as_object).unwrap_or(&empty);
    let mut missing = Vec::new();
    let mut untrusted = Vec::new();
    let mut disabled = Vec::new();
    for event in EVENTS {
        let Some(ours) = find(hooks, event, AGENT) else {
            missing.push(event);
            continue;
        };
        judge(&ours.argv, &format!("{event} hook"), wiring.exe(), found);
        if support.needs_trust() {
            // Codex names the file as it found it; a CODEX_HOME it was given
            // is made canonical first.
            let names = [path.to_path_buf(), std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())];
            let states: Vec<(bool, bool)> = names
                .iter()
                .map(|p| state(config, &format!("{}:{}:{}:{}", p.display(), label(event), ours.group, ours.handler)))
                .collect();
            if states.iter().any(|s| !s.0) {
                disabled.push(event);
            } else if !states.iter().any(|s| s.1) {
                untrusted.push(event);
            }
        }
    }
    if !missing.is_empty() {
        found.problems.push(format!("no ragger {} hook in {}", missing.join(", "), path.display()));
    }
    if !untrusted.is_empty() {
        found.todo.push(format!(
            "the {} hook is not trusted in Codex yet, so Codex skips it: review and trust it with `/hooks` in Codex",
            untrusted.join(" and ")
        ));
    }
    if !disabled.is_empty() {
        found.notes.push(format!("the {} hook is disabled in Codex (`/hooks`)", disabled.join(" and ")));
    }
    if let Some(why) = off_because(support, config) {
        found.notes.push(format!("{why}, so notify alone stores turns and sessions start without memory"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_codex_version() {
        assert_eq!(parse_version("codex-cli 0.130.0\n"), Some((0, 130, 0)));
        assert_eq!(parse_version("codex-cli 0.153.3-alpha.2"), Some((0, 153, 3)));
        assert_eq!(parse_version("codex 1.2"), None);
        assert_eq!(Support::of(Some((0, 98, 0))), Support::None((0, 98, 0)));
        assert_eq!(Support::of(Some((0, 114, 0))), Support::Flagged((0, 114, 0)));
        assert_eq!(Support::of(Some((0, 130, 0))), Support::Default((0, 130, 0)));
        assert_eq!(Support::of(None), Support::Unknown);
    }

    #[test]
    fn the_feature_flags_say_when_hooks_do_not_run() {
        let doc = |t: &str| t.parse::<DocumentMut>().unwrap();
        let flagged = Support::Flagged((0, 120, 0));
        assert!(off_because(flagged, &doc("")).unwrap().contains("codex_hooks = true"));
        assert_eq!(off_because(flagged, &doc("[features]\ncodex_hooks = true\n")), None);
        let current = Support::Default((0, 140, 0));
        assert_eq!(off_because(current, &doc("")), None);
        assert!(off_because(current, &doc("[features]\nhooks = false\n")).is_some());
        assert!(off_because(current, &doc("[features]\ncodex_hooks = false\n")).is_some());
        assert_eq!(off_because(current, &doc("[features]\nhooks = true\ncodex_hooks = false\n")), None);
    }
}
