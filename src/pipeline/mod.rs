//! The summarization pass: L2 turn summaries, L3 session folds, L4 project
//! folds, drained in a fixed priority order. The work queue is derived from
//! the database state; claims are leases; results are committed with a
//! compare-and-set in one short transaction, never across a model call.

pub mod digest;
pub mod fold;
pub mod grounding;
pub mod idle;
pub mod l2;
pub mod options;
pub mod pass;
pub mod payoff;
pub mod plan;
pub mod progress;
pub mod prompts;
pub mod queue;
pub mod quiet;
pub mod segment;
pub mod tick;
pub mod tidy;
pub mod vectors;
pub mod verdict;

pub use options::PassOptions;

use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use crate::llm::{Cancel, Interruptible, MemoryModel, ModelError};
use crate::signals::Flags;
use crate::store::Store;

/// The kinds of work, in the order a pass takes them. Change the order here
/// (and only here) to change the pipeline's priorities.
pub const PRIORITY: [Level; 3] = [Level::L2, Level::L3, Level::L4];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    L2,
    L3,
    L4,
}

/// How long a claim is valid when no pass holds the run lock to recover it.
pub const LEASE: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct Report {
    pub l2: u64,
    pub l3_folds: u64,
    pub topic_shifts: u64,
    pub l4_folds: u64,
    /// Items that failed in this pass (bad replies; each counted an attempt).
    pub failed: u64,
    /// Of those, items whose last attempt this was: now `failed`, not
    /// retried by later passes (`ragger failed` lists them).
    pub gave_up: u64,
    /// Rows written without the model after its replies failed the
    /// grounding check (stored, marked `extractive`).
    pub extractive: u64,
    /// Completions asked of the memory model (retries included).
    pub model_calls: u64,
    /// Work left when the pass stopped.
    pub remaining: u64,
    pub seconds: f64,
    pub embedded: u64,
    /// Items done since the pass last handed them out (`run_pass`'s
    /// `on_event`).
    #[serde(skip)]
    pub events: Vec<progress::ItemEvent>,
}

impl Report {
    pub fn items(&self) -> u64 {
        self.l2 + self.l3_folds + self.l4_folds + self.failed
    }
}

/// Why a pass stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The model is unavailable (exit 69) or refused (exit 78).
    Model(ModelError),
    Interrupted,
}

/// The memory model, created (and preflighted) at the first call of a run.
pub struct ModelSlot<'a> {
    make: Box<dyn FnMut() -> Result<Box<dyn MemoryModel>, ModelError> + 'a>,
    model: Option<Interruptible>,
    /// When calls in flight are abandoned (set by [`run_pass`]).
    cancel: Cancel,
    /// How many times a model was created (0 when the run had no work).
    pub loads: u32,
    /// The embedder for the segmenter's turn vectors (none: no embedding
    /// signals).
    pub vectors: vectors::TurnVectors<'a>,
}

impl<'a> ModelSlot<'a> {
    pub fn new(make: impl FnMut() -> Result<Box<dyn MemoryModel>, ModelError> + 'a) -> Self {
        ModelSlot {
            make: Box::new(make),
            model: None,
            cancel: Cancel::default(),
            loads: 0,
            vectors: vectors::TurnVectors::none(),
        }
    }
    /// The model, created and preflighted at the first call. Its calls,
    /// the preflight included, end early when the pass is asked to stop.
    pub fn get(&mut self) -> Result<&dyn MemoryModel, ModelError> {
        if self.model.is_none() {
            if self.cancel.requested() {
                return Err(ModelError::Interrupted);
            }
            let m = Interruptible::new((self.make)()?, self.cancel.clone());
            m.preflight()?;
            self.loads += 1;
            self.model = Some(m);
        }
        Ok(self.model.as_ref().expect("just set"))
    }
    pub fn loaded(&self) -> Option<&dyn MemoryModel> {
        self.model.as_ref().map(|m| m as &dyn MemoryModel)
    }
    /// Completions asked of the model so far (0 while it is not loaded).
    pub fn calls(&self) -> u64 {
        self.model.as_ref().map_or(0, Interruptible::calls)
    }
}

