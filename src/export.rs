//! Export: a database's turns and summaries written out, as JSON Lines
//! that `ragger capture --stdin` reads back (one turn a line, the capture
//! input shape), or as Markdown for people (per project its summary, then
//! each session's segments with their dates and, on request, the turns).

use std::io::Write;

use anyhow::Result;

use crate::capture::TurnInput;
use crate::store::export as rows;
pub use crate::store::export::Filter;
use crate::store::{fmt_time, Store};

/// Event time with milliseconds, so a round trip keeps it exactly.
fn time_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// JSON Lines in the shape `capture --stdin` reads; returns the number of turns.
pub fn jsonl(store: &Store, f: &Filter, out: &mut dyn Write) -> Result<u64> {
    let mut n = 0;
    for s in rows::sessions(store, f)? {
        for (_, at, key, user, assistant, kind) in rows::turns(store, s.id, f.since)? {
            let mut line = TurnInput {
                session: s.external.clone(),
                project: s.project_path.clone().or_else(|| s.project.clone()),
                user,
                assistant,
                at: Some(time_ms(at)),
                id: None,
                kind: (kind == "note").then_some(crate::capture::TurnKind::Note),
            };
            // A key the line itself implies (derived when a line without
            // `id` was read) is left out: reading the line back derives it
            // again, and the export stays what was captured.
            line.id = key.filter(|k| *k != crate::capture::derived_key(&line));
            serde_json::to_writer(&mut *out, &line)?;
            out.write_all(b"\n")?;
            n += 1;
        }
    }
    Ok(n)
}

/// Markdown for people; returns the number of sessions written.
pub fn markdown(store: &Store, f: &Filter, with_turns: bool, out: &mut dyn Write) -> Result<u64> {
    let mut n = 0;
    let mut current: Option<Option<String>> = None;
    for s in rows::sessions(store, f)? {
        if current.as_ref() != Some(&s.project) {
            let title = s.project_label.as_deref().or(s.project.as_deref()).unwrap_or("(no project)");
            writeln!(out, "# Project: {title}\n")?;
            if let Some(p) = &s.project {
                for (status, content, updated) in rows::project_summaries(store, p)? {
                    writeln!(
                        out,
                        "## Project summary ({status}, updated {})\n\n{}\n",
                        fmt_time(updated),
                        content.trim()
                    )?;
                }
            }
            current = Some(s.project.clone());
        }
        writeln!(out, "## Session {} ({} – {})\n", s.external, fmt_time(s.first_at), fmt_time(s.last_at))?;
        let segments = rows::segments(store, s.id)?;
        for (i, (status, content, a, b, at_a, at_b)) in segments.iter().enumerate() {
            let when = match (at_a, at_b) {
                (Some(x), Some(y)) => format!("{} – {}", fmt_time(*x), fmt_time(*y)),
                _ => String::new(),
            };
            let range = a.zip(*b).map(|(a, b)| format!(", turns {a}–{b}")).unwrap_or_default();
            writeln!(out, "### Segment {} ({status}{range}) {when}\n\n{}\n", i + 1, content.trim())?;
        }
        if with_turns {
            writeln!(out, "### Turns\n")?;
            for (id, at, _, user, assistant, _) in rows::turns(store, s.id, f.since)? {
                writeln!(
                    out,
                    "#### Turn {id}, {}\n\n**User:** {}\n\n**Assistant:** {}\n",
                    fmt_time(at),
                    user.trim(),
                    assistant.trim()
                )?;
            }
        }
        n += 1;
    }
    Ok(n)
}
