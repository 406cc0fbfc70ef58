//! Reading sessions and their turns and summaries for `sessions` and `show`.

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::store::fmt_time;

#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub session: String,
    pub project: Option<String>,
    pub turns: i64,
    pub first: String,
    pub last: String,
    pub open: bool,
    pub running_summary: bool,
}

pub fn sessions(conn: &Connection, project: Option<&str>) -> Result<Vec<SessionRow>> {
    let mut stmt = conn.prepare(
        "SELECT s.external_id, s.project,
                (SELECT count(*) FROM turns t WHERE t.session_id = s.id),
                s.first_at, s.last_at, s.closed_at IS NULL,
                EXISTS (SELECT 1 FROM summaries m WHERE m.session_id = s.id AND m.level = 3 AND m.status = 'running')
         FROM sessions s WHERE ?1 IS NULL OR s.project = ?1 ORDER BY s.last_at DESC, s.id DESC",
    )?;
    let rows = stmt
        .query_map([project], |r| {
            Ok(SessionRow {
                session: r.get(0)?,
                project: r.get(1)?,
                turns: r.get(2)?,
                first: fmt_time(r.get(3)?),
                last: fmt_time(r.get(4)?),
                open: r.get(5)?,
                running_summary: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

#[derive(Debug, Serialize)]
pub struct TurnView {
    pub id: i64,
    pub at: String,
    pub user: String,
    pub assistant: String,
    pub l2: Option<String>,
    /// Who wrote the L2: model | extractive (None while pending).
    pub l2_origin: Option<String>,
    /// pending | summarized | folded | failed
    pub state: String,
}

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
pub struct SessionView {
    pub session: String,
    pub project: Option<String>,
    pub open: bool,
    pub turns: Vec<TurnView>,
    pub summaries: Vec<SummaryView>,
}

pub fn show(conn: &Connection, external_id: &str) -> Result<Option<SessionView>> {
    let Some((sid, project, open)) = conn
        .query_row("SELECT id, project, closed_at IS NULL FROM sessions WHERE external_id = ?1", [external_id], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, bool>(2)?))
        })
        .optional()?
    else {
        return Ok(None);
    };
    let mut stmt = conn.prepare(
        "SELECT id, at, user_text, assistant_text, l2, l2_state, l3_id IS NOT NULL, l2_origin
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
                at: fmt_time(r.get(1)?),
                user: r.get(2)?,
                assistant: r.get(3)?,
                l2: r.get(4)?,
                l2_origin: r.get(7)?,
                state: state.to_string(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // The session's L3 rows, then the L4 rows its L3s were folded into.
    let mut stmt = conn.prepare(
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
