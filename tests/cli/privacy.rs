//! Privacy: secrets redacted at capture, excluded projects and folders.

use crate::support::Env;

const KEY: &str = "sk-proj-ABCDEF1234567890abcdef1234567890";
const PASSWORD: &str = "hunter2";

/// Every byte of the database and its WAL, to look for text that must not be there.
fn db_bytes(env: &Env) -> Vec<u8> {
    let mut all = Vec::new();
    for suffix in ["", "-wal"] {
        let mut p = env.db().into_os_string();
        p.push(suffix);
        if let Ok(b) = std::fs::read(&p) {
            all.extend(b);
        }
    }
    all
}

pub fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn secrets_are_replaced_by_markers_before_they_are_stored() {
    let env = Env::new();
    let user = format!("my key is {KEY} and the db is postgres://admin:{PASSWORD}@db:5432/app");
    let r = env.capture("s1", &user, "Rotate the key.", &["--json", "--id", "k1"]).ok();
    assert_eq!(r.json()["redactions"], 2);
    let line = serde_json::json!({"session": "s2", "user": "token ghp_0123456789abcdefghijABCDEFGHIJ012345", "assistant": "ok"});
    env.run_stdin(&["capture", "--stdin"], format!("{line}\n").as_bytes()).ok();
    let show = env.show("s1");
    assert_eq!(
        show["turns"][0]["user"],
        "my key is [REDACTED:openai-key sk-proj-AB…] and the db is postgres://admin:[REDACTED:url-password]@db:5432/app"
    );
    assert_eq!(env.show("s2")["turns"][0]["user"], "token [REDACTED:github-token ghp_01…]");
    assert_eq!(env.status()["redactions"], 3);
    let bytes = db_bytes(&env);
    for secret in [KEY, "admin:hunter2", "ghp_0123456789abcdefghij"] {
        assert!(!contains(&bytes, secret), "{secret} found in the database files");
    }
    // The same turn again is still a duplicate: the key and the stored text agree.
    let r = env.capture("s1", &user, "Rotate the key.", &["--json", "--id", "k1"]).ok();
    assert_eq!(r.json()["duplicates"], 1);
}

#[test]
fn redact_false_in_config_stores_raw_text() {
    let env = Env::new().with_config("[privacy]\nredact = false");
    env.capture("s1", KEY, "x", &[]).ok();
    assert_eq!(env.show("s1")["turns"][0]["user"], KEY);
}

#[test]
fn a_bad_extra_pattern_is_a_config_error_naming_the_key() {
    let env = Env::new().with_config("[privacy]\nextra_patterns = [\"(\"]");
    let r = env.capture("s1", "a", "b", &[]).code(78);
    assert!(r.stderr.contains("[privacy] extra_patterns[0]"), "{}", r.stderr);
}

#[test]
fn excluded_projects_are_skipped_silently_and_counted_with_v() {
    let env = Env::new().with_config("[capture]\nexclude_projects = [\"client-*\"]");
    let r = env.capture("s1", "secret plans", "x", &["--project", "client-acme"]).ok();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    let r = env.capture("s1", "secret plans", "x", &["--project", "client-acme", "-v"]).ok();
    assert!(r.stderr.contains("excluded 1"), "{}", r.stderr);
    env.capture("s2", "open plans", "x", &["--project", "mine"]).ok();
    assert_eq!(env.status()["turns"], 1);
}

#[test]
fn a_ragger_ignore_file_in_a_parent_folder_skips_capture() {
    let env = Env::new();
    let work = env.path("work/sub");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(env.path("work/.ragger-ignore"), "").unwrap();
    let out = env
        .command(&["capture", "--session", "s1", "--user", "u", "--assistant", "a", "-v"])
        .current_dir(&work)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("excluded 1"));
    assert!(!env.db().exists(), "an ignored folder must not even create the database");
    env.capture("s1", "u", "a", &[]).ok();
    assert_eq!(env.status()["turns"], 1);
}

