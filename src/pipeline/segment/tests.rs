use super::score::{speakers, stems, user_novelty, Verdict};
use super::*;

/// The settings of the default config.
fn settings() -> Settings {
    crate::pipeline::PassOptions::new("test".into(), crate::config::Summaries::default()).segment
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

/// The turns (indices) that start a new segment, decided one gap after the
/// other as the pass does: each gap knows the turns of the running segment.
fn boundaries(turns: &[TurnView], s: &Settings) -> Vec<usize> {
    let judged = judge(turns, s).expect("all vectors present");
    let mut running = 1;
    let mut out = Vec::new();
    for (i, sc) in judged.iter().enumerate().skip(1) {
        if sc.expect("scored").is_boundary(running, s.min_turns) {
            out.push(i);
            running = 0;
        }
        running += 1;
    }
    out
}

const BACKUP: [f32; 3] = [1.0, 0.0, 0.0];
const BREAD: [f32; 3] = [0.0, 1.0, 0.0];
const TAXES: [f32; 3] = [0.0, 0.0, 1.0];
const OFFSITE: [f32; 3] = [0.5, 0.0, 0.87];

/// Three turns on backups, then three on offsite copies: a mild change.
fn backups_then_offsite() -> Vec<(&'static str, &'static [f32])> {
    vec![
        ("restic backup of /srv every night", &BACKUP[..]),
        ("restic backup repository encrypted", &BACKUP[..]),
        ("restic backup check weekly", &BACKUP[..]),
        ("restic offsite copy to cloud storage", &OFFSITE[..]),
        ("restic offsite copy rotation", &OFFSITE[..]),
        ("restic offsite copy schedule", &OFFSITE[..]),
    ]
}

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
fn a_greeting_is_read_after_the_speakers_label() {
    holds_for(
        greets,
        &[
            "Hi, I need help with my passport renewal.",
            "Caroline: Hey Mel! Long time no talk.",
            "Jon: Good morning, Gina! How was the trip?",
        ],
        &[
            "Caroline: I said hi to the new neighbours.",
            "Error: hello.c does not compile",
            "Then hello again, old bug.",
        ],
    );
    // "Hey" greets but, calling for attention as often, opens no conversation.
    holds_for(
        |u| is_salutation(greeting_of(u)),
        &["Hello, I need help.", "Jon: Good morning, Gina!"],
        &["Hey, the build broke again.", "Caroline: Hey Mel!", "hello.c fails"],
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
fn acknowledgements_and_filler_have_no_substance() {
    holds_for(
        has_substance,
        &[
            "Run the whole e2e suite once more to be safe.",
            "Write a bash script that rotates the nginx logs",
            "and the index",
            "good question about sourdough",
        ],
        &[
            "thanks",
            "ok do it",
            "That fixed it.",
            "Go ahead.",
            "nice, thanks",
            "Yes please",
            "looks good",
            "perfect",
            "",
        ],
    );
}

#[test]
fn thanks_for_kind_words_and_the_speakers_names_have_no_substance() {
    holds_for(
        has_substance,
        &["I appreciate the tip about --password-file"],
        &["Your kind words mean a lot.", "Good luck!"],
    );
    let speakers: std::collections::HashSet<String> = ["caroline", "melanie"].map(String::from).into();
    let beside = |text: &str| has_substance_beside(text, &speakers);
    assert!(!beside("Caroline: Thanks, Melanie! Your kind words mean a lot."));
    assert!(!beside("Melanie: Congrats, Caroline!"));
    assert!(beside("Caroline: Melanie, how did the pottery class go?"));
    // Without the names, a name is a word like any other.
    assert!(has_substance("Thanks, Melanie!"));
}

#[test]
fn the_speakers_are_the_labels_that_open_a_side_of_two_turns_or_more() {
    let turn = |user: &str, assistant: &str| TurnView {
        user: user.into(),
        text: turn_text(user, assistant),
        ..TurnView::default()
    };
    let chat = [
        turn("Caroline: Hey Mel!", "Melanie: Hi Caroline!"),
        turn("Caroline: I joined a group.", "Melanie: Nice!"),
        turn("Error: connection refused on port 5432", "Postgres is not running.\nNote: start it first."),
    ];
    let names = speakers(&chat);
    assert_eq!(names, ["caroline", "melanie"].map(String::from).into());
    // A label seen once, or inside a reply, names no one: "error" stays a word.
    assert!(has_substance_beside("Caroline: the same error again", &names));
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
    assert!(shift.depth > 1.5 && shift.lexical == 1.0 && shift.signal >= s.floor, "{shift:?}");
    // The window smears the shift over the gaps beside it: they are weaker,
    // and the minimum length keeps the gap after the shift from splitting.
    let (before, after) = (judged[2].unwrap(), judged[4].unwrap());
    assert!(before.signal < shift.signal && after.signal < shift.signal, "{judged:?}");
    assert!(before.verdict(2, s.min_turns) != Verdict::NewSegment, "{before:?}");
    assert_eq!(after.verdict(1, s.min_turns) == Verdict::NewSegment, after.signal >= s.strong, "{after:?}");
}

#[test]
fn a_session_on_one_topic_does_not_split() {
    // Every turn reads a little differently and shares the topic's words,
    // none is a topic change: no gap reaches the floor.
    let s = settings();
    let turns = session(&[
        ("restic backup of /srv every night to the nas", &BACKUP),
        ("restic backup of /srv to the nas encrypted", &[0.95, 0.1, 0.0]),
        ("restic backup of /srv every night checked weekly", &[0.97, 0.0, 0.1]),
        ("restic backup of /srv to the nas pruned weekly", &[0.93, 0.1, 0.1]),
    ]);
    let judged = judge(&turns, &s).unwrap();
    assert!(judged.iter().flatten().all(|sc| sc.verdict(5, s.min_turns) == Verdict::Weak), "{judged:?}");
    assert_eq!(boundaries(&turns, &s), Vec::<usize>::new());
}

#[test]
fn filler_and_acknowledgements_never_open_a_segment() {
    // Each of these follows a turn on another subject (its vector and words
    // share nothing with the segment): the signal alone would split.
    let s = settings();
    for filler in [
        "thanks",
        "ok do it",
        "That fixed it.",
        "Go ahead.",
        "nice, thanks",
        "Great chatting with you! Feel free to reach out any time.",
        "Thanks so much for your help, have a nice day.",
    ] {
        let turns = session(&[
            ("restic backup of /srv every night", &BACKUP),
            ("restic backup repository encrypted", &BACKUP),
            ("restic backup check weekly", &BACKUP),
            (filler, &BREAD),
            (filler, &BREAD),
        ]);
        let sc = judge(&turns, &s).unwrap()[3].unwrap();
        assert!(sc.signal >= s.strong, "the signal is overwhelming: {sc:?}");
        assert_eq!(sc.verdict(3, s.min_turns), Verdict::Filler, "{filler:?}: {sc:?}");
        assert_eq!(boundaries(&turns, &s), Vec::<usize>::new(), "{filler:?}");
    }
    // The same shift with words of substance opens one.
    let turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &BACKUP),
        ("restic backup check weekly", &BACKUP),
        ("sourdough bread comes out dense", &BREAD),
        ("sourdough bread hydration", &BREAD),
    ]);
    assert_eq!(boundaries(&turns, &s), [3]);
}

