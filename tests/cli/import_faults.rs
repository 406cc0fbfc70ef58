//! Faults found by attacking `import` and the hooks (issue 33): turns read
//! while their reply was being written, Codex turn ids across reads, turns
//! skipped for good, forgotten turns coming back, hooks that hang on odd
//! files, locked databases and folder links.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{fixture, Env, FakeServer};

const CLAUDE_SESSION: &str = "3f8b2a10-5c4d-4e6f-9a7b-1c2d3e4f5a6b";
const CODEX_SESSION: &str = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const FIRST_UUID: &str = "7c1d2e3f-0000-4000-8000-000000000001";
/// What the first fixture turn's reply ends with (its last record).
const FIRST_REPLY_END: &str = "10 of 10 runs pass.";
/// A hook returns within this, whatever its input or the database (the
/// goal is 1 s; the margin is the test machine's, shared by other jobs).
const HOOK_LIMIT: Duration = Duration::from_millis(1500);

fn lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name)).unwrap().lines().map(str::to_string).collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stop_input(transcript: &Path, event: &str, last: Option<&str>) -> Vec<u8> {
    let mut input = json!({
        "session_id": CLAUDE_SESSION,
        "transcript_path": transcript,
        "cwd": "/home/dev/src/shopfront",
        "permission_mode": "default",
        "hook_event_name": event,
        "stop_hook_active": false,
    });
    if let Some(m) = last {
        input["last_assistant_message"] = json!(m);
    }
    input.to_string().into_bytes()
}

fn stop_hook(env: &Env, transcript: &Path, last: Option<&str>) -> crate::support::Run {
    env.run_stdin(&["hook", "claude-code"], &stop_input(transcript, "Stop", last))
}

fn column(env: &Env, sql: &str) -> Vec<String> {
    let c = env.sql();
    let mut stmt = c.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get::<_, Option<String>>(0)).unwrap().map(|r| r.unwrap().unwrap_or_default()).collect()
}

fn count(env: &Env, sql: &str) -> i64 {
    env.sql().query_row(sql, [], |r| r.get(0)).unwrap()
}

// ---- 1. A turn stored before its reply was complete --------------------

#[test]
fn a_turn_read_before_its_reply_was_complete_is_completed_by_a_later_read() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    // The prompt and a tool call: `import` stores the turn as it stands.
    write_lines(&f, &all[..5]);
    env.run(&["import", "claude-code", s(&f)]).ok();
    let first = column(&env, "SELECT assistant_text FROM turns");
    assert_eq!(first.len(), 1);
    assert!(!first[0].contains(FIRST_REPLY_END), "{first:?}");
    write_lines(&f, &all);
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!((r["stored"].as_u64(), r["updated"].as_u64()), (Some(1), Some(1)), "{r}");
    let turns = column(&env, "SELECT assistant_text FROM turns ORDER BY id");
    assert_eq!(turns.len(), 2, "stored once: {turns:?}");
    assert!(turns[0].ends_with(FIRST_REPLY_END), "the reply is complete: {:?}", turns[0]);
    // Found by its new words.
    let hits = count(&env, "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH 'runs'");
    assert_eq!(hits, 1);
    env.assert_check();
}

#[test]
fn a_completed_turn_sends_its_summary_and_folds_back_to_the_queue() {
    let server = FakeServer::fixed("The user asked why the login test is flaky.");
    let env = Env::new().with_server(&server);
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    write_lines(&f, &all[..5]);
    env.run(&["import", "claude-code", s(&f)]).ok();
    env.run(&["summarize", "--once"]).ok();
    let folded = "SELECT count(*) FROM turns WHERE l2_state = 'done' AND l3_id IS NOT NULL";
    assert_eq!(count(&env, folded), 1, "summarized and folded from the short reply");
    assert_eq!(count(&env, "SELECT count(*) FROM summaries WHERE level = 3"), 1);
    write_lines(&f, &all[..8]);
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(r["updated"], 1, "{r}");
    // The short reply's L2, its keyword entry and its fold are gone; the
    // turn waits for the next pass.
    assert_eq!(column(&env, "SELECT l2_state FROM turns"), ["pending"]);
    assert_eq!(count(&env, "SELECT count(*) FROM turns WHERE l3_id IS NOT NULL OR l2 IS NOT NULL"), 0);
    assert_eq!(count(&env, "SELECT count(*) FROM summaries"), 0);
    assert_eq!(count(&env, "SELECT count(*) FROM l2_fts WHERE l2_fts MATCH 'flaky'"), 0);
    env.assert_check();
    env.run(&["summarize", "--once"]).ok();
    assert_eq!(count(&env, folded), 1, "summarized again from the whole reply");
    env.assert_check();
}

