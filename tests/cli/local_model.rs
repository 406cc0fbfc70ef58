//! The `local` memory model, called as a library, against the real SmolLM2
//! GGUF (the kit's `models`: fetched by scripts/fetch-models.sh, or named by
//! `RAGGER_TEST_GGUF`). A missing model fails these tests: the local backend
//! is the default and must be exercised for real. Built with the `local`
//! feature only (see main.rs).

use std::path::PathBuf;
use std::sync::OnceLock;

use ragger::llm::local::{LocalModel, LocalOptions};
use ragger::llm::{complete, ends_sentence, sentence_end, MemoryModel, Message, ModelError, Request, Settled};
use ragger::pipeline::prompts::turn_summary;

use crate::support::models::gguf;

fn options(model_path: PathBuf) -> LocalOptions {
    LocalOptions {
        model_path,
        // Tests run in parallel (with the whole CLI suite); llama.cpp's
        // spinning worker threads crawl when there are more than cores.
        threads: 1,
        context_tokens: 2048,
        seed: 7,
        verbose_log: false,
        parallel: 1,
    }
}

/// One model for the whole test binary, loaded once; calls are serialised
/// by the model itself.
fn shared() -> &'static LocalModel {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    MODEL.get_or_init(|| LocalModel::new(options(gguf())))
}

fn summary_request(temperature: f32, max_tokens: u32) -> Request {
    Request {
        messages: vec![
            Message::system("You write one-sentence summaries of conversation turns."),
            Message::user(
                "Summarize this turn in one sentence, in the third person.\n\n\
                 User: How do I list the files in a folder with Python?\n\n\
                 Assistant: Use os.listdir(path), or pathlib.Path(path).iterdir() for Path \
                 objects.\n\nOne-sentence summary:",
            ),
        ],
        temperature,
        max_tokens,
        stop: Vec::new(),
        settled: None,
        vocabulary: None,
    }
}

#[test]
fn completion_is_non_empty_and_cleaned() {
    let reply = complete(shared(), &summary_request(0.0, 60)).expect("completion");
    assert!(!reply.text.trim().is_empty());
    assert!(!reply.text.contains("<|im_end|>") && !reply.text.contains("<|im_start|>"), "{:?}", reply.text);
    let usage = reply.usage;
    assert!(usage.prompt_tokens.unwrap() > 20, "{usage:?}");
    assert!(usage.completion_tokens.unwrap() >= 1, "{usage:?}");
}

#[test]
fn temperature_zero_is_deterministic_across_calls_and_loads() {
    let req = summary_request(0.0, 40);
    // Prompts that differ early (nothing reusable) and late (the first
    // batch reusable).
    let mut early = summary_request(0.0, 40);
    early.messages[1].content = early.messages[1].content.replace("Python", "Rust");
    let mut late = summary_request(0.0, 40);
    late.messages[1].content = late.messages[1].content.replace("iterdir()", "glob(\"*\")");
    // A fresh model evaluates the prompt from scratch; later calls reuse the
    // cached prefix of whatever came before. The answer must not change.
    let model = LocalModel::new(options(gguf()));
    let first = model.generate(&req).expect("first");
    let again = model.generate(&req).expect("again");
    model.generate(&early).expect("early");
    let after_early = model.generate(&req).expect("after early");
    let late_reply = model.generate(&late).expect("late");
    assert!(late_reply.usage.prompt_evaluated < late_reply.usage.prompt_tokens, "{:?}", late_reply.usage);
    let after_late = model.generate(&req).expect("after late");
    let shared_model = shared().generate(&req).expect("shared model");
    assert_eq!(first.text, again.text);
    assert_eq!(first.text, after_early.text);
    assert_eq!(first.text, after_late.text);
    assert_eq!(first.text, shared_model.text);
}

#[test]
fn same_seed_gives_the_same_sample() {
    let req = summary_request(0.8, 30);
    let a = shared().generate(&req).expect("a");
    let b = shared().generate(&req).expect("b");
    assert_eq!(a.text, b.text);
}

