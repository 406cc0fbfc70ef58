//! Turn vectors for the segmenter: each turn's own text (user + assistant)
//! is embedded once in its life, stored as kind `turn` in `embeddings`
//! (with the model id, like every vector), and read back by later folds,
//! by search and by `reembed`. The embedder is loaded on first need; when
//! it cannot be loaded the pass goes on without it (one warning).

use anyhow::Result;

use super::segment::{asks, turn_text, TurnView};
use crate::store::{embeddings, turn_views, Store};

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

    /// Drop a loaded embedder to free its memory; the next need loads it
    /// again.
    pub fn release(&mut self) {
        if matches!(self.state, Some(Ok(_))) {
            self.state = None;
        }
    }

    /// Fill in `vector` for every view: stored vectors are read, missing
    /// ones computed now and stored (one short write). Views stay without a
    /// vector when no embedder can be had.
    pub fn fill(&mut self, store: &mut Store, views: &mut [TurnView]) -> Result<()> {
        for v in views.iter_mut().filter(|v| v.vector.is_none()) {
            v.vector = embeddings::turn_vector(store, v.id)?;
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
        let rows: Vec<(i64, &[f32])> =
            missing.iter().zip(&vectors).map(|(&i, v)| (views[i].id, v.as_slice())).collect();
        embeddings::put_turn_vectors(store, &rows, &model)?;
        for (i, v) in missing.into_iter().zip(vectors) {
            views[i].vector = Some(v);
        }
        Ok(())
    }
}

/// Turns embedded per step of [`ahead`].
const AHEAD_CHUNK: usize = 64;

/// Turn vectors ahead of the folds: the own text of every turn that waits
/// for a fold and has no vector yet is embedded now, a chunk at a time
/// (stopping early when `stop` says so), and the embedder is then
/// released. The memory model loads only after, with the first L2 or
/// fold, so a pass does not hold both at once: the segmenter reads the
/// stored vectors. A turn captured meanwhile gets its vector at its fold.
/// Returns the number of turns embedded.
pub fn ahead(
    store: &mut Store,
    vectors: &mut TurnVectors,
    session: Option<i64>,
    stop: &dyn Fn() -> bool,
) -> Result<usize> {
    let mut done = 0;
    let mut last = 0;
    while vectors.enabled() && !stop() {
        let ids = turn_views::unfolded_without_vector(store, session, last, AHEAD_CHUNK)?;
        let Some(&max) = ids.last() else { break };
        last = max;
        let mut views = views(store, &ids)?;
        vectors.fill(store, &mut views)?;
        done += views.iter().filter(|v| v.vector.is_some()).count();
    }
    vectors.release();
    Ok(done)
}

/// The turns with these ids as the segmenter sees them (no vectors yet).
pub fn views(store: &Store, ids: &[i64]) -> Result<Vec<TurnView>> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        let (at, user, assistant) = turn_views::texts(store, id)?;
        let reply_asks = asks(&assistant);
        out.push(TurnView { id, at, text: turn_text(&user, &assistant), user, reply_asks, vector: None });
    }
    Ok(out)
}

pub use crate::store::turn_views::{after, before, has_segment, segment_turns};

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// Two-dimensional vectors from the text's length; counts the
    /// embedders alive.
    struct Scripted(Rc<Cell<i32>>);

    impl Drop for Scripted {
        fn drop(&mut self) {
            self.0.set(self.0.get() - 1);
        }
    }

    impl Embed for Scripted {
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
            Ok(texts.iter().map(|t| vec![1.0, t.len() as f32]).collect())
        }
        fn model_id(&self) -> String {
            "scripted".into()
        }
    }

    /// Session 1 with turns 1..=n; turns 1 and 2 are folded already.
    fn store(n: i64) -> Store {
        let store = Store::memory().unwrap();
        store
            .exec(&format!(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (1, 's', 'p', 0, 0, 0);
                 INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
                   WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})
                   SELECT i, 1, i, 0, 'how do I back up /srv', 'with restic', 1 FROM n;
                 INSERT INTO summaries (id, level, session_id, status, content, tokens, model, prompt_version, created_at, updated_at)
                   VALUES (1, 3, 1, 'running', 'x', 1, 'm', 1, 0, 0);
                 UPDATE turns SET l2 = 'x', l2_state = 'done', l3_id = 1 WHERE id <= 2;"
            ))
            .unwrap();
        store
    }

    #[test]
    fn every_unfolded_turn_gets_its_vector_ahead_and_the_embedder_is_released() {
        let mut store = store(150);
        let alive = Rc::new(Cell::new(0));
        let loads = Rc::new(Cell::new(0));
        let (a, l) = (alive.clone(), loads.clone());
        let mut vectors = TurnVectors::new(move || {
            a.set(a.get() + 1);
            l.set(l.get() + 1);
            Ok(Box::new(Scripted(a.clone())) as Box<dyn Embed>)
        });
        let done = ahead(&mut store, &mut vectors, None, &|| false).unwrap();
        assert_eq!(done, 148, "every turn but the two folded ones, over several chunks");
        assert!(embeddings::turn_vector(&store, 150).unwrap().is_some());
        assert!(embeddings::turn_vector(&store, 1).unwrap().is_none(), "a folded turn is left alone");
        assert_eq!((alive.get(), loads.get()), (0, 1), "loaded once, released before the memory model loads");
        // Nothing left: the embedder is not loaded again.
        assert_eq!(ahead(&mut store, &mut vectors, None, &|| false).unwrap(), 0);
        assert_eq!(loads.get(), 1);
        // A turn's vector is still filled in at its fold when it was missed.
        let mut views = views(&store, &[1]).unwrap();
        vectors.fill(&mut store, &mut views).unwrap();
        assert!(views[0].vector.is_some());
        assert_eq!(loads.get(), 2);
    }

    #[test]
    fn a_stop_request_ends_the_vectors_ahead_between_chunks() {
        let mut store = store(150);
        let mut vectors = TurnVectors::new(|| Ok(Box::new(Scripted(Rc::new(Cell::new(1)))) as Box<dyn Embed>));
        let calls = Cell::new(0);
        let stop = || {
            calls.set(calls.get() + 1);
            calls.get() > 1
        };
        assert_eq!(ahead(&mut store, &mut vectors, None, &stop).unwrap(), AHEAD_CHUNK);
    }
}
