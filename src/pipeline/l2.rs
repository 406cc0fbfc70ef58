//! L2: one sentence per turn. Independent turns may run concurrently
//! (`[memory_model] parallel`); each result is committed on its own.

use anyhow::Result;

use super::queue::{self, L2Item, Skip, Table};
use super::verdict::is_topic_shift;
use super::{grounding, prompts};
use super::{ModelSlot, PassOptions, Report, Step};
use crate::llm::{complete, MemoryModel, ModelError, Reply, Request, Settled};
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

/// The sentences of an L2 reply that are kept (it is asked for one).
const L2_SENTENCES: usize = 2;

fn request(item: &L2Item, opts: &PassOptions, temperature: f32, settled: &Settled) -> Request {
    Request {
        messages: prompts::turn_summary(&item.user, &item.assistant, opts.summaries.max_input_chars),
        temperature,
        max_tokens: opts.summaries.max_tokens.min(prompts::L2_REPLY_TOKENS),
        stop: vec![],
        settled: Some(settled.clone()),
    }
}

/// One L2: the model's sentence when it passes the grounding check against
/// the turn (asked twice, the second time warmer, while asking pays off in
/// this pass: [`super::payoff::Asking`]), else an extractive sentence built from the turn
/// itself. The merge verdict is no summary of a turn (a model that obeyed
/// "reply NO_MERGE" written inside the turn).
fn summarize_turn(
    model: &dyn MemoryModel,
    item: &L2Item,
    opts: &PassOptions,
) -> Result<(Reply, &'static str), ModelError> {
    let turn = format!("{}\n{}", item.user, item.assistant);
    let examples = prompts::example_texts();
    let settled = grounding::settle(&[&turn], &examples, Some(L2_SENTENCES));
    let t = opts.summaries.temperature;
    let mut last = None;
    let asking = &opts.payoffs.l2;
    let ask = asking.ask_first("L2", opts.verbose);
    for (n, temperature) in [t, (t + 0.5).min(1.5)].into_iter().enumerate() {
        let retry = n > 0;
        if !ask || retry && !asking.ask_again("L2", opts.verbose) {
            break;
        }
        let mut reply = complete(model, &request(item, opts, temperature, &settled))?;
        reply.text = super::tidy::tidy(&reply.text, Some(L2_SENTENCES));
        let bad = if is_topic_shift(&reply.text) {
            Some("the reply is the NO_MERGE verdict, not a summary".to_string())
        } else {
            grounding::check(&reply.text, &[&turn], &examples)
        };
        asking.record(retry, bad.is_none());
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
    use crate::pipeline::payoff::{FIRST_PROBE, PAYOFF, RETRY_PROBE};

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
        assert_eq!(opts.payoffs.l2.counts().1, (RETRY_PROBE, 0));
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
        assert_eq!(opts.payoffs.l2.counts().0, (FIRST_PROBE, 0));
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
    fn a_good_first_reply_costs_one_call_and_is_the_models() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let model = Fixed::new(GOOD);
        let (reply, origin) = summarize_turn(&model, &item(1), &opts).unwrap();
        assert_eq!((origin, model.calls()), ("model", 1));
        assert!(reply.text.contains("nightly cron job"), "{}", reply.text);
        assert_eq!(opts.payoffs.l2.counts(), ((1, 1), (0, 0)), "no retry was asked");
    }
}
