//! `ragger import`, `ragger hook` and `ragger context`: agents' transcripts
//! in, memory back out.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{fixture, Env, FakeServer};

const CLAUDE_SESSION: &str = "3f8b2a10-5c4d-4e6f-9a7b-1c2d3e4f5a6b";
const CODEX_SESSION: &str = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

fn lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name)).unwrap().lines().map(str::to_string).collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

fn append_lines(path: &Path, lines: &[String]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn claude_code_transcript_becomes_turns_with_tools_condensed_and_thinking_dropped() {
    let env = Env::new();
    let r = env.run(&["import", "claude-code", s(&fixture("claude-code.jsonl")), "-v"]).ok();
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("stored 2, duplicates 0"), "{}", r.stderr);
    assert!(r.stderr.contains("summary 1") && r.stderr.contains("system 1"), "{}", r.stderr);
    let show = env.show(CLAUDE_SESSION);
    assert_eq!(show["project"], "shopfront");
    let turns = show["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["user"], "The login test fails about one run in five. Find out why.");
    assert_eq!(turns[0]["at"], "2026-11-20T09:00:00Z");
    let a = turns[0]["assistant"].as_str().unwrap();
    assert!(
        a.starts_with(
            "[tool Bash: npm test -- tests/login.spec.ts --repeat 10]\n[result: 8 passed, 2 failed TimeoutError"
        ),
        "{a}"
    );
    assert!(a.ends_with("10 of 10 runs pass."), "{a}");
    assert!(!a.contains("race between"), "thinking must be dropped: {a}");
    assert_eq!(turns[1]["user"], "Good. Commit it with a message that explains the race.");
    assert!(turns[1]["assistant"].as_str().unwrap().ends_with("Committed as 4e5f6a7."));
    let key: String = env.sql().query_row("SELECT idem_key FROM turns ORDER BY id LIMIT 1", [], |r| r.get(0)).unwrap();
    assert_eq!(key, "7c1d2e3f-0000-4000-8000-000000000001", "the key is the prompt record's uuid");
    env.assert_check();
}

#[test]
fn reimport_stores_nothing() {
    let env = Env::new();
    let f = fixture("claude-code.jsonl");
    env.run(&["import", "claude-code", s(&f)]).ok();
    let again = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(again["stored"], 0);
    assert_eq!(env.status()["turns"], 2);
}

#[test]
fn codex_rollout_becomes_turns_keyed_by_turn_id() {
    let env = Env::new();
    let r = env.run(&["import", "codex", s(&fixture("codex-rollout.jsonl")), "--json"]).ok().json();
    assert_eq!(r["stored"], 2);
    assert_eq!(r["skipped"]["injected context"], 1);
    assert_eq!(r["skipped"]["compacted"], 1);
    let show = env.show(CODEX_SESSION);
    assert_eq!(show["project"], "billing");
    let turns = show["turns"].as_array().unwrap();
    assert_eq!(turns[0]["user"], "Why does invoice rounding differ between the PDF and the API?");
    let a = turns[0]["assistant"].as_str().unwrap();
    assert!(a.starts_with("[tool shell: rg -n round src/invoice]\n[result: src/invoice/pdf.rs:40"), "{a}");
    assert!(a.ends_with("differ by a cent."), "{a}");
    assert!(turns[1]["assistant"].as_str().unwrap().starts_with("[tool apply_patch: *** Begin Patch"));
    let keys: Vec<String> = env
        .sql()
        .prepare("SELECT idem_key FROM turns ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(keys, ["019aturn-0001", "019aturn-0002"]);
}

#[test]
fn jsonl_file_is_what_capture_stdin_reads() {
    let env = Env::new();
    let f = fixture("capture.jsonl");
    let r = env.run(&["import", "jsonl", s(&f), "--json"]).ok().json();
    assert_eq!(r["stored"], 2);
    assert_eq!(env.show("chat-1")["project"], "notes");
    // A line without an id is keyed by its place in the file.
    assert_eq!(env.run(&["import", "jsonl", s(&f), "--json"]).ok().json()["stored"], 0);
}

#[test]
fn a_growing_transcript_stores_only_new_turns_and_reads_only_its_tail() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    write_lines(&f, &all[..8]);
    let first = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(first["stored"], 1);
    append_lines(&f, &all[8..]);
    let second = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(second["stored"], 1, "{second}");
    // The read goes on where the last one ended, with the turn it left
    // open (which may still grow), not at the head of the file nor at
    // that turn's start.
    let bytes = |ls: &[String]| ls.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    assert_eq!(second["bytes_read"].as_u64().unwrap(), bytes(&all[8..]));
    let third = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!((third["stored"].as_u64(), third["bytes_read"].as_u64()), (Some(0), Some(0)));
    assert_eq!((third["duplicates"].as_u64(), third["updated"].as_u64()), (Some(0), Some(0)), "{third}");
    assert_eq!(env.status()["turns"], 2);
}

#[test]
fn a_turn_left_open_grows_from_where_the_last_read_ended_and_is_stored_once_complete() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    // The second turn's prompt and tool call are written, not yet its
    // result and reply: an import stores it as it stands.
    write_lines(&f, &all[..10]);
    let first = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(first["stored"], 2, "{first}");
    let reply = || -> String {
        env.sql().query_row("SELECT assistant_text FROM turns ORDER BY id DESC LIMIT 1", [], |r| r.get(0)).unwrap()
    };
    assert!(!reply().contains("Committed as"), "{}", reply());
    // The rest is read alone, with the open turn taken back: the turn is
    // stored again, complete, from its tool call to its reply.
    append_lines(&f, &all[10..]);
    let bytes = |ls: &[String]| ls.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    let second = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(second["bytes_read"].as_u64(), Some(bytes(&all[10..])), "{second}");
    assert_eq!((second["stored"].as_u64(), second["updated"].as_u64()), (Some(0), Some(1)), "{second}");
    let text = reply();
    assert!(text.starts_with("[tool Bash: git commit") && text.ends_with("Committed as 4e5f6a7."), "{text}");
    // A saved open turn this version cannot read: the file is read again
    // from its start, and the turn keys keep what is stored.
    env.sql().execute("UPDATE import_files SET open_turn = '{\"draft\": 7}'", []).unwrap();
    let third = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(third["bytes_read"].as_u64(), Some(bytes(&all)), "{third}");
    assert_eq!((third["stored"].as_u64(), third["duplicates"].as_u64()), (Some(0), Some(2)), "{third}");
    assert_eq!(env.status()["turns"], 2);
    env.assert_check();
}

