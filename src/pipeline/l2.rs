//! L2: one sentence per turn. Independent turns may run concurrently
//! (`[memory_model] parallel`); each result is committed on its own.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use anyhow::Result;

use super::queue::{self, L2Item, Skip, Table};
use super::verdict::is_topic_shift;
use super::{grounding, prompts};
use super::{ModelSlot, PassOptions, Report, Step};
use crate::llm::{complete, MemoryModel, ModelError, Reply, Request};
use crate::store::{turns, Store};

pub fn step(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    session: Option<i64>,
    n: usize,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    let items = queue::pending_l2(store, &opts.owner, session, n, &skip.turns)?;
    if items.is_empty() {
        return Ok(Step::Idle);
    }
    // Load and preflight before claiming anything: a dead model touches no item.
    let model = match slot.get() {
        Ok(m) => m,
        Err(e) => return Ok(Step::Stop(e)),
    };
    let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
    let claimed = queue::claim(store, Table::Turns, &ids, &opts.owner)?;
    let items: Vec<L2Item> = items.into_iter().filter(|i| claimed.contains(&i.id)).collect();
    if items.is_empty() {
        return Ok(Step::Done(0));
    }
    let started = std::time::Instant::now();
    let results = super::concurrently(&items, |item| summarize_turn(model, item, opts));
    let model_id = model.model_id();
    let mut stop = None;
    let mut done = 0;
    for (item, result) in items.iter().zip(results) {
        let before = report.tally();
        let counted = !matches!(&result, Err(e) if !matches!(e, ModelError::BadReply(_)));
        match result {
            Ok((reply, origin)) => {
                if commit(store, item.id, &reply, origin, &opts.owner, &model_id)? {
                    report.l2 += 1;
                    if origin == "extractive" {
                        report.extractive += 1;
                    }
                }
                done += 1;
            }
            Err(ModelError::BadReply(why)) => {
                if count_attempt(store, item, &why, opts)? {
                    report.gave_up += 1;
                }
                skip.turns.insert(item.id);
                report.failed += 1;
                done += 1;
            }
            Err(e) => {
                queue::release(store, Table::Turns, &[item.id], &opts.owner)?;
                stop.get_or_insert(e);
            }
        }
        if counted {
            report.note(super::Level::L2, super::progress::Subject::Turn(item.id), before, started);
        }
    }
    Ok(match stop {
        Some(e) => Step::Stop(e),
        None => Step::Done(done),
    })
}

fn request(item: &L2Item, opts: &PassOptions, temperature: f32) -> Request {
    Request {
        messages: prompts::turn_summary(&item.user, &item.assistant, opts.summaries.max_input_chars),
        temperature,
        max_tokens: opts.summaries.max_tokens.min(200),
        stop: vec![],
    }
}

/// Replies of a kind asked before [`Payoff::worth_it`] judges them:
/// retries of a rejected reply, first replies.
const RETRY_PROBE: u32 = 8;
const FIRST_PROBE: u32 = 16;
/// Asking is worth it while at least one reply in this many passed; once
/// it is not, one turn in this many still asks the model, so the rate
/// keeps being measured and asking resumes if it climbs back.
const PAYOFF: u32 = 8;

/// How often, in this pass, the model's L2 replies passed the grounding
/// check: its first replies, and its second replies to a rejected turn.
/// A reply that fails leaves the turn with its extractive sentence, so a
/// model whose replies rarely pass costs calls and gives nothing.
/// SmolLM2-135M's second reply passed for 3 of 36 rejected turns of LoCoMo
/// and its first for about one turn in ten (BENCHMARKS.md, "Memory
/// quality"); Qwen2.5-Coder-0.5B's first passed for about two in three.
/// - Once [`RETRY_PROBE`] retries have been asked and fewer than one in
///   [`PAYOFF`] passed, a rejected reply is not asked again for the rest of
///   the pass.
/// - Once [`FIRST_PROBE`] first replies have been asked and fewer than one
///   in [`PAYOFF`] passed, only one turn in [`PAYOFF`] asks the model; the
///   others get their extractive sentence at once.
///
/// A new pass probes again, so live use (a few turns a pass) always asks.
#[derive(Debug, Default)]
pub struct Payoffs {
    first: Payoff,
    retry: Payoff,
}

/// Replies of one kind asked and passed in this pass.
#[derive(Debug, Default)]
struct Payoff {
    asked: AtomicU32,
    passed: AtomicU32,
    /// Turns that did not ask since asking stopped paying off.
    rested: AtomicU32,
    stopped: AtomicBool,
}

impl Payoff {
    fn worth_it(&self, probe: u32) -> bool {
        let asked = self.asked.load(Ordering::Relaxed);
        asked < probe || self.passed.load(Ordering::Relaxed) * PAYOFF >= asked
    }