#[test]
fn a_segment_needs_its_minimum_length_unless_the_shift_is_overwhelming() {
    let s = settings();
    assert_eq!(s.min_turns, 3);
    let sc = Score { signal: 3.0, threshold: 2.8, strong: 4.0, substance: true, ..Score::default() };
    // After one or two turns of the running segment a clear shift does not end it...
    assert_eq!(sc.verdict(1, s.min_turns), Verdict::TooShort);
    assert_eq!(sc.verdict(2, s.min_turns), Verdict::TooShort);
    // ...after three it does.
    assert_eq!(sc.verdict(3, s.min_turns), Verdict::NewSegment);
    // An overwhelming shift may leave a segment of one turn.
    let strong = Score { signal: 4.1, ..sc };
    assert_eq!(strong.verdict(1, s.min_turns), Verdict::NewSegment);
    // But it is exempt from the minimum length only: below the session's
    // threshold (beside a stronger shift) it continues.
    let beside = Score { threshold: 4.5, ..strong };
    assert_eq!(beside.verdict(1, s.min_turns), Verdict::Weak);
    assert_eq!(beside.verdict(5, s.min_turns), Verdict::Weak);
    // A longer minimum holds a shift back longer, a shorter one less.
    assert_eq!(sc.verdict(3, 4), Verdict::TooShort);
    assert_eq!(sc.verdict(2, 2), Verdict::NewSegment);

    // In a session: an aside of one turn between two segments on the same
    // subject is not a segment of its own; the change that follows it is
    // judged against the segment it would cut short.
    let aside = [0.6, 0.0, 0.8];
    let turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &BACKUP),
        ("restic backup check weekly", &BACKUP),
        ("income taxes deadline for freelancers", &aside),
        ("sourdough bread comes out dense", &BREAD),
        ("sourdough bread hydration for a loaf", &BREAD),
        ("sourdough bread baking time", &BREAD),
    ]);
    let found = boundaries(&turns, &s);
    let judged = judge(&turns, &s).unwrap();
    let edges: Vec<usize> = std::iter::once(0).chain(found.iter().copied()).chain([turns.len()]).collect();
    let one_turn = edges.windows(2).filter(|w| w[1] - w[0] == 1).count();
    assert_eq!(one_turn, 0, "no one-turn segment: {found:?} {judged:?}");
    assert!(!found.is_empty(), "the session still splits: {judged:?}");
}

