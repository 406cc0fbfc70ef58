//! The one shared SQLite file: opening it (pragmas, permissions,
//! migrations) and the small helpers every command uses.

pub mod check;
pub mod context;
pub mod embeddings;
pub mod export;
pub mod fold;
pub mod forget;
pub mod forgotten;
pub mod imports;
pub mod inspect;
pub mod merge;
pub mod privacy;
pub mod projects;
pub mod queue;
pub mod retry;
pub mod runs;
pub mod schema;
pub mod search;
pub mod sessions;
pub mod status;
pub mod summaries;
pub mod turn_views;
pub mod turns;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::exit::{fail, Exit};
use crate::paths::create_private_dir;

/// How long a writer waits for another process's transaction.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Store {
    conn: Connection,
    pub path: PathBuf,
}

/// A kept WAL past this size is checkpointed and truncated by the process
/// that finds it so, as it closes.
pub const WAL_TRUNCATE_BYTES: u64 = 1 << 20;

impl Drop for Store {
    /// The WAL is kept between processes (see `configure`), and a new
    /// process counts none of a kept WAL's frames as checkpointed, so
    /// nothing would ever reset it: it would grow, and every commit past
    /// the auto-checkpoint size would copy all of it again. So whoever
    /// closes the database with a WAL over `WAL_TRUNCATE_BYTES` checkpoints
    /// and truncates it, without waiting: if another process is busy with
    /// the database, a later one will do it.
    fn drop(&mut self) {
        let wal = sidecar(&self.path, "-wal");
        if std::fs::metadata(&wal).map(|m| m.len() > WAL_TRUNCATE_BYTES).unwrap_or(false) {
            let _ = self.conn.busy_timeout(Duration::ZERO);
            let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

impl Store {
    /// Open (creating if needed) and migrate.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_waiting(path, BUSY_TIMEOUT)
    }

    /// Open as [`Store::open`] does, waiting at most `busy` for another
    /// process's lock at each step (hooks wait a fraction of a second).
    pub fn open_waiting(path: &Path, busy: Duration) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.exists() {
                create_private_dir(dir).with_context(|| format!("creating folder {}", dir.display()))?;
            }
        }
        let existed = path.exists();
        // An empty file left by `touch` or another tool becomes the
        // database: give it the mode ragger creates databases with.
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            use std::os::unix::fs::PermissionsExt;
            // Best effort: another user's file stays as it is, and the
            // mode warning names it.
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
        if !existed {
            // Create the file 0600 before SQLite does (it would use the umask).
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(path)
                .with_context(|| format!("creating database {}", path.display()))?;
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("opening database {}", path.display()))?;
        let store = Store { conn, path: path.to_path_buf() };
        if let Err(e) = store.configure(busy) {
            // SQLite's own words ("unable to open database file") do not say
            // that the folder or the file cannot be written.
            let cannot_write = e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<rusqlite::Error>().and_then(rusqlite::Error::sqlite_error_code),
                    Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
                )
            });
            return Err(match unwritable_reason(path).filter(|_| cannot_write) {
                Some(why) => anyhow::anyhow!("database {}: {why}", path.display()),
                None => e.context(format!("database {}", path.display())),
            });
        }
        // SQLite creates the WAL and its index with the database's mode, but
        // keeps them between processes: after a chmod of the database they
        // would keep the old mode.
        crate::perms::align_companions(path);
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory database for unit tests.
    pub fn memory() -> Result<Store> {
        let store = Store { conn: Connection::open_in_memory()?, path: PathBuf::from(":memory:") };
        store.configure(BUSY_TIMEOUT)?;
        store.migrate()?;
        Ok(store)
    }

    /// Run SQL on the database as it is (unit tests outside `store` that
    /// set up rows).
    #[cfg(test)]
    pub fn exec(&self, sql: &str) -> Result<()> {
        self.conn.execute_batch(sql)?;
        Ok(())
    }

    fn configure(&self, busy: Duration) -> Result<()> {
        // busy_timeout first: the journal-mode switch itself may need to wait.
        self.conn.busy_timeout(busy)?;
        let mode: String = self.conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(classify)?;
        if mode != "wal" && mode != "memory" {
            anyhow::bail!("cannot switch to WAL journal mode (got {mode})");
        }
        self.conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;").map_err(classify)?;
        // Every command is a short-lived process. By default the last
        // connection to close checkpoints the WAL (two fsyncs) and deletes
        // it (a directory fsync when the next process recreates it): most of
        // the cost of a capture or an idle tick. Keep the WAL between
        // processes; SQLite's auto-checkpoint (every 1000 pages, in the
        // committing process) and housekeeping's checkpoint bound its size.
        self.conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        let mut persist: std::os::raw::c_int = 1;
        // SAFETY: a valid open handle, the "main" schema name as a C string,
        // and a pointer to an int, as SQLITE_FCNTL_PERSIST_WAL requires.
        unsafe {
            rusqlite::ffi::sqlite3_file_control(
                self.conn.handle(),
                c"main".as_ptr(),
                rusqlite::ffi::SQLITE_FCNTL_PERSIST_WAL,
                (&mut persist as *mut std::os::raw::c_int).cast(),
            );
        }
        Ok(())
    }

    fn migrate(&self) -> Result<()> {
        let known = schema::MIGRATIONS.len() as i64;
        let current: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(classify)
            .with_context(|| format!("reading database {}", self.path.display()))?;
        if current > known {
            return Err(fail(
                Exit::Config,
                format!(
                    "database {} has schema version {current}, newer than this ragger understands ({known}); upgrade ragger or point --db at another file",
                    self.path.display()
                ),
            ));
        }
        if current == known {
            return Ok(());
        }
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        // Re-read inside the write lock: another process may have migrated.
        let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(current as usize) {
            tx.execute_batch(sql).with_context(|| format!("applying migration {}", i + 1))?;
        }
        tx.execute_batch(&format!("PRAGMA user_version = {known}"))?;
        tx.commit().with_context(|| format!("migrating database {}", self.path.display()))?;
        Ok(())
    }

    /// A short write transaction (`BEGIN IMMEDIATE`).
    pub fn write(&mut self) -> Result<rusqlite::Transaction<'_>> {
        self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(classify)
    }
}

