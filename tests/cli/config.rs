//! Configuration layers, unknown keys, and the example config.

use crate::support::Env;

#[test]
fn unknown_key_is_exit_78_naming_file_and_key() {
    let env = Env::new().with_config("[summaries]\nfold_every = 3");
    let r = env.run(&["status"]).code(78);
    assert!(r.stderr.contains("ragger.toml"), "{}", r.stderr);
    assert!(r.stderr.contains("fold_every"), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "one line: {}", r.stderr);
}

#[test]
fn unknown_section_is_refused() {
    let env = Env::new().with_config("[sumaries]\nfold = \"threshold\"");
    let r = env.run(&["status"]).code(78);
    assert!(r.stderr.contains("sumaries"), "{}", r.stderr);
}

#[test]
fn layers_merge_in_order_system_user_env_flag() {
    let env = Env::new();
    std::fs::write(
        env.path("no-system-config.toml"),
        "[summaries]\nmin_episodes = 9\nthreshold_tokens = 111\n[housekeeping]\nsummary_pause_minutes = 5\n",
    )
    .unwrap();
    let env = env.with_config("[summaries]\nmin_episodes = 7");
    let mut cmd = env.command(&["config", "show", "--json"]);
    cmd.env("RAGGER_HOUSEKEEPING__SUMMARY_PAUSE_MINUTES", "33");
    let r: crate::support::Run = cmd.output().unwrap().into();
    let c = r.ok().json();
    assert_eq!(c["summaries"]["threshold_tokens"], 111, "system file");
    assert_eq!(c["summaries"]["min_episodes"], 7, "user file beats system");
    assert_eq!(c["housekeeping"]["summary_pause_minutes"], 33, "environment beats files");
    assert_eq!(c["summaries"]["max_input_chars"], 3000, "defaults fill the rest");
    // A flag beats the config file for the database path.
    let env2 = Env::new().with_config("[database]\npath = \"/nonexistent/dir/x.db\"");
    let db = env2.path("flag.db");
    env2.run(&["--db", db.to_str().unwrap(), "capture", "--session", "s", "--user", "u", "--assistant", "a"]).ok();
    assert!(db.exists());
}

#[test]
fn bad_environment_value_is_exit_78_naming_the_variable() {
    let env = Env::new();
    let mut cmd = env.command(&["status"]);
    cmd.env("RAGGER_SUMMARIES__MIN_EPISODES", "many");
    let r: crate::support::Run = cmd.output().unwrap().into();
    let r = r.code(78);
    assert!(r.stderr.contains("RAGGER_SUMMARIES__MIN_EPISODES"), "{}", r.stderr);
}

#[test]
fn config_default_is_the_packaged_example_and_parses_to_the_defaults() {
    let env = Env::new();
    let r = env.run(&["config", "default"]).ok();
    let example = include_str!("../../packaging/config.example.toml");
    assert_eq!(r.stdout, example);
    // The example, used as a config file, gives exactly the defaults.
    let env2 = Env::new();
    std::fs::write(env2.path("example.toml"), example).unwrap();
    let from_example =
        env2.run(&["--config", env2.path("example.toml").to_str().unwrap(), "config", "show", "--json"]).ok().json();
    // An empty file in the same folders (`config show` fills in the paths).
    std::fs::write(env2.path("empty.toml"), "").unwrap();
    let defaults =
        env2.run(&["--config", env2.path("empty.toml").to_str().unwrap(), "config", "show", "--json"]).ok().json();
    assert_eq!(from_example, defaults);
}

#[test]
fn config_path_lists_the_files_consulted() {
    let env = Env::new();
    let r = env.run(&["config", "path"]).ok();
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].ends_with("no-system-config.toml (absent)"), "{}", lines[0]);
    assert!(lines[1].ends_with("ragger.toml"), "{}", lines[1]);
}

#[test]
fn missing_explicit_config_file_is_an_error() {
    let env = Env::new();
    let r = env.run(&["--config", "/nonexistent/ragger.toml", "status"]).code(78);
    assert!(r.stderr.contains("/nonexistent/ragger.toml"), "{}", r.stderr);
}

#[test]
fn help_lists_the_exit_codes() {
    let env = Env::new();
    let r = env.run(&["--help"]).ok();
    for code in ["69", "75", "78", "130"] {
        assert!(r.stdout.contains(code), "--help lacks exit code {code}");
    }
}

/// The config keys a row of docs/configuration.md's key table names: its
/// first cell is "`[section] key`", possibly with more "`key`"s of that
/// section after it ("`[memory_model] timeout_seconds`, `retries`").
fn documented_keys(page: &str) -> std::collections::BTreeSet<(String, String)> {
    let mut keys = std::collections::BTreeSet::new();
    for line in page.lines() {
        let Some(cell) = line.strip_prefix("| `[").and_then(|l| l.split(" | ").next()) else { continue };
        let Some((section, rest)) = cell.split_once("] ") else { continue };
        for name in rest.split(',').map(|k| k.trim().trim_matches('`')) {
            keys.insert((section.to_string(), name.to_string()));
        }
    }
    keys
}

#[test]
fn every_config_key_has_a_row_in_the_configuration_page() {
    let page = crate::support::fixtures::read("docs/configuration.md");
    let documented = documented_keys(&page);
    let j = Env::new().run(&["config", "show", "--json"]).ok().json();
    let mut known = std::collections::BTreeSet::new();
    for (section, keys) in j.as_object().expect("config show --json is an object of sections") {
        for key in keys.as_object().unwrap_or_else(|| panic!("[{section}] is a table")).keys() {
            known.insert((section.clone(), key.clone()));
        }
    }
    assert!(known.len() > 40, "config show --json lists every key, unset ones too: {known:?}");
    let missing: Vec<_> = known.difference(&documented).collect();
    assert!(missing.is_empty(), "keys without a row in docs/configuration.md: {missing:?}");
    // A row for a key ragger does not know would document nothing.
    let unknown: Vec<_> = documented.difference(&known).collect();
    assert!(unknown.is_empty(), "rows in docs/configuration.md for keys ragger does not know: {unknown:?}");
}