    fn record(&self, passed: bool) {
        self.asked.fetch_add(1, Ordering::Relaxed);
        if passed {
            self.passed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// True the first time asking is found not worth it (to say so once).
    fn first_stop(&self, probe: u32) -> bool {
        !self.worth_it(probe) && !self.stopped.swap(true, Ordering::Relaxed)
    }

    fn counts(&self) -> (u32, u32) {
        (self.asked.load(Ordering::Relaxed), self.passed.load(Ordering::Relaxed))
    }
}

impl Payoffs {
    /// Whether this turn's first reply should be asked of the model: while
    /// first replies pay off, and for one turn in [`PAYOFF`] after.
    fn ask_first(&self, verbose: bool) -> bool {
        if self.first.worth_it(FIRST_PROBE) {
            return true;
        }
        if self.first.first_stop(FIRST_PROBE) && verbose {
            let (asked, passed) = self.first.counts();
            eprintln!(
                "ragger: L2: {passed} of {asked} first replies passed the check; \
                 one turn in {PAYOFF} asks the model for the rest of this pass"
            );
        }
        self.first.rested.fetch_add(1, Ordering::Relaxed) % PAYOFF == PAYOFF - 1
    }

    /// Whether a rejected reply should be asked again.
    fn ask_again(&self, verbose: bool) -> bool {
        if self.retry.worth_it(RETRY_PROBE) {
            return true;
        }
        if self.retry.first_stop(RETRY_PROBE) && verbose {
            let (asked, passed) = self.retry.counts();
            eprintln!(
                "ragger: L2: {passed} of {asked} replies asked again passed the check; no more retries this pass"
            );
        }
        false
    }

    fn record(&self, retry: bool, passed: bool) {
        if retry { &self.retry } else { &self.first }.record(passed);
    }

    /// (first replies asked, passed), (retries asked, passed).
    pub fn counts(&self) -> ((u32, u32), (u32, u32)) {
        (self.first.counts(), self.retry.counts())
    }
}

/// One L2: the model's sentence when it passes the grounding check against
/// the turn (asked twice, the second time warmer, while asking pays off in
/// this pass: [`Payoffs`]), else an extractive sentence built from the turn
/// itself. The merge verdict is no summary of a turn (a model that obeyed
/// "reply NO_MERGE" written inside the turn).
fn summarize_turn(
    model: &dyn MemoryModel,
    item: &L2Item,
    opts: &PassOptions,
) -> Result<(Reply, &'static str), ModelError> {
    let turn = format!("{}\n{}", item.user, item.assistant);
    let examples = prompts::example_texts();
    let t = opts.summaries.temperature;
    let mut last = None;
    let ask = opts.l2_payoffs.ask_first(opts.verbose);
    for (n, temperature) in [t, (t + 0.5).min(1.5)].into_iter().enumerate() {
        let retry = n > 0;
        if !ask || retry && !opts.l2_payoffs.ask_again(opts.verbose) {
            break;
        }
        let mut reply = complete(model, &request(item, opts, temperature))?;
        reply.text = super::tidy::tidy(&reply.text, Some(2));
        let bad = if is_topic_shift(&reply.text) {
            Some("the reply is the NO_MERGE verdict, not a summary".to_string())
        } else {
            grounding::check(&reply.text, &[&turn], &examples)
        };
        opts.l2_payoffs.record(retry, bad.is_none());
        match bad {
            None => return Ok((reply, "model")),
            Some(why) if opts.verbose => eprintln!("ragger: L2 of turn {}: reply rejected: {why}", item.id),
            Some(_) => {}
        }
        last = Some(reply);
    }
    let text = grounding::extractive_turn(&item.user, &item.assistant);
    if text.is_empty() {
        return Err(ModelError::BadReply("the turn has no text to summarise".into()));
    }
    let usage = last.map(|r| r.usage).unwrap_or_default();
    Ok((Reply { text, usage }, "extractive"))
}

/// Compare-and-set: only a turn still pending and claimed by us takes the L2.
fn commit(store: &mut Store, id: i64, reply: &Reply, origin: &str, owner: &str, model_id: &str) -> Result<bool> {
    let prompt_version = if origin == "extractive" { prompts::EXTRACTIVE_VERSION } else { prompts::L2_VERSION };
    turns::commit_l2(store, id, owner, &turns::L2 { text: &reply.text, model: model_id, prompt_version, origin })
}

/// Count a failed attempt; true when it was the last one (the turn is now
/// `failed` and is not retried unless `ragger retry` says so).
fn count_attempt(store: &mut Store, item: &L2Item, why: &str, opts: &PassOptions) -> Result<bool> {
    turns::fail_l2_attempt(store, item.id, &opts.owner, why, opts.max_attempts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Summaries;
    use crate::llm::Fixed;

    fn item(id: i64) -> L2Item {
        L2Item {
            id,
            user: "How do I back up /srv with restic?".into(),
            assistant: "Run restic backup /srv from a nightly cron job.".into(),
            attempts: 0,
        }
    }

    /// A reply that names things the turn never said fails the check.
    const INVENTED: &str = "The user asked about Kubernetes; the assistant recommended Ansible and Terraform 1.7.";

    /// A reply that keeps every word of the turn it summarises.
    const GOOD: &str = "The user asked how to back up /srv with restic; the assistant suggested a nightly cron job.";

    #[test]
    fn a_rejected_reply_is_asked_again_until_retries_stop_paying_off() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        // Every first reply is good, so first replies keep being asked; the
        // retries of the turns whose first reply was bad all fail.
        let model = Fixed::cycle(&[INVENTED, INVENTED, GOOD]);
        for id in 0..RETRY_PROBE as i64 {
            let (_, origin) = summarize_turn(&model, &item(id), &opts).unwrap();
            assert_eq!(origin, "extractive");
            let (_, origin) = summarize_turn(&model, &item(100 + id), &opts).unwrap();
            assert_eq!(origin, "model");
        }
        assert_eq!(model.calls(), 3 * RETRY_PROBE as usize, "two calls for a rejected turn while probing");
        assert_eq!(opts.l2_payoffs.counts().1, (RETRY_PROBE, 0));
        // None of the retries passed: a rejected turn now costs one call and
        // still gets its extractive sentence.
        let (reply, origin) = summarize_turn(&model, &item(99), &opts).unwrap();
        assert_eq!(origin, "extractive");
        assert!(reply.text.contains("restic"), "{}", reply.text);
        assert_eq!(model.calls(), 3 * RETRY_PROBE as usize + 1);
        // Another pass starts probing afresh.
        let fresh = PassOptions::new("me".into(), Summaries::default());
        let before = model.calls();
        summarize_turn(&model, &item(200), &fresh).unwrap();
        assert_eq!(model.calls() - before, 2, "a rejected turn is asked again in a new pass");
    }

    #[test]
    fn a_model_whose_first_replies_fail_is_asked_for_one_turn_in_eight() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let model = Fixed::cycle(&[INVENTED]);
        for id in 0..FIRST_PROBE as i64 {
            let (_, origin) = summarize_turn(&model, &item(id), &opts).unwrap();
            assert_eq!(origin, "extractive");
        }
        let probing = model.calls();
        assert_eq!(opts.l2_payoffs.counts().0, (FIRST_PROBE, 0));
        // 64 more turns: each still gets its extractive sentence, and only
        // one in eight asks the model (once: retries stopped paying off).
        for id in 0..64 {
            let (reply, origin) = summarize_turn(&model, &item(1000 + id), &opts).unwrap();
            assert_eq!(origin, "extractive");
            assert!(reply.text.contains("restic"), "{}", reply.text);
        }
        assert_eq!(model.calls() - probing, 64 / PAYOFF as usize);
    }

    #[test]
    fn first_replies_are_asked_again_for_every_turn_once_they_pass_again() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let bad = Fixed::cycle(&[INVENTED]);
        for id in 0..FIRST_PROBE as i64 {
            summarize_turn(&bad, &item(id), &opts).unwrap();
        }
        // The model turns good (another kind of turn, say): the sampled
        // turns pass until one in eight of all first replies has passed.
        let good = Fixed::cycle(&[GOOD]);
        let mut id = 100;
        while !opts.l2_payoffs.first.worth_it(FIRST_PROBE) {
            summarize_turn(&good, &item(id), &opts).unwrap();
            id += 1;
            assert!(id < 1000, "asking never resumed");
        }
        let before = good.calls();
        for id in 0..8 {
            let (_, origin) = summarize_turn(&good, &item(2000 + id), &opts).unwrap();
            assert_eq!(origin, "model");
        }
        assert_eq!(good.calls() - before, 8, "every turn asks again");
    }

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
        assert!(p.first_stop(RETRY_PROBE) && !p.first_stop(RETRY_PROBE), "said once");
    }

    #[test]
    fn a_good_first_reply_costs_one_call_and_is_the_models() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let model = Fixed::new(GOOD);
        let (reply, origin) = summarize_turn(&model, &item(1), &opts).unwrap();
        assert_eq!((origin, model.calls()), ("model", 1));
        assert!(reply.text.contains("nightly cron job"), "{}", reply.text);
        assert_eq!(opts.l2_payoffs.counts(), ((1, 1), (0, 0)), "no retry was asked");
    }
}