/// SQLite's file beside the database: `-wal` or `-shm` appended to its name.
fn sidecar(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// Why the database at `path` cannot be opened for writing, if the file
/// system says so: SQLite needs to write the file and to create its `-wal`
/// and `-shm` files beside it (a WAL database whose `-shm` is there can
/// still be read).
fn unwritable_reason(path: &Path) -> Option<String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let beside = |suffix| sidecar(path, suffix).exists();
    let fix = "remount it read-write, fix its permissions, or copy the database elsewhere";
    let sidecars = beside("-wal") && beside("-shm");
    if !sidecars && !writable(dir) {
        return Some(format!(
            "the folder {} cannot be written (a read-only mount or its permissions), and SQLite must create \
             {name}-wal and {name}-shm there; {fix}",
            dir.display()
        ));
    }
    if !writable(path) {
        return Some(format!("the file cannot be written (a read-only mount or its permissions); {fix}"));
    }
    None
}

/// Whether this process may write `path` (`access(2)`: the mode bits for
/// an ordinary user, a read-only mount for everyone).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: a valid NUL-terminated path; access() only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Turn low-level SQLite failures into errors with a useful exit code and hint.
pub fn classify(e: rusqlite::Error) -> anyhow::Error {
    use rusqlite::ErrorCode;
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        let hint = match f.code {
            ErrorCode::NotADatabase => Some("the file is not a SQLite database (or is corrupt)"),
            ErrorCode::DatabaseCorrupt => Some("the database is corrupt; restore a backup"),
            ErrorCode::ReadOnly => Some("the database is read-only; check file and folder permissions"),
            ErrorCode::DiskFull => Some("the disk is full; nothing was written"),
            ErrorCode::CannotOpen => Some("cannot open the database file"),
            _ => None,
        };
        if let Some(h) = hint {
            return anyhow::Error::new(e).context(h.to_string());
        }
    }
    anyhow::Error::new(e)
}

/// Whether an error is SQLite's "database is busy/locked": another process
/// holds the write lock longer than this one waits.
pub fn is_busy(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<rusqlite::Error>().and_then(rusqlite::Error::sqlite_error_code),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    })
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// RFC 3339 (UTC, seconds) for a millisecond timestamp.
pub fn fmt_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// Parse RFC 3339 into milliseconds.
pub fn parse_time(s: &str) -> std::result::Result<i64, String> {
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .map(|t| t.timestamp_millis())
        .map_err(|e| format!("invalid time {s:?} (want RFC 3339, e.g. 2026-11-29T20:00:00Z): {e}"))
}

/// A cheap token estimate (about four bytes a token for English text).
pub fn estimate_tokens(text: &str) -> i64 {
    (text.len() as i64 + 3) / 4
}

/// Encode a vector as little-endian f32 bytes.
pub fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Decode a little-endian f32 blob.
pub fn blob_to_vector(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
