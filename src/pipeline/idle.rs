//! Closing idle sessions: a session whose last turn is older than the pause
//! has its running L3 completed (and queued for L4), once nothing of it is
//! left to fold.

use anyhow::Result;

pub use crate::store::sessions::Idle;
use crate::store::{now_ms, sessions, Store};

/// Open sessions idle for at least `pause_ms`, oldest first.
pub fn idle_sessions(store: &Store, pause_ms: i64) -> Result<Vec<Idle>> {
    sessions::idle(store, now_ms() - pause_ms)
}

/// Close every idle session with nothing left to fold (each re-checked
/// in its own short write). Returns how many were closed.
pub fn close_idle(store: &mut Store, pause_ms: i64) -> Result<u64> {
    let mut closed = 0;
    for s in idle_sessions(store, pause_ms)? {
        if s.pending == 0 && sessions::close_if_idle(store, s.id, now_ms() - pause_ms)? {
            closed += 1;
        }
    }
    Ok(closed)
}
