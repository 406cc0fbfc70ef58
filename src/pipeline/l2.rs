//! L2: one sentence per turn. Independent turns may run concurrently
//! (`[memory_model] parallel`); each result is committed on its own.

use anyhow::Result;

use super::queue::{self, L2Item, Skip, Table};
use super::verdict::is_topic_shift;
use super::{digest, grounding, prompts};
use super::{ModelSlot, PassOptions, Report, Step};
use crate::llm::{complete, MemoryModel, ModelError, Reply, Request, Settled, Strain, Vocabulary};
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

/// Sentences of an L2 reply that are written before it is decided: the
/// first good one is kept, and a reply whose first three are all bad
/// has failed.
const L2_SENTENCES: usize = 3;

fn request(item: &L2Item, opts: &PassOptions, temperature: f32, settled: &Settled, ctx: &TurnContext) -> Request {
    Request {
        messages: prompts::turn_summary(
            &item.user,
            &item.assistant,
            opts.summaries.max_input_chars,
            ctx.before.as_deref(),
        ),
        temperature,
        max_tokens: opts.summaries.max_tokens.min(prompts::L2_REPLY_TOKENS),
        stop: vec![],
        settled: Some(settled.clone()),
        vocabulary: opts.summaries.restrict_vocabulary.then(|| ctx.vocabulary.clone()),
    }
}

/// What an L2 is written from: the turn, and for a follow-up the request
/// it follows.
struct TurnContext {
    turn: String,
    before: Option<String>,
    vocabulary: Vocabulary,
}

impl TurnContext {
    fn new(item: &L2Item) -> Self {
        let turn = format!("{}\n{}", item.user, item.assistant);
        let before = digest::request_followed(&item.user, &item.earlier).map(str::to_string);
        let sources: Vec<&str> = std::iter::once(turn.as_str()).chain(before.as_deref()).collect();
        let vocabulary = digest::vocabulary(&sources).seeking(digest::facts(&sources));
        TurnContext { turn, before, vocabulary }
    }
    fn sources(&self) -> Vec<&str> {
        std::iter::once(self.turn.as_str()).chain(self.before.as_deref()).collect()
    }
}

/// The most a kept L2 sentence's tokens may cost on average, in nats, to
/// hold the model to the turn's words ([`crate::llm::Strain`]): the model
/// must have given that sentence's words, on average, at least
/// e^−0.5 ≈ 61% of its own probability. Of SmolLM2-135M's 32 L2s that
/// passed every other check on LoCoMo (stop 62), 8 of the 10 that said
/// what their turn said cost at most that ("They shared a photo: a man
/// with a little girl standing in front of a waterfall.", 0.18), and 12 of
/// the 22 that did not cost more ("Melanie was off on a swimming with the
/// kids; she wanted to be more care about her.", 1.28).
pub const MAX_STRAIN: f32 = 0.5;

/// The L2 a reply makes: its first sentence that passes the grounding
/// check on its own ([`grounding::keep_grounded`]) within
/// [`digest::L2_MAX_WORDS`] (a longer one fails: it is not cut) and whose
/// words the model was not forced into ([`MAX_STRAIN`]), or why there is
/// none.
fn accept(reply: &str, strain: Option<&Strain>, acceptance: &grounding::Acceptance) -> Result<String, String> {
    if is_topic_shift(reply) {
        return Err("the reply is the NO_MERGE verdict, not a summary".to_string());
    }
    let kept = acceptance.keep(reply);
    let mut strained = None;
    let first = kept.sentences.iter().find(|s| match grounding::strained(strain, s, MAX_STRAIN) {
        Some(cost) => {
            strained.get_or_insert_with(|| {
                format!(
                    "the model was held off its own words to write the sentence ({cost:.2} nats a token; at most \
                     {MAX_STRAIN}): {s:?}"
                )
            });
            false
        }
        _ => true,
    });
    let Some(first) = first else {
        return Err(strained.or_else(|| kept.dropped.first().cloned()).unwrap_or_else(|| "the reply is empty".into()));
    };
    match acceptance.fault_of_whole(first) {
        Some(why) => Err(why),
        None => Ok(first.clone()),
    }
}

