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

pub use crate::store::retry::{FailedItem, RetryReport, Which};
use crate::store::Store;

/// Every failed item, oldest first.
pub fn failed(store: &Store) -> Result<Vec<FailedItem>> {
    crate::store::retry::failed(store)
}

/// Set failed items back to pending, in one write transaction. Returns the
/// ids given that are not failed turns as the error.
pub fn retry(store: &mut Store, which: Which<'_>) -> Result<RetryReport> {
    crate::store::retry::retry(store, which)
}
