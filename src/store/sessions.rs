//! Sessions: which open ones are idle, and closing one.

use anyhow::Result;
use rusqlite::{named_params, params, OptionalExtension};
use serde::Serialize;

use super::queue::{RUNNING_L3, UNFOLDED};
use super::{now_ms, Store};

/// An open session idle for at least the pause.
#[derive(Debug, Serialize, Clone, PartialEq, Eq)]
pub struct Idle {
    pub session: String,
    pub id: i64,
    /// Turns still waiting for their L2 or their fold: not closed yet.
    pub pending: i64,
}

/// An open session whose last turn is at or before `:before` (ms): idle,
/// to be closed (the partial index `sessions_open` has the first half).
pub const IDLE_OPEN: &str = "closed_at IS NULL AND last_at <= :before";

/// The last turn of the open session that went quiet first (ms), if a
/// session is open: it goes idle `pause` later.
pub fn first_open_last_at(store: &Store) -> Result<Option<i64>> {
    Ok(store.conn.query_row("SELECT min(last_at) FROM sessions WHERE closed_at IS NULL", [], |r| r.get(0))?)
}

/// Open sessions whose last turn is at or before `before` (ms), oldest first.
pub fn idle(store: &Store, before: i64) -> Result<Vec<Idle>> {
    let mut stmt = store.conn.prepare(&format!(
        "SELECT s.external_id, s.id, (SELECT count(*) FROM turns t WHERE t.session_id = s.id AND {UNFOLDED})
         FROM sessions s WHERE {IDLE_OPEN} ORDER BY s.last_at"
    ))?;
    let rows = stmt
        .query_map(named_params! {":before": before}, |r| {
            Ok(Idle { session: r.get(0)?, id: r.get(1)?, pending: r.get(2)? })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Close session `id` if it is still open, its last turn is at or before
/// `before`, and nothing of it is left to fold: its running L3 is
/// completed (and queued for L4). One write transaction, which re-checks
/// all that (a turn may have arrived meanwhile). Returns whether it closed.
pub fn close_if_idle(store: &mut Store, id: i64, before: i64) -> Result<bool> {
    let now = now_ms();
    let tx = store.write()?;
    let ready: bool = tx.query_row(
        &format!(
            "SELECT {IDLE_OPEN} AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND {UNFOLDED})
             FROM sessions s WHERE id = :id"
        ),
        named_params! {":id": id, ":before": before},
        |r| r.get(0),
    )?;
    if !ready {
        return Ok(false);
    }
    let running: Option<i64> =
        tx.query_row(&format!("SELECT id FROM summaries WHERE {RUNNING_L3}"), [id], |r| r.get(0)).optional()?;
    if let Some(l3) = running {
        super::summaries::complete_l3(&tx, l3, now)?;
    }
    tx.execute("UPDATE sessions SET closed_at = ?2 WHERE id = ?1", params![id, now])?;
    tx.commit()?;
    Ok(true)
}