#[test]
fn stop_completes_the_reply_with_the_agents_last_message() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    // Stop runs before the final reply reached the transcript: the turn
    // ends with a tool result, and the hook input has the reply.
    write_lines(&f, &all[..6]);
    let last = "The test clicks the account menu before the session cookie is set. 10 of 10 runs pass.";
    let r = stop_hook(&env, &f, Some(last)).ok();
    assert_eq!(r.stderr, "");
    let turns = column(&env, "SELECT assistant_text FROM turns");
    assert_eq!(turns.len(), 1, "stored, not held for words");
    assert!(turns[0].ends_with(last), "{turns:?}");
    // The transcript catches up: still one turn, no second copy of the reply.
    write_lines(&f, &all[..8]);
    stop_hook(&env, &f, Some(last)).ok();
    let turns = column(&env, "SELECT assistant_text FROM turns");
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].matches("10 of 10 runs pass.").count(), 1, "{turns:?}");
    env.assert_check();
}

/// One synthetic Claude Code turn: prompt, tool call, tool result, reply.
fn synthetic_turn(i: usize) -> (Vec<String>, String) {
    let at = |s: usize| format!("2026-11-20T10:{:02}:{:02}.000Z", i, s);
    let base = json!({"isSidechain": false, "userType": "external", "cwd": "/home/dev/src/shopfront",
                      "sessionId": CLAUDE_SESSION, "version": "2.0.31", "gitBranch": "main"});
    let rec = |kind: &str, uuid: String, t: String, message: Value| {
        let mut r = base.clone();
        r["type"] = json!(kind);
        r["uuid"] = json!(uuid);
        r["timestamp"] = json!(t);
        r["message"] = message;
        r.to_string()
    };
    let reply = format!("Turn {i} is done: the fix for case {i} is in place and {} tests pass.", 10 + i);
    let lines = vec![
        rec(
            "user",
            format!("u-{i}"),
            at(0),
            json!({"role": "user", "content": format!("Please fix case {i} of the parser.")}),
        ),
        rec(
            "assistant",
            format!("a-{i}-1"),
            at(1),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Bash",
                   "input": {"command": format!("cargo test case_{i}")}}]}),
        ),
        rec(
            "user",
            format!("r-{i}"),
            at(2),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"),
                   "content": format!("test case_{i} ... FAILED"), "is_error": false}]}),
        ),
        rec(
            "assistant",
            format!("a-{i}-2"),
            at(3),
            json!({"role": "assistant", "content": [{"type": "text", "text": reply.clone()}]}),
        ),
    ];
    (lines, reply)
}

