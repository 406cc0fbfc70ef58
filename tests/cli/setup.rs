//! The first hour (issue 18): `ragger init`, read-only commands that never
//! create a database, `doctor` that proves the models work, config mistakes
//! that never drop a turn, and the smaller frictions.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{models, repo_file, Env, FakeServer, Run};

/// `env`'s command without RAGGER_CONFIG: the user config file in the
/// XDG config folder, as for a real user.
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

fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ragger")).canonicalize().unwrap()
}

/// A folder of fake programs put first on PATH. Testing our own logic
/// (what init feeds `crontab`, what it asks of `systemctl`), not cron's.
fn fake_bin(env: &Env, name: &str, script: &str) -> PathBuf {
    let dir = env.path("bin");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn with_path(mut c: Command, dir: &Path) -> Command {
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default());
    c.env("PATH", path);
    c
}

// ---- 1. init -------------------------------------------------------------

#[test]
fn init_pins_absolute_paths_so_cron_without_xdg_finds_the_same_database_and_a_second_run_changes_nothing() {
    let env = Env::new();
    let r = run(user(&env, &["init"])).ok();
    let file = user_config(&env);
    let text = std::fs::read_to_string(&file).unwrap();
    let db = env.db();
    assert!(text.contains(&format!("path = \"{}\"", db.display())), "{text}");
    assert!(db.exists(), "init creates the database");
    assert!(r.stdout.contains(&format!("*/20 * * * * {} --config {} housekeeping", exe().display(), file.display())));
    // The models are not in this fresh data folder: init says how to fetch them.
    let models = r.stdout.lines().find(|l| l.starts_with("models ")).expect("a models line");
    assert!(models.contains("SmolLM2-135M-Instruct.Q4_1.gguf") && models.contains("fetch-models.sh"), "{models}");
    // A turn captured from the shell (XDG variables set) ...
    run(user(&env, &["capture", "--session", "s", "--user", "u", "--assistant", "a"])).ok();
    // ... is seen by cron's command line: no XDG variables, --config only.
    let mut cron = env.command(&["--config", file.to_str().unwrap(), "status", "--json"]);
    cron.env_remove("RAGGER_CONFIG").env_remove("XDG_DATA_HOME").env_remove("XDG_CONFIG_HOME");
    assert_eq!(run(cron).ok().json()["turns"], 1);
    // Idempotent: the second run says so and leaves the file as it was.
    let r = run(user(&env, &["init"])).ok();
    assert!(r.stdout.contains("nothing to change"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn init_keeps_a_different_value_in_an_existing_config_and_says_so() {
    let env = Env::new();
    let file = user_config(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mine = "# my settings\n[database]\npath = \"/srv/elsewhere/ragger.db\"\n";
    std::fs::write(&file, mine).unwrap();
    let other = env.path("other.db");
    let r = run(user(&env, &["--db", other.to_str().unwrap(), "init"])).ok();
    assert!(r.stdout.contains("KEPT: [database] path is \"/srv/elsewhere/ragger.db\""), "{}", r.stdout);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(mine), "existing text and comments are kept: {text}");
}

#[test]
fn init_dry_run_changes_nothing() {
    let env = Env::new();
    let bin = fake_bin(&env, "crontab", FAKE_CRONTAB);
    let r = run(with_path(user(&env, &["init", "--dry-run", "--cron"]), &bin)).ok();
    assert!(r.stdout.contains("would add to your crontab"), "{}", r.stdout);
    assert!(!bin.join("crontab.txt").exists());
    assert!(r.stdout.contains("would write"), "{}", r.stdout);
    assert!(r.stdout.contains("would create"), "{}", r.stdout);
    assert!(!user_config(&env).exists());
    assert!(!env.db().exists());
    assert!(!env.path("data/ragger").exists());
    let j = run(with_path(user(&env, &["init", "--dry-run", "--json"]), &bin)).ok().json();
    assert_eq!((j["dry_run"].clone(), j["changed"].clone()), (true.into(), true.into()));
    assert!(!user_config(&env).exists());
}

/// `env` with a fake `crontab` first on PATH whose table runs housekeeping.
fn scheduled(mut env: Env) -> Env {
    let bin = fake_bin(&env, "crontab", FAKE_CRONTAB);
    std::fs::write(bin.join("crontab.txt"), "*/20 * * * * /usr/bin/ragger housekeeping\n").unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    env.extra_env.push(("PATH".into(), path));
    env
}

/// A fake `crontab` that keeps the table in a file beside it.
const FAKE_CRONTAB: &str = r#"#!/bin/sh
f="$(dirname "$0")/crontab.txt"
case "$1" in
  -l) if [ -f "$f" ]; then cat "$f"; else echo "no crontab for tester" >&2; exit 1; fi ;;
  -) cat > "$f" ;;
  *) exit 2 ;;
