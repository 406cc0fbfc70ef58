//! Hostile text on the way out and hostile ids and texts on the way in
//! (issue 15, items 3, 4, 5 and 9): human output shows control characters
//! instead of sending them to the terminal, `--json` stays exact, ids are
//! bounded, and text flags take any text.

use crate::support::fake_server::{Action, FakeServer};
use crate::support::{minutes_ago, Env};

const TITLE: &str = "\x1b]0;pwned\x07";
const CLEAR: &str = "\x1b[2J\x1b[H";
const LINK: &str = "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\";

/// No escape, bell, carriage return, backspace or C1 control reaches stdout.
#[track_caller]
fn assert_inert(out: &str) {
    let bad: Vec<char> = out.chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert!(bad.is_empty(), "control characters {bad:?} in {out:?}");
}

fn hostile_env() -> (FakeServer, Env) {
    let server = FakeServer::start(|r| {
        if r.system().contains("one-sentence") {
            // Grounded in the turn's words (two of its answer's, and the
            // link its answer leads with), so it is stored as written;
            // "to click" after the link's own "click" would be a stutter.
            Action::text(format!("The user said hello there {CLEAR} and got a reply {LINK}\r\x08."))
        } else {
            Action::text(format!("Session {LINK} summary."))
        }
    });
    let env = Env::new().with_server(&server);
    (server, env)
}

#[test]
fn show_search_and_sessions_render_control_characters_visibly_and_json_stays_exact() {
    let (_server, env) = hostile_env();
    let user = format!("hello {TITLE} there {CLEAR}");
    env.capture("s", &user, &format!("reply {LINK}"), &["--project", "p"]).ok();
    env.run(&["summarize", "--once"]).ok();

    let show = env.run(&["show", "s"]).ok().stdout;
    assert_inert(&show);
    assert!(show.contains("hello \\x1b]0;pwned\\x07 there"), "{show}");
    assert!(show.contains("there \\x1b[2J\\x1b[H and got a reply"), "{show}");
    assert!(show.contains("\\x1b]8;;http://evil.example"), "{show}");
    let json = env.show("s");
    assert_eq!(json["turns"][0]["user"], user.as_str(), "--json is exact");

    let search = env.run(&["search", "hello"]).ok().stdout;
    assert!(search.contains("hello there \\x1b[2J\\x1b[H and got a reply"), "{search}");
    assert_inert(&search);
    let hits = env.run(&["search", "hello", "--json"]).ok().json();
    assert!(hits.to_string().contains("there \\u001b[2J"), "{hits}");

    // Ids stored before ids were checked at capture.
    env.sql().execute("UPDATE sessions SET external_id = 'a\nforged row\x1b[1A', project = 'p\x07'", []).unwrap();
    let sessions = env.run(&["sessions"]).ok().stdout;
    assert_inert(&sessions);
    assert_eq!(sessions.lines().count(), 2, "a header and one row: {sessions}");
    assert!(sessions.contains("a\\x0aforged row\\x1b[1A"), "{sessions}");
    assert_inert(&env.run(&["search", "hello"]).ok().stdout);
}

#[test]
fn a_huge_stored_id_neither_panics_nor_widens_the_table() {
    let (_server, env) = hostile_env();
    env.capture("s", "hello", "hi", &[]).ok();
    env.capture("t", "other", "hi", &[]).ok();
    env.run(&["summarize", "--once"]).ok();
    let huge = "x".repeat(65_536);
    env.sql().execute("UPDATE sessions SET external_id = ?1, project = ?1 WHERE external_id = 's'", [&huge]).unwrap();
    let sessions = env.run(&["sessions"]).ok().stdout;
    let row_t = sessions.lines().find(|l| l.starts_with("t ")).expect("row of t");
    assert!(row_t.len() < 200, "the other rows stay narrow: {row_t:?}");
    let search = env.run(&["search", "hello"]).ok().stdout;
    assert!(search.contains(&huge), "the id is shown whole");
}

