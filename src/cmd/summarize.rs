//! `ragger summarize`: one pass (`--once`, what cron runs) or a foreground
//! worker loop; also the shared pass runner used by `housekeeping` and
//! `capture --summarize`.

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::cli::SummarizeArgs;
use crate::cmd::{print_json, Ctx};
use crate::embed::LazyEmbedder;
use crate::exit::{fail, Exit};
use crate::llm::ModelError;
use crate::lock;
use crate::pipeline::{self, ModelSlot, PassOptions, Report, Stop};
use crate::signals::Flags;
use crate::store::Store;

pub fn run(ctx: &Ctx, args: &SummarizeArgs) -> Result<Exit> {
    if args.dry_run {
        let store = ctx.open_store()?;
        return crate::cmd::summarize_plan::print(ctx, &store, args);
    }
    let flags = Flags::install()?;
    crate::signals::announce_interrupt(!ctx.quiet());
    if args.once {
        return once(ctx, args, &flags);
    }
    // Worker loop: a pass, then sleep until the interval passes, SIGUSR1
    // wakes us, or SIGINT/SIGTERM stops us (between items).
    loop {
        let exit = once(ctx, args, &flags)?;
        if flags.stopped() {
            return Ok(Exit::Ok);
        }
        if matches!(exit, Exit::Config) {
            return Ok(exit);
        }
        let until = Instant::now() + Duration::from_secs_f64(args.interval.max(0.1));
        while Instant::now() < until && !flags.stopped() {
            if flags.wake.swap(false, std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if flags.stopped() {
            return Ok(Exit::Ok);
        }
    }
}

fn once(ctx: &Ctx, args: &SummarizeArgs, flags: &Flags) -> Result<Exit> {
    let db = ctx.db_path();
    // The store first: the lock file sits beside it, and a database that
    // cannot be opened is the error to report.
    let mut store = ctx.open_store()?;
    let Some(_lock) = lock::try_lock(&db)? else {
        if ctx.verbose() > 0 {
            eprintln!("ragger: skipped: another pass holds the lock for {}", db.display());
        }
        return Ok(Exit::Locked);
    };
    let mut opts = pass_options(ctx, args.session.clone());
    opts.limit = args.limit;
    opts.deadline = deadline(args.max_seconds);
    let outcome = locked_pass(ctx, &mut store, &opts, flags, "summarize")?;
    if ctx.json() {
        print_json(&outcome.report)?;
    } else if ctx.verbose() > 0 {
        eprintln!("ragger: {}", one_line(&outcome.report));
    }
    outcome.exit()
}

/// Options of a pass from the config.
/// When a pass given `--max-seconds` stops taking new work (clap keeps the
/// value finite and non-negative).
pub fn deadline(max_seconds: Option<f64>) -> Option<Instant> {
    max_seconds.map(|s| Instant::now() + Duration::from_secs_f64(s))
}

pub fn pass_options(ctx: &Ctx, session: Option<String>) -> PassOptions {
    let mut o = PassOptions::new(crate::runs::owner(), ctx.config.summaries.clone());
    o.session = session;
    o.max_attempts = ctx.config.memory_model.max_attempts;
    o.parallel = ctx.config.memory_model.parallel;
    o.pause_ms = ctx.config.housekeeping.summary_pause_minutes as i64 * 60_000;
    o.segment.pause_ms = o.pause_ms;
    o.segment.model_votes = match o.segment.mode {
        pipeline::segment::Mode::Model => true,
        // A server-sized model judges topics well enough to be a vote;
        // the small in-process default does not.
        pipeline::segment::Mode::Auto => ctx.config.memory_model.backend != crate::config::Backend::Local,
        pipeline::segment::Mode::Embedding | pipeline::segment::Mode::Off => false,
    };
    o.verbose = ctx.verbose() > 0;
    o
}

pub struct PassOutcome {
    pub report: Report,
    pub stop: Option<Stop>,
    pub recovered: u64,
    pub model_loads: u32,
}

impl PassOutcome {
    pub fn outcome_name(&self) -> &'static str {
        match &self.stop {
            Some(Stop::Model(ModelError::Unavailable(_))) => "unavailable",
            Some(Stop::Model(_)) => "refused",
            Some(Stop::Interrupted) => "interrupted",
            None if self.report.failed > 0 => "failed",
            None => "ok",
        }
    }

    /// The exit status, or the error to print.
    pub fn exit(&self) -> Result<Exit> {
        match &self.stop {
            Some(Stop::Model(e)) => Err(anyhow::Error::new(e.clone())),
            Some(Stop::Interrupted) => Ok(Exit::Interrupted),
            None if self.report.failed > 0 => Err(fail(Exit::Failed, failed_message(&self.report))),
            None => Ok(Exit::Ok),
        }
    }
}

/// What became of the items that got a bad reply: retried by the next
/// pass, or failed for good (listed by `ragger failed`).
pub fn failed_message(r: &Report) -> String {
    let again = r.failed.saturating_sub(r.gave_up);
    let mut parts = Vec::new();
    if again > 0 {
        parts.push(format!("{again} will be retried next run"));
    }
    if r.gave_up > 0 {
        parts.push(format!(
            "{} used their last attempt and will not be retried (see `ragger failed`; `ragger retry --all` tries them again)",
            r.gave_up
        ));
    }
    format!("{} item(s) got a bad reply from the memory model: {}", r.failed, parts.join("; "))
}

/// One pass by a process that holds the run lock: recover orphaned claims,
/// drain the queue, embed what was written, record the run.
pub fn locked_pass(ctx: &Ctx, store: &mut Store, opts: &PassOptions, flags: &Flags, kind: &str) -> Result<PassOutcome> {
    let run_id = crate::runs::start(store, kind, &opts.owner)?;
    let recovered = pipeline::recover_orphans(store)?;
    let config = ctx.config.clone();
    let paths = ctx.paths.clone();
    let verbose = ctx.verbose();
    let mut slot = ModelSlot::new(move || crate::llm::factory::from_config(&config, &paths, verbose));
    if ctx.config.embedder.enabled && opts.segment.uses_signals() {
        let embed_opts = ctx.embed_options();
        slot.vectors = pipeline::vectors::TurnVectors::new(move || {
            crate::embed::Embedder::load(&embed_opts)
                .map(|e| Box::new(e) as Box<dyn pipeline::vectors::Embed>)
                .map_err(|e| e.to_string())
        });
    }
    let sid = match &opts.session {
        Some(s) => pipeline::queue::session_id(&store.conn, s)?,
        None => None,
    };
    let vectors = ctx.config.embedder.enabled;
    let bar = progress_bar(ctx, store, sid, vectors)?;
    // The bar's total follows the work still planned, read after each
    // item (a fold that completes a segment adds an L4 fold).
    let planned = std::cell::Cell::new(bar.as_ref().and_then(|b| b.length()).unwrap_or(0));
    let mut tick = |_| {
        if let Some(b) = &bar {
            b.inc(1);
            let left = planned.get();
            b.set_length(b.position() + left);
        }
    };
    // One line per item on stderr with -v when no bar shows progress.
    let log_items = ctx.verbose() > 0 && bar.is_none() && !ctx.json();
    // A second, read-only connection: the pass holds the store's. Only
    // when something is shown (a cron pass opens nothing more).
    let names = (bar.is_some() || log_items)
        .then(|| rusqlite::Connection::open_with_flags(&store.path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok())
        .flatten();
    let mut on_event = |e: &pipeline::progress::ItemEvent| {
        if bar.is_some() {
            if let Some(c) = &names {
                planned.set(pipeline::progress::planned(c, sid, vectors).unwrap_or(0));
            }
        }
        if log_items {
            let what = names.as_ref().map(|c| crate::inspect::item_label(c, e.subject)).unwrap_or_default();
            eprintln!("ragger: {:?} {what}: {} ({} ms)", e.level, e.outcome, e.ms);
        }
    };
    let (mut report, stop) = pipeline::run_pass(store, &mut slot, opts, flags, &mut tick, &mut on_event)?;
    let model_loads = slot.loads;
    drop(slot); // free the memory model before the embedder loads
    report.embedded = embed_pending(ctx, store, bar.as_ref());
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let outcome = PassOutcome { report, stop, recovered, model_loads };
    let counts = serde_json::to_value(&outcome.report)?;
    crate::runs::finish(store, run_id, outcome.outcome_name(), &counts)?;
    Ok(outcome)
}

/// Give every new summary its vector. An unavailable embedder is a warning:
/// the rows stay unembedded and the next run fills them in.
pub fn embed_pending(ctx: &Ctx, store: &mut Store, bar: Option<&indicatif::ProgressBar>) -> u64 {
    if !ctx.config.embedder.enabled {
        return 0;
    }
    let mut lazy = LazyEmbedder::new();
    let opts = ctx.embed_options();
    let filled = match bar {
        // The pass's bar already counts these vectors.
        Some(b) => {
            b.set_length(b.position() + crate::embed::index::count_unembedded(&store.conn, None).unwrap_or(0) as u64);
            crate::embed::index::fill_on(store, &opts, &mut lazy, Some(b))
        }
        None => crate::embed::index::fill(store, &opts, &mut lazy, ctx.progress_allowed()),
    };
    match filled {
        Ok(n) => n as u64,
        Err(e) => {
            ctx.warn(&format!("warning: summaries left unembedded: {e:#}"));
            0
        }
    }
}

/// A bar over all the work the pass plans: L2s, folds, L4 folds and
/// vectors (see `pipeline::progress::planned`).
fn progress_bar(ctx: &Ctx, store: &Store, sid: Option<i64>, vectors: bool) -> Result<Option<indicatif::ProgressBar>> {
    if !ctx.progress_allowed() {
        return Ok(None);
    }
    let total = pipeline::progress::planned(&store.conn, sid, vectors)?;
    if total == 0 {
        return Ok(None);
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} items  {per_sec}  eta {eta}")
            .expect("valid template"),
    );
    Ok(Some(bar))
}

fn one_line(r: &Report) -> String {
    format!(
        "{} L2, {} L3 folds ({} topic shifts), {} L4 folds, {} extractive, {} failed, {} remaining, {} embedded in {:.1} s",
        r.l2, r.l3_folds, r.topic_shifts, r.l4_folds, r.extractive, r.failed, r.remaining, r.embedded, r.seconds
    )
}

/// `capture --summarize`: summarise one session now if no pass is running;
/// otherwise leave the turn to that pass. Never fails the capture.
pub fn summarize_session_now(ctx: &Ctx, store: &mut Store, session: &str) {
    let db = ctx.db_path();
    let lock = match lock::try_lock(&db) {
        Ok(Some(l)) => l,
        Ok(None) => {
            if ctx.verbose() > 0 {
                eprintln!("ragger: a pass is running; it will summarise session {session}");
            }
            return;
        }
        Err(e) => {
            ctx.warn(&format!("warning: could not summarise now: {e:#}"));
            return;
        }
    };
    let opts = pass_options(ctx, Some(session.to_string()));
    match locked_pass(ctx, store, &opts, &Flags::none(), "capture") {
        Ok(o) => {
            if let Err(e) = o.exit() {
                ctx.warn(&format!("warning: the turn is stored but not summarised yet: {e:#}"));
            }
        }
        Err(e) => ctx.warn(&format!("warning: the turn is stored but not summarised yet: {e:#}")),
    }
    drop(lock);
}
