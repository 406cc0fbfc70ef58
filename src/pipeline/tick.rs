//! A housekeeping tick, under one run lock: recover orphaned claims once,
//! run a pass, close idle sessions, fold what closing completed, and
//! maintain the database when anything changed. The time of every tick
//! is stamped in the run lock (for `doctor`).

use anyhow::Result;
use serde::Serialize;

use super::pass::{Pass, PassEnv, PassOutcome};
use super::{idle, queue, Report};
use crate::lock;
use crate::signals::Flags;
use crate::store::{now_ms, runs, Store};

#[derive(Serialize)]
pub struct TickReport {
    pub recovered: u64,
    pub closed_sessions: u64,
    pub summarized: Report,
    pub failed: u64,
}

pub struct Tick {
    pub report: TickReport,
    /// The last pass run (none with `--no-summarize`).
    pub outcome: Option<PassOutcome>,
}

/// What a tick may do.
pub struct TickOptions {
    /// Run passes (not with `--no-summarize`).
    pub summarize: bool,
    /// `--max-seconds`: one deadline for both passes.
    pub max_seconds: Option<f64>,
}

/// Run one tick. `None`: another pass holds the lock (exit 75). `flags`
/// is called once the lock is held (signal handlers for the passes).
pub fn run(
    env: &PassEnv,
    store: &mut Store,
    t: &TickOptions,
    flags: impl FnOnce() -> Result<Flags>,
) -> Result<Option<Tick>> {
    let Some(held) = lock::for_pass(&store.path, env.verbose > 0)? else { return Ok(None) };
    if let Err(e) = held.stamp_tick(now_ms()) {
        env.warn(&format!("warning: {e:#}"));
    }
    let flags = flags()?;
    let recovered = queue::recover_orphans(store)?;
    let mut opts = env.options(None);
    opts.deadline = super::options::deadline(t.max_seconds);
    let pause_ms = opts.pause_ms;
    let pass = Pass { env, opts, kind: "housekeeping", flags: &flags };
    let mut summarized = Report::default();
    let mut outcome: Option<PassOutcome> = None;
    if t.summarize {
        let o = pass.run_locked(store, &held, false)?;
        summarized = o.report.clone();
        outcome = Some(o);
    }
    let mut closed = 0;
    if outcome.as_ref().is_none_or(|o| o.stop.is_none()) {
        closed = idle::close_idle(store, pause_ms)?;
    }
    // Sessions just closed have new complete L3s: fold them into their projects now.
    if closed > 0 && t.summarize {
        let o = pass.run_locked(store, &held, false)?;
        summarized.add(&o.report);
        outcome = Some(o);
    }
    // An idle tick leaves the database alone: SQLite's auto-checkpoint
    // bounds the WAL, and a checkpoint here would cost an fsync every tick.
    if closed > 0 || summarized.items() > 0 || summarized.embedded > 0 {
        runs::maintain(store)?;
    }
    let failed = summarized.failed;
    Ok(Some(Tick { report: TickReport { recovered, closed_sessions: closed, summarized, failed }, outcome }))
}
