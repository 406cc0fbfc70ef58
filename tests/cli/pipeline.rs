//! The summarization pipeline against a scripted fake model server whose
//! merge answers depend on the topics in the prompt (the kit's
//! `topic_model`: L2s keep a turn's `[topic:x]` tag, a merge answers
//! NO_MERGE when the new material brings a topic the running summary lacks).

use std::time::Duration;

use serde_json::Value;

use crate::support::{minutes_ago, topic_reply, Action, Env, FakeServer, Recorded};

fn topic_server() -> FakeServer {
    FakeServer::start(topic_reply)
}

fn capture_topics(env: &Env, session: &str, topics: &[&str], extra: &[&str]) {
    for (i, t) in topics.iter().enumerate() {
        env.capture(session, &format!("Question {i} about [topic:{t}]"), &format!("Answer {i}."), extra).ok();
    }
}

fn summaries(show: &Value, level: i64) -> Vec<(String, String)> {
    show["summaries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["level"] == level)
        .map(|s| (s["status"].as_str().unwrap().to_string(), s["episode_range"].as_str().unwrap().to_string()))
        .collect()
}

fn once(env: &Env) -> Value {
    env.run(&["summarize", "--once", "--json"]).ok().json()
}

#[test]
fn every_turn_gets_an_l2_and_l3_segments_split_at_topic_shifts() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["rust", "rust", "rust", "cooking", "cooking", "rust"], &[]);
    let report = once(&env);
    assert_eq!(report["l2"], 6);
    assert_eq!(report["l3_folds"], 6);
    assert_eq!(report["topic_shifts"], 2);
    assert_eq!(report["failed"], 0);
    assert_eq!(report["remaining"], 0);
    assert_eq!(report["model_calls"], server.chat_requests().len(), "every completion asked is counted");
    let show = env.show("s");
    for t in show["turns"].as_array().unwrap() {
        assert!(t["l2"].as_str().unwrap().starts_with("The user asked about [topic:"), "{t}");
        assert_eq!(t["state"], "folded");
    }
    let ids: Vec<i64> = show["turns"].as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect();
    assert_eq!(
        summaries(&show, 3),
        vec![
            ("complete".into(), format!("{}-{}", ids[0], ids[2])),
            ("complete".into(), format!("{}-{}", ids[3], ids[4])),
            ("running".into(), format!("{}-{}", ids[5], ids[5])),
        ]
    );
    // The first L3 of a segment is the L2 itself: no fresh-summary call.
    // Calls: 6 L2 + 5 merges (turns 2-6).
    assert_eq!(server.chat_requests().len(), 11);
    env.assert_check();
}

#[test]
fn a_second_pass_with_nothing_new_makes_no_model_call() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a", "a"], &[]);
    once(&env);
    let before = server.requests().len();
    let report = once(&env);
    assert_eq!(report["l2"], 0);
    assert_eq!(report["l3_folds"], 0);
    assert_eq!(server.requests().len(), before, "no request at all, not even a preflight");
}

