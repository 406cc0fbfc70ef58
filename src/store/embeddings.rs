//! The `embeddings` table: which rows lack a vector of the current model,
//! writing vectors with a version check, turn vectors for the segmenter,
//! and the scans search compares a query against.

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};

use super::{blob_to_vector, now_ms, vector_to_blob, Store};

/// What a vector was computed from; `embeddings.kind` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A turn summary (`turns.l2`).
    L2,
    /// An L3 or L4 summary, at its current version.
    Summary,
    /// A turn's own text (user + assistant): the segmenter's signal and
    /// search's way to every turn (L1).
    Turn,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::L2, Kind::Summary, Kind::Turn];

    pub fn name(self) -> &'static str {
        match self {
            Kind::L2 => "l2",
            Kind::Summary => "summary",
            Kind::Turn => "turn",
        }
    }

    /// `FROM ... WHERE` selecting rows without a current vector; `?1` is the
    /// current model id (NULL: any model counts as current). Without a model
    /// the partial indexes answer; with one (`reembed`) every row is looked at.
    fn stale_sql(self) -> &'static str {
        match self {
            Kind::L2 => {
                "FROM turns t
                 WHERE t.l2_state = 'done'
                   AND ((t.l2_vec = 0) OR (?1 IS NOT NULL AND EXISTS (SELECT 1 FROM embeddings e
                        WHERE e.kind = 'l2' AND e.row_id = t.id AND e.model <> ?1)))"
            }
            Kind::Summary => {
                "FROM summaries t
                 WHERE ((t.vec_version IS NOT t.version) OR (?1 IS NOT NULL AND EXISTS (SELECT 1 FROM embeddings e
                        WHERE e.kind = 'summary' AND e.row_id = t.id AND e.model <> ?1)))"
            }
            Kind::Turn => {
                "FROM turns t
                 WHERE ((t.t_vec = 0) OR (?1 IS NOT NULL AND EXISTS (SELECT 1 FROM embeddings e
                        WHERE e.kind = 'turn' AND e.row_id = t.id AND e.model <> ?1)))"
            }
        }
    }

    /// The same without a model: exactly the partial indexes' conditions.
    pub(super) fn missing_sql(self) -> &'static str {
        match self {
            Kind::L2 => "FROM turns t WHERE t.l2_state = 'done' AND t.l2_vec = 0",
            Kind::Summary => "FROM summaries t WHERE t.vec_version IS NOT t.version",
            Kind::Turn => "FROM turns t WHERE t.t_vec = 0",
        }
    }

    fn columns(self) -> &'static str {
        match self {
            Kind::L2 => "t.id, 1, t.l2",
            Kind::Summary => "t.id, t.version, t.content",
            // The same text as `pipeline::segment::turn_text`.
            Kind::Turn => "t.id, 1, t.user_text || char(10) || t.assistant_text",
        }
    }
}

/// Rows with text but no vector, or a vector of an older summary version;
/// with `model_id`, also rows whose vector came from another model.
///
/// Takes a connection: the pass's progress bar asks it on a second,
/// read-only connection while the pass holds the store.
fn count_unembedded(conn: &Connection, model_id: Option<&str>) -> rusqlite::Result<i64> {
    let mut total = 0;
    for kind in Kind::ALL {
        let sql = format!("SELECT count(*) {}", kind.missing_sql());
        total += conn.query_row(&sql, [], |r| r.get::<_, i64>(0))?;
    }
    if let Some(model) = model_id {
        // Vectors of another model on rows not counted above (an L2 with a
        // vector is never missing; a summary may be stale and foreign).
        total += conn.query_row(
            "SELECT count(*) FROM embeddings e WHERE (e.model < ?1 OR e.model > ?1)
               AND (e.kind IN ('l2', 'turn') OR EXISTS (SELECT 1 FROM summaries s
                    WHERE s.id = e.row_id AND s.vec_version IS s.version))",
            [model],
            |r| r.get::<_, i64>(0),
        )?;
    }
    Ok(total)
}