#[test]
fn capture_refuses_control_characters_and_huge_ids() {
    let env = Env::new();
    for (session, project, why) in [
        ("a\nb", None, "session id contains the control character '\\n'"),
        ("s", Some("p\x1b[2J"), "project id contains the control character '\\u{1b}'"),
    ] {
        let mut args = vec!["capture", "--session", session, "--user", "u", "--assistant", "a"];
        if let Some(p) = project {
            args.extend(["--project", p]);
        }
        let r = env.run(&args).code(1);
        assert!(r.stderr.contains(why), "{}", r.stderr);
    }
    let huge = "x".repeat(65_536);
    let r = env.capture(&huge, "u", "a", &[]).code(1);
    assert!(r.stderr.contains("session id is 65536 bytes, longer than 1024"), "{}", r.stderr);
    let line =
        format!("{{\"session\":\"s\",\"project\":\"{}\",\"user\":\"u\",\"assistant\":\"a\"}}\n", "p".repeat(2000));
    let r = env.run_stdin(&["capture", "--stdin"], line.as_bytes()).code(1);
    assert!(r.stderr.contains("stdin line 1: project id is 2000 bytes"), "{}", r.stderr);
    assert_eq!(env.run(&["status", "--json"]).ok().json()["turns"], 0);
    // A long path-like id under the bound is fine.
    env.capture(&"/home/u/".repeat(100), "u", "a", &[]).ok();
}

#[test]
fn text_flags_take_values_that_begin_with_a_dash() {
    let env = Env::new();
    env.capture("s", "- item one\n- item two", "-1 is less than zero", &[]).ok();
    env.capture("s", "--help", "-", &[]).ok();
    let show = env.show("s");
    assert_eq!(show["turns"][0]["user"], "- item one\n- item two");
    assert_eq!(show["turns"][0]["assistant"], "-1 is less than zero");
    assert_eq!(show["turns"][1]["user"], "--help");
    assert_eq!(show["turns"][1]["assistant"], "-");
}

#[test]
fn texts_too_large_for_the_command_line_come_from_files_or_stdin() {
    let env = Env::new();
    let reply = "A long reply line.\n".repeat(20_000); // 380 KB: over the 128 KiB argument limit
    std::fs::write(env.path("reply.txt"), &reply).unwrap();
    let user = "- a question\n";
    let path = env.path("reply.txt");
    let r = env.run_stdin(
        &["capture", "--session", "s", "--user-file", "-", "--assistant-file", path.to_str().unwrap()],
        user.as_bytes(),
    );
    r.ok();
    let show = env.show("s");
    assert_eq!(show["turns"][0]["user"], user);
    assert_eq!(show["turns"][0]["assistant"], reply.as_str());

    let r = env.run(&["capture", "--session", "s", "--user-file", "-", "--assistant-file", "-"]).code(2);
    assert!(r.stderr.contains("only one of --user-file and --assistant-file"), "{}", r.stderr);
    let r = env.run(&["capture", "--session", "s", "--user", "u", "--user-file", "-"]).code(2);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    let r = env.run(&["capture", "--session", "s", "--user-file", "/nonexistent/x", "--assistant", "a"]).code(1);
    assert!(r.stderr.contains("--user-file /nonexistent/x"), "{}", r.stderr);

    let small = Env::new().with_config("[capture]\nmax_field_bytes = 1000");
    std::fs::write(small.path("big.txt"), "x".repeat(5000)).unwrap();
    let big = small.path("big.txt");
    let r = small.run(&["capture", "--session", "s", "--user", "u", "--assistant-file", big.to_str().unwrap()]).code(1);
    assert!(r.stderr.contains("larger than [capture] max_field_bytes (1000)"), "{}", r.stderr);
}

