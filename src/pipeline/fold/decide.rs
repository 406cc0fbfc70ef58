//! The fold decision: a plain function of the running summary, the new
//! items, the settings and a model (no SQL, no I/O but the model's calls),
//! unit-tested with a scripted model in `fold/tests.rs`.

use super::super::prompts::{self, Scope};
use super::super::segment::StartReason;
use super::super::{grounding, tidy, verdict, PassOptions};
use crate::llm::{complete, MemoryModel, Message, ModelError, Request, Settled};
use crate::store::fold::Written;
use crate::store::summaries::Running;

/// What a fold decided, before it is committed.
#[derive(Debug)]
pub enum Decision {
    /// The running summary absorbs the new material.
    Update { content: String, written: Written },
    /// A new running summary starts (completing the old one if any).
    Start { content: String, written: Written, reason: StartReason, score: Option<f32> },
    /// A bad reply with attempts left: count it, retry next run.
    Retry(String),
}

/// What a fold works from.
pub struct FoldInput<'a> {
    pub scope: Scope,
    pub run: Option<&'a Running>,
    pub items: &'a [&'a str],
    /// The model id of the items (a copy keeps it).
    pub copy_model: &'a str,
    pub attempts: i64,
    /// Set when the segmenter (or the size limit, or a first segment)
    /// already decided that the items start a new summary.
    pub start: Option<(StartReason, Option<f32>)>,
}

