//! `ragger projects`: each project with its counts and its summary (L4).

use std::io::Write;

use anyhow::Result;

use crate::cmd::{print_json, Ctx};
use crate::display::{line, text};
use crate::exit::Exit;

pub fn run(ctx: &Ctx) -> Result<Exit> {
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
