//! `ragger show SESSION`: the turns in order, then the summaries.

use std::io::Write;

use anyhow::Result;

use crate::cli::ShowArgs;
use crate::cmd::{print_json, Ctx};
use crate::display::{heading, line, text};
use crate::exit::{fail, Exit};

pub fn run(ctx: &Ctx, args: &ShowArgs) -> Result<Exit> {
    let store = ctx.open_existing_store()?;
    let Some(view) = crate::inspect::show(&store, &args.session)? else {
        return Err(fail(Exit::Failed, format!("no session {:?} in {}", args.session, store.path.display())));
    };
    if ctx.json() {
        print_json(&view)?;
        return Ok(Exit::Ok);
    }
    // Everything from the database is shown with its control characters
    // made visible (see `display`).
    let mut out = std::io::stdout().lock();
    let project = view.project.as_deref().map(|p| format!(" (project {})", line(p))).unwrap_or_default();
    let state = if view.open { "open" } else { "closed" };
    writeln!(out, "{}", heading(&format!("session {}{project}, {state}", line(&view.session))))?;
    writeln!(out)?;
    // Turns are numbered within the session (1, 2, 3…); the row id that
    // `forget --turn` takes is in `--json`.
    for t in &view.turns {
        let note = if t.kind == "note" { "  (note)" } else { "" };
        writeln!(out, "{}", heading(&format!("turn {}  {}  [{}]{note}", t.n, crate::when::local(t.at_ms), t.state)))?;
        if args.full {
            for (who, body) in [("user", &t.user), ("assistant", &t.assistant)] {
                writeln!(out, "  {who}:")?;
                for l in text(body).lines() {
                    writeln!(out, "    {l}")?;
                }
            }
        } else {
            writeln!(out, "  user:      {}", line(&one_line(&t.user, 160)))?;
            writeln!(out, "  assistant: {}", line(&one_line(&t.assistant, 160)))?;
        }
        if let Some(l2) = &t.l2 {
            let mark = if t.l2_origin.as_deref() == Some("extractive") { " [extractive]" } else { "" };
            writeln!(out, "  L2:        {}{mark}", text(l2))?;
        }
    }
    if !view.summaries.is_empty() {
        writeln!(out)?;
    }
    for s in &view.summaries {
        let range = line(s.episode_range.as_deref().unwrap_or("-"));
        let of = if s.level == 3 { "turns" } else { "L3 rows" };
        let mut why = match (s.start_reason.as_deref(), s.start_score) {
            (Some(r), Some(score)) => format!("  started: {r} ({score:.2})"),
            (Some(r), None) => format!("  started: {r}"),
            _ => String::new(),
        };
        if s.origin == "extractive" {
            why.push_str("  [extractive]");
        }
        writeln!(out, "{}", heading(&format!("L{} summary {}  [{}]  {of} {range}{why}", s.level, s.id, s.status)))?;
        writeln!(out, "  {}", text(&s.content))?;
        if !s.key_terms.is_empty() {
            writeln!(out, "  key terms: {}", text(&s.key_terms))?;
        }
    }
    Ok(Exit::Ok)
}

fn one_line(s: &str, max: usize) -> String {
    let flat = crate::display::one_line(s);
    crate::llm::truncate_for_message(&flat, max)
}
