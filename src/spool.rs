//! Turns a hook could not store in its time: the database was busy (a
//! pass or `forget` writing), or the transcript was too long to read in a
//! hook's budget. The hook writes what it would have stored to a private
//! file (mode 0600, in a 0700 folder under the state folder, one folder per
//! database) and returns; the next hook, `capture`, `import` or pass stores
//! it ([`drain`]). Nothing is lost and the agent never waits.
//!
//! A Codex turn has no transcript to read again, so its spool file holds
//! the turn itself, already through capture's door (redacted). A Claude
//! Code turn is in its transcript: the file names the transcript, how far
//! the hook saw it, and the agent's last reply (redacted).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::import::file::{import_file, Limits, Options, Tail};
use crate::import::Format;
use crate::store::turns::{store_turn, Outcome, SameKey, Turn};
use crate::store::{classify, Store};

/// The largest spool file read back (a turn is at most a few MB).
const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// One spooled piece of work.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// A turn ready to store (through the door already).
    Turn {
        session: String,
        /// The project's name, and its root folder when it came from one
        /// (absent in entries spooled before roots were kept).
        project: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        root: Option<String>,
        user: String,
        assistant: String,
        at: i64,
        id: Option<String>,
        redactions: i64,
    },
    /// Read a transcript up to `end` as a hook would have.
    Transcript {
        format: String,
        path: PathBuf,
        tail: Tail,
        fallback_session: Option<String>,
        last_message: Option<String>,
        end: u64,
    },
}

impl Entry {
    pub fn turn(t: &Turn) -> Entry {
        Entry::Turn {
            session: t.session.clone(),
            project: t.project.as_ref().map(|p| p.name.clone()),
            root: t.project.as_ref().and_then(|p| p.root.clone()),
            user: t.user.clone(),
            assistant: t.assistant.clone(),
            at: t.at,
            id: t.id.clone(),
            redactions: t.redactions,
        }
    }
}

/// The spool folder of database `db`: `spool/<hash of its path>` in the
/// state folder.
pub fn dir(state: &Path, db: &Path) -> PathBuf {
    use std::hash::Hasher;
    let real = crate::lock::lock_path(db);
    let mut h = fnv::FnvHasher::default();
    h.write(real.as_os_str().as_encoded_bytes());
    state.join("spool").join(format!("{:016x}", h.finish()))
}

/// Write `entry` as a new private file in `dir` (whole or not at all).
pub fn put(dir: &Path, entry: &Entry) -> Result<PathBuf> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    crate::paths::create_private_dir(dir).with_context(|| format!("creating spool folder {}", dir.display()))?;
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    let name = format!("{stamp:024}-{}", std::process::id());
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(format!("{name}.json"));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("creating spool file {}", tmp.display()))?;
    f.write_all(&serde_json::to_vec(entry)?).and_then(|_| f.sync_data()).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("writing spool file {}", tmp.display())
    })?;
    std::fs::rename(&tmp, &path).with_context(|| format!("spool file {}", path.display()))?;
    Ok(path)
}

/// What a drain did.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct Drained {
    /// Spool files done (and removed).
    pub entries: u64,
    pub stored: u64,
    /// Spool files left for later (the database still busy, or out of time).
    pub left: u64,
}

/// Store what waits in `dir`, oldest first. Each file is taken under a
/// kernel lock (two drainers never do one twice) and removed once done. A
/// busy database, or the deadline of `limits` passing, leaves the rest for
/// later (a transcript is read within `limits`, as a hook reads it); a file
/// that cannot be done at all (unreadable, its transcript gone) is reported
/// through `warn` and removed.
pub fn drain(
    config: &crate::config::Config,
    dir: &Path,
    store: &mut Store,
    limits: Option<Limits>,
    warn: &mut dyn FnMut(String),
) -> Result<Drained> {
    let deadline = limits.map(|l| l.deadline);
    let mut out = Drained::default();
    let Ok(list) = std::fs::read_dir(dir) else { return Ok(out) };
    let mut files: Vec<PathBuf> = list
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    if files.is_empty() {
        return Ok(out);
    }
    files.sort();
    for (i, path) in files.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            out.left += (files.len() - i) as u64;
            break;
        }
        match drain_one(config, path, store, limits) {
            Ok(Some(stored)) => {
                out.entries += 1;
                out.stored += stored;
            }
            Ok(None) => out.left += 1,
            Err(e) if crate::store::is_busy(&e) => {
                out.left += (files.len() - i) as u64;
                break;
            }
            Err(e) => {
                warn(format!("spooled turn {} dropped: {e:#}", path.display()));
                let _ = std::fs::remove_file(path);
            }
        }
    }
    Ok(out)
}

/// Do one spool file: `Some(turns stored)` when done (the file is
/// removed), `None` when another process has it or it is not finished.
fn drain_one(
    config: &crate::config::Config,
    path: &Path,
    store: &mut Store,
    limits: Option<Limits>,
) -> Result<Option<u64>> {
    use std::os::unix::fs::MetadataExt;
    let Ok(mut f) = std::fs::File::open(path) else { return Ok(None) };
    if f.try_lock().is_err() {
        return Ok(None);
    }
    // Removed by the drainer that held the lock before us.
    if f.metadata()?.nlink() == 0 {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    (&mut f).take(MAX_ENTRY_BYTES).read_to_end(&mut bytes)?;
    let entry: Entry = serde_json::from_slice(&bytes).context("not a spool entry")?;
    let stored = match entry {
        Entry::Turn { session, project, root, user, assistant, at, id, redactions } => {
            let project = project.map(|name| crate::project::Spec { name, root });
            // Only hooks spool, and a hook's turn is a conversation turn.
            let t = Turn { session, project, user, assistant, at, id, redactions, kind: Default::default() };
            let tx = store.write()?;
            let o = store_turn(&tx, &t, SameKey::Grow).map_err(classify)?;
            tx.commit().map_err(classify)?;
            u64::from(o == Outcome::Stored || o == Outcome::Updated)
        }
        Entry::Transcript { format, path: transcript, tail, fallback_session, last_message, end } => {
            let format = match format.as_str() {
                "claude-code" => Format::ClaudeCode,
                "codex" => Format::Codex,
                "jsonl" => Format::Jsonl,
                other => anyhow::bail!("unknown transcript format {other:?}"),
            };
            let opts = Options {
                dry_run: false,
                max_field_bytes: config.capture.max_field_bytes,
                tail,
                fallback_session,
                door: crate::capture::Door::new(config)?,
                last_message,
                limits,
                end: Some(end),
            };
            let r = import_file(store, &transcript, format, &opts, &mut |_| {})?;
            if r.unread_bytes > 0 {
                return Ok(None); // progress is in the file's mark; the rest later
            }
            r.stored + r.updated
        }
    };
    std::fs::remove_file(path).with_context(|| format!("removing spool file {}", path.display()))?;
    Ok(Some(stored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let d = dir(tmp.path(), &tmp.path().join("ragger.db"));
        let e = Entry::Transcript {
            format: "claude-code".into(),
            path: "/t.jsonl".into(),
            tail: Tail::StoreWithWords,
            fallback_session: Some("s".into()),
            last_message: None,
            end: 7,
        };
        let p = put(&d, &e).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&d).unwrap().permissions().mode() & 0o077, 0);
        let back: Entry = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(back, e);
        assert_ne!(dir(tmp.path(), Path::new("/a.db")), dir(tmp.path(), Path::new("/b.db")));
    }
}
