//! The project scope (L4): the next completed L3 waiting for its project's
//! fold, claimed. Deciding and committing is the engine's (`fold`).

use anyhow::Result;

use super::super::queue::{Skip, Table};
use super::super::{ModelSlot, PassOptions, Report, Step};
use super::{claim, fold_claimed, policy, Fold, NewTerms};
use crate::store::summaries::{self, FoldKey};
use crate::store::Store;

/// One L4 step: the fold of one completed L3 into its project's running
/// summary.
pub fn l4_step(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    let Some(item) = summaries::next_l4_item(store, session, &opts.owner, &skip.l3_rows)? else {
        return Ok(Step::Idle);
    };
    if !claim(store, opts, Table::Summaries, &[item.id])? {
        skip.l3_rows.insert(item.id);
        return Ok(Step::Done(0));
    }
    let key = FoldKey::Project(item.project);
    let run = summaries::running(store, &key)?;
    let fold = Fold {
        key,
        ids: vec![item.id],
        items: vec![item.content],
        copy_model: item.model,
        attempts: item.attempts,
        start: policy::forced_start(opts, run.as_ref(), false),
        run,
        terms: NewTerms::Given(item.key_terms),
    };
    fold_claimed(store, slot, opts, vec![fold], skip, report)
}
