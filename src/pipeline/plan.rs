//! What a pass or a housekeeping tick would do, read from the same queue
//! the pass drains (`--dry-run`); reads only.

use anyhow::Result;
use serde::Serialize;

use super::fold::policy;
use super::idle::{idle_sessions, Idle};
use super::queue::remaining;
use super::PassOptions;
use crate::store::{queue as q, status, Store};

#[derive(Serialize)]
pub struct Plan {
    pub l2: Vec<PlanTurn>,
    pub l3: Vec<PlanSession>,
    pub l4: Vec<PlanL3>,
    pub estimated_prompt_tokens: i64,
}

#[derive(Serialize)]
pub struct PlanTurn {
    pub turn: i64,
    pub session: String,
    pub prompt_tokens: i64,
}

#[derive(Serialize)]
pub struct PlanSession {
    pub session: String,
    /// L2s ready to fold now plus turns that get their L2 in this pass.
    pub turns_to_fold: i64,
}

#[derive(Serialize)]
pub struct PlanL3 {
    pub summary: i64,
    pub project: String,
}

/// Fixed overhead of the L2 prompt's instructions, in tokens.
const L2_PROMPT_OVERHEAD: i64 = 80;

/// The work a pass with `opts` would take (session `sid`, or all; at most
/// `opts.limit` L2s), with an upper bound of its prompt tokens. Under the
/// threshold policy a session the gate holds back is not listed, counting
/// the turns that get their L2 in this pass as new L2s.
pub fn pass_plan(store: &Store, opts: &PassOptions, sid: Option<i64>) -> Result<Plan> {
    let max_chars = opts.summaries.max_input_chars as i64;
    let l2: Vec<PlanTurn> = status::pending_turns(store, sid, opts.limit)?
        .into_iter()
        .map(|t| PlanTurn {
            turn: t.turn,
            session: t.session,
            prompt_tokens: t.chars.min(max_chars) / 4 + L2_PROMPT_OVERHEAD,
        })
        .collect();
    let mut l3 = Vec::new();
    for s in status::unfolded_sessions(store, sid)? {
        // A dry run counts the L2s this pass would write as new too.
        let gate = || Ok(q::Gate { new_l2s: s.turns, ..q::gate(store, s.id, opts.pause_ms)? });
        if policy::waits(opts, gate)? {
            continue;
        }
        l3.push(PlanSession { session: s.session, turns_to_fold: s.turns });
    }
    let l4: Vec<PlanL3> =
        status::pending_l4(store, sid)?.into_iter().map(|(summary, project)| PlanL3 { summary, project }).collect();
    // Each fold sends the running summary (bounded) and the new material.
    let fold_tokens: i64 = l3.iter().map(|s| s.turns_to_fold).sum::<i64>() * (max_chars / 4 / 2 + 60)
        + l4.len() as i64 * (max_chars / 4 + 60);
    Ok(Plan { estimated_prompt_tokens: l2.iter().map(|t| t.prompt_tokens).sum::<i64>() + fold_tokens, l2, l3, l4 })
}

/// (Fields in the order `--json` has always printed them.)
#[derive(Serialize)]
pub struct TickPlan {
    pub idle_sessions: Vec<Idle>,
    pub pending_items: u64,
    /// Claims a tick would clear.
    pub would_recover: i64,
}

/// What a housekeeping tick would do.
pub fn tick_plan(store: &Store, pause_ms: i64) -> Result<TickPlan> {
    Ok(TickPlan {
        would_recover: q::leased(store)?,
        pending_items: remaining(store, None)?,
        idle_sessions: idle_sessions(store, pause_ms)?,
    })
}