/// Two sessions of project `app`, summarized and closed (so their L3s fold
/// into the project's L4); the second turn of s1 mentions `zebracorn`.
fn summarized_project() -> (crate::support::FakeServer, Env) {
    let server = crate::support::FakeServer::start(crate::support::topic_reply);
    let env = Env::new().with_server(&server);
    let at = crate::support::minutes_ago(60);
    for (s, topics) in [("s1", ["db", "zebracorn", "db"]), ("s2", ["ui", "ui", "ui"])] {
        for (i, t) in topics.iter().enumerate() {
            let user = format!("Question {i} about [topic:{t}] in {s}");
            env.capture(s, &user, &format!("Answer {i}."), &["--project", "app", "--at", &at]).ok();
        }
    }
    env.run(&["housekeeping"]).ok();
    assert!(contains(&db_bytes(&env), "zebracorn"), "the setup must have stored the word");
    let l4: i64 = env.sql().query_row("SELECT count(*) FROM summaries WHERE level = 4", [], |r| r.get(0)).unwrap();
    assert!(l4 > 0, "the setup must have built a project summary");
    env.assert_check();
    (server, env)
}

#[test]
fn forget_removes_every_byte_of_the_turn_and_its_summaries_then_refolds_the_rest() {
    let (_server, env) = summarized_project();
    let dry = env.run(&["forget", "--match", "ZEBRACORN", "--dry-run"]).ok();
    assert!(dry.stdout.contains("would forget 1 turns"), "{}", dry.stdout);
    assert!(contains(&db_bytes(&env), "zebracorn"), "--dry-run must change nothing");
    let r = env.run(&["forget", "--match", "zebracorn", "--json"]).ok().json();
    assert_eq!(r["turns"], 1);
    assert!(r["summaries_removed"].as_u64().unwrap() >= 2, "its L3 and the L4 built from it: {r}");
    let bytes = db_bytes(&env);
    assert!(!contains(&bytes, "zebracorn") && !contains(&bytes, "Zebracorn"), "forgotten text left in the files");
    env.assert_check();
    let st = env.status();
    assert_eq!(st["turns"], 5);
    // The next pass folds what remains again, and the invariants still hold.
    env.run(&["housekeeping"]).ok();
    let st = env.status();
    assert_eq!(
        (st["pending_l2"].as_i64(), st["pending_l3"].as_i64(), st["pending_l4"].as_i64()),
        (Some(0), Some(0), Some(0))
    );
    let l4: i64 = env.sql().query_row("SELECT count(*) FROM summaries WHERE level = 4", [], |r| r.get(0)).unwrap();
    assert!(l4 > 0, "the project summary is built again");
    env.assert_check();
    assert!(!contains(&db_bytes(&env), "zebracorn"));
}

#[test]
fn forget_by_session_removes_the_session_and_filters_combine() {
    let (_server, env) = summarized_project();
    // Filters combine: s2 has no zebracorn, so nothing goes.
    let r = env.run(&["forget", "--session", "s2", "--match", "zebracorn", "--json"]).ok().json();
    assert_eq!(r["turns"], 0);
    let r = env.run(&["forget", "--session", "s2", "--json"]).ok().json();
    assert_eq!((r["turns"].as_i64(), r["sessions_removed"].as_i64()), (Some(3), Some(1)));
    env.run(&["show", "s2"]).code(1);
    env.assert_check();
    let r = env.run(&["forget", "--before", "2000-01-01", "--json"]).ok().json();
    assert_eq!(r["turns"], 0);
    let r = env.run(&["forget", "--before", "yesterday"]).code(2);
    assert!(r.stderr.contains("--before"), "{}", r.stderr);
    let r = env.run(&["forget"]).code(2);
    assert!(r.stderr.contains("--session"), "{}", r.stderr);
}