esac
"#;

#[test]
fn init_cron_adds_the_line_once_and_keeps_the_other_lines() {
    let env = Env::new();
    let bin = fake_bin(&env, "crontab", FAKE_CRONTAB);
    let table = bin.join("crontab.txt");
    std::fs::write(&table, "MAILTO=me@example.org\n0 3 * * * /usr/local/bin/backup").unwrap();
    let r = run(with_path(user(&env, &["init", "--cron"]), &bin)).ok();
    let line = format!("*/20 * * * * {} --config {} housekeeping", exe().display(), user_config(&env).display());
    assert!(r.stdout.contains(&format!("added to your crontab: {line}")), "{}", r.stdout);
    let after = std::fs::read_to_string(&table).unwrap();
    assert!(after.starts_with("MAILTO=me@example.org\n0 3 * * * /usr/local/bin/backup\n"), "{after}");
    assert_eq!(after.lines().filter(|l| *l == line).count(), 1, "{after}");
    let r = run(with_path(user(&env, &["init", "--cron"]), &bin)).ok();
    assert!(r.stdout.contains("nothing to change"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&table).unwrap(), after);
}

#[test]
fn init_cron_leaves_another_ragger_line_alone_and_names_it() {
    let env = Env::new();
    let bin = fake_bin(&env, "crontab", FAKE_CRONTAB);
    let table = bin.join("crontab.txt");
    std::fs::write(&table, "*/20 * * * * /usr/bin/ragger housekeeping\n").unwrap();
    let r = run(with_path(user(&env, &["init", "--cron"]), &bin)).ok();
    assert!(r.stdout.contains("KEPT: your crontab already runs ragger housekeeping: */20 * * * * /usr/bin/ragger"));
    assert_eq!(std::fs::read_to_string(&table).unwrap(), "*/20 * * * * /usr/bin/ragger housekeeping\n");
}

#[test]
fn init_systemd_writes_the_units_and_enables_the_timer() {
    let env = Env::new();
    let bin = fake_bin(
        &env,
        "systemctl",
        "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/systemctl.log\"\n[ \"$2\" = is-enabled ] && { echo disabled; exit 1; }\nexit 0\n",
    );
    let r = run(with_path(user(&env, &["init", "--systemd"]), &bin)).ok();
    let units = env.path("config/systemd/user");
    let service = std::fs::read_to_string(units.join("ragger-housekeeping.service")).unwrap();
    let exec = format!("ExecStart={} --config {} housekeeping", exe().display(), user_config(&env).display());
    assert!(service.lines().any(|l| l == exec), "{service}");
    assert!(std::fs::read_to_string(units.join("ragger-housekeeping.timer")).unwrap().contains("OnCalendar=*:0/20"));
    let log = std::fs::read_to_string(bin.join("systemctl.log")).unwrap();
    assert!(log.contains("--user daemon-reload\n--user enable --now ragger-housekeeping.timer"), "{log}");
    assert!(r.stdout.contains("enabled and started"), "{}", r.stdout);
}

// ---- 2. read-only commands never create a database ----------------------

