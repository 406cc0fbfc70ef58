//! `ragger housekeeping`: the cron entry point, one tick (see
//! `pipeline::tick`), or with `--dry-run` what a tick would do.

use std::io::Write;

use anyhow::Result;

use crate::cli::HousekeepingArgs;
use crate::cmd::summarize::pass_env;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::pipeline::{options::pause_ms, plan, tick};
use crate::signals::Flags;

pub fn run(ctx: &Ctx, args: &HousekeepingArgs) -> Result<Exit> {
    if args.dry_run {
        return dry_run(ctx);
    }
    // The store first: the lock file sits beside it, and a database that
    // cannot be opened is the error to report.
    let mut store = ctx.open_store()?;
    crate::cmd::drain_spool(ctx, &mut store);
    let env = pass_env(ctx);
    let t = tick::TickOptions { summarize: !args.no_summarize, max_seconds: args.max_seconds };
    let Some(done) = tick::run(&env, &mut store, &t, || {
        let flags = Flags::install()?;
        crate::signals::announce_interrupt(!ctx.quiet());
        Ok(flags)
    })?
    else {
        return Ok(Exit::Locked);
    };
    let r = &done.report;
    if ctx.json() {
        print_json(r)?;
    } else if ctx.verbose() > 0 {
        eprintln!(
            "ragger: recovered {} claim(s), {} L2, {} L3 folds, {} L4 folds, closed {} session(s), {} failed",
            r.recovered, r.summarized.l2, r.summarized.l3_folds, r.summarized.l4_folds, r.closed_sessions, r.failed
        );
    }
    match done.outcome {
        Some(o) => o.exit(),
        None => Ok(Exit::Ok),
    }
}

fn dry_run(ctx: &Ctx) -> Result<Exit> {
    let store = ctx.open_store()?;
    let p = plan::tick_plan(&store, pause_ms(&ctx.config))?;
    if ctx.json() {
        print_json(&p)?;
        return Ok(Exit::Ok);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "would recover {} claim(s) left by other processes", p.would_recover)?;
    writeln!(out, "would summarise {} pending item(s)", p.pending_items)?;
    for s in &p.idle_sessions {
        if s.pending > 0 {
            writeln!(out, "would close session {} after folding its {} pending turn(s)", s.session, s.pending)?;
        } else {
            writeln!(out, "would close session {}", s.session)?;
        }
    }
    Ok(Exit::Ok)
}