/// A tiny deterministic generator (the test's own random moments).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn a_transcript_read_while_it_is_written_ends_with_every_turn_complete_and_stored_once() {
    const TURNS: usize = 10;
    let env = Env::new();
    let f = env.path("live.jsonl");
    std::fs::write(&f, "").unwrap();
    let turns: Vec<(Vec<String>, String)> = (0..TURNS).map(synthetic_turn).collect();
    let writing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    // `import` at random moments while the agent writes.
    let importer = {
        let writing = writing.clone();
        let cmd = env.command(&["import", "claude-code", s(&f)]);
        let program = cmd.get_program().to_owned();
        let envs: Vec<(std::ffi::OsString, std::ffi::OsString)> =
            cmd.get_envs().filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))).collect();
        let args: Vec<std::ffi::OsString> = cmd.get_args().map(|a| a.to_owned()).collect();
        std::thread::spawn(move || {
            let mut rng = Lcg(7);
            let mut runs = 0;
            while writing.load(std::sync::atomic::Ordering::Relaxed) {
                let out = std::process::Command::new(&program)
                    .args(&args)
                    .env_clear()
                    .envs(envs.iter().cloned())
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                runs += 1;
                std::thread::sleep(Duration::from_millis(rng.next(40)));
            }
            runs
        })
    };
    let mut rng = Lcg(42);
    let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    for (lines, reply) in &turns {
        for (k, line) in lines.iter().enumerate() {
            let bytes = format!("{line}\n").into_bytes();
            // Some records reach the file in two writes.
            let cut = if rng.next(3) == 0 { rng.next(bytes.len() as u64) as usize } else { bytes.len() };
            file.write_all(&bytes[..cut]).unwrap();
            std::thread::sleep(Duration::from_millis(rng.next(15)));
            file.write_all(&bytes[cut..]).unwrap();
            // Stop fires as the reply ends: sometimes before the reply's
            // record is written, sometimes after.
            let last = k == lines.len() - 1;
            if (k == lines.len() - 2 && rng.next(2) == 0) || last {
                stop_hook(&env, &f, Some(reply)).ok();
            }
            std::thread::sleep(Duration::from_millis(rng.next(10)));
        }
    }
    writing.store(false, std::sync::atomic::Ordering::Relaxed);
    let runs = importer.join().unwrap();
    assert!(runs > 3, "imports ran during the writing: {runs}");
    // The session goes on: the next Stop and a last import.
    stop_hook(&env, &f, Some(&turns[TURNS - 1].1)).ok();
    env.run(&["import", "claude-code", s(&f)]).ok();
    let stored = column(&env, "SELECT assistant_text FROM turns ORDER BY at");
    assert_eq!(stored.len(), TURNS, "every turn stored once: {stored:#?}");
    for (i, text) in stored.iter().enumerate() {
        assert!(text.ends_with(&turns[i].1), "turn {i} is complete: {text:?}");
        assert_eq!(text.matches(&turns[i].1).count(), 1, "turn {i}: {text:?}");
    }
    env.assert_check();
}

// ---- 2. Codex turn ids across reads ----------------------------------

fn codex_keys(env: &Env) -> Vec<String> {
    column(env, "SELECT idem_key FROM turns ORDER BY at")
}

#[test]
fn a_codex_read_that_ends_between_turn_context_and_prompt_keeps_the_turn_id() {
    let env = Env::new();
    let all = lines("codex-rollout.jsonl");
    let f = env.path("rollout-2026-11-21T14-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    // session meta, injected context, the first turn's context: no prompt yet.
    write_lines(&f, &all[..3]);
    let r = env.run(&["import", "codex", s(&f), "--json"]).ok().json();
    assert_eq!(r["stored"], 0);
    write_lines(&f, &all);
    env.run(&["import", "codex", s(&f)]).ok();
    assert_eq!(codex_keys(&env), ["019aturn-0001", "019aturn-0002"]);
    // The notify hook agrees: no second row.
    let notify = json!({
        "type": "agent-turn-complete", "thread-id": CODEX_SESSION, "turn-id": "019aturn-0001",
        "cwd": "/home/dev/src/billing",
        "input-messages": ["Why does invoice rounding differ between the PDF and the API?"],
        "last-assistant-message": "The PDF uses banker's rounding.",
    });
    env.run(&["hook", "codex", &notify.to_string()]).ok();
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 2);
    env.assert_check();
}

