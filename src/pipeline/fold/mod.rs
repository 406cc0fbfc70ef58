//! The fold engine, one for both scopes: a session's L2s fold into its
//! running L3 in turn order, a project's completed L3s into its running
//! L4. New material is merged into the running summary, or on a topic
//! shift (the segmenter's, or a trusted model's `NO_MERGE`) or a size
//! rollover the running summary is completed and a new one starts.
//!
//! Every fold goes the same way: claim its items and read the running
//! summary (`session`, `project`: what differs by scope), decide with no
//! database transaction open (`decide`, under the rules of `policy`), and
//! commit with one compare-and-set (`store::fold`); a fold whose state
//! moved meanwhile is released and done again later.

mod decide;
pub(crate) mod policy;
mod project;
mod session;
#[cfg(test)]
mod tests;

use std::time::Instant;

use anyhow::Result;

use super::progress::Subject;
use super::prompts::Scope;
use super::queue::{self, Skip, Table};
use super::segment::StartReason;
use super::{grounding, Level, ModelSlot, PassOptions, Report, Step};
use crate::llm::{MemoryModel, ModelError};
use crate::store::fold::{self as store_fold, Change, FoldCommit};
/// Closing an idle session completes its running L3 (`housekeeping`).
use crate::store::summaries::{FoldKey, Note, Running};
use crate::store::Store;
use decide::short_fold;
pub use decide::{decide, Decision, FoldInput};
pub use project::l4_step;
pub use session::l3_step;

/// A claimed fold of either scope: what the engine decides and commits.
struct Fold {
    key: FoldKey,
    /// The items claimed: turns in fold order (L3), or L3 rows (L4).
    ids: Vec<i64>,
    /// Their texts: the turns' L2s, or the L3s' contents.
    items: Vec<String>,
    /// The model id of the items (a copy keeps it).
    copy_model: String,
    /// Bad replies counted against this fold so far.
    attempts: i64,
    run: Option<Running>,
    /// Set when the fold starts a new summary without asking the model.
    start: Option<(StartReason, Option<f32>)>,
    terms: NewTerms,
    /// Whether the model wrote each item (an L3 fold's L2s).
    by_model: Vec<bool>,
    /// The turns already under the running summary (an L3 fold), or the
    /// segments a project digest covers (an L4 fold).
    earlier: Vec<Note>,
    /// When the work of each of `earlier`, then of each item, was done (an
    /// L4 fold; empty: the order given).
    recency: Vec<i64>,
}

/// Where the key terms a fold adds come from.
enum NewTerms {
    /// Extracted from these texts (the turns of an L3 fold).
    Texts(Vec<String>),
    /// The folded summaries' own key terms (an L4 fold).
    Given(Vec<String>),
}

impl Fold {
    fn scope(&self) -> Scope {
        match self.key {
            FoldKey::Session(_) => Scope::Session,
            FoldKey::Project(_) => Scope::Project,
        }
    }
    fn table(&self) -> Table {
        match self.key {
            FoldKey::Session(_) => Table::Turns,
            FoldKey::Project(_) => Table::Summaries,
        }
    }
    /// What progress reports the fold as.
    fn subject(&self) -> (Level, Subject) {
        match self.key {
            FoldKey::Session(sid) => (Level::L3, Subject::Session(sid)),
            FoldKey::Project(_) => (Level::L4, Subject::Summary(self.ids[0])),
        }
    }
    /// Whether deciding the fold may call the model (else it is not loaded).
    fn needs_model(&self, opts: &PassOptions) -> bool {
        let (items, sources) = self.texts();
        policy::needs_model(self.items.len(), self.start) && short_fold(opts, &self.input(&items, &sources)).is_none()
    }
    /// The items, and what they were written from (an L3 fold's turns).
    fn texts(&self) -> (Vec<&str>, Vec<&str>) {
        let items = self.items.iter().map(String::as_str).collect();
        let sources = match &self.terms {
            NewTerms::Texts(texts) if texts.len() == self.items.len() => texts.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        };
        (items, sources)
    }
    fn input<'a>(&'a self, items: &'a [&'a str], sources: &'a [&'a str]) -> FoldInput<'a> {
        FoldInput {
            scope: self.scope(),
            run: self.run.as_ref(),
            items,
            copy_model: &self.copy_model,
            attempts: self.attempts,
            start: self.start,
            sources,
            by_model: &self.by_model,
            earlier: &self.earlier,
            recency: &self.recency,
        }
    }
    fn decide(&self, model: Option<&dyn MemoryModel>, opts: &PassOptions) -> Result<Decision, ModelError> {
        let (items, sources) = self.texts();
        decide(model, opts, &self.input(&items, &sources))
    }
    /// A bad reply: not this fold again in this pass.
    fn skip(&self, skip: &mut Skip) {
        match self.key {
            FoldKey::Session(sid) => {
                skip.sessions.insert(sid);
            }
            FoldKey::Project(_) => skip.l3_rows.extend(&self.ids),
        }
    }
    /// The key terms of the summary the fold writes: the running summary's
    /// (when it is updated) with the new ones added.
    fn key_terms(&self, running: Option<&str>) -> String {
        match (&self.terms, running) {
            (NewTerms::Texts(texts), running) => merge_terms(running.unwrap_or(""), texts.iter().map(String::as_str)),
            (NewTerms::Given(terms), running) => {
                join_terms(running.unwrap_or(""), terms.iter().flat_map(|t| t.split("; ")))
            }
        }
    }
}

