//! The last hook failure, kept in the state folder (not the database: a
//! database that cannot be opened is one of the failures to keep). A hook
//! that fails writes it; the next hook that works marks it recovered (one
//! `stat` on the happy path); `status` and `doctor` show it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HookFailure {
    /// When it failed (RFC 3339, UTC).
    pub at: String,
    /// `claude-code` or `codex`.
    pub agent: String,
    /// The error, one line.
    pub message: String,
    /// When a hook next worked, if one has.
    #[serde(default)]
    pub recovered_at: Option<String>,
}

pub fn file(state: &Path) -> PathBuf {
    state.join("last-hook-failure.json")
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn write(state: &Path, f: &HookFailure) -> std::io::Result<()> {
    crate::paths::create_private_dir(state)?;
    let path = file(state);
    let tmp = state.join(format!(".last-hook-failure.{}.tmp", std::process::id()));
    {
        use std::io::Write;
        let mut out = crate::paths::create_private_file(&tmp)?;
        out.write_all(serde_json::to_string(f).map_err(std::io::Error::other)?.as_bytes())?;
    }
    std::fs::rename(&tmp, path)
}

/// Record a failure of `agent`'s hook.
pub fn record(state: &Path, agent: &str, message: &str) -> std::io::Result<()> {
    write(state, &HookFailure { at: now(), agent: agent.into(), message: message.into(), recovered_at: None })
}

/// A hook worked: mark a recorded failure recovered (nothing to do, and
/// nothing read, when there is none).
pub fn worked(state: &Path) -> std::io::Result<()> {
    if !file(state).exists() {
        return Ok(());
    }
    match last(state) {
        Some(mut f) if f.recovered_at.is_none() => {
            f.recovered_at = Some(now());
            write(state, &f)
        }
        _ => Ok(()),
    }
}

/// The last failure recorded, if any.
pub fn last(state: &Path) -> Option<HookFailure> {
    let text = std::fs::read_to_string(file(state)).ok()?;
    serde_json::from_str(&text).ok()
}

/// One line for people: when, which agent, what, and whether hooks have
/// worked since.
pub fn describe(f: &HookFailure) -> String {
    let since = match &f.recovered_at {
        Some(t) => format!(" (hooks have worked since {})", crate::when::local_of(t)),
        None => " (no hook has worked since)".to_string(),
    };
    format!("{} {}: {}{since}", crate::when::local_of(&f.at), f.agent, f.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_kept_until_a_hook_works() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        worked(&state).unwrap();
        assert_eq!(last(&state), None);
        record(&state, "codex", "the database is locked").unwrap();
        let f = last(&state).unwrap();
        assert_eq!(
            (f.agent.as_str(), f.message.as_str(), f.recovered_at.as_deref()),
            ("codex", "the database is locked", None)
        );
        worked(&state).unwrap();
        let g = last(&state).unwrap();
        assert!(g.recovered_at.is_some());
        assert_eq!(g.at, f.at);
    }
}