#[test]
fn a_codex_prompt_whose_turn_context_follows_it_waits_for_its_turn_id() {
    let env = Env::new();
    let all = lines("codex-rollout.jsonl");
    // Newer files write the turn context after the prompt.
    let mut reordered = all.clone();
    reordered.swap(2, 3);
    let f = env.path("rollout-2026-11-21T14-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    write_lines(&f, &reordered[..3]);
    env.run(&["import", "codex", s(&f)]).ok();
    write_lines(&f, &reordered);
    env.run(&["import", "codex", s(&f)]).ok();
    assert_eq!(codex_keys(&env), ["019aturn-0001", "019aturn-0002"]);
}

// ---- 3. Turns skipped for good ----------------------------------------

#[test]
fn a_turn_with_a_bad_time_is_stored_with_the_time_before_it_and_named() {
    let env = Env::new();
    let mut all = lines("claude-code.jsonl");
    all[8] = all[8].replace("2026-11-20T09:02:00.000Z", "yesterday");
    let f = env.path("bad-time.jsonl");
    write_lines(&f, &all);
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok();
    assert_eq!(r.json()["stored"], 2, "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!("{}:9: time \"yesterday\" is not an RFC 3339 time", f.display())),
        "{}",
        r.stderr
    );
    let times = column(&env, "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', at / 1000, 'unixepoch') FROM turns ORDER BY id");
    assert_eq!(times, ["2026-11-20T09:00:00Z", "2026-11-20T09:00:00Z"]);

    let future = Env::new();
    let mut all = lines("claude-code.jsonl");
    all[2] = all[2].replace("2026-11-20T09:00:00.000Z", "2999-01-01T00:00:00Z");
    let f = future.path("future.jsonl");
    write_lines(&f, &all);
    let r = future.run(&["import", "claude-code", s(&f), "--json"]).ok();
    assert_eq!(r.json()["stored"], 2, "{}", r.stdout);
    assert!(
        r.stderr.contains(":3: time \"2999-01-01T00:00:00Z\" is more than 10 minutes in the future"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_refused_line_is_named_and_read_again_once_fixed() {
    let env = Env::new();
    // Long enough that the lines around the refused one are outside the
    // bytes a rewrite check looks at.
    let line = |i: usize, at: &str| {
        json!({"session": "notes", "id": format!("n{i}"), "at": at, "user": format!("note {i} {}", "x".repeat(120)),
               "assistant": "ok"})
        .to_string()
    };
    let mut ls: Vec<String> = (0..120).map(|i| line(i, "2026-01-01T00:00:00Z")).collect();
    ls[60] = line(60, "2026-13-01T00:00:00Z");
    let f = env.path("notes.jsonl");
    write_lines(&f, &ls);
    let r = env.run(&["import", "jsonl", s(&f), "--json"]).code(1);
    let j = r.json();
    assert_eq!((j["stored"].as_u64(), j["rejected"].as_u64()), (Some(119), Some(1)));
    assert_eq!(j["refused"][0]["line"], 61, "{j}");
    assert_eq!(j["refused"][0]["file"], s(&f));
    assert!(r.stderr.contains(&format!("{}:61: turn refused: invalid time", f.display())), "{}", r.stderr);
    // Fixed in place (the same length, so the bytes a rewrite check looks
    // at are the same): read again, stored.
    ls[60] = line(60, "2026-12-01T00:00:00Z");
    write_lines(&f, &ls);
    let j = env.run(&["import", "jsonl", s(&f), "--json"]).ok().json();
    assert_eq!(j["stored"], 1, "{j}");
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 120);
}

#[test]
fn a_second_prompt_that_reuses_a_uuid_is_its_own_turn() {
    let env = Env::new();
    let mut all = lines("claude-code.jsonl");
    // The second prompt carries the first one's uuid.
    all[8] = all[8].replace("7c1d2e3f-0000-4000-8000-000000000007\"", &format!("{FIRST_UUID}\""));
    assert!(all[8].contains(&format!("\"uuid\":\"{FIRST_UUID}\"")), "{}", all[8]);
    let f = env.path("reused.jsonl");
    write_lines(&f, &all);
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(r["stored"], 2, "{r}");
    let users = column(&env, "SELECT user_text FROM turns ORDER BY id");
    assert_eq!(users.len(), 2);
    assert!(users[1].starts_with("Good. Commit it"), "{users:?}");
    // Read again: the same two turns.
    let again = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(again["stored"], 0, "{again}");
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 2);
    env.assert_check();
}

