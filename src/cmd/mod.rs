//! One module per subcommand: each wires input and output and calls into
//! the library. `run` is the single dispatch point.

pub mod capture;
pub mod check;
pub mod completions;
pub mod config;
pub mod context;
pub mod doctor;
pub mod embed;
pub mod export;
pub mod failed;
pub mod forget;
pub mod hook;
pub mod housekeeping;
pub mod import;
pub mod init;
pub mod man;
pub mod man_text;
pub mod mcp;
pub mod projects;
pub mod redact;
pub mod reembed;
pub mod retry;
pub mod search;
pub mod sessions;
pub mod show;
pub mod status;
pub mod summarize;
pub mod summarize_plan;

use std::io::Write;

use anyhow::Result;

use crate::cli::{Cli, Command};
pub use crate::ctx::Ctx;
use crate::exit::Exit;

pub fn run(cli: Cli) -> Result<Exit> {
    // Commands that need no config or database.
    match &cli.command {
        Command::Completions(a) => return completions::run(a),
        Command::Man(a) => return man::run(a),
        // A hook never fails the agent, not even on a bad config.
        Command::Hook(a) => return Ok(hook::run(cli.global.clone(), a)),
        _ => {}
    }
    // A config mistake must not drop a turn: capture reads what it needs.
    let ctx = match cli.command {
        Command::Capture(_) => Ctx::for_capture(cli.global)?,
        Command::Init(_) => Ctx::for_init(cli.global)?,
        _ => Ctx::new(cli.global)?,
    };
    if let Command::Mcp = cli.command {
        return mcp::run(ctx);
    }
    match cli.command {
        Command::Capture(a) => capture::run(&ctx, &a),
        Command::Summarize(a) => summarize::run(&ctx, &a),
        Command::Housekeeping(a) => housekeeping::run(&ctx, &a),
        Command::Status => status::run(&ctx),
        Command::Failed => failed::run(&ctx),
        Command::Retry(a) => retry::run(&ctx, &a),
        Command::Sessions(a) => sessions::run(&ctx, &a),
        Command::Show(a) => show::run(&ctx, &a),
        Command::Projects(a) => projects::run(&ctx, &a),
        Command::Search(a) => search::run(&ctx, &a),
        Command::Embed(a) => embed::run(&ctx, &a),
        Command::Reembed(a) => reembed::run(&ctx, &a),
        Command::Import(a) => import::run(&ctx, &a),
        Command::Context(a) => context::run(&ctx, &a),
        Command::Check => check::run(&ctx),
        Command::Forget(a) => forget::run(&ctx, &a),
        Command::Redact(a) => redact::run(&ctx, &a),
        Command::Export(a) => export::run(&ctx, &a),
        Command::Doctor => doctor::run(&ctx),
        Command::Init(a) => init::run(&ctx, &a),
        Command::Config(a) => config::run(&ctx, &a),
        Command::Completions(_) | Command::Man(_) | Command::Hook(_) | Command::Mcp => unreachable!(),
    }
}

/// Print one JSON value as a line on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Store what hooks spooled for this database (see `crate::spool`), before
/// a command that writes turns or runs a pass; `deadline` bounds the time
/// it may take (capture), `None` for a pass or an import. Problems are
/// warnings: the command's own work comes first.
pub fn drain_spool_until(ctx: &Ctx, store: &mut crate::store::Store, deadline: Option<std::time::Instant>) {
    let dir = crate::spool::dir(&ctx.paths.state, &ctx.db_path());
    let mut warn = |m: String| ctx.warn(&m);
    let limits =
        deadline.map(|deadline| crate::import::file::Limits { max_bytes: u64::MAX, max_turns: usize::MAX, deadline });
    match crate::spool::drain(&ctx.config, &dir, store, limits, &mut warn) {
        Ok(d) if d.entries > 0 && ctx.verbose() > 0 => {
            eprintln!("ragger: stored {} spooled turn(s) from {} spool file(s)", d.stored, d.entries)
        }
        Ok(_) => {}
        Err(e) => ctx.warn(&format!("warning: spooled turns: {e:#}")),
    }
}

/// [`drain_spool_until`] without a time limit.
pub fn drain_spool(ctx: &Ctx, store: &mut crate::store::Store) {
    drain_spool_until(ctx, store, None)
}

/// The run lock for a command that rewrites what a pass folds (`forget`,
/// `redact`, `projects merge`), or none for its dry run: exit 75 while a
/// pass holds it.
pub(crate) fn lock_unless_dry(db: &std::path::Path, dry_run: bool) -> Result<Option<crate::lock::RunLock>> {
    if dry_run {
        return Ok(None);
    }
    let lock = crate::lock::try_lock(db)?.ok_or_else(|| {
        crate::exit::fail(
            Exit::Locked,
            format!("a summarize pass holds the lock for {}; try again when it ends", db.display()),
        )
    })?;
    Ok(Some(lock))
}
