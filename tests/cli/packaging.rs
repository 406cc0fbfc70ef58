//! packaging/: the crontab line, the systemd user units and the cargo-deb
//! metadata are well-formed and agree with each other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::fixtures::{read, repo_root as root};

/// The job lines of a crontab: not comments, blanks or `NAME=value` settings.
fn cron_jobs(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !l.split_whitespace().next().unwrap().contains('='))
        .collect()
}

/// One cron time field: `*`, `N`, `A-B`, each optionally `/STEP`, joined by commas.
fn valid_cron_field(field: &str, min: u32, max: u32) -> bool {
    let num = |s: &str| s.parse::<u32>().ok().filter(|n| (min..=max).contains(n));
    field.split(',').all(|item| {
        let (range, step) = match item.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (item, None),
        };
        let range_ok = range == "*"
            || num(range).is_some()
            || range.split_once('-').is_some_and(|(a, b)| matches!((num(a), num(b)), (Some(a), Some(b)) if a <= b));
        range_ok && step.is_none_or(|s| s.parse::<u32>().is_ok_and(|n| n > 0))
    })
}

/// The example job line: five time fields and a command.
fn crontab_job() -> (Vec<String>, String) {
    let text = read("packaging/cron/ragger.crontab");
    let jobs = cron_jobs(&text);
    assert_eq!(jobs.len(), 1, "exactly one job line: {jobs:?}");
    let fields: Vec<&str> = jobs[0].split_whitespace().collect();
    assert!(fields.len() > 5, "five time fields and a command: {:?}", jobs[0]);
    (fields[..5].iter().map(|s| s.to_string()).collect(), fields[5..].join(" "))
}

#[test]
fn the_crontab_line_runs_housekeeping_every_20_minutes_by_absolute_path() {
    let (time, command) = crontab_job();
    let bounds = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)];
    for (f, (min, max)) in time.iter().zip(bounds) {
        assert!(valid_cron_field(f, min, max), "bad cron time field {f:?} in {time:?}");
    }
    assert_eq!(time, ["*/20", "*", "*", "*", "*"]);
    assert!(command.starts_with('/'), "cron has a minimal PATH: the command must be absolute: {command}");
    assert_eq!(command, "/usr/bin/ragger housekeeping");
    assert!(!command.contains('>'), "no redirection: cron mails the output, which is empty on success");
    let text = read("packaging/cron/ragger.crontab");
    assert!(text.contains("75"), "the crontab explains exit 75");
}

#[test]
fn the_cron_field_check_rejects_bad_fields() {
    assert!(valid_cron_field("*/20", 0, 59) && valid_cron_field("0,20,40", 0, 59) && valid_cron_field("1-5/2", 0, 59));
    assert!(!valid_cron_field("60", 0, 59) && !valid_cron_field("*/0", 0, 59) && !valid_cron_field("5-1", 0, 59));
    assert!(!valid_cron_field("x", 0, 59) && !valid_cron_field("", 0, 59));
}

#[test]
fn docs_and_the_cron_test_use_the_crontab_line_as_shipped() {
    let job = cron_jobs(&read("packaging/cron/ragger.crontab"))[0].split_whitespace().collect::<Vec<_>>().join(" ");
    // Each page with a cron section: the packaging note, the README's set-up
    // and the reference's "Cron and systemd".
    for doc in ["packaging/README-cron.md", "README.md", "docs/reference.md"] {
        let text = read(doc);
        assert!(text.contains("crontab"), "{doc} has no cron section");
        let normalized: Vec<String> =
            text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        assert!(normalized.iter().any(|l| l.contains(&job)), "{doc} shows the crontab line {job:?}");
    }
    // The script installs the shipped line (schedule and binary path swapped), not its own.
    assert!(read("scripts/cron-test.sh").contains("packaging/cron/ragger.crontab"));
}

/// A systemd unit file: section -> key -> values (keys may repeat).
fn unit(rel: &str) -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut section = None;
    for (n, line) in read(rel).lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        assert!(!line.ends_with('\\'), "{rel}:{}: keep lines unbroken", n + 1);
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.to_string());
            out.entry(name.to_string()).or_default();
            continue;
        }
        let s = section.clone().unwrap_or_else(|| panic!("{rel}:{}: key before any [Section]", n + 1));
        let (k, v) = line.split_once('=').unwrap_or_else(|| panic!("{rel}:{}: not KEY=VALUE: {line}", n + 1));
        assert!(
            !k.trim().is_empty() && k.trim().chars().all(|c| c.is_ascii_alphanumeric()),
            "{rel}:{}: key {k:?}",
            n + 1
        );
        out.get_mut(&s).unwrap().entry(k.trim().to_string()).or_default().push(v.trim().to_string());
    }
    out
}

