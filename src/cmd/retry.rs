//! `ragger retry`: set failed items back to pending for the next pass.

use anyhow::Result;

use crate::cli::RetryArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::{fail, Exit};
use crate::retry::Which;

pub fn run(ctx: &Ctx, args: &RetryArgs) -> Result<Exit> {
    let mut store = ctx.open_store()?;
    // Summaries are removed to be folded again: not under a running pass.
    let Some(_lock) = crate::lock::try_lock(&ctx.db_path())? else {
        return Err(fail(Exit::Locked, "a summarize pass is running; retry when it has finished"));
    };
    let which = if args.all { Which::All } else { Which::Turns(&args.ids) };
    let report = crate::retry::retry(&mut store, which)?;
    if ctx.json() {
        print_json(&report)?;
    } else if !ctx.quiet() {
        println!(
            "{} item(s) set back to pending; {} turn(s) to fold again ({} summaries removed); the next summarize pass takes them",
            report.reset, report.turns_to_refold, report.summaries_removed
        );
    }
    Ok(Exit::Ok)
}