#[test]
fn read_only_commands_refuse_a_missing_database_naming_path_and_origin() {
    let env = Env::new();
    let commands: &[&[&str]] = &[
        &["status"],
        &["sessions"],
        &["show", "s1"],
        &["search", "backups"],
        &["check"],
        &["export"],
        &["context", "--project", "p"],
    ];
    for args in commands {
        let r = env.run(args).code(66);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(&format!("no database at {}", env.db().display())), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("the default") && r.stderr.contains("XDG_DATA_HOME"), "{}", r.stderr);
        assert!(!env.path("data/ragger").exists(), "{args:?} created the data folder");
    }
    let db = env.path("nowhere/x.db");
    let r = env.run(&["--db", db.to_str().unwrap(), "status"]).code(66);
    assert!(r.stderr.contains("from --db"), "{}", r.stderr);
    let mut c = env.command(&["status"]);
    c.env("RAGGER_DB", &db);
    assert!(run(c).code(66).stderr.contains("from RAGGER_DB"));
    let env = Env::new().with_config(&format!("[database]\npath = \"{}\"", db.display()));
    let r = env.run(&["sessions"]).code(66);
    assert!(r.stderr.contains(&format!("from [database] path in {}", env.config_path().display())), "{}", r.stderr);
    assert!(!env.path("nowhere").exists());
}

#[test]
fn doctor_names_the_database_its_origin_the_last_pass_and_failed_items() {
    let server = FakeServer::fixed("OK");
    let env = Env::new().with_server(&server);
    // No database: doctor says where it looked and creates nothing.
    let r = env.run(&["doctor"]).code(1);
    assert!(r.stdout.contains(&format!("FAIL database      no database at {}", env.db().display())), "{}", r.stdout);
    assert!(!env.db().exists());
    env.capture("s1", "u", "a", &[]).ok();
    // No schedule: doctor names the command that installs one.
    let r = env.run(&["doctor"]).code(1);
    assert!(
        r.stdout.contains(
            "FAIL schedule      no crontab line or systemd timer runs `ragger housekeeping`; `ragger init --cron`"
        ),
        "{}",
        r.stdout
    );
    let env = scheduled(env);
    let r = env.run(&["doctor"]).ok();
    assert!(r.stdout.contains("ok   schedule      crontab: */20 * * * * /usr/bin/ragger housekeeping"), "{}", r.stdout);
    assert!(r.stdout.contains("the default: ragger.db in the data folder"), "{}", r.stdout);
    assert!(r.stdout.contains("last pass     none yet (is cron running"), "{}", r.stdout);
    // A pass three periods ago, and a failed turn summary.
    let sql = env.sql();
    let ago = chrono::Utc::now().timestamp_millis() - 61 * 60_000;
    sql.execute(
        "INSERT INTO runs (kind, owner, started, finished, outcome) VALUES ('housekeeping', 'x', ?1, ?1, 'ok')",
        [ago],
    )
    .unwrap();
    sql.execute("UPDATE turns SET l2_state = 'failed'", []).unwrap();
    let r = env.run(&["doctor"]).code(1);
    assert!(r.stdout.contains("FAIL last pass     housekeeping"), "{}", r.stdout);
    assert!(r.stdout.contains("(61 minutes ago): ok; is cron running `ragger housekeeping`?"), "{}", r.stdout);
    assert!(r.stdout.contains("failed items  1 turn summaries, 0 project folds"), "{}", r.stdout);
    let j = env.run(&["doctor", "--json"]).code(1).json();
    assert_eq!(j["database"]["failed"]["turn_summaries"], 1);
    assert_eq!(j["database"]["last_pass"]["stale"], true);
    assert_eq!(j["database"]["last_pass"]["last_tick"], serde_json::Value::Null);
    // A tick with nothing to do records no pass; its stamp in the run lock
    // tells doctor that the schedule runs.
    drop(sql);
    env.run(&["housekeeping"]).ok();
    let r = env.run(&["doctor"]);
    assert!(
        r.stdout.contains("ok   last pass     housekeeping")
            && r.stdout.contains("(61 minutes ago): ok; ticks since had nothing to do, the last 0 minutes ago\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("; the last tick ran 0 minutes ago\n"), "{}", r.stdout);
    let j = env.run(&["doctor", "--json"]).json();
    assert_eq!(j["database"]["last_pass"]["stale"], false);
    assert_eq!(j["database"]["last_pass"]["last_tick"]["minutes_ago"], 0);
    let runs: i64 = env.sql().query_row("SELECT count(*) FROM runs", [], |r| r.get(0)).unwrap();
    assert_eq!(runs, 1, "the idle tick wrote no run record");
}

// ---- 3. doctor proves the models work -----------------------------------

fn local_model_env(gguf: &Path) -> Env {
    Env::new().real_embedder().with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\nthreads = 2\ncontext_tokens = 512",
        gguf.display()
    ))
}

