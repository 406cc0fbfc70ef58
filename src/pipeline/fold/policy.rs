//! Fold policy, in one place: when a session's fold may run (every turn,
//! or the threshold gate), how many turns it takes (batch size, cut to the
//! prompt budget), and when a new summary starts without asking the model
//! (first summary, after a pause, size rollover). Plain functions of the
//! settings and the state read; no SQL.

use anyhow::Result;

use super::super::segment::StartReason;
use super::super::PassOptions;
use crate::store::queue::{FoldTurn, Gate};
use crate::store::summaries::Running;

/// Turns folded in one call at most (a backlog, or the threshold policy);
/// the prompt budget usually cuts a batch sooner.
pub const MAX_BATCH: usize = 64;

/// Turns a session's fold takes at most. A backlog folds in batches (a
/// live session's newest turn is a head of one), cut where the segmenter
/// sees a new topic. Only a model asked for a verdict on every turn folds
/// one at a time.
pub fn batch_size(opts: &PassOptions) -> usize {
    if opts.threshold() || !opts.segment.model_votes {
        MAX_BATCH
    } else {
        1
    }
}

/// Whether a session's fold waits: never with `fold = "every_turn"`; with
/// `fold = "threshold"` until the session has more than `threshold_tokens`
/// and at least `min_episodes` new L2s, or is idle. `gate` reads the
/// session's state (only asked for under the threshold policy).
pub fn waits(opts: &PassOptions, gate: impl FnOnce() -> Result<Gate>) -> Result<bool> {
    if !opts.threshold() {
        return Ok(false);
    }
    let g = gate()?;
    let s = &opts.summaries;
    Ok(!(g.idle || (g.session_tokens > s.threshold_tokens as i64 && g.new_l2s >= s.min_episodes as i64)))
}

/// The characters of new material a merge prompt takes: the half of
/// `max_input_chars` the running summary does not.
pub fn new_material_budget(max_input_chars: usize) -> usize {
    max_input_chars - max_input_chars / 2
}

/// Cut a head to the turns whose L2s fit the new-material half of a merge
/// prompt (the other half is the running summary's), so no turn of a batch
/// is cut out of the prompt; the first turn always stays.
pub fn fit_prompt(head: &mut Vec<FoldTurn>, max_input_chars: usize) {
    let budget = new_material_budget(max_input_chars);
    let mut used = 0;
    let keep = head
        .iter()
        .position(|t| {
            used += t.l2.trim().chars().count() + 3; // "- " and the newline
            used > budget
        })
        .unwrap_or(head.len())
        .max(1);
    head.truncate(keep);
}

/// Why a fold must start a new summary without asking the model, if it
/// must: there is no running summary (the first, or the first after the
/// session was closed for a pause), or it has reached `max_summary_tokens`.
pub fn forced_start(opts: &PassOptions, run: Option<&Running>, reopened: bool) -> Option<(StartReason, Option<f32>)> {
    match run {
        None if reopened => Some((StartReason::Pause, None)),
        None => Some((StartReason::First, None)),
        Some(r) if r.tokens >= opts.summaries.max_summary_tokens as i64 => Some((StartReason::Rollover, None)),
        Some(_) => None,
    }
}

/// Whether a fold calls the model: all but a new summary copied from a
/// single item.
pub fn needs_model(items: usize, start: Option<(StartReason, Option<f32>)>) -> bool {
    !(items == 1 && start.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Fold, Summaries};

    fn opts(fold: Fold, votes: bool) -> PassOptions {
        let mut o = PassOptions::new("me".into(), Summaries { fold, ..Summaries::default() });
        o.segment.model_votes = votes;
        o
    }

    fn turns(lens: &[usize]) -> Vec<FoldTurn> {
        let turn = |(i, n): (usize, &usize)| FoldTurn {
            id: i as i64 + 1,
            l2: "x".repeat(*n),
            l2_model: "m".into(),
            l2_by_model: true,
            fold_attempts: 0,
        };
        lens.iter().enumerate().map(turn).collect()
    }

    fn run(tokens: i64) -> Running {
        Running {
            id: 7,
            content: "x".into(),
            tokens,
            version: 3,
            key_terms: String::new(),
            model: "m".into(),
            prompt_version: 2,
            origin: "model".into(),
        }
    }

    #[test]
    fn a_backlog_head_keeps_the_turns_that_fit_the_new_material_half_of_the_prompt() {
        // 3000 characters: 1500 for new material, each L2 costs its length + 3.
        let mut head = turns(&[497, 497, 497, 497]);
        fit_prompt(&mut head, 3000);
        assert_eq!(head.len(), 3);
        let mut one_long = turns(&[5000, 10]);
        fit_prompt(&mut one_long, 3000);
        assert_eq!(one_long.len(), 1, "the first turn always stays");
        let mut small = turns(&[100; 64]);
        fit_prompt(&mut small, 3000);
        assert_eq!(small.len(), 14);
    }

    #[test]
    fn only_a_model_voting_on_every_turn_folds_one_turn_at_a_time() {
        assert_eq!(batch_size(&opts(Fold::EveryTurn, true)), 1);
        assert_eq!(batch_size(&opts(Fold::EveryTurn, false)), MAX_BATCH);
        assert_eq!(batch_size(&opts(Fold::Threshold, true)), MAX_BATCH);
    }

    #[test]
    fn every_turn_never_waits_and_never_reads_the_gate() {
        let o = opts(Fold::EveryTurn, false);
        assert!(!waits(&o, || panic!("the gate is read only under the threshold policy")).unwrap());
    }

    #[test]
    fn the_threshold_waits_for_tokens_and_episodes_or_a_pause() {
        let o = opts(Fold::Threshold, false);
        let (tokens, episodes) = (o.summaries.threshold_tokens as i64, o.summaries.min_episodes as i64);
        let gate = |new_l2s, session_tokens, idle| move || Ok(Gate { new_l2s, session_tokens, idle });
        assert!(waits(&o, gate(episodes, tokens, false)).unwrap(), "at the threshold, not over it");
        assert!(waits(&o, gate(episodes - 1, tokens + 1, false)).unwrap(), "too few new L2s");
        assert!(!waits(&o, gate(episodes, tokens + 1, false)).unwrap());
        assert!(!waits(&o, gate(1, 0, true)).unwrap(), "an idle session folds what it has");
    }

    #[test]
    fn a_new_summary_starts_first_after_a_pause_or_on_rollover() {
        let o = opts(Fold::EveryTurn, false);
        let max = o.summaries.max_summary_tokens as i64;
        assert_eq!(forced_start(&o, None, false), Some((StartReason::First, None)));
        assert_eq!(forced_start(&o, None, true), Some((StartReason::Pause, None)));
        assert_eq!(forced_start(&o, Some(&run(max)), false), Some((StartReason::Rollover, None)));
        assert_eq!(forced_start(&o, Some(&run(max - 1)), false), None);
        assert!(!needs_model(1, Some((StartReason::First, None))), "one item is copied");
        assert!(needs_model(2, Some((StartReason::First, None))));
        assert!(needs_model(1, None), "a merge always asks");
    }
}
