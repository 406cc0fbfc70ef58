//! What `sessions`, `projects`, `show` and the pass's `-v` lines read.

use anyhow::Result;
use rusqlite::{params, OptionalExtension};

use super::{fmt_time, Store};
// The derive names `schemars`: rmcp's, so the MCP schemas use its version.
use rmcp::schemars;
use serde::Serialize;

/// Refuse writes on this connection (`ragger mcp` only reads).
pub fn read_only(store: &Store) -> Result<()> {
    store.conn.execute_batch("PRAGMA query_only = ON")?;
    Ok(())
}

pub fn sessions(store: &Store, f: &SessionFilter<'_>) -> Result<Vec<SessionRow>> {
    let mut stmt = store.conn.prepare(
        "SELECT s.external_id, coalesce((SELECT p.label FROM projects p WHERE p.key = s.project), s.project),
                (SELECT count(*) FROM turns t WHERE t.session_id = s.id),
                s.first_at, s.last_at, s.closed_at IS NULL,
                EXISTS (SELECT 1 FROM summaries m WHERE m.session_id = s.id AND m.level = 3 AND m.status = 'running'),
                coalesce(
                    (SELECT m.content FROM summaries m WHERE m.session_id = s.id AND m.level = 3 ORDER BY m.id DESC LIMIT 1),
                    (SELECT t.l2 FROM turns t WHERE t.session_id = s.id AND t.l2 IS NOT NULL ORDER BY t.at DESC, t.id DESC LIMIT 1),
                    (SELECT t.user_text FROM turns t WHERE t.session_id = s.id ORDER BY t.at, t.id LIMIT 1))
         FROM sessions s
         WHERE (?1 IS NULL OR s.project = ?1) AND (NOT ?2 OR s.closed_at IS NULL) AND (?3 IS NULL OR s.last_at >= ?3)
         ORDER BY s.last_at DESC, s.id DESC LIMIT ?4",
    )?;
    let limit = f.limit.map_or(-1, |l| l as i64);
    let rows = stmt
        .query_map(params![f.project, f.open, f.since, limit], |r| {
            Ok(SessionRow {
                session: r.get(0)?,
                project: r.get(1)?,
                turns: r.get(2)?,
                first: fmt_time(r.get(3)?),
                last: fmt_time(r.get(4)?),
                first_ms: r.get(3)?,
                last_ms: r.get(4)?,
                open: r.get(5)?,
                running_summary: r.get(6)?,
                summary: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn projects(store: &Store) -> Result<Vec<ProjectRow>> {
    let mut stmt = store.conn.prepare(
        "SELECT coalesce(p.label, s.project), count(*), sum((SELECT count(*) FROM turns t WHERE t.session_id = s.id)),
                max(s.last_at),
                (SELECT m.content FROM summaries m WHERE m.level = 4 AND m.project = s.project
                  ORDER BY m.status = 'running' DESC, m.id DESC LIMIT 1),
                (SELECT m.status FROM summaries m WHERE m.level = 4 AND m.project = s.project
                  ORDER BY m.status = 'running' DESC, m.id DESC LIMIT 1),
                coalesce(p.name, s.project), p.root,
                (SELECT json_group_array(q.label) FROM (SELECT label FROM projects WHERE merged_into = s.project
                  ORDER BY label) q)
         FROM sessions s LEFT JOIN projects p ON p.key = s.project WHERE s.project IS NOT NULL
         GROUP BY s.project ORDER BY max(s.last_at) DESC, s.project",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(ProjectRow {
                project: r.get(0)?,
                sessions: r.get(1)?,
                turns: r.get(2)?,
                last: r.get(3)?,
                summary: r.get(4)?,
                summary_status: r.get(5)?,
                name: r.get(6)?,
                root: r.get(7)?,
                merged: serde_json::from_str(&r.get::<_, String>(8)?).unwrap_or_default(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn show(store: &Store, external_id: &str) -> Result<Option<SessionView>> {
    let Some((sid, project, open)) = store
        .conn
        .query_row(
            "SELECT id, coalesce((SELECT p.label FROM projects p WHERE p.key = project), project), closed_at IS NULL FROM sessions WHERE external_id = ?1",
            [external_id],
            |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, bool>(2)?))
        })
        .optional()?
    else {
        return Ok(None);
    };
    let mut stmt = store.conn.prepare(
        "SELECT id, at, user_text, assistant_text, l2, l2_state, l3_id IS NOT NULL, l2_origin, kind
         FROM turns WHERE session_id = ?1 ORDER BY at, id",
    )?;
    let turns = stmt
        .query_map([sid], |r| {
            let l2_state: String = r.get(5)?;
            let folded: bool = r.get(6)?;
            let state = match (l2_state.as_str(), folded) {
                ("failed", _) => "failed",
                (_, true) => "folded",
                ("done", false) => "summarized",
                _ => "pending",
            };
            Ok(TurnView {
                id: r.get(0)?,
                n: 0,
                at: fmt_time(r.get(1)?),
                at_ms: r.get(1)?,
                user: r.get(2)?,
                assistant: r.get(3)?,
                l2: r.get(4)?,
                l2_origin: r.get(7)?,
                state: state.to_string(),
                kind: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut turns = turns;
    for (i, t) in turns.iter_mut().enumerate() {
        t.n = i as i64 + 1;
    }
    // The session's L3 rows, then the L4 rows its L3s were folded into.
    let mut stmt = store.conn.prepare(
        "SELECT id, level, status, first_turn_id, last_turn_id, first_l3_id, last_l3_id, content,
                start_reason, start_score, key_terms, origin FROM summaries
         WHERE (level = 3 AND session_id = ?1)
            OR (level = 4 AND id IN (SELECT l4_id FROM summaries WHERE session_id = ?1 AND l4_id IS NOT NULL))
         ORDER BY level, id",
    )?;
    let summaries = stmt
        .query_map(params![sid], |r| {
            let level: i64 = r.get(1)?;
            let (a, b): (Option<i64>, Option<i64>) =
                if level == 3 { (r.get(3)?, r.get(4)?) } else { (r.get(5)?, r.get(6)?) };
            Ok(SummaryView {
                id: r.get(0)?,
                level,
                status: r.get(2)?,
                episode_range: a.zip(b).map(|(a, b)| format!("{a}-{b}")),
                content: r.get(7)?,
                start_reason: r.get(8)?,
                start_score: r.get(9)?,
                key_terms: r.get(10)?,
                origin: r.get(11)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(SessionView { session: external_id.to_string(), project, open, turns, summaries }))
}

/// The names a pass's `-v` line shows for an item (see
/// `pipeline::progress::Subject::label`): the external id of a turn's
/// session, of a session, or the project of a summary; None when the row is
/// gone or has none.
pub fn name_of(store: &Store, of: NameOf) -> Option<String> {
    let (sql, id) = match of {
        NameOf::TurnSession(id) => {
            ("SELECT s.external_id FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?1", id)
        }
        NameOf::Session(id) => ("SELECT external_id FROM sessions WHERE id = ?1", id),
        NameOf::SummaryProject(id) => (
            "SELECT coalesce((SELECT p.label FROM projects p WHERE p.key = m.project), m.project)
             FROM summaries m WHERE m.id = ?1",
            id,
        ),
    };
    store.conn.query_row(sql, [id], |r| r.get::<_, Option<String>>(0)).optional().ok().flatten().flatten()
}

/// Which name `name_of` reads, by row id.
#[derive(Clone, Copy, Debug)]
pub enum NameOf {
    TurnSession(i64),
    Session(i64),
    SummaryProject(i64),
}

#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub session: String,
    pub project: Option<String>,
    pub turns: i64,
    /// First and last turn times, RFC 3339 UTC.
    pub first: String,
    pub last: String,
    pub open: bool,
    pub running_summary: bool,
    /// What the session is about: its latest L3 summary, else its latest
    /// turn summary, else its first user message (None: nothing yet).
    pub summary: Option<String>,
    /// Last turn time, ms (human output shows it in local time).
    #[serde(skip)]
    pub last_ms: i64,
    #[serde(skip)]
    pub first_ms: i64,
}

/// Which sessions `sessions` lists.
#[derive(Debug, Default, Clone)]
pub struct SessionFilter<'a> {
    pub project: Option<&'a str>,
    /// Only sessions not closed by housekeeping.
    pub open: bool,
    /// Only sessions with a turn at or after this time (ms).
    pub since: Option<i64>,
    /// At most this many, most recent first.
    pub limit: Option<usize>,
}

/// One project for `ragger projects`.
#[derive(Debug, Serialize)]
pub struct ProjectRow {
    /// The name shown and accepted by `--project`: the project's name,
    /// with its parent folder (or its root) where another project has the
    /// same name.
    pub project: String,
    /// Its name: the root's folder name, or the configured or given name.
    pub name: String,
    /// Its repository root (absolute), when known.
    pub root: Option<String>,
    pub sessions: i64,
    pub turns: i64,
    /// Last turn time, RFC 3339 UTC in JSON.
    #[serde(serialize_with = "crate::when::serialize_utc")]
    pub last: i64,
    /// The project summary (L4): the running one, else the latest.
    pub summary: Option<String>,
    /// running | complete (None without an L4 yet).
    pub summary_status: Option<String>,
    /// The projects merged into this one (`projects merge`), by label: a
    /// merged project is not listed as a row of its own.
    pub merged: Vec<String>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TurnView {
    pub id: i64,
    /// Its place in the session: 1, 2, 3… (event order).
    pub n: i64,
    pub at: String,
    #[serde(skip)]
    pub at_ms: i64,
    pub user: String,
    pub assistant: String,
    pub l2: Option<String>,
    /// Who wrote the L2: model | extractive (None while pending).
    pub l2_origin: Option<String>,
    /// pending | summarized | folded | failed
    pub state: String,
    /// turn | note (kept by MCP `remember`)
    pub kind: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SummaryView {
    pub id: i64,
    pub level: i64,
    pub status: String,
    pub episode_range: Option<String>,
    pub content: String,
    /// Why the segment started: first | topic_shift | rollover | pause |
    /// model_no_merge | fold_failed (None for rows written before segments
    /// were explained).
    pub start_reason: Option<String>,
    /// The segmenter's score that started it (topic_shift).
    pub start_score: Option<f64>,
    /// Identifiers and names of its turns, `; `-separated.
    pub key_terms: String,
    /// Who wrote it: model | extractive | copy.
    pub origin: String,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SessionView {
    pub session: String,
    pub project: Option<String>,
    pub open: bool,
    pub turns: Vec<TurnView>,
    pub summaries: Vec<SummaryView>,
}
