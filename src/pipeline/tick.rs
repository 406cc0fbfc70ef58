//! A housekeeping tick, under one run lock: recover orphaned claims once,
//! run a pass, close idle sessions, fold what closing completed, and
//! maintain the database when anything changed. A tick that finds none of
//! that to do (one statement, `store::queue::tick_work`) stops there and
//! writes nothing to the database; the time of every tick is stamped in
//! the run lock (for `doctor`).

use anyhow::Result;
use serde::Serialize;

use super::pass::{Pass, PassEnv, PassOutcome};
use super::{idle, queue, Report};
use crate::lock;
use crate::signals::Flags;
use crate::store::{now_ms, queue as q, runs, Store};

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
    /// The run lock, held until the caller lets go of it.
    pub held: Option<lock::RunLock>,
    /// Nothing was to do: when the first open session goes idle (`Some(None)`:
    /// no session is open). For the quiet line (`pipeline::quiet`).
    pub quiet: Option<Option<i64>>,
}

impl Tick {
    /// A tick with nothing to do: what the whole tick would have reported.
    pub fn nothing(summarize: bool, held: Option<lock::RunLock>, due: Option<i64>) -> Tick {
        let outcome =
            summarize.then(|| PassOutcome { report: Report::default(), stop: None, recovered: 0, model_loads: 0 });
        let report = TickReport { recovered: 0, closed_sessions: 0, summarized: Report::default(), failed: 0 };
        Tick { report, outcome, held, quiet: Some(due) }
    }
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
    if let Some(due) = nothing_to_do(env, store, t)? {
        return Ok(Some(Tick::nothing(t.summarize, Some(held), due)));
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
    let report = TickReport { recovered, closed_sessions: closed, summarized, failed };
    Ok(Some(Tick { report, outcome, held: Some(held), quiet: None }))
}

/// When [`q::tick_work`] finds nothing: `Some` of when the first open
/// session goes idle (else `None`: there is work), without preparing any
/// of the pass's statements or writing. Only when the last run record says
/// something went wrong (or there is none) does it record its run, as
/// every pass did, so `status`, `doctor` and capture's warning see all is
/// well again.
fn nothing_to_do(env: &PassEnv, store: &mut Store, t: &TickOptions) -> Result<Option<Option<i64>>> {
    let pause = super::options::pause_ms(&env.config);
    if q::tick_work(store, now_ms() - pause, env.config.embedder.enabled)?.is_some() {
        return Ok(None);
    }
    if let Some(o) = Tick::nothing(t.summarize, None, None).outcome {
        if runs::last(store)?.is_none_or(|r| r.outcome.as_deref() != Some(o.outcome_name())) {
            let counts = serde_json::to_string(&o.report)?;
            runs::record(store, "housekeeping", &crate::runs::owner(), o.outcome_name(), &counts)?;
        }
    }
    let due = crate::store::sessions::first_open_last_at(store)?.map(|at| at.saturating_add(pause));
    Ok(Some(due))
}
