//! The session scope (L3): which sessions have a fold to do now, their
//! heads claimed, and the segmenter's cut of each head where a new topic
//! starts. Deciding and committing is the engine's (`fold`).

use anyhow::Result;

use super::super::queue::{self, FoldTurn, Skip, Table};
use super::super::segment::{self, StartReason, TurnView};
use super::super::{vectors, ModelSlot, PassOptions, Report, Step};
use super::{claim, fold_claimed, policy, Fold, NewTerms};
use crate::store::summaries::{self, FoldKey, Running};
use crate::store::Store;

/// One L3 step: the next fold of up to `[memory_model] parallel` sessions.
/// A session's folds are strictly ordered, but different sessions are
/// independent: their model calls run concurrently and each result is
/// committed on its own.
pub fn l3_step(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    let heads = ready_sessions(store, opts, session, skip)?;
    if heads.is_empty() {
        return Ok(Step::Idle);
    }
    // Claim each head, read its running summary, and let the segmenter
    // cut the head where a new topic starts.
    let mut folds = Vec::new();
    for (sid, turns) in heads {
        let ids: Vec<i64> = turns.iter().map(|t| t.id).collect();
        if !claim(store, opts, Table::Turns, &ids)? {
            skip.sessions.insert(sid);
            continue;
        }
        let run = summaries::running(store, &FoldKey::Session(sid))?;
        let earlier = match &run {
            Some(r) => summaries::covered_notes(store, r.id)?,
            None => Vec::new(),
        };
        let mut head = Head { sid, turns, ids, run, views: Vec::new(), start: None, earlier };
        segment_head(store, slot, opts, &mut head)?;
        folds.push(head.into_fold());
    }
    if folds.is_empty() {
        return Ok(Step::Done(0));
    }
    if let Some(why) = slot.vectors.unavailable.take() {
        // Once per pass: the embedder stays off for the rest of it.
        eprintln!("ragger: warning: topic segmentation without turn vectors (embedder unavailable: {why})");
        slot.vectors = vectors::TurnVectors::none();
    }
    fold_claimed(store, slot, opts, folds, skip, report)
}

/// A session's next turns, claimed, while the segmenter looks at them.
struct Head {
    sid: i64,
    turns: Vec<FoldTurn>,
    ids: Vec<i64>,
    run: Option<Running>,
    /// The head's turns as the segmenter saw them (texts for key terms).
    views: Vec<TurnView>,
    /// Set when the head starts a new segment.
    start: Option<(StartReason, Option<f32>)>,
    /// The turns under the running summary.
    earlier: Vec<summaries::Note>,
}

impl Head {
    fn into_fold(self) -> Fold {
        let first = &self.turns[0];
        Fold {
            key: FoldKey::Session(self.sid),
            copy_model: first.l2_model.clone(),
            attempts: first.fold_attempts,
            by_model: self.turns.iter().map(|t| t.l2_by_model).collect(),
            items: self.turns.into_iter().map(|t| t.l2).collect(),
            ids: self.ids,
            run: self.run,
            start: self.start,
            terms: NewTerms::Texts(self.views.into_iter().map(|v| v.text).collect()),
            earlier: self.earlier,
            recency: Vec::new(),
        }
    }
}

