//! How a pass ended: its report, why it stopped, and the exit status.

use anyhow::Result;

use crate::exit::{fail, Exit};
use crate::llm::ModelError;
use crate::pipeline::{Report, Stop};

pub struct PassOutcome {
    pub report: Report,
    pub stop: Option<Stop>,
    pub recovered: u64,
    pub model_loads: u32,
}

impl PassOutcome {
    pub fn outcome_name(&self) -> &'static str {
        match &self.stop {
            Some(Stop::Model(ModelError::Unavailable(_))) => "unavailable",
            Some(Stop::Model(_)) => "refused",
            Some(Stop::Interrupted) => "interrupted",
            None if self.report.failed > 0 => "failed",
            None => "ok",
        }
    }

    /// The exit status, or the error to print.
    pub fn exit(&self) -> Result<Exit> {
        match &self.stop {
            Some(Stop::Model(e)) => Err(anyhow::Error::new(e.clone())),
            Some(Stop::Interrupted) => Ok(Exit::Interrupted),
            None if self.report.failed > 0 => Err(fail(Exit::Failed, failed_message(&self.report))),
            None => Ok(Exit::Ok),
        }
    }
}

/// What became of the items that got a bad reply: retried by the next
/// pass, or failed for good (listed by `ragger failed`).
pub fn failed_message(r: &Report) -> String {
    let again = r.failed.saturating_sub(r.gave_up);
    let mut parts = Vec::new();
    if again > 0 {
        parts.push(format!("{again} will be retried next run"));
    }
    if r.gave_up > 0 {
        parts.push(format!(
            "{} used their last attempt and will not be retried (see `ragger failed`; `ragger retry --all` tries them again)",
            r.gave_up
        ));
    }
    format!("{} item(s) got a bad reply from the memory model: {}", r.failed, parts.join("; "))
}

/// The report in one line (`summarize -v`).
pub fn one_line(r: &Report) -> String {
    format!(
        "{} L2, {} L3 folds ({} topic shifts), {} L4 folds, {} extractive, {} failed, {} remaining, {} embedded in {:.1} s",
        r.l2, r.l3_folds, r.topic_shifts, r.l4_folds, r.extractive, r.failed, r.remaining, r.embedded, r.seconds
    )
}

impl Report {
    /// Add a later pass's counts (`remaining` is the later one's).
    pub fn add(&mut self, b: &Report) {
        self.l2 += b.l2;
        self.l3_folds += b.l3_folds;
        self.topic_shifts += b.topic_shifts;
        self.l4_folds += b.l4_folds;
        self.failed += b.failed;
        self.gave_up += b.gave_up;
        self.extractive += b.extractive;
        self.model_calls += b.model_calls;
        self.remaining = b.remaining;
        self.seconds += b.seconds;
        self.embedded += b.embedded;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_report_sums_both_passes_and_keeps_the_later_remaining() {
        let mut a =
            Report { l2: 2, l3_folds: 1, extractive: 1, gave_up: 1, remaining: 9, model_calls: 4, ..Report::default() };
        let b = Report { l2: 1, l4_folds: 1, extractive: 2, remaining: 0, model_calls: 3, ..Report::default() };
        a.add(&b);
        assert_eq!(a.model_calls, 7);
        assert_eq!((a.l2, a.l3_folds, a.l4_folds, a.gave_up), (3, 1, 1, 1));
        assert_eq!(a.extractive, 3, "extractive rows of both passes are counted");
        assert_eq!(a.remaining, 0);
    }
}