#[test]
fn codex_input_messages_that_are_not_text_are_counted_not_stored_as_json() {
    let env = Env::new();
    let notify = json!({
        "type": "agent-turn-complete", "thread-id": CODEX_SESSION, "turn-id": "t1", "cwd": "/w/api",
        "input-messages": ["Describe this screenshot.", {"type": "image", "url": "data:image/png;base64,AAAA"}],
        "last-assistant-message": "It shows the login page.",
    });
    let r = env.run(&["hook", "codex", &notify.to_string()]).ok();
    assert!(r.stderr.contains("1 input message(s) that are not text skipped"), "{}", r.stderr);
    assert_eq!(column(&env, "SELECT user_text FROM turns"), ["Describe this screenshot."]);
}

#[test]
fn images_in_a_prompt_are_counted_as_non_text_content() {
    let env = Env::new();
    let mut all = lines("claude-code.jsonl");
    all[8] = all[8].replace(
        "\"content\":[{\"type\":\"text\"",
        "\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"AAAA\"}},{\"type\":\"text\"",
    );
    assert!(all[8].contains("image/png"), "{}", all[8]);
    let f = env.path("image.jsonl");
    write_lines(&f, &all);
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(r["skipped"]["non-text content"], 1, "{r}");
    assert_eq!(r["stored"], 2);
}

// ---- 4. Forgotten turns stay forgotten ----------------------------------

#[test]
fn a_forgotten_turn_is_not_stored_again_by_the_next_hook_or_import() {
    let env = Env::new();
    let f = env.path("session.jsonl");
    write_lines(&f, &lines("claude-code.jsonl"));
    stop_hook(&env, &f, None).ok();
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 2);
    let last: i64 = env.sql().query_row("SELECT max(id) FROM turns", [], |r| r.get(0)).unwrap();
    env.run(&["forget", "--turn", &last.to_string()]).ok();
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 1);
    // The last turn grows after it was forgotten: the hook goes on with
    // it and stores nothing of it...
    let mut all = lines("claude-code.jsonl");
    let grown = all.last().unwrap().replace("Committed as 4e5f6a7.", "Pushed 4e5f6a7 to origin/main.");
    all.push(grown.replace("000000000010", "000000000011"));
    write_lines(&f, &all);
    stop_hook(&env, &f, Some("Pushed 4e5f6a7 to origin/main.")).ok();
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 1, "forgotten turns stay forgotten");
    // ...and neither does an import that reads it again from its start.
    env.sql().execute("UPDATE import_files SET byte_offset = 0, line_no = 0, open_turn = NULL", []).unwrap();
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(r["forgotten"], 1, "{r}");
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 1, "forgotten turns stay forgotten");
    assert_eq!(count(&env, "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH '4e5f6a7'"), 0);
    // The whole session, forgotten, does not come back either, even from
    // a copy of the transcript read from its first line.
    env.run(&["forget", "--session", CLAUDE_SESSION]).ok();
    let copy = env.path("copy.jsonl");
    std::fs::copy(&f, &copy).unwrap();
    let r = env.run(&["import", "claude-code", s(&copy), "--json"]).ok().json();
    assert_eq!(r["forgotten"], 2, "{r}");
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 0);
    assert_eq!(count(&env, "SELECT count(*) FROM sessions"), 0, "not even an empty session");
    env.assert_check();
}

// ---- 10. Hooks that block ----------------------------------------------

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