#[test]
fn the_threshold_adapts_to_the_sessions_own_signal() {
    let s = settings();
    // A gap above the floor but below RELATIVE times the strongest shift
    // around it (a follow-up beside a change of conversation) does not
    // split; the same gap where nothing around shifts more does.
    let (signal, strongest) = (s.floor + 0.2, (s.floor + 1.0) / RELATIVE);
    let beside = Score {
        signal,
        strongest,
        threshold: s.floor.max(RELATIVE * strongest),
        strong: s.strong,
        substance: true,
        ..Score::default()
    };
    assert_eq!(beside.verdict(4, s.min_turns), Verdict::Weak);
    let alone = Score { strongest: signal, threshold: s.floor.max(RELATIVE * signal), ..beside };
    assert_eq!(alone.verdict(4, s.min_turns), Verdict::NewSegment);

    // judge() sets the threshold from the gaps around that could open a
    // segment: the strongest of them (filler excluded).
    let calm = backups_then_offsite();
    let mut all = calm.clone();
    all.extend([
        ("why does my sourdough bread come out dense?", &BREAD[..]),
        ("sourdough bread hydration", &BREAD[..]),
        ("thanks", &TAXES[..]),
    ]);
    let turns = session(&all);
    let judged = judge(&turns, &s).unwrap();
    let strongest = judged.iter().flatten().filter(|sc| sc.opens()).map(|sc| sc.signal).fold(0.0, f32::max);
    assert!(!judged[8].unwrap().opens(), "{judged:?}");
    let gap = judged[3].unwrap();
    assert!((gap.strongest - strongest).abs() < 1e-5, "{gap:?} {judged:?}");
    assert_eq!(gap.threshold, s.floor.max(RELATIVE * gap.strongest));
    // Beside the change to bread, the milder change to offsite copies is
    // held back; in the session without it, the same change splits.
    assert!(gap.signal >= s.floor && gap.signal < gap.threshold, "{gap:?}");
    assert_eq!(boundaries(&turns, &s), [6], "{judged:?}");
    assert_eq!(boundaries(&session(&calm), &s), [3], "{:?}", judge(&session(&calm), &s));
}