#[test]
fn a_refused_turn_before_the_open_one_is_read_again_with_it() {
    let env = Env::new();
    let mut all = lines("claude-code.jsonl");
    // The first prompt's session id holds a control character (refused);
    // the second turn is still open.
    all[2] = all[2].replace(CLAUDE_SESSION, &CLAUDE_SESSION.replace("5a6b", "5a\\u0001b"));
    assert!(all[2].contains("\\u0001"), "{}", all[2]);
    let f = env.path("session.jsonl");
    write_lines(&f, &all[..10]);
    let first = env.run(&["import", "claude-code", s(&f), "--json"]).code(1).json();
    assert_eq!((first["stored"].as_u64(), first["rejected"].as_u64()), (Some(1), Some(1)), "{first}");
    // The next read starts at the refused turn, not after the open one.
    let open: Option<String> = env.sql().query_row("SELECT open_turn FROM import_files", [], |r| r.get(0)).unwrap();
    assert_eq!(open, None);
    // Fixed in place (the same length) and the rest written: both turns.
    all[2] = all[2].replace("\\u0001", "-----0");
    write_lines(&f, &all);
    let bytes = |ls: &[String]| ls.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    let second = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(second["bytes_read"].as_u64(), Some(bytes(&all[2..])), "{second}");
    assert_eq!((second["stored"].as_u64(), second["updated"].as_u64()), (Some(1), Some(1)), "{second}");
    assert_eq!(env.status()["turns"], 2);
    env.assert_check();
}

