//! The turns around a fold's head that the topic segmenter reads: a
//! session's neighbours of a turn in capture order, folded or not.

use anyhow::Result;
use rusqlite::params;

use super::Store;

/// Up to `n` turns of `session` just before turn `turn` (oldest first).
pub fn before(store: &Store, session: i64, turn: i64, n: usize) -> Result<Vec<i64>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT t.id FROM turns t, turns a WHERE a.id = ?2 AND t.session_id = ?1
           AND (t.at < a.at OR (t.at = a.at AND t.id < a.id))
         ORDER BY t.at DESC, t.id DESC LIMIT ?3",
    )?;
    let mut ids: Vec<i64> =
        stmt.query_map(params![session, turn, n as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    ids.reverse();
    Ok(ids)
}

/// Up to `n` turns of `session` just after turn `turn` (oldest first).
pub fn after(store: &Store, session: i64, turn: i64, n: usize) -> Result<Vec<i64>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT t.id FROM turns t, turns a WHERE a.id = ?2 AND t.session_id = ?1
           AND (t.at > a.at OR (t.at = a.at AND t.id > a.id))
         ORDER BY t.at, t.id LIMIT ?3",
    )?;
    let ids = stmt.query_map(params![session, turn, n as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(ids)
}
