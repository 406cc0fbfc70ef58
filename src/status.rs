//! Counts for `ragger status` and the capture lag warning. Every figure is
//! an aggregate over an index, never a fetch of rows.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use crate::config::Config;
use crate::store::now_ms;

#[derive(Debug, Serialize, PartialEq)]
pub struct Status {
    pub sessions_open: i64,
    pub sessions_closed: i64,
    pub turns: i64,
    pub pending_l2: i64,
    pub pending_l3: i64,
    pub pending_l4: i64,
    pub summaries_running: i64,
    pub summaries_complete: i64,
    pub failed: i64,
    pub unembedded: i64,
    pub oldest_pending_seconds: Option<i64>,
    /// Secrets replaced by markers at capture or by `ragger redact`.
    pub redactions: i64,
    pub last_run: Option<LastRun>,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct LastRun {
    pub started: String,
    pub finished: Option<String>,
    pub outcome: Option<String>,
}

fn count(conn: &Connection, sql: &str) -> rusqlite::Result<i64> {
    conn.query_row(sql, [], |r| r.get(0))
}

pub fn status(conn: &Connection, unembedded: i64) -> Result<Status> {
    let now = now_ms();
    let oldest = oldest_pending_ms(conn)?;
    Ok(Status {
        sessions_open: count(conn, "SELECT count(*) FROM sessions WHERE closed_at IS NULL")?,
        sessions_closed: count(conn, "SELECT count(*) FROM sessions WHERE closed_at IS NOT NULL")?,
        turns: count(conn, "SELECT count(*) FROM turns")?,
        pending_l2: count(conn, "SELECT count(*) FROM turns WHERE l2_state = 'pending'")?,
        pending_l3: count(conn, "SELECT count(*) FROM turns WHERE l3_id IS NULL AND l2_state = 'done'")?,
        pending_l4: count(conn, "SELECT count(*) FROM summaries WHERE l4_state = 'pending'")?,
        summaries_running: count(conn, "SELECT count(*) FROM summaries WHERE status = 'running'")?,
        summaries_complete: count(conn, "SELECT count(*) FROM summaries WHERE status = 'complete'")?,
        failed: count(
            conn,
            "SELECT (SELECT count(*) FROM turns WHERE l2_state = 'failed')
                  + (SELECT count(*) FROM summaries WHERE l4_state = 'failed')",
        )?,
        unembedded,
        oldest_pending_seconds: oldest.map(|t| ((now - t) / 1000).max(0)),
        redactions: count(conn, "SELECT coalesce(sum(redactions), 0) FROM sessions")?,
        last_run: last_run(conn)?,
    })
}

/// Capture time of the oldest turn still waiting for its L2 or its fold
/// (one row of a partial index, whatever the size of the database).
pub fn oldest_pending_ms(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    conn.query_row(
        "SELECT captured_at FROM turns WHERE l3_id IS NULL AND l2_state <> 'failed' ORDER BY id LIMIT 1",
        [],
        |r| r.get(0),
    )
    .optional()
}

fn last_run(conn: &Connection) -> rusqlite::Result<Option<LastRun>> {
    conn.query_row("SELECT started, finished, outcome FROM runs ORDER BY id DESC LIMIT 1", [], |r| {
        Ok(LastRun {
            started: crate::store::fmt_time(r.get(0)?),
            finished: r.get::<_, Option<i64>>(1)?.map(crate::store::fmt_time),
            outcome: r.get(2)?,
        })
    })
    .optional()
}

/// One line for capture to print when the pipeline is falling behind: the
/// oldest pending work is older than three pause periods, or the last pass
/// failed. `None` when all is well.
pub fn lag_warning(conn: &Connection, config: &Config) -> Result<Option<String>> {
    let limit_ms = 3 * config.housekeeping.summary_pause_minutes as i64 * 60_000;
    if let Some(t) = oldest_pending_ms(conn)? {
        let age = now_ms() - t;
        if age > limit_ms {
            return Ok(Some(format!(
                "the oldest unsummarized turn is {} minutes old; is `ragger housekeeping` running from cron? (see `ragger status`)",
                age / 60_000
            )));
        }
    }
    let outcome: Option<Option<String>> = conn
        .query_row("SELECT outcome FROM runs WHERE finished IS NOT NULL ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .optional()?;
    if let Some(Some(o)) = outcome {
        if o != "ok" {
            return Ok(Some(format!("the last summarize pass ended with outcome '{o}' (see `ragger status`)")));
        }
    }
    Ok(None)
}