#[test]
fn a_stdin_line_longer_than_any_valid_turn_is_refused_without_buffering_it_whole() {
    let env = Env::new().with_config("[capture]\nmax_field_bytes = 1000");
    let mut input = format!("{{\"session\":\"s\",\"user\":\"{}\",\"assistant\":\"a\"}}\n", "x".repeat(200_000));
    input.push_str("{\"session\":\"s\",\"user\":\"fine\",\"assistant\":\"a\"}\n");
    let r = env.run_stdin(&["capture", "--stdin"], input.as_bytes()).code(1);
    assert!(r.stderr.contains("stdin line 1: longer than 69536 bytes"), "{}", r.stderr);
    assert_eq!(env.show("s")["turns"][0]["user"], "fine", "the next line is read");
}

#[test]
fn a_time_far_in_the_future_is_refused() {
    let env = Env::new();
    let r = env.capture("s", "u", "a", &["--at", "2999-01-01T00:00:00Z"]).code(1);
    assert!(r.stderr.contains("time 2999-01-01T00:00:00Z is more than 10 minutes in the future"), "{}", r.stderr);
    env.capture("s", "u", "a", &["--at", &minutes_ago(-5)]).ok();
}

#[test]
fn modes_that_expose_the_memory_are_warned_about_and_an_empty_file_is_made_private() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let chmod = |p: &std::path::Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    let env = Env::new();
    let db = env.db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    chmod(db.parent().unwrap(), 0o700);
    std::fs::write(&db, b"").unwrap();
    chmod(&db, 0o644);
    let r = env.capture("s", "u", "a", &[]).ok();
    assert_eq!(mode(&db), 0o600, "an adopted empty file gets the database's mode");
    assert_eq!(r.stderr, "", "nothing to warn about");

    chmod(&db, 0o644);
    let r = env.capture("s", "u2", "a", &[]).ok();
    assert_eq!(r.stderr.matches("readable by other users").count(), 1, "once: {}", r.stderr);
    assert!(r.stderr.contains(db.to_str().unwrap()), "{}", r.stderr);
    chmod(&db, 0o600);
    chmod(db.parent().unwrap(), 0o777);
    let r = env.run(&["status"]).ok();
    assert!(r.stderr.contains("database folder") && r.stderr.contains("writable by other users"), "{}", r.stderr);
    assert_eq!(env.run(&["-q", "status"]).ok().stderr, "", "-q silences it");
    chmod(db.parent().unwrap(), 0o700);

    let env = env.with_config("[memory_model]\napi_key_env = \"MY_KEY\"");
    env.run(&["status"]).ok(); // writes the config file
    chmod(&env.config_path(), 0o666);
    let mut c = env.command(&["status"]);
    chmod(&env.config_path(), 0o666); // `command` rewrites the file
    let r: crate::support::Run = c.output().unwrap().into();
    assert!(r.stderr.contains("sets api_key_env and is writable by other users"), "{}", r.stderr);
}