#[test]
fn redact_applies_new_rules_to_a_stored_database() {
    let (_server, env) = summarized_project();
    // A rule added later: zebracorn is a secret now.
    let env = env.with_config("[privacy]\nextra_patterns = [\"zebracorn\"]");
    let r = env.run(&["redact", "--dry-run", "--json"]).ok().json();
    assert!(r["secrets"].as_u64().unwrap() >= 2, "{r}");
    assert!(contains(&db_bytes(&env), "zebracorn"), "--dry-run must change nothing");
    let r = env.run(&["redact", "--json"]).ok().json();
    assert!(r["turns_changed"].as_u64().unwrap() >= 1 && r["summaries_changed"].as_u64().unwrap() >= 1, "{r}");
    assert!(!contains(&db_bytes(&env), "zebracorn"), "old text left in the files");
    let hits = env.run(&["search", "REDACTED", "--json"]);
    assert_eq!(hits.code, 0, "{}", hits.stderr);
    assert!(env.status()["redactions"].as_u64().unwrap() >= 2);
    env.assert_check();
    let again = env.run(&["redact", "--json"]).ok().json();
    assert_eq!(again["secrets"], 0, "redacting twice changes nothing");
}

#[test]
fn jsonl_export_reads_back_into_an_empty_database_with_the_same_turns() {
    let env = Env::new();
    env.capture(
        "s1",
        "first question ünïcödé",
        "answer\nwith lines",
        &["--project", "app", "--at", "2026-01-02T03:04:05.678Z", "--id", "k1"],
    )
    .ok();
    env.capture("s1", "second", "reply", &["--project", "app", "--at", "2026-01-02T03:05:00Z"]).ok();
    env.capture("s2", "no project here", "ok", &["--at", "2026-01-03T00:00:00Z"]).ok();
    let first = env.run(&["export", "--format", "jsonl"]).ok().stdout;
    assert_eq!(first.lines().count(), 3, "{first}");
    let copy = Env::new();
    let r = copy.run_stdin(&["capture", "--stdin", "--json"], first.as_bytes()).ok();
    assert_eq!(r.json()["stored"], 3);
    let second = copy.run(&["export", "--format", "jsonl"]).ok().stdout;
    assert_eq!(first, second, "the round trip changed the turns");
    assert_eq!(copy.show("s1")["project"], "app");
    assert_eq!(copy.show("s1")["turns"][0]["at"], "2026-01-02T03:04:05Z");
    // Reading the export again is idempotent where the turns had keys.
    let r = copy.run_stdin(&["capture", "--stdin", "--json"], first.lines().next().unwrap().as_bytes()).ok();
    assert_eq!(r.json()["duplicates"], 1);
    // Filters.
    let only =
        env.run(&["export", "--format", "jsonl", "--project", "app", "--since", "2026-01-02T03:05:00Z"]).ok().stdout;
    assert_eq!(only.lines().count(), 1, "{only}");
    assert!(only.contains("\"second\""));
}

#[test]
fn markdown_export_has_project_summary_segments_and_turns_in_a_private_file() {
    let (_server, env) = summarized_project();
    let out = env.path("export.md");
    env.run(&["export", "--turns", "-o", out.to_str().unwrap()]).ok();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o600);
    let md = std::fs::read_to_string(&out).unwrap();
    for want in [
        "# Project: app",
        "## Project summary",
        "## Session s1",
        "### Segment 1",
        "**User:** Question 1 about [topic:zebracorn] in s1",
    ] {
        assert!(md.contains(want), "missing {want:?} in\n{md}");
    }
    let without = env.run(&["export", "--session", "s2"]).ok().stdout;
    assert!(
        without.contains("## Session s2") && !without.contains("## Session s1") && !without.contains("**User:**"),
        "{without}"
    );
}

fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).permissions().mode() & 0o777
}

