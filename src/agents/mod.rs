//! The agents' own settings files: what `init --agent` merges into them and
//! what `doctor` reads back from them.
//!
//! - Claude Code: the hooks in `~/.claude/settings.json` and the user-scope
//!   MCP server in `~/.claude.json` (`claude.rs`);
//! - Codex CLI: `notify` and `[mcp_servers.ragger]` in
//!   `~/.codex/config.toml` (`codex.rs`), and its own `SessionStart` and
//!   `Stop` hooks in `~/.codex/hooks.json` where the installed Codex has
//!   them (`codex_hooks.rs`).
//!
//! The hooks object both agents' JSON files share is `hook_file.rs`.
//!
//! Every edit keeps what the user has (other keys, other hooks, comments in
//! TOML), is computed as the file's text before and after, and is written
//! only when the two differ: after a backup, through a temporary file
//! renamed over the original.

pub mod claude;
pub mod codex;
pub mod codex_hooks;
pub mod hook_file;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// Where the agents keep their settings (their own environment variables
/// first: `CLAUDE_CONFIG_DIR`, `CODEX_HOME`).
#[derive(Clone, Debug)]
pub struct Homes {
    /// Claude Code's folder (`~/.claude`): `settings.json`.
    pub claude_dir: PathBuf,
    /// Claude Code's own state file with the user-scope MCP servers
    /// (`~/.claude.json`, or `.claude.json` in `CLAUDE_CONFIG_DIR`).
    pub claude_json: PathBuf,
    /// Codex's folder (`~/.codex`): `config.toml`, `hooks.json`.
    pub codex_dir: PathBuf,
}

impl Homes {
    pub fn from_env() -> Result<Homes> {
        let home = directories::BaseDirs::new()
            .ok_or_else(|| anyhow!("cannot find a home directory (set HOME)"))?
            .home_dir()
            .to_path_buf();
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let (claude_dir, claude_json) = match var("CLAUDE_CONFIG_DIR") {
            Some(d) => (d.clone(), d.join(".claude.json")),
            None => (home.join(".claude"), home.join(".claude.json")),
        };
        let codex_dir = var("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
        Ok(Homes { claude_dir, claude_json, codex_dir })
    }
    pub fn claude_settings(&self) -> PathBuf {
        self.claude_dir.join("settings.json")
    }
    pub fn codex_config(&self) -> PathBuf {
        self.codex_dir.join("config.toml")
    }
    pub fn codex_hooks(&self) -> PathBuf {
        self.codex_dir.join("hooks.json")
    }
}

/// ragger as the agents run it: the absolute binary and `--config FILE`.
#[derive(Clone, Debug)]
pub struct Wiring {
    pub prefix: Vec<String>,
}

impl Wiring {
    pub fn exe(&self) -> &str {
        &self.prefix[0]
    }
    /// The argument vector of `ragger … rest`.
    pub fn argv(&self, rest: &[&str]) -> Vec<String> {
        self.prefix.iter().cloned().chain(rest.iter().map(|s| s.to_string())).collect()
    }
    /// The same as one shell command line.
    pub fn shell(&self, rest: &[&str]) -> String {
        self.argv(rest).iter().map(|w| crate::init::shell_word(w)).collect::<Vec<_>>().join(" ")
    }
}

/// A file's text now (None: there is no file) and the text it should have.
pub struct Edit {
    pub path: PathBuf,
    pub before: Option<String>,
    pub after: String,
    /// What changes, in words (empty: nothing).
    pub changes: Vec<String>,
}

impl Edit {
    pub fn changed(&self) -> bool {
        self.before.as_deref() != Some(self.after.as_str())
    }

    /// A unified diff of the change (what `--dry-run` prints).
    pub fn diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        let name = self.path.display().to_string();
        let old = if self.before.is_some() { name.clone() } else { "/dev/null".to_string() };
        similar::TextDiff::from_lines(before, self.after.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&old, &name)
            .to_string()
    }