fn one<'a>(u: &'a BTreeMap<String, BTreeMap<String, Vec<String>>>, section: &str, key: &str) -> &'a str {
    let values = u.get(section).and_then(|s| s.get(key)).unwrap_or_else(|| panic!("[{section}] {key}= is missing"));
    values.last().unwrap()
}

#[test]
fn the_service_is_a_oneshot_housekeeping_run_where_75_is_success() {
    let u = unit("packaging/systemd/ragger-housekeeping.service");
    assert_eq!(u.keys().collect::<Vec<_>>(), ["Service", "Unit"]);
    assert_eq!(one(&u, "Service", "Type"), "oneshot");
    let (_, command) = crontab_job();
    assert_eq!(one(&u, "Service", "ExecStart"), command, "the same command as the crontab");
    assert!(one(&u, "Service", "SuccessExitStatus").split_whitespace().any(|c| c == "75"));
    let service = &u["Service"];
    for forbidden in ["ProtectHome", "ProtectSystem", "PrivateTmp", "User", "ReadOnlyPaths"] {
        assert!(
            !service.contains_key(forbidden),
            "{forbidden}= would stop writes to ~/.local (or needs user namespaces)"
        );
    }
    assert!(!u["Unit"].contains_key("WantedBy") && !u.contains_key("Install"), "the timer starts it, not a target");
}

#[test]
fn the_timer_fires_every_20_minutes_and_catches_up_after_downtime() {
    let u = unit("packaging/systemd/ragger-housekeeping.timer");
    assert_eq!(one(&u, "Timer", "OnCalendar"), "*:0/20");
    assert_eq!(one(&u, "Timer", "Persistent"), "true");
    assert_eq!(one(&u, "Install", "WantedBy"), "timers.target");
    let unit_key = u["Timer"].get("Unit").map(|v| v[0].as_str());
    assert!(unit_key.is_none_or(|v| v == "ragger-housekeeping.service"), "{unit_key:?}");
}

/// `systemd-analyze --user verify`, with ExecStart pointed at the test
/// binary (verify checks that it exists). Its warnings are failures too:
/// verify exits 0 on unknown keys and unparsable values. A machine without
/// systemd-analyze fails this test (Debian's `systemd` package has it;
/// scripts/test.sh installs it).
#[test]
fn systemd_analyze_verify_accepts_the_units() {
    let probe = Command::new("systemd-analyze").arg("--version").output().unwrap_or_else(|e| {
        panic!("systemd-analyze cannot run ({e}): install Debian's `systemd` package (scripts/test.sh does)")
    });
    assert!(probe.status.success());
    let tmp = tempfile::tempdir().unwrap();
    let runtime = tmp.path().join("runtime");
    std::fs::create_dir(&runtime).unwrap();
    std::fs::set_permissions(&runtime, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let mut names = vec![];
    for name in ["ragger-housekeeping.service", "ragger-housekeeping.timer"] {
        let text = read(&format!("packaging/systemd/{name}")).replace("/usr/bin/ragger", env!("CARGO_BIN_EXE_ragger"));
        std::fs::write(tmp.path().join(name), text).unwrap();
        names.push(tmp.path().join(name));
    }
    let out = Command::new("systemd-analyze")
        .args(["--user", "verify", "--man=no"])
        .args(&names)
        .env("XDG_RUNTIME_DIR", &runtime)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.trim().is_empty(), "systemd-analyze verify:\n{stderr}");
}

fn deb_metadata() -> toml::Table {
    let cargo: toml::Table = read("Cargo.toml").parse().unwrap();
    cargo["package"]["metadata"]["deb"].as_table().expect("[package.metadata.deb]").clone()
}

