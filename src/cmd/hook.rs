//! `ragger hook claude-code|codex`: the one-line wiring for coding agents.
//! Runs on every turn, so it loads no model and no embedder, and it never
//! blocks the agent: any error is one line on stderr and exit 1 (Claude
//! Code shows it as a non-blocking hook error; 2 would block), recorded in
//! the state folder for `status` and `doctor` (`crate::hook_failure`).

use std::io::Read;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use serde::Deserialize;
use serde_json::Value;

use crate::cli::{Global, HookAgent, HookArgs};
use crate::cmd::Ctx;
use crate::exit::Exit;
use crate::import::file::{import_file, Options, Tail};
use crate::import::Format;

/// The largest hook input read from stdin.
const MAX_INPUT: u64 = 1 << 20;
/// Budget of the SessionStart block.
const CONTEXT_TOKENS: usize = 1500;

pub fn run(global: Global, args: &HookArgs) -> Exit {
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
            HookAgent::ClaudeCode => claude_code(&ctx),
            HookAgent::Codex { .. } => codex(&ctx, payload.as_deref()),
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

fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin().take(MAX_INPUT).read_to_string(&mut s).context("reading the hook input on stdin")?;
    Ok(s)
}

#[derive(Deserialize)]
struct ClaudeHook {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    hook_event_name: String,
}

fn claude_code(ctx: &Ctx) -> Result<()> {
    let input = read_stdin()?;
    let hook: ClaudeHook =
        serde_json::from_str(&input).map_err(|e| anyhow!("the hook input on stdin is not Claude Code's JSON: {e}"))?;
    match hook.hook_event_name.as_str() {
        "Stop" | "SubagentStop" | "PreCompact" | "SessionEnd" => {
            let path = hook.transcript_path.ok_or_else(|| anyhow!("the hook input has no transcript_path"))?;
            let mut store = ctx.open_store()?;
            let opts = Options {
                dry_run: false,
                max_field_bytes: ctx.config.capture.max_field_bytes,
                tail: match hook.hook_event_name.as_str() {
                    // Nothing more will come.
                    "SessionEnd" => Tail::Store,
                    "Stop" => Tail::StoreWithWords,
                    // Mid-turn: the main agent's turn is still running.
                    _ => Tail::Hold,
                },
                fallback_session: hook.session_id,
                projects: ctx.config.import.projects.clone(),
                door: crate::capture::Door::new(&ctx.config)?,
            };
            let quiet = ctx.quiet();
            let mut warn = |m: String| {
                if !quiet {
                    crate::display::eprint(&format!("hook claude-code: {m}"));
                }
            };
            let r = import_file(&mut store, &path, Format::ClaudeCode, &opts, &mut warn)?;
            if ctx.verbose() > 0 {
                eprintln!(
                    "ragger: hook claude-code: read {} bytes, stored {}, duplicates {}",
                    r.bytes_read, r.stored, r.duplicates
                );
            }
        }
        "SessionStart" => {
            let projects = &ctx.config.import.projects;
            let Some(project) = hook.cwd.as_deref().and_then(|c| crate::import::project_for(c, projects)) else {
                return Ok(());
            };
            // No database yet: nothing to remember, and a session start
            // must not create one.
            if !ctx.db_path().exists() {
                return Ok(());
            }
            let store = ctx.open_store()?;
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
        }
        _ => {}
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

fn codex(ctx: &Ctx, payload: Option<&str>) -> Result<()> {
    let input = match payload {
        Some(p) => p.to_string(),
        None => read_stdin()?,
    };
    let n: CodexNotify =
        serde_json::from_str(&input).map_err(|e| anyhow!("the notification is not Codex's JSON: {e}"))?;
    if n.kind != "agent-turn-complete" {
        return Ok(());
    }
    let session = n.thread_id.ok_or_else(|| anyhow!("the notification has no thread-id"))?;
    let user = n
        .input_messages
        .iter()
        .map(|m| match m {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let max = ctx.config.capture.max_field_bytes;
    let input = crate::capture::TurnInput {
        session,
        project: n.cwd.as_deref().and_then(|c| crate::import::project_for(c, &ctx.config.import.projects)),
        user: crate::import::fit(&user, max),
        assistant: crate::import::fit(n.last_assistant_message.as_deref().unwrap_or(""), max),
        at: None,
        id: n.turn_id,
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
    let mut store = ctx.open_store()?;
    let tx = store.write()?;
    let stored = crate::capture::insert(&tx, &turn).map_err(crate::store::classify)?;
    tx.commit().map_err(crate::store::classify)?;
    if ctx.verbose() > 0 {
        eprintln!("ragger: hook codex: stored {}", u8::from(stored));
    }
    Ok(())
}
