//! What a pass reports as it goes: the work still planned (the progress
//! bar's total) and one event per item done (`-v` without a terminal).

use std::time::Instant;

use anyhow::Result;

use super::{Level, Report};
use crate::store::{queue, Store};

/// Work a pass still plans, in the units its progress counts: per pending
/// turn its L2, its fold and its L2's vector; per turn waiting to be
/// folded one fold (folds may take several turns at once, so this is an
/// upper bound that shrinks as they happen); per L3 waiting for its
/// project one L4 fold; and, with `vectors`, every row still waiting for
/// a vector. Recomputed after each item, so the total follows folds that
/// complete a segment (new L4 work) and never falls below what is done.
pub fn planned(store: &Store, session: Option<i64>, vectors: bool) -> Result<u64> {
    let c = queue::counts(store, session)?;
    let n = c.pending_l2 * (2 + vectors as i64) + c.foldable + c.pending_l4;
    let embed = if vectors { crate::store::embeddings::unembedded(store, None)? } else { 0 };
    Ok((n + embed) as u64)
}

/// What an item was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// An L2: the turn's id.
    Turn(i64),
    /// An L3 fold: the session's row id.
    Session(i64),
    /// An L4 fold: the id of the L3 row folded.
    Summary(i64),
}

impl Subject {
    /// What the item was about, for `-v` lines: `session S, turn N`,
    /// `session S`, `project P, L3 N` (names with control characters made
    /// visible, `?` when the row is gone).
    pub fn label(self, store: &crate::store::Store) -> String {
        use crate::display::line;
        use crate::store::inspect::{name_of, NameOf};
        let name = |of| name_of(store, of).map(|n| line(&n)).unwrap_or_else(|| "?".to_string());
        match self {
            Subject::Turn(id) => format!("session {}, turn {id}", name(NameOf::TurnSession(id))),
            Subject::Session(id) => format!("session {}", name(NameOf::Session(id))),
            Subject::Summary(id) => format!("project {}, L3 {id}", name(NameOf::SummaryProject(id))),
        }
    }
}

/// One item done, for `-v` without a terminal.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemEvent {
    pub level: Level,
    pub subject: Subject,
    /// ok | topic shift | extractive | bad reply, retried later |
    /// failed (last attempt) | skipped (changed meanwhile)
    pub outcome: &'static str,
    pub ms: u64,
}

/// The counters an item can move, to tell what it did.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Tally([u64; 7]);

impl Report {
    pub fn tally(&self) -> Tally {
        Tally([self.l2, self.l3_folds, self.l4_folds, self.failed, self.gave_up, self.extractive, self.topic_shifts])
    }

    /// Record the item done since `before` was taken.
    pub fn note(&mut self, level: Level, subject: Subject, before: Tally, started: Instant) {
        let [l2, l3, l4, failed, gave_up, extractive, shifts] = before.0;
        let outcome = if self.gave_up > gave_up {
            "failed (last attempt)"
        } else if self.failed > failed {
            "bad reply, retried later"
        } else if self.extractive > extractive {
            "extractive"
        } else if self.topic_shifts > shifts {
            "topic shift"
        } else if self.l2 > l2 || self.l3_folds > l3 || self.l4_folds > l4 {
            "ok"
        } else {
            "skipped (changed meanwhile)"
        };
        let ms = started.elapsed().as_millis() as u64;
        self.events.push(ItemEvent { level, subject, outcome, ms });
    }
}