fn hook_within(env: &Env, input: &[u8]) -> (crate::support::Run, Duration) {
    let mut c = env.command(&["hook", "claude-code"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    env.finish_within(child, Duration::from_secs(10))
}

#[test]
fn a_fifo_or_a_device_as_transcript_is_refused_at_once() {
    let env = Env::new();
    let fifo = env.path("fifo.jsonl");
    mkfifo(&fifo);
    for (path, what) in [(fifo.as_path(), "is a FIFO"), (Path::new("/dev/zero"), "is a device")] {
        let (r, took) = hook_within(&env, &stop_input(path, "Stop", None));
        // A failed hook exits 1: Claude Code shows it without blocking.
        assert_eq!(r.code, 1);
        assert!(took < HOOK_LIMIT, "{path:?}: {took:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains(what) && r.stderr.contains("not a regular file"), "{}", r.stderr);
    }
}

#[test]
fn a_hook_whose_stdin_is_never_closed_returns_at_once() {
    let env = Env::new();
    let f = env.path("session.jsonl");
    write_lines(&f, &lines("claude-code.jsonl"));
    // Nothing written and the pipe held open.
    let mut c = env.command(&["hook", "claude-code"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let held = child.stdin.take().unwrap();
    let (r, took) = env.finish_within(child, Duration::from_secs(10));
    assert!(took < HOOK_LIMIT, "{took:?}");
    assert!(r.stderr.contains("no complete hook input on stdin"), "{}", r.stderr);
    // The whole input written, the pipe still held open: it is used.
    let mut c = env.command(&["hook", "claude-code"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&stop_input(&f, "Stop", None)).unwrap();
    let (r, took) = env.finish_within(child, Duration::from_secs(10));
    assert!(took < HOOK_LIMIT, "{took:?}");
    assert_eq!(r.stderr, "");
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), 2);
    drop((held, stdin));
}

// ---- 11. Folder walks ---------------------------------------------------

#[test]
fn import_of_a_folder_with_link_loops_and_a_fifo_reads_each_transcript_once() {
    let env = Env::new();
    let dir = env.path("projects");
    std::fs::create_dir_all(dir.join("p")).unwrap();
    std::fs::copy(fixture("claude-code.jsonl"), dir.join("p/t.jsonl")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("l")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("p/l")).unwrap();
    std::os::unix::fs::symlink("t.jsonl", dir.join("p/same.jsonl")).unwrap();
    mkfifo(&dir.join("x.jsonl"));
    let (r, took) = env.run_within(&["import", "claude-code", s(&dir), "--json"], Duration::from_secs(20));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(took < Duration::from_secs(5), "{took:?}");
    let j = r.json();
    assert_eq!((j["files"].as_u64(), j["stored"].as_u64()), (Some(1), Some(2)), "{j}");
    // A FIFO named on the command line: one error line, no wait.
    let (r, _) = env.run_within(&["import", "claude-code", s(&dir.join("x.jsonl"))], Duration::from_secs(20));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("is a FIFO, not a regular file"), "{}", r.stderr);
}

// ---- 12. A locked database ----------------------------------------------

/// Hold the database's write lock (as a long pass or `forget` would) until dropped.
fn hold_write_lock(env: &Env) -> rusqlite::Connection {
    let c = env.sql();
    c.execute_batch("BEGIN IMMEDIATE; UPDATE sessions SET tokens = tokens WHERE 0;").unwrap();
    c
}

fn spool_files(env: &Env) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(env.path("state/ragger/spool")) else { return out };
    for d in dirs {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            out.push(f.unwrap().path());
        }
    }
    out
}

#[test]
fn a_codex_turn_on_a_locked_database_is_spooled_at_once_and_stored_by_the_next_capture() {
    let env = Env::new();
    env.capture("other", "hello", "hi", &[]).ok();
    let lock = hold_write_lock(&env);
    let notify = json!({
        "type": "agent-turn-complete", "thread-id": CODEX_SESSION, "turn-id": "t1", "cwd": "/w/api",
        "input-messages": ["My key is sk-proj-ABCDEF1234567890abcdef1234567890, rotate it."],
        "last-assistant-message": "Rotated.",
    });
    let (r, took) = env.run_within(&["hook", "codex", &notify.to_string()], Duration::from_secs(40));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert!(took < HOOK_LIMIT, "the agent does not wait: {took:?}");
    let files = spool_files(&env);
    assert_eq!(files.len(), 1, "{files:?}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
    let spooled = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!spooled.contains("sk-proj-ABCDEF"), "redacted before it is written: {spooled}");
    drop(lock);
    env.capture("other", "next", "turn", &[]).ok();
    assert_eq!(column(&env, "SELECT idem_key FROM turns WHERE idem_key IS NOT NULL"), ["t1"]);
    assert!(spool_files(&env).is_empty());
    env.assert_check();
}

/// A database with nothing else to do and one turn spooled: the tick
/// stores it and summarises it (its "nothing to do" check comes after the
/// spool is drained).
#[test]
fn a_spooled_turn_is_stored_and_summarised_by_a_tick_that_had_nothing_else_to_do() {
    let server = FakeServer::fixed("The user asked to rotate a key.");
    let env = Env::new().with_server(&server);
    env.capture("other", "hello", "hi", &[]).ok();
    env.run(&["housekeeping"]).ok();
    env.run(&["housekeeping", "--json"]).ok();
    let lock = hold_write_lock(&env);
    let notify = json!({
        "type": "agent-turn-complete", "thread-id": CODEX_SESSION, "turn-id": "t1", "cwd": "/w/api",
        "input-messages": ["Rotate the staging key."], "last-assistant-message": "Rotated.",
    });
    let (r, _) = env.run_within(&["hook", "codex", &notify.to_string()], Duration::from_secs(40));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(spool_files(&env).len(), 1);
    drop(lock);
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["summarized"]["l2"], 1, "{r}");
    assert!(spool_files(&env).is_empty());
    assert_eq!(column(&env, "SELECT l2_state FROM turns WHERE idem_key = 't1'"), ["done"]);
    env.assert_check();
}

