//! Topic segmentation with the real embedder: ragger's own signals split a
//! session where its topic changes, whatever the memory model says.

use crate::support::{minutes_ago, Env, FakeServer};

/// The demo's conversation: three turns about backups, then (after a
/// pause) three about bread.
const TURNS: [(i64, &str, &str); 6] = [
    (120, "How should I back up my home server's /srv folder every night?",
     "Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 to prune old snapshots."),
    (118, "Should the restic repository be encrypted if the disk stays at home?",
     "restic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended."),
    (116, "How do I check that the backups can actually be restored?",
     "Run restic check weekly and do a test restore of one folder into /tmp each month, comparing it with diff -r."),
    (90, "Different question: my sourdough bread comes out dense. Why?",
     "Usually the starter is too weak or the dough is under-proofed; feed the starter until it doubles in 4-6 hours and let the dough rise until it grows by half."),
    (88, "What hydration should I use for a first sourdough loaf?",
     "Start around 70% hydration: 700 g water per kilo of flour is easy to handle; go wetter once shaping feels comfortable."),
    (86, "How long should I bake it and at what temperature?",
     "Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown."),
];

pub(crate) fn capture_demo(env: &Env) {
    for (i, (ago, user, assistant)) in TURNS.iter().enumerate() {
        let at = minutes_ago(*ago);
        let id = format!("t{i}");
        env.capture("demo", user, assistant, &["--project", "homelab", "--at", &at, "--id", &id]).ok();
    }
}

#[test]
fn a_two_topic_session_splits_into_two_segments_with_the_real_embedder() {
    // A model that never helps: every reply fails the grounding check, so
    // every summary is extractive and never says NO_MERGE.
    let server = FakeServer::fixed("Nothing.");
    let env = Env::new().real_embedder().with_server(&server);
    capture_demo(&env);
    let r = env.run(&["summarize", "--once", "--json", "-v"]).ok();
    assert_eq!(r.json()["topic_shifts"], 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("segmenter: session 1 turn 4: topic signal") && r.stderr.contains("-> new segment"),
        "decisions are logged with -v: {}",
        r.stderr
    );
    // Every judged turn says why it continues or starts a segment.
    for turn in [2, 3, 5, 6] {
        let line = r.stderr.lines().find(|l| l.contains(&format!("session 1 turn {turn}: topic signal"))).unwrap_or("");
        assert!(line.contains("-> continues ("), "turn {turn}: {}", r.stderr);
    }
    let show = env.show("demo");
    let l3: Vec<_> = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).collect();
    let ranges: Vec<&str> = l3.iter().map(|s| s["episode_range"].as_str().unwrap()).collect();
    assert_eq!(ranges, ["1-3", "4-6"], "{show:#}");
    assert_eq!(l3[0]["start_reason"], "first");
    assert_eq!(l3[1]["start_reason"], "topic_shift");
    // The start score is the topic signal of the gap (issue 32; it was the
    // probability of the fitted combination): well above the default floor.
    let signal = l3[1]["start_score"].as_f64().unwrap();
    assert!((2.0..20.0).contains(&signal), "the shift is clear: {}", l3[1]);
    // The segments keep their identifiers, and are written extractively.
    assert!(l3[0]["key_terms"].as_str().unwrap().contains("--password-file"), "{}", l3[0]);
    assert!(l3[1]["key_terms"].as_str().unwrap().contains("250 C"), "{}", l3[1]);
    assert_eq!(l3[0]["origin"], "extractive");
    // One turn vector per turn, computed once: a second pass embeds none.
    let turn_vectors = || -> i64 {
        env.sql().query_row("SELECT count(*) FROM embeddings WHERE kind = 'turn'", [], |r| r.get(0)).unwrap()
    };
    assert_eq!(turn_vectors(), 6);
    let again = env.run(&["summarize", "--once", "--json"]).ok().json();
    assert_eq!(again["embedded"], 0, "{again}");
    assert_eq!(turn_vectors(), 6);
    env.assert_check();
}

#[test]
fn without_an_embedder_a_session_is_not_split_and_the_pass_still_succeeds() {
    let server = FakeServer::fixed("Nothing.");
    // The embedder is disabled, and the small local default would not be
    // asked for NO_MERGE: "embedding" leaves no signal at all.
    let env = Env::new().with_server(&server).with_config("[summaries]\nsegmenter = \"embedding\"");
    capture_demo(&env);
    env.run(&["summarize", "--once"]).ok();
    let show = env.show("demo");
    let l3 = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).count();
    assert_eq!(l3, 1, "{show:#}");
    env.assert_check();
}

