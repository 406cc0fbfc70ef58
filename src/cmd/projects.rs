//! `ragger projects`: each project with its counts and its summary (L4);
//! `ragger projects merge`: one project's memory moved into another.

use std::io::Write;

use anyhow::Result;

use crate::cli::{MergeArgs, ProjectsAction, ProjectsArgs};
use crate::cmd::{print_json, Ctx};
use crate::display::{line, text};
use crate::exit::Exit;
use crate::store::projects::Merged;

pub fn run(ctx: &Ctx, args: &ProjectsArgs) -> Result<Exit> {
    match &args.action {
        None => list(ctx),
        Some(ProjectsAction::Merge(a)) => merge(ctx, a),
    }
}

fn list(ctx: &Ctx) -> Result<Exit> {
    let store = ctx.open_store()?;
    let rows = crate::inspect::projects(&store)?;
    if ctx.json() {
        print_json(&rows)?;
        return Ok(Exit::Ok);
    }
    let mut out = std::io::stdout().lock();
    for (i, p) in rows.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let root = p.root.as_deref().map(|r| format!("  {}", line(r))).unwrap_or_default();
        writeln!(
            out,
            "{}{root}  {} session(s), {} turn(s), last {}",
            line(&p.project),
            p.sessions,
            p.turns,
            crate::when::local(p.last)
        )?;
        if !p.merged.is_empty() {
            let merged: Vec<String> = p.merged.iter().map(|m| line(m)).collect();
            writeln!(out, "    merged into it: {}", merged.join(", "))?;
        }
        match &p.summary {
            Some(s) => {
                for l in text(s).lines() {
                    writeln!(out, "    {l}")?;
                }
            }
            None => writeln!(out, "    (no project summary yet)")?,
        }
    }
    Ok(Exit::Ok)
}

fn merge(ctx: &Ctx, a: &MergeArgs) -> Result<Exit> {
    ctx.require_db()?;
    let db = ctx.db_path();
    // No pass may fold the project summaries while they go.
    let _lock = crate::cmd::lock_unless_dry(&db, a.dry_run)?;
    let mut store = ctx.open_store()?;
    let from = ctx.project_as(&store, &a.from, Merged::Row)?;
    let into = ctx.project(&store, &a.into)?;
    let r = crate::store::merge::merge(&mut store, &from, &into, a.dry_run)?;
    if ctx.json() {
        print_json(&r)?;
        return Ok(Exit::Ok);
    }
    if ctx.quiet() && !a.dry_run {
        return Ok(Exit::Ok);
    }
    let (from, into) = (line(&r.from), line(&r.into));
    if r.already_merged {
        println!("nothing left to merge: {from} is merged into {into}");
        return Ok(Exit::Ok);
    }
    let verb = if r.dry_run { "would merge" } else { "merged" };
    println!(
        "{verb} {from} into {into}: {} session(s), {} turn(s), {} segment(s); {} project summar{} removed, \
         {} segment(s) to fold into {into}'s again",
        r.sessions,
        r.turns,
        r.segments,
        r.summaries_removed,
        if r.summaries_removed == 1 { "y" } else { "ies" },
        r.segments_to_refold
    );
    Ok(Exit::Ok)
}
