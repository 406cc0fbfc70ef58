//! Running and completed summaries (L3 of a session, L4 of a project) as
//! the fold sees them: the running summary a fold reads before its model
//! call, the next L3 waiting for its project's fold, and the completion of
//! an L3. The fold's compare-and-set commits are in `store::fold`.

use std::collections::HashSet;

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::queue::{FREE, PENDING_L4, RUNNING_L3};
use super::{now_ms, Store};

/// When the work a summary covers happened, over a `summaries m` row: the
/// event time of its last turn (an L4: the latest last turn of the
/// segments folded into it); its last update while it covers none. What
/// `context` and `search` show as a summary's date (the update time is
/// when a pass ran, not when the work was done).
pub(crate) const COVERED_AT: &str = "coalesce(CASE m.level
        WHEN 3 THEN (SELECT t.at FROM turns t WHERE t.id = m.last_turn_id)
        ELSE (SELECT max(t.at) FROM summaries l3 JOIN turns t ON t.id = l3.last_turn_id WHERE l3.l4_id = m.id)
    END, m.updated_at)";

/// Where a running summary lives: a session's (L3) or a project's (L4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoldKey {
    Session(i64),
    Project(String),
}

/// A running summary, as read before a fold's model call.
#[derive(Clone, Debug)]
pub struct Running {
    pub id: i64,
    pub content: String,
    pub tokens: i64,
    /// Bumped by every write: the compare-and-set checks it.
    pub version: i64,
    /// `; `-separated.
    pub key_terms: String,
    /// How it was last written: its model, prompt version and origin
    /// (`model`, `extractive`, `copy`).
    pub model: String,
    pub prompt_version: i64,
    pub origin: String,
}

/// The running summary of a session or project, if any.
pub fn running(store: &Store, key: &FoldKey) -> Result<Option<Running>> {
    let read = |r: &rusqlite::Row<'_>| {
        Ok(Running {
            id: r.get(0)?,
            content: r.get(1)?,
            tokens: r.get(2)?,
            version: r.get(3)?,
            key_terms: r.get(4)?,
            model: r.get(5)?,
            prompt_version: r.get(6)?,
            origin: r.get(7)?,
        })
    };
    let found = match key {
        FoldKey::Session(sid) => store.conn.query_row(
            &format!("SELECT id, content, tokens, version, key_terms, model, prompt_version, origin FROM summaries WHERE {RUNNING_L3}"),
            [sid],
            read,
        ),
        FoldKey::Project(project) => store.conn.query_row(
            "SELECT id, content, tokens, version, key_terms, model, prompt_version, origin FROM summaries WHERE level = 4 AND project = ?1 AND status = 'running'",
            [project],
            read,
        ),
    };
    Ok(found.optional()?)
}

/// The characters of the turns a summary covers (its user and assistant
/// texts), for its word budget.
/// A turn under a running summary, as a segment digest reads it again.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// The turn's L2.
    pub l2: String,
    /// Whether the model's decoding wrote it.
    pub by_model: bool,
    /// The turn's user and assistant text.
    pub turn: String,
}

/// The turns a summary covers, in turn order.
pub fn covered_notes(store: &Store, id: i64) -> Result<Vec<Note>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT coalesce(l2, ''), coalesce(l2_origin = 'model', 0), user_text || char(10) || assistant_text
         FROM turns WHERE l3_id = ?1 ORDER BY at, id",
    )?;
    let rows = stmt.query_map([id], |r| Ok(Note { l2: r.get(0)?, by_model: r.get(1)?, turn: r.get(2)? }))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The segments (completed L3s) a project summary covers, in id order,
