//! Failed items: listing them with their stored reason (`ragger failed`)
//! and giving them another chance (`ragger retry`).
//!
//! Only a turn summary (L2) ends `failed`; the fold passes over it, so
//! later turns of its session are usually folded already. A retried turn
//! must be folded in its place, so its session's L3 rows from the first
//! one that folded a later turn are removed and their turns go back to the
//! fold queue (as `forget` does for the turns that remain); L4 rows that
//! folded a removed L3 are redone the same way.

use anyhow::Result;
use serde::Serialize;

use crate::store::Store;

/// One failed item as `ragger failed` shows it.
#[derive(Debug, Serialize)]
pub struct FailedItem {
    /// What failed: `l2` (a turn summary; `id` is the turn id) or `l4`
    /// (an L3 row's project fold; `id` is the summary id).
    pub kind: &'static str,
    pub id: i64,
    pub session: Option<String>,
    pub project: Option<String>,
    /// Turn time (l2) or last update (l4), ms; RFC 3339 UTC in JSON.
    #[serde(serialize_with = "crate::when::serialize_utc")]
    pub at: i64,
    pub attempts: i64,
    /// The last reason the memory model's reply was refused.
    pub reason: Option<String>,
}

/// Every failed item, oldest first.
pub fn failed(store: &Store) -> Result<Vec<FailedItem>> {
    crate::store::retry::failed(store)
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct RetryReport {
    /// Failed items set back to pending.
    pub reset: u64,
    /// Turns put back in the fold queue so the retried ones fold in order.
    pub turns_to_refold: u64,
    /// L3 and L4 rows removed to be folded again.
    pub summaries_removed: u64,
}

/// Which failed items to retry.
pub enum Which<'a> {
    All,
    /// Turn ids (as `ragger failed` and `show --json` print them).
    Turns(&'a [i64]),
}

/// Set failed items back to pending, in one write transaction. Returns the
/// ids given that are not failed turns as the error.
pub fn retry(store: &mut Store, which: Which<'_>) -> Result<RetryReport> {
    crate::store::retry::retry(store, which)
}
