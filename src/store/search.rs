//! What `crate::search` reads: the stored vectors in the search's scope
//! (`scan`), keyword (FTS5, BM25) candidates, and the rows search shows.

use anyhow::Result;
use rusqlite::{params, OptionalExtension};

use super::embeddings::Kind;
use super::Store;

/// Restrictions from the command line; None means any.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    pub level: Option<u8>,
    /// `sessions.external_id`.
    pub session: Option<String>,
    pub project: Option<String>,
    /// Milliseconds: L2 by turn time, L3/L4 by last update.
    pub since: Option<i64>,
}

impl Filters {
    /// Whether anything but the level restricts.
    pub fn any(&self) -> bool {
        self.session.is_some() || self.project.is_some() || self.since.is_some()
    }

    /// Whether rows of `kind` can be hits at the level asked for. Turn
    /// summaries (L2) only when level 2 is asked for: by default a turn is
    /// found through its own words and vector (see `crate::search`).
    pub fn wants(&self, kind: Kind) -> bool {
        match (kind, self.level) {
            (Kind::L2, None) => false,
            (_, None) => true,
            (Kind::L2, Some(l)) => l == 2,
            (Kind::Summary, Some(l)) => l >= 3,
            (Kind::Turn, Some(l)) => l == 1 || l == 3,
        }
    }
}

/// Calls `each(row id, vector bytes)` for every stored vector of `kind`
/// made by `model` whose row passes `scope`; returns how many there were.
pub fn scan(
    store: &Store,
    kind: Kind,
    model: &str,
    scope: &Filters,
    mut each: impl FnMut(i64, &[u8]),
) -> Result<usize> {
    // Without filters, a plain range scan of the table; joins only when needed
    // (the plain scan's `?5 IS NULL` refused every row when a level was asked
    // for, so `--level 2` compared no L2 vector).
    // Summaries always: a copy is no candidate (see `search::scoped`).
    let join = scope.any() || scope.level.is_some() || kind == Kind::Summary;
    let sql = if join {
        let (joins, conditions) = scoped(kind, "e.row_id", "?5");
        format!(
            "SELECT e.row_id, e.vector FROM embeddings e {joins} WHERE e.kind = '{}' AND e.model = ?1 AND {conditions}",
            kind.name()
        )
    } else {
        format!(
            "SELECT row_id, vector FROM embeddings WHERE kind = '{}' AND model = ?1
               AND ?2 IS NULL AND ?3 IS NULL AND ?4 IS NULL AND ?5 IS NULL",
            kind.name()
        )
    };
    let mut stmt = store.conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![model, scope.session, scope.project, scope.since, scope.level])?;
    let mut scanned = 0;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let blob = row.get_ref(1)?.as_blob()?;
        scanned += 1;
        each(id, blob);
    }
    Ok(scanned)
}

/// Terms as an FTS5 query: each quoted (so `AND`, `*`, `col:` and quotes
/// are plain text), any may match, BM25 ranks. None without terms.
pub fn fts_any<'a>(terms: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let quoted: Vec<String> = terms.into_iter().map(|t| format!("\"{}\"", t.replace('"', "\"\""))).collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// The joins and conditions that restrict rows of `kind` (whose id is
/// `row_id`) to [`Filters`] bound as `?2` session, `?3` project, `?4`
/// since, and `level` (a parameter) the level asked for.
pub(super) fn scoped(kind: Kind, row_id: &str, level: &str) -> (String, String) {
    let (joins, project, at, level_ok) = match kind {
        Kind::L2 | Kind::Turn => (
            format!("JOIN turns t ON t.id = {row_id} JOIN sessions s ON s.id = t.session_id"),
            "s.project",
            "t.at",
            if kind == Kind::L2 { format!("{level} = 2") } else { format!("{level} IN (1, 3)") },
        ),
        Kind::Summary => (
            format!("JOIN summaries m ON m.id = {row_id} LEFT JOIN sessions s ON s.id = m.session_id"),
            "coalesce(m.project, s.project)",
            "m.updated_at",
            format!("m.level = {level}"),
        ),
    };
    // A summary that is a copy of one item (a one-turn segment's L2, a
    // project's only L3) is, like an L2, a second copy of words searched
    // anyway: its turn is found and stands for it.
    let own = if kind == Kind::Summary { "m.origin <> 'copy' AND " } else { "" };
    let conditions = format!(
        "{own}(?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR {project} = ?3)
         AND (?4 IS NULL OR {at} >= ?4) AND ({level} IS NULL OR {level_ok})"
    );
    (joins, conditions)
}

