//! The fold decision on data, with a scripted model: no database.

use std::sync::Mutex;

use super::policy::{forced_start, needs_model};
use super::*;
use crate::config::Summaries;
use crate::llm::{Reply, Request, Usage};
use crate::pipeline::{digest, prompts};

/// Answers with the scripted replies in order (the last one repeats)
/// and records every prompt it was given.
struct Scripted {
    replies: Vec<Result<String, ModelError>>,
    prompts: Mutex<Vec<String>>,
    max_tokens: Mutex<Vec<u32>>,
    /// Whether its replies are decoded with the request's vocabulary only
    /// (as the local backend's are).
    held: bool,
}

impl Scripted {
    fn new(replies: &[Result<&str, ModelError>]) -> Self {
        Scripted {
            replies: replies.iter().map(|r| r.clone().map(str::to_string)).collect(),
            prompts: Mutex::new(Vec::new()),
            max_tokens: Mutex::new(Vec::new()),
            held: false,
        }
    }
    /// A model that decodes with the request's vocabulary only.
    fn held(mut self) -> Self {
        self.held = true;
        self
    }
    fn calls(&self) -> usize {
        self.prompts.lock().unwrap().len()
    }
    fn last_prompt(&self) -> String {
        self.prompts.lock().unwrap().last().cloned().unwrap_or_default()
    }
}

impl MemoryModel for Scripted {
    fn describe(&self) -> String {
        "scripted".into()
    }
    fn model_id(&self) -> String {
        "scripted".into()
    }
    fn preflight(&self) -> Result<(), ModelError> {
        Ok(())
    }
    fn keeps_vocabulary(&self) -> bool {
        self.held
    }
    fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
        self.max_tokens.lock().unwrap().push(req.max_tokens);
        let mut prompts = self.prompts.lock().unwrap();
        prompts.push(req.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n"));
        let i = (prompts.len() - 1).min(self.replies.len() - 1);
        self.replies[i].clone().map(|text| Reply::plain(text, Usage::default()))
    }
}

const RUNNING: &str = "The user set up nightly restic backups of /srv to a USB disk.";
const NEW: &str = "The user asked how to check the restic backups; the assistant suggested restic check weekly.";
const GOOD: &str =
    "The user set up nightly restic backups of /srv to a USB disk and asked how to check them; the assistant suggested restic check weekly.";

/// Options whose folds always ask the model (the texts here are short;
/// `short_fold_words` has tests of its own below). These are the folds the
/// model writes in prose (`l3_digest` off); the digest's tests follow.
fn opts(votes: bool) -> PassOptions {
    let mut o =
        PassOptions::new("me".into(), Summaries { short_fold_words: 0, l3_digest: false, ..Summaries::default() });
    o.segment.model_votes = votes;
    o
}

fn run(tokens: i64) -> Running {
    Running {
        id: 7,
        content: RUNNING.into(),
        tokens,
        version: 3,
        key_terms: String::new(),
        model: "m".into(),
        prompt_version: 2,
        origin: "model".into(),
    }
}

/// A project fold of `items`, L3s the model wrote, over the `earlier`
/// segments.
fn project_input<'a>(run: &'a Running, items: &'a [&'a str], earlier: &'a [Note]) -> FoldInput<'a> {
    FoldInput { scope: Scope::Project, by_model: &[true], earlier, ..input(Some(run), items, 0) }
}

fn input<'a>(run: Option<&'a Running>, items: &'a [&'a str], attempts: i64) -> FoldInput<'a> {
    FoldInput {
        scope: Scope::Session,
        run,
        items,
        copy_model: "l2-model",
        attempts,
        start: None,
        sources: &[],
        by_model: &[],
        earlier: &[],
        recency: &[],
    }
}

