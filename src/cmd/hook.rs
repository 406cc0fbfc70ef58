//! `ragger hook claude-code|codex`: the one-line wiring for coding agents.
//! `hook codex` takes both of Codex's doors: the `notify` JSON (an
//! argument) and Codex's own SessionStart/Stop hooks (JSON with
//! `hook_event_name` on stdin).
//! Runs on every turn, so it loads no model and no embedder, and it never
//! blocks the agent: any error is one line on stderr and exit 1 (Claude
//! Code shows it as a non-blocking hook error; 2 would block), recorded in
//! the state folder for `status` and `doctor` (`crate::hook_failure`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use serde::Deserialize;
use serde_json::Value;

use crate::cli::{Global, HookAgent, HookArgs};
use crate::cmd::Ctx;
use crate::exit::Exit;
use crate::import::file::{import_file, open_regular, Limits, Options, Tail};
use crate::import::Format;
use crate::spool::Entry;
use crate::store::{is_busy, Store};

/// The largest hook input read from stdin.
const MAX_INPUT: u64 = 1 << 20;
/// Budget of the SessionStart block.
const CONTEXT_TOKENS: usize = 1500;
/// How long a hook waits for its input on stdin (an agent writes it at
/// once; a pipe never closed must not hold the agent).
const STDIN_WAIT: Duration = Duration::from_millis(400);
/// How long a hook waits for another process's lock on the database; past
/// it, the turn is spooled (see `crate::spool`).
pub const BUSY_WAIT: Duration = Duration::from_millis(250);
/// Bytes of a transcript one hook reads; the rest waits for the next run.
const MAX_READ: u64 = 16 << 20;
/// Turns one hook stores; the rest waits for the next run.
const MAX_TURNS: usize = 1000;
/// Reading (and redacting) the transcript stops this long after the hook started.
const READ_UNTIL: Duration = Duration::from_millis(400);
/// Older spooled turns are stored only when the hook is this early, and
/// until this late (each write may still wait `BUSY_WAIT`): every hook
/// returns within a second.
const DRAIN_FROM_BEFORE: Duration = Duration::from_millis(500);
const DRAIN_UNTIL: Duration = Duration::from_millis(600);

pub fn run(global: Global, args: &HookArgs) -> Exit {
    let started = Instant::now();
    let name = match args.agent {
        HookAgent::ClaudeCode => "claude-code",
        HookAgent::Codex { .. } => "codex",
    };
    // Not even a bug may block the agent: a panic is one line and exit 1 too.
    static PANIC: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());
    std::panic::set_hook(Box::new(move |info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        if let Ok(mut p) = PANIC.lock() {
            *p = format!("internal error{at}: {}", what.replace('\n', " "));
        }
    }));
    // Codex appends its JSON after the user's own program (`--then`).
    let (then, payload) = match &args.agent {
        HookAgent::Codex { then, payload: None } if !then.is_empty() => {
            (then[..then.len() - 1].to_vec(), then.last().cloned())
        }
        HookAgent::Codex { then, payload } => (then.clone(), payload.clone()),
        HookAgent::ClaudeCode => (Vec::new(), None),
    };
    let result = std::panic::catch_unwind(|| {
        Ctx::for_capture(global).and_then(|ctx| match &args.agent {
            HookAgent::ClaudeCode => claude_code(&ctx, started),
            HookAgent::Codex { .. } => codex(&ctx, payload.as_deref(), started),
        })
    })
    .unwrap_or_else(|_| Err(anyhow!("{}", PANIC.lock().map(|p| p.clone()).unwrap_or_default())));
    if !then.is_empty() {
        run_then(&then, payload.as_deref());
    }
    let state = crate::paths::Paths::from_env().map(|p| p.state);
    match result {
        Ok(()) => {
            if let Ok(state) = &state {
                let _ = crate::hook_failure::worked(state);
            }
            Exit::Ok
        }
        Err(e) => {
            let line = format!("{e:#}").replace('\n', " ");
            crate::display::eprint(&format!("hook {name}: {line}"));
            if let Ok(state) = &state {
                if let Err(e) = crate::hook_failure::record(state, name, &line) {
                    eprintln!("ragger: hook {name}: recording the failure in {}: {e}", state.display());
                }
            }
            Exit::Failed
        }
    }
}

/// The user's own notify program, after ragger, with the same JSON last;
/// not waited for (Codex does not wait for notify either).
fn run_then(argv: &[String], payload: Option<&str>) {
    let mut c = std::process::Command::new(&argv[0]);
    c.args(&argv[1..]).args(payload).stdin(std::process::Stdio::null());
    if let Err(e) = c.spawn() {
        eprintln!("ragger: hook codex: running {}: {e}", argv[0]);
    }
}