/// stdout of `ragger args` run as on a terminal: under `script`'s pseudo
/// terminal, with the test's environment (plus `extra`).
fn on_a_terminal(env: &Env, args: &[&str], extra: &[(&str, &str)]) -> String {
    let plain = env.command(args);
    let line = std::iter::once(plain.get_program())
        .chain(plain.get_args())
        .map(|a| format!("'{}'", a.to_str().expect("utf-8 argument")))
        .collect::<Vec<_>>()
        .join(" ");
    let mut c = std::process::Command::new("script");
    c.args(["-qec", &line, "/dev/null"]).env_clear().stdin(std::process::Stdio::null());
    for (k, v) in plain.get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    c.envs(extra.iter().copied());
    let out = c.output().expect("run ragger under script (util-linux)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn color_always_colours_headings_and_never_or_no_color_does_not() {
    const BOLD_CYAN: &str = "\x1b[1m\x1b[36m";
    let env = Env::new();
    env.capture("s", "hello", "hi", &[]).ok();

    let always = env.run(&["show", "s", "--color", "always"]).ok().stdout;
    assert!(always.contains(&format!("{BOLD_CYAN}session s, open")), "{always:?}");
    assert!(always.contains(&format!("{BOLD_CYAN}turn 1 ")), "{always:?}");
    let never = env.run(&["show", "s", "--color", "never"]).ok().stdout;
    assert_inert(&never);
    assert!(never.starts_with("session s, open\n"), "{never:?}");
    assert_inert(&env.run(&["show", "s"]).ok().stdout); // auto, not a terminal

    // On a terminal, auto colours unless NO_COLOR is set (and not empty).
    let tty = on_a_terminal(&env, &["show", "s"], &[]);
    assert!(tty.contains(&format!("{BOLD_CYAN}session s, open")), "{tty:?}");
    for (args, extra) in [(&["show", "s"][..], &[("NO_COLOR", "1")][..]), (&["show", "s", "--color", "never"], &[])] {
        let plain = on_a_terminal(&env, args, extra);
        assert!(plain.contains("session s, open"), "{args:?} {extra:?}: {plain:?}");
        assert!(!plain.contains('\x1b'), "{args:?} {extra:?}: {plain:?}");
    }
}

/// Issue 33 item 14: the human outputs that still sent escapes through.
#[test]
fn context_forget_dry_run_and_markdown_export_show_control_characters() {
    let (_server, env) = hostile_env();
    let at = minutes_ago(60);
    env.capture("s", &format!("hello {TITLE} there"), &format!("reply {LINK}"), &["--project", "p", "--at", &at]).ok();
    env.run(&["housekeeping"]).ok();
    let context = env.run(&["context", "--project", "p"]).ok().stdout;
    assert!(context.contains("\\x1b]8;;http://evil.example"), "the summary is in the block: {context}");
    assert_inert(&context);
    let dry = env.run(&["forget", "--match", "hello", "--dry-run"]).ok().stdout;
    assert!(dry.contains("hello \\x1b]0;pwned\\x07 there"), "{dry}");
    assert_inert(&dry.replace('\t', " ")); // the format's own column separators
    let md = env.run(&["export", "--format", "markdown", "--turns"]).ok().stdout;
    assert!(md.contains("\\x1b]8;;http://evil.example"), "{md}");
    assert_inert(&md);
    let jsonl = env.run(&["export", "--format", "jsonl"]).ok().stdout;
    assert!(jsonl.contains("\\u001b]0;pwned"), "JSON Lines stays exact: {jsonl}");
}

#[test]
fn error_messages_show_control_characters_from_paths_configs_and_servers() {
    let env = Env::new();
    let r = env.run(&["--db", &format!("/nonexistent/{TITLE}/ragger.db"), "status"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("\\x1b]0;pwned\\x07"), "{}", r.stderr);
    assert_inert(&r.stderr);
    // A TOML error quotes the bad line.
    let bad = Env::new().with_config(&format!("[memory_model]\nmodel = {CLEAR}"));
    let r = bad.run(&["status"]);
    assert_ne!(r.code, 0);
    assert_inert(&r.stderr);
    assert!(r.stderr.contains("\\x1b[2J"), "{}", r.stderr);
    // A server's error body.
    let server = FakeServer::start(|_| Action::raw(401, format!("{{\"error\": \"bad key {TITLE}\"}}")));
    let env = Env::new().with_server(&server);
    env.capture("s", "hello there", "hi", &[]).ok();
    let r = env.run(&["summarize", "--once"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("bad key"), "{}", r.stderr);
    assert_inert(&r.stderr);
    let r = env.run(&["doctor"]);
    assert!(r.stdout.contains("bad key"), "{}", r.stdout);
    assert_inert(&r.stdout);
    // A server's model name.
    let server = FakeServer::fixed("OK").with_models(&[&format!("model{TITLE}")]);
    let env = Env::new().with_config(&format!(
        "[memory_model]\nbackend = \"openai\"\nurl = \"{}\"\nmodel = \"\"\ntimeout_seconds = 5\nretries = 0\n",
        server.openai_url()
    ));
    let r = env.run(&["doctor"]);
    assert!(r.stdout.contains("model\\x1b]0;pwned"), "{}", r.stdout);
    assert_inert(&r.stdout);
}
