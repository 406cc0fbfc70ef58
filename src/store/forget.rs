//! `ragger forget`'s SQL: which turns a selector names, removing them
//! with everything derived from them in one transaction (see
//! `crate::forget`), and scrubbing deleted text from the file.

use anyhow::{Context, Result};
use rusqlite::params_from_iter;

use super::{classify, fmt_time, Store};
use serde::Serialize;

/// The selector as a `WHERE` condition on `turns t JOIN sessions s`, and
/// its arguments.
fn condition(sel: &Selector) -> (String, Vec<rusqlite::types::Value>) {
    use rusqlite::types::Value;
    let mut wh = vec!["1".to_string()];
    let mut args: Vec<Value> = Vec::new();
    if let Some(s) = &sel.session {
        args.push(Value::Text(s.clone()));
        wh.push(format!("s.external_id = ?{}", args.len()));
    }
    if let Some(p) = &sel.project {
        args.push(Value::Text(p.clone()));
        wh.push(format!("s.project = ?{}", args.len()));
    }
    if let Some(t) = sel.turn {
        args.push(Value::Integer(t));
        wh.push(format!("t.id = ?{}", args.len()));
    }
    if let Some(b) = sel.before {
        args.push(Value::Integer(b));
        wh.push(format!("t.at < ?{}", args.len()));
    }
    (wh.join(" AND "), args)
}

/// The turns a selector names, oldest first. `--match` is decided here,
/// in Rust, with one case-folding rule on both sides (Unicode lower case:
/// SQLite's `lower()` folds ASCII only, so "Ölwanne" never met "ölwanne").
pub fn select(store: &Store, sel: &Selector) -> Result<Vec<DoomedTurn>> {
    let (wh, args) = condition(sel);
    let needle = sel.matching.as_deref().map(fold_case);
    let mut stmt = store.conn.prepare(&format!(
        "SELECT t.id, s.external_id, s.project, t.at, t.user_text, t.assistant_text, t.l2
         FROM turns t JOIN sessions s ON s.id = t.session_id WHERE {wh} ORDER BY t.at, t.id"
    ))?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let user: String = r.get(4)?;
        if let Some(needle) = &needle {
            let assistant: String = r.get(5)?;
            let l2: Option<String> = r.get(6)?;
            let found = [Some(user.as_str()), Some(assistant.as_str()), l2.as_deref()]
                .into_iter()
                .flatten()
                .any(|text| fold_case(text).contains(needle.as_str()));
            if !found {
                continue;
            }
        }
        out.push(DoomedTurn {
            id: r.get(0)?,
            session: r.get(1)?,
            project: r.get(2)?,
            at: fmt_time(r.get(3)?),
            preview: preview(&user),
        });
    }
    Ok(out)
}

/// The case-folding rule of `--match`, for the pattern and the stored text
/// alike: Unicode lower case.
fn fold_case(s: &str) -> String {
    s.to_lowercase()
}