#[test]
fn provenance_is_recorded_on_every_derived_row() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a", "a"], &[]);
    once(&env);
    let conn = env.sql();
    let (m, v): (String, i64) = conn
        .query_row("SELECT l2_model, l2_prompt_version FROM turns LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(m, "openai:fake-model");
    assert_eq!(v, ragger::pipeline::prompts::L2_VERSION);
    let (m, v): (String, i64) =
        conn.query_row("SELECT model, prompt_version FROM summaries", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!(m, "openai:fake-model");
    assert_eq!(v, ragger::pipeline::prompts::MERGE_VERSION, "merged by the merge prompt");
}

#[test]
fn no_merge_inside_a_sentence_is_not_a_verdict() {
    // The turns talk about NO_MERGE, so a summary that mentions it is
    // grounded; it is still no verdict.
    let server = FakeServer::start(|r| {
        if r.system().contains("one-sentence") {
            Action::text("The user asked whether NO_MERGE should be used here.")
        } else {
            Action::text("The user said NO_MERGE should not be used here; the summary continues.")
        }
    });
    let env = Env::new().with_server(&server);
    for i in 0..2 {
        env.capture(
            "s",
            "Should NO_MERGE be used here?",
            &format!("No {i}: NO_MERGE should not be used here; the summary continues."),
            &[],
        )
        .ok();
    }
    let report = once(&env);
    assert_eq!(report["topic_shifts"], 0);
    let show = env.show("s");
    assert_eq!(summaries(&show, 3).len(), 1);
    assert!(show["summaries"][0]["content"].as_str().unwrap().contains("NO_MERGE should not"), "{show:#}");
    assert_eq!(show["summaries"][0]["origin"], "model");
}

#[test]
fn verdict_parsing_ignores_case_and_markdown() {
    let server = FakeServer::start(|r| {
        if r.system().contains("one-sentence") {
            Action::text("The user asked a thing.")
        } else {
            Action::text("**no_merge.**")
        }
    });
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a", "b"], &[]);
    assert_eq!(once(&env)["topic_shifts"], 1);
}

#[test]
fn threshold_policy_gates_by_tokens_and_episode_count_and_folds_in_one_call() {
    let server = topic_server();
    let env = Env::new()
        .with_server(&server)
        // Every fold asks (the topic server's turns are short).
        .with_config(
            "[summaries]\nfold = \"threshold\"\nthreshold_tokens = 20\nmin_episodes = 3\nshort_fold_words = 0",
        );
    capture_topics(&env, "s", &["a", "a"], &[]);
    let r = once(&env);
    assert_eq!(r["l2"], 2);
    assert_eq!(r["l3_folds"], 0, "two new L2s are below min_episodes");
    assert_eq!(env.status()["pending_l3"], 2);
    capture_topics(&env, "s", &["a"], &[]);
    let calls = server.chat_requests().len();
    let r = once(&env);
    assert_eq!(r["l3_folds"], 1, "one fold for the whole batch");
    // One L2 call plus one fresh-summary call for the batch of three.
    assert_eq!(server.chat_requests().len(), calls + 2);
    let show = env.show("s");
    let ids: Vec<i64> = show["turns"].as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect();
    assert_eq!(summaries(&show, 3), vec![("running".into(), format!("{}-{}", ids[0], ids[2]))]);
    env.assert_check();
}

#[test]
fn threshold_policy_waits_for_enough_tokens() {
    let server = topic_server();
    let env = Env::new()
        .with_server(&server)
        .with_config("[summaries]\nfold = \"threshold\"\nthreshold_tokens = 100000\nmin_episodes = 2");
    capture_topics(&env, "s", &["a", "a", "a"], &[]);
    assert_eq!(once(&env)["l3_folds"], 0);
    assert_eq!(env.status()["pending_l3"], 3);
}

#[test]
fn threshold_policy_folds_an_idle_session_regardless() {
    let server = topic_server();
    let env = Env::new()
        .with_server(&server)
        .with_config("[summaries]\nfold = \"threshold\"\nthreshold_tokens = 100000\nmin_episodes = 50");
    let at = minutes_ago(30);
    capture_topics(&env, "s", &["a", "a"], &["--at", &at]);
    assert_eq!(once(&env)["l3_folds"], 1);
    assert_eq!(env.status()["pending_l3"], 0);
}

#[test]
fn max_summary_tokens_completes_the_row_and_starts_a_new_one() {
    let server = topic_server();
    let env = Env::new().with_server(&server).with_config("[summaries]\nmax_summary_tokens = 5");
    capture_topics(&env, "s", &["a", "a", "a"], &[]);
    let r = once(&env);
    assert_eq!(r["l3_folds"], 3);
    assert_eq!(r["topic_shifts"], 0);
    let show = env.show("s");
    let l3 = summaries(&show, 3);
    assert_eq!(l3.len(), 3, "every L2 is over the limit, so each starts a row: {l3:?}");
    assert_eq!(l3.iter().filter(|(s, _)| s == "running").count(), 1);
    // No merge calls were needed: only the three L2s.
    assert_eq!(server.chat_requests().len(), 3);
    env.assert_check();
}

#[test]
fn long_input_is_cut_keeping_head_and_tail_visibly() {
    let server = topic_server();
    let env = Env::new().with_server(&server).with_config("[summaries]\nmax_input_chars = 400");
    let long = format!("START {} END", "word ".repeat(2000));
    env.capture("s", &long, "short answer", &[]).ok();
    once(&env);
    let user = server.chat_requests()[0].user();
    assert!(user.contains("START"));
    assert!(user.contains("characters omitted"));
    assert!(user.len() < 1200, "prompt was {} bytes", user.len());
}

#[test]
fn completed_session_summaries_fold_into_the_project_summary() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s1", &["db", "db", "ui"], &["--project", "app"]);
    let r = once(&env);
    // The topic shift completes the first L3, which then folds into L4.
    assert_eq!(r["topic_shifts"], 1);
    assert_eq!(r["l4_folds"], 1);
    let show = env.show("s1");
    let l4 = summaries(&show, 4);
    assert_eq!(l4.len(), 1);
    assert_eq!(l4[0].0, "running");
    let l3_first = show["summaries"][0]["id"].as_i64().unwrap();
    assert_eq!(l4[0].1, format!("{l3_first}-{l3_first}"));
    // A second project session, closed by housekeeping, folds in too.
    let at = minutes_ago(30);
    capture_topics(&env, "s2", &["db"], &["--project", "app", "--at", &at]);
    env.run(&["housekeeping"]).ok();
    let st = env.status();
    assert_eq!(st["pending_l4"], 0);
    let conn = env.sql();
    let folded: i64 = conn
        .query_row("SELECT count(*) FROM summaries WHERE level = 3 AND l4_state = 'done'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(folded, 2);
    env.assert_check();
}

#[test]
fn a_projects_backlog_of_session_summaries_folds_in_one_call() {
    let server = topic_server();
    // A model without a vote folds backlogs in batches (a voting model
    // judges each item on its own); every fold asks (the turns are short).
    let env = Env::new().with_server(&server).with_config("[summaries]\nsegmenter = \"off\"\nshort_fold_words = 0");
    let at = minutes_ago(30);
    capture_topics(&env, "s1", &["db", "db"], &["--project", "app", "--at", &at]);
    capture_topics(&env, "s2", &["ui", "ui"], &["--project", "app", "--at", &at]);
    capture_topics(&env, "s3", &["db"], &["--project", "other", "--at", &at]);
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["summarized"]["l4_folds"], 2, "one fold per project: {r}");
    // A project digest asks the model once for its topic line, over all of
    // the project's segments; other's one L3 needs a topic line too.
    let asked: Vec<String> = server.chat_requests().iter().map(|q| q.user()).collect();
    let project_topics = asked
        .iter()
        .filter(|u| u.contains("Write its topic") && u.contains("[topic:db]") && u.contains("[topic:ui]"))
        .count();
    assert_eq!(project_topics, 1, "app's two L3s in one prompt: {asked:#?}");
    assert!(asked.iter().all(|u| !u.contains("session summaries")), "no prose merge was asked: {asked:#?}");
    let conn = env.sql();
    let (l4s, l3s): (i64, i64) = conn
        .query_row(
            "SELECT count(DISTINCT l4_id), count(*) FROM summaries WHERE level = 3 AND project = 'app' AND l4_state = 'done'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((l4s, l3s), (1, 2), "both of app's L3s went into one L4");
    let (first, last): (i64, i64) = conn
        .query_row("SELECT first_l3_id, last_l3_id FROM summaries WHERE level = 4 AND project = 'app'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert!(first < last, "the L4's range spans both L3s: {first}-{last}");
    env.assert_check();
}

#[test]
fn a_project_digest_takes_its_whole_backlog_in_one_fold_however_long_it_is() {
    let server = topic_server();
    // Half of 400 characters of new material holds two or three of these
    // L3s; a project digest reads only their openings and chooses again
    // from every segment at each fold, so a fold a prompt-full would only
    // write project summaries that the next one replaces.
    let env = Env::new()
        .with_server(&server)
        .with_config("[summaries]\nsegmenter = \"off\"\nshort_fold_words = 0\nmax_input_chars = 400");
    let at = minutes_ago(30);
    let topics = ["db", "ui", "net", "auth", "cache", "queue"];
    for (n, t) in topics.iter().enumerate() {
        capture_topics(&env, &format!("s{n}"), &[t, t], &["--project", "app", "--at", &at]);
    }
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    let conn = env.sql();
    let l3_chars: i64 = conn
        .query_row("SELECT sum(length(content)) FROM summaries WHERE level = 3 AND project = 'app'", [], |r| r.get(0))
        .unwrap();
    assert!(l3_chars > 200, "the L3s are more than the half of the prompt new material gets: {l3_chars} characters");
    assert_eq!(r["summarized"]["l4_folds"], 1, "one fold for the whole backlog: {r}");
    let (l4s, l3s): (i64, i64) = conn
        .query_row(
            "SELECT count(DISTINCT l4_id), count(*) FROM summaries WHERE level = 3 AND project = 'app' AND l4_state = 'done'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((l4s, l3s), (1, topics.len() as i64), "every L3 went into the one L4");
    // The project's topic is asked over all its segments, never over a
    // part of them (a segment's own topic ask names one). The fake's title
    // of six topics is longer than a title may be, so it is asked again,
    // over all of them again.
    let named: Vec<usize> = server
        .chat_requests()
        .iter()
        .filter(|q| q.user().contains("Write its topic"))
        .map(|q| topics.iter().filter(|t| q.user().contains(&format!("[topic:{t}]"))).count())
        .collect();
    assert!(named.contains(&topics.len()), "the project's topic asked over all its segments: {named:?}");
    assert!(named.iter().all(|&n| n == 1 || n == topics.len()), "a topic asked over a part of the backlog: {named:?}");
    env.assert_check();
}

#[test]
fn a_project_summary_is_rewritten_from_every_segment_it_covers_newest_first() {
    let server = topic_server();
    let env = Env::new().with_server(&server).with_config("[summaries]\nsegmenter = \"off\"");
    let at = minutes_ago(30);
    capture_topics(&env, "s1", &["db", "db"], &["--project", "app", "--at", &at]);
    env.run(&["housekeeping"]).ok();
    capture_topics(&env, "s2", &["ui", "ui"], &["--project", "app", "--at", &at]);
    env.run(&["housekeeping"]).ok();
    let conn = env.sql();
    let (content, origin, first, last): (String, String, i64, i64) = conn
        .query_row(
            "SELECT content, origin, first_l3_id, last_l3_id FROM summaries WHERE level = 4 AND project = 'app' AND status = 'running'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert!(first < last, "one L4 over both sessions: {first}-{last}");
    // The second fold was given s2's L3 only; s1's came back from the rows
    // the L4 covers, after the newer one.
    let (ui, db) = (content.rfind("[topic:ui]").unwrap(), content.rfind("[topic:db]").unwrap());
    assert!(ui < db, "the newest segment first, then the older one: {content}");
    assert!(content.starts_with("Summary of [topic:"), "the model's topic line first: {content}");
    assert_eq!(origin, "model", "the topic line and both L3s came out of the model: {content}");
    assert!(content.split_whitespace().count() <= 250, "{content}");
    env.assert_check();
}

#[test]
fn limit_and_session_restrict_the_pass() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s1", &["a", "a", "a"], &[]);
    capture_topics(&env, "s2", &["b", "b"], &[]);
    let r = env.run(&["summarize", "--once", "--json", "--limit", "2"]).ok().json();
    assert_eq!(r["l2"], 2);
    assert_eq!(r["l3_folds"], 0);
    assert_eq!(r["remaining"], 5, "three L2s and two folds");
    let r = env.run(&["summarize", "--once", "--json", "--session", "s2"]).ok().json();
    assert_eq!(r["l3_folds"], 2);
    let s1 = env.show("s1");
    assert!(s1["summaries"].as_array().unwrap().is_empty(), "s1 untouched");
    env.assert_check();
}

#[test]
fn max_seconds_stops_taking_new_work_and_reports_what_remains() {
    let server = FakeServer::start(|r| Action::delayed(Duration::from_millis(300), topic_reply(r)));
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a", "a", "a", "a", "a", "a"], &[]);
    // The preflight and each call take 0.3 s; the call in flight at the
    // deadline is abandoned (its turn stays pending).
    let r = env.run(&["summarize", "--once", "--json", "--max-seconds", "1"]).ok().json();
    let done = r["l2"].as_u64().unwrap();
    assert!((1..6).contains(&done), "{r}");
    assert!(r["remaining"].as_u64().unwrap() > 0);
    env.assert_check();
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a", "a"], &[]);
    let before = std::fs::read(env.db()).unwrap();
    let plan = env.run(&["summarize", "--once", "--dry-run", "--json"]).ok().json();
    assert_eq!(plan["l2"].as_array().unwrap().len(), 2);
    assert_eq!(plan["l3"][0]["turns_to_fold"], 2);
    assert!(plan["estimated_prompt_tokens"].as_i64().unwrap() > 0);
    assert_eq!(server.requests().len(), 0);
    assert_eq!(env.status()["pending_l2"], 2);
    let n: i64 = env.sql().query_row("SELECT count(*) FROM runs", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
    let _ = before;
    let human = env.run(&["summarize", "--dry-run"]).ok().stdout;
    assert!(human.contains("L2  turn"), "{human}");
}

#[test]
fn dry_run_honours_the_threshold_gate_like_the_pass() {
    let server = topic_server();
    let env = Env::new()
        .with_server(&server)
        .with_config("[summaries]\nfold = \"threshold\"\nthreshold_tokens = 100000\nmin_episodes = 2");
    capture_topics(&env, "busy", &["a", "a", "a"], &[]);
    capture_topics(&env, "quiet", &["b", "b"], &["--at", &minutes_ago(30)]);
    let plan = env.run(&["summarize", "--dry-run", "--json"]).ok().json();
    assert_eq!(plan["l2"].as_array().unwrap().len(), 5, "every pending turn gets its L2: {plan}");
    let l3: Vec<(String, i64)> = plan["l3"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["session"].as_str().unwrap().to_string(), s["turns_to_fold"].as_i64().unwrap()))
        .collect();
    // "busy" is under threshold_tokens and not idle: the gate holds it back.
    assert_eq!(l3, vec![("quiet".to_string(), 2)], "{plan}");
    assert_eq!(server.requests().len(), 0);
    // The pass agrees: it folds the idle session only.
    let r = once(&env);
    assert_eq!(r["l3_folds"], 1, "{r}");
    assert_eq!(env.status()["pending_l3"], 3);
}

#[test]
fn a_second_pass_exits_75_while_one_holds_the_lock() {
    let server = FakeServer::start(|r| Action::delayed(Duration::from_secs(3), topic_reply(r)));
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a"], &[]);
    let mut first = env.command(&["summarize", "--once"]).spawn().unwrap();
    // Wait until the first pass is waiting on the model.
    let t0 = std::time::Instant::now();
    while server.chat_requests().is_empty() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = env.run(&["summarize", "--once"]).code(75);
    assert_eq!(r.stderr, "", "silent without -v");
    let r = env.run(&["summarize", "--once", "-v"]).code(75);
    assert!(r.stderr.contains("another pass holds the lock"), "{}", r.stderr);
    assert!(first.wait().unwrap().success());
}

#[test]
fn a_bad_reply_counts_one_attempt_then_the_item_fails_after_max_attempts() {
    let server = FakeServer::start(|r| {
        if r.user().contains("poison") {
            Action::text("<think>only thinking</think>")
        } else {
            topic_reply(r)
        }
    });
    let env = Env::new().with_server(&server).with_config("max_attempts = 2");
    env.capture("s", "poison [topic:a]", "x", &[]).ok();
    env.capture("s", "fine [topic:a]", "x", &[]).ok();
    let r = env.run(&["summarize", "--once", "--json"]).code(1);
    assert_eq!(r.json()["failed"], 1);
    assert!(r.stderr.contains("bad reply"), "{}", r.stderr);
    let attempts: i64 =
        env.sql().query_row("SELECT attempts FROM turns WHERE user_text LIKE 'poison%'", [], |r| r.get(0)).unwrap();
    assert_eq!(attempts, 1, "one attempt per run, not a retry loop");
    assert_eq!(env.status()["failed"], 0, "not failed yet");
    env.run(&["summarize", "--once"]).code(1);
    let st = env.status();
    assert_eq!(st["failed"], 1);
    assert_eq!(st["last_run"]["outcome"], "failed");
    // The good turn is summarised and folded; the failed one is passed over.
    assert_eq!(st["pending_l3"], 0);
    let show = env.show("s");
    assert_eq!(show["turns"][0]["state"], "failed");
    assert_eq!(show["turns"][1]["state"], "folded");
    // A later run leaves the failed turn alone: no more calls, exit 0.
    let calls = server.requests().len();
    env.run(&["summarize", "--once"]).ok();
    assert_eq!(server.requests().len(), calls);
    env.assert_check();
}

#[test]
fn model_unavailable_exits_69_and_counts_no_attempt() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let env = Env::new().with_config(&format!(
        "[memory_model]\nbackend = \"openai\"\nurl = \"http://127.0.0.1:{port}/v1\"\nmodel = \"m\"\ntimeout_seconds = 2\nretries = 0"
    ));
    capture_topics(&env, "s", &["a"], &[]);
    let r = env.run(&["summarize", "--once"]).code(69);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("127.0.0.1:{port}")), "{}", r.stderr);
    let (attempts, leased): (i64, Option<String>) =
        env.sql().query_row("SELECT attempts, lease_owner FROM turns", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!(attempts, 0);
    assert_eq!(leased, None, "preflight failed before any claim");
    assert_eq!(env.status()["last_run"]["outcome"], "unavailable");
}

#[test]
fn server_error_mid_pass_exits_69_and_keeps_work_pending() {
    let server = FakeServer::start(|r| {
        if r.is_chat() && r.user().contains("second") {
            Action::status(503, "overloaded")
        } else {
            topic_reply(r)
        }
    });
    let env = Env::new().with_server(&server);
    env.capture("s", "first [topic:a]", "x", &[]).ok();
    env.capture("s", "second [topic:a]", "x", &[]).ok();
    env.run(&["summarize", "--once"]).code(69);
    let st = env.status();
    assert_eq!(st["pending_l2"], 1);
    assert_eq!(st["failed"], 0);
    let attempts: i64 = env.sql().query_row("SELECT sum(attempts) FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(attempts, 0);
    env.assert_check();
}

#[test]
fn refused_request_exits_78_with_the_servers_message() {
    let server =
        FakeServer::start(|r| if r.is_chat() { Action::status(404, "model 'x' not found") } else { topic_reply(r) });
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s", &["a"], &[]);
    let r = env.run(&["summarize", "--once"]).code(78);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
}

#[test]
fn kill_9_in_the_middle_of_a_pass_then_another_pass_keeps_every_invariant() {
    let server = FakeServer::start(|r| Action::delayed(Duration::from_millis(150), topic_reply(r)));
    let env = Env::new().with_server(&server);
    capture_topics(&env, "s1", &["a", "a", "b", "b", "a"], &["--project", "p"]);
    capture_topics(&env, "s2", &["c", "c", "c"], &[]);
    for wait_ms in [200u64, 900, 1700] {
        let mut child = env.command(&["summarize", "--once"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(wait_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        env.assert_check();
    }
    // A killed pass leaves claims behind; the next pass takes them over at
    // once instead of waiting for the lease to expire.
    env.run(&["summarize", "--once"]).ok();
    let st = env.status();
    assert_eq!(st["pending_l2"], 0);
    assert_eq!(st["pending_l3"], 0);
    let l2s: i64 = env.sql().query_row("SELECT count(*) FROM turns WHERE l2 IS NOT NULL", [], |r| r.get(0)).unwrap();
    assert_eq!(l2s, 8);
    env.assert_check();
}

#[test]
fn capture_summarize_summarizes_that_session_at_once() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    capture_topics(&env, "other", &["x"], &[]);
    env.capture("s", "hello [topic:a]", "hi", &["--summarize"]).ok();
    let show = env.show("s");
    assert_eq!(show["turns"][0]["state"], "folded");
    assert_eq!(env.show("other")["turns"][0]["state"], "pending", "only that session");
}

#[test]
fn capture_summarize_with_the_model_down_still_stores_and_exits_0() {
    let env = Env::new().with_config(
        "[memory_model]\nbackend = \"openai\"\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\ntimeout_seconds = 1\nretries = 0",
    );
    let r = env.capture("s", "hello", "hi", &["--summarize"]).ok();
    assert!(r.stderr.contains("stored but not summarised"), "{}", r.stderr);
    assert_eq!(env.status()["pending_l2"], 1);
}

/// A topic server whose calls of one kind each wait (up to 5 s) until four
/// of them are in flight at once, and fail with a 500 if they never are: a
/// pass that makes those calls one at a time cannot succeed.
fn four_at_once(kind: fn(&Recorded) -> bool) -> FakeServer {
    use std::sync::{Condvar, Mutex};
    let gate = (Mutex::new(0usize), Condvar::new());
    FakeServer::start(move |r| {
        if !r.is_chat() || !kind(r) {
            return topic_reply(r);
        }
        let (m, cv) = &gate;
        let mut n = m.lock().unwrap();
        *n += 1;
        cv.notify_all();
        let (n, _) = cv.wait_timeout_while(n, Duration::from_secs(5), |n| *n < 4).unwrap();
        if *n >= 4 {
            topic_reply(r)
        } else {
            Action::status(500, "calls did not overlap")
        }
    })
}

#[test]
fn parallel_l2_calls_overlap() {
    let server = four_at_once(|r| r.system().contains("one-sentence"));
    let env = Env::new().with_server(&server).with_config("parallel = 4");
    capture_topics(&env, "s", &["a", "a", "a", "a"], &[]);
    let r = env.run(&["summarize", "--once", "--json"]).ok().json();
    assert_eq!(r["l2"], 4);
    env.assert_check();
}

#[test]
fn folds_of_different_sessions_overlap_and_keep_each_sessions_order() {
    let server = four_at_once(|r| r.user().contains("Running summary:"));
    let env = Env::new().with_server(&server).with_config("parallel = 4");
    for s in ["s1", "s2", "s3", "s4"] {
        capture_topics(&env, s, &["a", "a", "a"], &[]);
    }
    let r = env.run(&["summarize", "--once", "--json"]).ok().json();
    assert_eq!((r["l2"].as_i64(), r["l3_folds"].as_i64(), r["remaining"].as_i64()), (Some(12), Some(12), Some(0)));
    // Every session ends with one running summary over its three turns,
    // folded in turn order (`check` verifies fold_seq against turn order).
    for (i, s) in ["s1", "s2", "s3", "s4"].iter().enumerate() {
        let show = env.run(&["show", s, "--json"]).ok().json();
        let range = format!("{}-{}", 3 * i + 1, 3 * i + 3);
        assert_eq!(summaries(&show, 3), vec![("running".to_string(), range)], "{s}");
    }
    env.assert_check();
}

#[test]
fn worker_loop_wakes_on_sigusr1_and_stops_cleanly_on_sigterm() {
    let server = topic_server();
    let env = Env::new().with_server(&server);
    let mut worker = env.command(&["summarize", "--interval", "600"]).spawn().unwrap();
    // Let the first (empty) pass finish, then add work and wake the worker.
    std::thread::sleep(Duration::from_millis(500));
    capture_topics(&env, "s", &["a"], &[]);
    let pid = worker.id() as i32;
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(pid, libc::SIGUSR1) };
    let t0 = std::time::Instant::now();
    while env.status()["pending_l3"] != 0 || env.status()["pending_l2"] != 0 {
        assert!(t0.elapsed() < Duration::from_secs(20), "the worker did not wake up");
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = worker.wait().unwrap();
    assert_eq!(status.code(), Some(0), "clean exit on SIGTERM");
    env.assert_check();
}

#[test]
fn a_backlog_as_short_as_a_summary_is_kept_in_its_own_words_without_a_fold_call() {
    for (words, calls, origin) in [(100, 2, "extractive"), (0, 3, "model")] {
        let server = topic_server();
        let env = Env::new()
            .with_server(&server)
            .with_config(&format!("[summaries]\nsegmenter = \"off\"\nshort_fold_words = {words}"));
        capture_topics(&env, "s", &["db", "db"], &[]);
        let r = once(&env);
        assert_eq!((r["l2"].as_i64(), r["l3_folds"].as_i64()), (Some(2), Some(1)), "{r}");
        // Two L2 calls; the fold of their two short sentences asks only when
        // short_fold_words is 0.
        assert_eq!(server.chat_requests().len(), calls, "short_fold_words = {words}");
        let show = env.show("s");
        assert_eq!(show["summaries"][0]["origin"], origin, "{show:#}");
        assert!(show["summaries"][0]["content"].as_str().unwrap().contains("[topic:db]"), "{show:#}");
        env.assert_check();
    }
}
