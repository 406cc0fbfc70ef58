//! `ragger sessions`: one line per session.

use anyhow::Result;

use crate::cli::SessionsArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;

pub fn run(ctx: &Ctx, args: &SessionsArgs) -> Result<Exit> {
    let store = ctx.open_store()?;
    let rows = crate::inspect::sessions(&store.conn, args.project.as_deref())?;
    if ctx.json() {
        print_json(&rows)?;
        return Ok(Exit::Ok);
    }
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let w = rows.iter().map(|r| r.session.chars().count()).max().unwrap_or(7).max(7);
    let pw = rows.iter().map(|r| r.project.as_deref().unwrap_or("-").chars().count()).max().unwrap_or(7).max(7);
    writeln!(
        out,
        "{:<w$}  {:<pw$}  {:>5}  {:<20}  {:<20}  {:<6}  SUMMARY",
        "SESSION", "PROJECT", "TURNS", "FIRST", "LAST", "STATE"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<w$}  {:<pw$}  {:>5}  {:<20}  {:<20}  {:<6}  {}",
            r.session,
            r.project.as_deref().unwrap_or("-"),
            r.turns,
            r.first,
            r.last,
            if r.open { "open" } else { "closed" },
            if r.running_summary { "running" } else { "-" }
        )?;
    }
    Ok(Exit::Ok)
}