/// The segmenter's part of a fold: decide whether the head's first turn
/// continues the running segment, and cut the head before the next turn
/// that starts a new one (threshold mode and backlogs fold several turns
/// at once). Turns cut off are released for the next step.
fn segment_head(store: &mut Store, slot: &mut ModelSlot<'_>, opts: &PassOptions, head: &mut Head) -> Result<()> {
    let reopened = head.run.is_none() && vectors::has_segment(store, head.sid)?;
    head.start = policy::forced_start(opts, head.run.as_ref(), reopened);
    let seg = &opts.segment;
    head.views = vectors::views(store, &head.ids)?;
    if !seg.uses_signals() || !slot.vectors.enabled() {
        return Ok(());
    }
    // The gaps are judged on the session's turns around the head, with the
    // later ones where they are captured (see segment::score).
    let first = head.ids[0];
    let last = *head.ids.last().expect("non-empty head");
    let reach = segment::REACH;
    let mut before = vectors::views(store, &vectors::before(store, head.sid, first, reach)?)?;
    let mut after = vectors::views(store, &vectors::after(store, head.sid, last, reach)?)?;
    slot.vectors.fill(store, &mut before)?;
    slot.vectors.fill(store, &mut head.views)?;
    slot.vectors.fill(store, &mut after)?;
    let offset = before.len();
    let mut around = before;
    around.extend(head.views.iter().cloned());
    around.extend(after);
    let Some(judged) = segment::judge(&around, seg) else { return Ok(()) };
    // The turns of the running segment before the head: a segment that
    // starts with the head has none.
    let mut running = match (&head.start, &head.run) {
        (None, Some(run)) => vectors::segment_turns(store, run.id)?,
        _ => 0,
    };
    let mut cut = head.views.len();
    for j in 0..head.views.len() {
        let Some(score) = judged[offset + j] else {
            running += 1;
            continue;
        };
        let verdict = if j == 0 && head.start.is_some() { None } else { Some(score.verdict(running, seg.min_turns)) };
        let boundary = verdict == Some(segment::Verdict::NewSegment);
        if boundary && j > 0 {
            // The turn starts the next fold, which judges and logs it.
            cut = j;
            break;
        }
        if opts.verbose {
            eprintln!(
                "ragger: segmenter: session {} turn {}: topic signal {:.3} (threshold {:.3}: floor {:.3}, {} x the strongest around {:.3}; overwhelming at {:.3}, counted {:.3}) = {} x depth {:.3} + {} x long depth {:.3} + 2 x (1 - block cosine {:.3}) + lexical weight x novelty {:.3} + {} x (1 - adjacent turns' cosine {:.3}) + {} x the user's new words {:.3} + cue {:.2} + own question {:.2} + pause {:.3}; substance {}, answers the assistant {}, opens a conversation (the floor alone) {}, running segment {} turn(s) (min {}) -> {}",
                head.sid,
                head.views[j].id,
                score.signal,
                score.threshold,
                seg.floor,
                segment::RELATIVE,
                score.strongest,
                score.strong,
                score.overwhelming(),
                segment::DEPTH_WEIGHT,
                score.depth,
                segment::LONG_DEPTH_WEIGHT,
                score.long_depth,
                score.similarity,
                score.lexical,
                segment::ADJACENT_WEIGHT,
                score.adjacent,
                segment::NOVELTY_WEIGHT,
                score.novelty,
                score.cue,
                score.question,
                score.pause,
                if score.substance { "yes" } else { "no" },
                if score.answers { "yes" } else { "no" },
                if score.opens_conversation { "yes" } else { "no" },
                running,
                seg.min_turns,
                verdict.map_or("starts a segment (forced)", |v| v.why())
            );
        }
        if boundary && head.start.is_none() {
            head.start = Some((StartReason::TopicShift, Some(score.signal)));
            running = 0;
        }
        running += 1;
    }
    if cut < head.ids.len() {
        let released = head.ids.split_off(cut);
        head.turns.truncate(cut);
        head.views.truncate(cut);
        queue::release(store, Table::Turns, &released, &opts.owner)?;
    }
    Ok(())
}

/// Up to `parallel` sessions with a fold to do now, each with its head
/// (the L2s the fold takes). Sessions with nothing to do now are skipped
/// for the rest of the pass.
fn ready_sessions(
    store: &Store,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
) -> Result<Vec<(i64, Vec<FoldTurn>)>> {
    let want = opts.parallel.max(1);
    let mut ready: Vec<(i64, Vec<FoldTurn>)> = Vec::new();
    'find: loop {
        // Sessions already taken are skipped while looking for more.
        let candidates = queue::sessions_to_fold(store, session, &mut *skip, 8)?;
        if candidates.is_empty() {
            break;
        }
        for sid in candidates {
            let mut head = queue::fold_head(store, sid, policy::batch_size(opts))?;
            policy::fit_prompt(&mut head, opts.summaries.max_input_chars);
            let gated = queue::gated(store, sid, opts)?;
            skip.sessions.insert(sid);
            if head.is_empty() || gated {
                continue;
            }
            ready.push((sid, head));
            if ready.len() == want {
                break 'find;
            }
        }
    }
    // A session taken now may have more to fold after this step.
    for (sid, _) in &ready {
        skip.sessions.remove(sid);
    }
    Ok(ready)
}
