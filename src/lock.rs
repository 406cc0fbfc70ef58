//! The run lock: a kernel file lock in the state folder, released by the
//! kernel when the process dies. A pass that holds it knows no other pass
//! is alive.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::paths::create_private_dir;

pub struct RunLock {
    _file: File,
    pub path: PathBuf,
}

/// The lock file for a database: one lock per database file, so tests and
/// users with several databases don't block each other.
pub fn lock_path(state_dir: &Path, db: &Path) -> PathBuf {
    let canon = db.canonicalize().unwrap_or_else(|_| db.to_path_buf());
    let mut h: u64 = 0xcbf29ce484222325;
    for b in canon.as_os_str().as_encoded_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    state_dir.join(format!("run-{h:016x}.lock"))
}

/// Try to take the lock without waiting. `Ok(None)`: another process holds it.
pub fn try_lock(state_dir: &Path, db: &Path) -> Result<Option<RunLock>> {
    create_private_dir(state_dir).with_context(|| format!("creating state folder {}", state_dir.display()))?;
    let path = lock_path(state_dir, db);
    use std::os::unix::fs::OpenOptionsExt;
    let file = File::options()
        .mode(0o600)
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(RunLock { _file: file, path })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("locking {}", path.display())),
    }
}