/// One L2: the model's sentence when one of its sentences passes the
/// grounding check against the turn (asked twice, the second time warmer,
/// while asking pays off in this pass: [`super::payoff::Asking`]), else an
/// extractive sentence built from the turn itself. The merge verdict is no
/// summary of a turn (a model that obeyed "reply NO_MERGE" written inside
/// the turn).
fn summarize_turn(
    model: &dyn MemoryModel,
    item: &L2Item,
    opts: &PassOptions,
) -> Result<(Reply, &'static str), ModelError> {
    let ctx = TurnContext::new(item);
    let sources = ctx.sources();
    let examples = prompts::example_texts();
    // Decoding held to the turn's words: every word is the turn's, so
    // what is left to check is how they are joined.
    let held = opts.summaries.restrict_vocabulary && model.keeps_vocabulary();
    let acceptance = std::sync::Arc::new(
        grounding::Acceptance::new(
            &sources,
            &sources,
            &examples,
            // A follow-up's outcome is often the request it follows ("That fixed it.").
            Some((item.user.as_str(), item.assistant.as_str())).filter(|_| ctx.before.is_none()),
        )
        .own_words_only(held)
        .relations_checked(&sources, held)
        .sides_checked(
            &std::iter::once(item.user.as_str()).chain(ctx.before.as_deref()).collect::<Vec<_>>(),
            &item.assistant,
        )
        .max_words(digest::L2_MAX_WORDS)
        // An L2 reports the turn as a summary does: not "We found these
        // lovely flowers in our field" nor "…her painting … to you".
        .reported(&sources),
    );
    let settled = grounding::settle_kept(acceptance.clone(), 1, L2_SENTENCES, Some(MAX_STRAIN));
    // Between two named people, the frames the examples teach name them.
    let people = grounding::named_people(&item.user, &item.assistant)
        .map(|(user, assistant)| (user, assistant, grounding::Sides::new(&[item.user.as_str()], &item.assistant)));
    let t = opts.summaries.temperature;
    let mut last = None;
    let asking = &opts.payoffs.l2;
    let ask = asking.ask_first("L2", opts.verbose);
    for (n, temperature) in [t, (t + 0.5).min(1.5)].into_iter().enumerate() {
        let retry = n > 0;
        if !ask || retry && !asking.ask_again("L2", opts.verbose) {
            break;
        }
        let mut reply = complete(model, &request(item, opts, temperature, &settled, &ctx))?;
        let tidied = super::tidy::tidy(&reply.text, Some(L2_SENTENCES));
        let accepted = accept(&tidied, reply.strain.as_ref(), &acceptance).and_then(|text| match &people {
            Some((user, assistant, sides)) => grounding::with_people_named(&text, user, assistant)
                .map(|text| sides.with_subject_named(&text, user, assistant)),
            None => Ok(text),
        });
        asking.record(retry, accepted.is_ok());
        match accepted {
            Ok(text) => {
                reply.text = text;
                return Ok((reply, "model"));
            }
            Err(why) if opts.verbose => eprintln!("ragger: L2 of turn {}: reply rejected: {why}", item.id),
            Err(_) => {}
        }
        last = Some(reply);
    }
    let text = grounding::extractive_turn(&item.user, &item.assistant, ctx.before.as_deref());
    if text.is_empty() {
        return Err(ModelError::BadReply("the turn has no text to summarise".into()));
    }
    let usage = last.map(|r| r.usage).unwrap_or_default();
    Ok((Reply::plain(text, usage), "extractive"))
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
            earlier: vec![],
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
    fn a_reply_whose_first_sentence_invents_keeps_its_grounded_sentence() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let model = Fixed::new(&format!("{INVENTED} {GOOD}"));
        let (reply, origin) = summarize_turn(&model, &item(1), &opts).unwrap();
        assert_eq!(origin, "model");
        assert_eq!(reply.text, GOOD);
        assert_eq!(model.calls(), 1);
    }

    #[test]
    fn a_sentence_longer_than_an_l2_is_refused_not_cut() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let long = "The user asked how to back up /srv with restic, and the assistant suggested running restic \
                    backup /srv from a nightly cron job, so that the backup of /srv with restic runs from cron every night.";
        assert!(digest::word_count(long) > digest::L2_MAX_WORDS);
        let model = Fixed::new(long);
        let (reply, origin) = summarize_turn(&model, &item(1), &opts).unwrap();
        assert_eq!(origin, "extractive", "cut, it would end in the middle of what it says: {}", reply.text);
        assert!(!reply.text.contains("so that the backup"), "{}", reply.text);
        assert!(reply.text.split_whitespace().count() <= digest::L2_MAX_WORDS, "{}", reply.text);
        // A sentence within the budget after it is the L2.
        let model = Fixed::new(&format!("{long} {GOOD}"));
        let (reply, origin) = summarize_turn(&model, &item(2), &opts).unwrap();
        assert_eq!((reply.text.as_str(), origin), (GOOD, "model"));
    }

    #[test]
    fn a_follow_up_is_read_with_the_request_it_follows() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let follow = L2Item {
            id: 2,
            user: "That fixed it.".into(),
            assistant: "Great, glad the nightly job works.".into(),
            attempts: 0,
            earlier: vec!["How do I back up /srv with restic?".into()],
        };
        // The model names the request it follows: grounded by the turn before.
        let model = Fixed::new("The nightly restic job for /srv works.");
        let (reply, origin) = summarize_turn(&model, &follow, &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", "The nightly restic job for /srv works."));
        // Without the model, the extractive L2 names it too.
        let model = Fixed::cycle(&[INVENTED]);
        let (reply, origin) = summarize_turn(&model, &follow, &opts).unwrap();
        assert_eq!(origin, "extractive");
        assert!(reply.text.contains("/srv") && reply.text.contains("That fixed it"), "{}", reply.text);
    }

    #[test]
    fn a_follow_up_of_a_follow_up_is_read_with_the_request_both_follow() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let commit = L2Item {
            id: 5,
            user: "ok commit".into(),
            assistant: "Committed as 9c2d1e0.".into(),
            attempts: 0,
            earlier: vec![
                "Do it for the whole codebase.".into(),
                "Are there other places that open SMTP connections themselves?".into(),
            ],
        };
        let (reply, origin) = summarize_turn(&Fixed::cycle(&[INVENTED]), &commit, &opts).unwrap();
        assert_eq!(origin, "extractive");
        assert!(reply.text.contains("SMTP connections") && reply.text.contains("9c2d1e0"), "{}", reply.text);
        assert!(!reply.text.contains("whole codebase"), "{}", reply.text);
    }

    #[test]
    fn a_reply_that_gives_the_user_the_assistants_words_is_refused() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let follow = L2Item {
            id: 4,
            user: "That fixed it.".into(),
            assistant: "Good: sendtestemail now reports 1 message sent, and the reset mail reached a Gmail inbox \
                        in 4 seconds."
                .into(),
            attempts: 0,
            earlier: vec!["Password reset emails from the shop never arrive.".into()],
        };
        // SmolLM2-135M's reply of this turn: every word the turn's, the frame false.
        let swapped = "The user asked how to sendtestemail now reports 1 message sent, and the reset mail reached a \
                       Gmail inbox in 4 seconds.";
        let (reply, origin) = summarize_turn(&Fixed::new(swapped), &follow, &opts).unwrap();
        assert_eq!(origin, "extractive", "{}", reply.text);
        // The same facts as the assistant's are the model's L2.
        let told = "After the port fix, the assistant said sendtestemail reports 1 message sent and the reset mail \
                    reached a Gmail inbox.";
        let (reply, origin) = summarize_turn(&Fixed::new(told), &follow, &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", told));
    }

    #[test]
    fn a_reply_that_keeps_too_little_of_a_rich_answer_is_refused() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let rich = L2Item {
            id: 3,
            user: "Should the restic repository be encrypted if the disk stays at home?".into(),
            assistant: "restic always encrypts; keep the password in a root-only file and pass it with \
                        --password-file so cron can run unattended."
                .into(),
            attempts: 0,
            earlier: vec![],
        };
        // One word of the answer ("cron") among its eleven: vague, refused twice, then extractive.
        let vague = "The user asked if the restic repository should be encrypted; the assistant explained that it is used by cron.";
        let model = Fixed::new(vague);
        let (reply, origin) = summarize_turn(&model, &rich, &opts).unwrap();
        assert_eq!(origin, "extractive", "{}", reply.text);
        assert!(reply.text.contains("--password-file"), "{}", reply.text);
        // The answer's key words kept: the model's sentence stands.
        let kept = "The user asked if the restic repository should be encrypted; the assistant said restic always \
                    encrypts and to keep the password in a root-only file for --password-file.";
        let (reply, origin) = summarize_turn(&Fixed::new(kept), &rich, &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", digest::clip_words(kept, digest::L2_MAX_WORDS).as_str()));
        assert_eq!(grounding::outcome_words_needed(2), 1);
        assert_eq!(grounding::outcome_words_needed(11), 3);
    }

    #[test]
    fn a_reply_that_speaks_as_or_to_the_speakers_is_refused() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let chat = L2Item {
            id: 5,
            user: "Melanie: We went to the field last weekend. Look at these flowers!".into(),
            assistant: "Caroline: They're lovely! Did you find them in your field of purple leaves?".into(),
            attempts: 0,
            earlier: vec![],
        };
        // SmolLM2-135M's replies of LoCoMo turns of this kind: every word
        // the turn's, but spoken as a speaker ("we", "our"), to one ("you",
        // "your"), or as a line of the chat with its label.
        for said in [
            "We found these lovely flowers in our field of purple leaves.",
            "Melanie shared the flowers she found in the field with you.",
            "Caroline: They're lovely flowers in the field of purple leaves.",
        ] {
            let (reply, origin) = summarize_turn(&Fixed::new(said), &chat, &opts).unwrap();
            assert_eq!(origin, "extractive", "{said:?} was kept as {:?}", reply.text);
        }
        // Told of them, the same facts are the model's L2.
        let told = "Melanie shared the flowers found in the field last weekend; Caroline called them lovely.";
        let (reply, origin) = summarize_turn(&Fixed::new(told), &chat, &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", told));
    }

    #[test]
    fn a_reply_of_a_turn_between_named_people_names_them() {
        let opts = PassOptions::new("me".into(), Summaries::default());
        let chat = L2Item {
            id: 6,
            user: "Melanie: We went to the field last weekend. Look at these flowers!".into(),
            assistant: "Caroline: They're lovely! Did you find them in your field of purple leaves?".into(),
            attempts: 0,
            earlier: vec![],
        };
        // The frame of the prompt's examples, told of the turn's people.
        let framed = "The user shared the flowers found in the field last weekend; the assistant called them lovely \
                      purple leaves.";
        let (reply, origin) = summarize_turn(&Fixed::new(framed), &chat, &opts).unwrap();
        assert_eq!(
            (origin, reply.text.as_str()),
            ("model", "Melanie shared the flowers found in the field last weekend; Caroline called them lovely purple leaves.")
        );
        // A frame with the sides wrong is no L2 of the model's.
        for wrong in [
            "The user asked Melanie about the flowers found in the field last weekend; the assistant called them \
             lovely purple leaves.",
            "The user shared the flowers found in the field last weekend; the other person called them lovely \
             purple leaves.",
        ] {
            let (reply, origin) = summarize_turn(&Fixed::new(wrong), &chat, &opts).unwrap();
            assert_eq!(origin, "extractive", "{wrong:?} was kept as {:?}", reply.text);
        }
        // "She" is named where the sentence's words are one side's.
        let photo = L2Item {
            id: 8,
            user: "Caroline: That's so sweet!".into(),
            assistant: "Melanie: Thanks! Here's Oliver, our cat, asleep on the porch rug.".into(),
            attempts: 0,
            earlier: vec![],
        };
        let she = "She showed Oliver, their cat, asleep on the porch rug.";
        let (reply, origin) = summarize_turn(&Fixed::new(she), &photo, &opts).unwrap();
        assert_eq!(
            (origin, reply.text.as_str()),
            ("model", "Melanie showed Oliver, their cat, asleep on the porch rug.")
        );
        // A turn of a user and an assistant keeps the frame as written.
        let agent = L2Item {
            id: 7,
            user: "How do I back up /srv every night?".into(),
            assistant: "Use restic with a cron job: restic backup /srv to a repository on a USB disk.".into(),
            attempts: 0,
            earlier: vec![],
        };
        let said = "The user asked how to back up /srv every night; the assistant suggested restic with a cron job.";
        let (reply, origin) = summarize_turn(&Fixed::new(said), &agent, &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", said));
    }

    /// A local model held to the turn's words: its reply's sentences, each
    /// with what every one of its tokens (a word and the space before it)
    /// cost the model ([`Strain`]).
    struct Held(Vec<(&'static str, f32)>);

    impl MemoryModel for Held {
        fn describe(&self) -> String {
            "held".into()
        }
        fn model_id(&self) -> String {
            "held".into()
        }
        fn preflight(&self) -> Result<(), ModelError> {
            Ok(())
        }
        fn generate(&self, _: &Request) -> Result<Reply, ModelError> {
            let mut strain = Strain::default();
            for (i, (sentence, cost)) in self.0.iter().enumerate() {
                for (j, word) in sentence.split(' ').enumerate() {
                    strain.push(&format!("{}{word}", if i + j > 0 { " " } else { "" }), *cost);
                }
            }
            let text = self.0.iter().map(|(s, _)| *s).collect::<Vec<_>>().join(" ");
            Ok(Reply { text, usage: Default::default(), strain: Some(strain) })
        }
    }

    #[test]
    fn a_sentence_the_model_was_forced_into_is_refused_and_a_free_one_kept() {
        let free = "The assistant suggested running restic backup /srv from a nightly cron job.";
        let opts = PassOptions::new("me".into(), Summaries::default());
        // The first sentence passes every check of its words, but the
        // vocabulary made the model write them.
        let forced = Held(vec![(GOOD, 1.2), (free, 0.2)]);
        let (reply, origin) = summarize_turn(&forced, &item(1), &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", free));
        // Alone, it leaves the turn to its extractive sentence.
        let opts = PassOptions::new("me".into(), Summaries::default());
        let (reply, origin) = summarize_turn(&Held(vec![(GOOD, 1.2)]), &item(1), &opts).unwrap();
        assert_eq!(origin, "extractive");
        assert_ne!(reply.text, GOOD);
        // What the model wrote of its own accord, or nearly, is kept.
        let opts = PassOptions::new("me".into(), Summaries::default());
        let (reply, origin) = summarize_turn(&Held(vec![(GOOD, MAX_STRAIN - 0.1)]), &item(1), &opts).unwrap();
        assert_eq!((origin, reply.text.as_str()), ("model", GOOD));
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
