//! The project scope (L4): the next completed L3 waiting for its project's
//! fold, claimed. Deciding and committing is the engine's (`fold`).

use anyhow::Result;

use super::super::queue::{Skip, Table};
use super::super::{ModelSlot, PassOptions, Report, Step};
use super::{claim, fold_claimed, policy, Fold, NewTerms};
use crate::store::summaries::{self, FoldKey};
use crate::store::Store;

/// One L4 step: the fold of a project's completed L3s into its running
/// summary, as many as the batch size allows (and, for a prose fold, the
/// new-material half of the prompt).
pub fn l4_step(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    // A project digest reads its segments' openings, not the segments
    // (`decide::digest_project`), and chooses again from every segment at
    // each fold: its batch needs no cut to the prompt, and folding the
    // completed L3s one prompt-full at a time only wrote project summaries
    // that the next fold replaced (17 folds for 38 L3s in a backfill of a
    // LoCoMo conversation, a model call each).
    let budget =
        if opts.summaries.l3_digest { usize::MAX } else { policy::new_material_budget(opts.summaries.max_input_chars) };
    let items = summaries::next_l4_items(store, session, &opts.owner, &skip.l3_rows, policy::batch_size(opts), budget)?;
    let Some(first) = items.first() else {
        return Ok(Step::Idle);
    };
    let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
    if !claim(store, opts, Table::Summaries, &ids)? {
        skip.l3_rows.extend(&ids);
        return Ok(Step::Done(0));
    }
    let key = FoldKey::Project(first.project.clone());
    let run = summaries::running(store, &key)?;
    // A project digest is chosen again from every segment it covers.
    let (earlier, mut recency): (Vec<_>, Vec<i64>) = match &run {
        Some(r) if opts.summaries.l3_digest => summaries::covered_segments(store, r.id)?.into_iter().unzip(),
        _ => (Vec::new(), Vec::new()),
    };
    recency.extend(items.iter().map(|i| i.worked_at));
    let fold = Fold {
        key,
        copy_model: first.model.clone(),
        attempts: first.attempts,
        start: policy::forced_start(opts, run.as_ref(), false),
        run,
        terms: NewTerms::Given(items.iter().map(|i| i.key_terms.clone()).collect()),
        by_model: items.iter().map(|i| i.by_model).collect(),
        items: items.into_iter().map(|i| i.content).collect(),
        ids,
        earlier,
        recency,
    };
    fold_claimed(store, slot, opts, vec![fold], skip, report)
}
