//! The pass's view of the work queue (kept in the database, read through
//! `store::queue`): what it passes over for the rest of a pass, how long
//! its claims last, and the threshold gate's policy.

use std::collections::HashSet;

use anyhow::Result;

use super::{PassOptions, LEASE};
pub use crate::store::queue::{fold_head, pending_l2, release, session_id, FoldTurn, Gate, L2Item, Table};
use crate::store::{now_ms, queue as q, Store};

/// Items that failed in this pass: retried next run, not again now.
#[derive(Default)]
pub struct Skip {
    pub turns: HashSet<i64>,
    pub sessions: HashSet<i64>,
    pub l3_rows: HashSet<i64>,
    /// Where the scan for sessions to fold resumes, so sessions passed over
    /// (gated, blocked, failed) are not read again on every step.
    pub session_cursor: i64,
}

/// Sessions with L2s waiting to be folded, from the skip cursor on (see
/// [`q::sessions_to_fold`]).
pub fn sessions_to_fold(store: &Store, session: Option<i64>, skip: &mut Skip, n: usize) -> Result<Vec<i64>> {
    q::sessions_to_fold(store, session, &skip.sessions, &mut skip.session_cursor, n)
}

/// Take leases on rows of `table` by id for [`LEASE`]; returns the ids
/// actually claimed.
pub fn claim(store: &mut Store, table: Table, ids: &[i64], owner: &str) -> Result<Vec<i64>> {
    q::claim(store, table, ids, owner, now_ms() + LEASE.as_millis() as i64)
}

/// Whether the fold policy holds session `sid` back now (only the
/// threshold policy ever does).
pub fn gated(store: &Store, sid: i64, opts: &PassOptions) -> Result<bool> {
    super::fold::policy::waits(opts, || q::gate(store, sid, opts.pause_ms))
}

/// Clear every claim: called by a pass that holds the run lock, which
/// proves no other pass is alive. Returns how many claims were recovered.
pub fn recover_orphans(store: &mut Store) -> Result<u64> {
    q::clear_leases(store)
}

/// Items still waiting: turns without L2, L2s not folded, L3s not in an L4.
pub fn remaining(store: &Store, session: Option<i64>) -> Result<u64> {
    Ok(q::counts(store, session)?.remaining())
}
