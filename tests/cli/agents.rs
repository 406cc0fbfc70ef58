//! The agents as their users live with them (issue 34): `init --agent`
//! edits the agents' own settings files, hook failures show, and `doctor`
//! checks the wiring. The fixtures under tests/fixtures/agents are shaped
//! like the real files; each test names the page or source its shape
//! comes from.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{fixture, Env, Run};

fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ragger")).canonicalize().unwrap()
}

/// As a user runs it: the user config file in the XDG folder.
fn user(env: &Env, args: &[&str]) -> Command {
    let mut c = env.command(args);
    c.env_remove("RAGGER_CONFIG");
    c
}

fn run(mut c: Command) -> Run {
    c.output().expect("run ragger").into()
}

fn user_config(env: &Env) -> PathBuf {
    env.path("config/ragger/config.toml")
}

fn home(env: &Env, rel: &str) -> PathBuf {
    env.path("home").join(rel)
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

/// Files beside `path` whose names start with its name and end in `.bak`.
fn backups(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut v: Vec<PathBuf> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(&format!("{name}.")) && n.ends_with(".bak")
        })
        .collect();
    v.sort();
    v
}

/// The keys of a JSON object, in the file's order.
fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

// ---- 3. init --agent edits the files -------------------------------------

/// Shapes: ~/.claude/settings.json as in https://code.claude.com/docs/en/settings
/// ("Example settings.json") with hooks as in
/// https://code.claude.com/docs/en/hooks ("Configuration": event → matcher
/// groups → `{"type": "command", "command"}`); ~/.claude.json's top-level
/// `mcpServers` as `claude mcp add --scope user` writes it
/// (https://code.claude.com/docs/en/mcp, "MCP installation scopes": user
/// scope), beside Claude Code's own state (projects, numStartups, …).
#[test]
fn init_claude_code_merges_hooks_and_the_user_scope_mcp_server_keeping_everything_else() {
    let env = Env::new();
    let settings = home(&env, ".claude/settings.json");
    let state = home(&env, ".claude.json");
    let settings_before = read(&fixture("agents/claude-settings.json"));
    let state_before = read(&fixture("agents/claude.json"));
    put(&settings, &settings_before);
    put(&state, &state_before);

    let r = run(user(&env, &["init", "--agent", "claude-code"])).ok();
    let command = format!("{} --config {} hook claude-code", exe().display(), user_config(&env).display());
    assert!(r.stdout.contains(&format!("changed {}", settings.display())), "{}", r.stdout);
    assert!(r.stdout.contains("SessionEnd hook added"), "{}", r.stdout);

    // settings.json: ragger's three hooks, after the user's own.
    let before: Value = serde_json::from_str(&settings_before).unwrap();
    let mut after = json(&settings);
    assert_eq!(keys(&after), keys(&before), "every key kept, in its order");
    for event in ["SessionStart", "Stop", "SessionEnd"] {
        let groups = after["hooks"][event].as_array_mut().unwrap();
        let ours = groups.pop().unwrap();
        assert_eq!(ours, serde_json::json!({"hooks": [{"type": "command", "command": command}]}), "{event}");
        if groups.is_empty() {
            after["hooks"].as_object_mut().unwrap().remove(event);
        }
    }
    assert_eq!(after, before, "nothing else changed");
    assert_eq!(keys(&after["hooks"]), keys(&before["hooks"]));

    // ~/.claude.json: the server at user scope, Claude Code's state kept.
    let before: Value = serde_json::from_str(&state_before).unwrap();
    let mut after = json(&state);
    let server = after["mcpServers"].as_object_mut().unwrap().shift_remove("ragger").unwrap();
    assert_eq!(
        server,
        serde_json::json!({"type": "stdio", "command": exe(), "args": ["--config", user_config(&env), "mcp"], "env": {}})
    );
    assert_eq!(after, before);
    assert_eq!(keys(&after), keys(&before));
    // Written as Claude Code writes it: two-space JSON.
    assert!(read(&state).contains("\n  \"numStartups\": 42,\n"), "{}", read(&state));

    // A backup of each file, with the old bytes.
    let (b1, b2) = (backups(&settings), backups(&state));
    assert_eq!((b1.len(), b2.len()), (1, 1), "{b1:?} {b2:?}");
    assert_eq!(read(&b1[0]), settings_before);
    assert_eq!(read(&b2[0]), state_before);
    assert!(r.stdout.contains(&b1[0].display().to_string()), "the backup is named: {}", r.stdout);

    // Idempotent: a second run changes nothing, writes no backup, says so.
    let (s, c) = (read(&settings), read(&state));
    let r = run(user(&env, &["init", "--agent", "claude-code"])).ok();
    assert!(r.stdout.contains("nothing to change"), "{}", r.stdout);
    assert_eq!((read(&settings), read(&state)), (s, c));
    assert_eq!((backups(&settings).len(), backups(&state).len()), (1, 1));
}

