//! `ragger housekeeping`: the cron entry point, one tick (see
//! `pipeline::tick`), or with `--dry-run` what a tick would do.

use std::io::Write;

use anyhow::Result;

use crate::cli::HousekeepingArgs;
use crate::cmd::summarize::pass_env;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::pipeline::{options::pause_ms, plan, quiet, tick};
use crate::signals::Flags;

pub fn run(ctx: &Ctx, args: &HousekeepingArgs) -> Result<Exit> {
    if args.dry_run {
        return dry_run(ctx);
    }
    let db = ctx.db_path();
    let summarize = !args.no_summarize;
    let settings = quiet::settings(pause_ms(&ctx.config), ctx.config.embedder.enabled, summarize);
    let spool = crate::spool::dir(&ctx.paths.state, &db);
    // The files before the store is opened: a quiet line is left only if
    // they are the same once it is closed (nothing written meanwhile).
    let before = quiet::files(&db);
    let done = match quiet_tick(ctx, &db, &settings, before.as_deref(), &spool, summarize)? {
        Some(done) => done,
        None => {
            // The store first: the lock file sits beside it, and a database
            // that cannot be opened is the error to report.
            let mut store = ctx.open_store()?;
            crate::cmd::drain_spool(ctx, &mut store);
            let env = pass_env(ctx);
            let t = tick::TickOptions { summarize, max_seconds: args.max_seconds };
            let Some(done) = tick::run(&env, &mut store, &t, || {
                let flags = Flags::install()?;
                crate::signals::announce_interrupt(!ctx.quiet());
                Ok(flags)
            })?
            else {
                return Ok(Exit::Locked);
            };
            drop(store);
            leave_quiet_line(ctx, &done, &db, &settings, before.as_deref());
            done
        }
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

/// The tick without opening the database, when the quiet line the last
/// tick left still holds (see `pipeline::quiet`): it takes the run lock and
/// stamps the time as every tick does.
fn quiet_tick(
    ctx: &Ctx,
    db: &std::path::Path,
    settings: &str,
    files: Option<&str>,
    spool: &std::path::Path,
    summarize: bool,
) -> Result<Option<tick::Tick>> {
    let Some(files) = files else { return Ok(None) };
    let now = crate::store::now_ms();
    if !crate::lock::quiet_line(db).is_some_and(|l| quiet::holds(&l, settings, files, now)) || quiet::spooled(spool) {
        return Ok(None);
    }
    // A pass holds the lock: the whole tick says so (exit 75).
    let Some(held) = crate::lock::try_lock(db)? else { return Ok(None) };
    if let Err(e) = held.stamp_tick(now) {
        ctx.warn(&format!("warning: {e:#}"));
    }
    if ctx.verbose() > 1 {
        eprintln!("ragger: nothing changed since the last tick found nothing to do; the database is left closed");
    }
    Ok(Some(tick::Tick::nothing(summarize, Some(held), None)))
}

/// After a tick with nothing to do and its store closed: leave the quiet
/// line when the files are those it saw before opening the store; else
/// take any old line away.
fn leave_quiet_line(ctx: &Ctx, done: &tick::Tick, db: &std::path::Path, settings: &str, before: Option<&str>) {
    let Some(held) = &done.held else { return };
    let after = quiet::files(db);
    let line = match (done.quiet, before, after.as_deref()) {
        (Some(due), Some(b), Some(a)) if a == b => Some(quiet::line(settings, due, a)),
        _ => None,
    };
    if line.is_some() || crate::lock::quiet_line(db).is_some() {
        if let Err(e) = held.set_quiet(line.as_deref()) {
            ctx.warn(&format!("warning: {e:#}"));
        }
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
