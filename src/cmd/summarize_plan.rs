//! `ragger summarize --dry-run`: what a pass would do, with estimated
//! prompt tokens; reads only.

use std::io::Write;

use anyhow::Result;

use crate::cli::SummarizeArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::pipeline::{plan, queue, PassOptions};
use crate::store::Store;

pub fn print(ctx: &Ctx, store: &Store, args: &SummarizeArgs) -> Result<Exit> {
    let sid = match &args.session {
        Some(s) => match queue::session_id(store, s)? {
            Some(id) => Some(id),
            None => return Err(crate::exit::fail(Exit::Failed, format!("no session {s:?}"))),
        },
        None => None,
    };
    let mut opts = PassOptions::from_config(&ctx.config, crate::runs::owner(), args.session.clone(), false);
    opts.limit = args.limit;
    let plan = plan::pass_plan(store, &opts, sid)?;
    if ctx.json() {
        print_json(&plan)?;
        return Ok(Exit::Ok);
    }
    let mut out = std::io::stdout().lock();
    for t in &plan.l2 {
        writeln!(out, "L2  turn {} of session {} (~{} prompt tokens)", t.turn, t.session, t.prompt_tokens)?;
    }
    for s in &plan.l3 {
        writeln!(out, "L3  fold {} turn(s) of session {}", s.turns_to_fold, s.session)?;
    }
    for s in &plan.l4 {
        writeln!(out, "L4  fold session summary {} into project {}", s.summary, s.project)?;
    }
    writeln!(
        out,
        "{} L2 call(s), {} session(s) to fold, {} project fold(s), ~{} prompt tokens in all (upper bound)",
        plan.l2.len(),
        plan.l3.len(),
        plan.l4.len(),
        plan.estimated_prompt_tokens
    )?;
    Ok(Exit::Ok)
}