#[test]
fn a_grounded_merge_updates_the_running_summary() {
    let m = Scripted::new(&[Ok(GOOD)]);
    let r = run(10);
    let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
    match d {
        Decision::Update { content, written } => {
            assert_eq!(content, GOOD);
            assert_eq!((written.origin, written.prompt_version), ("model", prompts::MERGE_VERSION));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
    assert!(!m.last_prompt().contains("NO_MERGE"), "an untrusted model is not asked for the verdict");
    // The summary's word budget, not the 500 tokens a rambling model would take.
    let budget = input(Some(&r), &[NEW], 0).budget();
    assert_eq!(
        *m.max_tokens.lock().unwrap(),
        vec![super::decide::reply_tokens(budget).min(prompts::FOLD_REPLY_TOKENS)]
    );
}

#[test]
fn a_segmenter_shift_starts_a_segment_without_a_model_call() {
    let m = Scripted::new(&[Ok(GOOD)]);
    let r = run(10);
    let mut i = input(Some(&r), &[NEW], 0);
    i.start = Some((StartReason::TopicShift, Some(1.2)));
    assert!(!needs_model(i.items.len(), i.start), "one item copied: no call");
    match decide(Some(&m), &opts(false), &i).unwrap() {
        Decision::Start { content, written, reason, score } => {
            assert_eq!(content, NEW);
            assert_eq!(written.origin, "copy");
            assert_eq!((reason, score), (StartReason::TopicShift, Some(1.2)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 0);
}

#[test]
fn a_trusted_models_no_merge_is_a_topic_shift() {
    let m = Scripted::new(&[Ok("NO_MERGE")]);
    let r = run(10);
    let d = decide(Some(&m), &opts(true), &input(Some(&r), &[NEW], 0)).unwrap();
    assert!(matches!(d, Decision::Start { reason: StartReason::ModelNoMerge, .. }), "{d:?}");
    assert!(m.last_prompt().contains("NO_MERGE"), "a trusted model is asked");
}

#[test]
fn an_untrusted_models_no_merge_is_a_bad_reply_then_extractive() {
    let m = Scripted::new(&[Ok("NO_MERGE")]);
    let r = run(10);
    match decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap() {
        Decision::Update { content, written } => {
            assert_eq!(written.origin, "extractive");
            assert!(content.contains(RUNNING) && content.contains(NEW), "{content}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 2, "asked once more before falling back");
}

#[test]
fn a_full_running_summary_rolls_over() {
    let m = Scripted::new(&[Ok(GOOD)]);
    let r = run(10_000);
    let o = opts(false);
    let mut i = input(Some(&r), &[NEW], 0);
    i.start = forced_start(&o, Some(&r), false);
    match decide(Some(&m), &o, &i).unwrap() {
        Decision::Start { reason, written, .. } => {
            assert_eq!(reason, StartReason::Rollover);
            assert_eq!(written.origin, "copy");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(forced_start(&o, None, false), Some((StartReason::First, None)));
    assert_eq!(forced_start(&o, None, true), Some((StartReason::Pause, None)));
    assert_eq!(forced_start(&o, Some(&run(10)), false), None);
}

#[test]
fn an_invented_fact_is_retried_then_written_extractively() {
    let invented = "The user set up restic backups of /srv to a USB disk encrypted with AES256; the assistant suggested restic check weekly.";
    let m = Scripted::new(&[Ok(invented), Ok(GOOD)]);
    let r = run(10);
    let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
    assert!(
        matches!(&d, Decision::Update { content, written } if content == GOOD && written.origin == "model"),
        "{d:?}"
    );
    assert_eq!(m.calls(), 2, "the second, warmer reply was grounded");
    let m = Scripted::new(&[Ok(invented)]);
    let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
    assert!(matches!(&d, Decision::Update { written, .. } if written.origin == "extractive"), "{d:?}");
}

#[test]
fn a_looping_or_echoing_merge_is_never_stored() {
    let looping = "The user set up restic backups of /srv. They made a backup, then they made a backup, then they made a backup, then they made a backup.";
    let echo = "Running summary: The user set up restic backups of /srv. New turns: - restic check weekly. Reply with the updated summary.";
    for bad in [looping, echo] {
        let m = Scripted::new(&[Ok(bad)]);
        let r = run(10);
        let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
        match d {
            Decision::Update { content, written } => {
                assert_eq!(written.origin, "extractive", "{bad}");
                assert_ne!(content, bad);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn an_unparseable_reply_with_attempts_left_is_retried_next_run() {
    let m = Scripted::new(&[Err(ModelError::BadReply("empty".into()))]);
    let r = run(10);
    let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
    assert!(matches!(&d, Decision::Retry(why) if why == "empty"), "{d:?}");
}

#[test]
fn on_the_last_attempt_the_material_becomes_a_segment_of_its_own() {
    let m = Scripted::new(&[Err(ModelError::BadReply("empty".into()))]);
    let r = run(10);
    let o = opts(false);
    let d = decide(Some(&m), &o, &input(Some(&r), &[NEW], o.max_attempts as i64 - 1)).unwrap();
    match d {
        Decision::Start { content, reason, .. } => {
            assert_eq!(reason, StartReason::FoldFailed);
            assert_eq!(content, NEW);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unavailable_model_stops_the_pass() {
    let m = Scripted::new(&[Err(ModelError::Unavailable("down".into()))]);
    let r = run(10);
    assert!(matches!(decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)), Err(ModelError::Unavailable(_))));
}

#[test]
fn merge_terms_keeps_old_terms_first_without_duplicates() {
    let t = merge_terms("/srv; restic", ["restic check and --password-file for /srv"]);
    assert_eq!(t, "/srv; restic; --password-file");
}

#[test]
fn a_project_fold_keeps_the_key_terms_of_every_l3_it_takes() {
    let fold = Fold {
        key: FoldKey::Project("homelab".into()),
        ids: vec![1, 2],
        items: vec!["backups".into(), "bread".into()],
        copy_model: "m".into(),
        attempts: 0,
        run: None,
        start: None,
        terms: NewTerms::Given(vec!["restic; /srv".into(), "Dutch; /SRV; 70%".into()]),
        by_model: Vec::new(),
        earlier: Vec::new(),
        recency: Vec::new(),
    };
    assert_eq!(fold.key_terms(None), "restic; /srv; Dutch; 70%");
    assert_eq!(fold.key_terms(Some("250 C; restic")), "250 C; restic; /srv; Dutch; 70%");
}

#[test]
fn a_segmenter_shift_over_several_turns_writes_a_fresh_summary_and_never_asks_to_merge() {
    let other = "The user asked how to bake sourdough bread; the assistant suggested a long cold proof.";
    let fresh = format!("{NEW} {other}");
    let m = Scripted::new(&[Ok(&fresh)]);
    let r = run(10);
    let items = [NEW, other];
    let mut i = input(Some(&r), &items, 0);
    i.start = Some((StartReason::TopicShift, Some(0.9)));
    assert!(needs_model(i.items.len(), i.start), "two items are summarised, not copied");
    match decide(Some(&m), &opts(true), &i).unwrap() {
        Decision::Start { content, written, reason, score } => {
            assert_eq!(content, fresh);
            assert_eq!((written.origin, written.prompt_version), ("model", prompts::FRESH_VERSION));
            assert_eq!((reason, score), (StartReason::TopicShift, Some(0.9)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
    let prompt = m.last_prompt();
    assert!(!prompt.contains(RUNNING) && !prompt.contains("Running summary"), "no merge prompt: {prompt}");
    assert!(!prompt.contains("NO_MERGE"), "a fresh summary never asks for the verdict");
}

#[test]
fn a_project_fold_merges_session_summaries_under_the_same_rules() {
    let m = Scripted::new(&[Ok(GOOD)]);
    let r = run(10);
    let mut i = input(Some(&r), &[NEW], 0);
    i.scope = Scope::Project;
    match decide(Some(&m), &opts(false), &i).unwrap() {
        Decision::Update { content, written } => {
            assert_eq!(content, GOOD);
            assert_eq!((written.origin, written.prompt_version), ("model", prompts::MERGE_VERSION));
        }
        other => panic!("{other:?}"),
    }
    let prompt = m.last_prompt();
    assert!(prompt.contains("running summary of a project") && prompt.contains("New session summaries:"), "{prompt}");
}

#[test]
fn on_the_last_attempt_several_turns_are_written_extractively_as_a_segment() {
    let other =
        "The user asked how to prune old restic snapshots; the assistant suggested restic forget --keep-daily 7.";
    let m = Scripted::new(&[Err(ModelError::BadReply("empty".into()))]);
    let r = run(10);
    let o = opts(false);
    let items = [NEW, other];
    match decide(Some(&m), &o, &input(Some(&r), &items, o.max_attempts as i64 - 1)).unwrap() {
        Decision::Start { content, written, reason, .. } => {
            assert_eq!(reason, StartReason::FoldFailed);
            assert_eq!((written.origin, written.prompt_version), ("extractive", prompts::EXTRACTIVE_VERSION));
            assert!(content.contains("restic check weekly") && content.contains("--keep-daily 7"), "{content}");
            assert!(!content.contains("/srv to a USB disk"), "the running summary is not repeated: {content}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 2, "the merge, then a fresh summary, each one bad reply");
}

#[test]
fn project_folds_that_keep_failing_the_check_are_written_extractively_without_asking() {
    use crate::pipeline::payoff::{FIRST_PROBE, PAYOFF, RETRY_PROBE};
    let invented = "The user set up restic backups of /srv to a USB disk encrypted with AES256; the assistant suggested restic check weekly.";
    let m = Scripted::new(&[Ok(invented)]);
    let o = opts(false);
    let r = run(10);
    let mut i = input(Some(&r), &[NEW], 0);
    i.scope = Scope::Project;
    let fold = || match decide(Some(&m), &o, &i).unwrap() {
        Decision::Update { content, written } => {
            assert_eq!(written.origin, "extractive");
            assert!(content.contains("restic check"), "{content}");
        }
        other => panic!("{other:?}"),
    };
    for _ in 0..FIRST_PROBE {
        fold();
    }
    // Retries stopped after RETRY_PROBE: the later probes cost one call.
    let probing = (RETRY_PROBE + FIRST_PROBE) as usize;
    assert_eq!(m.calls(), probing);
    for _ in 0..2 * PAYOFF {
        fold();
    }
    assert_eq!(m.calls() - probing, 2, "one fold in {PAYOFF} still asks");
    // Session folds are counted apart: they still ask.
    let session = input(Some(&r), &[NEW], 0);
    let before = m.calls();
    decide(Some(&m), &o, &session).unwrap();
    assert_eq!(m.calls() - before, 2, "a session fold asks, and asks again");
}

/// Options with `short_fold_words` at `words`.
fn short_opts(words: u64, votes: bool) -> PassOptions {
    let mut o = opts(votes);
    o.summaries.short_fold_words = words;
    o
}

#[test]
fn sources_as_short_as_a_summary_are_kept_in_their_own_words_without_asking() {
    // RUNNING and NEW hold 12 and 15 words: 27 in all.
    let m = Scripted::new(&[Ok(GOOD)]);
    let r = run(10);
    let merge = input(Some(&r), &[NEW], 0);
    match decide(Some(&m), &short_opts(30, false), &merge).unwrap() {
        Decision::Update { content, written } => {
            assert!(content.contains("nightly restic backups") && content.contains("restic check weekly"), "{content}");
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
    let other = "The user asked how to bake sourdough bread; the assistant suggested a long cold proof.";
    let items = [NEW, other];
    let mut fresh = input(None, &items, 0);
    fresh.start = Some((StartReason::TopicShift, Some(0.9)));
    match decide(Some(&m), &short_opts(30, false), &fresh).unwrap() {
        Decision::Start { content, written, reason, .. } => {
            assert!(content.contains("restic check weekly") && content.contains("sourdough"), "{content}");
            assert_eq!((written.origin, reason), ("extractive", StartReason::TopicShift));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 0, "nothing to shorten: the model is not asked");
}

#[test]
fn longer_sources_a_voting_model_and_a_limit_of_zero_still_ask() {
    let r = run(10);
    let merge = input(Some(&r), &[NEW], 0);
    for (o, why) in [
        (short_opts(20, false), "27 words are more than 20"),
        (short_opts(0, false), "0 turns the rule off"),
        (short_opts(100, true), "the merge reply carries the model's topic vote"),
    ] {
        let m = Scripted::new(&[Ok(GOOD)]);
        assert!(short_fold(&o, &merge).is_none(), "{why}");
        assert!(matches!(decide(Some(&m), &o, &merge).unwrap(), Decision::Update { .. }));
        assert_eq!(m.calls(), 1, "{why}");
    }
    // A single item that starts a summary is copied, not kept extractively.
    let mut one = input(None, &[NEW], 0);
    one.start = Some((StartReason::First, None));
    assert!(short_fold(&short_opts(100, false), &one).is_none());
}

#[test]
fn a_pass_whose_folds_are_all_short_does_not_load_the_model() {
    let fold = |items: Vec<String>| Fold {
        key: FoldKey::Session(1),
        ids: vec![1, 2],
        items,
        copy_model: "m".into(),
        attempts: 0,
        run: None,
        start: Some((StartReason::TopicShift, None)),
        terms: NewTerms::Given(Vec::new()),
        by_model: Vec::new(),
        earlier: Vec::new(),
        recency: Vec::new(),
    };
    let o = short_opts(30, false);
    assert!(!fold(vec![NEW.into(), RUNNING.into()]).needs_model(&o), "27 words");
    assert!(fold(vec![NEW.into(), GOOD.into()]).needs_model(&o), "39 words");
}

// --- segment digests (the default L3) ----------------------------------------------------

fn digest_opts() -> PassOptions {
    PassOptions::new("me".into(), Summaries { l3_digest: true, ..Summaries::default() })
}

/// A note's clauses as a digest writes them.
fn said(notes: &[&str]) -> String {
    let clauses: Vec<String> = notes.iter().flat_map(|n| digest::clauses(n)).collect();
    digest::without_repeated_frames(&clauses.iter().map(String::as_str).collect::<Vec<_>>()).join(" ")
}

fn note(l2: &str, turn: &str, by_model: bool) -> Note {
    Note { l2: l2.into(), by_model, turn: turn.into() }
}

const TURN_BACKUP: &str = "How do I back up /srv every night with restic to the USB disk at /mnt/usb?\n\
Run restic -r /mnt/usb/repo backup /srv from a cron line at 02:00, with the password in --password-file.";
const TURN_CHECK: &str = "How do I know the restic backups are good?\nRun restic check weekly; \
read 10% of the data with --read-data-subset=10% once a month.";
const NOTE_BACKUP: &str =
    "The user asked to back up /srv nightly; the assistant suggested restic to /mnt/usb at 02:00 with --password-file.";
const NOTE_CHECK: &str =
    "The user asked how to verify backups; the assistant suggested restic check weekly and --read-data-subset=10% monthly.";

#[test]
fn a_digest_is_the_models_topic_line_then_the_notes_and_is_the_models_when_it_wrote_both() {
    let m = Scripted::new(&[Ok("Nightly restic backups of /srv")]);
    let r = run(10);
    let earlier = [note(NOTE_BACKUP, TURN_BACKUP, true)];
    let items = [NOTE_CHECK];
    let sources = [TURN_CHECK];
    let mut i = input(Some(&r), &items, 0);
    i.sources = &sources;
    i.by_model = &[true];
    i.earlier = &earlier;
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Update { content, written } => {
            // The request the topic line restates ("The user asked to back up /srv nightly") is left out.
            let clauses: Vec<String> =
                [NOTE_BACKUP, NOTE_CHECK].iter().flat_map(|n| digest::clauses(n)).skip(1).collect();
            let body =
                digest::without_repeated_frames(&clauses.iter().map(String::as_str).collect::<Vec<_>>()).join(" ");
            assert_eq!(content, format!("Nightly restic backups of /srv: {body}"));
            assert!(
                !content.contains("back up /srv nightly") && content.contains("--read-data-subset=10%"),
                "{content}"
            );
            assert_eq!((written.origin, written.prompt_version), ("model", prompts::TOPIC_VERSION));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
    assert!(m.last_prompt().contains(NOTE_BACKUP), "the topic is asked over the whole segment's notes");
    assert_eq!(*m.max_tokens.lock().unwrap(), vec![prompts::TOPIC_REPLY_TOKENS]);
}

#[test]
fn a_digest_with_an_extractive_note_is_not_counted_as_the_models() {
    let m = Scripted::new(&[Ok("Restic backups of /srv")]);
    let r = run(10);
    let earlier = [note(NOTE_BACKUP, TURN_BACKUP, false)];
    let mut i = input(Some(&r), &[NOTE_CHECK], 0);
    i.by_model = &[true];
    i.earlier = &earlier;
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Update { content, written } => {
            assert!(content.starts_with("Restic backups of /srv: "), "{content}");
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_topic_line_that_fails_its_check_is_asked_again_then_left_out() {
    // An invented name, then a question: no topic line, the notes alone.
    let m = Scripted::new(&[Ok("Backups with Borgmatic and Hetzner"), Ok("What about backups?")]);
    let mut i = input(None, &[NOTE_BACKUP, NOTE_CHECK], 0);
    i.sources = &[TURN_BACKUP, TURN_CHECK];
    i.by_model = &[true, true];
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, reason, .. } => {
            assert_eq!(content, said(&[NOTE_BACKUP, NOTE_CHECK]));
            assert_eq!((written.origin, reason), ("extractive", StartReason::First));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 2);
}

#[test]
fn a_topic_line_must_name_something_the_segment_opened_with() {
    // The title stands in for the opening note's request: one made of the
    // later notes' words alone would lose what the segment was about. The
    // same reply is a title where the segment opens with those words.
    let later_only = "Verify backups weekly";
    for (notes, sources, want) in [
        ([NOTE_BACKUP, NOTE_CHECK], [TURN_BACKUP, TURN_CHECK], "Nightly restic backups of /srv: "),
        ([NOTE_CHECK, NOTE_BACKUP], [TURN_CHECK, TURN_BACKUP], "Verify backups weekly: "),
    ] {
        let m = Scripted::new(&[Ok(later_only), Ok("Nightly restic backups of /srv")]);
        let mut i = input(None, &notes, 0);
        i.sources = &sources;
        i.by_model = &[true, true];
        match decide(Some(&m), &digest_opts(), &i).unwrap() {
            Decision::Start { content, .. } => assert!(content.starts_with(want), "{content}"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_topic_line_decoded_with_the_segments_words_must_join_them_as_the_segment_does() {
    // Every word is the segment's, but "weekly" and "USB disk" are said of
    // different things: refused, then a line that joins its words as the
    // notes do.
    let m = Scripted::new(&[Ok("Weekly USB disk password checks"), Ok("Restic check weekly")]).held();
    let mut i = input(None, &[NOTE_BACKUP, NOTE_CHECK], 0);
    i.sources = &[TURN_BACKUP, TURN_CHECK];
    i.by_model = &[true, true];
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert!(content.starts_with("Restic check weekly: "), "{content}");
            assert_eq!(written.origin, "model");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 2);
    // The same first line from a server (no vocabulary held) is only
    // checked word by word, and passes.
    let m = Scripted::new(&[Ok("Weekly USB disk password checks")]);
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.starts_with("Weekly USB disk password checks: "), "{content}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_digest_leaves_filler_out_and_keeps_within_the_segments_budget() {
    let filler_turn = "Thanks, that's great!\nYou're welcome!";
    let m = Scripted::new(&[Ok("Restic backups and checks")]);
    // Many notes on one subject: the digest keeps those that add the most
    // within 30% of the turns' words (at least 50), not all of them.
    let notes: Vec<String> = (0..12)
        .map(|n| format!("The user asked about restic snapshot {n} on host{n}; the assistant listed restic forget --keep-daily {n}."))
        .collect();
    let earlier: Vec<Note> = notes.iter().map(|l2| note(l2, TURN_BACKUP, true)).collect();
    let r = run(10);
    let items = [NOTE_CHECK, "The user thanked the assistant."];
    let sources = [TURN_CHECK, filler_turn];
    let mut i = input(Some(&r), &items, 0);
    i.sources = &sources;
    i.by_model = &[true, true];
    i.earlier = &earlier;
    let budget = i.budget();
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Update { content, .. } => {
            assert!(!content.contains("thanked"), "filler is left out: {content}");
            assert!(
                digest::word_count(&content) <= budget,
                "{} words > budget {budget}: {content}",
                digest::word_count(&content)
            );
            assert!(content.contains("--read-data-subset=10%"), "the new note's facts are kept: {content}");
            assert!(content.matches("restic").count() < 25, "a digest, not every note: {content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_fact_every_note_lost_comes_from_the_turn_in_the_room_the_notes_leave_within_the_share() {
    let turn = "How do I know that the restic backups of the home server are good, and that I could restore \
                them after the USB disk fails?\n\
                Run restic check weekly from cron. Once a month, read 10% of the data with --read-data-subset=10% \
                so that corruption on the disk shows early. Keep each run's log in /var/log/restic-check.log. Test \
                a restore of one folder into /tmp every quarter and compare it with diff -r against the live copy.";
    // The model's note kept the check but lost the log's path.
    let l2 = "The user asked how to verify backups; the assistant suggested restic check weekly.";
    let m = Scripted::new(&[Ok("Checking restic backups")]);
    let (items, sources) = ([l2], [turn]);
    let mut i = input(None, &items, 0);
    i.sources = &sources;
    i.by_model = &[true];
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert!(content.starts_with("Checking restic backups: "), "{content}");
            assert!(content.contains("Keep each run's log in /var/log/restic-check.log."), "{content}");
            assert!(!content.contains("from cron"), "what the note says is not said again: {content}");
            let share = (digest::word_count(turn) as f32 * digest::L3_SHARE) as usize;
            assert!(digest::word_count(&content) <= share, "within 30% of the turn: {content}");
            assert_eq!(written.origin, "extractive", "the turn's own words are not the model's");
        }
        other => panic!("{other:?}"),
    }
    // Without the model's topic line the same clause fills the room; the
    // segment of one turn is then no copy of its note.
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert!(content.contains("/var/log/restic-check.log"), "{content}");
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
}

const SLOW_LOGIN: [&str; 8] = [
    "The login page of the shop has been slow for the whole week.",
    "The query log shows SELECT on sessions_v2 taking 840 ms at p95.",
    "Index idx_sessions_user on sessions_v2(user_id) was missing after migration 0042.",
    "Created idx_sessions_user CONCURRENTLY on db-prod-3; the build took 95 s.",
    "Redis TTL in shopfront/cache.py was 5 s instead of 300 s.",
    "Gunicorn workers went from 4 to 9 in deploy/gunicorn.conf.py.",
    "Cache-Control max-age=0 on /static became max-age=86400.",
    "In the end the page felt quick again for everyone who tried it.",
];

#[test]
fn a_digest_keeps_where_the_segment_ended_and_without_a_topic_line_what_it_was_about() {
    // The first and last notes name nothing a greedy coverage weighs
    // highly, and the notes between fill the budget with identifiers.
    let (first, last) = (SLOW_LOGIN[0], SLOW_LOGIN[7]);
    let i = input(None, &SLOW_LOGIN, 0);
    let budget = i.budget();
    assert!(SLOW_LOGIN.iter().map(|n| digest::word_count(n)).sum::<usize>() > budget, "the notes must not all fit");
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert!(content.starts_with(first), "what it was about opens it: {content}");
            assert!(content.ends_with(last), "where it ended closes it: {content}");
            assert!(digest::word_count(&content) <= budget, "{content}");
            assert!(content.contains("idx_sessions_user"), "the facts between are chosen too: {content}");
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
    // A topic line says what it was about; where it ended is still kept.
    let m = Scripted::new(&[Ok("Slow login page of the shop")]);
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.starts_with("Slow login page of the shop: "), "{content}");
            assert!(content.ends_with(last), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_follow_up_request_is_no_clause_of_its_own_in_a_digest() {
    // The agent session's first five turns as imported, and their L2s:
    // "Do it for the whole codebase." stood after its own answer in the
    // digest, naming nothing.
    let turns = [
        "Password reset emails from the shop never arrive. Users on Gmail say nothing shows up, not even in spam.\n[tool Bash: grep -n EMAIL_ shopfront/settings.py]\n[result: 31:EMAIL_HOST = 'smtp.mailgun.org' 32:EMAIL_PORT = 465 33:EMAIL_USE_TLS = True]\n[tool Bash: python manage.py sendtestemail dev@example.com]\n[result: smtplib.SMTPServerDisconnected: Connection unexpectedly closed]\nThe settings pair port 465 (implicit TLS) with EMAIL_USE_TLS, which means STARTTLS, so Mailgun closes the connection. I set EMAIL_PORT = 587 in shopfront/settings.py and kept EMAIL_USE_TLS = True; the other fix would be port 465 with EMAIL_USE_SSL = True.",
        "That fixed it.\nGood: sendtestemail now reports 1 message sent, and the reset mail reached a Gmail inbox in 4 seconds.",
        "Are there other places that open SMTP connections themselves?\n[tool Bash: grep -rn 'smtplib.SMTP' --include=*.py .]\n[result: billing/invoices.py:41: server = smtplib.SMTP_SSL(host, 465) newsletter/send.py:88: server = smtplib.SMTP(host, 25)]\nTwo: billing/invoices.py opens SMTP_SSL on port 465 and newsletter/send.py uses plain port 25; both bypass Django's mail settings.",
        "Do it for the whole codebase.\n[tool Edit: billing/invoices.py]\n[result: The file billing/invoices.py has been updated.]\n[tool Edit: newsletter/send.py]\n[result: The file newsletter/send.py has been updated.]\n[tool Bash: pytest -q]\n[result: 212 passed in 14.2s]\nBoth now send through django.core.mail.send_mail with the EMAIL_* settings, so port 587 with STARTTLS applies everywhere; the test suite passes (212 tests).",
        "ok commit\n[tool Bash: git commit -am 'mail: one SMTP path, port 587 with STARTTLS']\n[result: [main 9c2d1e0] mail: one SMTP path, port 587 with STARTTLS 3 files changed, 9 insertions(+), 14 deletions(-)]\nCommitted as 9c2d1e0.",
    ];
    let notes = [
        "Password reset emails from the shop never arrive — I set EMAIL_PORT = 587 in shopfront/settings.py and kept EMAIL_USE_TLS = True.",
        "Password reset emails from the shop never arrive. (That fixed it) — Good: sendtestemail now reports 1 message sent, and the reset mail reached a Gmail inbox in 4 seconds.",
        "Are there other places that open SMTP connections themselves? — Two: billing/invoices.py opens SMTP_SSL on port 465 and newsletter/send.py uses plain port 25; both bypass Django's mail settings.",
        "Are there other places that open SMTP connections… (Do it for the whole codebase) — Both now send through django.core.mail.send_mail with the EMAIL_* settings.",
        "Do it for the whole codebase. (ok commit) — Committed as 9c2d1e0.",
    ];
    let mut i = input(None, &notes, 0);
    i.sources = &turns;
    i.by_model = &[false; 5];
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(!content.contains("Do it for the whole codebase."), "{content}");
            assert!(content.contains("django.core.mail.send_mail"), "the answer's own words stay: {content}");
            assert!(content.contains("9c2d1e0"), "{content}");
            // The user's question told as asked, and the words that costs
            // counted before the choice: the outcome above still fits.
            assert!(content.contains("The user asked whether there are other places that open SMTP"), "{content}");
            assert!(!content.contains("Are there"), "{content}");
            // A clause told as its side's is chosen on what it says, not
            // on the words that name the side: the fix stays.
            assert!(content.contains("The assistant set EMAIL_PORT = 587"), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_digest_neither_opens_with_small_talk_nor_keeps_it() {
    // A chat's segment as notes of the old extractive L2s, each opening
    // with a greeting: the digest opens with the first news instead.
    let turns = [
        "Jon: Hey Gina, long time no talk! I lost my job at the bank on Monday. They closed the whole branch \
         on Elm Street after the merger, and twelve of us were let go the same morning.\nGina: Hey Jon! Oh no.",
        "Gina: Hope all's good!\nJon: I'm opening a dance studio in Newark next month. My savings cover the \
         rent for a year, and my cousin Ray teaches the salsa classes on weekends.",
        "Gina: Just wanted to say hi!\nJon: Thanks, Gina!",
    ];
    let notes = [
        "Jon: Long time no talk! — Gina: Hey Jon!",
        "Gina: Hope all's good! — Jon: I'm opening a dance studio in Newark next month.",
        "Gina: Just wanted to say hi! — Jon: Thanks, Gina!",
    ];
    let mut i = input(None, &notes, 0);
    i.sources = &turns;
    i.by_model = &[false; 3];
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            for talk in ["Long time no talk", "Hey Jon", "Hope all's good", "say hi", "Thanks, Gina"] {
                assert!(!content.contains(talk), "{talk}: {content}");
            }
            assert!(content.starts_with("Jon: I lost my job at the bank on Monday."), "{content}");
            assert!(content.contains("dance studio in Newark next month"), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_digest_keeps_no_note_that_only_asks_the_other_to_talk() {
    // LoCoMo's session 9 as its notes stood: questions that name nothing
    // took words from what was told.
    let turns = [
        "Melanie: Care to fill me in?\nCaroline: Seeing my mentee's face light up at the support meeting was the best.",
        "Melanie: What's the best part you remember from it?\nCaroline: Next month I'm having an LGBTQ art show with \
         my paintings at the Riverside gallery.",
        "Melanie: Did you show it to Jon?\nCaroline: Yes, Jon loved the sunset one.",
    ];
    let notes = [
        "Melanie: Care to fill me in? — Caroline: Seeing my mentee's face light up at the support meeting was the best.",
        "Melanie: What's the best part you remember from it? — Caroline: Next month I'm having an LGBTQ art show.",
        "Melanie: Did you show it to Jon? — Caroline: Yes, Jon loved the sunset one.",
    ];
    let mut i = input(None, &notes, 0);
    i.sources = &turns;
    i.by_model = &[false; 3];
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            for asked in ["Care to fill me in", "best part you remember"] {
                assert!(!content.contains(asked), "{asked}: {content}");
            }
            assert!(content.contains("LGBTQ art show"), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_question_of_the_turn_is_never_added_beside_the_notes() {
    let turn = "Caroline: Why watercolor rather than oil portraits?\n\
                Melanie: I paint every August at my grandmother's cabin with my two kids. My grandmother's cabin \
                is where I paint, every August, and my two kids come with me to the cabin every August. Every \
                August we paint at the cabin, every single August, at the cabin, and every August the kids paint \
                at the cabin too. The cabin in August is where we paint, my kids and I, every August at the cabin, \
                every August. Last \
                summer I sold three paintings at the Truckee art fair.";
    let l2 = "Melanie paints every August at the cabin.";
    let (items, sources) = ([l2], [turn]);
    let mut i = input(None, &items, 0);
    i.sources = &sources;
    i.by_model = &[true];
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.contains("Truckee art fair"), "what the note lost of the answer: {content}");
            assert!(!content.contains("portraits") && !content.contains('?'), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_one_turn_segment_without_a_topic_line_is_a_copy_and_a_new_segment_leaves_the_old_turns_out() {
    let r = run(10);
    let earlier = [note(NOTE_BACKUP, TURN_BACKUP, true)];
    let mut i = input(Some(&r), &[NOTE_CHECK], 0);
    i.start = Some((StartReason::TopicShift, Some(3.0)));
    i.by_model = &[true];
    i.earlier = &earlier;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, reason, .. } => {
            assert_eq!(content, said(&[NOTE_CHECK]));
            assert_eq!((written.origin, reason), ("copy", StartReason::TopicShift));
        }
        other => panic!("{other:?}"),
    }
}

// --- project digests (the default L4) ----------------------------------------------------

const L3_BACKUPS: &str = "Nightly restic backups of /srv: The user asked to back up /srv nightly. \
Restic to /mnt/usb at 02:00 with --password-file.";
const L3_BREAD: &str = "Baking a first sourdough loaf: Start around 70% hydration. \
Bake in a preheated Dutch oven at 250 C for 20 minutes.";

fn segment_l3(n: usize) -> String {
    format!(
        "Upgrading host{n} to release {n}.4: The user asked how to move host{n} to release {n}.4. \
         Run apt full-upgrade on host{n} after a snapshot named pre-{n}. The reboot of host{n} took {n} minutes."
    )
}

#[test]
fn a_project_digest_is_the_models_topic_line_then_its_segments_newest_first() {
    let m = Scripted::new(&[Ok("Homelab backups and sourdough bread")]);
    let r = run(10);
    let earlier = [note(L3_BACKUPS, L3_BACKUPS, true)];
    let i = project_input(&r, &[L3_BREAD], &earlier);
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Update { content, written } => {
            assert!(
                content.starts_with("Homelab backups and sourdough bread: Baking a first sourdough loaf"),
                "{content}"
            );
            let (bread, backups) = (content.find("250 C").unwrap(), content.find("--password-file").unwrap());
            assert!(bread < backups, "the newest segment comes first: {content}");
            assert_eq!((written.origin, written.prompt_version), ("model", prompts::TOPIC_VERSION));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
    assert!(m.last_prompt().contains("Nightly restic backups of /srv"), "the topic is asked over every segment");
}

#[test]
fn a_project_digest_puts_the_newest_work_first_however_its_segments_were_batched() {
    // The backups segment was the session's last, completed when the
    // session closed: it is folded after the bread segment although its
    // work (its last turn) is the newer.
    let m = Scripted::new(&[Ok("Homelab backups and sourdough bread")]);
    let r = run(10);
    let earlier = [note(L3_BREAD, L3_BREAD, true)];
    let mut i = project_input(&r, &[L3_BACKUPS], &earlier);
    let first = |i: &FoldInput<'_>| match decide(Some(&m), &digest_opts(), i).unwrap() {
        Decision::Update { content, .. } => {
            let (bread, backups) = (content.find("250 C").unwrap(), content.find("--password-file").unwrap());
            if bread < backups {
                "bread"
            } else {
                "backups"
            }
        }
        other => panic!("{other:?}"),
    };
    // Without times, the order given: the item folded last comes first.
    assert_eq!(first(&i), "backups");
    // Bread's work is the newer: it comes first, though folded earlier.
    i.recency = &[2_000, 1_000];
    assert_eq!(first(&i), "bread");
    // And the other way round.
    i.recency = &[1_000, 2_000];
    assert_eq!(first(&i), "backups");
}

#[test]
fn a_project_topic_that_names_one_segments_subject_is_left_out() {
    // The model wrote the backups segment's own topic line as the
    // project's, then a topic of its own that only the backups segment has
    // the words of.
    for reply in ["Nightly restic backups of /srv", "Nightly restic backups to /mnt/usb"] {
        let m = Scripted::new(&[Ok(reply)]);
        let r = run(10);
        let earlier = [note(L3_BACKUPS, L3_BACKUPS, true)];
        let i = project_input(&r, &[L3_BREAD], &earlier);
        match decide(Some(&m), &digest_opts(), &i).unwrap() {
            Decision::Update { content, written } => {
                assert!(content.starts_with("Baking a first sourdough loaf"), "{reply}: {content}");
                assert_eq!(content.matches("Nightly restic backups of /srv").count(), 1, "{content}");
                assert_eq!(written.origin, "extractive");
            }
            other => panic!("{other:?}"),
        }
    }
}

const L3_BACKUPS_LONG: &str =
    "Nightly restic backups of /srv: The user asked to back up /srv nightly to the USB disk. \
Restic writes to /mnt/usb at 02:00 with --password-file /root/.restic-pass. Run restic check weekly to verify \
the repository. A test restore to /tmp matched the originals under diff -r.";
const L3_BREAD_LONG: &str = "Baking a first sourdough loaf: Start around 70% hydration with 500 g of flour. \
Let the dough rise for 4 hours at 24 C. Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on. \
Then bake 20-25 more minutes with the lid off.";

#[test]
fn a_project_digest_is_shorter_than_its_segments_summaries_and_keeps_each_ones_facts() {
    let m = Scripted::new(&[Ok("Homelab backups and sourdough bread")]);
    let r = run(10);
    let earlier = [note(L3_BACKUPS_LONG, L3_BACKUPS_LONG, true)];
    let i = project_input(&r, &[L3_BREAD_LONG], &earlier);
    let (backups, bread) = (digest::word_count(L3_BACKUPS_LONG), digest::word_count(L3_BREAD_LONG));
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Update { content, written } => {
            let topic = "Homelab backups and sourdough bread: ";
            let body = content.strip_prefix(topic).unwrap_or_else(|| panic!("{content}"));
            let n = digest::word_count(body);
            assert!(
                n <= digest::l4_part_budget(backups) + digest::l4_part_budget(bread),
                "each segment gives at most 3/5 of its words, {n} of {}: {body}",
                backups + bread
            );
            // Every sentence is one of a segment's own; each segment keeps
            // some, the newest segment's first.
            let from: Vec<&str> = crate::pipeline::tidy::sentences(body)
                .iter()
                .map(|s| match s.trim_end_matches('.') {
                    s if L3_BREAD_LONG.contains(s) => "bread",
                    s if L3_BACKUPS_LONG.contains(s) => "backups",
                    s => panic!("not a segment's own sentence: {s:?} in {body}"),
                })
                .collect();
            let first_backups = from.iter().position(|&f| f == "backups").expect("the backups segment is kept");
            assert!(first_backups > 0 && from[first_backups..].iter().all(|&f| f == "backups"), "{from:?}: {body}");
            assert_eq!(written.origin, "model");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_project_digest_stays_within_its_cap_however_long_the_history_and_puts_the_newest_first() {
    let m = Scripted::new(&[Ok("Upgrading the hosts")]);
    let segments: Vec<String> = (1..=60).map(segment_l3).collect();
    let earlier: Vec<Note> = segments[..59].iter().map(|s| note(s, s, true)).collect();
    let r = run(10);
    let items = [segments[59].as_str()];
    let mut i = input(Some(&r), &items, 0);
    i.scope = Scope::Project;
    i.by_model = &[false];
    i.earlier = &earlier;
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Update { content, written } => {
            let n = digest::word_count(&content);
            assert!(n <= digest::L4_MAX_WORDS, "{n} words: {content}");
            assert!(n >= digest::L4_MAX_WORDS * 3 / 4, "the cap is used, {n} words: {content}");
            let (newest, next) = (content.find("host60").unwrap(), content.find("host59").unwrap());
            assert!(newest < next, "the newest first, older segments follow: {content}");
            assert!(!content.contains("host1 "), "the oldest give way: {content}");
            assert_eq!(written.origin, "extractive", "a segment the model did not write is not the model's");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_project_digest_without_a_model_is_extractive_and_a_single_segment_a_copy() {
    let mut i = input(None, &[L3_BACKUPS, L3_BREAD], 0);
    i.scope = Scope::Project;
    i.by_model = &[true, true];
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert!(content.starts_with("Baking a first sourdough loaf"), "{content}");
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
    let mut i = input(None, &[L3_BACKUPS], 0);
    i.scope = Scope::Project;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert_eq!((content.as_str(), written.origin), (L3_BACKUPS, "copy"))
        }
        other => panic!("{other:?}"),
    }
    // A single segment's summary too long to be kept whole is cut, not copied.
    let mut i = input(None, &[L3_BACKUPS_LONG], 0);
    i.scope = Scope::Project;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert!(digest::word_count(&content) < digest::word_count(L3_BACKUPS_LONG), "{content}");
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_project_digest_ends_each_segment_on_its_last_statement_not_praise_or_a_goodbye() {
    // A chit-chat segment's summary whose last sentences react and ask.
    let chat = "Camping and pottery: Melanie took the kids camping at the beach in June. \
Caroline joined a pottery class on 2 July and made a bowl for her mom. Melanie signed up for a painting workshop. \
Caroline: The kids look so cute, Mel! Melanie: Wow, congrats! What are you up to next week?";
    let items = [chat, L3_BACKUPS_LONG];
    let mut i = input(None, &items, 0);
    i.scope = Scope::Project;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.contains("Melanie signed up for a painting workshop."), "{content}");
            for noise in ["so cute", "congrats", "next week"] {
                assert!(!content.contains(noise), "{noise}: {content}");
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_project_digest_opens_each_segment_on_a_statement_not_a_remark_or_a_piece() {
    // A segment summary that opens on a remark and on the piece of a
    // sentence cut at "…": its part opens on its first whole statement.
    let chat = "Caroline: That sounds like fun! …the progress I've made. \
Melanie: I took the kids camping at the beach in June. Caroline joined a pottery class on 2 July. \
Melanie signed up for a painting workshop.";
    let items = [chat, L3_BACKUPS_LONG];
    let mut i = input(None, &items, 0);
    i.scope = Scope::Project;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.contains("Melanie: I took the kids camping at the beach in June."), "{content}");
            assert!(content.contains("Melanie signed up for a painting workshop."), "{content}");
            for noise in ["sounds like fun", "the progress"] {
                assert!(!content.contains(noise), "{noise}: {content}");
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_project_digest_says_whose_first_person_sentence_it_keeps() {
    // The segment digest said "Caroline:" once for her two sentences; the
    // project summary keeps the second without the first.
    let chat = "Caroline: That's so funny, Mel! I started creating art at 17 in Sweden. \
Melanie: I play clarinet. Melanie took the kids to the museum on Friday.";
    let items = [chat, L3_BACKUPS_LONG];
    let mut i = input(None, &items, 0);
    i.scope = Scope::Project;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.contains("Caroline: I started creating art at 17 in Sweden."), "{content}");
            assert!(!content.contains("so funny"), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unreadable_topic_reply_is_a_bad_reply_not_a_stop_for_the_segment_or_the_project() {
    // A reply cut in transit ("not JSON") for both tries: the digest is
    // written without a topic line instead of stopping the pass.
    let unreadable = || Err(ModelError::BadReply("reply is not JSON".into()));
    let m = Scripted::new(&[unreadable(), unreadable()]);
    let mut i = input(None, &[NOTE_BACKUP, NOTE_CHECK], 0);
    i.sources = &[TURN_BACKUP, TURN_CHECK];
    i.by_model = &[true, true];
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert_eq!((content, written.origin), (said(&[NOTE_BACKUP, NOTE_CHECK]), "extractive"));
        }
        other => panic!("{other:?}"),
    }
    let m = Scripted::new(&[unreadable(), unreadable()]);
    let mut i = input(None, &[L3_BACKUPS, L3_BREAD], 0);
    i.scope = Scope::Project;
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { written, .. } => assert_eq!(written.origin, "extractive"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_digest_says_a_speakers_label_once_a_run_and_spends_the_words_saved_on_more_facts() {
    // Three turns of one speaker's news, twelve six-word sentences each,
    // every one with three facts of its own ("Then w004 met w005 in
    // w006."); the other speaker only reacts.
    let sentence = |k: usize| format!("Then w{:03} met w{:03} in w{:03}.", 3 * k, 3 * k + 1, 3 * k + 2);
    let turns: Vec<String> = (0..3)
        .map(|t| {
            let news: Vec<String> = (12 * t..12 * t + 12).map(sentence).collect();
            format!("Caroline: {}\nMelanie: Wow, that's great!", news.join(" "))
        })
        .collect();
    let notes: Vec<String> = (0..3).map(|t| format!("Caroline: {}", sentence(12 * t))).collect();
    let items: Vec<&str> = notes.iter().map(String::as_str).collect();
    let sources: Vec<&str> = turns.iter().map(String::as_str).collect();
    let mut i = input(None, &items, 0);
    i.sources = &sources;
    i.by_model = &[false, false, false];
    let budget = i.budget();
    let content = match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => content,
        other => panic!("{other:?}"),
    };
    let words = digest::word_count(&content);
    assert!(words <= budget, "{words} words > budget {budget}: {content}");
    // One speaker throughout: her label once.
    assert_eq!(content.matches("Caroline:").count(), 1, "{content}");
    // The words the labels would have taken went to facts: what is left
    // of the budget is too little for one more six-word sentence.
    assert!(budget - words < 6, "{} of {budget} words unused: {content}", budget - words);
}

// "my" beside "I": no rewrite without the model names the speaker once.
const TURN_GROUP: &str = "Caroline: I went to my support group in Denver yesterday.\nMelanie: How was it?";
const TURN_CAMPING: &str =
    "Melanie: I'm taking my kids camping at Lake Tahoe next month.\nCaroline: Where will you stay?";
const NOTE_GROUP: &str = "Caroline: I went to my support group in Denver yesterday.";
const NOTE_CAMPING: &str = "Melanie: I'm taking my kids camping at Lake Tahoe next month.";

/// Digest options with the model's rewrites of first-person clauses on.
fn rewrite_opts() -> PassOptions {
    let mut o = digest_opts();
    o.summaries.rewrite_clauses = true;
    o
}

/// A new segment of two turns whose notes are their speakers' own words.
fn told(items: &'static [&'static str]) -> FoldInput<'static> {
    let mut i = input(None, items, 0);
    i.sources = &[TURN_GROUP, TURN_CAMPING];
    i.by_model = &[false, false];
    i
}

#[test]
fn a_digest_says_in_the_third_person_what_was_said_in_the_first_and_is_then_the_models() {
    let m = Scripted::new(&[
        Ok("Support group and camping"),
        Ok("Caroline went to her support group in Denver yesterday."),
        Ok("Melanie is taking her kids camping at Lake Tahoe next month."),
    ]);
    match decide(Some(&m), &rewrite_opts(), &told(&[NOTE_GROUP, NOTE_CAMPING])).unwrap() {
        Decision::Start { content, written, .. } => {
            assert_eq!(
                content,
                "Support group and camping: Caroline went to her support group in Denver yesterday. \
Melanie is taking her kids camping at Lake Tahoe next month."
            );
            assert_eq!((written.origin, written.prompt_version), ("model", prompts::REWRITE_VERSION));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 3);
    assert!(m.last_prompt().ends_with(NOTE_CAMPING), "{}", m.last_prompt());
    assert_eq!(m.max_tokens.lock().unwrap()[1], prompts::REWRITE_REPLY_TOKENS);
}

#[test]
fn a_rewrite_that_fails_its_check_leaves_the_clause_as_said_and_the_digest_extractive() {
    // The first rewrite keeps "I"; the second turns next month into tomorrow.
    let m = Scripted::new(&[
        Ok("Support group and camping"),
        Ok("Caroline said I went to her support group in Denver yesterday."),
        Ok("Melanie is taking her kids camping at Lake Tahoe tomorrow."),
    ]);
    match decide(Some(&m), &rewrite_opts(), &told(&[NOTE_GROUP, NOTE_CAMPING])).unwrap() {
        Decision::Start { content, written, .. } => {
            assert_eq!(content, format!("Support group and camping: {NOTE_GROUP} {NOTE_CAMPING}"));
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 3, "each clause is asked once");
    // Switched off (the default), no rewrite is asked.
    let m = Scripted::new(&[Ok("Support group and camping")]);
    match decide(Some(&m), &digest_opts(), &told(&[NOTE_GROUP, NOTE_CAMPING])).unwrap() {
        Decision::Start { content, .. } => assert!(content.ends_with(NOTE_CAMPING), "{content}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
}

#[test]
fn a_clause_whose_person_alone_changes_is_told_in_the_third_person_without_the_model() {
    const TURN: &str = "Caroline: I went to a support group in Denver yesterday.\nMelanie: How was it?";
    const NOTE: &str = "Caroline: I went to a support group in Denver yesterday.";
    let mut i = input(None, &[NOTE, NOTE_CAMPING], 0);
    i.sources = &[TURN, TURN_CAMPING];
    i.by_model = &[false, false];
    // The default: no model rewrite is asked; only the topic line is.
    let m = Scripted::new(&[Ok("Support group and camping")]);
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, written, .. } => {
            assert_eq!(
                content,
                format!(
                    "Support group and camping: Caroline went to a support group in Denver yesterday. {NOTE_CAMPING}"
                )
            );
            // Not the model's text: the digest is extractive.
            assert_eq!(written.origin, "extractive");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
}

#[test]
fn a_clause_that_a_first_person_one_goes_on_from_keeps_its_speaker() {
    const TURN: &str = "Melanie: Any songs that mean a lot to you?\nCaroline: I started playing acoustic guitar \
                        about five years ago; it's been a great way to express myself.";
    const NOTE: &str =
        "Caroline: I started playing acoustic guitar about five years ago; it's been a great way to express myself.";
    let mut i = input(None, &[NOTE, NOTE_GROUP], 0);
    i.sources = &[TURN, TURN_GROUP];
    i.by_model = &[false, false];
    let m = Scripted::new(&[Ok("Guitar and a support group")]);
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            // "myself" goes on from "I started …": both stay Caroline's words.
            assert!(
                content.contains(
                    "Caroline: I started playing acoustic guitar about five years ago. It's been a great way"
                ),
                "{content}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn clauses_one_speaker_says_in_a_row_keep_her_label_said_once() {
    const TURN_A: &str = "Caroline: I went to a support group in Denver yesterday.\nMelanie: Wow!";
    const TURN_B: &str = "Caroline: I chose them because they help folks with adoption.\nMelanie: So kind!";
    const NOTE_A: &str = "Caroline: I went to a support group in Denver yesterday.";
    const NOTE_B: &str = "Caroline: I chose them because they help folks with adoption.";
    let mut i = input(None, &[NOTE_A, NOTE_B], 0);
    i.sources = &[TURN_A, TURN_B];
    i.by_model = &[false, false];
    let m = Scripted::new(&[Ok("Support group and adoption")]);
    match decide(Some(&m), &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => assert_eq!(
            content,
            "Support group and adoption: Caroline: I went to a support group in Denver yesterday. \
             I chose them because they help folks with adoption."
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_model_is_not_asked_to_rewrite_a_clause_its_speaker_does_not_say_alone() {
    const TURN_B: &str = "Caroline: I chose them because they help my friends.\nMelanie: So kind!";
    const NOTE_B: &str = "Caroline: I chose them because they help my friends.";
    let mut i = input(None, &[NOTE_GROUP, NOTE_B], 0);
    i.sources = &[TURN_GROUP, TURN_B];
    i.by_model = &[false, false];
    // Rewrites on, and each clause one only the model could tell ("my"):
    // two of Caroline's in a row, so only the topic line is asked.
    let m = Scripted::new(&[Ok("Support group and friends")]);
    match decide(Some(&m), &rewrite_opts(), &i).unwrap() {
        Decision::Start { content, .. } => assert!(content.contains(NOTE_GROUP), "{content}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls(), 1);
}

#[test]
fn a_prose_fold_that_speaks_to_the_speakers_or_quotes_their_lines_is_written_extractively() {
    let turns = [
        "Gina: I passed the adoption agency interviews last Friday!\nJon: Congrats, Gina! You will be a great mom.",
        "Jon: I ran a half marathon in Denver on Sunday.\nGina: Wow, Jon, how did it go?",
    ];
    let items =
        ["Gina passed the adoption agency interviews last Friday.", "Jon ran a half marathon in Denver on Sunday."];
    let fold = |reply: &str| {
        let m = Scripted::new(&[Ok(reply)]);
        let mut i = input(None, &items, 0);
        i.sources = &turns;
        i.start = Some((StartReason::TopicShift, None));
        (decide(Some(&m), &opts(false), &i).unwrap(), m.calls())
    };
    let quoted =
        "Jon: Congrats, Gina, the adoption agency interviews went well! Gina: Wow, Jon, a half marathon in Denver!";
    match fold(quoted) {
        (Decision::Start { written, content, .. }, calls) => {
            assert_eq!(written.origin, "extractive", "{content}");
            assert_eq!(calls, 2, "asked again, warmer, before writing it extractively");
        }
        other => panic!("{other:?}"),
    }
    // A sentence that speaks to a speaker is dropped; the reply's others stand.
    let kept = "Jon ran a half marathon in Denver on Sunday.";
    match fold(&format!("You will be a great mom, Gina passed the adoption agency interviews. {kept}")) {
        (Decision::Start { written, content, .. }, _) => {
            assert_eq!((written.origin, content.as_str()), ("model", kept))
        }
        other => panic!("{other:?}"),
    }
    let good = "Gina passed the adoption agency interviews last Friday. Jon ran a half marathon in Denver on Sunday.";
    match fold(good) {
        (Decision::Start { written, content, .. }, _) => {
            assert_eq!((written.origin, content.as_str()), ("model", good))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_held_prose_fold_that_joins_what_its_turns_keep_apart_is_written_extractively() {
    let turns = [
        "How should I back up my home server's /srv folder every night?\nUse restic with a cron job: restic backup /srv to a repository on a USB disk.",
        "Should the restic repository be encrypted if the disk stays at home?\nrestic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended.",
        "How do I check that the backups can actually be restored?\nRun restic check weekly and do a test restore of one folder into /tmp each month.",
    ];
    let items = [
        "Back up /srv nightly with restic and a cron job to a repository on a USB disk.",
        "restic always encrypts; keep the password in a root-only file passed with --password-file.",
        "Run restic check weekly and a test restore of one folder into /tmp each month.",
    ];
    // What SmolLM2-135M, decoding with the turns' words, wrote of the
    // demo's backup turns (stop 55): cron restores nothing, monthly or not.
    let joined = "Use a root-only file to encrypts one of the backup and pass it with --password-file so cron can restore from that repository on a USB disk each month.";
    let good = "Back up /srv nightly with restic to a USB disk, keep the password in a root-only file passed with --password-file, and run restic check weekly.";
    let fold = |model: Scripted| {
        let mut i = input(None, &items, 0);
        i.sources = &turns;
        i.start = Some((StartReason::TopicShift, None));
        match decide(Some(&model), &opts(false), &i).unwrap() {
            Decision::Start { written, content, .. } => (written.origin, content),
            other => panic!("{other:?}"),
        }
    };
    let (origin, content) = fold(Scripted::new(&[Ok(joined), Ok(good)]).held());
    assert_eq!((origin, content.as_str()), ("model", good), "the joined reply was refused, the second kept");
    // Decoded freely (a server), its words are its own and pairs of them prove nothing.
    let (origin, content) = fold(Scripted::new(&[Ok(joined)]));
    assert_eq!((origin, content.as_str()), ("model", joined));
}

#[test]
fn a_digest_says_whole_the_sentence_whose_two_pieces_it_keeps() {
    // The turn's long sentence is cut at its "and" into two pieces
    // ("…campfire at Lake Tahoe…", "…just enjoy …"); kept one after the
    // other, they are written as the sentence Melanie said.
    let said = "We roast marshmallows, tell stories around the campfire at Lake Tahoe and just enjoy \
each other's company for the whole week in July.";
    let turn = format!(
        "Caroline: Hey Mel, long time no chat! Hope all's good with you and the family, it's been ages! \
What are you up to this summer?\nMelanie: Hey Caroline! So great to hear from you, thanks so much for asking, \
all good here! Busy busy, as always, but hanging in there! {said} Thanks again for asking, Caroline, \
it's so nice to catch up with you! Talk soon, take care of yourself, and keep me posted on everything, okay? \
Hope all goes well!"
    );
    let items = ["Melanie: Summer plans with the kids."];
    let sources = [turn.as_str()];
    let mut i = input(None, &items, 0);
    i.sources = &sources;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.contains(said), "{content}");
            assert!(!content.contains('…'), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_digest_of_a_transcript_without_names_tells_each_side_in_the_third_person() {
    // An agent's session names no speaker: the user's "my …" and the
    // assistant's "I set …" are told as theirs, not in their voices, and
    // the user's "Commit it …" as what they asked for.
    let items = [
        "My sourdough bread comes out dense — Feed the starter until it doubles in 4-6 hours.",
        "Reset mail never arrives — I set EMAIL_PORT = 587 and kept EMAIL_USE_TLS = True.",
        "Commit it with a message that explains the port — Committed as 9c2d1e0.",
    ];
    let turns = [
        "My sourdough bread comes out dense. Why?\nFeed the starter until it doubles in 4-6 hours.",
        "Reset mail never arrives.\nI set EMAIL_PORT = 587 and kept EMAIL_USE_TLS = True.",
        "Commit it with a message that explains the port.\nCommitted as 9c2d1e0.",
    ];
    let mut i = input(None, &items, 0);
    i.sources = &turns;
    match decide(None, &digest_opts(), &i).unwrap() {
        Decision::Start { content, .. } => {
            assert!(content.contains("The user's sourdough bread comes out dense."), "{content}");
            assert!(content.contains("The assistant set EMAIL_PORT = 587 and kept"), "{content}");
            // The user's request, not an instruction to whoever reads it.
            assert!(content.contains("The user asked to commit it with a message"), "{content}");
            let first_person = ["My ", "I set", " my "];
            assert!(first_person.iter().all(|w| !content.contains(w)), "{content}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_project_digest_keeps_no_answer_s_lead_whose_question_it_leaves_out() {
    // A project summary keeps no question between a segment's ends; the
    // answer kept without it loses the "Two:" that answered it.
    // So does the question told as the user's ("The user asked whether …").
    for asked in [
        "Are there other places that open SMTP connections themselves?",
        "The user asked whether there are other places that open SMTP connections themselves.",
    ] {
        let mail = format!(
            "Password reset emails from the shop never arrive. EMAIL_PORT = 587 is set in shopfront/settings.py. \
{asked} Two: billing/invoices.py opens SMTP_SSL on port 465. \
Both now send through django.core.mail.send_mail with the EMAIL_* settings. Committed as 9c2d1e0."
        );
        let items = [mail.as_str(), L3_BACKUPS_LONG];
        let mut i = input(None, &items, 0);
        i.scope = Scope::Project;
        match decide(None, &digest_opts(), &i).unwrap() {
            Decision::Start { content, .. } => {
                assert!(content.contains(" billing/invoices.py opens SMTP_SSL on port 465."), "{content}");
                assert!(!content.contains("Two:"), "{content}");
                assert!(!content.contains("other places"), "{content}");
            }
            other => panic!("{other:?}"),
        }
    }
}