#[test]
fn doctor_runs_one_completion_on_the_local_model_and_embeds_one_text() {
    let gguf = models::gguf();
    let env = scheduled(local_model_env(&gguf));
    env.capture("s1", "u", "a", &[]).ok();
    let r = env.run(&["doctor", "--json"]).ok();
    let checks = r.json()["checks"].as_array().unwrap().clone();
    let by = |n: &str| checks.iter().find(|c| c["name"] == n).unwrap().clone();
    let m = by("memory model");
    assert_eq!(m["ok"], true, "{m}");
    assert!(m["detail"].as_str().unwrap().contains("answered"), "{m}");
    assert!(m["ms"].as_u64().is_some());
    let e = by("embedder");
    assert!(e["detail"].as_str().unwrap().contains("embedded one text (384 dimensions)"), "{e}");
    assert!(e["ms"].as_u64().is_some());
}

#[test]
fn doctor_fails_on_a_truncated_gguf_and_names_the_fetch_script() {
    let gguf = models::gguf();
    let env = Env::new();
    let cut = env.path("models/cut.gguf");
    std::fs::create_dir_all(cut.parent().unwrap()).unwrap();
    let bytes = std::fs::read(&gguf).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let env = local_model_env(&cut);
    env.capture("s1", "u", "a", &[]).ok();
    let r = env.run(&["doctor"]).code(1);
    let line = r.stdout.lines().find(|l| l.contains("memory model")).unwrap();
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(line.contains("cut.gguf"), "{line}");
    // Built in this checkout, so the hint is this checkout's script.
    let script = repo_file("scripts/fetch-models.sh").canonicalize().unwrap();
    assert!(line.contains(&script.display().to_string()), "{line}");
}

// ---- 6. a config mistake never drops a turn -------------------------------

