//! Closing idle sessions: a session whose last turn is older than the pause
//! has its running L3 completed (and queued for L4), once nothing of it is
//! left to fold.

use anyhow::Result;
use rusqlite::{params, Connection};
use serde::Serialize;

use crate::store::{now_ms, Store};

#[derive(Debug, Serialize, Clone, PartialEq, Eq)]
pub struct Idle {
    pub session: String,
    pub id: i64,
    /// Turns still waiting for their L2 or their fold: not closed yet.
    pub pending: i64,
}

/// Open sessions idle for at least `pause_ms`.
pub fn idle_sessions(conn: &Connection, pause_ms: i64) -> Result<Vec<Idle>> {
    let mut stmt = conn.prepare(
        "SELECT s.external_id, s.id,
                (SELECT count(*) FROM turns t WHERE t.session_id = s.id AND t.l3_id IS NULL AND t.l2_state <> 'failed')
         FROM sessions s WHERE s.closed_at IS NULL AND s.last_at <= ?1 ORDER BY s.last_at",
    )?;
    let rows = stmt
        .query_map([now_ms() - pause_ms], |r| Ok(Idle { session: r.get(0)?, id: r.get(1)?, pending: r.get(2)? }))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Close one idle session if it is still idle and fully folded. Returns
/// whether it was closed.
pub fn close(store: &mut Store, id: i64, pause_ms: i64) -> Result<bool> {
    let now = now_ms();
    let tx = store.write()?;
    // Re-check inside the write lock: a turn may have arrived meanwhile.
    let ready: bool = tx.query_row(
        "SELECT closed_at IS NULL AND last_at <= ?2
                AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND t.l3_id IS NULL AND t.l2_state <> 'failed')
         FROM sessions s WHERE id = ?1",
        params![id, now - pause_ms],
        |r| r.get(0),
    )?;
    if !ready {
        return Ok(false);
    }
    let running: Option<i64> = rusqlite::OptionalExtension::optional(tx.query_row(
        "SELECT id FROM summaries WHERE level = 3 AND session_id = ?1 AND status = 'running'",
        [id],
        |r| r.get(0),
    ))?;
    if let Some(l3) = running {
        crate::pipeline::fold::complete_l3(&tx, l3, now)?;
    }
    tx.execute("UPDATE sessions SET closed_at = ?2 WHERE id = ?1", params![id, now])?;
    tx.commit()?;
    Ok(true)
}

/// SQLite upkeep: refresh planner statistics and fold the WAL back.
pub fn maintain(store: &Store) -> Result<()> {
    store.conn.execute_batch("PRAGMA optimize;")?;
    store.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
    Ok(())
}
