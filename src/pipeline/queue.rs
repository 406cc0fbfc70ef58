//! The pass's view of the work queue (kept in the database, read through
//! `store::queue`): what it passes over for the rest of a pass, how long
//! its claims last, and the threshold gate's policy.

use std::collections::HashSet;

use anyhow::Result;

use super::{PassOptions, LEASE};
use crate::config::Summaries;
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

/// The threshold gate: a session folds once it is idle, or once it has
/// more than `threshold_tokens` and at least `min_episodes` new L2s.
pub fn gate_open(g: &Gate, s: &Summaries) -> bool {
    g.idle || (g.session_tokens > s.threshold_tokens as i64 && g.new_l2s >= s.min_episodes as i64)
}

/// Whether the fold policy holds session `sid` back now (only the
/// threshold policy ever does).
pub fn gated(store: &Store, sid: i64, opts: &PassOptions) -> Result<bool> {
    Ok(opts.threshold() && !gate_open(&q::gate(store, sid, opts.pause_ms)?, &opts.summaries))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_opens_when_idle_or_past_both_thresholds() {
        let s = Summaries { threshold_tokens: 100, min_episodes: 3, ..Summaries::default() };
        let g = |new_l2s, session_tokens, idle| Gate { new_l2s, session_tokens, idle };
        assert!(gate_open(&g(3, 101, false), &s));
        assert!(!gate_open(&g(2, 101, false), &s), "too few new L2s");
        assert!(!gate_open(&g(3, 100, false), &s), "not more than threshold_tokens");
        assert!(gate_open(&g(0, 0, true), &s), "an idle session folds regardless");
    }
}
