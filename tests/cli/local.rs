//! End to end on the embedded defaults: the local llama.cpp memory model and
//! the real embedder, no server anywhere.

use crate::support::{minutes_ago, models, Env};

fn local_env() -> Env {
    let gguf = models::gguf();
    Env::new().real_embedder().with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\nthreads = 2\n\
         [summaries]\nmax_tokens = 60\ntemperature = 0.0",
        gguf.display()
    ))
}

#[test]
fn local_model_summarizes_every_turn_and_the_session_and_every_summary_gets_a_vector() {
    let env = local_env();
    let at = minutes_ago(30);
    env.capture(
        "s",
        "How do I list files in a folder with Python?",
        "Use os.listdir(path).",
        &["--project", "p", "--at", &at],
    )
    .ok();
    env.capture(
        "s",
        "And how do I sort them by size?",
        "Use sorted(paths, key=os.path.getsize).",
        &["--project", "p", "--at", &at],
    )
    .ok();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["summarized"]["l2"], 2, "{r}");
    assert_eq!(r["closed_sessions"], 1);
    let show = env.show("s");
    for t in show["turns"].as_array().unwrap() {
        let l2 = t["l2"].as_str().unwrap();
        assert!(!l2.trim().is_empty());
        assert!(!l2.contains("<|"), "template tokens leaked: {l2}");
        assert_eq!(t["state"], "folded");
    }
    let l3: Vec<_> = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).collect();
    assert!(!l3.is_empty());
    let st = env.status();
    assert_eq!(st["unembedded"], 0, "every L2, L3 and L4 has a vector: {st}");
    assert_eq!(st["pending_l4"], 0);
    let model: String = env.sql().query_row("SELECT l2_model FROM turns LIMIT 1", [], |r| r.get(0)).unwrap();
    assert_eq!(model, "local:SmolLM2-135M-Instruct.Q4_1.gguf");
    // The summaries are found again by meaning.
    let hits = env.run(&["search", "listing files in python", "--json"]).ok().json();
    assert_eq!(hits[0]["project"], "p", "{hits}");
    assert!(hits.as_array().unwrap().iter().take(2).any(|h| h["session"] == "s"), "{hits}");
    env.assert_check();
}

/// The embedded model with `parallel` calls decoded together.
fn local_parallel_env(parallel: usize) -> Env {
    let gguf = models::gguf();
    Env::new().with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\nthreads = 2\nparallel = {parallel}\n\
         [summaries]\nmax_tokens = 60\ntemperature = 0.0",
        gguf.display()
    ))
}

/// Turns about distinct made-up services, in three sessions.
const SERVICES: [&str; 9] =
    ["KESTREL", "ORCHID", "PELICAN", "MARLIN", "LANTERN", "GRANITE", "WILLOW", "SPARROW", "CINDER"];

fn capture_services(env: &Env, services: &[&str]) {
    let at = minutes_ago(30);
    for (i, name) in services.iter().enumerate() {
        let session = format!("s{}", i % 3);
        let (user, assistant) = (
            format!("Why does the service {name} restart at night?"),
            format!("{name} restarts because its cron job runs at 02:00."),
        );
        env.capture(&session, &user, &assistant, &["--project", "p", "--at", &at]).ok();
    }
}

#[test]
fn local_model_with_parallel_calls_stores_every_l2_and_folds_every_session() {
    let env = local_parallel_env(4);
    capture_services(&env, &SERVICES);
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["summarized"]["l2"], 9, "{r}");
    assert_eq!(r["closed_sessions"], 3, "{r}");
    for session in ["s0", "s1", "s2"] {
        let show = env.show(session);
        let turns = show["turns"].as_array().unwrap();
        assert_eq!(turns.len(), 3);
        for t in turns {
            let l2 = t["l2"].as_str().unwrap_or_else(|| panic!("no L2: {t}"));
            assert!(!l2.trim().is_empty() && !l2.contains("<|"), "{l2}");
            assert_eq!(t["state"], "folded", "{t}");
            // Each L2 is its own turn's (a reply is never handed to
            // another sequence's request): it names no other service.
            let user = t["user"].as_str().unwrap_or_default();
            for other in SERVICES.iter().filter(|s| !user.contains(*s)) {
                assert!(!l2.contains(other), "L2 of {user:?} names {other}: {l2}");
            }
        }
        let l3 = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).count();
        assert!(l3 >= 1, "session {session} is folded: {show}");
    }
    let n: i64 = env
        .sql()
        .query_row("SELECT count(*) FROM turns WHERE l2_model = 'local:SmolLM2-135M-Instruct.Q4_1.gguf'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(n, 9);
    env.assert_check();
}