#[test]
fn a_question_of_the_users_own_raises_the_signal_and_an_answer_does_not() {
    let s = settings();
    // A third of the way to another subject.
    let half = [0.87, 0.5, 0.0];
    let texts = |last: &str| {
        session(&[
            ("restic backup of /srv every night", &BACKUP),
            ("restic backup repository encrypted", &BACKUP),
            ("restic backup check weekly", &BACKUP),
            (last, &half),
            (last, &half),
        ])
    };
    let asked = judge(&texts("what flour suits a rye loaf?"), &s).unwrap()[3].unwrap();
    let told = judge(&texts("rye flour suits a dense loaf"), &s).unwrap()[3].unwrap();
    // Every word of the question is new, so it adds the whole weight.
    assert!(asked.novelty == 1.0 && told.novelty == 1.0, "{asked:?} {told:?}");
    assert!((asked.question - s.question_weight).abs() < 1e-6 && told.question == 0.0, "{asked:?} {told:?}");
    assert!((asked.signal - told.signal - s.question_weight).abs() < 1e-4, "{asked:?} {told:?}");
    // A question about what was just said is a follow-up: it names nothing
    // new and adds nothing; one that half-repeats adds half.
    let back = judge(&texts("is the restic backup check weekly?"), &s).unwrap()[3].unwrap();
    assert!(back.novelty == 0.0 && back.question == 0.0, "{back:?}");
    let half_new = judge(&texts("does restic backup sourdough loaves?"), &s).unwrap()[3].unwrap();
    assert!(half_new.novelty > 0.3 && half_new.novelty < 0.7, "{half_new:?}");
    assert!((half_new.question - s.question_weight * half_new.novelty).abs() < 1e-6, "{half_new:?}");
    // An answer to the assistant's question is no request of the user's own.
    let mut answered = texts("rye flour suits a dense loaf");
    answered[2].reply_asks = true;
    let sc = judge(&answered, &s).unwrap()[3].unwrap();
    assert!(sc.answers && sc.question == 0.0 && sc.verdict(3, s.min_turns) == Verdict::Answer, "{sc:?}");
    // A question without a word of substance neither.
    let bare = judge(&texts("ok?"), &s).unwrap()[3].unwrap();
    assert_eq!(bare.question, 0.0, "{bare:?}");
    // A half change of subject splits when the user asks for it, not when
    // the user only says something about it.
    assert_eq!(boundaries(&texts("what flour suits a rye loaf?"), &s), [3]);
    assert_eq!(boundaries(&texts("rye flour suits a dense loaf"), &s), Vec::<usize>::new());
}

#[test]
fn an_answer_to_the_assistants_question_continues_its_topic() {
    let s = settings();
    let mut turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &BACKUP),
        ("restic backup check weekly", &BACKUP),
        ("I was born in Ohio and moved to Texas", &BREAD),
        ("sourdough bread hydration for a loaf", &BREAD),
    ]);
    assert_eq!(boundaries(&turns, &s), [3], "{:?}", judge(&turns, &s));
    turns[2].reply_asks = true; // "Where were you born?"
    let judged = judge(&turns, &s).unwrap();
    assert!(judged[3].unwrap().answers, "{judged:?}");
    assert_eq!(judged[3].unwrap().verdict(3, s.min_turns), Verdict::Answer);
    assert!(!boundaries(&turns, &s).contains(&3));
    // A question is no answer, even right after the assistant asked one.
    turns[3].user = "Where do I pay the passport fee online?".into();
    assert!(!judge(&turns, &s).unwrap()[3].unwrap().answers);
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
    assert!(greets("hi") && !hi.answers && hi.substance, "{hi:?}");
    assert_eq!(boundaries(&turns, &s), [3]);
    // A plain reply is an answer, and one without content words starts nothing.
    turns[3].user = "ok".into();
    let ok = judge(&turns, &s).unwrap()[3].unwrap();
    assert!(!greets("ok") && ok.answers && !ok.substance, "{ok:?}");
    assert_eq!(ok.verdict(3, s.min_turns), Verdict::Filler);
}

