//! `ragger summarize`: one pass (`--once`, what cron runs) or a foreground
//! worker loop. The pass itself is `pipeline::pass`.

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::cli::SummarizeArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::pipeline::pass::{deadline, one_line, Pass, PassEnv};
use crate::signals::Flags;

/// What a pass needs from this process's context.
pub fn pass_env(ctx: &Ctx) -> PassEnv {
    PassEnv {
        config: ctx.config.clone(),
        paths: ctx.paths.clone(),
        embed: ctx.embed_options(),
        verbose: ctx.verbose(),
        quiet: ctx.quiet(),
        json: ctx.json(),
        progress: ctx.progress_allowed(),
    }
}

pub fn run(ctx: &Ctx, args: &SummarizeArgs) -> Result<Exit> {
    if args.dry_run {
        let store = ctx.open_store()?;
        return crate::cmd::summarize_plan::print(ctx, &store, args);
    }
    let flags = Flags::install()?;
    crate::signals::announce_interrupt(!ctx.quiet());
    let env = pass_env(ctx);
    if args.once {
        return once(ctx, &env, args, &flags);
    }
    // Worker loop: a pass, then sleep until the interval passes, SIGUSR1
    // wakes us, or SIGINT/SIGTERM stops us (between items).
    loop {
        let exit = once(ctx, &env, args, &flags)?;
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

fn once(ctx: &Ctx, env: &PassEnv, args: &SummarizeArgs, flags: &Flags) -> Result<Exit> {
    // The store first: the lock file sits beside it, and a database that
    // cannot be opened is the error to report.
    let mut store = ctx.open_store()?;
    crate::cmd::drain_spool(ctx, &mut store);
    let mut opts = env.options(args.session.clone());
    opts.limit = args.limit;
    opts.deadline = deadline(args.max_seconds);
    let Some(outcome) = (Pass { env, opts, kind: "summarize", flags }).run(&mut store)? else {
        return Ok(Exit::Locked);
    };
    if ctx.json() {
        print_json(&outcome.report)?;
    } else if ctx.verbose() > 0 {
        eprintln!("ragger: {}", one_line(&outcome.report));
    }
    outcome.exit()
}