#[test]
fn init_claude_code_on_a_fresh_home_creates_both_files() {
    let env = Env::new();
    run(user(&env, &["init", "--agent", "claude-code"])).ok();
    let settings = json(&home(&env, ".claude/settings.json"));
    for event in ["SessionStart", "Stop", "SessionEnd"] {
        let c = settings["hooks"][event][0]["hooks"][0]["command"].as_str().unwrap();
        assert!(c.ends_with("hook claude-code"), "{c}");
    }
    assert_eq!(json(&home(&env, ".claude.json"))["mcpServers"]["ragger"]["command"], exe().display().to_string());
    assert!(backups(&home(&env, ".claude/settings.json")).is_empty(), "nothing to back up");
}

#[test]
fn init_agent_dry_run_prints_the_diff_and_changes_nothing() {
    let env = Env::new();
    let settings = home(&env, ".claude/settings.json");
    let mine = read(&fixture("agents/claude-settings.json"));
    put(&settings, &mine);
    let r = run(user(&env, &["init", "--agent", "claude-code", "--dry-run"])).ok();
    assert!(r.stdout.contains(&format!("--- {}", settings.display())), "{}", r.stdout);
    assert!(r.stdout.contains("+    \"SessionEnd\": ["), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("+++ {}", home(&env, ".claude.json").display())), "{}", r.stdout);
    assert!(r.stdout.contains("(dry run: nothing was changed)"), "{}", r.stdout);
    assert_eq!(read(&settings), mine);
    assert!(!home(&env, ".claude.json").exists());
    assert!(backups(&settings).is_empty());
    let j = run(user(&env, &["init", "--agent", "codex", "--dry-run", "--json"])).ok().json();
    let step = j["steps"].as_array().unwrap().iter().find(|s| s["step"] == "codex").unwrap().clone();
    assert!(step["diff"].as_str().unwrap().contains("+[mcp_servers.ragger]"), "{step}");
    assert!(!home(&env, ".codex").exists());
}

#[test]
fn init_refuses_a_settings_file_it_cannot_read_and_leaves_it_alone() {
    let env = Env::new();
    let settings = home(&env, ".claude/settings.json");
    put(&settings, "{\n  \"hooks\": [],\n}\n");
    let r = run(user(&env, &["init", "--agent", "claude-code"])).code(1);
    assert!(r.stderr.contains(&format!("{}: not valid JSON", settings.display())), "{}", r.stderr);
    assert_eq!(read(&settings), "{\n  \"hooks\": [],\n}\n");
}