#[test]
fn a_shared_prompt_prefix_is_evaluated_once_and_timed() {
    let model = LocalModel::new(options(gguf()));
    let req = summary_request(0.0, 8);
    let cold = model.generate(&req).expect("cold").usage;
    let warm = model.generate(&req).expect("warm").usage;
    let n = cold.prompt_tokens.unwrap();
    assert_eq!(cold.prompt_evaluated, Some(n), "a fresh model evaluates the whole prompt");
    // The system message (the earlier messages) is kept; the last message
    // is evaluated again.
    let evaluated = warm.prompt_evaluated.unwrap();
    assert!(evaluated > 0 && evaluated < n - 10, "{warm:?}");
    for usage in [&cold, &warm] {
        assert!(usage.prompt_time.is_some_and(|t| !t.is_zero()), "{usage:?}");
        assert!(usage.generation_time.is_some_and(|t| !t.is_zero()), "{usage:?}");
    }
}

#[test]
fn turn_summary_prompts_share_the_reusable_first_batch() {
    // The pipeline's own L2 prompts for two unrelated turns: everything but
    // the turn itself is reused (instructions and examples come first, in
    // messages of their own; a rewrite could silently lose this).
    let model = LocalModel::new(options(gguf()));
    let ask = |user: &str, assistant: &str| Request {
        messages: turn_summary(user, assistant, 3000, None),
        temperature: 0.0,
        max_tokens: 4,
        stop: Vec::new(),
        settled: None,
        vocabulary: None,
    };
    model.generate(&ask("Why does cron not see my PATH?", "Cron starts jobs with a minimal environment.")).unwrap();
    let second = model.generate(&ask("Zip a folder in Python?", "Use shutil.make_archive.")).unwrap().usage;
    let (evaluated, n) = (second.prompt_evaluated.unwrap(), second.prompt_tokens.unwrap());
    assert!(evaluated * 2 < n, "most of an L2 prompt is its shared opening: {second:?}");
}

#[test]
fn max_tokens_is_respected() {
    for max in [1, 5] {
        let reply = shared().generate(&summary_request(0.0, max)).expect("reply");
        let n = reply.usage.completion_tokens.unwrap();
        assert!(n <= max, "{n} tokens for max_tokens {max}");
    }
}

#[test]
fn generation_stops_at_a_stop_string() {
    let mut req = summary_request(0.0, 60);
    req.stop = vec![" ".to_string()];
    let reply = shared().generate(&req).expect("reply");
    assert!(!reply.text.contains(' '), "{:?}", reply.text);
}

#[test]
fn too_long_prompt_is_a_bad_reply_and_the_model_still_works() {
    let mut req = summary_request(0.0, 40);
    req.messages[1].content = "memory ".repeat(3000);
    match shared().generate(&req) {
        Err(ModelError::BadReply(m)) => assert!(m.contains("exceeds the context of 2048"), "{m}"),
        other => panic!("expected a bad reply, got {other:?}"),
    }
    assert!(shared().generate(&summary_request(0.0, 10)).is_ok());
}

#[test]
fn missing_file_is_unavailable_and_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.gguf");
    let model = LocalModel::new(options(path.clone()));
    for result in [model.preflight().map(drop), model.generate(&summary_request(0.0, 5)).map(drop)] {
        match result {
            Err(ModelError::Unavailable(m)) => assert!(m.contains(&path.display().to_string()), "{m}"),
            other => panic!("expected unavailable, got {other:?}"),
        }
    }
}

#[test]
fn corrupt_file_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    // Random bytes, and a file with the right magic but garbage after it
    // (which gets past preflight to llama.cpp's own loader).
    let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut magic = b"GGUF".to_vec();
    magic.extend_from_slice(&random);
    for (name, bytes) in [("random.gguf", random), ("magic.gguf", magic)] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let model = LocalModel::new(options(path.clone()));
        match model.generate(&summary_request(0.0, 5)) {
            Err(ModelError::Unavailable(m)) => assert!(m.contains(name), "{m}"),
            other => panic!("{name}: expected unavailable, got {other:?}"),
        }
    }
}