#[test]
fn lexical_novelty_raises_the_signal_but_does_not_split_alone() {
    // Two tasks that embed alike: new words alone are no evidence that the
    // topic changed (issue 32: not only "lexically new").
    let s = settings();
    let v = [1.0, 0.0, 0.0];
    let turns = session(&[
        ("Fix the nginx upstream timeout in proxy.conf", &v),
        ("The nginx upstream timeout in proxy.conf still fires", &v),
        ("Rename the postgres column created_on in migrations", &v),
        ("The postgres column created_on migrations fail", &v),
    ]);
    let judged = judge(&turns, &s).unwrap();
    let (new, same) = (judged[2].unwrap(), judged[1].unwrap());
    assert_eq!(new.lexical, 1.0);
    assert!(new.signal > same.signal, "{judged:?}");
    assert_eq!(boundaries(&turns, &s), Vec::<usize>::new(), "{judged:?}");
}

#[test]
fn a_pause_raises_the_signal_but_is_not_a_boundary_alone() {
    let s = settings();
    let mut turns = session(&[
        ("restic backup of /srv", &BACKUP),
        ("restic backup of /srv", &BACKUP),
        ("restic backup of /srv", &BACKUP),
    ]);
    turns[2].at += 600 * 60_000;
    let judged = judge(&turns, &s).unwrap();
    let (soon, later) = (judged[1].unwrap(), judged[2].unwrap());
    assert!(later.pause > soon.pause && (later.pause - s.pause_weight).abs() < 1e-6, "{later:?}");
    assert!(later.signal > soon.signal && !later.is_boundary(5, s.min_turns), "{later:?}");
}

#[test]
fn an_announced_topic_change_raises_the_signal_and_a_reference_does_not() {
    let s = settings();
    let base = session(&[("restic backup of /srv", &BACKUP), ("sourdough starter", &[0.6, 0.8, 0.0])]);
    let score = |user: &str| {
        let mut t = base.clone();
        t[1].user = user.into();
        judge(&t, &s).unwrap()[1].unwrap()
    };
    let plain = score("sourdough starter");
    let announced = score("Another question: sourdough starter?");
    let greeted = score("Hello! sourdough starter");
    let back = score("And is it weak?");
    assert!((announced.cue - s.cue_weight).abs() < 1e-6 && announced.signal > plain.signal, "{announced:?}");
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
fn live_with_only_the_past_a_clear_change_still_splits() {
    // Every-turn mode judges the newest turn with no later turn captured;
    // the decision at a gap never changes once later turns arrive.
    let s = settings();
    let all = [
        ("restic backup of /srv every night", &BACKUP[..]),
        ("restic backup repository encrypted", &BACKUP[..]),
        ("restic backup check weekly", &BACKUP[..]),
        ("income taxes deadline for freelancers", &TAXES[..]),
        ("income taxes deductible home office", &TAXES[..]),
        ("income taxes quarterly payments", &TAXES[..]),
    ];
    for known in 4..=all.len() {
        let turns = session(&all[..known]);
        assert_eq!(boundaries(&turns, &s), [3], "with {known} turns known: {:?}", judge(&turns, &s));
    }
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
fn a_new_request_names_new_words_and_a_follow_up_refers_back() {
    let recent = [stems(["restic backup of /srv every night"]), stems(["check that restic backup restores"])];
    // Every content word of the follow-up was said in the turns before.
    assert_eq!(user_novelty(&stems(["does the restic backup restore it?"]), &recent), 0.0);
    assert_eq!(user_novelty(&stems(["what flour suits a rye loaf?"]), &recent), 1.0);
    assert_eq!(user_novelty(&stems(["restic for a rye loaf?"]), &recent), 2.0 / 3.0);
    // A message without content words names nothing new.
    assert_eq!(user_novelty(&stems(["is it?"]), &recent), 0.0);

    // With the same vectors (a third of the way to another subject), the new request
    // splits and the follow-up does not.
    let s = settings();
    let half = [0.87, 0.5, 0.0];
    let texts = |last: &str| {
        session(&[
            ("restic backup of /srv every night", &BACKUP),
            ("restic backup repository encrypted", &BACKUP),
            ("check that restic backup restores", &BACKUP),
            (last, &half),
            (last, &half),
        ])
    };
    let (new, back) = ("what flour suits a rye loaf?", "does the restic backup restore it?");
    let (asked, followed) = (judge(&texts(new), &s).unwrap()[3].unwrap(), judge(&texts(back), &s).unwrap()[3].unwrap());
    assert!(asked.novelty == 1.0 && followed.novelty == 0.0, "{asked:?} {followed:?}");
    assert!(asked.signal - followed.signal >= NOVELTY_WEIGHT - 1e-4, "{asked:?} {followed:?}");
    assert_eq!(boundaries(&texts(new), &s), [3]);
    assert_eq!(boundaries(&texts(back), &s), Vec::<usize>::new(), "{followed:?}");
}

#[test]
fn the_signal_is_the_sum_that_verbose_explains() {
    // Each part of the signal is kept in the score, so `-v` can say how a
    // decision came about: the adjacent turns' shift is weighed too.
    let s = settings();
    let turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &[0.9, 0.3, 0.1]),
        ("sourdough bread comes out dense", &BREAD),
        ("what about income taxes?", &[0.3, 0.2, 0.9]),
        ("sourdough bread hydration", &[0.1, 0.95, 0.2]),
    ]);
    let judged = judge(&turns, &s).unwrap();
    for (i, sc) in judged.iter().enumerate().skip(1) {
        let sc = sc.unwrap();
        let adjacent = cosine(turns[i - 1].vector.as_deref().unwrap(), turns[i].vector.as_deref().unwrap());
        assert!((sc.adjacent - adjacent).abs() < 1e-6, "{sc:?}");
        let sum = DEPTH_WEIGHT * sc.depth
            + LONG_DEPTH_WEIGHT * sc.long_depth
            + super::score::SIMILARITY_WEIGHT * (1.0 - sc.similarity)
            + s.lexical_weight * sc.lexical
            + ADJACENT_WEIGHT * (1.0 - sc.adjacent)
            + NOVELTY_WEIGHT * sc.novelty
            + sc.cue
            + sc.question
            + sc.pause;
        assert!((sum - sc.signal).abs() < 1e-5, "gap {i}: {sum} != {sc:?}");
    }
    // Two turns far apart in vectors shift more than two close ones.
    assert!(judged[2].unwrap().adjacent < judged[1].unwrap().adjacent, "{judged:?}");
}

