//! `ragger housekeeping`: idle closing, late turns, orphan recovery, the
//! lag warning, and the lock.

use std::time::Duration;

use crate::support::{minutes_ago, Action, Env, FakeServer};

fn server() -> FakeServer {
    FakeServer::start(|r| {
        if r.system().contains("one-sentence") {
            Action::text("The user asked something.")
        } else {
            Action::text("They talked about one thing.")
        }
    })
}

fn open_state(env: &Env, session: &str) -> bool {
    env.show(session)["open"].as_bool().unwrap()
}

#[test]
fn sessions_idle_past_the_pause_close_and_others_stay_open() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("old", "a", "b", &["--at", &minutes_ago(21)]).ok();
    env.capture("recent", "a", "b", &["--at", &minutes_ago(19)]).ok();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["closed_sessions"], 1);
    assert_eq!(r["summarized"]["l2"], 2);
    assert!(!open_state(&env, "old"));
    assert!(open_state(&env, "recent"));
    let old = env.show("old");
    assert_eq!(old["summaries"][0]["status"], "complete", "closing completes the running L3");
    assert_eq!(env.show("recent")["summaries"][0]["status"], "running");
    env.assert_check();
}

#[test]
fn housekeeping_is_silent_on_success() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("old", "a", "b", &["--at", &minutes_ago(30)]).ok();
    let r = env.run(&["housekeeping"]).ok();
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "");
    let r = env.run(&["housekeeping", "-v"]).ok();
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}

#[test]
fn pending_work_is_folded_before_a_session_closes_and_blocks_closing_if_it_cannot_be() {
    let env = Env::new().with_config(
        "[memory_model]\nbackend = \"openai\"\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\ntimeout_seconds = 1\nretries = 0",
    );
    env.capture("old", "a", "b", &["--at", &minutes_ago(30)]).ok();
    env.run(&["housekeeping"]).code(69);
    assert!(open_state(&env, "old"), "unsummarized turns keep the session open");
    env.run(&["housekeeping", "--no-summarize"]).ok();
    assert!(open_state(&env, "old"));
    // With a model, the same run folds the turn and then closes the session.
    let s = server();
    let env2 = Env { dir: env.dir, config: String::new(), extra_env: vec![] }.with_server(&s);
    env2.run(&["housekeeping"]).ok();
    assert!(!open_state(&env2, "old"));
    assert_eq!(env2.show("old")["turns"][0]["state"], "folded");
    env2.assert_check();
}

#[test]
fn a_late_turn_reopens_the_session_with_a_new_running_summary() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("s", "a", "b", &["--at", &minutes_ago(40)]).ok();
    env.run(&["housekeeping"]).ok();
    assert!(!open_state(&env, "s"));
    env.capture("s", "back again", "b", &[]).ok();
    assert!(open_state(&env, "s"));
    env.run(&["summarize", "--once"]).ok();
    let show = env.show("s");
    let statuses: Vec<&str> =
        show["summaries"].as_array().unwrap().iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["complete", "running"]);
    env.assert_check();
}

#[test]
fn backfilled_turns_are_ordered_by_event_time() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("s", "third", "x", &["--at", &minutes_ago(10)]).ok();
    env.capture("s", "first", "x", &["--at", &minutes_ago(50)]).ok();
    env.capture("s", "second", "x", &["--at", &minutes_ago(30)]).ok();
    env.run(&["summarize", "--once"]).ok();
    let seq: Vec<(String, i64)> = {
        let conn = env.sql();
        let mut st = conn.prepare("SELECT user_text, fold_seq FROM turns ORDER BY fold_seq").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(|r| r.unwrap()).collect()
    };
    assert_eq!(seq, vec![("first".into(), 1), ("second".into(), 2), ("third".into(), 3)]);
    env.assert_check();
}