/// as a project digest reads them again: each L3's text stands in both
/// `l2` and `turn`, with the time of its last turn (when its work was
/// done: `WORKED_AT`).
pub fn covered_segments(store: &Store, id: i64) -> Result<Vec<(Note, i64)>> {
    let mut stmt = store.conn.prepare_cached(&format!(
        "SELECT s.content, s.origin = 'model', {WORKED_AT} FROM summaries s WHERE s.level = 3 AND s.l4_id = ?1 ORDER BY s.id"
    ))?;
    let rows = stmt.query_map([id], |r| {
        let content: String = r.get(0)?;
        Ok((Note { turn: content.clone(), l2: content, by_model: r.get(1)? }, r.get(2)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// When the work of the L3 row `s` was done: the time of its last turn
/// (its creation time when it has none). A session's last segment is
/// created when it starts and completed when the session closes, so
/// neither its id nor its completion says how recent it is.
const WORKED_AT: &str = "coalesce((SELECT t.at FROM turns t WHERE t.id = s.last_turn_id), s.created_at)";

/// The id and version of the running summary, read inside the commit's
/// transaction (the compare half of the compare-and-set).
pub(super) fn running_version(conn: &Connection, key: &FoldKey) -> rusqlite::Result<Option<(i64, i64)>> {
    let pair = |r: &rusqlite::Row<'_>| Ok((r.get(0)?, r.get(1)?));
    match key {
        FoldKey::Session(sid) => conn.query_row(
            "SELECT id, version FROM summaries WHERE level = 3 AND session_id = ?1 AND status = 'running'",
            [sid],
            pair,
        ),
        FoldKey::Project(project) => conn.query_row(
            "SELECT id, version FROM summaries WHERE level = 4 AND project = ?1 AND status = 'running'",
            [project],
            pair,
        ),
    }
    .optional()
}

/// A completed L3 waiting for its project's L4 fold.
#[derive(Clone, Debug)]
pub struct L4Item {
    pub id: i64,
    pub project: String,
    pub content: String,
    pub model: String,
    pub attempts: i64,
    pub key_terms: String,
    /// Whether the model's decoding wrote it.
    pub by_model: bool,
    /// When its work was done (`WORKED_AT`).
    pub worked_at: i64,
}

/// The completed L3s waiting for their project's L4 fold and free to
/// claim, passing over the rows in `skip`: the first of them (of
/// `session`, if given), then the next ones of the same project in id
/// order while their texts fit `budget` characters (the first always
/// counts), at most `max` rows. A project's backlog thus folds in as few
/// calls as the prompt allows.
pub fn next_l4_items(
    store: &Store,
    session: Option<i64>,
    owner: &str,
    skip: &HashSet<i64>,
    max: usize,
    budget: usize,
) -> Result<Vec<L4Item>> {
    let mut stmt = store.conn.prepare_cached(&format!(
        "SELECT id, project, content, model, attempts, key_terms, origin = 'model', {WORKED_AT} FROM summaries s
         WHERE {PENDING_L4} AND (:session IS NULL OR session_id = :session) AND {FREE}
           AND (:project IS NULL OR project = :project)
         ORDER BY id LIMIT :want"
    ))?;
    let read = |r: &rusqlite::Row<'_>| {
        Ok(L4Item {
            id: r.get(0)?,
            project: r.get(1)?,
            content: r.get(2)?,
            model: r.get(3)?,
            attempts: r.get(4)?,
            key_terms: r.get(5)?,
            by_model: r.get(6)?,
            worked_at: r.get(7)?,
        })
    };
    let want = max.max(1) as i64 + skip.len() as i64;
    let first_args = rusqlite::named_params! { ":session": session, ":owner": owner, ":now": now_ms(), ":want": want, ":project": None::<String> };
    let mut first = None;
    for row in stmt.query_map(first_args, read)? {
        let row = row?;
        if !skip.contains(&row.id) {
            first = Some(row);
            break;
        }
    }
    let Some(first) = first else { return Ok(Vec::new()) };
    let project = first.project.clone();
    let mut used = first.content.chars().count();
    let mut out = vec![first];
    let args = rusqlite::named_params! { ":session": session, ":owner": owner, ":now": now_ms(), ":want": want, ":project": project };
    for row in stmt.query_map(args, read)? {
        let row = row?;
        if out.len() >= max || row.id <= out[0].id || skip.contains(&row.id) {
            continue;
        }
        used += row.content.chars().count();
        if used > budget {
            break;
        }
        out.push(row);
    }
    Ok(out)
}

/// Mark a running L3 complete; if its session has a project it now waits
/// for the L4 fold. Part of a larger write (a fold's commit, closing an
/// idle session), so it takes that write's transaction.
pub fn complete_l3(tx: &Transaction<'_>, id: i64, now: i64) -> rusqlite::Result<usize> {
    tx.execute(
        "UPDATE summaries SET status = 'complete', completed_at = ?2, updated_at = ?2, version = version + 1,
                l4_state = CASE WHEN project IS NOT NULL THEN 'pending' ELSE 'none' END
         WHERE id = ?1 AND level = 3 AND status = 'running'",
        params![id, now],
    )
}

/// Mark a running L4 complete (a new one takes its place).
pub(super) fn complete_l4(tx: &Transaction<'_>, id: i64, now: i64) -> rusqlite::Result<usize> {
    tx.execute(
        "UPDATE summaries SET status = 'complete', completed_at = ?2, updated_at = ?2, version = version + 1
         WHERE id = ?1",
        params![id, now],
    )
}