#[test]
fn max_seconds_interrupts_a_local_batch_and_its_turns_stay_pending_without_an_attempt() {
    let env = local_parallel_env(4);
    let names: Vec<String> = (0..4).flat_map(|k| SERVICES.iter().map(move |s| format!("{s}{k}"))).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    capture_services(&env, &names);
    // Loading takes a fraction of a second, a step of four L2s about a
    // second on 2 cores: the deadline comes with a batch in flight.
    let r = env.run(&["summarize", "--once", "--json", "--max-seconds", "3"]).ok().json();
    assert!(r["remaining"].as_u64().unwrap() > 0, "the deadline came mid-pass: {r}");
    let rows: Vec<(i64, String, Option<String>, Option<String>)> = {
        let db = env.sql();
        let mut q = db.prepare("SELECT attempts, l2_state, l2, lease_owner FROM turns").unwrap();
        let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    assert_eq!(rows.len(), 36);
    let pending = rows.iter().filter(|(_, state, _, _)| state == "pending").count();
    assert!(pending > 0, "{rows:?}");
    for (attempts, state, l2, lease) in &rows {
        assert_eq!((*attempts, lease), (0, &None), "no attempt counted, no claim left: {rows:?}");
        assert_eq!(state == "pending", l2.is_none(), "{rows:?}");
    }
    env.assert_check();
}

#[test]
fn a_missing_gguf_is_exit_69_naming_the_path_and_touches_nothing() {
    let env = Env::new().with_config("[memory_model]\nbackend = \"local\"\nmodel_path = \"/nonexistent/model.gguf\"");
    env.capture("s", "a", "b", &[]).ok();
    let r = env.run(&["summarize", "--once"]).code(69);
    assert!(r.stderr.contains("/nonexistent/model.gguf"), "{}", r.stderr);
    let attempts: i64 = env.sql().query_row("SELECT attempts FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(attempts, 0);
}

#[test]
fn a_corrupt_gguf_is_exit_69() {
    let env = Env::new();
    let bad = env.path("bad.gguf");
    std::fs::write(&bad, b"GGUF this is not really a model").unwrap();
    let env = env.with_config(&format!("[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"", bad.display()));
    env.capture("s", "a", "b", &[]).ok();
    let r = env.run(&["summarize", "--once"]).code(69);
    assert!(r.stderr.contains("bad.gguf"), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn a_run_with_no_work_loads_no_model() {
    // A model file that is not a GGUF would fail any load: the run
    // succeeds because nothing is loaded.
    let env = Env::new();
    let bad = env.path("bad.gguf");
    std::fs::write(&bad, b"not a model").unwrap();
    let env = env.with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\n[embedder]\nenabled = true\nruntime_path = \"/nonexistent/libonnxruntime.so\"",
        bad.display()
    ));
    let env = Env { config: env.config.replace("[embedder]\nenabled = false\n", ""), ..env };
    env.run(&["summarize", "--once"]).ok();
    env.run(&["housekeeping"]).ok();
}

/// The demo's conversation (backups, then bread) through the real local
/// model on the default settings: every summary within its level's word
/// budget, none a concatenation of what it covers, the invariants kept.
#[test]
fn real_model_summaries_stay_within_their_budgets_and_are_not_concatenations() {
    let gguf = models::gguf();
    let env = Env::new()
        .real_embedder()
        .with_config(&format!("[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\nthreads = 2", gguf.display()));
    let turns = [
        ("How should I back up my home server's /srv folder every night?", "Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 to prune old snapshots."),
        ("Should the restic repository be encrypted if the disk stays at home?", "restic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended."),
        ("How do I check that the backups can actually be restored?", "Run restic check weekly and do a test restore of one folder into /tmp each month, comparing it with diff -r."),
        ("Different question: my sourdough bread comes out dense. Why?", "Usually the starter is too weak or the dough is under-proofed; feed the starter until it doubles in 4-6 hours and let the dough rise until it grows by half."),
        ("What hydration should I use for a first sourdough loaf?", "Start around 70% hydration: 700 g water per kilo of flour is easy to handle; go wetter once shaping feels comfortable."),
        ("How long should I bake it and at what temperature?", "Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown."),
    ];
    for (i, (user, assistant)) in turns.iter().enumerate() {
        let at = minutes_ago(120 - 2 * i as i64);
        env.capture("demo", user, assistant, &["--project", "homelab", "--at", &at]).ok();
    }
    env.run(&["housekeeping"]).ok();
    let show = env.show("demo");
    let words = |s: &str| s.split_whitespace().count();
    let l2s: Vec<String> =
        show["turns"].as_array().unwrap().iter().map(|t| t["l2"].as_str().unwrap().to_string()).collect();
    for l2 in &l2s {
        assert!(words(l2) <= ragger::pipeline::digest::L2_MAX_WORDS, "an L2 over 30 words: {l2}");
    }
    for s in show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3) {
        let content = s["content"].as_str().unwrap();
        assert!(words(content) <= ragger::pipeline::digest::L3_MAX_WORDS, "{content}");
        let (first, last) = s["episode_range"].as_str().unwrap().split_once('-').unwrap();
        let n = last.parse::<usize>().unwrap() - first.parse::<usize>().unwrap() + 1;
        if n > 1 {
            let pasted = l2s.join(" ");
            assert!(!pasted.contains(content.trim()), "an L3 that is its L2s pasted together: {content}");
            // Turn ids are 1..=6 in this fresh database; a backlog folds a segment at once.
            let first: usize = first.parse().unwrap();
            let seg_words: usize = turns[first - 1..first - 1 + n].iter().map(|(u, a)| words(u) + words(a)).sum();
            // The turns a running summary already covers are counted from their length.
            let budget = ragger::pipeline::digest::l3_budget(seg_words) * 6 / 5;
            assert!(words(content) <= budget, "an L3 over its budget of {budget} words: {content}");
        }
    }
    // Each topic's L3 keeps what its turns answered (issue 31's demo goal):
    // a model L2 that drops the lead fact ("250 C") or says "it" for
    // "restic check" is refused, so the turn's own words reach the digest.
    let l3_holding = |turn: usize| -> String {
        let s = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).find(|s| {
            let (a, b) = s["episode_range"].as_str().unwrap().split_once('-').unwrap();
            (a.parse::<usize>().unwrap()..=b.parse().unwrap()).contains(&turn)
        });
        s.expect("an L3 for every turn")["content"].as_str().unwrap().to_string()
    };
    let (backups, bread) = (l3_holding(3), l3_holding(6));
    assert_ne!(backups, bread, "the backups and the bread are one segment");
    for (l3, facts) in [(&backups, ["restic check", "--password-file"]), (&bread, ["70%", "250 C"])] {
        assert!(words(l3) <= 60, "an L3 over 60 words: {l3}");
        for fact in facts {
            assert!(l3.contains(fact), "the L3 lost {fact:?}: {l3}");
        }
    }
    // "Different question:" tells that the subject changed; no summary of
    // the bread keeps it, nor its turn's L2.
    assert!(!bread.contains("Different question") && !l2s[3].contains("Different question"), "{bread}\n{}", l2s[3]);
    let projects = env.run(&["projects", "--json"]).ok().json();
    let l4 = projects[0]["summary"].as_str().unwrap();
    assert!(words(l4) <= ragger::pipeline::digest::L4_MAX_WORDS, "{l4}");
    assert!(!l4.contains("Different question"), "{l4}");
    // The project summary is shorter than its segments' summaries, not
    // the two pasted together, and still says something of each.
    assert!(words(l4) < words(&backups) + words(&bread), "{l4}\n---\n{backups}\n---\n{bread}");
    for fact in ["restic", "250 c"] {
        assert!(l4.to_lowercase().contains(fact), "the L4 lost {fact:?}: {l4}");
    }
    env.assert_check();
}
