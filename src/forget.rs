//! Forgetting: removing turns with everything derived from them, so that no
//! byte of their text stays in the database, its WAL or its FTS indexes.
//!
//! What goes, in one write transaction:
//! - the turns, their L2s (and the L2 FTS rows, by trigger) and vectors;
//! - in each session that loses a turn, every L3 row from the first one
//!   that folded a forgotten turn onwards: their remaining turns go back
//!   to the fold queue (an L3 is cumulative, so re-folding from what
//!   remains is the only way to drop the forgotten text; earlier segments
//!   hold none of it and stay);
//! - in each project that loses an L3, every L4 row from the first one
//!   that folded a removed L3 onwards: their remaining L3s are folded again;
//! - sessions left without turns.
//!
//! Then the FTS indexes are merged (a deleted row's terms otherwise stay in
//! old segments), the file is rebuilt with `secure_delete` on (VACUUM: free
//! pages and the free space inside pages may still hold old versions of a
//! running summary), and the WAL is checkpointed and truncated.

use anyhow::Result;
use serde::Serialize;

use crate::store::Store;

/// Which turns to forget; the filters combine (all must hold).
#[derive(Debug, Default, Clone)]
pub struct Selector {
    pub session: Option<String>,
    pub project: Option<String>,
    pub turn: Option<i64>,
    /// Event time before this (ms).
    pub before: Option<i64>,
    /// Case-insensitive substring of the user text, the reply or the L2.
    pub matching: Option<String>,
}

impl Selector {
    pub fn is_empty(&self) -> bool {
        self.session.is_none()
            && self.project.is_none()
            && self.turn.is_none()
            && self.before.is_none()
            && self.matching.is_none()
    }
}

/// One turn that would go, for `--dry-run`.
#[derive(Debug, Serialize, Clone)]
pub struct DoomedTurn {
    pub id: i64,
    pub session: String,
    pub project: Option<String>,
    pub at: String,
    /// The first words of the user text.
    pub preview: String,
}

#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Report {
    pub turns: u64,
    pub sessions_removed: u64,
    pub summaries_removed: u64,
    pub vectors_removed: u64,
    /// Remaining turns put back into the fold queue.
    pub turns_to_refold: u64,
    /// Remaining session summaries put back into the project fold queue.
    pub summaries_to_refold: u64,
}

pub(crate) fn preview(text: &str) -> String {
    let one: String = crate::display::one_line(text);
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(60).collect::<String>())
    } else {
        one
    }
}

/// The turns a selector names, oldest first.
pub fn select(store: &Store, sel: &Selector) -> Result<Vec<DoomedTurn>> {
    crate::store::forget::select(store, sel)
}

/// Remove the turns `ids` and everything derived from them, in one write
/// transaction, then scrub the file. The caller holds the run lock, so no
/// pass is folding meanwhile.
pub fn forget(store: &mut Store, ids: &[i64]) -> Result<Report> {
    crate::store::forget::forget(store, ids)
}

/// A date for `--before`/`--since`: RFC 3339, or `YYYY-MM-DD` (midnight UTC).
pub fn parse_date(s: &str) -> std::result::Result<i64, String> {
    let t = s.trim();
    if let Ok(d) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp_millis());
    }
    crate::store::parse_time(t).map_err(|_| format!("invalid date {s:?} (want YYYY-MM-DD or RFC 3339)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_days_or_rfc3339() {
        assert_eq!(parse_date("2026-01-01"), Ok(1_767_225_600_000));
        assert_eq!(parse_date("2026-01-01T00:00:00Z"), Ok(1_767_225_600_000));
        assert!(parse_date("last week").unwrap_err().contains("YYYY-MM-DD"));
    }
}