#[test]
fn a_stop_hook_on_a_locked_database_returns_at_once_and_housekeeping_stores_the_turns() {
    let env = Env::new();
    env.capture("other", "hello", "hi", &[]).ok();
    let f = env.path("session.jsonl");
    write_lines(&f, &lines("claude-code.jsonl"));
    let lock = hold_write_lock(&env);
    let started = Instant::now();
    let r = stop_hook(&env, &f, Some("Committed as 4e5f6a7."));
    let took = started.elapsed();
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert!(took < HOOK_LIMIT, "{took:?}");
    assert_eq!(spool_files(&env).len(), 1);
    drop(lock);
    env.run(&["housekeeping", "--no-summarize"]).ok();
    assert_eq!(
        count(
            &env,
            "SELECT count(*) FROM turns t JOIN sessions s ON s.id = t.session_id WHERE s.external_id = 'other'"
        ),
        1
    );
    assert_eq!(env.show(CLAUDE_SESSION)["turns"].as_array().unwrap().len(), 2);
    assert!(spool_files(&env).is_empty());
    env.assert_check();
}

#[test]
fn a_stop_hook_reads_a_bounded_part_of_a_huge_transcript_and_the_pass_reads_the_rest() {
    let env = Env::new();
    let f = env.path("huge.jsonl");
    // About 40 MB: more than a hook reads in one run (it may go on with
    // what it spooled while it has time, within the same bounds).
    let mut out = std::io::BufWriter::new(std::fs::File::create(&f).unwrap());
    let big = "x".repeat(6000);
    let n = 6500;
    for i in 0..n {
        let (mut lines, _) = synthetic_turn(i % 60);
        for l in &mut lines {
            *l = l.replace(&format!("\"u-{}\"", i % 60), &format!("\"u-{i}\""));
        }
        lines[2] = lines[2].replace("FAILED", &format!("FAILED {big}"));
        for l in lines {
            writeln!(out, "{l}").unwrap();
        }
    }
    drop(out);
    assert!(std::fs::metadata(&f).unwrap().len() > 36 << 20);
    let started = Instant::now();
    stop_hook(&env, &f, None).ok();
    let took = started.elapsed();
    assert!(took < HOOK_LIMIT, "{took:?}");
    let by_hook = count(&env, "SELECT count(*) FROM turns");
    assert!(by_hook > 0 && by_hook < n as i64, "{by_hook}");
    assert!(!spool_files(&env).is_empty(), "the rest is left for the pass");
    env.run(&["housekeeping", "--no-summarize"]).ok();
    assert_eq!(count(&env, "SELECT count(*) FROM turns"), n as i64);
    assert!(spool_files(&env).is_empty());
}