    /// Write the new text: a timestamped backup of the old file beside it
    /// first, then a temporary file renamed over it (the old file's mode
    /// kept; a new file is private). Returns the backup's path.
    pub fn write(&self) -> Result<Option<PathBuf>> {
        let path = &self.path;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).with_context(|| format!("creating folder {}", dir.display()))?;
        let backup = match &self.before {
            Some(_) => Some(backup(path)?),
            None => None,
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = dir.join(format!(".{name}.ragger-{}.tmp", std::process::id()));
        let mode = std::fs::metadata(path).map(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o7777
        });
        let result = (|| -> std::io::Result<()> {
            let mut f = crate::paths::create_private_file(&tmp)?;
            f.write_all(self.after.as_bytes())?;
            f.sync_all()?;
            if let Ok(mode) = mode {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
            }
            std::fs::rename(&tmp, path)
        })();
        if let Err(e) = result {
            let _ = std::fs::remove_file(&tmp);
            return Err(e).with_context(|| format!("writing {}", path.display()));
        }
        Ok(backup)
    }
}

/// Copy `path` to `path.YYYYMMDD-HHMMSS.bak` (a counter added if that
/// exists).
fn backup(path: &Path) -> Result<PathBuf> {
    let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut n = 0;
    loop {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let bak = path.with_file_name(format!("{name}.{stamp}{suffix}.bak"));
        if !bak.exists() {
            std::fs::copy(path, &bak).with_context(|| format!("backing up {} to {}", path.display(), bak.display()))?;
            return Ok(bak);
        }
        n += 1;
    }
}

/// What `doctor` finds of ragger in an agent's files.
#[derive(Debug, Default)]
pub struct Found {
    /// Whether any of ragger's entries is there at all.
    pub any: bool,
    /// Problems, one line each (`init --agent` fixes them).
    pub problems: Vec<String>,
    /// Problems only the user can fix, in the agent itself; each line says how.
    pub todo: Vec<String>,
    /// What is in place.
    pub ok: Vec<String>,
    /// Worth knowing, not wrong (a feature the user turned off).
    pub notes: Vec<String>,
}

/// Judge one of ragger's entries (`what`) by the argument vector it runs:
/// this binary, and a config file that exists.
pub fn judge(argv: &[String], what: &str, exe: &str, found: &mut Found) {
    found.any = true;
    let first = argv.first().cloned().unwrap_or_default();
    if first != exe {
        let gone = if Path::new(&first).exists() { "" } else { ", which does not exist" };
        found.problems.push(format!("{what} runs {first}{gone}, not this binary ({exe})"));
    } else if let Some(cfg) = config_of(argv).filter(|c| !Path::new(c).exists()) {
        found.problems.push(format!("{what} names the config {cfg}, which does not exist"));
    } else {
        found.ok.push(what.to_string());
    }
}

/// Read a settings file; None when there is none.
pub fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Split a shell command line into words (single and double quotes,
/// backslash escapes), enough to recognise the commands ragger writes.
pub fn shell_split(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Is this argument vector a ragger hook for `agent` (`…/ragger … hook
/// AGENT …`)? Any ragger binary: an old path is still ragger's own entry.
pub fn is_ragger_hook(argv: &[String], agent: &str) -> bool {
    let Some(first) = argv.first() else { return false };
    let program = Path::new(first).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    program == "ragger" && argv.windows(2).any(|w| w[0] == "hook" && w[1] == agent)
}

/// The value of `--config` in an argument vector.
pub fn config_of(argv: &[String]) -> Option<&str> {
    argv.windows(2).find(|w| w[0] == "--config").map(|w| w[1].as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_split_undoes_shell_word() {
        let words = ["/home/a b/ragger", "--config", "/c/it's.toml", "hook", "claude-code"];
        let line = words.iter().map(|w| crate::init::shell_word(w)).collect::<Vec<_>>().join(" ");
        assert_eq!(shell_split(&line), words);
        assert_eq!(shell_split(r#"node "/x y/z.js" a\ b"#), ["node", "/x y/z.js", "a b"]);
    }

    #[test]
    fn ragger_hooks_are_recognised_by_program_and_subcommand() {
        let v = |s: &str| shell_split(s);
        assert!(is_ragger_hook(&v("/usr/bin/ragger hook claude-code"), "claude-code"));
        assert!(is_ragger_hook(&v("/old/ragger --config /c.toml hook codex --then x"), "codex"));
        assert!(!is_ragger_hook(&v("/usr/bin/ragger hook codex"), "claude-code"));
        assert!(!is_ragger_hook(&v("/usr/bin/notify-send hook claude-code"), "claude-code"));
        assert_eq!(config_of(&v("/r --config /c.toml hook codex")), Some("/c.toml"));
    }
}