/// Called after each item with the level done.
pub type OnItem<'p> = &'p mut dyn FnMut(Level);
/// Called after each item with what it was and how it went.
pub type OnEvent<'p> = &'p mut dyn FnMut(&progress::ItemEvent);

/// Run one pass: take work in [`PRIORITY`] order until none is left, the
/// limit or deadline is reached, or a signal asks to stop.
pub fn run_pass(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    flags: &Flags,
    on_item: OnItem<'_>,
    on_event: OnEvent<'_>,
) -> Result<(Report, Option<Stop>)> {
    let started = Instant::now();
    let calls_before = slot.calls();
    let mut report = Report::default();
    let mut skip = queue::Skip::default();
    let session_id = match &opts.session {
        Some(ext) => match queue::session_id(store, ext)? {
            Some(id) => Some(id),
            None => return Ok((report, None)),
        },
        None => None,
    };
    slot.cancel = Cancel { stop: Some(flags.stop.clone()), deadline: opts.deadline };
    let past_deadline = || flags.stopped() || opts.deadline.is_some_and(|d| Instant::now() >= d);
    // Under `--limit` the pass takes only a few items: their folds embed
    // what they need, not the whole backlog ahead.
    if opts.limit.is_none() {
        vectors::ahead(store, &mut slot.vectors, session_id, &past_deadline)?;
    }
    let mut stop = None;
    'pass: loop {
        if flags.stopped() {
            stop = Some(Stop::Interrupted);
            break;
        }
        if opts.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let budget = opts.limit.map(|l| l.saturating_sub(report.items()));
        if budget == Some(0) {
            break;
        }
        for level in PRIORITY {
            let outcome = match level {
                Level::L2 => {
                    let n = opts.parallel.min(budget.unwrap_or(u64::MAX) as usize).max(1);
                    l2::step(store, slot, opts, session_id, n, &mut skip, &mut report)?
                }
                Level::L3 => fold::l3_step(store, slot, opts, session_id, &mut skip, &mut report)?,
                Level::L4 => fold::l4_step(store, slot, opts, session_id, &mut skip, &mut report)?,
            };
            for e in std::mem::take(&mut report.events) {
                on_event(&e);
            }
            match outcome {
                Step::Idle => continue,
                Step::Done(n) => {
                    for _ in 0..n {
                        on_item(level);
                    }
                    continue 'pass;
                }
                // A call abandoned for a signal (or the deadline, which
                // ends the pass like running out of work does).
                Step::Stop(ModelError::Interrupted) => {
                    if flags.stopped() {
                        stop = Some(Stop::Interrupted);
                    }
                    break 'pass;
                }
                Step::Stop(e) => {
                    stop = Some(Stop::Model(e));
                    break 'pass;
                }
            }
        }
        break; // no level had work
    }
    report.remaining = queue::remaining(store, session_id)?;
    report.model_calls = slot.calls() - calls_before;
    report.seconds = started.elapsed().as_secs_f64();
    Ok((report, stop))
}

/// `call` for every item, at the same time when there are several (one
/// thread each), results in the items' order. A call that panics is a bad
/// reply for its item.
pub fn concurrently<T: Sync, R: Send>(
    items: &[T],
    call: impl Fn(&T) -> Result<R, ModelError> + Sync,
) -> Vec<Result<R, ModelError>> {
    if let [one] = items {
        return vec![call(one)];
    }
    let call = &call;
    std::thread::scope(|s| {
        let handles: Vec<_> = items.iter().map(|item| s.spawn(move || call(item))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(ModelError::BadReply("model call panicked".into()))))
            .collect()
    })
}

/// What one step did.
pub enum Step {
    /// No work at this level.
    Idle,
    /// Processed this many items (successes or counted failures).
    Done(u64),
    /// The model is unavailable or refused: stop the pass.
    Stop(ModelError),
}
