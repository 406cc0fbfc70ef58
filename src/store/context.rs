//! The summaries the context block is built from: a project's latest L4,
//! its newest L3 segments, and its completed segments matching some terms.

use anyhow::Result;
use rusqlite::{params, OptionalExtension};

use super::Store;

use super::summaries::COVERED_AT as AT;

/// A summary row as the context block lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub id: i64,
    /// The session's external id (None for an L4).
    pub session: Option<String>,
    pub status: String,
    pub updated_at: i64,
    /// Event time of the last turn (an L4: of the last turn of the
    /// segments it covers; its last update before it covers any), ms.
    pub at: i64,
    pub content: String,
    pub key_terms: String,
}

fn segment(r: &rusqlite::Row) -> rusqlite::Result<Segment> {
    Ok(Segment {
        id: r.get(0)?,
        session: r.get(1)?,
        status: r.get(2)?,
        updated_at: r.get(3)?,
        content: r.get(4)?,
        key_terms: r.get(5)?,
        at: r.get(6)?,
    })
}

/// The project's latest L4 summary.
pub fn latest_l4(store: &Store, project: &str) -> Result<Option<Segment>> {
    Ok(store
        .conn
        .prepare_cached(&format!(
            "SELECT m.id, NULL, m.status, m.updated_at, m.content, m.key_terms, {AT}
             FROM summaries m
             WHERE m.level = 4 AND m.project = ?1 ORDER BY m.updated_at DESC, m.id DESC LIMIT 1"
        ))?
        .query_row([project], segment)
        .optional()?)
}

/// The project's `n` latest L3 segments (running or complete), newest first.
pub fn newest_segments(store: &Store, project: &str, n: usize) -> Result<Vec<Segment>> {
    let rows = store
        .conn
        .prepare_cached(&format!(
            "SELECT m.id, se.external_id, m.status, m.updated_at, m.content, m.key_terms, {AT} AS at
             FROM summaries m JOIN sessions se ON se.id = m.session_id
             WHERE m.level = 3 AND se.project = ?1
             ORDER BY at DESC, m.id DESC LIMIT ?2"
        ))?
        .query_map(params![project, n as i64], segment)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Up to `n` completed L3 segments of the project that match the FTS5
/// query `fts`, best first (rank over content and key terms).
pub fn matching_segments(store: &Store, project: &str, fts: &str, n: usize) -> Result<Vec<Segment>> {
    let rows = store
        .conn
        .prepare_cached(&format!(
            "SELECT m.id, se.external_id, m.status, m.updated_at, m.content, m.key_terms, {AT}
             FROM summaries_fts f JOIN summaries m ON m.id = f.rowid JOIN sessions se ON se.id = m.session_id
             WHERE summaries_fts MATCH ?2 AND m.level = 3 AND m.status = 'complete' AND se.project = ?1
             ORDER BY f.rank LIMIT ?3"
        ))?
        .query_map(params![project, fts, n as i64], segment)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A turn captured but not yet folded into a segment.
#[derive(Debug, Clone, PartialEq)]
pub struct RawTurn {
    pub session: String,
    pub at: i64,
    pub user: String,
    pub assistant: String,
}

/// The project's `n` newest turns that no segment covers yet, newest first.
pub fn unfolded_turns(store: &Store, project: &str, n: usize) -> Result<Vec<RawTurn>> {
    let rows = store
        .conn
        .prepare_cached(
            "SELECT se.external_id, t.at, t.user_text, t.assistant_text
             FROM turns t JOIN sessions se ON se.id = t.session_id
             WHERE se.project = ?1 AND t.l3_id IS NULL
             ORDER BY t.at DESC, t.id DESC LIMIT ?2",
        )?
        .query_map(params![project, n as i64], |r| {
            Ok(RawTurn { session: r.get(0)?, at: r.get(1)?, user: r.get(2)?, assistant: r.get(3)? })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Fixtures for the context block's unit tests.
#[cfg(test)]
pub mod fixtures {
    use rusqlite::params;

    use crate::store::Store;

    /// Three sessions: two in project `app` (an old complete segment and a
    /// running one), one in `web`; and `app`'s running L4.
    pub fn two_projects() -> Store {
        let store = Store::memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES
                   (1, 's-old', 'app', 0, 0, 0), (2, 's-new', 'app', 0, 0, 0), (3, 's-other', 'web', 0, 0, 0);
                 INSERT INTO summaries (level, session_id, project, status, content, tokens, model, prompt_version, created_at, updated_at) VALUES
                   (3, 1, 'app', 'complete', 'The user set up the build with cargo.', 9, 'm', 1, 0, 86400000),
                   (3, 2, 'app', 'running', 'The user is fixing the flaky login test.', 9, 'm', 1, 0, 172800000),
                   (3, 3, 'web', 'complete', 'Unrelated web work.', 4, 'm', 1, 0, 172800000),
                   (4, NULL, 'app', 'running', 'A Rust service; build and tests are being fixed.', 9, 'm', 1, 0, 172800000);",
            )
            .unwrap();
        store
    }

    /// One session of project `app` per row (session id, status, L3
    /// content, key terms), a day apart from day 1.
    pub fn history(rows: &[(&str, &str, &str, &str)]) -> Store {
        let store = Store::memory().unwrap();
        for (i, (sid, status, content, terms)) in rows.iter().enumerate() {
            let day = (i as i64 + 1) * 86_400_000;
            store
                .conn
                .execute(
                    "INSERT INTO sessions (external_id, project, first_at, last_at, created_at) VALUES (?1, 'app', ?2, ?2, ?2)",
                    params![sid, day],
                )
                .unwrap();
            store
                .conn
                .execute(
                    "INSERT INTO summaries (level, session_id, project, status, content, key_terms, tokens, model, prompt_version, created_at, updated_at)
                     VALUES (3, last_insert_rowid(), 'app', ?1, ?2, ?3, 9, 'm', 1, ?4, ?4)",
                    params![status, content, terms, day],
                )
                .unwrap();
        }
        store
    }

    /// A running L4 of project `app` with `content`, updated at time 0.
    pub fn add_l4(store: &Store, content: &str) {
        store
            .conn
            .execute(
                "INSERT INTO summaries (level, project, status, content, tokens, model, prompt_version, created_at, updated_at)
                 VALUES (4, 'app', 'running', ?1, 9, 'm', 1, 0, 0)",
                [content],
            )
            .unwrap();
    }
}
