//! Whether asking the memory model still pays off in this pass.
//!
//! Every model reply must pass the grounding check; a reply that fails it
//! leaves its row with the extractive text it would have had without the
//! model. A model whose replies rarely pass therefore costs calls and
//! gives nothing: SmolLM2-135M's first L2 reply passed for about one LoCoMo
//! turn in ten and its second for 3 of 36, and its project folds almost
//! never (BENCHMARKS.md, "Memory quality"), where Qwen2.5-Coder-0.5B's
//! first L2 passed for about two turns in three. So a pass counts, per
//! level, the first replies and the second replies ("retries") it asked and
//! how many passed:
//! - once [`RETRY_PROBE`] retries have been asked and fewer than one in
//!   [`PAYOFF`] passed, a rejected reply is not asked again;
//! - once [`FIRST_PROBE`] first replies have been asked and fewer than one
//!   in [`PAYOFF`] passed, only one item in [`PAYOFF`] asks the model; the
//!   others are written extractively at once. The rate keeps being measured
//!   on those, and every item asks again once it climbs back.
//!
//! A new pass probes afresh, so live use (a few items a pass) always asks.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Retries asked before their rate is judged.
pub const RETRY_PROBE: u32 = 8;
/// First replies asked before their rate is judged.
pub const FIRST_PROBE: u32 = 16;
/// Asking is worth it while at least one reply in this many passed; once it
/// is not, one item in this many still asks.
pub const PAYOFF: u32 = 8;

/// Per level, for the whole pass (shared by its threads).
#[derive(Debug, Default)]
pub struct Payoffs {
    pub l2: Asking,
    pub l3: Asking,
    pub l4: Asking,
    /// A digest's clauses rewritten in the third person.
    pub rewrite: Asking,
}

/// First replies and retries of one level.
#[derive(Debug, Default)]
pub struct Asking {
    first: Payoff,
    retry: Payoff,
}

/// Replies of one kind asked and passed in this pass.
#[derive(Debug, Default)]
struct Payoff {
    asked: AtomicU32,
    passed: AtomicU32,
    /// Items that did not ask since asking stopped paying off.
    rested: AtomicU32,
    stopped: AtomicBool,
}

impl Payoff {
    #[cfg(test)]
    fn worth_it(&self, probe: u32) -> bool {
        self.worth_it_at(probe, PAYOFF)
    }

    /// Whether asking is worth it while one reply in `one_in` passes.
    fn worth_it_at(&self, probe: u32, one_in: u32) -> bool {
        let asked = self.asked.load(Ordering::Relaxed);
        asked < probe || self.passed.load(Ordering::Relaxed) * one_in >= asked
    }

    fn record(&self, passed: bool) {
        self.asked.fetch_add(1, Ordering::Relaxed);
        if passed {
            self.passed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// True the first time asking is found not worth it (to say so once).
    fn first_stop(&self, probe: u32, one_in: u32) -> bool {
        !self.worth_it_at(probe, one_in) && !self.stopped.swap(true, Ordering::Relaxed)
    }

    fn counts(&self) -> (u32, u32) {
        (self.asked.load(Ordering::Relaxed), self.passed.load(Ordering::Relaxed))
    }

    /// Whether asking still pays off; the first time it does not, says so
    /// with `-v` in the words `say` makes of (asked, passed).
    fn pays(&self, probe: u32, one_in: u32, verbose: bool, say: impl FnOnce(u32, u32) -> String) -> bool {
        if self.worth_it_at(probe, one_in) {
            return true;
        }
        if self.first_stop(probe, one_in) && verbose {
            let (asked, passed) = self.counts();
            eprintln!("ragger: {}", say(asked, passed));
        }
        false
    }
}

impl Asking {
    /// Whether this item's first reply should be asked of the model: while
    /// first replies pay off, and for one item in [`PAYOFF`] after. `what`
    /// names the level in the `-v` line said when asking stops paying off.
    pub fn ask_first(&self, what: &str, verbose: bool) -> bool {
        self.ask_first_while(what, verbose, PAYOFF)
    }

    /// [`Asking::ask_first`] for replies worth less: asking pays off while
    /// one first reply in `one_in` passes.
    pub fn ask_first_while(&self, what: &str, verbose: bool, one_in: u32) -> bool {
        self.first.pays(FIRST_PROBE, one_in, verbose, |asked, passed| {
            format!(
                "{what}: {passed} of {asked} first replies passed the check; \
                 one in {PAYOFF} asks the model for the rest of this pass"
            )
        }) || self.first.rested.fetch_add(1, Ordering::Relaxed) % PAYOFF == PAYOFF - 1
    }

    /// Whether a rejected reply should be asked again.
    pub fn ask_again(&self, what: &str, verbose: bool) -> bool {
        self.retry.pays(RETRY_PROBE, PAYOFF, verbose, |asked, passed| {
            format!("{what}: {passed} of {asked} replies asked again passed the check; no more retries this pass")
        })
    }

    /// Counts a reply (a retry or a first reply) and whether it passed.
    pub fn record(&self, retry: bool, passed: bool) {
        if retry { &self.retry } else { &self.first }.record(passed);
    }

    /// ((first replies asked, passed), (retries asked, passed)).
    pub fn counts(&self) -> ((u32, u32), (u32, u32)) {
        (self.first.counts(), self.retry.counts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_pays_off_while_one_reply_in_eight_passes() {
        let p = Payoff::default();
        for i in 0..40 {
            p.record(i % PAYOFF == 0);
            assert!(p.worth_it(RETRY_PROBE), "one in {PAYOFF} passed after {} replies", i + 1);
        }
        let p = Payoff::default();
        for _ in 0..RETRY_PROBE - 1 {
            p.record(false);
        }
        assert!(p.worth_it(RETRY_PROBE), "still probing");
        p.record(false);
        assert!(!p.worth_it(RETRY_PROBE));
        assert!(p.first_stop(RETRY_PROBE, PAYOFF) && !p.first_stop(RETRY_PROBE, PAYOFF), "said once");
    }

    #[test]
    fn after_first_replies_stop_paying_off_one_item_in_eight_asks() {
        let a = Asking::default();
        for _ in 0..FIRST_PROBE {
            assert!(a.ask_first("L2", false), "still probing");
            a.record(false, false);
        }
        let asks: Vec<bool> = (0..3 * PAYOFF).map(|_| a.ask_first("L2", false)).collect();
        assert_eq!(asks.iter().filter(|&&x| x).count(), 3);
        assert!(asks[PAYOFF as usize - 1] && !asks[0], "{asks:?}");
    }

    #[test]
    fn every_item_asks_again_once_first_replies_pass_again() {
        let a = Asking::default();
        for _ in 0..FIRST_PROBE {
            a.record(false, false);
        }
        // The items turn easy (another kind of turn, say): the sampled ones
        // pass until one in eight of all first replies has.
        let mut items = 0;
        while !a.first.worth_it(FIRST_PROBE) {
            if a.ask_first("L2", false) {
                a.record(false, true);
            }
            items += 1;
            assert!(items < 1000, "asking never resumed");
        }
        assert!((0..PAYOFF).all(|_| a.ask_first("L2", false)), "every item asks again");
    }
}
