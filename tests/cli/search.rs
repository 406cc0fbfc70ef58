//! `ragger search`, `ragger reembed` and lazy loading of the embedder, with
//! the real all-MiniLM-L6-v2 files. Summaries are written straight into a
//! database that `ragger init` created, so these tests do not depend on
//! the memory model.

use serde_json::Value;

use crate::support::{minutes_ago, Env};

/// Three sessions on distinct topics, in two projects: three turns each
/// (the user's words are the L2's sentence, the reply "ok"), their L2
/// summaries and one L3 summary; the garden session is two days old.
pub(crate) fn seeded(env: &Env) {
    env.run(&["init"]).ok();
    let db = env.sql();
    let now = chrono::Utc::now().timestamp_millis();
    let old = now - 2 * 24 * 3600 * 1000;
    let sessions: [(&str, &str, i64, [&str; 3], &str); 3] = [
        (
            "garden",
            "home",
            old,
            [
                "The user asked when to plant tomato seedlings outdoors.",
                "The user asked how to keep slugs away from the lettuce bed.",
                "The assistant explained how to make compost from kitchen scraps.",
            ],
            "The user is planning a vegetable garden: tomatoes, lettuce, slugs and compost.",
        ),
        (
            "db",
            "work",
            now,
            [
                "The user reported a deadlock between two PostgreSQL transactions.",
                "The assistant suggested adding an index to speed up the slow join query.",
                "The user asked how to run a schema migration without downtime.",
            ],
            "The user is debugging database problems: deadlocks, slow queries and migrations.",
        ),
        (
            "music",
            "home",
            now,
            [
                "The user asked which guitar chords to learn first.",
                "The assistant explained how to tune a guitar by ear.",
                "The user asked how to practise strumming rhythm with a metronome.",
            ],
            "The user is learning to play guitar: chords, tuning and rhythm practice.",
        ),
    ];
    for (i, (name, project, at, l2s, l3)) in sessions.iter().enumerate() {
        let sid = i as i64 + 1;
        // A project known by name, as capture --project NAME stores it.
        db.execute(
            "INSERT OR IGNORE INTO projects (key, name, label, created_at) VALUES (?1, ?1, ?1, ?2)",
            rusqlite::params![project, at],
        )
        .unwrap();
        db.execute(
            "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (?1, ?2, ?3, ?4, ?4, ?4)",
            rusqlite::params![sid, name, project, at],
        )
        .unwrap();
        let mut first = 0;
        let mut last = 0;
        for (j, l2) in l2s.iter().enumerate() {
            let tid = sid * 10 + j as i64;
            db.execute(
                "INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
                 VALUES (?1, ?2, ?3, ?3, ?4, 'ok', 1)",
                rusqlite::params![tid, sid, at + j as i64, l2],
            )
            .unwrap();
            // An UPDATE, as the pipeline does: the FTS trigger fires on it.
            db.execute("UPDATE turns SET l2 = ?1, l2_state = 'done' WHERE id = ?2", rusqlite::params![l2, tid])
                .unwrap();
            if j == 0 {
                first = tid;
            }
            last = tid;
        }
        db.execute(
            "INSERT INTO summaries (level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                    model, prompt_version, created_at, updated_at)
             VALUES (3, ?1, ?2, 'running', ?3, 20, ?4, ?5, 'test', 1, ?6, ?6)",
            rusqlite::params![sid, project, l3, first, last, at],
        )
        .unwrap();
        // The turns are folded into it: a raw turn that matches leads to it.
        db.execute(
            "UPDATE turns SET l3_id = last_insert_rowid(), fold_seq = id WHERE session_id = ?1",
            rusqlite::params![sid],
        )
        .unwrap();
    }
}

pub(crate) fn embedded_env() -> Env {
    let env = Env::new().real_embedder();
    seeded(&env);
    env.run(&["reembed"]).ok();
    env
}

fn search(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    env.run(&all).ok().json().as_array().expect("a JSON list").clone()
}

fn sessions(hits: &[Value]) -> Vec<&str> {
    hits.iter().map(|h| h["session"].as_str().unwrap_or("-")).collect()
}

fn stale(env: &Env) -> i64 {
    env.run(&["reembed", "--dry-run", "--json"]).ok().json()["stale"].as_i64().unwrap()
}