#[test]
fn every_file_ragger_writes_is_private_and_a_readable_database_is_warned_about() {
    let (_server, env) = summarized_project();
    let db = env.db();
    let side = |s: &str| {
        let mut p = db.clone().into_os_string();
        p.push(s);
        std::path::PathBuf::from(p)
    };
    assert_eq!(mode(&db), 0o600);
    assert_eq!(mode(&side("-wal")), 0o600);
    assert_eq!(mode(&side("-shm")), 0o600);
    assert_eq!(mode(db.parent().unwrap()), 0o700);
    // The run lock lives beside the database.
    assert_eq!(mode(&side(".lock")), 0o600);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = env.capture("s9", "a", "b", &[]).ok();
    assert!(r.stderr.contains("readable by other users"), "{}", r.stderr);
    let r = env.capture("s9", "a", "b", &["-q"]).ok();
    assert_eq!(r.stderr, "");
}

#[test]
fn a_config_naming_an_api_key_env_readable_by_others_is_warned_about() {
    let env = Env::new().with_config("[memory_model]\napi_key_env = \"MY_KEY\"");
    env.capture("s1", "a", "b", &[]).ok();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(env.config_path(), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(env.capture("s1", "a", "b", &[]).ok().stderr, "");
    std::fs::set_permissions(env.config_path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = env.capture("s1", "a", "b", &[]).ok();
    assert!(r.stderr.contains("names an api_key_env"), "{}", r.stderr);
}

#[test]
fn no_secret_of_the_corpus_reaches_the_database_or_the_model() {
    let server = crate::support::FakeServer::start(crate::support::topic_reply);
    let env = Env::new().with_server(&server);
    let corpus = crate::support::fixtures::data("redaction_corpus.jsonl");
    let mut input = String::new();
    let mut secrets = Vec::new();
    for (i, line) in corpus.lines().enumerate() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        if case["kind"].is_null() {
            continue;
        }
        secrets.extend(case["secrets"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()));
        let turn = serde_json::json!({"session": format!("s{}", i % 5), "project": "p", "user": case["text"], "assistant": "Noted."});
        input.push_str(&format!("{turn}\n"));
    }
    let r = env.run_stdin(&["capture", "--stdin", "--json"], input.as_bytes()).ok().json();
    assert!(r["redactions"].as_u64().unwrap() >= secrets.len() as u64 / 2, "{r}");
    env.run(&["summarize", "--once"]).ok();
    assert!(!server.chat_requests().is_empty(), "the model must have been asked");
    let sent: String =
        server.chat_requests().iter().flat_map(|q| q.messages()).map(|(_, content)| content + "\n").collect();
    assert!(sent.contains("[REDACTED:"), "the markers, not the secrets, reach the model");
    let bytes = db_bytes(&env);
    for s in &secrets {
        assert!(!sent.contains(s.as_str()), "sent to the model: {s}");
        assert!(!contains(&bytes, s), "stored: {s}");
    }
}

#[test]
fn forget_match_folds_case_beyond_ascii() {
    let env = Env::new();
    env.capture("s1", "Die Ölwanne leckt seit gestern", "Dichtung tauschen.", &[]).ok();
    env.capture("s2", "ÉCOLE and STRASSE", "ok", &[]).ok();
    env.capture("s3", "nothing here", "ok", &[]).ok();
    let dry = env.run(&["forget", "--match", "ÖLWANNE", "--dry-run"]).ok();
    assert!(dry.stdout.contains("would forget 1 turns"), "{}", dry.stdout);
    let dry = env.run(&["forget", "--match", "école", "--dry-run"]).ok();
    assert!(dry.stdout.contains("would forget 1 turns"), "{}", dry.stdout);
    let r = env.run(&["forget", "--match", "ölwanne", "--json"]).ok().json();
    assert_eq!(r["turns"], 1, "{r}");
    assert!(!contains(&db_bytes(&env), "Ölwanne"), "forgotten text left in the files");
    assert_eq!(env.status()["turns"], 2);
}

/// A connection that, when dropped, leaves the WAL as it is (no checkpoint
/// on close): as a reader killed with SIGKILL would.
fn killable_reader(env: &Env) -> rusqlite::Connection {
    let c = env.sql();
    c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).unwrap();
    c
}

