//! The run lock: a kernel file lock on `<database>.lock`, beside the
//! database, released by the kernel when the process dies. Every process
//! that reaches the database reaches its lock file, whatever its
//! environment (`XDG_STATE_HOME`, `HOME`), so a pass that holds the lock
//! knows no other pass on that database is alive.
//!
//! A housekeeping tick also writes the time into the file it holds
//! ([`RunLock::stamp_tick`]): a tick with nothing to do writes nothing to
//! the database, and `doctor` reads the stamp ([`last_tick`]) to tell a
//! quiet schedule from one that stopped. A tick that found nothing to do
//! leaves a second line for the next one (`pipeline::quiet`).

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::paths::create_private_dir;

pub struct RunLock {
    file: File,
    pub path: PathBuf,
}

/// The stamp: milliseconds since the Unix epoch, fixed width, so a later
/// stamp overwrites an earlier one whole.
fn stamp(ms: i64) -> String {
    format!("{ms:020}\n")
}

/// Bytes of the stamp line; the quiet line follows it.
const STAMP_LEN: u64 = 21;

impl RunLock {
    /// Record that a housekeeping tick holds the lock at `now_ms` (one
    /// write into the page cache, never synced: a stamp lost in a crash
    /// only makes `doctor` read an older one).
    pub fn stamp_tick(&self, now_ms: i64) -> Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.write_all_at(stamp(now_ms).as_bytes(), 0).with_context(|| format!("writing {}", self.path.display()))
    }

    /// Leave `line` after the stamp (`None`: remove it), for the next
    /// tick. Never synced, like the stamp: a line lost in a crash only
    /// makes the next tick look at the database.
    pub fn set_quiet(&self, line: Option<&str>) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let text = line.map(|l| format!("{l}\n")).unwrap_or_default();
        let len = STAMP_LEN + text.len() as u64;
        (|| {
            self.file.write_all_at(text.as_bytes(), STAMP_LEN)?;
            self.file.set_len(len)
        })()
        .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// The quiet line a tick left in the lock of database `db`, if any.
pub fn quiet_line(db: &Path) -> Option<String> {
    let text = std::fs::read_to_string(lock_path(db)).ok()?;
    let line = text.get(STAMP_LEN as usize..)?.lines().next()?;
    (!line.is_empty()).then(|| line.to_string())
}

/// When a housekeeping tick last held the lock of database `db` (ms since
/// the epoch), if one ever stamped it.
pub fn last_tick(db: &Path) -> Option<i64> {
    let text = std::fs::read_to_string(lock_path(db)).ok()?;
    text.lines().next()?.trim().parse().ok()
}

/// The lock file of a database: `<database>.lock` beside the database file
/// itself (symbolic links resolved, so two paths to one file share a lock).
pub fn lock_path(db: &Path) -> PathBuf {
    let real = db.canonicalize().ok().or_else(|| {
        let parent = db.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(parent.canonicalize().ok()?.join(db.file_name()?))
    });
    let mut name = OsString::from(real.as_deref().unwrap_or(db).as_os_str());
    name.push(".lock");
    PathBuf::from(name)
}

/// Try to take the lock without waiting. `Ok(None)`: another process holds it.
pub fn try_lock(db: &Path) -> Result<Option<RunLock>> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        create_private_dir(dir).with_context(|| format!("creating folder {}", dir.display()))?;
    }
    let path = lock_path(db);
    use std::os::unix::fs::OpenOptionsExt;
    let file = File::options().create(true).truncate(false).write(true).mode(0o600).open(&path).map_err(|e| match e
        .kind()
    {
        std::io::ErrorKind::ReadOnlyFilesystem => {
            anyhow::anyhow!("cannot create the run lock {}: the database is on a read-only file system", path.display())
        }
        _ => anyhow::Error::new(e).context(format!("creating the run lock {}", path.display())),
    })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(RunLock { file, path })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("locking {}", path.display())),
    }
}

/// The run lock for a pass, or `None` when another pass holds it: the
/// command then exits 75 (silently unless `verbose`).
pub fn for_pass(db: &Path, verbose: bool) -> Result<Option<RunLock>> {
    let held = try_lock(db)?;
    if held.is_none() && verbose {
        crate::display::eprint(&format!("skipped: another pass holds the lock for {}", db.display()));
    }
    Ok(held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_sits_beside_the_database_whatever_path_reaches_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let db = real.join("ragger.db");
        assert_eq!(lock_path(&db), real.join("ragger.db.lock"), "before the database exists");
        std::fs::write(&db, b"").unwrap();
        std::os::unix::fs::symlink(&db, real.join("link.db")).unwrap();
        assert_eq!(lock_path(&real.join("link.db")), real.join("ragger.db.lock"));
        let held = try_lock(&db).unwrap().expect("free");
        assert!(try_lock(&real.join("link.db")).unwrap().is_none(), "one lock for both paths");
        drop(held);
        assert!(try_lock(&db).unwrap().is_some());
    }

    #[test]
    fn a_tick_stamp_is_read_back_and_a_lock_never_stamped_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("ragger.db");
        let held = try_lock(&db).unwrap().expect("free");
        assert_eq!(last_tick(&db), None, "taking the lock is not a tick");
        held.stamp_tick(1_796_307_720_537).unwrap();
        assert_eq!(last_tick(&db), Some(1_796_307_720_537));
        held.stamp_tick(5).unwrap();
        assert_eq!(last_tick(&db), Some(5), "a later stamp replaces the earlier one whole");
        // The quiet line rides after the stamp; each is rewritten alone.
        assert_eq!(quiet_line(&db), None);
        held.set_quiet(Some("quiet a long line")).unwrap();
        held.stamp_tick(7).unwrap();
        assert_eq!((last_tick(&db), quiet_line(&db).as_deref()), (Some(7), Some("quiet a long line")));
        held.set_quiet(Some("quiet b")).unwrap();
        assert_eq!(quiet_line(&db).as_deref(), Some("quiet b"), "a shorter line leaves nothing of the longer");
        held.set_quiet(None).unwrap();
        assert_eq!((last_tick(&db), quiet_line(&db)), (Some(7), None));
    }
}
