//! The counts `ragger status` shows (each an aggregate over an index,
//! never a fetch of rows) and the queue listed for `summarize --dry-run`.

use anyhow::Result;

use rusqlite::params;

use super::queue::{FOLDABLE, PENDING_L2, PENDING_L4, UNFOLDED};
use super::Store;

/// Row counts by state (queue counts use `store::queue`'s conditions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub sessions_open: i64,
    pub sessions_closed: i64,
    pub turns: i64,
    pub pending_l2: i64,
    pub pending_l3: i64,
    pub pending_l4: i64,
    pub summaries_running: i64,
    pub summaries_complete: i64,
}

fn count(store: &Store, sql: &str) -> Result<i64> {
    Ok(store.conn.query_row(sql, [], |r| r.get(0))?)
}

pub fn counts(store: &Store) -> Result<Counts> {
    Ok(Counts {
        sessions_open: count(store, "SELECT count(*) FROM sessions WHERE closed_at IS NULL")?,
        sessions_closed: count(store, "SELECT count(*) FROM sessions WHERE closed_at IS NOT NULL")?,
        turns: count(store, "SELECT count(*) FROM turns")?,
        pending_l2: count(store, &format!("SELECT count(*) FROM turns WHERE {PENDING_L2}"))?,
        pending_l3: count(store, &format!("SELECT count(*) FROM turns WHERE {FOLDABLE}"))?,
        pending_l4: count(store, &format!("SELECT count(*) FROM summaries WHERE {PENDING_L4}"))?,
        summaries_running: count(store, "SELECT count(*) FROM summaries WHERE status = 'running'")?,
        summaries_complete: count(store, "SELECT count(*) FROM summaries WHERE status = 'complete'")?,
    })
}

/// Secrets replaced by markers, over all sessions.
pub fn redactions(store: &Store) -> Result<i64> {
    count(store, "SELECT coalesce(sum(redactions), 0) FROM sessions")
}

/// The database's schema version (`PRAGMA user_version`).
pub fn schema_version(store: &Store) -> Result<i64> {
    count(store, "PRAGMA user_version")
}

/// A turn waiting for its L2, with the size of its texts.
pub struct PendingTurn {
    pub turn: i64,
    pub session: String,
    /// Characters of the user and assistant texts together.
    pub chars: i64,
}

/// Turns waiting for their L2 (of session `sid`, or all), by id; at most
/// `limit`.
pub fn pending_turns(store: &Store, sid: Option<i64>, limit: Option<u64>) -> Result<Vec<PendingTurn>> {
    let mut stmt = store.conn.prepare(&format!(
        "SELECT t.id, s.external_id, length(t.user_text) + length(t.assistant_text)
         FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.{PENDING_L2} AND (?1 IS NULL OR t.session_id = ?1) ORDER BY t.id LIMIT ?2"
    ))?;
    let limit = limit.map(|l| l as i64).unwrap_or(-1);
    let rows = stmt.query_map(params![sid, limit], |r| {
        Ok(PendingTurn { turn: r.get(0)?, session: r.get(1)?, chars: r.get(2)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A session with turns not folded yet (waiting for their L2 or fold).
pub struct Unfolded {
    pub id: i64,
    pub session: String,
    pub turns: i64,
}

/// Sessions with unfolded turns (session `sid`, or all), in the order
/// their oldest such turn was stored.
pub fn unfolded_sessions(store: &Store, sid: Option<i64>) -> Result<Vec<Unfolded>> {
    let mut stmt = store.conn.prepare(&format!(
        "SELECT t.session_id, s.external_id, count(*) FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.{UNFOLDED} AND (?1 IS NULL OR t.session_id = ?1)
         GROUP BY t.session_id ORDER BY min(t.id)"
    ))?;
    let rows =
        stmt.query_map(params![sid], |r| Ok(Unfolded { id: r.get(0)?, session: r.get(1)?, turns: r.get(2)? }))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Complete L3s waiting for their project fold: (summary id, project).
pub fn pending_l4(store: &Store, sid: Option<i64>) -> Result<Vec<(i64, String)>> {
    let mut stmt = store.conn.prepare(&format!(
        "SELECT id, coalesce((SELECT p.label FROM projects p WHERE p.key = project), project) FROM summaries WHERE {PENDING_L4} AND (?1 IS NULL OR session_id = ?1) ORDER BY id"
    ))?;
    let rows = stmt.query_map(params![sid], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
