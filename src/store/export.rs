//! What `ragger export` reads: sessions in export order, their turns,
//! their segments and their project's summaries.

use anyhow::Result;
use rusqlite::params;

use super::Store;

/// A session to export.
pub struct Session {
    pub id: i64,
    pub external: String,
    pub project: Option<String>,
    pub first_at: i64,
    pub last_at: i64,
    /// The project's root folder, else its key: what `capture --stdin`
    /// reads back as the same project.
    pub project_path: Option<String>,
    /// The project's name as listings show it.
    pub project_label: Option<String>,
}

/// The sessions the filter names, by project, then first turn.
pub fn sessions(store: &Store, f: &Filter) -> Result<Vec<Session>> {
    let mut stmt = store.conn.prepare(
        "SELECT id, external_id, project, first_at, last_at,
                (SELECT coalesce(p.root, p.key) FROM projects p WHERE p.key = project),
                (SELECT p.label FROM projects p WHERE p.key = project)
         FROM sessions
         WHERE (?1 IS NULL OR external_id = ?1) AND (?2 IS NULL OR project = ?2)
           AND (?3 IS NULL OR last_at >= ?3)
         ORDER BY project IS NULL, project, first_at, id",
    )?;
    let rows = stmt
        .query_map(params![f.session, f.project, f.since], |r| {
            Ok(Session {
                id: r.get(0)?,
                external: r.get(1)?,
                project: r.get(2)?,
                first_at: r.get(3)?,
                last_at: r.get(4)?,
                project_path: r.get(5)?,
                project_label: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// (turn id, at, idempotency key, user, assistant, kind) of a session, in order.
pub type TurnRow = (i64, i64, Option<String>, String, String, String);

/// A session's turns (at or after `since`), in event order.
pub fn turns(store: &Store, session: i64, since: Option<i64>) -> Result<Vec<TurnRow>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT id, at, idem_key, user_text, assistant_text, kind FROM turns
         WHERE session_id = ?1 AND (?2 IS NULL OR at >= ?2) ORDER BY at, id",
    )?;
    let rows = stmt
        .query_map(params![session, since], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The project's L4 summaries (status, content, last update), oldest first.
pub fn project_summaries(store: &Store, project: &str) -> Result<Vec<(String, String, i64)>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT status, content, updated_at FROM summaries WHERE level = 4 AND project = ?1 ORDER BY id",
    )?;
    let rows =
        stmt.query_map([project], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// An L3 segment: status, content, first and last turn ids, and those
/// turns' event times.
pub type Segment = (String, String, Option<i64>, Option<i64>, Option<i64>, Option<i64>);

/// The session's L3 segments in fold order.
pub fn segments(store: &Store, session: i64) -> Result<Vec<Segment>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT m.status, m.content, m.first_turn_id, m.last_turn_id,
                (SELECT at FROM turns WHERE id = m.first_turn_id), (SELECT at FROM turns WHERE id = m.last_turn_id)
         FROM summaries m WHERE m.level = 3 AND m.session_id = ?1 ORDER BY m.first_seq",
    )?;
    let rows = stmt
        .query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Which turns to export; the filters combine.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub session: Option<String>,
    pub project: Option<String>,
    /// Turns at or after this event time (ms).
    pub since: Option<i64>,
}
