//! `ragger housekeeping`: the cron entry point. Recover orphaned claims,
//! run the summarize pass, close idle sessions, maintain the database.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use crate::cli::HousekeepingArgs;
use crate::cmd::summarize::{deadline, locked_pass, pass_options, PassOutcome};
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::housekeeping::{close, idle_sessions, maintain};
use crate::lock;
use crate::pipeline::Report;
use crate::signals::Flags;

#[derive(Serialize)]
struct Out {
    recovered: u64,
    closed_sessions: u64,
    summarized: Report,
    failed: u64,
}

pub fn run(ctx: &Ctx, args: &HousekeepingArgs) -> Result<Exit> {
    let pause_ms = ctx.config.housekeeping.summary_pause_minutes as i64 * 60_000;
    if args.dry_run {
        return dry_run(ctx, pause_ms);
    }
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
    let flags = Flags::install()?;
    crate::signals::announce_interrupt(!ctx.quiet());
    let mut recovered = crate::pipeline::recover_orphans(&mut store)?;
    let mut summarized = Report::default();
    let mut outcome: Option<PassOutcome> = None;
    // One deadline for both passes.
    let mut opts = pass_options(ctx, None);
    opts.deadline = deadline(args.max_seconds);
    if !args.no_summarize {
        let o = locked_pass(ctx, &mut store, &opts, &flags, "housekeeping")?;
        recovered += o.recovered;
        summarized = o.report.clone();
        outcome = Some(o);
    }
    let mut closed = 0;
    if outcome.as_ref().is_none_or(|o| o.stop.is_none()) {
        for s in idle_sessions(&store.conn, pause_ms)? {
            if s.pending == 0 && close(&mut store, s.id, pause_ms)? {
                closed += 1;
            }
        }
    }
    // Sessions just closed have new complete L3s: fold them into their projects now.
    if closed > 0 && !args.no_summarize {
        let o = locked_pass(ctx, &mut store, &opts, &flags, "housekeeping")?;
        add(&mut summarized, &o.report);
        outcome = Some(o);
    }
    // An idle tick leaves the database alone: SQLite's auto-checkpoint
    // bounds the WAL, and a checkpoint here would cost an fsync every tick.
    if closed > 0 || summarized.items() > 0 || summarized.embedded > 0 {
        maintain(&store)?;
    }
    let failed = summarized.failed;
    if ctx.json() {
        print_json(&Out { recovered, closed_sessions: closed, summarized: summarized.clone(), failed })?;
    } else if ctx.verbose() > 0 {
        eprintln!(
            "ragger: recovered {recovered} claim(s), {} L2, {} L3 folds, {} L4 folds, closed {closed} session(s), {failed} failed",
            summarized.l2, summarized.l3_folds, summarized.l4_folds
        );
    }
    match outcome {
        Some(o) => o.exit(),
        None => Ok(Exit::Ok),
    }
}

fn add(a: &mut Report, b: &Report) {
    a.l2 += b.l2;
    a.l3_folds += b.l3_folds;
    a.topic_shifts += b.topic_shifts;
    a.l4_folds += b.l4_folds;
    a.failed += b.failed;
    a.gave_up += b.gave_up;
    a.remaining = b.remaining;
    a.seconds += b.seconds;
    a.embedded += b.embedded;
}

fn dry_run(ctx: &Ctx, pause_ms: i64) -> Result<Exit> {
    let store = ctx.open_store()?;
    let leased: i64 = store.conn.query_row(
        "SELECT (SELECT count(*) FROM turns WHERE lease_owner IS NOT NULL)
              + (SELECT count(*) FROM summaries WHERE lease_owner IS NOT NULL)",
        [],
        |r| r.get(0),
    )?;
    let remaining = crate::pipeline::queue::remaining(&store.conn, None)?;
    let idle = idle_sessions(&store.conn, pause_ms)?;
    if ctx.json() {
        print_json(&serde_json::json!({
            "would_recover": leased,
            "pending_items": remaining,
            "idle_sessions": idle,
        }))?;
        return Ok(Exit::Ok);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "would recover {leased} claim(s) left by other processes")?;
    writeln!(out, "would summarise {remaining} pending item(s)")?;
    for s in &idle {
        if s.pending > 0 {
            writeln!(out, "would close session {} after folding its {} pending turn(s)", s.session, s.pending)?;
        } else {
            writeln!(out, "would close session {}", s.session)?;
        }
    }
    Ok(Exit::Ok)
}