#[test]
fn nothing_is_loaded_before_the_first_call() {
    let model = LocalModel::new(options(gguf()));
    model.preflight().expect("preflight");
    assert!(model.load_time().is_none());
    let id = model.model_id();
    assert!(id.starts_with("local:") && id.ends_with(".gguf"), "{id}");
}

/// The pipeline's L2 requests for turns that each name their own
/// identifier, so a reply can be traced to its request: (identifier, turn
/// text, request).
fn distinct_turns() -> Vec<(String, String, Request)> {
    let turns = [
        (
            "Why does the job runner KESTREL-41 stop at midnight?",
            "KESTREL-41 has a cron entry that restarts it at 00:00.",
        ),
        ("How big is the cache volume ORCHID-7?", "ORCHID-7 holds 512 GB and is 80% full."),
        ("Who owns the service PELICAN-93?", "PELICAN-93 belongs to the billing team since March."),
        ("Which port does the proxy MARLIN-25 use?", "MARLIN-25 listens on port 8443 for TLS."),
        ("What broke the build of LANTERN-60?", "LANTERN-60 failed because the linker ran out of memory."),
    ];
    turns
        .iter()
        .map(|(u, a)| {
            let id = u.split_whitespace().find(|w| w.contains('-')).unwrap().trim_end_matches('?').to_string();
            let req = Request {
                messages: turn_summary(u, a, 3000, None),
                temperature: 0.0,
                max_tokens: 60,
                stop: Vec::new(),
                settled: None,
                vocabulary: None,
            };
            (id, format!("{u}\n{a}"), req)
        })
        .collect()
}

#[test]
fn a_batch_decoded_together_answers_each_request_like_a_single_call() {
    let cases = distinct_turns();
    let reqs: Vec<Request> = cases.iter().map(|(_, _, r)| r.clone()).collect();
    let singles: Vec<String> = reqs.iter().map(|r| complete(shared(), r).expect("single").text).collect();
    let mut same = 0;
    // Batches of all five at once, and of three (so two wait for a free
    // sequence and join while the others generate), twice each: the second
    // time the shared opening is already in the context.
    for parallel in [5, 3] {
        let model = LocalModel::new(LocalOptions { parallel, ..options(gguf()) });
        for round in 0..2 {
            let batch = model.generate_batch(&reqs);
            assert_eq!(batch.len(), reqs.len());
            for (i, (reply, (id, turn, _))) in batch.into_iter().zip(&cases).enumerate() {
                let reply = reply.unwrap_or_else(|e| panic!("parallel {parallel}, request {i}: {e}"));
                let usage = &reply.usage;
                assert!(usage.completion_tokens.unwrap() >= 1, "{usage:?}");
                assert_eq!(usage.prompt_tokens, Some(reply_prompt_tokens(&reqs[i])), "{usage:?}");
                let text = ragger::llm::clean::clean_reply(&reply.text);
                let show = format!("parallel {parallel}, round {round}, {id}: {text:?} (alone: {:?})", singles[i]);
                same += usize::from(text == singles[i]);
                // Greedy decoding of several sequences at once may differ
                // from one alone in the last bits of a logit (the matrix
                // products are cut differently), so a word can differ; the
                // reply must still be a summary of its own turn.
                assert!(!text.is_empty() && !text.contains("<|im_"), "{show}");
                let own = overlap(&text, turn);
                for (_, other, _) in cases.iter().filter(|(o, _, _)| o != id) {
                    assert!(own > overlap(&text, other), "the reply shares more with another turn: {show}");
                }
                let lower = text.to_lowercase();
                assert!(lower.contains(&id.to_lowercase()), "{id} missing from its own reply: {show}");
                for (other, _, _) in cases.iter().filter(|(o, _, _)| o != id) {
                    assert!(!lower.contains(&other.to_lowercase()), "{other} leaked into the reply: {show}");
                }
            }
        }
    }
    eprintln!("{same} of 20 batched replies are identical to the single call's");
    assert!(same > 0, "batched replies never match the single calls: a request's reply comes from another prompt?");
}

