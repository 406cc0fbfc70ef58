//! What `ragger import` and `ragger hook` remember per transcript file,
//! and storing a transcript's turns with that mark in one transaction.

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};

use super::turns::{store_turn, Outcome, SameKey, Turn};
use super::{classify, Store};

/// Where the next read of a transcript starts, and how to tell the file
/// was not rewritten since.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileMark {
    pub byte_offset: u64,
    pub line_no: u64,
    pub check_hash: String,
    pub session: Option<String>,
    pub cwd: Option<String>,
    /// The turn still open at `byte_offset`, as the importer saved it
    /// (`import::file`); `None`: the read starts at a turn's start.
    pub open_turn: Option<String>,
}

/// Where the last read of the transcript at `path` (in `format`) stopped.
pub fn mark(store: &Store, path: &str, format: &str) -> Result<Option<FileMark>> {
    let read = || -> rusqlite::Result<Option<FileMark>> {
        store
            .conn
            .prepare_cached(
                "SELECT byte_offset, line_no, check_hash, session, cwd, open_turn FROM import_files WHERE path = ?1 AND format = ?2",
            )?
            .query_row(params![path, format], |r| {
                Ok(FileMark {
                    byte_offset: r.get::<_, i64>(0)? as u64,
                    line_no: r.get::<_, i64>(1)? as u64,
                    check_hash: r.get(2)?,
                    session: r.get(3)?,
                    cwd: r.get(4)?,
                    open_turn: r.get(5)?,
                })
            })
            .optional()
    };
    read().map_err(classify)
}

fn set_mark(conn: &Connection, path: &str, format: &str, m: &FileMark, now: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        // The row is the path's whole state: replaced, not updated.
        "REPLACE INTO import_files (path, format, byte_offset, line_no, check_hash, session, cwd, updated_at, open_turn)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        path,
        format,
        m.byte_offset as i64,
        m.line_no as i64,
        m.check_hash,
        m.session,
        m.cwd,
        now,
        m.open_turn
    ])?;
    Ok(())
}

/// Whether a turn with this idempotency key is stored in this session.
pub fn turn_exists(store: &Store, session: &str, key: &str) -> Result<bool> {
    store
        .conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM turns t JOIN sessions s ON s.id = t.session_id
                            WHERE s.external_id = ?1 AND t.idem_key = ?2)",
        )
        .and_then(|mut stmt| stmt.query_row(params![session, key], |r| r.get(0)))
        .map_err(classify)
}

/// The new mark of a transcript: its path, format, mark and the time.
pub struct NewMark<'a> {
    pub path: &'a str,
    pub format: &'a str,
    pub mark: &'a FileMark,
    pub now: i64,
}

/// What storing a transcript's turns did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stored {
    pub stored: u64,
    pub duplicates: u64,
    /// Turns stored before with a shorter reply, now complete.
    pub updated: u64,
    /// Turns `forget` removed, not stored again.
    pub forgotten: u64,
}

/// Store `turns` (each with the transcript line it began on, for errors
/// that name `shown`:line) in one write transaction, with the file's new
/// mark when given; `same` says what a key stored already means.
pub fn store_turns(
    store: &mut Store,
    turns: &[(u64, Turn)],
    same: SameKey,
    shown: &str,
    mark: Option<&NewMark<'_>>,
) -> Result<Stored> {
    let db = store.path.display().to_string();
    let tx = store.write().with_context(|| format!("database {db}"))?;
    let mut out = Stored::default();
    for (line, t) in turns {
        let outcome = store_turn(&tx, t, same)
            .map_err(classify)
            .with_context(|| format!("storing the turn at {shown}:{line}"))?;
        match outcome {
            Outcome::Stored => out.stored += 1,
            Outcome::Duplicate => out.duplicates += 1,
            Outcome::Updated => out.updated += 1,
            Outcome::Forgotten => out.forgotten += 1,
        }
    }
    if let Some(m) = mark {
        set_mark(&tx, m.path, m.format, m.mark, m.now).map_err(classify)?;
    }
    tx.commit().map_err(classify).with_context(|| format!("database {db}"))?;
    Ok(out)
}
