//! Counts for `ragger status` and the capture lag warning. Every figure is
//! an aggregate over an index, never a fetch of rows.

use anyhow::Result;
use serde::Serialize;

use crate::store::{now_ms, queue, runs, Store};

#[derive(Debug, Serialize, PartialEq)]
pub struct Status {
    /// Rows by state (sessions, turns, the queue, summaries).
    #[serde(flatten)]
    pub rows: crate::store::status::Counts,
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

pub fn status(store: &Store, unembedded: i64) -> Result<Status> {
    let now = now_ms();
    let (failed_l2, failed_l4) = queue::failed(store)?;
    Ok(Status {
        rows: crate::store::status::counts(store)?,
        failed: failed_l2 + failed_l4,
        unembedded,
        oldest_pending_seconds: queue::oldest_unfolded_ms(store)?.map(|t| ((now - t) / 1000).max(0)),
        redactions: crate::store::status::redactions(store)?,
        last_run: runs::last(store)?.map(|r| LastRun {
            started: crate::store::fmt_time(r.started),
            finished: r.finished.map(crate::store::fmt_time),
            outcome: r.outcome,
        }),
    })
}

/// One line for capture to print when the pipeline is falling behind: the
/// oldest pending work is older than three pause periods, or the last pass
/// failed. `None` when all is well. `pause_ms`: see
/// `pipeline::options::pause_ms`.
pub fn lag_warning(store: &Store, pause_ms: i64) -> Result<Option<String>> {
    let limit_ms = 3 * pause_ms;
    if let Some(t) = queue::oldest_unfolded_ms(store)? {
        let age = now_ms() - t;
        if age > limit_ms {
            return Ok(Some(format!(
                "the oldest unsummarized turn is {} minutes old; is `ragger housekeeping` running from cron? (see `ragger status`)",
                age / 60_000
            )));
        }
    }
    if let Some(Some(o)) = runs::last_finished_outcome(store)? {
        if o != "ok" {
            return Ok(Some(format!("the last summarize pass ended with outcome '{o}' (see `ragger status`)")));
        }
    }
    Ok(None)
}
