use super::*;

fn settings() -> Settings {
    Settings {
        mode: Segmenter::Auto,
        threshold: 0.1,
        cut: 0.37,
        lexical_weight: 0.2,
        answer_weight: 0.8,
        pause_weight: 0.15,
        pause_ms: 20 * 60_000,
        cue_weight: 0.6,
        model_votes: false,
    }
}

/// A turn whose user and assistant text is `text`, at `minute`.
fn turn(id: i64, minute: i64, text: &str, v: &[f32]) -> TurnView {
    TurnView {
        id,
        at: minute * 60_000,
        text: text.into(),
        user: text.into(),
        reply_asks: false,
        vector: Some(v.to_vec()),
    }
}

/// Turns one minute apart with these texts and vectors.
fn session(turns: &[(&str, &[f32])]) -> Vec<TurnView> {
    turns.iter().enumerate().map(|(i, (t, v))| turn(i as i64 + 1, i as i64, t, v)).collect()
}

/// The turns (indices) that start a new segment.
fn boundaries(turns: &[TurnView], s: &Settings) -> Vec<usize> {
    let judged = judge(turns, s).expect("all vectors present");
    (0..turns.len()).filter(|&i| judged[i].is_some_and(|sc| sc.is_boundary())).collect()
}

const BACKUP: [f32; 3] = [1.0, 0.0, 0.0];
const BREAD: [f32; 3] = [0.0, 1.0, 0.0];
const TAXES: [f32; 3] = [0.0, 0.0, 1.0];

/// Checks that `test` holds for every text in `yes` and for none in `no`.
#[track_caller]
fn holds_for(test: fn(&str) -> bool, yes: &[&str], no: &[&str]) {
    for text in yes {
        assert!(test(text), "should hold for {text:?}");
    }
    for text in no {
        assert!(!test(text), "should not hold for {text:?}");
    }
}

#[test]
fn cues_in_the_users_words() {
    holds_for(
        announces_topic,
        &[
            "Different question: my sourdough bread comes out dense. Why?",
            "Unrelated, but by the way: how do I renew a passport?",
            "Hi, I need help with my passport renewal.",
            "Good morning! Where do I file form 1040?",
        ],
        &[
            "How long should I bake it and at what temperature?",
            "And what about the nightly job? Hi is the host name.",
            "This is a high priority",
            "",
        ],
    );
}

#[test]
fn questions_and_answers() {
    holds_for(
        is_question,
        &["How should I back up my home server", "the nightly job, does it run at 2?", "Can I use my passport?"],
        &["Yes, I have a passport.", "No, I'm not.", ""],
    );
    holds_for(asks, &["It runs at 2.\nDo you want it earlier? "], &["Is it? It runs at 2."]);
}

#[test]
fn a_two_topic_session_splits_where_the_topic_changes_only() {
    let s = settings();
    let turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &[0.95, 0.1, 0.0]),
        ("check that restic backup restores", &[0.97, 0.05, 0.05]),
        ("sourdough bread comes out dense", &BREAD),
        ("sourdough bread hydration for a loaf", &[0.1, 0.95, 0.0]),
        ("bake the sourdough bread at 250 C", &[0.05, 0.97, 0.05]),
    ]);
    assert_eq!(boundaries(&turns, &s), [3]);
    let judged = judge(&turns, &s).unwrap();
    let shift = judged[3].unwrap();
    assert!(shift.depth > 1.5 && shift.lexical == 1.0, "{shift:?}");
    // The window smears the shift over the gaps beside it; a boundary is the
    // local peak, and the gaps beside it rank below it.
    let (before, after) = (judged[2].unwrap(), judged[4].unwrap());
    assert!(shift.local > 0.0 && before.local < 0.0 && after.local < 0.0, "{judged:?}");
    assert!(before.probability < shift.probability && after.probability < shift.probability, "{judged:?}");
    assert!(judged[4].unwrap().probability < s.cut, "{:?}", judged[4]);
}

#[test]
fn a_session_on_one_topic_does_not_split() {
    // Every turn reads a little differently and shares the topic's words,
    // none is a topic change: the highest score sets the relative bar, the
    // floor on the topic signal keeps the session whole.
    let s = settings();
    let turns = session(&[
        ("restic backup of /srv every night to the nas", &BACKUP),
        ("restic backup of /srv to the nas encrypted", &[0.95, 0.1, 0.0]),
        ("restic backup of /srv every night checked weekly", &[0.97, 0.0, 0.1]),
        ("restic backup of /srv to the nas pruned weekly", &[0.93, 0.1, 0.1]),
    ]);
    let judged = judge(&turns, &s).unwrap();
    assert!(judged.iter().flatten().all(|sc| sc.signal < s.threshold), "{judged:?}");
    assert_eq!(boundaries(&turns, &s), Vec::<usize>::new());
}