#[test]
fn reembed_embeds_every_summary_and_search_finds_sessions_by_meaning() {
    let env = embedded_env();
    assert_eq!(stale(&env), 0);
    let n: i64 = env.sql().query_row("SELECT count(*) FROM embeddings", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 21, "9 L2 + 3 L3 + 9 turn vectors");
    // Paraphrases that share (almost) no words with the summaries.
    for (query, want) in [
        ("growing vegetables in the backyard", "garden"),
        ("SQL locking issue", "db"),
        ("learning a string instrument", "music"),
        ("tomato", "garden"),
        ("metronome", "music"),
    ] {
        let hits = search(&env, &[query]);
        assert_eq!(sessions(&hits).first().copied(), Some(want), "{query:?}: {hits:#?}");
    }
}

#[test]
fn a_copied_summary_is_found_through_its_turn_not_by_its_own_words() {
    let env = Env::new().real_embedder();
    seeded(&env);
    // A one-turn segment: its L3 is a copy of the turn's L2, whose words
    // ("kennel cough") the turn does not have.
    let db = env.sql();
    let at = chrono::Utc::now().timestamp_millis();
    db.execute_batch(&format!(
        "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (9, 'pets', 'home', {at}, {at}, {at});
         INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
           VALUES (90, 9, {at}, {at}, 'My cat Miso keeps sneezing since we came back from the boarding place.', 'See a vet.', 1);
         UPDATE turns SET l2 = 'The user said the cat may have kennel cough.', l2_state = 'done' WHERE id = 90;
         INSERT INTO summaries (level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                model, prompt_version, created_at, updated_at, origin)
           VALUES (3, 9, 'home', 'running', 'The user said the cat may have kennel cough.', 10, 90, 90, 'test', 1, {at}, {at}, 'copy');
         UPDATE turns SET l3_id = last_insert_rowid(), fold_seq = 1 WHERE id = 90;"
    ))
    .unwrap();
    env.run(&["reembed"]).ok();
    let hits = search(&env, &["kennel cough", "--min-score", "0.3"]);
    assert!(!sessions(&hits).contains(&"pets"), "the copy's own words are no hit: {hits:#?}");
    let hits = search(&env, &["Miso sneezing"]);
    assert_eq!(sessions(&hits).first().copied(), Some("pets"), "{hits:#?}");
    assert_eq!((hits[0]["level"].as_i64(), hits[0]["evidence"]["turn_id"].as_i64()), (Some(3), Some(90)));
    let hits = search(&env, &["kennel cough", "--level", "2"]);
    assert_eq!(hits[0]["id"].as_i64(), Some(90), "the L2 itself is searched with --level 2: {hits:#?}");
}

#[test]
fn search_json_has_the_documented_fields() {
    let env = embedded_env();
    let hits = search(&env, &["--limit", "3", "--min-score", "0", "deadlock between transactions"]);
    assert_eq!(hits.len(), 3);
    let top = &hits[0];
    let mut keys: Vec<&str> = top.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["at", "content", "episode_range", "evidence", "id", "level", "project", "score", "session"]);
    // The turn that said it, shown as evidence of the segment that holds it.
    assert_eq!(top["level"], 3);
    assert_eq!(top["session"], "db");
    assert_eq!(top["project"], "work");
    assert_eq!(top["episode_range"], "20-22");
    assert!(top["content"].as_str().unwrap().contains("deadlocks"));
    assert_eq!(top["evidence"]["turn_id"], 20);
    assert!(top["evidence"]["text"].as_str().unwrap().contains("deadlock between two PostgreSQL"));
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // Turn summaries are hits when asked for.
    let l2 = search(&env, &["--level", "2", "--limit", "1", "--min-score", "0", "deadlock between transactions"]);
    assert_eq!((l2[0]["level"].as_i64(), l2[0]["id"].as_i64()), (Some(2), Some(20)));
    assert_eq!(l2[0]["episode_range"], "20-20");
    let l3 = search(&env, &["--level", "3", "--limit", "1", "--min-score", "0", "database"]);
    assert_eq!(l3[0]["episode_range"], "20-22");
}

