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
//! running summary), and the WAL is checkpointed and truncated. The scrub
//! runs even when the selector names no turn any more, so a forget whose
//! scrub was cut short (a reader held the WAL, the process was killed) is
//! finished by running it again.

use anyhow::Result;

pub use crate::store::forget::{DoomedTurn, Report, Selector};
use crate::store::Store;

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
