//! `ragger sessions`: one line per session.

use anyhow::Result;

use crate::cli::SessionsArgs;
use crate::cmd::{print_json, Ctx};
use crate::display;
use crate::exit::Exit;

pub fn run(ctx: &Ctx, args: &SessionsArgs) -> Result<Exit> {
    let store = ctx.open_existing_store()?;
    let rows = crate::inspect::sessions(&store.conn, args.project.as_deref())?;
    if ctx.json() {
        print_json(&rows)?;
        return Ok(Exit::Ok);
    }
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    // Ids are shown with control characters made visible, in columns no
    // wider than `display::MAX_COLUMN` (a longer id overflows its column).
    let shown: Vec<(String, String)> =
        rows.iter().map(|r| (display::line(&r.session), display::line(r.project.as_deref().unwrap_or("-")))).collect();
    let w = display::column_width(shown.iter().map(|s| s.0.as_str()), 7);
    let pw = display::column_width(shown.iter().map(|s| s.1.as_str()), 7);
    writeln!(
        out,
        "{:<w$}  {:<pw$}  {:>5}  {:<20}  {:<20}  {:<6}  SUMMARY",
        "SESSION", "PROJECT", "TURNS", "FIRST", "LAST", "STATE"
    )?;
    for (r, (session, project)) in rows.iter().zip(&shown) {
        writeln!(
            out,
            "{:<w$}  {:<pw$}  {:>5}  {:<20}  {:<20}  {:<6}  {}",
            session,
            project,
            r.turns,
            r.first,
            r.last,
            if r.open { "open" } else { "closed" },
            if r.running_summary { "running" } else { "-" }
        )?;
    }
    Ok(Exit::Ok)
}