#[test]
fn an_answer_to_the_assistants_question_continues_its_topic() {
    // A task-switching dialogue: each new request moves on, but the user's
    // answer to the assistant's question belongs to the request before it.
    let s = settings();
    let mut turns = session(&[
        ("How do I renew my passport by mail?", &[1.0, 0.0, 0.0]),
        ("I was born in Ohio and moved to Texas", &[0.6, 0.8, 0.0]),
        ("What documents prove citizenship for a passport?", &[0.0, 1.0, 0.0]),
        ("Where do I pay the passport fee online?", &[0.0, 0.6, 0.8]),
    ]);
    let plain = boundaries(&turns, &s);
    assert_eq!(plain, [1, 2, 3], "{:?}", judge(&turns, &s));
    turns[0].reply_asks = true; // "Where were you born?"
    let judged = judge(&turns, &s).unwrap();
    assert!(judged[1].unwrap().answers && !judged[2].unwrap().answers, "{judged:?}");
    assert_eq!(boundaries(&turns, &s), [2, 3], "{judged:?}");
    // A question is no answer, even right after the assistant asked one.
    turns[1].reply_asks = true;
    assert!(!judge(&turns, &s).unwrap()[2].unwrap().answers);
}

#[test]
fn a_shift_counts_relative_to_the_strongest_shift_around() {
    let s = settings();
    // A mild shift (cosine 0.8) splits a session on its own...
    let mild = [0.8, 0.6, 0.0];
    let two = [
        ("restic backup of /srv every night", &BACKUP[..]),
        ("restic backup repository encrypted", &BACKUP[..]),
        ("restic backup check weekly", &BACKUP[..]),
        ("restic backup copy offsite disk", &mild[..]),
        ("restic backup copy offsite cloud", &mild[..]),
        ("restic backup copy offsite rotation", &mild[..]),
    ];
    assert_eq!(boundaries(&session(&two), &s), [3]);
    // ...but not beside a join of two unrelated conversations.
    let mut three = two.to_vec();
    three.extend([
        ("income taxes deadline for freelancers", &TAXES[..]),
        ("income taxes deductible home office", &TAXES[..]),
        ("income taxes quarterly payments", &TAXES[..]),
    ]);
    assert_eq!(boundaries(&session(&three), &s), [6], "{:?}", judge(&session(&three), &s));
}

#[test]
fn a_reply_without_a_content_word_never_starts_a_segment() {
    let s = settings();
    let mut turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &BACKUP),
        ("Yes.", &BREAD),
        ("sourdough bread comes out dense", &BREAD),
    ]);
    turns[2].text = "Yes.\nThen we can talk about bread.".into();
    let judged = judge(&turns, &s).unwrap();
    let yes = judged[2].unwrap();
    assert!(!yes.content && !yes.is_boundary(), "{yes:?}");
    assert!(yes.probability >= yes.cut && yes.signal >= yes.floor, "the signals alone would split: {yes:?}");
}

#[test]
fn a_greeting_opens_a_conversation_even_after_the_assistants_question() {
    // A greeting answers no question and needs no content word: "hi" after
    // a reply that asked something starts the next conversation.
    let s = settings();
    let base = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &BACKUP),
        ("restic backup check weekly", &BACKUP),
        ("hi", &BREAD),
        ("sourdough bread comes out dense", &BREAD),
        ("sourdough bread hydration for a loaf", &BREAD),
    ]);
    let mut turns = base.clone();
    turns[2].reply_asks = true; // "Shall I add a check job?"
    let hi = judge(&turns, &s).unwrap()[3].unwrap();
    assert!(greets("hi") && !hi.answers && hi.content, "{hi:?}");
    assert_eq!(boundaries(&turns, &s), [3]);
    // The same opening with real words is no answer either.
    turns[3].user = "Hello, my sourdough bread comes out dense.".into();
    assert!(!judge(&turns, &s).unwrap()[3].unwrap().answers);
    // A plain reply is an answer, and one without content words starts nothing.
    turns[3].user = "ok".into();
    let ok = judge(&turns, &s).unwrap()[3].unwrap();
    assert!(!greets("ok") && ok.answers && !ok.content && !ok.is_boundary(), "{ok:?}");
}

#[test]
fn lexical_novelty_splits_tasks_that_embed_alike() {
    let s = settings();
    let v = [1.0, 0.0, 0.0];
    let turns = session(&[
        ("Fix the nginx upstream timeout in proxy.conf", &v),
        ("The nginx upstream timeout in proxy.conf still fires", &v),
        ("Rename the postgres column created_on in migrations", &v),
        ("The postgres column created_on migrations fail", &v),
    ]);
    let judged = judge(&turns, &s).unwrap();
    assert_eq!(judged[2].unwrap().lexical, 1.0);
    assert_eq!(boundaries(&turns, &s), [2], "{judged:?}");
}

