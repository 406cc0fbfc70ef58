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