/// Decide a fold: a plain function of the running summary, the new items,
/// the settings and a model (no SQL), so it is unit-tested with a scripted
/// model. Every reply passes the grounding check before it is used; a
/// reply that fails it is asked again once (warmer), then the summary is
/// written extractively from its sources. While the model's fold replies
/// of this level do not pay off in this pass ([`super::super::payoff`]),
/// most folds are written extractively without asking. Model errors other than a bad
/// reply stop the pass.
pub fn decide(
    model: Option<&dyn MemoryModel>,
    opts: &PassOptions,
    input: &FoldInput<'_>,
) -> Result<Decision, ModelError> {
    let s = &opts.summaries;
    let items = input.items;
    let last_try = input.attempts + 1 >= opts.max_attempts as i64;
    let extractive = || Written {
        model: input.copy_model.to_string(),
        prompt_version: prompts::EXTRACTIVE_VERSION,
        origin: "extractive",
    };
    if let Some(content) = short_fold(opts, input) {
        let written = extractive();
        return Ok(match (input.start, input.run) {
            (Some((reason, score)), _) => Decision::Start { content, written, reason, score },
            (None, None) => Decision::Start { content, written, reason: StartReason::First, score: None },
            (None, Some(_)) => Decision::Update { content, written },
        });
    }
    let examples = prompts::example_texts();
    // One model call whose reply must pass the grounding check against
    // `sources`; Ok(None) after two replies that did not.
    let grounded = |messages: Vec<Message>,
                    check: &dyn Fn(&str) -> Option<String>,
                    settled: Option<Settled>,
                    verdict_ok: bool| {
        let model = model.ok_or_else(|| ModelError::Unavailable("no memory model for a fold that needs one".into()))?;
        let (asking, what) = match input.scope {
            Scope::Session => (&opts.payoffs.l3, "L3 fold"),
            Scope::Project => (&opts.payoffs.l4, "L4 fold"),
        };
        if !asking.ask_first(what, opts.verbose) {
            return Ok(None);
        }
        let mut why = String::new();
        let mut last = String::new();
        for (n, temperature) in [s.temperature, (s.temperature + 0.5).min(1.5)].into_iter().enumerate() {
            let retry = n > 0;
            if retry && !asking.ask_again(what, opts.verbose) {
                break;
            }
            let max_tokens = s.max_tokens.min(prompts::FOLD_REPLY_TOKENS);
            let req =
                Request { messages: messages.clone(), temperature, max_tokens, stop: vec![], settled: settled.clone() };
            let text = tidy::tidy(&complete(model, &req)?.text, None);
            if verdict::is_topic_shift(&text) {
                asking.record(retry, verdict_ok);
                if verdict_ok {
                    return Ok(Some((text, model.model_id())));
                }
                why = format!("the reply is the {} verdict, which was not asked for", verdict::TOKEN);
                continue;
            }
            let bad = check(&text);
            asking.record(retry, bad.is_none());
            match bad {
                None => return Ok(Some((text, model.model_id()))),
                Some(w) => (why, last) = (w, text),
            }
        }
        if opts.verbose && !why.is_empty() {
            eprintln!(
                "ragger: fold reply rejected, written extractively: {why}: {:?}",
                crate::llm::truncate_for_message(&last, 300)
            );
        }
        Ok::<_, ModelError>(None)
    };
    // A new summary from the items alone.
    let start = |reason: StartReason, score: Option<f32>| -> Result<Decision, ModelError> {
        if items.len() == 1 {
            let written =
                Written { model: input.copy_model.to_string(), prompt_version: prompts::COPY_VERSION, origin: "copy" };
            return Ok(Decision::Start { content: items[0].trim().to_string(), written, reason, score });
        }
        let check = |text: &str| grounding::check_fold(text, None, items, &examples);
        let settled = grounding::settle(items, &examples, None);
        match grounded(prompts::fresh(input.scope, items, s.max_input_chars), &check, Some(settled), false) {
            Ok(Some((content, model))) => {
                let written = Written { model, prompt_version: prompts::FRESH_VERSION, origin: "model" };
                Ok(Decision::Start { content, written, reason, score })
            }
            Ok(None) => Ok(Decision::Start {
                content: grounding::extractive_fold(None, items, s.max_input_chars),
                written: extractive(),
                reason,
                score,
            }),
            Err(ModelError::BadReply(_)) if last_try => Ok(Decision::Start {
                content: grounding::extractive_fold(None, items, s.max_input_chars),
                written: extractive(),
                reason: StartReason::FoldFailed,
                score,
            }),
            Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
            Err(e) => Err(e),
        }
    };
    if let Some((reason, score)) = input.start {
        return start(reason, score);
    }
    let Some(run) = input.run else { return start(StartReason::First, None) };
    let votes = opts.segment.model_votes;
    let check = |text: &str| grounding::check_fold(text, Some(&run.content), items, &examples);
    // A reply that may be the topic verdict is written to the end.
    let settled = (!votes).then(|| {
        let sources: Vec<&str> = std::iter::once(run.content.as_str()).chain(items.iter().copied()).collect();
        grounding::settle(&sources, &examples, None)
    });
    let merge = prompts::merge(input.scope, &run.content, items, s.max_input_chars, votes);
    match grounded(merge, &check, settled, votes) {
        Ok(Some((text, _))) if verdict::is_topic_shift(&text) => start(StartReason::ModelNoMerge, None),
        Ok(Some((content, model))) => Ok(Decision::Update {
            content,
            written: Written { model, prompt_version: prompts::MERGE_VERSION, origin: "model" },
        }),
        Ok(None) => Ok(Decision::Update {
            content: grounding::extractive_fold(Some(&run.content), items, s.max_input_chars),
            written: extractive(),
        }),
        // Out of attempts: keep the material anyway, as a new segment.
        Err(ModelError::BadReply(_)) if last_try => start(StartReason::FoldFailed, None),
        Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
        Err(e) => Err(e),
    }
}

/// The fold written from its sources' own words, without the model, when
/// they are already as short as the summary of 3 to 5 sentences a fold asks
/// for: the extractive fold of the running summary (for a merge) and the
/// new items has at most `[summaries] short_fold_words` words (0: never).
/// None for a single item that starts a summary (it is copied) and for a
/// merge whose reply would also carry the model's topic vote.
pub fn short_fold(opts: &PassOptions, input: &FoldInput<'_>) -> Option<String> {
    let limit = opts.summaries.short_fold_words as usize;
    let running = match (input.start, input.run) {
        _ if limit == 0 => return None,
        (Some(_), _) | (None, None) if input.items.len() == 1 => return None,
        (Some(_), _) | (None, None) => None,
        (None, Some(_)) if opts.segment.model_votes => return None,
        (None, Some(run)) => Some(run.content.as_str()),
    };
    let text = grounding::extractive_fold(running, input.items, opts.summaries.max_input_chars);
    (text.split_whitespace().count() <= limit).then_some(text)
}