#[test]
fn a_pause_raises_the_score_but_is_not_a_boundary_alone() {
    // Nor together with an unanswered question: the floor is on the topic
    // signal.
    let s = settings();
    let mut turns = session(&[
        ("restic backup of /srv", &BACKUP),
        ("restic backup of /srv again", &BACKUP),
        ("restic backup of /srv again", &BACKUP),
    ]);
    turns[2].at += 600 * 60_000;
    let judged = judge(&turns, &s).unwrap();
    let (soon, later) = (judged[1].unwrap(), judged[2].unwrap());
    assert!(later.pause > soon.pause && (later.pause - s.pause_weight).abs() < 1e-6, "{later:?}");
    assert!(later.total > soon.total && later.signal < later.floor && !later.is_boundary(), "{later:?}");
}

#[test]
fn an_announced_topic_change_raises_the_score_and_a_reference_does_not_lower_it() {
    let s = settings();
    let base = session(&[("restic backup of /srv", &BACKUP), ("sourdough starter", &[0.6, 0.8, 0.0])]);
    let total = |user: &str| {
        let mut t = base.clone();
        t[1].user = user.into();
        judge(&t, &s).unwrap()[1].unwrap()
    };
    let plain = total("sourdough starter");
    let announced = total("Another question: sourdough starter?");
    let greeted = total("Hello! sourdough starter");
    // On the development dialogues a follow-up that opens with "and" or
    // refers back ("what about it?") starts a new segment as often as not.
    let back = total("And is it weak?");
    assert!((announced.cue - s.cue_weight).abs() < 1e-6 && announced.total > plain.total, "{announced:?}");
    assert!((greeted.cue - s.cue_weight).abs() < 1e-6, "{greeted:?}");
    assert!(back.cue == 0.0, "{back:?}");
}

#[test]
fn later_turns_keep_a_single_aside_in_the_segment() {
    let s = settings();
    let aside = [0.8, 0.6, 0.0];
    let past = [
        ("restic backup snapshots for /srv", &BACKUP[..]),
        ("restic backup snapshots daily", &BACKUP[..]),
        ("restic backup snapshots disk usage", &aside[..]),
    ];
    // Live: the aside is the newest turn and looks like a shift.
    let live = judge(&session(&past), &s).unwrap()[2].unwrap();
    // Backlog: the backup topic carries on after it.
    let mut all = past.to_vec();
    all.extend([("restic backup snapshots check", &BACKUP[..]), ("restic backup snapshots restore", &BACKUP[..])]);
    let ahead = judge(&session(&all), &s).unwrap()[2].unwrap();
    assert!(ahead.depth < live.depth, "{live:?} {ahead:?}");
    assert_eq!(boundaries(&session(&all), &s), Vec::<usize>::new(), "{:?}", judge(&session(&all), &s));
}

#[test]
fn missing_vectors_give_no_scores() {
    let s = settings();
    let mut turns = session(&[("a", &BACKUP), ("b", &BREAD)]);
    assert!(judge(&turns, &s).is_some());
    turns[1].vector = None;
    assert!(judge(&turns, &s).is_none());
    assert_eq!(judge(&turns[..0], &s), Some(vec![]));
}

#[test]
fn each_fitted_weight_leans_the_way_its_signal_means() {
    // Refitting may move the weights; it may not turn a signal around (a
    // deeper valley, an answer, a longer request...). Lexical novelty and
    // the cue act mostly through the topic signal, in `local` and
    // `relative_total`; their own weights are small either way.
    let w = |name: &str| {
        let names = [
            "depth",
            "lexical",
            "answers",
            "cue",
            "relative_total",
            "local",
            "asks",
            "reply_asked",
            "adjacent",
            "length",
        ];
        score::WEIGHTS[names.iter().position(|n| *n == name).unwrap()]
    };
    for up in ["depth", "relative_total", "local", "asks", "length"] {
        assert!(w(up) > 0.0, "{up} raises the chance of a boundary");
    }
    for down in ["answers", "reply_asked", "adjacent"] {
        assert!(w(down) < 0.0, "{down} lowers it");
    }
    assert!(w("lexical").abs() < 0.1 && w("cue").abs() < 0.1);
    // The order of the names is the order of `Score::features`.
    let sc = Score {
        depth: 1.0,
        lexical: 2.0,
        cue: 4.0,
        relative_total: 5.0,
        local: 6.0,
        adjacent: 9.0,
        length: 10.0,
        ..Score::default()
    };
    let flagged = Score { answers: true, asks: true, reply_asked: true, ..sc };
    assert_eq!(sc.features(), [1.0, 2.0, 0.0, 4.0, 5.0, 6.0, 0.0, 0.0, 9.0, 10.0]);
    assert_eq!(flagged.features(), [1.0, 2.0, 1.0, 4.0, 5.0, 6.0, 1.0, 1.0, 9.0, 10.0]);
}
