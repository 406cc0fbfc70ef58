//! What a pass shows as it goes: a progress bar over all the work it
//! plans, or with `-v` and no bar one line per item; and the embedding of
//! what it wrote, on the same bar.

use std::cell::Cell;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use super::PassEnv;
use crate::embed::LazyEmbedder;
use crate::pipeline::progress::{planned, ItemEvent};
use crate::store::{queue, Store};

pub(super) struct Shown {
    bar: Option<ProgressBar>,
    /// The work still planned, read after each item (a fold that
    /// completes a segment adds an L4 fold).
    planned: Cell<u64>,
    /// One line per item on stderr (`-v` without a bar).
    log_items: bool,
    /// A second, read-only handle: the pass holds the store's. Only when
    /// something is shown (a cron pass opens nothing more).
    names: Option<Store>,
    session: Option<i64>,
    vectors: bool,
}

impl Shown {
    pub(super) fn new(env: &PassEnv, store: &Store, session: Option<i64>) -> Result<Shown> {
        let vectors = env.config.embedder.enabled;
        let bar = progress_bar(env, store, session, vectors)?;
        let log_items = env.verbose > 0 && bar.is_none() && !env.json;
        let names = (bar.is_some() || log_items).then(|| queue::reader(&store.path)).flatten();
        let planned = Cell::new(bar.as_ref().and_then(|b| b.length()).unwrap_or(0));
        Ok(Shown { bar, planned, log_items, names, session, vectors })
    }

    pub(super) fn bar(&self) -> Option<&ProgressBar> {
        self.bar.as_ref()
    }

    /// An item is done.
    pub(super) fn tick(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
            b.set_length(b.position() + self.planned.get());
        }
    }

    /// What the item was and how it went.
    pub(super) fn item(&self, e: &ItemEvent) {
        if self.bar.is_some() {
            if let Some(r) = &self.names {
                self.planned.set(planned(r, self.session, self.vectors).unwrap_or(0));
            }
        }
        if self.log_items {
            let what = self.names.as_ref().map(|r| e.subject.label(r)).unwrap_or_default();
            eprintln!("ragger: {:?} {what}: {} ({} ms)", e.level, e.outcome, e.ms);
        }
    }

    pub(super) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// A bar over all the work the pass plans: L2s, folds, L4 folds and
/// vectors (see `pipeline::progress::planned`).
fn progress_bar(env: &PassEnv, store: &Store, sid: Option<i64>, vectors: bool) -> Result<Option<ProgressBar>> {
    if !env.progress {
        return Ok(None);
    }
    let total = planned(store, sid, vectors)?;
    if total == 0 {
        return Ok(None);
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} items  {per_sec}  eta {eta}").expect("valid template"),
    );
    Ok(Some(bar))
}

/// Give every new summary its vector. An unavailable embedder is a warning:
/// the rows stay unembedded and the next run fills them in.
pub fn embed_pending(env: &PassEnv, store: &mut Store, bar: Option<&ProgressBar>) -> u64 {
    if !env.config.embedder.enabled {
        return 0;
    }
    let mut lazy = LazyEmbedder::new();
    let filled = match bar {
        // The pass's bar already counts these vectors.
        Some(b) => {
            b.set_length(b.position() + crate::store::embeddings::unembedded(store, None).unwrap_or(0) as u64);
            crate::embed::index::fill_on(store, &env.embed, &mut lazy, Some(b))
        }
        None => crate::embed::index::fill(store, &env.embed, &mut lazy, env.progress),
    };
    match filled {
        Ok(n) => n as u64,
        Err(e) => {
            env.warn(&format!("warning: summaries left unembedded: {e:#}"));
            0
        }
    }
}