/// Run `args` while a reader holds a snapshot, kill it once `committed`
/// says its change is in, then drop the reader: the command's scrub never
/// finished.
fn interrupt_after_commit(env: &Env, args: &[&str], committed: impl Fn(&rusqlite::Connection) -> bool) {
    let reader = killable_reader(env);
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader.query_row("SELECT count(*) FROM turns", [], |r| r.get(0)).unwrap();
    let mut c = env.command(args);
    c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    let started = std::time::Instant::now();
    loop {
        let probe = killable_reader(env);
        if committed(&probe) {
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "the change was never committed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = child.kill();
    child.wait().unwrap();
    drop(reader);
}

#[test]
fn a_forget_cut_short_before_its_scrub_finishes_when_run_again() {
    let env = Env::new();
    env.capture("s1", "the zebracorn question", "an answer", &[]).ok();
    env.capture("s2", "another question", "another answer", &[]).ok();
    assert!(contains(&db_bytes(&env), "zebracorn"), "the setup must have stored the word");
    interrupt_after_commit(&env, &["forget", "--match", "zebracorn"], |c| {
        c.query_row("SELECT count(*) FROM turns WHERE user_text LIKE '%zebracorn%'", [], |r| r.get::<_, i64>(0))
            .unwrap()
            == 0
    });
    assert!(contains(&db_bytes(&env), "zebracorn"), "the interrupted forget left the text behind (setup)");
    let r = env.run(&["forget", "--match", "zebracorn", "--json"]).ok().json();
    assert_eq!(r["turns"], 0, "{r}");
    assert!(!contains(&db_bytes(&env), "zebracorn"), "running forget again must finish the scrub");
    assert_eq!(env.status()["turns"], 1);
    env.assert_check();
}

#[test]
fn a_redact_cut_short_before_its_scrub_finishes_when_run_again() {
    let env = Env::new();
    env.capture("s1", "the zebracorn question", "an answer", &[]).ok();
    let env = env.with_config("[privacy]\nextra_patterns = [\"zebracorn\"]");
    interrupt_after_commit(&env, &["redact"], |c| {
        c.query_row("SELECT count(*) FROM turns WHERE user_text LIKE '%REDACTED%'", [], |r| r.get::<_, i64>(0)).unwrap()
            == 1
    });
    assert!(contains(&db_bytes(&env), "zebracorn"), "the interrupted redact left the text behind (setup)");
    let r = env.run(&["redact", "--json"]).ok().json();
    assert_eq!(r["secrets"], 0, "{r}");
    assert!(!contains(&db_bytes(&env), "zebracorn"), "running redact again must finish the scrub");
}

#[test]
fn the_wal_and_its_companions_follow_the_database_mode_and_each_is_named() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.capture("s1", "a", "b", &[]).ok();
    // The run lock: a forget takes it.
    env.run(&["forget", "--match", "nothing like this"]).ok();
    let db = env.db();
    let side = |s: &str| {
        let mut p = db.clone().into_os_string();
        p.push(s);
        std::path::PathBuf::from(p)
    };
    let all = [db.clone(), side("-wal"), side("-shm"), side(".lock")];
    // As an older ragger or a loose umask left them.
    for f in &all {
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let r = env.capture("s1", "c", "d", &[]).ok();
    for f in &all {
        let named = r.stderr.lines().any(|l| l.contains(&format!("{} is readable by other users", f.display())));
        assert!(named, "{} not named:\n{}", f.display(), r.stderr);
    }
    // The user follows the advice for the database only.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).unwrap();
    let r = env.capture("s1", "new turn text", "f", &[]).ok();
    for f in &all {
        assert_eq!(mode(f), 0o600, "{} keeps a mode others can read", f.display());
    }
    assert_eq!(r.stderr, "", "nothing left to warn about");
}
