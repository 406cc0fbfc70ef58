//! Faults of the model server, over real HTTP on 127.0.0.1: a server that
//! hangs or drips must not hang a pass (issue 15, item 1), and a request
//! that fails for one item must not stall the items behind it (item 2).

use std::time::Duration;

use crate::support::fake_server::{Action, FakeServer, Recorded};
use crate::support::Env;

/// A one-sentence summary for an L2, a running summary for a fold.
fn reply(r: &Recorded) -> Action {
    let user = r.user();
    // The turn's first words, after the prompt's "User:" label.
    let words: Vec<&str> = user.split_whitespace().filter(|w| *w != "User:").take(3).collect();
    Action::text(format!("The user talked about {}.", words.join(" ")))
}

fn server_config(server: &FakeServer, timeout_seconds: u64, retries: u32) -> String {
    format!(
        "[memory_model]\nbackend = \"openai\"\nurl = \"{}\"\nmodel = \"fake-model\"\ntimeout_seconds = {timeout_seconds}\nretries = {retries}\nmax_attempts = 2\n",
        server.openai_url()
    )
}

/// (attempts, l2_state, lease_owner) of the turns whose user text contains `needle`.
fn turn(env: &Env, needle: &str) -> (i64, String, Option<String>) {
    env.sql()
        .query_row(
            "SELECT attempts, l2_state, lease_owner FROM turns WHERE user_text LIKE '%' || ?1 || '%'",
            [needle],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

fn assert_untouched(env: &Env, needle: &str) {
    assert_eq!(turn(env, needle), (0, "pending".to_string(), None), "pending, no attempt, no lease");
}

#[test]
fn a_server_that_hangs_on_the_pooled_connection_ends_the_pass_within_timeout_seconds() {
    // Keep-alive: the chat request reuses the preflight's connection.
    let server = FakeServer::start(|r| if r.is_chat() { Action::Hang } else { reply(r) });
    let env = Env::new().with_config(&server_config(&server, 2, 0));
    env.capture("s", "hello there", "hi", &[]).ok();
    let (r, took) = env.run_within(&["summarize", "--once"], Duration::from_secs(20));
    let r = r.code(69);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(r.stderr.contains("within 2s"), "{}", r.stderr);
    assert_eq!(server.count(), 1);
    assert_untouched(&env, "hello");
    assert_eq!(env.status()["last_run"]["outcome"], "unavailable");
}

#[test]
fn a_server_that_drips_a_byte_at_a_time_ends_the_pass_within_timeout_seconds() {
    // A fresh connection for each request, and a byte every 300 ms: no
    // single read ever waits long.
    let server = FakeServer::start(|r| if r.is_chat() { Action::Drip(Duration::from_millis(300)) } else { reply(r) })
        .with_connection_close();
    let env = Env::new().with_config(&server_config(&server, 2, 0));
    env.capture("s", "hello there", "hi", &[]).ok();
    let (r, took) = env.run_within(&["summarize", "--once"], Duration::from_secs(20));
    r.code(69);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_untouched(&env, "hello");
}

#[test]
fn capture_summarize_with_a_hung_server_returns_within_timeout_seconds() {
    let server = FakeServer::start(|r| if r.is_chat() { Action::Hang } else { reply(r) });
    let env = Env::new().with_config(&server_config(&server, 2, 0));
    let args = ["capture", "--session", "s", "--user", "hello there", "--assistant", "hi", "--summarize"];
    let (r, took) = env.run_within(&args, Duration::from_secs(20));
    let r = r.ok();
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(r.stderr.contains("stored but not summarised"), "{}", r.stderr);
    assert_untouched(&env, "hello");
}

#[test]
fn max_seconds_interrupts_a_model_call_in_flight() {
    let server = FakeServer::start(|r| if r.is_chat() { Action::Hang } else { reply(r) });
    let env = Env::new().with_config(&server_config(&server, 600, 0));
    env.capture("s", "hello there", "hi", &[]).ok();
    let (r, took) = env.run_within(&["summarize", "--once", "--max-seconds", "1"], Duration::from_secs(20));
    r.ok();
    assert!(took < Duration::from_secs(4), "took {took:?}");
    assert_eq!(server.count(), 1, "the call was in flight");
    assert_untouched(&env, "hello");
}

#[test]
fn sigterm_interrupts_a_model_call_in_flight() {
    let server = FakeServer::start(|r| if r.is_chat() { Action::Hang } else { reply(r) });
    let env = Env::new().with_config(&server_config(&server, 600, 0));
    env.capture("s", "hello there", "hi", &[]).ok();
    let mut c = env.command(&["summarize", "--once"]);
    c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    let waited = std::time::Instant::now();
    while server.count() == 0 {
        assert!(waited.elapsed() < Duration::from_secs(10), "no model call");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let (r, took) = env.finish_within(child, Duration::from_secs(10));
    r.code(130);
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert_untouched(&env, "hello");
    assert_eq!(env.status()["last_run"]["outcome"], "interrupted");
}

/// A server that fails every request about "poison" with `action`.
fn poison_server(action: Action) -> FakeServer {
    FakeServer::start(move |r| if r.is_chat() && r.prompt().contains("poison") { action.clone() } else { reply(r) })
}

/// The poison turn comes first, in the session of two good turns, with
/// a second session behind it: the pass counts an attempt on it and goes
/// on; once it has failed `max_attempts` times it is passed over and its
/// session is folded without it.
fn assert_poison_item_is_passed_over(server: &FakeServer, retries: u32, expect_in_error: &str) {
    let env = Env::new().with_config(&server_config(server, 30, retries));
    env.capture("s", "poison question", "answer", &[]).ok();
    env.capture("s", "good question", "answer", &[]).ok();
    env.capture("t", "other question", "answer", &[]).ok();
    let r = env.run(&["summarize", "--once", "--json"]).code(1);
    assert!(r.stderr.contains("1 item(s) got a bad reply"), "{}", r.stderr);
    assert_eq!(r.json()["failed"], 1);
    assert_eq!(r.json()["l2"], 2, "the turns behind it were summarised");
    assert_eq!(env.show("t")["turns"][0]["state"], "folded");
    let (attempts, state, lease) = turn(&env, "poison");
    assert_eq!((attempts, state.as_str(), lease), (1, "pending", None));
    let error: String =
        env.sql().query_row("SELECT last_error FROM turns WHERE user_text LIKE 'poison%'", [], |r| r.get(0)).unwrap();
    assert!(error.contains(expect_in_error), "{error}");

    env.run(&["summarize", "--once"]).code(1);
    assert_eq!(turn(&env, "poison").1, "failed");
    let show = env.show("s");
    assert_eq!(show["turns"][0]["state"], "failed");
    assert_eq!(show["turns"][1]["state"], "folded", "the failed turn does not block its session");
    let st = env.status();
    assert_eq!((st["pending_l2"].as_i64(), st["pending_l3"].as_i64()), (Some(0), Some(0)));

    let calls = server.count();
    env.run(&["summarize", "--once"]).ok();
    assert_eq!(server.count(), calls, "a failed item is not asked for again");
    env.assert_check();
}

#[test]
fn a_400_for_one_item_counts_an_attempt_and_the_pass_moves_on() {
    let server = poison_server(Action::status(400, "rejected by the content filter"));
    assert_poison_item_is_passed_over(&server, 0, "content filter");
}

#[test]
fn a_500_for_one_item_is_retried_then_counts_an_attempt() {
    let server = poison_server(Action::status(500, "template crashed"));
    assert_poison_item_is_passed_over(&server, 1, "template crashed");
    let poison_calls = server.chat_requests().iter().filter(|r| r.prompt().contains("poison")).count();
    assert_eq!(poison_calls, 4, "two runs, each one call and one retry");
}

#[test]
fn a_reply_over_the_body_limit_counts_an_attempt_and_the_pass_moves_on() {
    let huge = "word ".repeat(11 << 18); // 11 MiB of text
    let body = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": huge}}]}).to_string();
    let server = poison_server(Action::raw(200, body));
    assert_poison_item_is_passed_over(&server, 0, "longer than 8 MiB");
}

#[test]
fn an_overloaded_server_still_stops_the_pass_without_counting_attempts() {
    let server = poison_server(Action::status(503, "overloaded"));
    let env = Env::new().with_config(&server_config(&server, 30, 0));
    env.capture("s", "poison question", "answer", &[]).ok();
    env.run(&["summarize", "--once"]).code(69);
    assert_untouched(&env, "poison");
}

#[test]
fn the_run_lock_belongs_to_the_database_not_to_the_state_folder() {
    // Two passes on one database from two environments (another
    // XDG_STATE_HOME, as a cron job and a shell may have): the second must
    // see the first, or it clears the first's live claims.
    let server =
        FakeServer::start(|r| if r.is_chat() { Action::delayed(Duration::from_secs(3), reply(r)) } else { reply(r) });
    let env = Env::new().with_config(&server_config(&server, 30, 0));
    env.capture("s", "hello there", "hi", &[]).ok();
    let first = env.command(&["summarize", "--once"]).spawn().unwrap();
    let waited = std::time::Instant::now();
    while server.count() == 0 {
        assert!(waited.elapsed() < Duration::from_secs(10), "no model call");
        std::thread::sleep(Duration::from_millis(20));
    }
    let other_state = env.path("other-state");
    std::fs::create_dir_all(&other_state).unwrap();
    let mut second = env.command(&["summarize", "--once", "-v"]);
    second.env("XDG_STATE_HOME", &other_state);
    let r: crate::support::Run = second.output().unwrap().into();
    let r = r.code(75);
    assert!(r.stderr.contains("another pass holds the lock"), "{}", r.stderr);
    assert!(env.path("data/ragger/ragger.db.lock").exists(), "the lock file sits beside the database");
    let (r, _) = env.finish_within(first, Duration::from_secs(20));
    r.ok();
    assert_eq!(server.count(), 1, "the turn was sent to the model once");
}

#[test]
fn an_api_key_is_never_sent_over_plain_http_to_another_machine() {
    let mut env = Env::new().with_config(
        "[memory_model]\nbackend = \"openai\"\nurl = \"http://192.0.2.1:8080/v1\"\nmodel = \"m\"\napi_key_env = \"MY_KEY\"\ntimeout_seconds = 1\nretries = 0",
    );
    env.extra_env.push(("MY_KEY".into(), "sk-secret".into()));
    env.capture("s", "hello there", "hi", &[]).ok();
    let r = env.run(&["summarize", "--once"]).code(78);
    assert!(r.stderr.contains("would travel in clear text"), "{}", r.stderr);
    assert!(!r.stderr.contains("sk-secret"));
    assert_untouched(&env, "hello");
    // The same key to a server on this machine is sent.
    let server = FakeServer::start(reply);
    let mut env = Env::new().with_config(&format!("{}api_key_env = \"MY_KEY\"\n", server_config(&server, 5, 0)));
    env.extra_env.push(("MY_KEY".into(), "sk-secret".into()));
    env.capture("s", "hello there", "hi", &[]).ok();
    env.run(&["summarize", "--once"]).ok();
    assert_eq!(server.chat_requests()[0].header("authorization"), Some("Bearer sk-secret"));
}

/// `http://A:port\@127.0.0.1/v1` reads as 127.0.0.1 to a string split on
/// `/` and `@`, but the URL parser (and so the request) ends the authority
/// at the backslash: the host is A. Here A is 0.0.0.0, which Linux routes
/// to this machine, so the fake server sees whether the key was sent to a
/// host that is not a loopback address.
#[test]
fn an_api_key_is_not_sent_when_the_parsed_host_is_not_loopback() {
    let server = FakeServer::start(reply);
    let port = server.url().rsplit(':').next().unwrap().trim_end_matches('/').to_string();
    let mut env = Env::new().with_config(&format!(
        "[memory_model]\nbackend = \"openai\"\nurl = 'http://0.0.0.0:{port}\\@127.0.0.1/v1'\nmodel = \"fake-model\"\n\
         api_key_env = \"MY_KEY\"\ntimeout_seconds = 5\nretries = 0\n"
    ));
    env.extra_env.push(("MY_KEY".into(), "sk-secret".into()));
    env.capture("s", "hello there", "hi", &[]).ok();
    let r = env.run(&["summarize", "--once"]).code(78);
    assert!(r.stderr.contains("would travel in clear text"), "{}", r.stderr);
    assert!(
        server.requests().iter().all(|q| q.header("authorization").is_none()),
        "the key reached a server named by a non-loopback host"
    );
    assert_untouched(&env, "hello");
}