/// The hook input on stdin: read until its end, or until it holds one
/// complete JSON value, for at most `STDIN_WAIT` and `MAX_INPUT` bytes.
/// Each read waits in `poll(2)` for what is left of the time (no reader
/// thread: starting one cost a capture's tenth).
fn read_stdin(started: Instant) -> Result<String> {
    let until = started + STDIN_WAIT;
    let mut input: Vec<u8> = Vec::new();
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let mut fd = libc::pollfd { fd: libc::STDIN_FILENO, events: libc::POLLIN, revents: 0 };
        // Rounded up: a wait of 0.4 ms is not no wait.
        let ms = i32::try_from(left.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd, its count 1.
        let ready = unsafe { libc::poll(&mut fd, 1, ms) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e).context("waiting for the hook input on stdin");
        }
        if ready == 0 {
            anyhow::bail!(
                "no complete hook input on stdin within {} ms ({} bytes read)",
                STDIN_WAIT.as_millis(),
                input.len()
            );
        }
        // Readable, at its end, or failed: the read says which, without
        // blocking (poll said so).
        // Read into the input's spare room (not zeroed first).
        input.reserve(64 << 10);
        let room = input.spare_capacity_mut();
        // SAFETY: `room` is valid for writes of `room.len()` bytes.
        let n = unsafe { libc::read(libc::STDIN_FILENO, room.as_mut_ptr().cast(), room.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if matches!(e.kind(), std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock) {
                continue;
            }
            // No stdin at all reads as an empty one, as Rust's own stdin does.
            if e.raw_os_error() == Some(libc::EBADF) {
                break;
            }
            return Err(e).context("reading the hook input on stdin");
        }
        if n == 0 {
            break;
        }
        // SAFETY: read initialised the first `n` bytes of the spare room.
        unsafe { input.set_len(input.len() + n as usize) };
        if input.len() as u64 > MAX_INPUT {
            anyhow::bail!("the hook input on stdin is larger than {} KiB", MAX_INPUT >> 10);
        }
        // One whole JSON value: no need to wait for the end of the input.
        if serde_json::from_slice::<serde::de::IgnoredAny>(&input).is_ok() {
            break;
        }
    }
    String::from_utf8(input).map_err(|e| anyhow!("the hook input on stdin is not UTF-8: {e}"))
}

/// A command hook's input on stdin. Claude Code and Codex send the same
/// common fields (https://code.claude.com/docs/en/hooks, "Hook input";
/// codex-rs/hooks/src/schema.rs `SessionStartCommandInput`,
/// `StopCommandInput`, where `transcript_path` may be null).
#[derive(Deserialize)]
struct HookInput {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    hook_event_name: String,
    /// The reply that ends the turn (Stop), which the transcript may not
    /// hold yet when the hook runs.
    #[serde(default)]
    last_assistant_message: Option<String>,
}

