use super::*;

fn settings() -> Settings {
    Settings {
        mode: Mode::Auto,
        threshold: 0.3,
        relative: 0.55,
        lexical_weight: 0.5,
        pause_weight: 0.15,
        pause_ms: 20 * 60_000,
        cue_weight: 0.3,
        model_votes: false,
    }
}

/// A turn whose user and assistant text is `text`, at `minute`.
fn turn(id: i64, minute: i64, text: &str, v: &[f32]) -> TurnView {
    TurnView { id, at: minute * 60_000, text: text.into(), user: text.into(), vector: Some(v.to_vec()) }
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

#[test]
fn cues_in_the_users_words() {
    assert_eq!(cue("Different question: my sourdough bread comes out dense. Why?"), Cue::NewTopic);
    assert_eq!(cue("Unrelated, but by the way: how do I renew a passport?"), Cue::NewTopic);
    assert_eq!(cue("How long should I bake it and at what temperature?"), Cue::RefersBack);
    assert_eq!(cue("And what about the nightly job?"), Cue::RefersBack);
    assert_eq!(cue("How should I back up my home server?"), Cue::None);
    assert_eq!(cue(""), Cue::None);
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
    assert!(judged[4].unwrap().total < shift.bar, "{:?}", judged[4]);
}

#[test]
fn a_session_on_one_topic_does_not_split() {
    // Every turn reads a little differently, none is a topic change: the
    // highest score sets the relative bar, the floor keeps it whole.
    let s = settings();
    let turns = session(&[
        ("restic backup of /srv every night", &BACKUP),
        ("restic backup repository encrypted", &[0.95, 0.1, 0.0]),
        ("restic backup check weekly", &[0.97, 0.0, 0.1]),
        ("restic backup prune snapshots", &[0.93, 0.1, 0.1]),
    ]);
    assert_eq!(boundaries(&turns, &s), Vec::<usize>::new());
}

#[test]
fn the_bar_is_relative_to_the_strongest_shift_around() {
    let s = settings();
    // A mild shift (cosine 0.6) splits a session on its own...
    let mild = [0.6, 0.8, 0.0];
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
    assert_eq!(boundaries(&session(&three), &s), [6]);
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
    assert!(yes.total >= yes.bar, "the score alone would split: {yes:?}");
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
    assert!(!later.is_boundary(), "{later:?}");
}

#[test]
fn an_announced_topic_change_raises_the_score_and_a_reference_lowers_it() {
    let s = settings();
    let base = session(&[("restic backup of /srv", &BACKUP), ("sourdough starter", &[0.6, 0.8, 0.0])]);
    let total = |user: &str| {
        let mut t = base.clone();
        t[1].user = user.into();
        judge(&t, &s).unwrap()[1].unwrap()
    };
    let plain = total("sourdough starter");
    let announced = total("Another question: sourdough starter?");
    let back = total("Is it weak?");
    assert!((announced.cue - s.cue_weight).abs() < 1e-6 && announced.total > plain.total, "{announced:?}");
    assert!(back.cue < 0.0 && back.total < plain.total, "{back:?}");
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
    assert_eq!(boundaries(&session(&all), &s), Vec::<usize>::new());
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