#[test]
fn orphaned_claims_of_a_killed_pass_are_recovered_at_once() {
    let slow = FakeServer::start(|r| if r.is_chat() { Action::Hang } else { Action::text("") });
    let env = Env::new().with_server(&slow);
    env.capture("s", "a", "b", &["--at", &minutes_ago(30)]).ok();
    let mut child = env.command(&["summarize", "--once"]).spawn().unwrap();
    let t0 = std::time::Instant::now();
    while slow.chat_requests().is_empty() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let leased: Option<String> = env.sql().query_row("SELECT lease_owner FROM turns", [], |r| r.get(0)).unwrap();
    assert!(leased.is_some(), "the killed pass held a claim");
    let s = server();
    let env2 = Env { dir: env.dir, config: String::new(), extra_env: vec![] }.with_server(&s);
    let r = env2.run(&["housekeeping", "--json"]).ok().json();
    assert!(r["recovered"].as_u64().unwrap() >= 1, "{r}");
    assert_eq!(r["closed_sessions"], 1);
    env2.assert_check();
}

#[test]
fn housekeeping_exits_75_while_a_pass_holds_the_lock() {
    let slow = FakeServer::start(|_| Action::delayed(Duration::from_secs(2), Action::text("The user asked.")));
    let env = Env::new().with_server(&slow);
    env.capture("s", "a", "b", &[]).ok();
    let mut first = env.command(&["summarize", "--once"]).spawn().unwrap();
    let t0 = std::time::Instant::now();
    while slow.chat_requests().is_empty() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    env.run(&["housekeeping"]).code(75);
    first.wait().unwrap();
}

#[test]
fn dry_run_lists_what_would_happen_and_writes_nothing() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("old", "a", "b", &["--at", &minutes_ago(30)]).ok();
    let r = env.run(&["housekeeping", "--dry-run"]).ok();
    assert!(r.stdout.contains("would close session old after folding its 1 pending turn(s)"), "{}", r.stdout);
    assert_eq!(s.requests().len(), 0);
    assert!(open_state(&env, "old"));
    assert_eq!(env.status()["pending_l2"], 1);
    let runs: i64 = env.sql().query_row("SELECT count(*) FROM runs", [], |r| r.get(0)).unwrap();
    assert_eq!(runs, 0);
}

#[test]
fn capture_warns_when_the_pipeline_lags_and_q_silences_it() {
    let env = Env::new().with_config("[housekeeping]\nsummary_pause_minutes = 1");
    env.capture("s", "a", "b", &[]).ok();
    // Make the pending turn look captured 5 minutes ago (> 3 pauses).
    env.sql().execute("UPDATE turns SET captured_at = captured_at - 300000", []).unwrap();
    let r = env.capture("s", "c", "d", &[]).ok();
    assert!(r.stderr.contains("warning") && r.stderr.contains("housekeeping"), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1);
    let r = env.capture("s", "e", "f", &["-q"]).ok();
    assert_eq!(r.stderr, "");
}

#[test]
fn capture_warns_when_the_last_pass_failed() {
    let env = Env::new().with_config(
        "[memory_model]\nbackend = \"openai\"\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\ntimeout_seconds = 1\nretries = 0",
    );
    env.capture("s", "a", "b", &[]).ok();
    env.run(&["summarize", "--once"]).code(69);
    let r = env.capture("s", "c", "d", &[]).ok();
    assert!(r.stderr.contains("unavailable"), "{}", r.stderr);
}