/// [`count_unembedded`] on the store's own connection.
pub fn unembedded(store: &Store, model_id: Option<&str>) -> rusqlite::Result<i64> {
    count_unembedded(&store.conn, model_id)
}

/// Insert or replace the vector of (kind, row id): kind, row id,
/// version, model, dimension, bytes, time.
const UPSERT: &str = "INSERT INTO embeddings (kind, row_id, version, model, dim, vector, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
     ON CONFLICT (kind, row_id) DO UPDATE SET version = excluded.version, model = excluded.model,
         dim = excluded.dim, vector = excluded.vector, created_at = excluded.created_at";

/// A row to embed: its id, the version its text has, and the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub id: i64,
    pub version: i64,
    pub text: String,
}

/// Up to `limit` rows of `kind` after id `after` that lack a vector (with
/// `model`: or hold one of another model), in id order.
pub fn pending_page(store: &Store, kind: Kind, after: i64, limit: usize, model: Option<&str>) -> Result<Vec<Pending>> {
    let from = if model.is_some() { kind.stale_sql() } else { kind.missing_sql() };
    let sql = format!("SELECT {} {} AND t.id > ?2 ORDER BY t.id LIMIT ?3", kind.columns(), from);
    let mut stmt = store.conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![model, after, limit as i64], |r| {
        Ok(Pending { id: r.get(0)?, version: r.get(1)?, text: r.get(2)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Store the vectors of `rows` (made by `model`) in one transaction; rows
/// whose text changed since they were read are skipped. Returns how many
/// were written.
pub fn put_checked(
    store: &mut Store,
    kind: Kind,
    rows: &[Pending],
    vectors: &[Vec<f32>],
    model: &str,
) -> Result<usize> {
    let now = now_ms();
    let tx = store.write()?;
    let mut n = 0;
    {
        let check = match kind {
            Kind::L2 => "SELECT 1 FROM turns WHERE id = ?1 AND l2_state = 'done'",
            Kind::Summary => "SELECT version FROM summaries WHERE id = ?1",
            Kind::Turn => "SELECT 1 FROM turns WHERE id = ?1",
        };
        let mut check = tx.prepare_cached(check)?;
        let mut insert = tx.prepare_cached(UPSERT)?;
        for (row, v) in rows.iter().zip(vectors) {
            let current: Option<i64> = check.query_row([row.id], |r| r.get(0)).optional()?;
            if current != Some(row.version) {
                continue;
            }
            insert.execute(params![kind.name(), row.id, row.version, model, v.len() as i64, vector_to_blob(v), now])?;
            n += 1;
        }
    }
    tx.commit()?;
    Ok(n)
}

/// The stored own-text vector of a turn, of whatever model.
pub fn turn_vector(store: &Store, turn: i64) -> Result<Option<Vec<f32>>> {
    let mut stmt = store.conn.prepare_cached("SELECT vector FROM embeddings WHERE kind = 'turn' AND row_id = ?1")?;
    let blob: Option<Vec<u8>> = stmt.query_row([turn], |r| r.get(0)).optional()?;
    Ok(blob.map(|b| blob_to_vector(&b)))
}

/// Store the own-text vectors of turns (made by `model`), in one short write.
pub fn put_turn_vectors(store: &mut Store, vectors: &[(i64, &[f32])], model: &str) -> Result<()> {
    let tx = store.write()?;
    {
        let mut put = tx.prepare_cached(UPSERT)?;
        let now = now_ms();
        for (id, v) in vectors {
            // A turn's text never changes: its vector is always version 1.
            put.execute(params![Kind::Turn.name(), id, 1, model, v.len() as i64, vector_to_blob(v), now])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Whether any vector is stored (`Some(model)`: any vector of that model).
pub fn any_vector(store: &Store, model: Option<&str>) -> Result<bool> {
    let found = match model {
        None => store.conn.query_row("SELECT 1 FROM embeddings LIMIT 1", [], |_| Ok(())).optional()?,
        Some(m) => {
            store.conn.query_row("SELECT 1 FROM embeddings WHERE model = ?1 LIMIT 1", [m], |_| Ok(())).optional()?
        }
    };
    Ok(found.is_some())
}

/// The stored vector of one row, as little-endian f32 bytes, when it was
/// made by `model`.
pub fn vector_blob(store: &Store, kind: Kind, id: i64, model: &str) -> Result<Option<Vec<u8>>> {
    let mut stmt =
        store.conn.prepare_cached("SELECT vector FROM embeddings WHERE kind = ?1 AND row_id = ?2 AND model = ?3")?;
    Ok(stmt.query_row(params![kind.name(), id, model], |r| r.get(0)).optional()?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A database with one session, two L2 turns (one pending) and one L3;
    /// both turns' own texts already have vectors of model "a".
    pub(crate) fn fixture() -> Store {
        let store = Store::memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO sessions (id, external_id, first_at, last_at, created_at) VALUES (1, 's', 0, 0, 0);
                 INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens, l2, l2_state)
                     VALUES (1, 1, 0, 0, 'u', 'a', 1, 'The user asked.', 'done'),
                            (2, 1, 0, 0, 'u', 'a', 1, NULL, 'pending');
                 INSERT INTO summaries (id, level, session_id, status, content, tokens, version, model, prompt_version, created_at, updated_at)
                     VALUES (1, 3, 1, 'running', 'A session.', 3, 2, 'm', 1, 0, 0);",
            )
            .unwrap();
        add(&store, "turn", 1, 1, "a");
        add(&store, "turn", 2, 1, "a");
        store
    }

    /// A one-number vector of `model` for row `id` of `kind` at `version`.
    pub(crate) fn add(store: &Store, kind: &str, id: i64, version: i64, model: &str) {
        store
            .conn
            .execute(
                "INSERT OR REPLACE INTO embeddings VALUES (?1, ?2, ?3, ?4, 1, x'00000000', 0)",
                params![kind, id, version, model],
            )
            .unwrap();
    }

    #[test]
    fn count_unembedded_sees_missing_stale_version_and_other_model() {
        let store = fixture();
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 2);
        add(&store, "l2", 1, 1, "a");
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 1);
        add(&store, "summary", 1, 1, "a");
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 1, "old summary version is stale");
        add(&store, "summary", 1, 2, "a");
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 0);
        assert_eq!(count_unembedded(&store.conn, Some("a")).unwrap(), 0);
        assert_eq!(count_unembedded(&store.conn, Some("b")).unwrap(), 4, "two summaries' and two turns' vectors");
    }

    #[test]
    fn a_turn_without_its_own_vector_is_unembedded() {
        let store = fixture();
        add(&store, "l2", 1, 1, "a");
        add(&store, "summary", 1, 2, "a");
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 0);
        store.conn.execute("DELETE FROM embeddings WHERE kind = 'turn' AND row_id = 2", []).unwrap();
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 1);
        let rows = pending_page(&store, Kind::Turn, 0, 10, None).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].id, rows[0].text.as_str()), (2, "u\na"), "the segmenter's text: user, newline, assistant");
    }

    #[test]
    fn put_checked_skips_a_summary_that_changed_meanwhile() {
        let mut store = fixture();
        let rows = [Pending { id: 1, version: 1, text: "old".into() }];
        assert_eq!(put_checked(&mut store, Kind::Summary, &rows, &[vec![1.0]], "m").unwrap(), 0);
        let rows = [Pending { id: 1, version: 2, text: "A session.".into() }];
        assert_eq!(put_checked(&mut store, Kind::Summary, &rows, &[vec![1.0]], "m").unwrap(), 1);
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 1);
    }
}
