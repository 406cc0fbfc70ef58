//! The turns around a fold as the segmenter reads them: their texts, the
//! tail of the running segment, and the next turn (look-ahead).

use anyhow::Result;
use rusqlite::{params, OptionalExtension};

use super::Store;

/// A turn's event time (ms), user text and assistant text.
pub fn texts(store: &Store, turn: i64) -> Result<(i64, String, String)> {
    let mut stmt = store.conn.prepare_cached("SELECT at, user_text, assistant_text FROM turns WHERE id = ?1")?;
    Ok(stmt.query_row([turn], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?)
}

/// The last `n` turns folded into summary `l3` (oldest first).
pub fn segment_tail(store: &Store, l3: i64, n: usize) -> Result<Vec<i64>> {
    let mut stmt =
        store.conn.prepare_cached("SELECT id FROM turns WHERE l3_id = ?1 ORDER BY fold_seq DESC LIMIT ?2")?;
    let mut ids: Vec<i64> = stmt.query_map(params![l3, n as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    ids.reverse();
    Ok(ids)
}

/// The session's next captured turn after `after` in fold order, folded or
/// not (look-ahead: its L2 need not exist).
pub fn next_turn(store: &Store, session: i64, after: i64) -> Result<Option<i64>> {
    Ok(store
        .conn
        .prepare_cached(
            "SELECT t.id FROM turns t, turns a WHERE a.id = ?2 AND t.session_id = ?1 AND t.l3_id IS NULL
               AND (t.at > a.at OR (t.at = a.at AND t.id > a.id))
             ORDER BY t.at, t.id LIMIT 1",
        )?
        .query_row(params![session, after], |r| r.get(0))
        .optional()?)
}

/// Whether the session already has an L3 segment (a new one after it
/// follows a close for idleness).
pub fn has_segment(store: &Store, session: i64) -> Result<bool> {
    Ok(store.conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM summaries WHERE level = 3 AND session_id = ?1)",
        [session],
        |r| r.get(0),
    )?)
}
