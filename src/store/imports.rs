//! What `ragger import` and `ragger hook` remember per transcript file.

use rusqlite::{params, Connection, OptionalExtension};

/// Where the next read of a transcript starts, and how to tell the file
/// was not rewritten since.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileMark {
    pub byte_offset: u64,
    pub line_no: u64,
    pub check_hash: String,
    pub session: Option<String>,
    pub cwd: Option<String>,
}

pub fn mark(conn: &Connection, path: &str, format: &str) -> rusqlite::Result<Option<FileMark>> {
    conn.prepare_cached(
        "SELECT byte_offset, line_no, check_hash, session, cwd FROM import_files WHERE path = ?1 AND format = ?2",
    )?
    .query_row(params![path, format], |r| {
        Ok(FileMark {
            byte_offset: r.get::<_, i64>(0)? as u64,
            line_no: r.get::<_, i64>(1)? as u64,
            check_hash: r.get(2)?,
            session: r.get(3)?,
            cwd: r.get(4)?,
        })
    })
    .optional()
}

pub fn set_mark(conn: &Connection, path: &str, format: &str, m: &FileMark, now: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO import_files (path, format, byte_offset, line_no, check_hash, session, cwd, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (path) DO UPDATE SET format = ?2, byte_offset = ?3, line_no = ?4, check_hash = ?5,
             session = ?6, cwd = ?7, updated_at = ?8",
    )?
    .execute(params![
        path,
        format,
        m.byte_offset as i64,
        m.line_no as i64,
        m.check_hash,
        m.session,
        m.cwd,
        now
    ])?;
    Ok(())
}

/// Whether a turn with this idempotency key is stored in this session.
pub fn turn_exists(conn: &Connection, session: &str, key: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM turns t JOIN sessions s ON s.id = t.session_id
                        WHERE s.external_id = ?1 AND t.idem_key = ?2)",
    )?
    .query_row(params![session, key], |r| r.get(0))
}
