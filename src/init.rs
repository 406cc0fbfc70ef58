//! `ragger init`'s work: pin the resolved paths in the config file, create
//! the database, install the housekeeping schedule (crontab or a systemd
//! user timer), and wire the agents (their settings files, `crate::agents`). Every step says whether it changed
//! something, found it already so, or kept a different value it found, and
//! with `dry_run` only says what it would do.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;

/// What a step did (or, with `--dry-run`, would do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Changed something (or would, with `--dry-run`).
    Changed,
    /// Already so; nothing to do.
    Unchanged,
    /// Something different is there; left as it is.
    Kept,
}

#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub step: String,
    pub state: State,
    pub detail: String,
    /// With `--dry-run`: the unified diff of the file this step would change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

impl Step {
    fn new(step: &str, state: State, detail: impl Into<String>) -> Step {
        Step { step: step.to_string(), state, detail: detail.into(), diff: None }
    }
}

/// How often cron or the timer runs housekeeping, in minutes.
pub const PERIOD_MINUTES: u32 = 20;

/// One value `init` pins in the config file.
pub struct Pin {
    pub section: &'static str,
    pub key: &'static str,
    pub value: PathBuf,
}

/// Add each pinned key the config file lacks; a key the file sets to
/// another value is kept and named. Writes the file (0600, folder 0700)
/// unless `dry_run` or nothing is missing.
pub fn pin_config(file: &Path, pins: &[Pin], dry_run: bool) -> Result<Vec<Step>> {
    let existing = match std::fs::read_to_string(file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
    };
    let mut doc: toml_edit::DocumentMut = match &existing {
        Some(t) => t.parse().map_err(|e| anyhow!("{}: {e}", file.display()))?,
        None => toml_edit::DocumentMut::new(),
    };
    let mut steps = Vec::new();
    let mut added = Vec::new();
    for pin in pins {
        let name = format!("[{}] {}", pin.section, pin.key);
        let want = pin.value.to_string_lossy().into_owned();
        let have = doc.get(pin.section).and_then(|t| t.get(pin.key)).map(|v| v.as_str().map(str::to_string));
        match have {
            Some(Some(v)) if v == want => {
                steps.push(Step::new("config", State::Unchanged, format!("{name} = {want:?}")))
            }
            Some(v) => steps.push(Step::new(
                "config",
                State::Kept,
                format!(
                    "{name} is {} in {}, not {want:?} as resolved now; left as it is (edit the file to change it)",
                    v.map(|v| format!("{v:?}")).unwrap_or_else(|| "not a string".into()),
                    file.display()
                ),
            )),
            None => {
                let table = doc
                    .entry(pin.section)
                    .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
                    .as_table_like_mut()
                    .ok_or_else(|| anyhow!("{}: [{}] is not a table", file.display(), pin.section))?;
                table.insert(pin.key, toml_edit::value(want.clone()));
                added.push(format!("{name} = {want:?}"));
            }
        }
    }
    if !added.is_empty() {
        let verb = match (dry_run, existing.is_some()) {
            (true, true) => "would add to",
            (true, false) => "would write",
            (false, true) => "added to",
            (false, false) => "wrote",
        };
        steps
            .insert(0, Step::new("config", State::Changed, format!("{verb} {}: {}", file.display(), added.join(", "))));
        if !dry_run {
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                crate::paths::create_private_dir(dir).with_context(|| format!("creating folder {}", dir.display()))?;
            }
            let mut f =
                crate::paths::create_private_file(file).with_context(|| format!("writing {}", file.display()))?;
            let header = if existing.is_none() { HEADER } else { "" };
            f.write_all(format!("{header}{doc}").as_bytes()).with_context(|| format!("writing {}", file.display()))?;
        }
    }
    Ok(steps)
}

const HEADER: &str = "# Written by `ragger init`. The paths are absolute so that cron, systemd\n\
# and agents, which lack your shell's XDG variables, use the same files.\n\
# `ragger config default` lists every key with its default.\n";

