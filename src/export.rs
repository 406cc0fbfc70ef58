//! Export: a database's turns and summaries written out, as JSON Lines
//! that `ragger capture --stdin` reads back (one turn a line, the capture
//! input shape), or as Markdown for people (per project its summary, then
//! each session's segments with their dates and, on request, the turns).

use std::io::Write;

use anyhow::Result;
use rusqlite::{params, Connection};

use crate::capture::TurnInput;
use crate::store::fmt_time;

/// Which turns to export; the filters combine.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub session: Option<String>,
    pub project: Option<String>,
    /// Turns at or after this event time (ms).
    pub since: Option<i64>,
}

/// Event time with milliseconds, so a round trip keeps it exactly.
fn time_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

struct Session {
    id: i64,
    external: String,
    project: Option<String>,
    first_at: i64,
    last_at: i64,
}

fn sessions(conn: &Connection, f: &Filter) -> Result<Vec<Session>> {
    let mut stmt = conn.prepare(
        "SELECT id, external_id, project, first_at, last_at FROM sessions
         WHERE (?1 IS NULL OR external_id = ?1) AND (?2 IS NULL OR project = ?2)
           AND (?3 IS NULL OR last_at >= ?3)
         ORDER BY project IS NULL, project, first_at, id",
    )?;
    let rows = stmt
        .query_map(params![f.session, f.project, f.since], |r| {
            Ok(Session {
                id: r.get(0)?,
                external: r.get(1)?,
                project: r.get(2)?,
                first_at: r.get(3)?,
                last_at: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// (turn id, at, idempotency key, user, assistant) of a session, in order.
type TurnRow = (i64, i64, Option<String>, String, String);

fn turns(conn: &Connection, session: i64, since: Option<i64>) -> Result<Vec<TurnRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, at, idem_key, user_text, assistant_text FROM turns
         WHERE session_id = ?1 AND (?2 IS NULL OR at >= ?2) ORDER BY at, id",
    )?;
    let rows = stmt
        .query_map(params![session, since], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// JSON Lines in the shape `capture --stdin` reads; returns the number of turns.
pub fn jsonl(conn: &Connection, f: &Filter, out: &mut dyn Write) -> Result<u64> {
    let mut n = 0;
    for s in sessions(conn, f)? {
        for (_, at, key, user, assistant) in turns(conn, s.id, f.since)? {
            let mut line = TurnInput {
                session: s.external.clone(),
                project: s.project.clone(),
                user,
                assistant,
                at: Some(time_ms(at)),
                id: None,
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
pub fn markdown(conn: &Connection, f: &Filter, with_turns: bool, out: &mut dyn Write) -> Result<u64> {
    let mut n = 0;
    let mut current: Option<Option<String>> = None;
    for s in sessions(conn, f)? {
        if current.as_ref() != Some(&s.project) {
            let title = s.project.as_deref().unwrap_or("(no project)");
            writeln!(out, "# Project: {title}\n")?;
            if let Some(p) = &s.project {
                let mut stmt = conn.prepare_cached(
                    "SELECT status, content, updated_at FROM summaries WHERE level = 4 AND project = ?1 ORDER BY id",
                )?;
                let l4: Vec<(String, String, i64)> =
                    stmt.query_map([p], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
                for (status, content, updated) in l4 {
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
        let mut stmt = conn.prepare_cached(
            "SELECT m.status, m.content, m.first_turn_id, m.last_turn_id,
                    (SELECT at FROM turns WHERE id = m.first_turn_id), (SELECT at FROM turns WHERE id = m.last_turn_id)
             FROM summaries m WHERE m.level = 3 AND m.session_id = ?1 ORDER BY m.first_seq",
        )?;
        type Segment = (String, String, Option<i64>, Option<i64>, Option<i64>, Option<i64>);
        let segments: Vec<Segment> = stmt
            .query_map([s.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
            .collect::<rusqlite::Result<_>>()?;
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
            for (id, at, _, user, assistant) in turns(conn, s.id, f.since)? {
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
