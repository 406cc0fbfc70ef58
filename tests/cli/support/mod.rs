//! The test harness: runs the real `ragger` binary in a temporary folder
//! with a scrubbed environment (HOME and XDG folders inside the temp dir)
//! and owns the config file. The fake model server, the topic-scripted
//! model, the model files and the fixtures come from the kit (tests/kit).
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

// The kit (tests/kit, shared with examples/fake_server.rs), under the names
// the tests use.
pub use ragger_testkit::fake_server::{self, Action, FakeServer, Recorded};
pub use ragger_testkit::fixtures::{self, fixture, repo_file};
pub use ragger_testkit::models;
pub use ragger_testkit::topic_model::topic_reply;

pub struct Env {
    pub dir: tempfile::TempDir,
    pub config: String,
    pub extra_env: Vec<(String, String)>,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.stdout))
    }
    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(self.code, 0, "expected success; stderr: {}\nstdout: {}", self.stderr, self.stdout);
        self
    }
    #[track_caller]
    pub fn code(self, code: i32) -> Run {
        assert_eq!(self.code, code, "expected exit {code}; stderr: {}\nstdout: {}", self.stderr, self.stdout);
        self
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// The `ragger` under test: this build's, or the one `RAGGER_TEST_BIN`
/// names (to show that a regression test fails on an older build).
pub fn binary() -> PathBuf {
    std::env::var_os("RAGGER_TEST_BIN")
        .filter(|b| !b.is_empty())
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ragger")), PathBuf::from)
}

impl Env {
    /// A fresh environment with the embedder disabled (tests of the
    /// embedder enable it with `real_embedder`).
    pub fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["home", "data", "config", "state", "cache"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Env { dir, config: "[embedder]\nenabled = false\n".into(), extra_env: vec![] }
    }

    /// Point the memory model at a fake server (openai API).
    pub fn with_server(mut self, server: &FakeServer) -> Env {
        self.config.push_str(&format!(
            "[memory_model]\nbackend = \"openai\"\nurl = \"{}\"\nmodel = \"fake-model\"\ntimeout_seconds = 5\nretries = 0\n",
            server.openai_url()
        ));
        self
    }

    pub fn with_config(mut self, extra: &str) -> Env {
        self.config.push_str(extra);
        self.config.push('\n');
        self
    }

    /// Use the real embedder files fetched by scripts/fetch-models.sh.
    pub fn real_embedder(mut self) -> Env {
        let lib = models::onnx_runtime();
        let model = models::embedder_dir();
        self.config = self.config.replace("[embedder]\nenabled = false\n", "");
        self.config.push_str(&format!(
            "[embedder]\nenabled = true\nruntime_path = \"{}\"\nmodel_dir = \"{}\"\n",
            lib.display(),
            model.display()
        ));
        self
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    pub fn db(&self) -> PathBuf {
        self.path("data/ragger/ragger.db")
    }
    pub fn config_path(&self) -> PathBuf {
        self.path("ragger.toml")
    }

    pub fn command(&self, args: &[&str]) -> Command {
        std::fs::write(self.config_path(), &self.config).unwrap();
        let mut c = Command::new(binary());
        c.args(args);
        c.env_clear();
        c.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        c.env("HOME", self.path("home"));
        c.env("XDG_DATA_HOME", self.path("data"));
        c.env("XDG_CONFIG_HOME", self.path("config"));
        c.env("XDG_STATE_HOME", self.path("state"));
        c.env("XDG_CACHE_HOME", self.path("cache"));
        c.env("RAGGER_SYSTEM_CONFIG", self.path("no-system-config.toml"));
        c.env("RAGGER_CONFIG", self.config_path());
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
        c.stdin(Stdio::null());
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.command(args).output().expect("run ragger").into()
    }

    /// Run, killing ragger if it is still running after `limit` (a hang
    /// fails the test instead of blocking it); also returns how long it ran.
    #[track_caller]
    pub fn run_within(&self, args: &[&str], limit: std::time::Duration) -> (Run, std::time::Duration) {
        let mut c = self.command(args);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        self.finish_within(c.spawn().expect("spawn ragger"), limit)
    }

    /// Wait for `child` as [`Env::run_within`] does.
    #[track_caller]
    pub fn finish_within(
        &self,
        mut child: std::process::Child,
        limit: std::time::Duration,
    ) -> (Run, std::time::Duration) {
        let started = std::time::Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if started.elapsed() > limit {
                let _ = child.kill();
                let out = child.wait_with_output().expect("wait");
                panic!("ragger still running after {limit:?}; stderr: {}", String::from_utf8_lossy(&out.stderr));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let elapsed = started.elapsed();
        (child.wait_with_output().expect("wait").into(), elapsed)
    }

    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        let mut c = self.command(args);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn ragger");
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().expect("wait");
        writer.join().unwrap();
        out.into()
    }

    /// Capture one turn by flags.
    pub fn capture(&self, session: &str, user: &str, assistant: &str, extra: &[&str]) -> Run {
        let mut args = vec!["capture", "--session", session, "--user", user, "--assistant", assistant];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    pub fn status(&self) -> Value {
        self.run(&["status", "--json"]).ok().json()
    }

    pub fn show(&self, session: &str) -> Value {
        self.run(&["show", session, "--json"]).ok().json()
    }

    /// `ragger check` must pass.
    #[track_caller]
    pub fn assert_check(&self) {
        let r = self.run(&["check"]);
        assert_eq!(r.code, 0, "ragger check failed:\n{}{}", r.stdout, r.stderr);
    }

    /// Open the database directly for assertions.
    pub fn sql(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db()).unwrap()
    }
}

/// An RFC 3339 time `minutes` ago.
pub fn minutes_ago(minutes: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::minutes(minutes)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