#[test]
fn a_rewritten_transcript_is_read_again_and_adds_only_what_is_new() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    write_lines(&f, &all);
    env.run(&["import", "claude-code", s(&f)]).ok();
    // The agent rewrites the file: the old head is gone, one new turn.
    let mut rewritten: Vec<String> = all[8..].to_vec();
    rewritten
        .push(all[2].replace("000000000001", "000000000099").replace("fails about one run in five", "is green now"));
    write_lines(&f, &rewritten);
    let r = env.run(&["import", "claude-code", s(&f), "--json"]).ok().json();
    assert_eq!(r["stored"], 1, "{r}");
    assert_eq!(r["duplicates"], 1);
    assert_eq!(env.status()["turns"], 3);
}

#[test]
fn a_malformed_line_is_one_warning_naming_file_and_line_and_the_rest_is_imported() {
    let env = Env::new();
    let mut all = lines("claude-code.jsonl");
    all.insert(4, "{\"type\":\"assistant\", broken".to_string());
    let f = env.path("broken.jsonl");
    write_lines(&f, &all);
    let r = env.run(&["import", "claude-code", s(&f)]).code(1);
    let warnings: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(warnings[0].contains(&format!("{}:5: invalid JSON", f.display())), "{}", r.stderr);
    assert_eq!(env.status()["turns"], 2);
}

#[test]
fn dry_run_counts_and_stores_nothing() {
    let env = Env::new();
    let r = env.run(&["import", "codex", s(&fixture("codex-rollout.jsonl")), "--dry-run"]).ok();
    assert!(r.stdout.starts_with("would store 2 turns (0 already stored) from 1 files"), "{}", r.stdout);
    assert_eq!(env.status()["turns"], 0);
}

#[test]
fn a_folder_is_searched_for_transcripts() {
    let env = Env::new();
    let dir = env.path("projects/-home-dev-src-shopfront");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("claude-code.jsonl"), dir.join(format!("{CLAUDE_SESSION}.jsonl"))).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a transcript").unwrap();
    let r = env.run(&["import", "claude-code", s(&env.path("projects")), "--json"]).ok().json();
    assert_eq!(r["files"], 1);
    assert_eq!(r["stored"], 2);
}

/// Codex keeps older rollouts compressed as `rollout-*.jsonl.zst` under
/// ~/.codex/sessions/YYYY/MM/DD/: a folder import reads them beside the
/// plain ones, and one given by name is read too. Compressed here with
/// ruzstd's encoder (real zstd frames, two of them one after the other, as
/// `zstd` writes when appending), and from a file the reference `zstd`
/// 1.5 CLI wrote (tests/fixtures/codex-rollout.jsonl.zst, `zstd -19`).
#[test]
fn compressed_codex_rollouts_are_read_from_a_folder_and_by_name() {
    let env = Env::new();
    let day = env.path("sessions/2026/03/02");
    std::fs::create_dir_all(&day).unwrap();
    let text = std::fs::read(fixture("codex-rollout.jsonl")).unwrap();
    let cut = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut zst = Vec::new();
    for part in [&text[..cut], &text[cut..]] {
        zst.extend(ruzstd::encoding::compress_to_vec(part, ruzstd::encoding::CompressionLevel::Fastest));
    }
    assert_eq!(&zst[..4], &[0x28, 0xB5, 0x2F, 0xFD], "a zstd frame");
    assert!(zst.len() < text.len(), "compressed: {} of {} bytes", zst.len(), text.len());
    let f = day.join(format!("rollout-2026-03-02T10-00-00-{CODEX_SESSION}.jsonl.zst"));
    std::fs::write(&f, &zst).unwrap();
    let r = env.run(&["import", "codex", s(&env.path("sessions")), "--json"]).ok().json();
    assert_eq!(
        (r["files"].as_u64(), r["stored"].as_u64(), r["malformed"].as_u64()),
        (Some(1), Some(2), Some(0)),
        "{r}"
    );
    assert_eq!(r["bytes_read"].as_u64(), Some(text.len() as u64), "counted in content bytes");
    let show = env.show(CODEX_SESSION);
    assert_eq!(show["project"], "billing");
    assert_eq!(show["turns"][0]["user"], "Why does invoice rounding differ between the PDF and the API?");
    // Again: nothing new, and nothing read past what was stored.
    let again = env.run(&["import", "codex", s(&f), "--json"]).ok().json();
    assert_eq!(again["stored"], 0, "{again}");

    // By name, compressed by the reference implementation.
    let other = Env::new();
    let r = other.run(&["import", "codex", s(&fixture("codex-rollout.jsonl.zst")), "--json"]).ok().json();
    assert_eq!((r["stored"].as_u64(), r["malformed"].as_u64()), (Some(2), Some(0)), "{r}");
    assert_eq!(other.show(CODEX_SESSION)["turns"], show["turns"]);

    // A damaged file is one error naming it; nothing is stored from it.
    let bad = env.path("rollout-bad.jsonl.zst");
    std::fs::write(&bad, &zst[..zst.len() / 2]).unwrap();
    let r = Env::new().run(&["import", "codex", s(&bad)]).code(1);
    assert!(r.stderr.contains("rollout-bad.jsonl.zst") && r.stderr.contains("zstd"), "{}", r.stderr);
}

