//! `ragger sessions`: one line per session, most recent first.

use anyhow::Result;

use crate::cli::SessionsArgs;
use crate::cmd::{print_json, Ctx};
use crate::display;
use crate::exit::{fail, Exit};
use crate::inspect::SessionFilter;

/// Characters of a session's summary shown on its line.
const SNIPPET_CHARS: usize = 60;

pub fn run(ctx: &Ctx, args: &SessionsArgs) -> Result<Exit> {
    let since = match &args.since {
        Some(s) => Some(
            crate::when::parse_since(s, chrono::Local::now())
                .map_err(|e| fail(Exit::Usage, format!("--since: {e}")))?,
        ),
        None => None,
    };
    let store = ctx.open_existing_store()?;
    let project = ctx.project_opt(&store, args.project.as_deref())?;
    let filter = SessionFilter { project: project.as_deref(), open: args.open, since, limit: args.limit };
    let rows = crate::inspect::sessions(&store, &filter)?;
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
    let tw = crate::when::local(0).chars().count();
    writeln!(
        out,
        "{:<w$}  {:<pw$}  {:>5}  {:<tw$}  {:<tw$}  {:<6}  SUMMARY",
        "SESSION", "PROJECT", "TURNS", "FIRST", "LAST", "STATE"
    )?;
    for (r, (session, project)) in rows.iter().zip(&shown) {
        writeln!(
            out,
            "{:<w$}  {:<pw$}  {:>5}  {:<tw$}  {:<tw$}  {:<6}  {}",
            session,
            project,
            r.turns,
            crate::when::local(r.first_ms),
            crate::when::local(r.last_ms),
            if r.open { "open" } else { "closed" },
            snippet(r.summary.as_deref().unwrap_or("-"))
        )?;
    }
    Ok(Exit::Ok)
}

/// One line of at most [`SNIPPET_CHARS`] characters, control characters
/// made visible before cutting (so the cut bounds what is shown).
fn snippet(text: &str) -> String {
    let flat = display::line(&display::one_line(text));
    if flat.chars().count() <= SNIPPET_CHARS {
        return flat;
    }
    let mut cut: String = flat.chars().take(SNIPPET_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_one_short_visible_line() {
        assert_eq!(snippet("a\n  b\tc"), "a b c");
        let s = snippet(&"word ".repeat(40));
        assert_eq!(s.chars().count(), SNIPPET_CHARS);
        assert!(s.ends_with('…'));
        assert_eq!(snippet("x\x1b[2Jy"), "x\\x1b[2Jy");
    }
}
