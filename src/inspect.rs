//! Reading sessions and their turns and summaries for `sessions` and `show`.

use anyhow::Result;
use serde::Serialize;

use crate::store::{inspect as rows, Store};

pub use crate::store::inspect::item_label;

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
    pub project: String,
    pub sessions: i64,
    pub turns: i64,
    /// Last turn time, RFC 3339 UTC in JSON.
    #[serde(serialize_with = "crate::when::serialize_utc")]
    pub last: i64,
    /// The project summary (L4): the running one, else the latest.
    pub summary: Option<String>,
    /// running | complete (None without an L4 yet).
    pub summary_status: Option<String>,
}

#[derive(Debug, Serialize)]
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

/// The sessions `f` names, most recent first.
pub fn sessions(store: &Store, f: &SessionFilter<'_>) -> Result<Vec<SessionRow>> {
    rows::sessions(store, f)
}

/// Every project with its counts and its project summary, most recent first.
pub fn projects(store: &Store) -> Result<Vec<ProjectRow>> {
    rows::projects(store)
}

/// One session with its turns and summaries (None: no such session).
pub fn show(store: &Store, external_id: &str) -> Result<Option<SessionView>> {
    rows::show(store, external_id)
}