fn stop_hook(env: &Env, transcript: &Path, event: &str) -> crate::support::Run {
    let input = json!({
        "session_id": CLAUDE_SESSION,
        "transcript_path": transcript,
        "cwd": "/home/dev/src/shopfront",
        "permission_mode": "default",
        "hook_event_name": event,
        "stop_hook_active": false,
    });
    env.run_stdin(&["hook", "claude-code"], input.to_string().as_bytes())
}

#[test]
fn claude_code_stop_hook_captures_turn_by_turn() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    write_lines(&f, &all[..7]);
    let r = stop_hook(&env, &f, "Stop").ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    assert_eq!(env.status()["turns"], 1);
    // The next prompt and a tool call, but no reply in words yet: held.
    write_lines(&f, &all[..10]);
    stop_hook(&env, &f, "Stop").ok();
    assert_eq!(env.status()["turns"], 1);
    write_lines(&f, &all);
    stop_hook(&env, &f, "Stop").ok();
    let show = env.show(CLAUDE_SESSION);
    assert_eq!(show["turns"].as_array().unwrap().len(), 2);
    assert!(show["turns"][1]["assistant"].as_str().unwrap().ends_with("Committed as 4e5f6a7."));
}

#[test]
fn session_end_stores_a_last_turn_without_words() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    write_lines(&f, &all[..10]);
    stop_hook(&env, &f, "SessionEnd").ok();
    assert_eq!(env.status()["turns"], 2);
}

#[test]
fn subagent_stop_stores_only_finished_turns() {
    let env = Env::new();
    let all = lines("claude-code.jsonl");
    let f = env.path("session.jsonl");
    // The first turn has its reply in words but is still open (no next prompt).
    write_lines(&f, &all[..7]);
    stop_hook(&env, &f, "SubagentStop").ok();
    assert_eq!(env.status()["turns"], 0);
    write_lines(&f, &all[..9]);
    stop_hook(&env, &f, "SubagentStop").ok();
    assert_eq!(env.status()["turns"], 1);
}

/// Claude Code shows the stderr of a hook that exits neither 0 nor 2, and
/// goes on (https://code.claude.com/docs/en/hooks, "Exit code output"):
/// a failing hook is one line and exit 1, never 2, which would block.
#[test]
fn hook_failures_are_one_line_and_a_non_blocking_exit_1() {
    let env = Env::new();
    let r = env.run_stdin(&["hook", "claude-code"], b"not json").code(1);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("ragger: hook claude-code: "), "{}", r.stderr);
    let r = stop_hook(&env, &env.path("missing.jsonl"), "Stop").code(1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("missing.jsonl"), "{}", r.stderr);
    let bad = env.with_config("[capture]\nno_such_key = 1");
    let r = bad.run(&["hook", "codex", "{}"]).code(1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}

#[test]
fn other_hook_events_do_nothing() {
    let env = Env::new();
    let f = env.path("session.jsonl");
    write_lines(&f, &lines("claude-code.jsonl"));
    let r = stop_hook(&env, &f, "PreToolUse").ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    assert!(!env.db().exists(), "nothing stored, not even a database created");
}

