//! Keeps the `embeddings` table filled: one vector per L2 (`turns.l2`) and
//! per L3/L4 summary, at the summary's current version.
//!
//! Rows are read, the model runs with no transaction open, and each batch's
//! vectors are written in one short `BEGIN IMMEDIATE` transaction that first
//! re-checks the row's version; a summary that changed meanwhile is left
//! for the next run.

use anyhow::{Context, Result};

use super::{EmbedOptions, LazyEmbedder};
use crate::store::embeddings::{self, Kind};
use crate::store::Store;

pub use super::model_id_for;

/// Rows read per query; they are embedded and written batch by batch.
const PAGE_BATCHES: usize = 8;

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

fn run(
    store: &mut Store,
    opts: &EmbedOptions,
    slot: &mut LazyEmbedder,
    progress: Bar<'_>,
    other_models_of: Option<&str>,
) -> Result<usize> {
    let db = store.path.display().to_string();
    let total =
        embeddings::unembedded(store, other_models_of).with_context(|| format!("counting unembedded rows in {db}"))?;
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
    for kind in Kind::ALL {
        let mut after = 0i64;
        loop {
            let rows = embeddings::pending_page(store, kind, after, batch * PAGE_BATCHES, other_models_of)
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
                written += embeddings::put_checked(store, kind, chunk, &vectors, &model)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::embeddings::tests::{add, fixture};

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
}
