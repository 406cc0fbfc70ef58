//! The `runs` table: each pass records itself (start, end, counts,
//! outcome) for `status` and `doctor`.

use anyhow::Result;
use rusqlite::{params, OptionalExtension};

use super::{now_ms, Store};

/// Record the start of a pass; returns its run id.
pub fn start(store: &mut Store, kind: &str, owner: &str) -> Result<i64> {
    let tx = store.write()?;
    let id = tx.query_row(
        "INSERT INTO runs (kind, owner, started) VALUES (?1, ?2, ?3) RETURNING id",
        params![kind, owner, now_ms()],
        |r| r.get(0),
    )?;
    tx.commit()?;
    Ok(id)
}

/// Record the end of run `id` (`counts`: JSON text).
pub fn finish(store: &mut Store, id: i64, outcome: &str, counts: &str) -> Result<()> {
    let tx = store.write()?;
    tx.execute(
        "UPDATE runs SET finished = ?2, outcome = ?3, counts = ?4 WHERE id = ?1",
        params![id, now_ms(), outcome, counts],
    )?;
    trim(&tx, id)?;
    tx.commit()?;
    Ok(())
}

/// Record a run that started and finished now (a tick with nothing to
/// do), in one write.
pub fn record(store: &mut Store, kind: &str, owner: &str, outcome: &str, counts: &str) -> Result<()> {
    let tx = store.write()?;
    let now = now_ms();
    let id: i64 = tx.query_row(
        "INSERT INTO runs (kind, owner, started, finished, outcome, counts) VALUES (?1, ?2, ?3, ?3, ?4, ?5) RETURNING id",
        params![kind, owner, now, outcome, counts],
        |r| r.get(0),
    )?;
    trim(&tx, id)?;
    tx.commit()?;
    Ok(())
}

/// Keep the table small: the last thousand runs are plenty for `status`.
fn trim(tx: &rusqlite::Transaction<'_>, newest: i64) -> Result<()> {
    tx.execute("DELETE FROM runs WHERE id < ?1 - 1000", [newest])?;
    Ok(())
}

/// A recorded run (times in ms since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub kind: String,
    pub started: i64,
    pub finished: Option<i64>,
    /// None while running (or killed).
    pub outcome: Option<String>,
}

/// The latest run, finished or not.
pub fn last(store: &Store) -> Result<Option<Run>> {
    Ok(store
        .conn
        .query_row("SELECT kind, started, finished, outcome FROM runs ORDER BY id DESC LIMIT 1", [], |r| {
            Ok(Run { kind: r.get(0)?, started: r.get(1)?, finished: r.get(2)?, outcome: r.get(3)? })
        })
        .optional()?)
}

/// The outcome of the latest finished run (`Some(None)`: finished without one).
pub fn last_finished_outcome(store: &Store) -> Result<Option<Option<String>>> {
    Ok(store
        .conn
        .query_row("SELECT outcome FROM runs WHERE finished IS NOT NULL ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .optional()?)
}

/// SQLite upkeep: refresh planner statistics and fold the WAL back.
pub fn maintain(store: &Store) -> Result<()> {
    store.conn.execute_batch("PRAGMA optimize;")?;
    store.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
    Ok(())
}