#[test]
fn codex_notify_stores_the_turn_and_the_rollout_agrees_on_its_key() {
    let env = Env::new();
    let notify = json!({
        "type": "agent-turn-complete",
        "thread-id": CODEX_SESSION,
        "turn-id": "019aturn-0001",
        "cwd": "/home/dev/src/billing",
        "input-messages": ["Why does invoice rounding differ between the PDF and the API?"],
        "last-assistant-message": "The PDF uses banker's rounding.",
    });
    let r = env.run(&["hook", "codex", &notify.to_string()]).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    let show = env.show(CODEX_SESSION);
    assert_eq!(show["project"], "billing");
    assert_eq!(show["turns"][0]["assistant"], "The PDF uses banker's rounding.");
    // Other notifications are ignored.
    env.run(&["hook", "codex", r#"{"type":"approval-requested"}"#]).ok();
    let r = env.run(&["import", "codex", s(&fixture("codex-rollout.jsonl")), "--json"]).ok().json();
    // Same key: the rollout's fuller copy of the turn (its tool calls too)
    // completes the stored one rather than adding a second.
    assert_eq!((r["stored"].as_u64(), r["updated"].as_u64(), r["duplicates"].as_u64()), (Some(1), Some(1), Some(0)));
    let turns = env.show(CODEX_SESSION)["turns"].as_array().unwrap().clone();
    assert_eq!(turns.len(), 2);
    let first = turns.iter().find(|t| t["id"] == 1).unwrap();
    assert!(first["assistant"].as_str().unwrap().starts_with("[tool shell: rg -n round"), "{turns:?}");
}

/// A fake memory model that writes every summary in the words of the turn.
fn summary_server() -> FakeServer {
    FakeServer::fixed("The user fixed the flaky login test by waiting for the session.")
}

#[test]
fn captured_by_hook_summarized_then_given_back_at_session_start() {
    let server = summary_server();
    let env = Env::new().with_server(&server);
    let f = env.path("session.jsonl");
    write_lines(&f, &lines("claude-code.jsonl"));
    stop_hook(&env, &f, "Stop").ok();
    env.run(&["summarize", "--once"]).ok();
    let md = env.run(&["context", "--cwd", "/home/dev/src/shopfront"]).ok().stdout;
    assert!(md.starts_with("## Memory of earlier sessions (project shopfront, from ragger)"), "{md}");
    assert!(md.contains(&format!("(session {CLAUDE_SESSION}): ")), "{md}");
    let j: Value = env.run(&["context", "--project", "shopfront", "--json"]).ok().json();
    assert_eq!(j["project"], "shopfront");
    assert_eq!(j["segments"].as_array().unwrap().len(), 1);
    let r = stop_hook(&env, &f, "SessionStart").ok();
    let out: Value = r.json();
    assert_eq!(out["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert_eq!(out["hookSpecificOutput"]["additionalContext"].as_str().unwrap(), md);
    // A project with no memory is named in a one-line error (exit 2), not
    // an empty block that looks like "nothing to remember".
    let r = env.run(&["context", "--project", "elsewhere"]).code(2);
    assert!(r.stdout.is_empty() && r.stderr.contains("unknown project \"elsewhere\""), "{}", r.stderr);
}

#[test]
fn context_lists_recent_sessions_then_earlier_ones_on_the_subject() {
    let server = summary_server();
    let env = Env::new().with_server(&server);
    // Six past sessions of one project, a day apart; the oldest one is about the cookie.
    let topics = [
        (
            "Why does the login form drop the session cookie in Safari?",
            "Its SameSite attribute is missing; set SameSite=Lax on the cookie.",
        ),
        ("How do I make the release build smaller?", "Strip symbols and enable LTO in the release profile."),
        ("What goes into the changelog for 0.4?", "The new export command and the fixed pagination."),
        ("Which size should the database pool have?", "Start with 32 connections and watch the wait time."),
        ("How do I rename the metrics endpoint?", "Move the route and keep a redirect for one release."),
        ("How do I pin the toolchain?", "Write 1.95 into rust-toolchain.toml."),
    ];
    for (i, (user, assistant)) in topics.iter().enumerate() {
        let at = format!("2026-03-0{}T10:00:00Z", i + 1);
        env.capture(&format!("s{}", i + 1), user, assistant, &["--project", "shop", "--at", &at]).ok();
    }
    // Each session is its own segment: the block lists segments by themselves.
    let listed = |v: &Value| -> Vec<String> {
        let sessions = |k: &str| v[k].as_array().unwrap().iter().map(|e| e["session"].as_str().unwrap().to_string());
        sessions("segments").chain(sessions("related")).collect()
    };
    // While the sessions are open there is no project summary yet: every
    // segment is listed, newest first.
    env.run(&["summarize", "--once"]).ok();
    let all: Value = env.run(&["context", "--project", "shop", "--json"]).ok().json();
    assert!(all["project_summary"].is_null(), "{all:#}");
    assert_eq!(listed(&all).len(), 6, "{all:#}");
    assert_eq!(listed(&all)[..3], ["s6", "s5", "s4"], "{all:#}");
    // A query's terms are what the earlier segments are matched on (the
    // choice itself: `context::tests`, on completed segments).
    let r: Value = env.run(&["context", "--project", "shop", "--json", "--query", "SameSite cookie"]).ok().json();
    assert_eq!(r["query"], json!(["SameSite", "cookie"]));
    // Closed and folded into the project summary: no session is said twice.
    env.run(&["housekeeping"]).ok();
    let all: Value = env.run(&["context", "--project", "shop", "--json"]).ok().json();
    let summary = all["project_summary"]["content"].as_str().unwrap().to_string();
    let md = env.run(&["context", "--project", "shop"]).ok().stdout;
    for (user, _) in topics {
        let said = md.matches(user).count();
        assert!(said <= 1, "{user:?} said {said} times: {md}");
    }
    for e in all["segments"].as_array().unwrap() {
        assert!(!summary.contains(e["content"].as_str().unwrap()), "repeats the project summary: {all:#}");
    }
}

#[test]
fn configured_folders_name_the_project() {
    let env = Env::new().with_config("[import]\nprojects = { \"/home/dev/src\" = \"all-src\" }");
    env.run(&["import", "claude-code", s(&fixture("claude-code.jsonl"))]).ok();
    assert_eq!(env.show(CLAUDE_SESSION)["project"], "all-src");
    let r = env.run(&["context", "--cwd", "/home/dev/src/shopfront/web", "--json"]).ok().json();
    assert_eq!(r["project"], "all-src");
}

#[test]
fn imported_turns_go_through_captures_door_redacted_and_excluded() {
    let env = Env::new();
    let dir = env.path("transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    let secret = "sk-proj-ABCDEF1234567890abcdef1234567890";
    let mut text = lines("claude-code.jsonl");
    text =
        text.into_iter().map(|l| l.replace("Find out why.", &format!("Find out why. My key is {secret}."))).collect();
    let path = dir.join("t.jsonl");
    write_lines(&path, &text);
    env.run(&["import", "claude-code", s(&path)]).ok();
    let user = env.show(CLAUDE_SESSION)["turns"][0]["user"].as_str().unwrap().to_string();
    assert!(!user.contains(secret), "{user}");
    assert!(user.contains("[REDACTED:openai-key"), "{user}");

    // The same transcript under an excluded project stores nothing.
    let excluded = Env::new().with_config("[capture]\nexclude_projects = [\"shop*\"]");
    let r = excluded.run(&["import", "claude-code", s(&path), "--json"]).ok();
    assert_eq!(r.json()["stored"], 0, "{}", r.stdout);
    assert_eq!(r.json()["excluded"], 2, "{}", r.stdout);
}

// ---- Codex's own hooks (issue 34, item 4) ----------------------------------

/// The final reply of the rollout fixture's first turn.
const CODEX_REPLY_1: &str = "The PDF uses banker's rounding (round_dp) and the API rounds half away from zero, so totals ending in .005 differ by a cent.";

/// One of Codex's own hooks, run as Codex runs it: the command with one JSON
/// object on stdin (https://developers.openai.com/codex/hooks, "Common input
/// fields"), serialised as codex-rs/hooks/src/schema.rs does it:
/// `SessionStartCommandInput` {session_id, transcript_path (a string or
/// null), cwd, hook_event_name, model, permission_mode, source} and
/// `StopCommandInput` {session_id, turn_id, transcript_path, cwd,
/// hook_event_name, model, permission_mode, stop_hook_active,
/// last_assistant_message (a string or null)}.
fn codex_hook(env: &Env, event: &str, transcript: Option<&Path>, last: Option<&str>) -> crate::support::Run {
    let input = if event == "SessionStart" {
        json!({
            "session_id": CODEX_SESSION,
            "transcript_path": transcript,
            "cwd": "/home/dev/src/billing",
            "hook_event_name": "SessionStart",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "source": "startup",
        })
    } else {
        json!({
            "session_id": CODEX_SESSION,
            "turn_id": "019aturn-0001",
            "transcript_path": transcript,
            "cwd": "/home/dev/src/billing",
            "hook_event_name": event,
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "stop_hook_active": false,
            "last_assistant_message": last,
        })
    };
    env.run_stdin(&["hook", "codex"], input.to_string().as_bytes())
}

/// (user, assistant) of every stored turn of the Codex session, in the
/// order they were first stored (a turn notify stored has the time it
/// was stored at, not the rollout's).
fn codex_turns(env: &Env) -> Vec<(String, String)> {
    let mut turns = env.show(CODEX_SESSION)["turns"].as_array().unwrap().clone();
    turns.sort_by_key(|t| t["id"].as_i64());
    turns
        .iter()
        .map(|t| (t["user"].as_str().unwrap().to_string(), t["assistant"].as_str().unwrap().to_string()))
        .collect()
}

/// What `import codex` alone stores of the whole rollout fixture.
fn rollout_alone() -> Vec<(String, String)> {
    let env = Env::new();
    env.run(&["import", "codex", s(&fixture("codex-rollout.jsonl"))]).ok();
    codex_turns(&env)
}

#[test]
fn codex_stop_hook_imports_the_rollout_turn_by_turn_with_its_tool_calls() {
    let env = Env::new();
    let all = lines("codex-rollout.jsonl");
    let f = env.path("rollout-2026-11-21T14-00-00-0199a1b2.jsonl");
    // The rollout as the first Stop finds it: turn 1's tool call written,
    // its final reply not yet (the hook's last_assistant_message has it).
    write_lines(&f, &all[..9]);
    let r = codex_hook(&env, "Stop", Some(&f), Some(CODEX_REPLY_1)).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""), "a Stop hook that lets the turn end prints nothing");
    let turns = codex_turns(&env);
    assert_eq!(turns.len(), 1);
    assert!(turns[0].1.starts_with("[tool shell: rg -n round src/invoice]\n[result: "), "{turns:?}");
    assert!(turns[0].1.ends_with(CODEX_REPLY_1), "{turns:?}");
    let key: String = env.sql().query_row("SELECT idem_key FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(key, "019aturn-0001", "the turn id, the key notify uses");
    // The rest of the rollout, then the next Stop: turn 1 once, turn 2 added.
    append_lines(&f, &all[9..]);
    codex_hook(&env, "Stop", Some(&f), Some("Done: src/invoice/pdf.rs now rounds half away from zero like the API."))
        .ok();
    assert_eq!(codex_turns(&env), rollout_alone());
    assert_eq!(codex_turns(&env)[0].1.matches(CODEX_REPLY_1).count(), 1);
    codex_hook(&env, "Stop", Some(&f), None).ok();
    assert_eq!(env.status()["turns"], 2);
    env.assert_check();
}

/// Item 4's second half: a turn `notify` stored first (its prompt and last
/// reply only) gets its tool-call lines when the rollout is read later,
/// by `import codex` or by the Stop hook, once and in place.
#[test]
fn a_turn_notify_stored_first_gets_its_tool_calls_from_the_rollout_once() {
    let expected = rollout_alone();
    // Codex's notify: `{"type": "agent-turn-complete", "thread-id",
    // "turn-id", "cwd", "input-messages", "last-assistant-message"}`
    // (codex-rs/hooks/src/legacy_notify.rs; docs/config.md "notify").
    let prompt = "Why does invoice rounding differ between the PDF and the API?";
    // The third: notify's text inputs worded otherwise than the rollout's
    // prompt (a second text input): the rollout's copy still completes it.
    for (via_hook, inputs) in
        [(false, vec![prompt]), (true, vec![prompt]), (false, vec![prompt, "(screenshot attached)"])]
    {
        let notify = json!({
            "type": "agent-turn-complete",
            "thread-id": CODEX_SESSION,
            "turn-id": "019aturn-0001",
            "cwd": "/home/dev/src/billing",
            "input-messages": inputs,
            "last-assistant-message": CODEX_REPLY_1,
        });
        let env = Env::new();
        env.run(&["hook", "codex", &notify.to_string()]).ok();
        assert_eq!(codex_turns(&env), [(inputs.join("\n"), CODEX_REPLY_1.to_string())]);
        let f = env.path("rollout.jsonl");
        write_lines(&f, &lines("codex-rollout.jsonl"));
        if via_hook {
            codex_hook(&env, "Stop", Some(&f), None).ok();
        } else {
            let r = env.run(&["import", "codex", s(&f), "--json"]).ok().json();
            assert_eq!(
                (r["stored"].as_u64(), r["updated"].as_u64(), r["duplicates"].as_u64()),
                (Some(1), Some(1), Some(0))
            );
        }
        let turns = codex_turns(&env);
        assert_eq!(turns, expected, "via the Stop hook: {via_hook}, notify's inputs {inputs:?}");
        assert_eq!(turns[0].1.matches("[tool shell: rg -n round").count(), 1, "{turns:?}");
        assert_eq!(turns[0].1.matches(CODEX_REPLY_1).count(), 1, "{turns:?}");
        // Read again: nothing changes.
        let r = env.run(&["import", "codex", s(&fixture("codex-rollout.jsonl")), "--json"]).ok().json();
        assert_eq!((r["stored"].as_u64(), r["updated"].as_u64()), (Some(0), Some(0)));
        assert_eq!(codex_turns(&env), expected);
        env.assert_check();
    }
}

#[test]
fn codex_session_start_hook_hands_codex_the_projects_memory() {
    let server = summary_server();
    let env = Env::new().with_server(&server);
    // No database yet: nothing to say, and none created.
    let r = codex_hook(&env, "SessionStart", None, None).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    assert!(!env.db().exists());
    env.run(&["import", "codex", s(&fixture("codex-rollout.jsonl"))]).ok();
    env.run(&["summarize", "--once"]).ok();
    let md = env.run(&["context", "--cwd", "/home/dev/src/billing"]).ok().stdout;
    assert!(md.starts_with("## Memory of earlier sessions (project billing, from ragger)"), "{md}");
    // codex-rs/hooks/src/schema.rs `SessionStartCommandOutputWire`:
    // `hookSpecificOutput` {hookEventName: "SessionStart", additionalContext}.
    let out = codex_hook(&env, "SessionStart", Some(&fixture("codex-rollout.jsonl")), None).ok().json();
    assert_eq!(out, json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": md}}));
}

/// Codex shows a hook that exits with any code but 0 and 2 as failed;
/// 2 from a Stop hook would make Codex continue the turn with stderr as the
/// prompt (codex-rs/hooks/src/events/stop.rs `parse_completed`).
#[test]
fn a_failing_codex_stop_hook_exits_1_with_one_line_and_no_transcript_is_not_a_failure() {
    let env = Env::new();
    env.capture("s0", "u", "a", &[]).ok();
    let r = codex_hook(&env, "Stop", Some(&env.path("gone.jsonl")), Some("x")).code(1);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("ragger: hook codex: ") && r.stderr.contains("gone.jsonl"), "{}", r.stderr);
    assert_eq!(env.status()["last_hook_failure"]["agent"], "codex");
    // An ephemeral session has no rollout (`transcript_path: null`).
    let env = Env::new();
    let r = codex_hook(&env, "Stop", None, Some("x")).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    assert!(!env.db().exists());
    // Events ragger does not register change nothing.
    let r = codex_hook(&env, "UserPromptSubmit", None, None).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
}
