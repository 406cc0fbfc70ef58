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

pub use crate::store::turn_views::{after, before, has_segment};