/// Up to `k` rows of each kind the filters allow that match the FTS5
/// query `q`, best first per kind, with their BM25 rank (lower is better).
pub fn keyword_candidates(store: &Store, q: &str, f: &Filters, k: usize) -> Result<Vec<((Kind, i64), f64)>> {
    let mut out = Vec::new();
    let args = params![q, f.session, f.project, f.since, k as i64, f.level];
    for kind in Kind::ALL {
        if !f.wants(kind) {
            continue;
        }
        let fts = match kind {
            Kind::L2 => "l2_fts",
            Kind::Summary => "summaries_fts",
            Kind::Turn => "turns_fts",
        };
        let (joins, conditions) = scoped(kind, &format!("{fts}.rowid"), "?6");
        let sql = format!(
            "SELECT {fts}.rowid, bm25({fts}) AS rank FROM {fts} {joins}
             WHERE {fts} MATCH ?1 AND {conditions} ORDER BY rank LIMIT ?5"
        );
        let mut stmt = store.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(args, |r| Ok(((kind, r.get(0)?), r.get(1)?)))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}

/// The text a candidate's words are looked for in ("" when it is gone),
/// and for a raw turn the time it was said.
pub fn text_of(store: &Store, kind: Kind, id: i64) -> Result<(String, Option<i64>)> {
    let sql = match kind {
        Kind::L2 => "SELECT coalesce(l2, ''), NULL FROM turns WHERE id = ?1",
        Kind::Summary => "SELECT content || ' ' || coalesce(key_terms, ''), NULL FROM summaries WHERE id = ?1",
        Kind::Turn => "SELECT user_text || ' ' || assistant_text, at FROM turns WHERE id = ?1",
    };
    Ok(store.conn.prepare_cached(sql)?.query_row([id], |r| Ok((r.get(0)?, r.get(1)?))).optional()?.unwrap_or_default())
}

/// The text of the turn said just before `turn` in its session (by time,
/// then id); None for a session's first turn.
pub fn previous_turn_text(store: &Store, turn: i64) -> Result<Option<String>> {
    Ok(store
        .conn
        .prepare_cached(
            "SELECT p.user_text || ' ' || p.assistant_text FROM turns t
             JOIN turns p ON p.session_id = t.session_id AND (p.at, p.id) < (t.at, t.id)
             WHERE t.id = ?1 ORDER BY p.at DESC, p.id DESC LIMIT 1",
        )?
        .query_row([turn], |r| r.get(0))
        .optional()?)
}

/// The turn said just after `turn` in its session (by time, then id). It
/// passes every filter `turn` passed: same session and project, no earlier.
pub fn next_turn(store: &Store, turn: i64) -> Result<Option<i64>> {
    Ok(store
        .conn
        .prepare_cached(
            "SELECT n.id FROM turns t
             JOIN turns n ON n.session_id = t.session_id AND (n.at, n.id) > (t.at, t.id)
             WHERE t.id = ?1 ORDER BY n.at, n.id LIMIT 1",
        )?
        .query_row([turn], |r| r.get(0))
        .optional()?)
}

/// The L3 segment a turn was folded into.
pub fn segment_of(store: &Store, turn: i64) -> Result<Option<i64>> {
    Ok(store
        .conn
        .prepare_cached("SELECT l3_id FROM turns WHERE id = ?1")?
        .query_row([turn], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .flatten())
}

/// A turn's user and assistant text.
pub fn turn_words(store: &Store, turn: i64) -> Result<Option<(String, String)>> {
    Ok(store
        .conn
        .prepare_cached("SELECT user_text, assistant_text FROM turns WHERE id = ?1")?
        .query_row([turn], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// What a hit shows of its row.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub id: i64,
    pub level: u8,
    /// The L2 or summary text; for a raw turn its (user, assistant) text.
    pub content: Content,
    /// The turn's time; a summary's: its last covered turn's (`COVERED_AT`).
    pub at: i64,
    pub session: Option<String>,
    pub project: Option<String>,
    /// `first-last` ids (L2 and turns: `id-id`; L4: the folded L3 ids).
    pub episode_range: Option<String>,
    pub key_terms: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    Turn { user: String, assistant: String },
}

/// The row behind a candidate (None: gone, or an L2 not written).
pub fn found(store: &Store, kind: Kind, id: i64) -> Result<Option<Found>> {
    let conn = &store.conn;
    let one = |id: i64| Some(format!("{id}-{id}"));
    let hit = match kind {
        Kind::L2 => conn
            .prepare_cached(
                "SELECT t.id, t.l2, t.at, s.external_id, coalesce((SELECT p.label FROM projects p WHERE p.key = s.project), s.project)
                 FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?1 AND t.l2 IS NOT NULL",
            )?
            .query_row([id], |r| {
                let id: i64 = r.get(0)?;
                Ok(Found {
                    id,
                    level: 2,
                    content: Content::Text(r.get(1)?),
                    at: r.get(2)?,
                    session: r.get(3)?,
                    project: r.get(4)?,
                    episode_range: one(id),
                    key_terms: None,
                })
            })
            .optional()?,
        Kind::Turn => conn
            .prepare_cached(
                "SELECT t.id, t.user_text, t.assistant_text, t.at, s.external_id, coalesce((SELECT p.label FROM projects p WHERE p.key = s.project), s.project)
                 FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?1",
            )?
            .query_row([id], |r| {
                let id: i64 = r.get(0)?;
                Ok(Found {
                    id,
                    level: 1,
                    content: Content::Turn { user: r.get(1)?, assistant: r.get(2)? },
                    at: r.get(3)?,
                    session: r.get(4)?,
                    project: r.get(5)?,
                    episode_range: one(id),
                    key_terms: None,
                })
            })
            .optional()?,
        Kind::Summary => conn
            .prepare_cached(&format!(
                "SELECT m.id, m.level, m.content, {}, s.external_id, coalesce((SELECT p.label FROM projects p WHERE p.key = coalesce(m.project, s.project)), coalesce(m.project, s.project)),
                        CASE m.level WHEN 3 THEN m.first_turn_id ELSE m.first_l3_id END,
                        CASE m.level WHEN 3 THEN m.last_turn_id ELSE m.last_l3_id END, m.key_terms
                 FROM summaries m LEFT JOIN sessions s ON s.id = m.session_id WHERE m.id = ?1",
                super::summaries::COVERED_AT
            ))?
            .query_row([id], |r| {
                let first: Option<i64> = r.get(6)?;
                let last: Option<i64> = r.get(7)?;
                Ok(Found {
                    id: r.get(0)?,
                    level: r.get(1)?,
                    content: Content::Text(r.get(2)?),
                    at: r.get(3)?,
                    session: r.get(4)?,
                    project: r.get(5)?,
                    episode_range: first.map(|f| format!("{f}-{}", last.unwrap_or(f))),
                    key_terms: r.get::<_, String>(8).ok().filter(|k| !k.is_empty()),
                })
            })
            .optional()?,
    };
    Ok(hit)
}

/// Fixture for search's unit tests: two sessions in two projects: L2 turns
/// 1, 2 (session a), 3 (b); L3 10 (a); 2-d unit vectors of model `m`.
#[cfg(test)]
pub fn fixture(vectors: &[(&str, i64, Vec<f32>)]) -> Store {
    let store = Store::memory().unwrap();
    store
        .conn
        .execute_batch(
            "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at)
                 VALUES (1, 'a', 'p', 0, 0, 0), (2, 'b', 'q', 0, 0, 0);
             INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
                 VALUES (1, 1, 1000, 0, '', '', 0), (2, 1, 2000, 0, '', '', 0), (3, 2, 3000, 0, '', '', 0);
             UPDATE turns SET l2_state = 'done', l2 = CASE id
                 WHEN 1 THEN 'The user fixed the sqlite lock timeout.'
                 WHEN 2 THEN 'The user baked sourdough bread.'
                 ELSE 'The user tuned the guitar strings.' END;
             INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                    model, prompt_version, created_at, updated_at)
                 VALUES (10, 3, 1, 'p', 'running', 'Database locking and bread.', 5, 1, 2, 'm', 1, 0, 2500);",
        )
        .unwrap();
    for (kind, id, v) in vectors {
        store
            .conn
            .execute(
                "INSERT INTO embeddings VALUES (?1, ?2, 1, 'm', 2, ?3, 0)",
                params![kind, id, super::vector_to_blob(v)],
            )
            .unwrap();
    }
    store
}