/// Words of `reply` (lowercase, 3 letters or more) found in `source`.
fn overlap(reply: &str, source: &str) -> usize {
    let words = |t: &str| -> std::collections::HashSet<String> {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 3).map(str::to_lowercase).collect()
    };
    words(reply).intersection(&words(source)).count()
}

/// Prompt tokens of a request as the single-call path counts them.
fn reply_prompt_tokens(req: &Request) -> u32 {
    shared().generate(&Request { max_tokens: 1, ..req.clone() }).unwrap().usage.prompt_tokens.unwrap()
}

#[test]
fn a_batch_with_parallel_one_is_the_single_calls() {
    let reqs: Vec<Request> = distinct_turns().into_iter().take(2).map(|(_, _, r)| r).collect();
    let singles: Vec<String> = reqs.iter().map(|r| shared().generate(r).unwrap().text).collect();
    let batch: Vec<String> = shared().generate_batch(&reqs).into_iter().map(|r| r.unwrap().text).collect();
    assert_eq!(batch, singles);
}

#[test]
fn a_batch_larger_than_the_context_holds_runs_in_turns() {
    // A context where one L2 with its reply fits, two do not beside each
    // other (even sharing their opening).
    let reqs: Vec<Request> = distinct_turns().into_iter().map(|(_, _, r)| r).collect();
    let n = reqs.iter().map(reply_prompt_tokens).max().unwrap();
    let model = LocalModel::new(LocalOptions { parallel: 4, context_tokens: n + 70, ..options(gguf()) });
    for (i, reply) in model.generate_batch(&reqs).into_iter().enumerate() {
        let reply = reply.unwrap_or_else(|e| panic!("request {i}: {e}"));
        assert!(reply.usage.completion_tokens.unwrap() >= 1);
    }
    // A prompt that can never fit is a bad reply of its own, the others
    // are answered.
    let mut huge = reqs[0].clone();
    huge.messages.last_mut().unwrap().content = "memory ".repeat(n as usize);
    let replies = model.generate_batch(&[reqs[1].clone(), huge, reqs[2].clone()]);
    assert!(replies[0].is_ok() && replies[2].is_ok(), "{replies:?}");
    assert!(matches!(&replies[1], Err(ModelError::BadReply(m)) if m.contains("exceeds the context")), "{replies:?}");
}

/// A request for several sentences, and how often its `settled` was asked.
fn several_sentences(settle_at_first: bool) -> (Request, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let settled = settle_at_first.then(|| {
        Settled(Arc::new(move |so_far: &str, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Some(format!("settled at {} bytes", so_far.len()))
        }))
    });
    let req = Request {
        messages: vec![Message::user("Write four short sentences about cats, each on the same line.")],
        temperature: 0.0,
        max_tokens: 120,
        stop: Vec::new(),
        settled,
        vocabulary: None,
    };
    (req, asked)
}