#[test]
fn every_identifier_of_the_demo_is_found_by_search() {
    let server = FakeServer::fixed("Nothing.");
    let env = Env::new().real_embedder().with_server(&server);
    capture_demo(&env);
    env.run(&["summarize", "--once"]).ok();
    for term in ["restic", "--password-file", "/srv", "70%", "250 C", "sourdough", "Dutch oven"] {
        let hits = env.run(&["search", "--json", "--", term]).ok().json();
        let hits = hits.as_array().unwrap();
        let found = hits.iter().any(|h| {
            let text = format!("{} {} {}", h["content"], h["key_terms"], h["evidence"]["text"]);
            text.contains(term)
        });
        assert!(found, "{term} not found: {hits:#?}");
    }
}

#[test]
fn a_backlog_folds_one_segment_per_call_when_the_segmenter_decides_alone() {
    // A model that is not asked for a verdict ("embedding"): the backlog
    // folds in batches cut at the segmenter's boundary, and each segment's
    // digest asks the model once for its topic line over all of the
    // segment's notes: one call per segment, not per turn, and no merge.
    let server = FakeServer::fixed("Restic backups and sourdough bread");
    let env = Env::new().real_embedder().with_server(&server).with_config("[summaries]\nsegmenter = \"embedding\"");
    capture_demo(&env);
    env.run(&["summarize", "--once"]).ok();
    let asked: Vec<String> = server.chat_requests().iter().map(|r| r.user()).collect();
    let topics: Vec<&String> = asked.iter().filter(|u| u.contains("Write its topic")).collect();
    let show = env.show("demo");
    let l3: Vec<_> = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).collect();
    let ranges: Vec<&str> = l3.iter().map(|s| s["episode_range"].as_str().unwrap()).collect();
    assert_eq!(ranges, ["1-3", "4-6"], "{show:#}");
    assert_eq!(topics.len(), 2, "one topic call per segment: {topics:#?}");
    assert!(asked.iter().all(|u| !u.contains("Running summary:")), "a merge was asked: {asked:#?}");
    // Each segment's three notes went to the model in one prompt.
    for t in &topics {
        assert_eq!(t.matches("\n- ").count(), 3, "{t}");
    }
    env.assert_check();
}

#[test]
fn a_conversation_that_opens_with_a_salutation_starts_a_segment_and_verbose_says_so() {
    // Two conversations with a public office in one session, the second
    // opening with "Hello": the greeting is held to the floor alone.
    let server = FakeServer::fixed("Nothing.");
    let env = Env::new().real_embedder().with_server(&server);
    let turns = [
        ("I need to renew my passport before a trip in May.", "You can renew by mail with form DS-82 if your last passport was issued within 15 years."),
        ("Do I have to send the old passport along?", "Yes, include the most recent passport with the DS-82; it is returned to you separately."),
        ("How long does a passport renewal by mail take?", "A routine passport renewal by mail takes 6 to 8 weeks; expedited service costs 60 dollars more."),
        ("Hello, I would like to know how to apply for a fishing license.", "Fishing licenses are sold online by the state wildlife agency; a resident annual license costs 25 dollars."),
        ("Is there a discount for seniors?", "Residents aged 65 and over pay 7 dollars for the annual license."),
        ("Can I buy it the same day I go fishing?", "Yes, the online license is valid right away; print it or keep it on your phone."),
    ];
    for (i, (user, assistant)) in turns.iter().enumerate() {
        let at = minutes_ago(60 - 2 * i as i64);
        env.capture("office", user, assistant, &["--at", &at, "--id", &format!("t{i}")]).ok();
    }
    let r = env.run(&["summarize", "--once", "--json", "-v"]).ok();
    let line = |turn: usize| {
        r.stderr.lines().find(|l| l.contains(&format!("session 1 turn {turn}: topic signal"))).unwrap_or("")
    };
    assert!(
        line(4).contains("opens a conversation (the floor alone) yes") && line(4).contains("-> new segment"),
        "{}",
        r.stderr
    );
    for turn in [2, 3, 5, 6] {
        assert!(
            line(turn).contains("opens a conversation (the floor alone) no") && line(turn).contains("-> continues ("),
            "turn {turn}: {}",
            r.stderr
        );
    }
    let show = env.show("office");
    let ranges: Vec<&str> = show["summaries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["level"] == 3)
        .map(|s| s["episode_range"].as_str().unwrap())
        .collect();
    assert_eq!(ranges, ["1-3", "4-6"], "{show:#}");
}