#[test]
fn a_salutation_opens_a_conversation_beside_stronger_shifts_and_after_a_short_segment() {
    let s = settings();
    // The rule: a salutation is held to the floor alone, and to no minimum length.
    let sc = Score { signal: 3.6, threshold: 3.4, strong: 4.6, substance: true, ..Score::default() };
    assert_eq!(sc.verdict(1, s.min_turns), Verdict::TooShort);
    assert_eq!(Score { opens_conversation: true, ..sc }.verdict(1, s.min_turns), Verdict::NewSegment);

    // judge(): beside the change to bread, the milder change to offsite
    // copies is held back; opened with a greeting, it starts a conversation.
    let mut talk = backups_then_offsite();
    talk.extend([
        ("why does my sourdough bread come out dense?", &BREAD[..]),
        ("sourdough bread hydration", &BREAD[..]),
    ]);
    assert_eq!(boundaries(&session(&talk), &s), [6]);
    talk[3].0 = "Hi! restic offsite copy to cloud storage";
    let turns = session(&talk);
    let judged = judge(&turns, &s).unwrap();
    let hi = judged[3].unwrap();
    assert!(hi.opens_conversation && hi.threshold == s.floor, "{hi:?}");
    assert!(hi.signal >= s.floor && hi.signal < RELATIVE * hi.strongest, "without the rule it is held back: {hi:?}");
    assert_eq!(boundaries(&turns, &s), [3, 6], "{judged:?}");
    // "Hey" also calls for attention inside a conversation: a cue only.
    talk[3].0 = "Hey! restic offsite copy to cloud storage";
    let hey = judge(&session(&talk), &s).unwrap()[3].unwrap();
    assert!(greets(talk[3].0) && !hey.opens_conversation && hey.threshold > s.floor, "{hey:?}");
    assert_eq!(boundaries(&session(&talk), &s), [6]);
    // A user who greeted in one of the turns just before greets by habit.
    talk[3].0 = "Hi! restic offsite copy to cloud storage";
    talk[1].0 = "Hi, restic backup repository encrypted";
    let habit = judge(&session(&talk), &s).unwrap()[3].unwrap();
    assert!(!habit.opens_conversation, "{habit:?}");
    assert_eq!(boundaries(&session(&talk), &s), [6]);
    // Below the floor a greeting starts nothing ("hi" to the same conversation).
    let mut same = vec![("restic backup of /srv every night", &BACKUP[..]); 6];
    same[3].0 = "hello, restic backup of /srv every night";
    let judged = judge(&session(&same), &s).unwrap();
    assert!(judged[3].unwrap().opens_conversation && judged[3].unwrap().signal < s.floor, "{judged:?}");
    assert_eq!(boundaries(&session(&same), &s), Vec::<usize>::new());
    // After two turns a greeting still opens one (no minimum length):
    // bread, two turns, then "Hello" and taxes, read close to the bread.
    let near = [0.0, 0.96, 0.28];
    let short = session(&[
        ("restic backup of /srv every night", &BACKUP[..]),
        ("restic backup repository encrypted", &BACKUP[..]),
        ("restic backup check weekly", &BACKUP[..]),
        ("why does my sourdough bread come out dense?", &BREAD[..]),
        ("sourdough bread hydration", &BREAD[..]),
        ("Hello, income taxes deadline for freelancers", &near[..]),
        ("income taxes deductible home office", &near[..]),
        ("income taxes quarterly payments", &near[..]),
    ]);
    let judged = judge(&short, &s).unwrap();
    let hello = judged[5].unwrap();
    assert!(hello.overwhelming() < s.strong, "no overwhelming shift: the greeting ends the short segment: {hello:?}");
    assert_eq!(boundaries(&short, &s), [3, 5], "{judged:?}");
}