#[test]
fn capture_stores_the_turn_despite_a_config_error_outside_capture_and_the_pipeline_refuses() {
    let env = Env::new().with_config("[summaries]\nfold_every = 3");
    let r = env.capture("s1", "u", "a", &[]).ok();
    let warning: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(warning.len(), 1, "{}", r.stderr);
    assert!(warning[0].contains("ragger.toml") && warning[0].contains("fold_every"), "{}", r.stderr);
    assert!(warning[0].contains("the turn is stored"), "{}", r.stderr);
    let turns: i64 = env.sql().query_row("SELECT count(*) FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(turns, 1);
    // The hooks too.
    let payload = r#"{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","input-messages":["hi"],"last-assistant-message":"hello"}"#;
    env.run(&["hook", "codex", payload]).ok();
    let turns: i64 = env.sql().query_row("SELECT count(*) FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(turns, 2);
    for cmd in [&["summarize", "--once"][..], &["housekeeping"][..]] {
        let r = env.run(cmd).code(78);
        assert!(r.stderr.contains("ragger.toml") && r.stderr.contains("fold_every"), "{}", r.stderr);
    }
}

#[test]
fn capture_refuses_a_config_error_in_what_it_needs() {
    // The database path or the redaction rules are wrong: storing anyway
    // could put the turn in the wrong file or keep a secret.
    let env = Env::new().with_config("[privacy]\nredact = \"yes\"");
    let r = env.capture("s1", "u", "a", &[]).code(78);
    assert!(r.stderr.contains("ragger.toml") && r.stderr.contains("redact"), "{}", r.stderr);
    // Not TOML at all: where the database is cannot be known.
    let env = Env::new().with_config("[summaries\nfold = 1");
    let r = env.capture("s1", "u", "a", &[]).code(78);
    assert!(r.stderr.contains("ragger.toml"), "{}", r.stderr);
    assert!(!env.db().exists());
}

#[test]
fn out_of_range_values_are_exit_78_naming_key_layer_and_range() {
    let env = Env::new().with_config("[search]\nvector_weight = 1.5");
    let r = env.run(&["summarize", "--once"]).code(78);
    assert!(r.stderr.contains(&env.config_path().display().to_string()), "{}", r.stderr);
    assert!(r.stderr.contains("[search] vector_weight must be between 0 and 1 (got 1.5)"), "{}", r.stderr);
    let env = Env::new();
    let mut c = env.command(&["housekeeping"]);
    c.env("RAGGER_MEMORY_MODEL__THREADS", "5000");
    let r = run(c).code(78);
    assert!(
        r.stderr.contains(
            "environment variable RAGGER_MEMORY_MODEL__THREADS: [memory_model] threads must be between 0 and 1024"
        ),
        "{}",
        r.stderr
    );
    let env = Env::new().with_config("[housekeeping]\nsummary_pause_minutes = 100000");
    assert!(env.run(&["housekeeping"]).code(78).stderr.contains("summary_pause_minutes must be between 0 and 10080"));
}

// ---- 11. smaller frictions ------------------------------------------------

#[test]
fn a_second_project_for_a_session_is_named_in_a_warning() {
    let env = Env::new();
    env.capture("s1", "u", "a", &["--project", "alpha"]).ok();
    let r = env.capture("s1", "u2", "a2", &["--project", "beta"]).ok();
    assert!(r.stderr.contains("session s1 belongs to project alpha; project beta ignored"), "{}", r.stderr);
    assert_eq!(env.show("s1")["project"], "alpha");
    // Same project, or none: no warning.
    assert_eq!(env.capture("s1", "u3", "a3", &["--project", "alpha"]).ok().stderr, "");
    assert_eq!(env.capture("s1", "u4", "a4", &[]).ok().stderr, "");
}

#[test]
fn valid_json_of_another_shape_says_unknown_field_not_invalid_json() {
    let env = Env::new();
    let r = env.run_stdin(&["capture", "--stdin"], b"{\"session\":\"s\",\"role\":\"user\"}\n{\"session\":\n").code(1);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert!(lines[0].starts_with("ragger: stdin line 1: unknown field `role`"), "{}", r.stderr);
    assert!(lines[1].starts_with("ragger: stdin line 2: invalid JSON"), "{}", r.stderr);
}

#[test]
fn a_bad_at_and_a_bad_since_are_both_usage_errors() {
    let env = Env::new();
    let r = env.capture("s1", "u", "a", &["--at", "last tuesday"]).code(2);
    assert!(r.stderr.contains("--at:"), "{}", r.stderr);
    env.capture("s1", "u", "a", &[]).ok();
    env.run(&["search", "x", "--since", "last tuesday"]).code(2);
    env.run(&["export", "--since", "last tuesday"]).code(2);
}

#[test]
fn config_show_fills_in_the_resolved_paths() {
    let env = Env::new();
    let j = env.run(&["config", "show", "--json"]).ok().json();
    assert_eq!(j["database"]["path"], env.db().display().to_string());
    assert_eq!(
        j["memory_model"]["model_path"],
        env.path("data/ragger/models/SmolLM2-135M-Instruct.Q4_1.gguf").display().to_string()
    );
    let db = env.path("flag.db");
    let j = env.run(&["--db", db.to_str().unwrap(), "config", "show", "--json"]).ok().json();
    assert_eq!(j["database"]["path"], db.display().to_string());
}

#[test]
fn doctor_names_the_fetch_script_of_a_package_install_or_says_where_to_find_one() {
    // A package layout: <prefix>/bin/ragger beside <prefix>/share/ragger/fetch-models.sh.
    let env = Env::new().with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"",
        Env::new().path("missing.gguf").display()
    ));
    let prefix = env.path("usr");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::fs::create_dir_all(prefix.join("share/ragger")).unwrap();
    std::fs::copy(exe(), prefix.join("bin/ragger")).unwrap();
    let script = prefix.join("share/ragger/fetch-models.sh");
    let hint_of = |env: &Env| {
        let c = env.command(&["doctor"]);
        let mut installed = Command::new(prefix.join("bin/ragger"));
        installed.args(["doctor"]);
        installed.env_clear();
        for (k, v) in c.get_envs() {
            if let Some(v) = v {
                installed.env(k, v);
            }
        }
        let r = run(installed).code(1);
        r.stdout.lines().find(|l| l.contains("memory model")).unwrap().to_string()
    };
    // Without the script: where to find one.
    let line = hint_of(&env);
    assert!(line.contains("scripts/fetch-models.sh from ragger's source"), "{line}");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let line = hint_of(&env);
    assert!(
        line.contains(&format!("{} fetches the default model", script.canonicalize().unwrap().display())),
        "{line}"
    );
}