/// Open the database for a hook: waiting at most `BUSY_WAIT`. `None`: it
/// is busy.
fn open_store(ctx: &Ctx) -> Result<Option<Store>> {
    match ctx.open_store_waiting(BUSY_WAIT) {
        Ok(s) => Ok(Some(s)),
        Err(e) if is_busy(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Keep `entry` for the next hook, capture, import or pass.
fn spool(ctx: &Ctx, entry: &Entry, why: &str) -> Result<()> {
    let dir = crate::spool::dir(&ctx.paths.state, &ctx.db_path());
    let path = crate::spool::put(&dir, entry)?;
    if ctx.verbose() > 0 {
        eprintln!("ragger: hook: {why}; spooled to {}", path.display());
    }
    Ok(())
}

/// Store turns earlier hooks spooled, while this hook has time.
fn drain(ctx: &Ctx, store: &mut Store, started: Instant) {
    if started.elapsed() >= DRAIN_FROM_BEFORE {
        return;
    }
    let dir = crate::spool::dir(&ctx.paths.state, &ctx.db_path());
    let quiet = ctx.quiet();
    let mut warn = |m: String| {
        if !quiet {
            eprintln!("ragger: hook: {m}");
        }
    };
    let limits = Limits { max_bytes: MAX_READ, max_turns: MAX_TURNS, deadline: started + DRAIN_UNTIL };
    if let Err(e) = crate::spool::drain(&ctx.config, &dir, store, Some(limits), &mut warn) {
        if !is_busy(&e) {
            warn(format!("{e:#}"));
        }
    }
}

fn claude_code(ctx: &Ctx, started: Instant) -> Result<()> {
    let input = read_stdin(started)?;
    let hook: HookInput =
        serde_json::from_str(&input).map_err(|e| anyhow!("the hook input on stdin is not Claude Code's JSON: {e}"))?;
    match hook.hook_event_name.as_str() {
        "Stop" | "SubagentStop" | "PreCompact" | "SessionEnd" => {
            let tail = match hook.hook_event_name.as_str() {
                // Nothing more will come.
                "SessionEnd" => Tail::Store,
                "Stop" => Tail::StoreWithWords,
                // Mid-turn: the main agent's turn is still running.
                _ => Tail::Hold,
            };
            // A subagent's last message is not the main agent's reply.
            let last_message = hook.last_assistant_message.clone().filter(|_| hook.hook_event_name == "Stop");
            let path = hook.transcript_path.clone().ok_or_else(|| anyhow!("the hook input has no transcript_path"))?;
            import_transcript(ctx, Format::ClaudeCode, &path, tail, hook.session_id, last_message, started)?;
        }
        "SessionStart" => session_start(ctx, hook.cwd.as_deref())?,
        _ => {}
    }
    Ok(())
}

/// Import what is new in an agent's transcript for a hook: within the
/// hook's budget, spooled when the database is busy or the rest does not
/// fit.
fn import_transcript(
    ctx: &Ctx,
    format: Format,
    path: &std::path::Path,
    tail: Tail,
    session: Option<String>,
    last_message: Option<String>,
    started: Instant,
) -> Result<()> {
    let agent = format.name();
    // A regular file only, opened without waiting, before anything else.
    let end = open_regular(path)?.metadata()?.len();
    let opts = Options {
        dry_run: false,
        max_field_bytes: ctx.config.capture.max_field_bytes,
        tail,
        fallback_session: session,
        door: crate::capture::Door::new(&ctx.config)?,
        last_message,
        limits: Some(Limits { max_bytes: MAX_READ, max_turns: MAX_TURNS, deadline: started + READ_UNTIL }),
        end: None,
    };
    // What the next run stores when this one cannot (made only then: the
    // reply is redacted for its file).
    let later = || Entry::Transcript {
        format: agent.to_string(),
        path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        tail,
        fallback_session: opts.fallback_session.clone(),
        last_message: opts.last_message.as_deref().map(|m| opts.door.redact_text(m)),
        end,
    };
    let Some(mut store) = open_store(ctx)? else {
        return spool(ctx, &later(), "the database is busy");
    };
    let quiet = ctx.quiet();
    let mut warn = |m: String| {
        if !quiet {
            crate::display::eprint(&format!("hook {agent}: {m}"));
        }
    };
    let r = match import_file(&mut store, path, format, &opts, &mut warn) {
        Ok(r) => r,
        Err(e) if is_busy(&e) => return spool(ctx, &later(), "the database is busy"),
        Err(e) => return Err(e),
    };
    if r.unread_bytes > 0 {
        spool(ctx, &later(), "the transcript is longer than a hook reads")?;
    }
    if ctx.verbose() > 0 {
        eprintln!(
            "ragger: hook {agent}: read {} bytes, stored {}, updated {}, duplicates {}",
            r.bytes_read, r.stored, r.updated, r.duplicates
        );
    }
    drain(ctx, &mut store, started);
    Ok(())
}

/// The SessionStart hook: print the memory of the project of `cwd` as
/// additional context, the JSON both agents read
/// (`hookSpecificOutput.additionalContext`); nothing when there is none.
fn session_start(ctx: &Ctx, cwd: Option<&str>) -> Result<()> {
    let Some(cwd) = cwd.map(str::trim).filter(|c| std::path::Path::new(c).is_absolute()) else {
        return Ok(());
    };
    // No database yet: nothing to remember, and a session start
    // must not create one.
    if !ctx.db_path().exists() {
        return Ok(());
    }
    // Busy: no memory this time rather than a waiting agent.
    let Some(store) = open_store(ctx)? else { return Ok(()) };
    // The project of the folder's repository (a session started in a
    // sub-folder gets its repository's memory); none stored: no memory.
    let configured = &ctx.config.import.projects;
    let Some(project) = crate::store::projects::of_folder(&store, std::path::Path::new(cwd), configured)? else {
        return Ok(());
    };
    let block = crate::context::build(&store, &project, CONTEXT_TOKENS, None)?;
    if !block.is_empty() {
        let out = serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": crate::context::markdown(&block),
            }
        });
        crate::cmd::print_json(&out)?;
    }
    Ok(())
}

/// Codex's `notify` payload for a finished turn.
#[derive(Deserialize)]
struct CodexNotify {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "thread-id", default)]
    thread_id: Option<String>,
    #[serde(rename = "turn-id", default)]
    turn_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(rename = "input-messages", default)]
    input_messages: Vec<Value>,
    #[serde(rename = "last-assistant-message", default)]
    last_assistant_message: Option<String>,
}