/// Remove the turns `ids` and everything derived from them, then scrub
/// the file. The caller holds the run lock, so no pass is folding meanwhile.
pub fn forget(store: &mut Store, ids: &[i64]) -> Result<Report> {
    let mut report = Report::default();
    let path = store.path.clone();
    if ids.is_empty() {
        // A forget whose scrub could not finish (a reader held the WAL, the
        // process was killed) has already deleted its turns: running it
        // again finds none, and must still scrub what they left behind.
        scrub(store).with_context(|| format!("scrubbing database {}", path.display()))?;
        return Ok(report);
    }
    store.conn.execute_batch("PRAGMA secure_delete = ON").map_err(classify)?;
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS forget_turns (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE IF NOT EXISTS forget_l3 (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE IF NOT EXISTS forget_l4 (id INTEGER PRIMARY KEY);
         DELETE FROM forget_turns; DELETE FROM forget_l3; DELETE FROM forget_l4;",
    )?;
    {
        let mut ins = tx.prepare("INSERT OR IGNORE INTO forget_turns (id) VALUES (?1)")?;
        for id in ids {
            ins.execute([id])?;
        }
    }
    // Remembered, so that reading the transcript again does not store them again.
    super::forgotten::remember(&tx, "forget_turns", super::now_ms())?;
    // L3 rows of each touched session from its first L3 that folded a
    // forgotten turn onwards.
    tx.execute_batch(
        "INSERT INTO forget_l3 (id)
         SELECT m.id FROM summaries m
         JOIN (SELECT t.session_id, min(m2.first_seq) AS from_seq
               FROM forget_turns f JOIN turns t ON t.id = f.id JOIN summaries m2 ON m2.id = t.l3_id
               GROUP BY t.session_id) x ON x.session_id = m.session_id
         WHERE m.level = 3 AND m.first_seq >= x.from_seq;",
    )?;
    // L4 rows of each touched project from its first L4 that folded one of those.
    tx.execute_batch(
        "INSERT INTO forget_l4 (id)
         SELECT p.id FROM summaries p
         JOIN (SELECT m.project, min(m.l4_id) AS from_id FROM forget_l3 f JOIN summaries m ON m.id = f.id
               WHERE m.l4_id IS NOT NULL GROUP BY m.project) x ON x.project = p.project
         WHERE p.level = 4 AND p.id >= x.from_id;",
    )?;
    // Remaining L3s of those L4s go back to the project fold queue.
    report.summaries_to_refold = tx.execute(
        "UPDATE summaries SET l4_id = NULL, l4_state = 'pending'
         WHERE level = 3 AND l4_id IN (SELECT id FROM forget_l4) AND id NOT IN (SELECT id FROM forget_l3)",
        [],
    )? as u64;
    // Remaining turns of removed L3s go back to the fold queue; their
    // session's fold positions restart where the first removed L3 began.
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS forget_from (session_id INTEGER PRIMARY KEY, from_seq INTEGER);
         DELETE FROM forget_from;
         INSERT INTO forget_from SELECT session_id, min(first_seq) FROM summaries
         WHERE id IN (SELECT id FROM forget_l3) GROUP BY session_id;",
    )?;
    report.turns_to_refold = tx.execute(
        "UPDATE turns SET l3_id = NULL, fold_seq = NULL
         WHERE l3_id IN (SELECT id FROM forget_l3) AND id NOT IN (SELECT id FROM forget_turns)",
        [],
    )? as u64;
    tx.execute_batch(
        "UPDATE sessions SET next_fold_seq = (SELECT from_seq FROM forget_from f WHERE f.session_id = sessions.id)
         WHERE id IN (SELECT session_id FROM forget_from);
         UPDATE turns SET l3_id = NULL, fold_seq = NULL WHERE id IN (SELECT id FROM forget_turns);",
    )?;
    // Vectors: turn-level kinds point at turns.id, summaries at summaries.id.
    report.vectors_removed = tx.execute(
        "DELETE FROM embeddings WHERE (kind <> 'summary' AND row_id IN (SELECT id FROM forget_turns))
            OR (kind = 'summary' AND (row_id IN (SELECT id FROM forget_l3) OR row_id IN (SELECT id FROM forget_l4)))",
        [],
    )? as u64;
    report.summaries_removed = tx.execute(
        "DELETE FROM summaries WHERE id IN (SELECT id FROM forget_l3) OR id IN (SELECT id FROM forget_l4)",
        [],
    )? as u64;
    // Session totals follow the turns that remain; a session whose summary
    // was removed and that has turns to fold again is open until
    // housekeeping closes it (as a late turn reopens one).
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS forget_sessions (id INTEGER PRIMARY KEY);
         DELETE FROM forget_sessions;
         INSERT OR IGNORE INTO forget_sessions SELECT DISTINCT session_id FROM turns WHERE id IN (SELECT id FROM forget_turns);",
    )?;
    report.turns = tx.execute("DELETE FROM turns WHERE id IN (SELECT id FROM forget_turns)", [])? as u64;
    report.sessions_removed = tx.execute(
        "DELETE FROM sessions WHERE id IN (SELECT id FROM forget_sessions)
            AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = sessions.id)",
        [],
    )? as u64;
    tx.execute_batch(
        "UPDATE sessions SET
            tokens = (SELECT coalesce(sum(tokens), 0) FROM turns t WHERE t.session_id = sessions.id),
            first_at = (SELECT min(at) FROM turns t WHERE t.session_id = sessions.id),
            last_at = (SELECT max(at) FROM turns t WHERE t.session_id = sessions.id),
            closed_at = CASE WHEN EXISTS (SELECT 1 FROM turns t WHERE t.session_id = sessions.id AND t.l3_id IS NULL)
                             THEN NULL ELSE closed_at END
         WHERE id IN (SELECT id FROM forget_sessions);
         DROP TABLE forget_turns; DROP TABLE forget_l3; DROP TABLE forget_l4;
         DROP TABLE forget_from; DROP TABLE forget_sessions;",
    )?;
    // A project none of whose memory is left goes too: its folder and name
    // are a trace of what was forgotten.
    super::projects::drop_unused(&tx)?;
    tx.commit().map_err(classify).with_context(|| format!("database {}", path.display()))?;
    scrub(store).with_context(|| format!("scrubbing database {}", path.display()))?;
    Ok(report)
}

