//! `ragger failed`: each failed item with its stored reason.

use std::io::Write;

use anyhow::Result;

use crate::cmd::{print_json, Ctx};
use crate::display::line;
use crate::exit::Exit;

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let store = ctx.open_store()?;
    let items = crate::retry::failed(&store)?;
    if ctx.json() {
        print_json(&items)?;
        return Ok(Exit::Ok);
    }
    let mut out = std::io::stdout().lock();
    if items.is_empty() {
        writeln!(out, "no failed items")?;
        return Ok(Exit::Ok);
    }
    for i in &items {
        let what = if i.kind == "l2" { format!("turn {}", i.id) } else { format!("L4 fold of L3 {}", i.id) };
        let session = i.session.as_deref().map(|s| format!("  session {}", line(s))).unwrap_or_default();
        writeln!(out, "{what}{session}  {}  {} attempt(s)", crate::when::local(i.at), i.attempts)?;
        writeln!(out, "  reason: {}", line(i.reason.as_deref().unwrap_or("-")))?;
    }
    writeln!(out, "\n`ragger retry --all` (or `ragger retry ID…`) tries them again at the next summarize pass.")?;
    Ok(Exit::Ok)
}
