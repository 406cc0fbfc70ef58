//! Keeps the `embeddings` table filled: one vector per L2 (`turns.l2`) and
//! per L3/L4 summary, at the summary's current version.
//!
//! Rows are read, the model runs with no transaction open, and each batch's
//! vectors are written in one short `BEGIN IMMEDIATE` transaction that first
//! re-checks the row's version; a summary that changed meanwhile is left
//! for the next run.

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};

use super::{EmbedOptions, LazyEmbedder};
use crate::store::{now_ms, vector_to_blob, Store};

pub use super::model_id_for;

/// Rows read per query; they are embedded and written batch by batch.
const PAGE_BATCHES: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    L2,
    Summary,
    /// A turn's own text (user + assistant): the segmenter's signal and
    /// search's way to every turn.
    Turn,
}

impl Kind {
    fn name(self) -> &'static str {
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
    fn missing_sql(self) -> &'static str {
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

const KINDS: [Kind; 3] = [Kind::L2, Kind::Summary, Kind::Turn];

/// Rows with text but no vector, or a vector of an older summary version;
/// with `model_id`, also rows whose vector came from another model.
pub fn count_unembedded(conn: &Connection, model_id: Option<&str>) -> rusqlite::Result<i64> {
    let mut total = 0;
    for kind in KINDS {
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

/// Embed every row lacking a vector (or with a vector of an older summary
/// version); vectors of another model are left for `reembed`. Loads the
/// embedder through `slot` only if there is such a row. Returns the number
/// of vectors written.
///
/// Does not look at `[embedder] enabled`: the caller skips the call when
/// the embedder is disabled.
pub fn fill(store: &mut Store, opts: &EmbedOptions, slot: &mut LazyEmbedder, progress: bool) -> Result<usize> {
    run(store, opts, slot, if progress { Bar::Own } else { Bar::None }, None)
}

/// Like `fill`, counting each vector on `bar` (a summarize pass's bar,
/// whose total already includes them).
pub fn fill_on(
    store: &mut Store,
    opts: &EmbedOptions,
    slot: &mut LazyEmbedder,
    bar: Option<&indicatif::ProgressBar>,
) -> Result<usize> {
    run(store, opts, slot, bar.map_or(Bar::None, Bar::Shared), None)
}

/// Where embedding progress goes.
enum Bar<'a> {
    None,
    /// A bar of its own, for this run's total.
    Own,
    Shared(&'a indicatif::ProgressBar),
}

/// Like `fill`, and also recompute vectors made by a model other than the
/// current one (`ragger reembed`).
pub fn reembed(store: &mut Store, opts: &EmbedOptions, slot: &mut LazyEmbedder, progress: bool) -> Result<usize> {
    let model = model_id_for(opts);
    run(store, opts, slot, if progress { Bar::Own } else { Bar::None }, model.as_deref())
}

struct Row {
    id: i64,
    version: i64,
    text: String,
}

fn run(
    store: &mut Store,
    opts: &EmbedOptions,
    slot: &mut LazyEmbedder,
    progress: Bar<'_>,
    other_models_of: Option<&str>,
) -> Result<usize> {
    let db = store.path.display().to_string();
    let total =
        count_unembedded(&store.conn, other_models_of).with_context(|| format!("counting unembedded rows in {db}"))?;
    if total == 0 {
        return Ok(0);
    }
    let own = matches!(progress, Bar::Own).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("embedding {bar:30} {pos}/{len} ({per_sec}, {eta} left)")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let bar = match progress {
        Bar::Shared(b) => Some(b),
        _ => own.as_ref(),
    };
    let batch = opts.batch_size.max(1);
    let mut written = 0;
    for kind in KINDS {
        let mut after = 0i64;
        loop {
            let rows = read_page(&store.conn, kind, after, batch * PAGE_BATCHES, other_models_of)
                .with_context(|| format!("reading rows to embed from {db}"))?;
            let Some(last) = rows.last() else { break };
            after = last.id;
            let embedder = slot.get(opts)?;
            let model = embedder.model_id().to_string();
            // Similar lengths in one batch pad less.
            let mut rows = rows;
            rows.sort_by_key(|r| r.text.len());
            for chunk in rows.chunks(batch) {
                let texts: Vec<&str> = chunk.iter().map(|r| r.text.as_str()).collect();
                let vectors = embedder.embed(&texts)?;
                written += write_batch(store, kind, chunk, &vectors, &model)
                    .with_context(|| format!("writing vectors to {db}"))?;
                if let Some(b) = &bar {
                    b.inc(chunk.len() as u64);
                }
            }
        }
    }
    if let Some(b) = own {
        b.finish_and_clear();
    }
    Ok(written)
}

fn read_page(
    conn: &Connection,
    kind: Kind,
    after: i64,
    limit: usize,
    model: Option<&str>,
) -> rusqlite::Result<Vec<Row>> {
    let from = if model.is_some() { kind.stale_sql() } else { kind.missing_sql() };
    let sql = format!("SELECT {} {} AND t.id > ?2 ORDER BY t.id LIMIT ?3", kind.columns(), from);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![model, after, limit as i64], |r| {
        Ok(Row { id: r.get(0)?, version: r.get(1)?, text: r.get(2)? })
    })?;
    rows.collect()
}

/// One transaction; rows whose text changed since they were read are skipped.
fn write_batch(store: &mut Store, kind: Kind, rows: &[Row], vectors: &[Vec<f32>], model: &str) -> Result<usize> {
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
        let mut insert = tx.prepare_cached(
            "INSERT INTO embeddings (kind, row_id, version, model, dim, vector, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (kind, row_id) DO UPDATE SET version = excluded.version, model = excluded.model,
                 dim = excluded.dim, vector = excluded.vector, created_at = excluded.created_at",
        )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A database with one session, two L2 turns (one pending) and one L3.
    fn fixture() -> Store {
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
        // Both turns' own texts already have vectors of model "a".
        add(&store, "turn", 1, 1, "a");
        add(&store, "turn", 2, 1, "a");
        store
    }

    fn add(store: &Store, kind: &str, id: i64, version: i64, model: &str) {
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
        let rows = read_page(&store.conn, Kind::Turn, 0, 10, None).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].id, rows[0].text.as_str()), (2, "u\na"), "the segmenter's text: user, newline, assistant");
    }

    #[test]
    fn fill_with_nothing_to_do_does_not_load_the_embedder() {
        let mut store = fixture();
        add(&store, "l2", 1, 1, "a");
        add(&store, "summary", 1, 2, "a");
        let dir = tempfile::tempdir().unwrap();
        let opts = EmbedOptions {
            runtime_path: Some(dir.path().join("missing.so")),
            lib_dir: dir.path().to_path_buf(),
            model_dir: dir.path().to_path_buf(),
            batch_size: 2,
            threads: 1,
        };
        let mut slot = LazyEmbedder::new();
        assert_eq!(fill(&mut store, &opts, &mut slot, false).unwrap(), 0);
        assert!(!slot.tried());
        assert_eq!(reembed(&mut store, &opts, &mut slot, false).unwrap(), 0, "no model id: other models are not stale");
        assert!(!slot.tried());
    }

    #[test]
    fn write_batch_skips_a_summary_that_changed_meanwhile() {
        let mut store = fixture();
        let rows = [Row { id: 1, version: 1, text: "old".into() }];
        assert_eq!(write_batch(&mut store, Kind::Summary, &rows, &[vec![1.0]], "m").unwrap(), 0);
        let rows = [Row { id: 1, version: 2, text: "A session.".into() }];
        assert_eq!(write_batch(&mut store, Kind::Summary, &rows, &[vec![1.0]], "m").unwrap(), 1);
        assert_eq!(count_unembedded(&store.conn, None).unwrap(), 1);
    }
}