#[test]
fn a_settled_reply_ends_at_the_sentence_that_settled_it() {
    use std::sync::atomic::Ordering;
    let (whole_req, _) = several_sentences(false);
    let whole = shared().generate(&whole_req).expect("reply");
    let first_end = (0..whole.text.len()).find(|&i| ends_sentence(whole.text.as_bytes(), i)).map(|i| i + 1);
    let first_end = first_end.unwrap_or_else(|| panic!("the test needs a reply of two sentences: {:?}", whole.text));

    let (req, asked) = several_sentences(true);
    let settled = shared().generate(&req).expect("reply");
    assert_eq!(settled.text, whole.text[..first_end], "the reply ends where it was settled");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "asked once, when the first sentence was complete");
    let (n, all) = (settled.usage.completion_tokens.unwrap(), whole.usage.completion_tokens.unwrap());
    assert!(n < all, "{n} tokens generated, {all} without settling");

    // Decoded beside another call, it ends the same way.
    let model = LocalModel::new(LocalOptions { parallel: 2, ..options(gguf()) });
    let (req, asked) = several_sentences(true);
    let batch = model.generate_batch(&[req, whole_req]);
    let text = &batch[0].as_ref().expect("reply").text;
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(sentence_end(text.as_bytes()), None, "one sentence, ended before its whitespace: {text:?}");
    assert!(text.ends_with(['.', '!', '?']), "{text:?}");
    assert!(batch[1].as_ref().expect("reply").text.len() > text.len(), "the other call wrote on");
}

/// A reply restricted to a vocabulary is written with whole words of it
/// only: asked about a turn, the real model cannot name what the turn
/// never said, and every word it writes is a vocabulary word (pieces of
/// them do not combine into new ones), while the same prompt without the
/// restriction is free to write others.
#[test]
fn a_vocabulary_binds_the_real_models_reply_to_its_words() {
    let turn = "User: How should I back up /srv every night?\n\nAssistant: Use restic with a cron job and a USB disk.";
    let words: Vec<String> =
        ragger::pipeline::digest::vocabulary(&[turn]).words().iter().map(|w| w.to_lowercase()).collect();
    let req = Request {
        messages: vec![
            Message::system("Write about a famous city you like, with its name and population."),
            Message::user(turn),
        ],
        temperature: 0.0,
        max_tokens: 40,
        stop: Vec::new(),
        settled: None,
        vocabulary: Some(ragger::pipeline::digest::vocabulary(&[turn])),
    };
    assert!(shared().keeps_vocabulary());
    let bound = complete(shared(), &req).expect("completion").text;
    for w in ragger::text::written_words(&bound) {
        let w = w.to_lowercase();
        let base = w.strip_suffix("'s").unwrap_or(&w);
        assert!(words.contains(&w) || words.contains(&base.to_string()), "{w:?} is no vocabulary word: {bound:?}");
    }
    assert!(!bound.chars().any(|c| c.is_ascii_digit()), "the turn has no number: {bound:?}");
    let free = complete(shared(), &Request { vocabulary: None, ..req }).expect("completion").text;
    assert_ne!(bound, free, "the restriction changed nothing");
}

/// The real model's reply held to a vocabulary reports how far it was
/// held off its own words: asked about a famous city and allowed only a
/// backup turn's words, it is forced into words it did not mean, and its
/// sentence costs it more than the summary it writes of that turn with
/// the same words. A reply held to nothing reports no strain.
#[test]
fn a_reply_held_to_words_it_would_not_write_is_strained() {
    let (user, assistant) = ("How should I back up /srv every night?", "Use restic with a cron job and a USB disk.");
    let turn = format!("User: {user}\n\nAssistant: {assistant}");
    let vocabulary = ragger::pipeline::digest::vocabulary(&[turn.as_str()]);
    let summary = Request {
        messages: turn_summary(user, assistant, 3000, None),
        temperature: 0.0,
        max_tokens: 40,
        stop: Vec::new(),
        settled: None,
        vocabulary: Some(vocabulary.clone()),
    };
    let city = Request {
        messages: vec![
            Message::system("Write about a famous city you like, with its name and population."),
            Message::user("Which city do you like best?"),
        ],
        ..summary.clone()
    };
    let first_strain = |req: &Request| {
        let reply = complete(shared(), req).expect("completion");
        let strain = reply.strain.clone().expect("a held reply reports its strain");
        let first = ragger::pipeline::tidy::sentences(&reply.text)[0].to_string();
        (strain.of(&first).unwrap_or_else(|| panic!("{first:?} is written as such in {reply:?}")), first)
    };
    let (forced, forced_text) = first_strain(&city);
    let (free, free_text) = first_strain(&summary);
    assert!(forced > free, "forced {forced:.2} ({forced_text:?}) against free {free:.2} ({free_text:?})");
    let unheld = complete(shared(), &Request { vocabulary: None, ..summary }).expect("completion");
    assert_eq!(unheld.strain, None);
}

