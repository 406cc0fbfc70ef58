//! Turn vectors for the segmenter: each turn's own text (user + assistant)
//! is embedded once in its life, stored as kind `turn` in `embeddings`
//! (with the model id, like every vector), and read back by later folds,
//! by search and by `reembed`. The embedder is loaded on first need; when
//! it cannot be loaded the pass goes on without it (one warning).

use anyhow::Result;
use rusqlite::{params, OptionalExtension};

use super::segment::{turn_text, TurnView};
use crate::store::{blob_to_vector, now_ms, vector_to_blob, Store};

/// What the segmenter needs of an embedder (a trait so the fold's tests
/// can script vectors).
pub trait Embed {
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;
    fn model_id(&self) -> String;
}

impl Embed for crate::embed::Embedder {
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        crate::embed::Embedder::embed(self, texts).map_err(|e| e.to_string())
    }
    fn model_id(&self) -> String {
        crate::embed::Embedder::model_id(self).to_string()
    }
}

type Make<'a> = Box<dyn FnMut() -> Result<Box<dyn Embed>, String> + 'a>;

/// The pass's embedder for turn vectors, loaded on first use.
pub struct TurnVectors<'a> {
    make: Option<Make<'a>>,
    state: Option<Result<Box<dyn Embed>, String>>,
    /// Set once the embedder failed; the caller warns once per pass.
    pub unavailable: Option<String>,
}

impl<'a> TurnVectors<'a> {
    /// No embedder: the segmenter falls back.
    pub fn none() -> Self {
        TurnVectors { make: None, state: None, unavailable: None }
    }

    pub fn new(make: impl FnMut() -> Result<Box<dyn Embed>, String> + 'a) -> Self {
        TurnVectors { make: Some(Box::new(make)), state: None, unavailable: None }
    }

    /// Whether vectors can be had at all (an embedder is configured).
    pub fn enabled(&self) -> bool {
        self.make.is_some() && self.unavailable.is_none()
    }

    fn embedder(&mut self) -> Option<&mut Box<dyn Embed>> {
        let make = self.make.as_mut()?;
        let state = self.state.get_or_insert_with(make);
        match state {
            Ok(e) => Some(e),
            Err(why) => {
                self.unavailable.get_or_insert_with(|| why.clone());
                None
            }
        }
    }

    /// Fill in `vector` for every view: stored vectors are read, missing
    /// ones computed now and stored (one short write). Views stay without a
    /// vector when no embedder can be had.
    pub fn fill(&mut self, store: &mut Store, views: &mut [TurnView]) -> Result<()> {
        {
            let mut stmt =
                store.conn.prepare_cached("SELECT vector FROM embeddings WHERE kind = 'turn' AND row_id = ?1")?;
            for v in views.iter_mut().filter(|v| v.vector.is_none()) {
                let blob: Option<Vec<u8>> = stmt.query_row([v.id], |r| r.get(0)).optional()?;
                v.vector = blob.map(|b| blob_to_vector(&b));
            }
        }
        let missing: Vec<usize> = (0..views.len()).filter(|&i| views[i].vector.is_none()).collect();
        if missing.is_empty() || !self.enabled() {
            return Ok(());
        }
        let Some(embedder) = self.embedder() else { return Ok(()) };
        let texts: Vec<&str> = missing.iter().map(|&i| views[i].text.as_str()).collect();
        let vectors = match embedder.embed(&texts) {
            Ok(v) => v,
            Err(why) => {
                self.unavailable = Some(why);
                return Ok(());
            }
        };
        let model = embedder.model_id();
        let tx = store.write()?;
        {
            let mut put = tx.prepare_cached(
                "INSERT INTO embeddings (kind, row_id, version, model, dim, vector, created_at)
                 VALUES ('turn', ?1, 1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (kind, row_id) DO UPDATE SET model = excluded.model, dim = excluded.dim,
                        vector = excluded.vector, created_at = excluded.created_at",
            )?;
            let now = now_ms();
            for (&i, v) in missing.iter().zip(&vectors) {
                put.execute(params![views[i].id, model, v.len() as i64, vector_to_blob(v), now])?;
            }
        }
        tx.commit()?;
        for (i, v) in missing.into_iter().zip(vectors) {
            views[i].vector = Some(v);
        }
        Ok(())
    }
}

/// The turns with these ids as the segmenter sees them (no vectors yet).
pub fn views(store: &Store, ids: &[i64]) -> Result<Vec<TurnView>> {
    let mut stmt = store.conn.prepare_cached("SELECT at, user_text, assistant_text FROM turns WHERE id = ?1")?;
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        let (at, user, assistant): (i64, String, String) =
            stmt.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        out.push(TurnView { id, at, text: turn_text(&user, &assistant), user, vector: None });
    }
    Ok(out)
}

/// The last `n` turns folded into summary `l3` (oldest first).
pub fn segment_tail(store: &Store, l3: i64, n: usize) -> Result<Vec<i64>> {
    let mut stmt =
        store.conn.prepare_cached("SELECT id FROM turns WHERE l3_id = ?1 ORDER BY fold_seq DESC LIMIT ?2")?;
    let mut ids: Vec<i64> = stmt.query_map(params![l3, n as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    ids.reverse();
    Ok(ids)
}

/// The session's next captured turn after `after` in fold order, folded or
/// not (look-ahead: its L2 need not exist).
pub fn next_turn(store: &Store, session: i64, after: i64) -> Result<Option<i64>> {
    Ok(store
        .conn
        .prepare_cached(
            "SELECT t.id FROM turns t, turns a WHERE a.id = ?2 AND t.session_id = ?1 AND t.l3_id IS NULL
               AND (t.at > a.at OR (t.at = a.at AND t.id > a.id))
             ORDER BY t.at, t.id LIMIT 1",
        )?
        .query_row(params![session, after], |r| r.get(0))
        .optional()?)
}

/// Whether the session already has an L3 segment (a new one after it
/// follows a close for idleness).
pub fn has_segment(store: &Store, session: i64) -> Result<bool> {
    Ok(store.conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM summaries WHERE level = 3 AND session_id = ?1)",
        [session],
        |r| r.get(0),
    )?)
}
