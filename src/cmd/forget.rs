//! `ragger forget`: remove turns and everything derived from them.

use anyhow::Result;

use crate::cli::ForgetArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::{fail, Exit};
use crate::forget::{forget, parse_date, select, Selector};

pub fn run(ctx: &Ctx, args: &ForgetArgs) -> Result<Exit> {
    let before = match &args.before {
        Some(s) => Some(parse_date(s).map_err(|e| fail(Exit::Usage, format!("--before: {e}")))?),
        None => None,
    };
    let sel = Selector {
        session: args.session.clone(),
        project: args.project.clone(),
        turn: args.turn,
        before,
        matching: args.matching.clone().filter(|m| !m.is_empty()),
    };
    if sel.is_empty() {
        return Err(fail(Exit::Usage, "say what to forget: --session, --project, --turn, --before or --match"));
    }
    ctx.require_db()?;
    let db = ctx.db_path();
    // No pass may fold the turns while they go.
    let _lock = crate::cmd::lock_unless_dry(&db, args.dry_run)?;
    let mut store = ctx.open_store()?;
    let sel = Selector { project: ctx.project_opt(&store, sel.project.as_deref())?, ..sel };
    let doomed = select(&store, &sel)?;
    if args.dry_run {
        if ctx.json() {
            return print_json(&serde_json::json!({"dry_run": true, "turns": doomed})).map(|_| Exit::Ok);
        }
        for t in &doomed {
            println!(
                "turn {}\t{}\t{}\t{}",
                t.id,
                crate::display::line(&t.session),
                crate::when::local_of(&t.at),
                crate::display::line(&t.preview)
            );
        }
        println!("would forget {} turns", doomed.len());
        return Ok(Exit::Ok);
    }
    let ids: Vec<i64> = doomed.iter().map(|t| t.id).collect();
    let report = forget(&mut store, &ids)?;
    if ctx.json() {
        print_json(&report)?;
    } else if !ctx.quiet() {
        println!(
            "forgot {} turns ({} sessions, {} summaries and {} vectors removed; {} turns and {} session summaries to fold again)",
            report.turns,
            report.sessions_removed,
            report.summaries_removed,
            report.vectors_removed,
            report.turns_to_refold,
            report.summaries_to_refold
        );
    }
    Ok(Exit::Ok)
}