fn codex(ctx: &Ctx, payload: Option<&str>, started: Instant) -> Result<()> {
    let input = match payload {
        Some(p) => p.to_string(),
        None => read_stdin(started)?,
    };
    let value: Value = serde_json::from_str(&input)
        .map_err(|e| anyhow!("the input is not Codex's JSON (a notification or a hook's input): {e}"))?;
    if value.get("hook_event_name").is_some() {
        return codex_hook(ctx, value, started);
    }
    let n: CodexNotify =
        serde_json::from_value(value).map_err(|e| anyhow!("the notification is not Codex's JSON: {e}"))?;
    if n.kind != "agent-turn-complete" {
        return Ok(());
    }
    let session = n.thread_id.ok_or_else(|| anyhow!("the notification has no thread-id"))?;
    // Input messages are strings; anything else (an image, a structure) has
    // no text to keep and is counted, not stored as JSON.
    let texts: Vec<&str> = n.input_messages.iter().filter_map(Value::as_str).collect();
    let non_text = n.input_messages.len() - texts.len();
    if non_text > 0 {
        ctx.warn(&format!("hook codex: {non_text} input message(s) that are not text skipped"));
    }
    let user = texts.join("\n");
    let max = ctx.config.capture.max_field_bytes;
    let input = crate::capture::TurnInput {
        session,
        // The door finds the folder's project (repository root, configured name).
        project: n.cwd.clone(),
        user: crate::import::fit(&user, max),
        assistant: crate::import::fit(n.last_assistant_message.as_deref().unwrap_or(""), max),
        at: None,
        id: n.turn_id,
        kind: None,
    };
    let door = crate::capture::Door::new(&ctx.config)?;
    let cwd = n.cwd.as_deref().map(std::path::Path::new);
    let turn = match door.admit(input, cwd, crate::store::now_ms()).map_err(|why| anyhow!("turn refused: {why}"))? {
        crate::capture::Admitted::Turn(t) => t,
        crate::capture::Admitted::Excluded => {
            if ctx.verbose() > 0 {
                eprintln!("ragger: hook codex: excluded");
            }
            return Ok(());
        }
    };
    // No transcript to read again: if the database is busy, the turn
    // itself waits in the spool.
    let Some(mut store) = open_store(ctx)? else {
        return spool(ctx, &Entry::turn(&turn), "the database is busy");
    };
    let stored = (|| -> Result<crate::store::turns::Outcome> {
        let tx = store.write()?;
        let o = crate::store::turns::store_turn(&tx, &turn, crate::store::turns::SameKey::Grow)
            .map_err(crate::store::classify)?;
        tx.commit().map_err(crate::store::classify)?;
        Ok(o)
    })();
    let outcome = match stored {
        Ok(o) => o,
        Err(e) if is_busy(&e) => return spool(ctx, &Entry::turn(&turn), "the database is busy"),
        Err(e) => return Err(e),
    };
    if ctx.verbose() > 0 {
        let stored = u8::from(outcome == crate::store::turns::Outcome::Stored);
        let updated = u8::from(outcome == crate::store::turns::Outcome::Updated);
        eprintln!("ragger: hook codex: stored {stored}, updated {updated}");
    }
    drain(ctx, &mut store, started);
    Ok(())
}

/// One of Codex's own hooks (its input has `hook_event_name`; see
/// `crate::agents::codex_hooks`). Stop imports the rollout the hook names,
/// so a turn arrives with its tool calls, under the turn id notify uses;
/// stdout stays empty, as Codex wants of a Stop hook that lets the turn end.
fn codex_hook(ctx: &Ctx, value: Value, started: Instant) -> Result<()> {
    let hook: HookInput =
        serde_json::from_value(value).map_err(|e| anyhow!("the hook input on stdin is not Codex's JSON: {e}"))?;
    match hook.hook_event_name.as_str() {
        "Stop" => {
            // No rollout (an ephemeral session): nothing to read; notify,
            // when registered, has the turn.
            let Some(path) = hook.transcript_path.clone() else {
                if ctx.verbose() > 0 {
                    eprintln!("ragger: hook codex: Stop without a transcript_path; nothing to read");
                }
                return Ok(());
            };
            let last = hook.last_assistant_message.clone();
            import_transcript(ctx, Format::Codex, &path, Tail::StoreWithWords, hook.session_id, last, started)
        }
        "SessionStart" => session_start(ctx, hook.cwd.as_deref()),
        _ => Ok(()),
    }
}