#[test]
fn beside_a_change_of_conversation_a_shift_it_comes_back_from_is_held_back() {
    // A side question inside the backup conversation reads as differently
    // from its neighbours as a new subject does, but the conversation
    // comes back to backups: the long blocks around it stay alike. The
    // change to taxes lasts, so the long blocks differ too.
    let s = settings();
    let side = [0.34, 0.94, 0.0];
    let turns = session(&[
        ("restic backup snapshots for /srv", &BACKUP),
        ("restic backup snapshots daily", &BACKUP),
        ("restic backup snapshots weekly", &BACKUP),
        ("how big may the backup disk get?", &side),
        ("backup disk usage per snapshot", &side),
        ("restic backup check", &BACKUP),
        ("restic backup restore", &BACKUP),
        ("restic backup prune", &BACKUP),
        ("income taxes deadline for freelancers", &TAXES),
        ("income taxes deductible home office", &TAXES),
        ("income taxes quarterly payments", &TAXES),
        ("income taxes receipts", &TAXES),
        ("income taxes forms", &TAXES),
    ]);
    let judged = judge(&turns, &s).unwrap();
    let (aside, change) = (judged[3].unwrap(), judged[8].unwrap());
    assert!(change.long_depth > 2.0 * aside.long_depth, "{aside:?} {change:?}");
    assert_eq!(boundaries(&turns, &s), [8], "{judged:?}");
    // Weighed without the long blocks, the side question would split too.
    let without = aside.signal - LONG_DEPTH_WEIGHT * aside.long_depth;
    let strongest = change.signal - LONG_DEPTH_WEIGHT * change.long_depth;
    assert!(without >= s.floor.max(RELATIVE * strongest), "{aside:?} {change:?}");
}