/// Decoded together with another call (`parallel` > 1), a held reply
/// reports its strain as the same call alone does.
#[test]
fn a_held_reply_decoded_in_a_batch_reports_its_strain_like_a_single_call() {
    let held: Vec<Request> = distinct_turns()
        .into_iter()
        .take(3)
        .map(|(_, turn, req)| Request {
            vocabulary: Some(ragger::pipeline::digest::vocabulary(&[turn.as_str()])),
            ..req
        })
        .collect();
    let first_cost = |reply: &ragger::llm::Reply| {
        let text = ragger::llm::clean::clean_reply(&reply.text);
        let first = ragger::pipeline::tidy::sentences(&text)[0].to_string();
        let strain = reply.strain.as_ref().unwrap_or_else(|| panic!("no strain: {reply:?}"));
        (text.clone(), strain.of(&first).unwrap_or_else(|| panic!("{first:?} not found in {reply:?}")))
    };
    let singles: Vec<(String, f32)> = held.iter().map(|r| first_cost(&shared().generate(r).unwrap())).collect();
    let model = LocalModel::new(LocalOptions { parallel: 3, ..options(gguf()) });
    let mut same = 0;
    for (reply, (text, cost)) in model.generate_batch(&held).into_iter().zip(&singles) {
        let (batch_text, batch_cost) = first_cost(&reply.expect("batched reply"));
        if batch_text == *text {
            same += 1;
            assert!((batch_cost - cost).abs() < 0.05, "{batch_text:?}: {batch_cost} batched, {cost} alone");
        }
    }
    assert!(same > 0, "no batched reply is the single call's: {singles:?}");
}

/// A vocabulary that seeks the turn's facts (its names, numbers and
/// identifiers) makes the real model write more of them than the same
/// vocabulary without: decoding nudges the model toward `restic check`
/// and `--password-file` where it would write "a check" or "a file".
#[test]
fn a_vocabulary_that_seeks_the_turns_facts_gets_more_of_them_written() {
    let (user, assistant) = (
        "How do I make my nightly backup safe?",
        "Run restic check weekly, keep the password in /root/.restic-pass and pass it with --password-file, and \
         restore one folder into /tmp each month to compare it with diff -r.",
    );
    let turn = &format!("{user}\n{assistant}");
    let facts = ragger::pipeline::digest::facts(&[turn]);
    assert!(facts.len() >= 3, "{facts:?}");
    let plain = ragger::pipeline::digest::vocabulary(&[turn]);
    let req = Request {
        messages: turn_summary(user, assistant, 3000, None),
        temperature: 0.0,
        max_tokens: 60,
        stop: Vec::new(),
        settled: None,
        vocabulary: Some(plain.clone()),
    };
    let written = |text: &str| {
        let words: Vec<String> = ragger::text::written_words(text).map(str::to_lowercase).collect();
        facts.iter().filter(|f| words.contains(&f.to_lowercase())).count()
    };
    let without = complete(shared(), &req).expect("completion").text;
    let seeking = complete(shared(), &Request { vocabulary: Some(plain.seeking(facts.clone())), ..req })
        .expect("completion")
        .text;
    // A model that keeps every fact anyway (Qwen2.5-Coder-0.5B copies
    // this turn) has nothing to gain; one that leaves some out (SmolLM2,
    // the default) must write more of them.
    let gain_needed = usize::from(written(&without) < facts.len());
    assert!(
        written(&seeking) >= written(&without) + gain_needed,
        "seeking {facts:?} wrote {} of them ({seeking:?}), without {} ({without:?})",
        written(&seeking),
        written(&without)
    );
}