/// Leave no deleted text in the file: merge every FTS5 index (a deleted
/// row's terms otherwise stay in older segments), rebuild the file
/// (VACUUM, with `secure_delete` on), and checkpoint and truncate the WAL.
pub fn scrub(store: &Store) -> Result<()> {
    let conn = &store.conn;
    conn.execute_batch("PRAGMA secure_delete = ON")?;
    let fts: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for t in fts {
        conn.execute(&format!("INSERT INTO \"{t}\"(\"{t}\") VALUES ('optimize')"), [])
            .with_context(|| format!("merging the index {t}"))?;
    }
    conn.execute_batch("VACUUM").context("VACUUM")?;
    let (busy, _, _): (i64, i64, i64) =
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    if busy != 0 {
        anyhow::bail!("another process is reading the database, so its WAL could not be emptied; run `ragger forget` again when it is idle");
    }
    Ok(())
}

/// Which turns to forget; the filters combine (all must hold).
#[derive(Debug, Default, Clone)]
pub struct Selector {
    pub session: Option<String>,
    pub project: Option<String>,
    pub turn: Option<i64>,
    /// Event time before this (ms).
    pub before: Option<i64>,
    /// Case-insensitive substring of the user text, the reply or the L2.
    pub matching: Option<String>,
}

impl Selector {
    pub fn is_empty(&self) -> bool {
        self.session.is_none()
            && self.project.is_none()
            && self.turn.is_none()
            && self.before.is_none()
            && self.matching.is_none()
    }
}

/// One turn that would go, for `--dry-run`.
#[derive(Debug, Serialize, Clone)]
pub struct DoomedTurn {
    pub id: i64,
    pub session: String,
    pub project: Option<String>,
    pub at: String,
    /// The first words of the user text.
    pub preview: String,
}

#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Report {
    pub turns: u64,
    pub sessions_removed: u64,
    pub summaries_removed: u64,
    pub vectors_removed: u64,
    /// Remaining turns put back into the fold queue.
    pub turns_to_refold: u64,
    /// Remaining session summaries put back into the project fold queue.
    pub summaries_to_refold: u64,
}

/// The start of a turn's text on one line, for `--dry-run`.
fn preview(text: &str) -> String {
    let one: String = crate::display::one_line(text);
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(60).collect::<String>())
    } else {
        one
    }
}