#[test]
fn a_farewell_closes_and_a_question_or_a_plain_phrase_does_not() {
    holds_for(
        closes,
        &[
            "Great chatting with you! Feel free to reach out any time.",
            "Thanks so much for your help, have a nice day.",
            "ok, bye",
            "Take care, Mel!",
            "Talk to you later.",
        ],
        &[
            // A farewell that asks something still asks it.
            "Thanks, bye for now, but which port does SMTP use?",
            "I have a good idea for the retry logic",
            "Let me see you're using restic here",
            "Why does my sourdough bread come out dense?",
            "",
        ],
    );
}

#[test]
fn the_long_stretch_counts_toward_an_overwhelming_shift_only_once_it_is_known() {
    // 0.2 of long depth lifts the signal from 3.8 to 5.0, past `strong`.
    let s = settings();
    let shift = |long_known| Score {
        signal: 3.8 + LONG_DEPTH_WEIGHT * 0.2,
        long_depth: 0.2,
        long_known,
        threshold: 3.0,
        strong: s.strong,
        substance: true,
        ..Score::default()
    };
    assert!(shift(true).signal >= s.strong && shift(true).overwhelming() >= s.strong);
    // After a one-turn segment, the newest turn alone is no stretch: too short.
    assert_eq!(shift(false).verdict(1, s.min_turns), Verdict::TooShort);
    assert_eq!(shift(true).verdict(1, s.min_turns), Verdict::NewSegment);
    // Past the minimum length it counts in full either way.
    assert_eq!(shift(false).verdict(3, s.min_turns), Verdict::NewSegment);
    // judge() knows the stretch where two turns from the gap on exist.
    let turns = session(&[("restic backup", &BACKUP), ("sourdough bread", &BREAD), ("sourdough loaf", &BREAD)]);
    let judged = judge(&turns, &s).unwrap();
    assert!(judged[1].unwrap().long_known && !judged[2].unwrap().long_known, "{judged:?}");
}

#[test]
fn small_talk_before_the_first_subject_is_no_segment_of_its_own() {
    let s = settings();
    // The rule: a running segment of small talk alone has no topic to change.
    let sc =
        Score { signal: 9.0, threshold: 2.8, strong: 4.0, substance: true, small_talk_before: 1, ..Score::default() };
    assert_eq!(sc.verdict(1, s.min_turns), Verdict::SmallTalk);
    // A running segment with a turn of substance before the small talk may end.
    assert_eq!(sc.verdict(2, s.min_turns), Verdict::NewSegment);
    assert_eq!(Score { small_talk_before: 0, ..sc }.verdict(1, s.min_turns), Verdict::NewSegment);

    // Which turns are small talk from end to end.
    let hello = "Caroline: Hey Melanie! Just wanted to say hi!\nMelanie: Hey Caroline! Good to talk to you again. What's up? Anything new since last time?";
    assert!(score::is_small_talk_turn(hello));
    assert!(score::is_small_talk_turn("Jon: Hi Gina! Long time no chat!\nGina: Hey Jon! How's it going?"));
    for news in [
        "Caroline: Hey Melanie! I joined a new LGBTQ activist group last Tuesday.\nMelanie: That's awesome!",
        "Hi!\nHello! The nightly restic backup failed with exit code 3.",
        "",
    ] {
        assert!(!score::is_small_talk_turn(news), "{news}");
    }

    // In a session: the greeting opens the segment of the subject it
    // leads to, however different its words and vector.
    let greeting = [0.0, 0.0, 1.0];
    let turns = session(&[
        (hello, &greeting),
        ("Caroline: I joined an activist group last Tuesday.\nMelanie: Tell me more about the group!", &BACKUP),
        ("Caroline: The activist group meets weekly and plans a parade.\nMelanie: A parade sounds fun.", &BACKUP),
        ("Caroline: The group plans the parade route downtown.\nMelanie: Downtown is a great spot.", &BACKUP),
    ]);
    assert_eq!(boundaries(&turns, &s), Vec::<usize>::new(), "{:?}", judge(&turns, &s));
    let judged = judge(&turns, &s).unwrap();
    assert_eq!(judged[1].unwrap().small_talk_before, 1);
    assert_eq!(judged[2].unwrap().small_talk_before, 0);
}
