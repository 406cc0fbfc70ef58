//! The committed man pages (`man/man1/`) and completions (`completions/`)
//! are what the binary generates now. After changing the CLI, rewrite them:
//!
//!     RAGGER_REGENERATE=1 cargo test --test cli generated

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::support::fixtures::repo_root as root;
use crate::support::Env;

const SHELLS: &[(&str, &str)] = &[
    ("bash", "ragger.bash"),
    ("zsh", "_ragger"),
    ("fish", "ragger.fish"),
    ("elvish", "ragger.elv"),
    ("powershell", "_ragger.ps1"),
];

fn regenerate() -> bool {
    std::env::var_os("RAGGER_REGENERATE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The files of `dir` with the given extension, by name.
fn files(dir: &Path, ext: &str) -> BTreeMap<String, Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else { return BTreeMap::new() };
    rd.map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Names of the files that differ, are missing or are extra in `committed`.
fn drift(fresh: &BTreeMap<String, Vec<u8>>, committed: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut out = vec![];
    for (name, data) in fresh {
        match committed.get(name) {
            None => out.push(format!("{name} (missing)")),
            Some(c) if c != data => out.push(format!("{name} (differs)")),
            Some(_) => {}
        }
    }
    out.extend(committed.keys().filter(|n| !fresh.contains_key(*n)).map(|n| format!("{n} (stale: no such command)")));
    out
}

fn fresh_man_pages(env: &Env) -> BTreeMap<String, Vec<u8>> {
    let out = env.path("man1");
    env.run(&["man", "--dir", out.to_str().unwrap()]).ok();
    files(&out, "1")
}

#[test]
fn committed_man_pages_match_the_cli() {
    let env = Env::new();
    let fresh = fresh_man_pages(&env);
    assert!(fresh.contains_key("ragger.1") && fresh.contains_key("ragger-housekeeping.1"), "{:?}", fresh.keys());
    let dir = root().join("man/man1");
    if regenerate() {
        std::fs::create_dir_all(&dir).unwrap();
        for name in files(&dir, "1").keys().filter(|n| !fresh.contains_key(*n)) {
            std::fs::remove_file(dir.join(name)).unwrap();
        }
        for (name, data) in &fresh {
            std::fs::write(dir.join(name), data).unwrap();
        }
    }
    // Regenerated or not, the files on disk must now be the fresh ones.
    let drift = drift(&fresh, &files(&dir, "1"));
    assert!(
        drift.is_empty(),
        "man/man1/ is out of date with the CLI: {}\nrewrite it with: RAGGER_REGENERATE=1 cargo test --test cli generated",
        drift.join(", ")
    );
}

#[test]
fn committed_completions_match_the_cli() {
    let env = Env::new();
    let dir = root().join("completions");
    let mut stale = vec![];
    for (shell, file) in SHELLS {
        let fresh = env.run(&["completions", shell]).ok().stdout;
        assert!(fresh.contains("housekeeping"), "{shell} completions name the subcommands");
        let path = dir.join(file);
        if regenerate() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &fresh).unwrap();
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(fresh.as_str()) {
            stale.push(format!("completions/{file} ({shell})"));
        }
    }
    assert!(
        stale.is_empty(),
        "out of date with the CLI: {}\nrewrite them with: RAGGER_REGENERATE=1 cargo test --test cli generated",
        stale.join(", ")
    );
}

#[test]
fn bash_completion_parses_and_registers_for_ragger() {
    let file = root().join("completions/ragger.bash");
    let out = Command::new("bash").arg("-n").arg(&file).output().expect("run bash");
    assert!(out.status.success(), "bash -n {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let out = Command::new("bash")
        .arg("-c")
        .arg(r#"source "$1" && complete -p ragger"#)
        .arg("bash")
        .arg(&file)
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("ragger"), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn every_man_page_documents_exit_status_environment_and_files() {
    let env = Env::new();
    for (name, data) in fresh_man_pages(&env) {
        let page = String::from_utf8(data).unwrap();
        for section in [".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES"] {
            assert!(page.contains(section), "{name} lacks {section}");
        }
        assert!(page.contains("\\fB75\\fR"), "{name} documents exit 75");
        assert!(page.contains("RAGGER_CONFIG") && page.contains("ragger.db"), "{name}");
        // Deterministic: no date in the title line, so pages only change with the CLI.
        let th = page.lines().find(|l| l.starts_with(".TH ")).unwrap_or_else(|| panic!("{name} has no .TH"));
        assert!(th.contains(" 1 \"\" \"ragger "), "{name}: {th}");
    }
}

#[test]
fn man_pages_refer_only_to_pages_that_exist() {
    let env = Env::new();
    let pages = fresh_man_pages(&env);
    for (name, data) in &pages {
        let page = String::from_utf8_lossy(data);
        for word in page.split_whitespace().filter(|w| w.starts_with("ragger") && w.ends_with("(1)")) {
            let target = format!("{}.1", word.trim_end_matches("(1)").replace("\\-", "-"));
            assert!(pages.contains_key(&target), "{name} refers to {word}, but there is no {target}");
        }
    }
    for sub in ["capture", "summarize", "housekeeping", "status", "config", "config-show", "completions"] {
        assert!(pages.contains_key(&format!("ragger-{sub}.1")), "ragger-{sub}.1");
    }
    assert!(!pages.contains_key("ragger-man.1"), "the hidden man command has no page");
    assert!(!pages.contains_key("ragger-help.1"));
}
