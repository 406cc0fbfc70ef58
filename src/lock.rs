//! The run lock: a kernel file lock on `<database>.lock`, beside the
//! database, released by the kernel when the process dies. Every process
//! that reaches the database reaches its lock file, whatever its
//! environment (`XDG_STATE_HOME`, `HOME`), so a pass that holds the lock
//! knows no other pass on that database is alive.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::paths::create_private_dir;

pub struct RunLock {
    _file: File,
    pub path: PathBuf,
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
        Ok(()) => Ok(Some(RunLock { _file: file, path })),
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
}
