//! The turns around a fold as the segmenter reads them: their texts and
//! a session's neighbours of a turn in capture order, folded or not (the
//! later ones are the look-ahead).

use anyhow::Result;
use rusqlite::params;

use super::Store;

/// A turn's event time (ms), user text and assistant text.
pub fn texts(store: &Store, turn: i64) -> Result<(i64, String, String)> {
    let mut stmt = store.conn.prepare_cached("SELECT at, user_text, assistant_text FROM turns WHERE id = ?1")?;
    Ok(stmt.query_row([turn], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?)
}

/// Up to `n` turns with ids above `after_id` (in id order) that wait for a
/// fold and have no own-text vector yet, of `session` or of every session.
/// Read through the index of unfolded turns: few in steady state, however
/// many old turns lack a vector.
pub fn unfolded_without_vector(store: &Store, session: Option<i64>, after_id: i64, n: usize) -> Result<Vec<i64>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT id FROM turns INDEXED BY turns_unfolded_id
          WHERE l3_id IS NULL AND t_vec = 0 AND id > ?1 AND (?2 IS NULL OR session_id = ?2)
          ORDER BY id LIMIT ?3",
    )?;
    let ids = stmt.query_map(params![after_id, session, n as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(ids)
}

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

/// How many turns the L3 segment `l3_id` holds.
pub fn segment_turns(store: &Store, l3_id: i64) -> Result<usize> {
    let n: i64 = store.conn.query_row("SELECT count(*) FROM turns WHERE l3_id = ?1", [l3_id], |r| r.get(0))?;
    Ok(n as usize)
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