#[test]
fn search_filters_by_level_session_project_and_time() {
    // Every candidate (--min-score 0): the filters are what is tested.
    let env = embedded_env();
    let hits = search(&env, &["--min-score", "0", "--level", "3", "guitar"]);
    assert!(!hits.is_empty() && hits.iter().all(|h| h["level"] == 3), "{hits:#?}");
    assert_eq!(hits.len(), 3, "every L3 is a vector candidate");
    let hits = search(&env, &["--min-score", "0", "--level", "2", "guitar"]);
    assert!(hits.iter().all(|h| h["level"] == 2));
    // Without a level a turn stands for its segment: one hit per session.
    let hits = search(&env, &["--min-score", "0", "--session", "garden", "guitar"]);
    assert_eq!(hits.len(), 1);
    assert!(sessions(&hits).iter().all(|s| *s == "garden"));
    let hits = search(&env, &["--min-score", "0", "--level", "2", "--session", "garden", "guitar"]);
    assert_eq!(hits.len(), 3);
    assert!(sessions(&hits).iter().all(|s| *s == "garden"));
    let hits = search(&env, &["--min-score", "0", "--project", "home", "database deadlock"]);
    assert_eq!(sessions(&hits).len(), 2);
    assert!(hits.iter().all(|h| h["project"] == "home"));
    let hits = search(&env, &["--min-score", "0", "--level", "2", "--project", "home", "database deadlock"]);
    assert_eq!(hits.len(), 6);
    assert!(hits.iter().all(|h| h["project"] == "home"));
    let hits = search(&env, &["--min-score", "0", "--since", &minutes_ago(60), "tomato seedlings"]);
    let mut found = sessions(&hits);
    found.sort();
    assert_eq!(found, ["db", "music"], "the garden session is two days old");
    assert!(!sessions(&hits).contains(&"garden"), "the garden session is two days old");
    let hits = search(&env, &["--min-score", "0", "--level", "4", "anything"]);
    assert!(hits.is_empty());
    let bad = env.run(&["search", "--since", "soon", "x"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn search_prints_one_aligned_block_per_result() {
    let env = embedded_env();
    let out = env.run(&["search", "--limit", "2", "--level", "3", "--min-score", "0", "guitar"]).ok().stdout;
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{out}");
    let first: Vec<&str> = blocks[0].lines().collect();
    assert!(first[0].contains("L3") && first[0].contains("music") && first[0].contains("30-32"), "{out}");
    assert!(first[1].starts_with("    The user is learning to play guitar"), "{out}");
}

#[test]
fn reembed_recomputes_vectors_of_another_model() {
    let env = embedded_env();
    let db = env.sql();
    let model: String = db.query_row("SELECT model FROM embeddings LIMIT 1", [], |r| r.get(0)).unwrap();
    db.execute("UPDATE embeddings SET model = 'old-model', vector = zeroblob(4), dim = 1 WHERE row_id % 2 = 0", [])
        .unwrap();
    let changed: i64 =
        db.query_row("SELECT count(*) FROM embeddings WHERE model = 'old-model'", [], |r| r.get(0)).unwrap();
    assert!(changed > 0);
    assert_eq!(stale(&env), changed);
    assert_eq!(env.run(&["reembed", "--dry-run"]).ok().stdout.trim(), changed.to_string());
    // Until then, search uses the vectors it can and still finds by meaning.
    assert_eq!(sessions(&search(&env, &["learning a string instrument"]))[0], "music");
    let r = env.run(&["reembed", "--json"]).ok();
    assert_eq!(r.json()["embedded"], changed);
    assert_eq!(stale(&env), 0);
    let models: Vec<String> = db
        .prepare("SELECT DISTINCT model FROM embeddings")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(models, [model]);
    let dims: i64 = db.query_row("SELECT min(dim) FROM embeddings", [], |r| r.get(0)).unwrap();
    assert_eq!(dims, 384);
}

#[test]
fn reembed_picks_up_a_summary_that_changed_since_it_was_embedded() {
    let env = embedded_env();
    let db = env.sql();
    db.execute(
        "UPDATE summaries SET content = 'The user is now repairing a bicycle: brakes and gears.', version = version + 1
         WHERE session_id = 2",
        [],
    )
    .unwrap();
    assert_eq!(stale(&env), 1);
    env.run(&["reembed"]).ok();
    assert_eq!(stale(&env), 0);
    let hits = search(&env, &["--level", "3", "fixing a bike"]);
    assert_eq!(hits[0]["session"], "db");
}

/// With nothing to embed, neither reembed nor search needs ONNX Runtime.
#[test]
fn nothing_to_embed_needs_no_runtime() {
    let env = Env::new().real_embedder().with_config("");
    let env = Env {
        config: env.config.replace(
            &format!("runtime_path = \"{}\"", crate::support::models::onnx_runtime().display()),
            "runtime_path = \"/nonexistent/libonnxruntime.so\"",
        ),
        ..env
    };
    assert!(env.config.contains("/nonexistent/libonnxruntime.so"), "{}", env.config);
    env.run(&["init"]).ok();
    // Empty database.
    assert_eq!(stale(&env), 0);
    env.run(&["reembed"]).ok();
    let r = env.run(&["search", "anything"]).ok();
    assert_eq!(r.stderr, "ragger: no match for \"anything\"\n", "no warning without vectors");
    // Summaries but no vectors: search is keyword-only and loads nothing.
    seeded(&env);
    let hits = search(&env, &["guitar"]);
    assert!(!hits.is_empty() && sessions(&hits).iter().all(|s| *s == "music"), "{hits:#?}");
    // Something to embed now: the runtime is needed, and missing → 69.
    let r = env.run(&["reembed"]);
    assert_eq!(r.code, 69, "{}", r.stderr);
    assert!(
        r.stderr.contains("/nonexistent/libonnxruntime.so") && r.stderr.contains("fetch-models.sh"),
        "{}",
        r.stderr
    );
}

#[test]
fn search_falls_back_to_keywords_when_the_runtime_is_missing() {
    let env = embedded_env();
    let env = Env { config: env.config.replace("lib/libonnxruntime.so", "lib/missing-libonnxruntime.so"), ..env };
    let r = env.run(&["search", "--json", "compost"]).ok();
    assert!(r.stderr.contains("keyword only"), "{}", r.stderr);
    let hits = r.json();
    assert_eq!(hits[0]["session"], "garden");
}

#[test]
fn disabled_embedder_searches_by_keyword_silently() {
    let env = Env::new();
    seeded(&env);
    let r = env.run(&["search", "--json", "seedlings"]).ok();
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let hits = r.json();
    assert_eq!(hits.as_array().unwrap().len(), 1, "only keyword matches: {hits:#}");
    assert_eq!((hits[0]["level"].as_i64(), hits[0]["session"].as_str()), (Some(3), Some("garden")));
    assert_eq!(hits[0]["evidence"]["turn_id"], 10, "found through the turn that said it");
    // Words match by stem: "planting" finds the turn that said "plant".
    let hits = env.run(&["search", "--json", "planting"]).ok().json();
    assert_eq!(hits[0]["evidence"]["turn_id"], 10, "{hits:#}");
    let r = env.run(&["reembed"]);
    assert_eq!(r.code, 78, "{}", r.stderr);
}

/// A session worked in March 2026 whose summaries (an L3 and the
/// project's L4) were last updated today, as a late pass leaves them.
fn summarised_late(env: &Env) -> (i64, i64) {
    env.run(&["init"]).ok();
    let now = chrono::Utc::now().timestamp_millis();
    let march = chrono::DateTime::parse_from_rfc3339("2026-03-10T09:00:00Z").unwrap().timestamp_millis();
    let last = march + 2 * 3600 * 1000;
    env.sql()
        .execute_batch(&format!(
            "INSERT INTO projects (key, name, root, label, created_at) VALUES ('home', 'home', NULL, 'home', {march});
             INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (1, 'garden', 'home', {march}, {last}, {now});
             INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
               VALUES (10, 1, {march}, {now}, 'When do I plant tomato seedlings?', 'After the last frost.', 1),
                      (11, 1, {last}, {now}, 'And the lettuce?', 'Sow it in rows in early spring.', 1);
             UPDATE turns SET l2 = 'The user asked about planting.', l2_state = 'done';
             INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                    model, prompt_version, created_at, updated_at)
               VALUES (20, 3, 1, 'home', 'complete', 'The user planned a tomato and lettuce garden.', 9, 10, 11, 'test', 1, {now}, {now});
             INSERT INTO summaries (id, level, project, status, content, tokens, first_l3_id, last_l3_id,
                                    model, prompt_version, created_at, updated_at)
               VALUES (30, 4, 'home', 'running', 'A home project: a tomato and lettuce garden.', 9, 20, 20, 'test', 1, {now}, {now});
             UPDATE summaries SET l4_id = 30, l4_state = 'done' WHERE id = 20;
             UPDATE turns SET l3_id = 20, fold_seq = id;"
        ))
        .unwrap();
    (last, now)
}

#[test]
fn search_hits_show_the_time_of_the_last_turn_they_cover_not_of_their_update() {
    let env = Env::new();
    let (last, _now) = summarised_late(&env);
    let want =
        chrono::DateTime::from_timestamp_millis(last).unwrap().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    for level in ["3", "4"] {
        let hits = search(&env, &["--level", level, "--min-score", "0", "tomato garden"]);
        assert_eq!(hits.len(), 1, "{hits:#?}");
        assert_eq!(hits[0]["at"], want.as_str(), "level {level}: the last covered turn's time: {hits:#?}");
    }
    let out = env.run(&["search", "--level", "4", "--min-score", "0", "tomato garden"]).ok().stdout;
    let local = chrono::DateTime::from_timestamp_millis(last).unwrap().with_timezone(&chrono::Local);
    assert!(out.lines().next().unwrap().contains(&local.format("%Y-%m-%d").to_string()), "{out}");
    // `context` dates the project summary the same way.
    let block = env.run(&["context", "--project", "home", "--json"]).ok().json();
    assert_eq!(block["project_summary"]["at"], want.as_str(), "{block:#}");
}