/// Claim all of a fold's items, or none (a part claimed is released).
fn claim(store: &mut Store, opts: &PassOptions, table: Table, ids: &[i64]) -> Result<bool> {
    let claimed = queue::claim(store, table, ids, &opts.owner)?;
    if claimed.len() == ids.len() {
        return Ok(true);
    }
    if !claimed.is_empty() {
        queue::release(store, table, &claimed, &opts.owner)?;
    }
    Ok(false)
}

/// The model for the folds that need one (loaded on first use), or none.
fn model_for<'s>(slot: &'s mut ModelSlot<'_>, needed: bool) -> Result<Option<&'s dyn MemoryModel>, ModelError> {
    if needed {
        slot.get().map(Some)
    } else {
        Ok(None)
    }
}

/// Decide claimed folds and commit each decision. Folds of different
/// sessions are independent: their model calls run concurrently (up to
/// `[memory_model] parallel` of them) and each result is committed on its
/// own. A model error releases the fold and stops the pass.
fn fold_claimed(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    folds: Vec<Fold>,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    let model = match model_for(slot, folds.iter().any(|f| f.needs_model(opts))) {
        Ok(m) => m,
        Err(e) => {
            for f in &folds {
                queue::release(store, f.table(), &f.ids, &opts.owner)?;
            }
            return Ok(Step::Stop(e));
        }
    };
    let started = Instant::now();
    let decisions = super::concurrently(&folds, |f| f.decide(model, opts));
    let mut stop = None;
    let mut done = 0;
    for (fold, decision) in folds.iter().zip(decisions) {
        match decision {
            Ok(d) => {
                let before = report.tally();
                done += commit(store, opts, fold, d, skip, report)?;
                let (level, subject) = fold.subject();
                report.note(level, subject, before, started);
            }
            Err(e) => {
                queue::release(store, fold.table(), &fold.ids, &opts.owner)?;
                stop.get_or_insert(e);
            }
        }
    }
    Ok(match stop {
        Some(e) => Step::Stop(e),
        None => Step::Done(done),
    })
}

/// Commit one decision with a compare-and-set; returns the items it counts
/// for (0 when the state moved under us: retried next time).
fn commit(
    store: &mut Store,
    opts: &PassOptions,
    fold: &Fold,
    decision: Decision,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<u64> {
    let (change, shift) = match decision {
        Decision::Retry(why) => {
            store_fold::count_fold_failure(store, &fold.key, &fold.ids, &why, &opts.owner)?;
            fold.skip(skip);
            report.failed += 1;
            return Ok(1);
        }
        Decision::Update { content, written } => {
            let running = fold.run.as_ref().expect("an update has a running summary");
            (Change::Update { content, written, key_terms: fold.key_terms(Some(&running.key_terms)) }, false)
        }
        Decision::Start { content, written, reason, score } => {
            let key_terms = fold.key_terms(None);
            (Change::Start { content, written, reason: reason.name(), score, key_terms }, reason.is_shift())
        }
    };
    let c = FoldCommit {
        key: &fold.key,
        items: &fold.ids,
        expected: fold.run.as_ref().map(|r| (r.id, r.version)),
        owner: &opts.owner,
        change,
    };
    if store_fold::commit_fold(store, &c)?.is_none() {
        queue::release(store, fold.table(), &fold.ids, &opts.owner)?;
        return Ok(0);
    }
    let (Change::Update { written, .. } | Change::Start { written, .. }) = &c.change;
    if written.origin == "extractive" {
        report.extractive += 1;
    }
    if shift {
        report.topic_shifts += 1;
    }
    match fold.key {
        FoldKey::Session(_) => report.l3_folds += 1,
        FoldKey::Project(_) => report.l4_folds += 1,
    }
    Ok(1)
}

/// Most key terms kept per summary.
const MAX_KEY_TERMS: usize = 48;

/// A summary's key terms (`; `-separated) with those of new texts added.
fn merge_terms<'a>(existing: &str, texts: impl IntoIterator<Item = &'a str>) -> String {
    let new: Vec<String> = grounding::key_terms(texts, MAX_KEY_TERMS);
    join_terms(existing, new.iter().map(String::as_str))
}

/// Key terms (`; `-separated) with new ones added after them, without
/// duplicates (case aside), at most [`MAX_KEY_TERMS`].
fn join_terms<'a>(existing: &'a str, new: impl IntoIterator<Item = &'a str>) -> String {
    let old = existing.split("; ");
    let mut out: Vec<String> = Vec::new();
    for t in old.chain(new).filter(|t| !t.is_empty()).map(str::to_string) {
        if out.len() < MAX_KEY_TERMS && !out.iter().any(|o| o.eq_ignore_ascii_case(&t)) {
            out.push(t);
        }
    }
    out.join("; ")
}