/// The housekeeping line for a crontab.
pub fn cron_line(command: &str) -> String {
    format!("*/{PERIOD_MINUTES} * * * * {command}")
}

/// Add `line` to the user's crontab with `crontab -l` / `crontab -`,
/// unless it (or another ragger housekeeping line) is already there.
pub fn install_cron(line: &str, dry_run: bool) -> Result<Step> {
    let out = Command::new("crontab")
        .arg("-l")
        .stdin(Stdio::null())
        .output()
        .context("running `crontab -l` (is cron installed?)")?;
    let current = if out.status.success() {
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        if !err.contains("no crontab") {
            bail!("`crontab -l` failed: {}", err.trim());
        }
        String::new()
    };
    let ours = |l: &str| {
        let l = l.trim();
        !l.starts_with('#') && l.contains("ragger") && l.contains("housekeeping")
    };
    if current.lines().any(|l| l.trim() == line) {
        return Ok(Step::new("cron", State::Unchanged, format!("your crontab runs: {line}")));
    }
    if let Some(other) = current.lines().find(|l| ours(l)) {
        return Ok(Step::new(
            "cron",
            State::Kept,
            format!(
                "your crontab already runs ragger housekeeping: {}; left as it is (to use `{line}`, remove that line with `crontab -e` and run init again)",
                other.trim()
            ),
        ));
    }
    if dry_run {
        return Ok(Step::new("cron", State::Changed, format!("would add to your crontab: {line}")));
    }
    let mut new = current.clone();
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(&format!(
        "# ragger: summarise captured turns and close idle sessions (added by `ragger init`)\n{line}\n"
    ));
    let mut child = Command::new("crontab")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("running `crontab -`")?;
    child.stdin.take().expect("piped").write_all(new.as_bytes()).context("writing to `crontab -`")?;
    let out = child.wait_with_output().context("running `crontab -`")?;
    if !out.status.success() {
        bail!("`crontab -` failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(Step::new("cron", State::Changed, format!("added to your crontab: {line}")))
}

pub const SERVICE: &str = "ragger-housekeeping.service";
pub const TIMER: &str = "ragger-housekeeping.timer";

/// The packaged units, with the service running `command`.
pub fn unit_files(command: &str) -> [(&'static str, String); 2] {
    let service = include_str!("../packaging/systemd/ragger-housekeeping.service")
        .replace("ExecStart=/usr/bin/ragger housekeeping", &format!("ExecStart={command}"));
    let timer = include_str!("../packaging/systemd/ragger-housekeeping.timer").to_string();
    [(SERVICE, service), (TIMER, timer)]
}

/// Write the user units into `unit_dir` and enable the timer with
/// `systemctl --user`. A unit file that differs is kept and named.
pub fn install_systemd(unit_dir: &Path, command: &str, dry_run: bool) -> Result<Vec<Step>> {
    let mut steps = Vec::new();
    let mut wrote = false;
    for (name, text) in unit_files(command) {
        let path = unit_dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(t) if t == text => {
                steps.push(Step::new("systemd", State::Unchanged, format!("{} is current", path.display())))
            }
            Ok(_) => steps.push(Step::new(
                "systemd",
                State::Kept,
                format!(
                    "{} exists with other contents; left as it is (remove it and run init again to replace it)",
                    path.display()
                ),
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if dry_run {
                    steps.push(Step::new("systemd", State::Changed, format!("would write {}", path.display())));
                } else {
                    crate::paths::create_private_dir(unit_dir)
                        .with_context(|| format!("creating folder {}", unit_dir.display()))?;
                    std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
                    steps.push(Step::new("systemd", State::Changed, format!("wrote {}", path.display())));
                }
                wrote = true;
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }
    let enabled = !wrote
        && Command::new("systemctl")
            .args(["--user", "is-enabled", TIMER])
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "enabled");
    if enabled {
        steps.push(Step::new("systemd", State::Unchanged, format!("{TIMER} is enabled")));
    } else if dry_run {
        steps.push(Step::new("systemd", State::Changed, format!("would run: systemctl --user enable --now {TIMER}")));
    } else {
        for args in [&["--user", "daemon-reload"][..], &["--user", "enable", "--now", TIMER][..]] {
            let out = Command::new("systemctl")
                .args(args)
                .stdin(Stdio::null())
                .output()
                .context("running systemctl (is systemd running for your user?)")?;
            if !out.status.success() {
                bail!("`systemctl {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
            }
        }
        steps.push(Step::new("systemd", State::Changed, format!("enabled and started {TIMER}")));
    }
    Ok(steps)
}

/// A word for a shell command line: quoted unless it is plain.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Wire an agent: merge ragger's hooks and MCP server into the agent's own
/// settings files (see `crate::agents`). Each file is one step: changed
/// (with a backup of the old file, or with `dry_run` the diff only),
/// already so, or refused when the file is not of the shape the agent
/// documents (named, left as it is).
pub fn wire_agent(
    agent: crate::cli::InitAgent,
    wiring: &crate::agents::Wiring,
    homes: &crate::agents::Homes,
    dry_run: bool,
) -> Result<Vec<Step>> {
    use crate::agents::{claude, codex};
    let mut notes = Vec::new();
    let (name, edits) = match agent {
        crate::cli::InitAgent::ClaudeCode => (
            "claude",
            vec![
                claude::settings_edit(&homes.claude_settings(), wiring)?,
                claude::mcp_edit(&homes.claude_json, wiring)?,
            ],
        ),
        crate::cli::InitAgent::Codex => {
            let config = homes.codex_config();
            let mut edits = vec![codex::config_edit(&config, wiring)?];
            let support = crate::agents::codex_hooks::Support::of(crate::agents::codex_hooks::installed_version());
            match crate::agents::codex_hooks::hooks_edit(
                &homes.codex_hooks(),
                wiring,
                support,
                &codex::read_config(&config)?,
            )? {
                Some(edit) => edits.push(edit),
                None => notes.push(Step::new(
                    "codex",
                    State::Unchanged,
                    format!("{support}: notify stores the turns, sessions start without memory"),
                )),
            }
            ("codex", edits)
        }
    };
    let mut steps = Vec::new();
    for edit in edits {
        let file = edit.path.display().to_string();
        if !edit.changed() {
            steps.push(Step::new(name, State::Unchanged, format!("{file} has ragger's entries")));
            continue;
        }
        let what = edit.changes.join("; ");
        let mut step = if dry_run {
            Step::new(name, State::Changed, format!("would change {file}: {what}"))
        } else {
            let backup = edit.write()?;
            let kept = backup.map(|b| format!(" (the old file is kept as {})", b.display())).unwrap_or_default();
            Step::new(name, State::Changed, format!("changed {file}: {what}{kept}"))
        };
        if dry_run {
            step.diff = Some(edit.diff());
        }
        steps.push(step);
    }
    steps.extend(notes);
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_quote_only_what_needs_it() {
        assert_eq!(shell_word("/usr/bin/ragger"), "/usr/bin/ragger");
        assert_eq!(shell_word("/home/a b/x"), "'/home/a b/x'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }

    #[test]
    fn pin_config_adds_missing_keys_keeps_different_ones_and_preserves_comments() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "# mine\n[database]\npath = \"/old.db\"\n[summaries]\nfold = \"threshold\"\n").unwrap();
        let pins = [
            Pin { section: "database", key: "path", value: "/new.db".into() },
            Pin { section: "embedder", key: "model_dir", value: "/m".into() },
        ];
        let steps = pin_config(&file, &pins, false).unwrap();
        assert_eq!(steps.iter().map(|s| s.state).collect::<Vec<_>>(), [State::Changed, State::Kept]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("# mine\n"), "{text}");
        assert!(text.contains("path = \"/old.db\"") && text.contains("model_dir = \"/m\""), "{text}");
        let again = pin_config(&file, &pins, false).unwrap();
        assert_eq!(again.iter().map(|s| s.state).collect::<Vec<_>>(), [State::Kept, State::Unchanged]);
    }
}