/// Files matching a cargo-deb asset source (a `*` glob in the file name only).
fn asset_sources(src: &str) -> Vec<PathBuf> {
    let path = root().join(src);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let Some((prefix, suffix)) = name.split_once('*') else {
        return if path.exists() { vec![path] } else { vec![] };
    };
    let dir = path.parent().unwrap();
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().path())
                .filter(|p| {
                    let n = p.file_name().unwrap().to_string_lossy();
                    n.starts_with(prefix) && n.ends_with(suffix) && n.len() >= prefix.len() + suffix.len()
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn cargo_deb_assets_exist_and_go_where_debian_looks_for_them() {
    let deb = deb_metadata();
    assert!(deb.get("maintainer").and_then(|m| m.as_str()).is_some_and(|m| m.contains('<') && m.ends_with('>')));
    assert!(deb.get("depends").and_then(|d| d.as_str()).is_some_and(|d| d.contains("$auto")));
    let mut dests = vec![];
    for asset in deb["assets"].as_array().expect("assets = [...]") {
        let a: Vec<&str> = asset.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let [src, dest, mode] = a[..] else { panic!("[source, dest, mode]: {a:?}") };
        assert!(u32::from_str_radix(mode, 8).is_ok_and(|m| m <= 0o777), "mode {mode:?} of {src}");
        assert!(!dest.starts_with('/'), "dest is relative to the package root: {dest}");
        if src == "target/release/ragger" {
            assert_eq!((dest, mode), ("usr/bin/", "755"));
        } else {
            assert!(!asset_sources(src).is_empty(), "cargo-deb asset {src} does not exist");
        }
        dests.push((src, dest));
    }
    let dest_of = |src: &str| dests.iter().find(|(s, _)| *s == src).map(|(_, d)| *d);
    assert_eq!(dest_of("target/release/ragger"), Some("usr/bin/"));
    assert_eq!(dest_of("man/man1/*.1"), Some("usr/share/man/man1/"));
    assert_eq!(dest_of("completions/ragger.bash"), Some("usr/share/bash-completion/completions/ragger"));
    assert_eq!(dest_of("completions/_ragger"), Some("usr/share/zsh/vendor-completions/_ragger"));
    assert_eq!(dest_of("completions/ragger.fish"), Some("usr/share/fish/vendor_completions.d/ragger.fish"));
    for u in ["ragger-housekeeping.service", "ragger-housekeeping.timer"] {
        assert_eq!(dest_of(&format!("packaging/systemd/{u}")), Some("usr/lib/systemd/user/"));
    }
    for ex in ["packaging/cron/ragger.crontab", "packaging/config.example.toml"] {
        assert_eq!(dest_of(ex), Some("usr/share/doc/ragger/examples/"));
    }
    // The fetch script ships where `ragger doctor`'s hint (paths::fetch_command) looks for it.
    assert_eq!(dest_of("scripts/fetch-models.sh"), Some("usr/share/ragger/"));
    // README links docs/*.md relatively, so the pages sit beside it.
    assert_eq!(dest_of("README.md"), Some("usr/share/doc/ragger/"));
    assert_eq!(dest_of("docs/*.md"), Some("usr/share/doc/ragger/docs/"));
    // Everything under packaging/ ships (only docs for the README stay behind).
    for dir in ["packaging/cron", "packaging/systemd"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let rel = format!("{dir}/{}", e.unwrap().file_name().to_string_lossy());
            assert!(dest_of(&rel).is_some(), "{rel} is not in the package");
        }
    }
    assert!(Path::new(&root().join("man/man1/ragger.1")).exists());
}

#[test]
fn fetch_models_rejects_an_unknown_model_with_exit_2_and_fetches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("data");
    let out = Command::new("bash")
        .arg(root().join("scripts/fetch-models.sh"))
        .args(["--model", "bogus", "--dest"])
        .arg(&dest)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim(), "fetch-models: --model takes smollm2-135m or qwen2.5-coder-0.5b, not 'bogus'");
    assert!(!dest.exists(), "nothing is written for a bad argument");
}

#[test]
fn fetch_models_help_names_both_memory_models_and_keeps_smollm2_the_default() {
    let out = Command::new("bash").arg(root().join("scripts/fetch-models.sh")).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--model NAME"), "{help}");
    assert!(help.contains("smollm2-135m (default"), "{help}");
    assert!(help.contains("qwen2.5-coder-0.5b"), "{help}");
    assert!(help.contains("--only") && help.contains("--dest") && help.contains("-q"), "{help}");
}