#[test]
fn max_seconds_bounds_the_summarize_work_and_still_closes_idle_sessions() {
    let s = FakeServer::start(|r| {
        let reply = if r.system().contains("one-sentence") { "The user asked something." } else { "One thing." };
        Action::delayed(Duration::from_millis(300), Action::text(reply))
    });
    let env = Env::new().with_server(&s);
    // "done" has its only turn summarised and folded already; "backlog" has
    // six turns waiting, more than 1 s of model calls (the preflight and
    // each call take 0.3 s; the call in flight at the deadline is abandoned).
    env.capture("done", "a", "b", &["--at", &minutes_ago(30)]).ok();
    env.run(&["summarize", "--once"]).ok();
    for i in 0..6 {
        env.capture("backlog", &format!("q{i}"), "a", &["--at", &minutes_ago(25)]).ok();
    }
    let r = env.run(&["housekeeping", "--json", "--max-seconds", "1"]).ok().json();
    let done = r["summarized"]["l2"].as_u64().unwrap();
    assert!((1..6).contains(&done), "stopped taking work after the deadline: {r}");
    assert!(r["summarized"]["remaining"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["closed_sessions"], 1, "the idle session with no pending work is closed: {r}");
    assert!(!open_state(&env, "done"));
    assert!(open_state(&env, "backlog"), "a session with pending work stays open");
    env.assert_check();
}

#[test]
fn durations_that_do_not_fit_a_timer_are_usage_errors() {
    let env = Env::new();
    for args in [
        ["housekeeping", "--max-seconds", "inf"],
        ["summarize", "--max-seconds", "1e300"],
        ["summarize", "--interval", "nan"],
        ["summarize", "--max-seconds", "soon"],
    ] {
        let r = env.run(&args).code(2);
        assert!(r.stderr.contains(&format!("invalid value '{}' for '{}", args[2], args[1])), "{}", r.stderr);
        assert!(r.stderr.contains("expected a number of seconds"), "{}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
}

/// The database files as they are on disk (the WAL is kept between
/// processes, so a write shows in it).
fn db_bytes(env: &Env) -> Vec<Vec<u8>> {
    let mut wal = env.db().into_os_string();
    wal.push("-wal");
    [env.db(), wal.into()].iter().map(|p| std::fs::read(p).unwrap_or_default()).collect()
}

fn runs(env: &Env) -> i64 {
    env.sql().query_row("SELECT count(*) FROM runs", [], |r| r.get(0)).unwrap()
}

#[test]
fn an_idle_tick_asks_no_model_and_writes_nothing() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("old", "a", "b", &["--at", &minutes_ago(30)]).ok();
    env.run(&["housekeeping"]).ok();
    assert!(!open_state(&env, "old"));
    let (requests, recorded) = (s.requests().len(), runs(&env));
    let before = db_bytes(&env);
    let r = env.run(&["housekeeping"]).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!((r["recovered"].as_u64(), r["closed_sessions"].as_u64()), (Some(0), Some(0)), "{r}");
    assert_eq!((r["summarized"]["l2"].as_u64(), r["failed"].as_u64()), (Some(0), Some(0)), "{r}");
    assert_eq!(s.requests().len(), requests, "no model call");
    assert!(db_bytes(&env) == before, "the database and its WAL are unchanged");
    assert_eq!(runs(&env), recorded);
    env.assert_check();
}

fn quiet_line(env: &Env) -> Option<String> {
    let mut lock = env.db().into_os_string();
    lock.push(".lock");
    std::fs::read_to_string(lock).unwrap().lines().nth(1).map(str::to_string)
}

/// Past the second within which a file's time may not tell a later write.
fn let_files_age() {
    std::thread::sleep(Duration::from_millis(1100));
}

/// A tick that found nothing to do leaves a quiet line; the next tick with
/// the same files does not open the database (issue 35) and reports what a
/// whole idle tick reports. A turn captured since, or a session whose pause
/// passes, is work again for the tick after.
#[test]
fn a_quiet_tick_leaves_the_database_closed_until_a_write_or_a_pause_wakes_it() {
    let s = server();
    let env = Env::new().with_server(&s).with_config("[housekeeping]\nsummary_pause_minutes = 1\n");
    // A session whose pause ends about 15 s from now (room for a loaded machine).
    let at = (chrono::Utc::now() - chrono::Duration::seconds(45)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    env.capture("s", "a", "b", &["--at", &at]).ok();
    env.run(&["housekeeping"]).ok();
    let_files_age();
    env.run(&["housekeeping"]).ok();
    let line = quiet_line(&env).expect("an idle tick on settled files leaves its line");
    let due: i64 = line
        .split(' ')
        .find_map(|w| w.strip_prefix("due="))
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("a session is open, so the line says when it goes idle: {line}"));
    let r = env.run(&["-vv", "housekeeping", "--json"]).ok();
    assert!(r.stderr.contains("the database is left closed"), "{}", r.stderr);
    let j = r.json();
    assert_eq!((j["recovered"].as_u64(), j["closed_sessions"].as_u64()), (Some(0), Some(0)), "{j}");
    assert_eq!((j["summarized"]["l2"].as_u64(), j["failed"].as_u64()), (Some(0), Some(0)), "{j}");
    // The pause passes with no write: the session is closed all the same.
    let wait = due + 300 - chrono::Utc::now().timestamp_millis();
    std::thread::sleep(Duration::from_millis(wait.max(0) as u64));
    let r = env.run(&["-vv", "housekeeping", "--json"]).ok();
    assert!(!r.stderr.contains("left closed"), "{}", r.stderr);
    assert_eq!(r.json()["closed_sessions"], 1);
    assert!(!open_state(&env, "s"));
    // Quiet again, then a turn captured: the next tick summarises it, at
    // once and after the files have aged alike.
    let_files_age();
    env.run(&["housekeeping"]).ok();
    let_files_age();
    env.run(&["housekeeping"]).ok();
    assert!(quiet_line(&env).is_some_and(|l| l.contains("due=-")), "no session open: {:?}", quiet_line(&env));
    env.capture("t", "c", "d", &[]).ok();
    let_files_age();
    let r = env.run(&["-vv", "housekeeping", "--json"]).ok();
    assert!(!r.stderr.contains("left closed"), "{}", r.stderr);
    assert_eq!(r.json()["summarized"]["l2"], 1);
    // Other settings are another line: --no-summarize does not reuse it.
    let_files_age();
    env.run(&["housekeeping"]).ok();
    let_files_age();
    env.run(&["housekeeping"]).ok();
    assert!(quiet_line(&env).is_some());
    let r = env.run(&["-vv", "housekeeping", "--no-summarize"]).ok();
    assert!(!r.stderr.contains("left closed"), "{}", r.stderr);
    env.assert_check();
}

/// After idle ticks, each kind of work is still done by the next tick: an
/// open session whose turns are all folded but whose pause has passed, a
/// claim left behind, a segment waiting for its project fold, a new turn.
#[test]
fn each_kind_of_work_is_done_by_the_tick_after_an_idle_one() {
    let s = server();
    let env = Env::new().with_server(&s);
    env.capture("s", "a", "b", &["--project", "p"]).ok();
    env.run(&["housekeeping"]).ok();
    env.run(&["housekeeping"]).ok();
    assert!(open_state(&env, "s"), "summarised, and not idle yet");
    assert_eq!(env.show("s")["turns"][0]["state"], "folded");
    // The pause passes with nothing else to do: the session is closed.
    env.sql().execute("UPDATE sessions SET last_at = last_at - 21 * 60000", []).unwrap();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["closed_sessions"], 1, "{r}");
    assert!(!open_state(&env, "s"));
    env.run(&["housekeeping"]).ok();
    // A claim left by a killed process is recovered.
    env.sql().execute("UPDATE turns SET lease_owner = 'pid1-1', lease_expires = 1", []).unwrap();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["recovered"], 1, "{r}");
    // A complete segment whose project fold is still to do gets it.
    env.sql().execute("UPDATE summaries SET l4_state = 'pending', l4_id = NULL WHERE level = 3", []).unwrap();
    env.sql().execute("DELETE FROM summaries WHERE level = 4", []).unwrap();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["summarized"]["l4_folds"], 1, "{r}");
    // A late turn is summarised, and its session closed once idle.
    env.capture("s", "back", "again", &["--at", &minutes_ago(25)]).ok();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!((r["summarized"]["l2"].as_u64(), r["closed_sessions"].as_u64()), (Some(1), Some(1)), "{r}");
    env.assert_check();
}

/// An idle tick writes no run record, except after a pass that went wrong:
/// then it records that all is well again, and capture stops warning.
#[test]
fn an_idle_tick_after_a_failed_pass_records_that_all_is_well() {
    let env = Env::new().with_config(
        "[memory_model]\nbackend = \"openai\"\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\ntimeout_seconds = 1\nretries = 0",
    );
    env.capture("s", "a", "b", &[]).ok();
    env.run(&["summarize", "--once"]).code(69);
    // The turn is given up on (as after its last attempt): nothing is left to do.
    env.sql().execute("UPDATE turns SET l2_state = 'failed'", []).unwrap();
    env.run(&["housekeeping"]).ok();
    assert_eq!(env.status()["last_run"]["outcome"], "ok");
    assert_eq!(runs(&env), 2);
    env.run(&["housekeeping"]).ok();
    assert_eq!(runs(&env), 2, "the record says all is well: no more records");
    let r = env.capture("s", "c", "d", &[]).ok();
    assert_eq!(r.stderr, "");
}