/// Shape: ~/.codex/config.toml as in
/// https://developers.openai.com/codex/config-reference (`model`,
/// `approval_policy`, `sandbox_mode`, `notify` as an argument vector,
/// `[mcp_servers.NAME]` tables with `command`/`args` or `url`,
/// `[profiles.NAME]`). Codex runs `notify` with the notification JSON
/// appended as the last argument (codex-rs/core/src/user_notification.rs).
#[test]
fn init_codex_adds_a_server_table_keeps_the_users_notify_program_and_runs_it_after_ragger() {
    let env = Env::new();
    let config = home(&env, ".codex/config.toml");
    // The user's own notify program: a script that records its arguments.
    let theirs = env.path("their-notify.sh");
    put(&theirs, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$0.args\"\n");
    let mine = read(&fixture("agents/codex-config.toml"))
        .replace("\"python3\", \"/home/dev/.codex/notify.py\"", &format!("\"/bin/sh\", \"{}\"", theirs.display()));
    put(&config, &mine);

    let r = run(user(&env, &["init", "--agent", "codex"])).ok();
    assert!(r.stdout.contains("kept your notify program"), "{}", r.stdout);
    let after = read(&config);
    // Every line of the user's file is still there, in order; only the
    // notify line changed.
    let notify_line = mine.lines().find(|l| l.starts_with("notify = ")).unwrap();
    let mut rest = after.lines();
    for line in mine.lines().filter(|l| *l != notify_line) {
        assert!(rest.any(|l| l == line), "line {line:?} lost or moved:\n{after}");
    }
    let parsed: toml::Value = after.parse().unwrap();
    let before: toml::Value = mine.parse().unwrap();
    let cfg = user_config(&env).display().to_string();
    let exe = exe().display().to_string();
    let notify: Vec<&str> = parsed["notify"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(
        notify,
        [exe.as_str(), "--config", &cfg, "hook", "codex", "--then", "/bin/sh", theirs.to_str().unwrap()]
    );
    assert_eq!(parsed["mcp_servers"]["ragger"]["command"].as_str(), Some(exe.as_str()));
    assert!(after.contains(&format!("\n[mcp_servers.ragger]\ncommand = \"{exe}\"\n")), "a table: {after}");
    let mut without = parsed.clone();
    let t = without.as_table_mut().unwrap();
    t["mcp_servers"].as_table_mut().unwrap().remove("ragger");
    t.remove("notify");
    let mut before_without = before.clone();
    before_without.as_table_mut().unwrap().remove("notify");
    assert_eq!(without, before_without, "nothing else changed");
    assert_eq!(read(&backups(&config)[0]), mine);

    // The chain works as Codex runs it: ragger stores the turn, then the
    // user's program gets the same JSON.
    let payload = r#"{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","cwd":"/home/dev/webshop","input-messages":["hi"],"last-assistant-message":"hello"}"#;
    let mut argv: Vec<String> = notify.iter().map(|s| s.to_string()).collect();
    argv.push(payload.to_string());
    let mut c = user(&env, &[]);
    c.args(&argv[1..]);
    run(c).ok();
    assert_eq!(run(user(&env, &["status", "--json"])).ok().json()["turns"], 1);
    let args_file = PathBuf::from(format!("{}.args", theirs.display()));
    for _ in 0..100 {
        if args_file.exists() && read(&args_file).ends_with("}\n") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(read(&args_file), format!("{payload}\n"));

    // Idempotent.
    let r = run(user(&env, &["init", "--agent", "codex"])).ok();
    assert!(r.stdout.contains("nothing to change"), "{}", r.stdout);
    assert_eq!(read(&config), after);
    assert_eq!(backups(&config).len(), 1);
}

/// A fake `codex` on PATH that answers `codex --version` as Codex does
/// (`codex-cli 0.130.0`, clap's version line of codex-rs/cli): which
/// version ragger wires for is our own logic under test, not Codex.
fn with_codex(env: &mut Env, version: &str) {
    let bin = env.path("codex-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("codex");
    std::fs::write(&script, format!("#!/bin/sh\n[ \"$1\" = --version ] && echo 'codex-cli {version}'\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = env
        .extra_env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| std::env::var("PATH").unwrap_or_default());
    env.extra_env.retain(|(k, _)| k != "PATH");
    env.extra_env.push(("PATH".into(), format!("{}:{path}", bin.display())));
}

/// Shape: ~/.codex/hooks.json as https://developers.openai.com/codex/hooks
/// describes it ("Where Codex looks for hooks": `~/.codex/hooks.json`;
/// event → matcher groups → `{"type": "command", "command", "timeout",
/// "statusMessage"}`), the root holding only `hooks`
/// (codex-rs/config/src/hook_config.rs `HooksFile`, `deny_unknown_fields`).
/// Codex 0.130 and later runs hooks by default, once trusted (`/hooks`).
#[test]
fn init_codex_registers_session_start_and_stop_in_hooks_json_beside_the_users_own_and_keeps_notify() {
    let mut env = Env::new();
    with_codex(&mut env, "0.140.0");
    let hooks = home(&env, ".codex/hooks.json");
    let config = home(&env, ".codex/config.toml");
    let mine = read(&fixture("agents/codex-hooks.json"));
    put(&hooks, &mine);
    put(&config, &read(&fixture("agents/codex-config.toml")));

    // --dry-run: both diffs, nothing written.
    let r = run(user(&env, &["init", "--agent", "codex", "--dry-run"])).ok();
    assert!(r.stdout.contains(&format!("+++ {}", hooks.display())), "{}", r.stdout);
    assert!(r.stdout.contains("+    \"Stop\": ["), "{}", r.stdout);
    assert_eq!(read(&hooks), mine);

    let r = run(user(&env, &["init", "--agent", "codex"])).ok();
    assert!(
        r.stdout.contains(&format!("changed {}: SessionStart hook added; Stop hook added", hooks.display())),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("`/hooks` in Codex"), "the trust step is named: {}", r.stdout);
    let command = format!("{} --config {} hook codex", exe().display(), user_config(&env).display());
    let before: Value = serde_json::from_str(&mine).unwrap();
    let mut after = json(&hooks);
    assert_eq!(keys(&after), ["hooks"], "Codex refuses any other key at the root");
    for event in ["SessionStart", "Stop"] {
        let groups = after["hooks"][event].as_array_mut().unwrap();
        let ours = groups.pop().unwrap();
        assert_eq!(ours, serde_json::json!({"hooks": [{"type": "command", "command": command}]}), "{event}");
        if groups.is_empty() {
            after["hooks"].as_object_mut().unwrap().remove(event);
        }
    }
    assert_eq!(after, before, "the user's hooks are kept as they were");
    assert_eq!(read(&backups(&hooks)[0]), mine);
    // notify stays, once: the file is valid TOML with one notify key.
    let text = read(&config);
    assert_eq!(text.lines().filter(|l| l.starts_with("notify")).count(), 1, "{text}");
    let parsed: toml::Value = text.parse().unwrap();
    assert_eq!(parsed["notify"][3].as_str(), Some("hook"), "{text}");

    // Idempotent.
    let (h, c) = (read(&hooks), read(&config));
    let r = run(user(&env, &["init", "--agent", "codex"])).ok();
    assert!(r.stdout.contains("nothing to change"), "{}", r.stdout);
    assert_eq!((read(&hooks), read(&config)), (h, c));
    assert_eq!(backups(&hooks).len(), 1);
}

#[test]
fn init_codex_for_a_codex_without_hooks_keeps_notify_alone() {
    let mut env = Env::new();
    with_codex(&mut env, "0.98.0");
    let r = run(user(&env, &["init", "--agent", "codex"])).ok();
    assert!(
        r.stdout.contains("Codex 0.98.0 has no hooks (they came in 0.114.0): notify stores the turns"),
        "{}",
        r.stdout
    );
    assert!(!home(&env, ".codex/hooks.json").exists());
    let parsed: toml::Value = read(&home(&env, ".codex/config.toml")).parse().unwrap();
    assert_eq!(parsed["notify"][4].as_str(), Some("codex"));
    // Codex 0.114 to 0.129: hooks written, and the flag they need named.
    let mut env = Env::new();
    with_codex(&mut env, "0.120.0");
    let r = run(user(&env, &["init", "--agent", "codex"])).ok();
    assert!(r.stdout.contains("Codex 0.120.0 runs hooks only with `[features] codex_hooks = true`"), "{}", r.stdout);
    assert!(home(&env, ".codex/hooks.json").exists());
}

// ---- 2. failures show ------------------------------------------------------

/// Claude Code: exit 0 shows nothing; exit 2 blocks; any other code is a
/// non-blocking error whose stderr the user sees
/// (https://code.claude.com/docs/en/hooks, "Exit code output").
#[test]
fn a_failing_hook_exits_1_and_status_and_doctor_show_the_last_failure() {
    let env = Env::new();
    env.capture("s0", "u", "a", &[]).ok();
    assert_eq!(env.status()["last_hook_failure"], Value::Null);
    let r = env.run_stdin(&["hook", "claude-code"], br#"{"hook_event_name":"Stop","session_id":"s1"}"#).code(1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("the hook input has no transcript_path"), "{}", r.stderr);
    let f = env.status()["last_hook_failure"].clone();
    assert_eq!(f["agent"], "claude-code");
    assert!(f["message"].as_str().unwrap().contains("no transcript_path"), "{f}");
    assert_eq!(f["recovered_at"], Value::Null);
    let text = env.run(&["status"]).ok().stdout;
    let line = text.lines().find(|l| l.starts_with("last hook failure")).unwrap();
    assert!(line.contains("claude-code: the hook input has no transcript_path (no hook has worked since)"), "{line}");
    let d = env.run(&["doctor"]).code(1).stdout;
    let line = d.lines().find(|l| l.contains("last hook")).unwrap();
    assert!(line.starts_with("FAIL") && line.contains("no transcript_path"), "{line}");

    // Codex's notify: the same record (Codex discards the program's output).
    env.run(&["hook", "codex", "{\"type\":"]).code(1);
    assert_eq!(env.status()["last_hook_failure"]["agent"], "codex");

    // A hook that works marks it recovered; doctor no longer fails on it.
    let payload = r#"{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","input-messages":["hi"],"last-assistant-message":"hello"}"#;
    env.run(&["hook", "codex", payload]).ok();
    let f = env.status()["last_hook_failure"].clone();
    assert!(f["recovered_at"].is_string(), "{f}");
    let d = env.run(&["doctor", "--json"]).json();
    let check = d["checks"].as_array().unwrap().iter().find(|c| c["name"] == "last hook").unwrap().clone();
    assert_eq!(check["ok"], true, "{check}");
}

// ---- 8. doctor checks the wiring -------------------------------------------

/// A fake `crontab -l` printing `table` (our own logic is under test: what
/// doctor makes of the table, not cron).
fn with_crontab(env: &mut Env, table: &str) {
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("crontab.txt"), table).unwrap();
    let script = bin.join("crontab");
    std::fs::write(&script, "#!/bin/sh\n[ \"$1\" = -l ] && exec cat \"$(dirname \"$0\")/crontab.txt\"\nexit 2\n")
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.extra_env.push(("PATH".into(), format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())));
}

fn doctor_line(env: &Env, name: &str) -> String {
    let out = run(user(env, &["doctor"])).stdout;
    out.lines()
        .find(|l| l.get(5..).is_some_and(|rest| rest.starts_with(name)))
        .unwrap_or_else(|| panic!("{out}"))
        .to_string()
}

/// Shapes as in the init tests above: Claude Code's settings.json hooks
/// (https://code.claude.com/docs/en/hooks) and ~/.claude.json's user-scope
/// `mcpServers` (https://code.claude.com/docs/en/mcp); Codex's `notify` and
/// `[mcp_servers.NAME]` (https://developers.openai.com/codex/config-reference).
#[test]
fn doctor_names_each_missing_or_stale_piece_of_the_wiring_with_the_command_that_fixes_it() {
    let mut env = Env::new();
    run(user(&env, &["init"])).ok();
    // Nothing of either agent: not installed; no schedule: named with its fix.
    assert_eq!(doctor_line(&env, "claude code"), "ok   claude code   not installed (no settings folder)");
    let line = doctor_line(&env, "schedule");
    assert!(line.starts_with("FAIL") && line.contains("`ragger init --cron` (or `--systemd`) installs one"), "{line}");

    // Claude Code wired by an older install: the binary is gone, SessionEnd
    // missing, no MCP server.
    let old = "/opt/old/bin/ragger hook claude-code";
    let settings = format!(
        r#"{{"hooks": {{"SessionStart": [{{"hooks": [{{"type": "command", "command": "{old}"}}]}}], "Stop": [{{"hooks": [{{"type": "command", "command": "{old}"}}]}}]}}}}"#
    );
    put(&home(&env, ".claude/settings.json"), &settings);
    let line = doctor_line(&env, "claude code");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(
        line.contains("SessionStart hook runs /opt/old/bin/ragger, which does not exist, not this binary"),
        "{line}"
    );
    assert!(line.contains("no ragger SessionEnd hook in"), "{line}");
    assert!(line.contains("no MCP server ragger at user scope"), "{line}");
    assert!(line.ends_with("`ragger init --agent claude-code` fixes it"), "{line}");
    run(user(&env, &["init", "--agent", "claude-code"])).ok();
    let line = doctor_line(&env, "claude code");
    assert_eq!(line, "ok   claude code   SessionStart hook, Stop hook, SessionEnd hook, MCP server run this binary");

    // Codex installed, its config without ragger: said, not failed; half
    // wired (notify only): the server and the hooks are named.
    with_codex(&mut env, "0.98.0");
    put(&home(&env, ".codex/config.toml"), &read(&fixture("agents/codex-config.toml")));
    let line = doctor_line(&env, "codex");
    assert!(line.starts_with("ok") && line.contains("not wired to ragger; `ragger init --agent codex`"), "{line}");
    let cfg = user_config(&env).display().to_string();
    let notify = format!("notify = [\"{}\", \"--config\", \"{cfg}\", \"hook\", \"codex\"]\n", exe().display());
    put(&home(&env, ".codex/config.toml"), &notify);
    let line = doctor_line(&env, "codex");
    assert!(line.starts_with("FAIL") && line.contains("no [mcp_servers.ragger] in"), "{line}");
    run(user(&env, &["init", "--agent", "codex"])).ok();
    assert_eq!(
        doctor_line(&env, "codex"),
        "ok   codex         notify, MCP server run this binary; Codex 0.98.0 has no hooks (they came in 0.114.0)"
    );

    // The cron line, and when the last pass started.
    with_crontab(&mut env, "MAILTO=me\n# ragger\n*/20 * * * * /usr/bin/ragger housekeeping\n");
    let line = doctor_line(&env, "schedule");
    assert_eq!(line, "ok   schedule      crontab: */20 * * * * /usr/bin/ragger housekeeping; no pass has run yet");
    let ago = chrono::Utc::now().timestamp_millis() - 7 * 60_000;
    let sql = rusqlite::Connection::open(env.db()).unwrap();
    sql.execute(
        "INSERT INTO runs (kind, owner, started, finished, outcome) VALUES ('housekeeping', 'x', ?1, ?1, 'ok')",
        [ago],
    )
    .unwrap();
    assert!(doctor_line(&env, "schedule").ends_with("the last pass started 7 minutes ago"));
    let j = run(user(&env, &["doctor", "--json"])).json();
    let names: Vec<&str> = j["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for n in ["last hook", "claude code", "codex", "schedule"] {
        assert!(names.contains(&n), "{names:?}");
    }
}

/// Codex's trust of a hook it runs: `[hooks.state."FILE:EVENT:GROUP:HANDLER"]`
/// with `trusted_hash` in ~/.codex/config.toml, written by Codex when the
/// user trusts it in `/hooks` (codex-rs/hooks/src/engine/discovery.rs
/// `hook_key`, `hook_trust_status`; `[features] hooks` as in
/// https://developers.openai.com/codex/hooks).
#[test]
fn doctor_checks_codexs_hooks_and_says_when_codex_has_not_trusted_them() {
    let mut env = Env::new();
    with_codex(&mut env, "0.140.0");
    run(user(&env, &["init"])).ok();
    let hooks = home(&env, ".codex/hooks.json");
    put(&hooks, &read(&fixture("agents/codex-hooks.json")));
    run(user(&env, &["init", "--agent", "codex"])).ok();
    let line = doctor_line(&env, "codex");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(
        line.contains("the SessionStart and Stop hook is not trusted in Codex yet, so Codex skips it: review and trust it with `/hooks` in Codex"),
        "{line}"
    );
    // Trusted in Codex: ragger's SessionStart is the second group there
    // (after the user's), its Stop the first.
    let config = home(&env, ".codex/config.toml");
    let trust = format!(
        "\n[hooks.state.\"{h}:session_start:1:0\"]\ntrusted_hash = \"sha256:1111\"\n\n[hooks.state.\"{h}:stop:0:0\"]\ntrusted_hash = \"sha256:2222\"\n",
        h = hooks.display()
    );
    put(&config, &(read(&config) + &trust));
    assert_eq!(
        doctor_line(&env, "codex"),
        "ok   codex         notify, SessionStart hook, Stop hook, MCP server run this binary"
    );
    // Hooks turned off in Codex: a note, not a failure (notify still works).
    put(&config, &format!("{}\n[features]\nhooks = false\n", read(&config)));
    let line = doctor_line(&env, "codex");
    assert!(line.starts_with("ok") && line.ends_with("hooks are off in config.toml (`[features] hooks = false`), so notify alone stores turns and sessions start without memory"), "{line}");
    // A hook of an older binary: named, with the fix.
    let stale = read(&hooks).replace(&exe().display().to_string(), "/opt/old/ragger");
    put(&hooks, &stale);
    let line = doctor_line(&env, "codex");
    assert!(
        line.starts_with("FAIL") && line.contains("Stop hook runs /opt/old/ragger, which does not exist"),
        "{line}"
    );
}
