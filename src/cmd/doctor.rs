//! `ragger doctor`: prove, don't guess. Names the database and how its path
//! was chosen, the last pass and the failed items, the last hook failure,
//! the wiring (each agent's hooks and MCP server naming this binary, the
//! housekeeping schedule), each missing piece with the command that fixes
//! it; runs one tiny completion on the memory model and embeds one text,
//! each timed. Exit 1 if any check fails. It never creates a missing
//! database.

use std::time::Instant;

use anyhow::Result;
use serde::Serialize;

use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::llm::{Message, Request};
use crate::store::now_ms;

/// A last pass older than two periods of the schedule `ragger init` sets
/// up means the schedule is not running.
const PERIOD_MINUTES: i64 = crate::init::PERIOD_MINUTES as i64;

#[derive(Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    /// Time the check took (model load plus one completion; embedder load
    /// plus one text), when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    ms: Option<u128>,
}

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let mut checks = Vec::new();
    let (db, origin) = ctx.db_origin();
    let mut database = serde_json::json!({"path": db, "origin": origin, "exists": db.exists()});
    if !db.exists() {
        checks.push(Check {
            name: "database",
            ok: false,
            detail: format!("no database at {} ({origin}); capture a turn or run `ragger init`", db.display()),
            ms: None,
        });
    } else {
        match ctx.open_store() {
            Ok(store) => {
                let v = crate::store::status::schema_version(&store)?;
                let violations = crate::store::check::check(&store)?;
                checks.push(Check {
                    name: "database",
                    ok: violations.is_empty(),
                    detail: format!(
                        "{} ({origin}; schema {v}, {} invariant violation(s))",
                        db.display(),
                        violations.len()
                    ),
                    ms: None,
                });
                let (pass, failed) = pass_and_failures(&store)?;
                checks.push(pass.check);
                checks.push(Check {
                    name: "failed items",
                    ok: true,
                    detail: format!("{} turn summaries, {} project folds", failed.0, failed.1),
                    ms: None,
                });
                database["last_pass"] = pass.json;
                database["failed"] = serde_json::json!({"turn_summaries": failed.0, "project_folds": failed.1});
            }
            Err(e) => checks.push(Check {
                name: "database",
                ok: false,
                detail: format!("{} ({origin}): {e:#}", db.display()),
                ms: None,
            }),
        }
    }
    checks.push(last_hook(ctx));
    checks.extend(wiring(database.get("last_pass")));
    checks.push(memory_model(ctx));
    checks.push(embedder(ctx));
    let all_ok = checks.iter().all(|c| c.ok);
    if ctx.json() {
        print_json(&serde_json::json!({"ok": all_ok, "database": database, "checks": checks}))?;
    } else {
        for c in &checks {
            let ms = c.ms.map(|ms| format!(" ({ms} ms)")).unwrap_or_default();
            // The detail quotes the server (model names, error bodies).
            println!("{:<4} {:<13} {}{ms}", if c.ok { "ok" } else { "FAIL" }, c.name, crate::display::line(&c.detail));
        }
    }
    Ok(if all_ok { Exit::Ok } else { Exit::Failed })
}

struct Pass {
    check: Check,
    json: serde_json::Value,
}

/// The last pass (time, kind, outcome) and the counts of failed items
/// (turn summaries, project folds). A tick with nothing to do records no
/// pass, only its stamp in the run lock: the schedule is stale when
/// neither a pass nor a tick is newer than two periods.
fn pass_and_failures(store: &crate::store::Store) -> Result<(Pass, (i64, i64))> {
    let failed = crate::store::queue::failed(store)?;
    let last = crate::store::runs::last(store)?.map(|r| (r.kind, r.started, r.outcome));
    // Only a tick after the last pass says more than the pass does.
    let tick = crate::lock::last_tick(&store.path).filter(|t| last.as_ref().is_none_or(|(_, started, _)| t > started));
    let minutes_ago = |ms: i64| (now_ms() - ms).max(0) / 60_000;
    let newest = tick.or(last.as_ref().map(|l| l.1));
    let stale = newest.is_some_and(|t| minutes_ago(t) > 2 * PERIOD_MINUTES);
    let hint = if stale { "; is cron running `ragger housekeeping`? see `ragger init`" } else { "" };
    let since = match (tick, &last) {
        (Some(t), Some(_)) => format!("; ticks since had nothing to do, the last {} minutes ago", minutes_ago(t)),
        (Some(t), None) => format!("; ticks had nothing to do, the last {} minutes ago", minutes_ago(t)),
        (None, _) => String::new(),
    };
    let tick_json = tick.map(|t| serde_json::json!({"at": crate::store::fmt_time(t), "minutes_ago": minutes_ago(t)}));
    let pass = match last {
        None => Pass {
            check: Check {
                name: "last pass",
                ok: !stale,
                detail: if tick.is_some() {
                    format!("none yet{since}{hint}")
                } else {
                    "none yet (is cron running `ragger housekeeping`? see `ragger init`)".into()
                },
                ms: None,
            },
            json: match tick_json {
                Some(t) => serde_json::json!({"kind": null, "started": null, "minutes_ago": null, "outcome": null,
                                              "stale": stale, "last_tick": t}),
                None => serde_json::Value::Null,
            },
        },
        Some((kind, started, outcome)) => {
            let minutes = minutes_ago(started);
            let outcome_text = outcome.clone().unwrap_or_else(|| "still running or killed".into());
            Pass {
                check: Check {
                    name: "last pass",
                    ok: !stale && outcome.as_deref().is_none_or(|o| o == "ok"),
                    detail: format!(
                        "{kind} {} ({minutes} minutes ago): {outcome_text}{since}{hint}",
                        crate::store::fmt_time(started)
                    ),
                    ms: None,
                },
                json: serde_json::json!({
                    "kind": kind, "started": crate::store::fmt_time(started),
                    "minutes_ago": minutes, "outcome": outcome, "stale": stale, "last_tick": tick_json,
                }),
            }
        }
    };
    Ok((pass, failed))
}

/// Load the memory model and run one tiny completion.
fn memory_model(ctx: &Ctx) -> Check {
    let m = &ctx.config.memory_model;
    let started = Instant::now();
    let request = Request {
        messages: vec![Message::user("Reply with the single word OK.")],
        temperature: 0.0,
        max_tokens: 8,
        stop: vec![],
        settled: None,
        vocabulary: None,
    };
    let answer = crate::llm::factory::from_config(&ctx.config, &ctx.paths, ctx.verbose()).and_then(|model| {
        model.preflight()?;
        let reply = model.generate(&request)?;
        Ok((model.describe(), reply.text))
    });
    let ms = Some(started.elapsed().as_millis());
    match answer {
        Ok((d, text)) => Check {
            name: "memory model",
            ok: true,
            detail: format!("{d}: answered {:?}", crate::llm::truncate_for_message(text.trim(), 40)),
            ms,
        },
        Err(e) => {
            let location = crate::llm::factory::location(&ctx.config, &ctx.paths);
            let hint = if m.backend == crate::config::Backend::Local && !e.to_string().contains("fetch-models") {
                format!("; fetch the default model again with {}", crate::paths::fetch_command())
            } else {
                String::new()
            };
            Check {
                name: "memory model",
                ok: false,
                detail: format!("{} {location} model {:?}: {e}{hint}", m.backend.name(), m.model),
                ms,
            }
        }
    }
}

/// Load the embedder and embed one text.
fn embedder(ctx: &Ctx) -> Check {
    if !ctx.config.embedder.enabled {
        return Check { name: "embedder", ok: true, detail: "disabled ([embedder] enabled = false)".into(), ms: None };
    }
    let opts = ctx.embed_options();
    let started = Instant::now();
    let result = crate::embed::Embedder::load(&opts).and_then(|mut e| {
        let v = e.embed(&["ragger doctor"])?;
        Ok((e.model_id().to_string(), v.first().map_or(0, Vec::len)))
    });
    let ms = Some(started.elapsed().as_millis());
    match result {
        Ok((id, dim)) => Check {
            name: "embedder",
            ok: dim > 0,
            detail: format!("{id} in {}: embedded one text ({dim} dimensions)", opts.model_dir.display()),
            ms,
        },
        Err(e) => Check { name: "embedder", ok: false, detail: e.to_string(), ms },
    }
}

/// The last hook failure (`crate::hook_failure`): a failure no hook has
/// worked since fails the check.
fn last_hook(ctx: &Ctx) -> Check {
    match crate::hook_failure::last(&ctx.paths.state) {
        None => Check { name: "last hook", ok: true, detail: "no failure recorded".into(), ms: None },
        Some(f) => Check {
            name: "last hook",
            ok: f.recovered_at.is_some(),
            detail: format!("failed {}", crate::hook_failure::describe(&f)),
            ms: None,
        },
    }
}

/// Each agent's wiring and the housekeeping schedule. An agent whose folder
/// is not there is not installed; one without any of ragger's entries is
/// not wired (said, not failed: the user may not use it); ragger's entries
/// that are missing, or name another binary or a missing config, fail.
fn wiring(last_pass: Option<&serde_json::Value>) -> Vec<Check> {
    let mut checks = Vec::new();
    let exe = std::env::current_exe().map(crate::origin::absolute).map(|e| e.canonicalize().unwrap_or(e));
    let homes = crate::agents::Homes::from_env();
    let (exe, homes) = match (exe, homes) {
        (Ok(e), Ok(h)) => (e, h),
        (Err(e), _) => {
            checks.push(Check { name: "wiring", ok: false, detail: format!("finding this binary: {e}"), ms: None });
            return checks;
        }
        (_, Err(e)) => {
            checks.push(Check { name: "wiring", ok: false, detail: format!("{e:#}"), ms: None });
            return checks;
        }
    };
    let wiring = crate::agents::Wiring { prefix: vec![exe.display().to_string()] };
    let agents: [(&'static str, &str, bool, crate::agents::Found); 2] = [
        (
            "claude code",
            "claude-code",
            homes.claude_dir.exists() || homes.claude_json.exists(),
            crate::agents::claude::check(&homes.claude_settings(), &homes.claude_json, &wiring),
        ),
        {
            let installed = homes.codex_dir.exists();
            // Which hooks to expect depends on the Codex installed: ask it
            // only when there is a Codex folder.
            let support = crate::agents::codex_hooks::Support::of(
                installed.then(crate::agents::codex_hooks::installed_version).flatten(),
            );
            (
                "codex",
                "codex",
                installed,
                crate::agents::codex::check(&homes.codex_config(), &homes.codex_hooks(), &wiring, support),
            )
        },
    ];
    for (name, arg, installed, found) in agents {
        let fix = format!("`ragger init --agent {arg}`");
        let check = if !installed {
            Check { name, ok: true, detail: "not installed (no settings folder)".into(), ms: None }
        } else if !found.any {
            Check { name, ok: true, detail: format!("not wired to ragger; {fix} wires it"), ms: None }
        } else if !found.problems.is_empty() || !found.todo.is_empty() {
            let mut parts = Vec::new();
            if !found.problems.is_empty() {
                parts.push(format!("{}; {fix} fixes it", found.problems.join("; ")));
            }
            parts.extend(found.todo);
            parts.extend(found.notes);
            Check { name, ok: false, detail: parts.join("; "), ms: None }
        } else {
            let notes = found.notes.iter().map(|n| format!("; {n}")).collect::<String>();
            Check { name, ok: true, detail: format!("{} run this binary{notes}", found.ok.join(", ")), ms: None }
        };
        checks.push(check);
    }
    let ran = match last_pass.filter(|p| !p.is_null()) {
        Some(p) if !p["last_tick"].is_null() => {
            format!("; the last tick ran {} minutes ago", p["last_tick"]["minutes_ago"])
        }
        Some(p) => format!("; the last pass started {} minutes ago", p["minutes_ago"]),
        None => "; no pass has run yet".into(),
    };
    let check = match schedule() {
        Some(how) => Check { name: "schedule", ok: true, detail: format!("{how}{ran}"), ms: None },
        None => Check {
            name: "schedule",
            ok: false,
            detail: format!(
                "no crontab line or systemd timer runs `ragger housekeeping`; `ragger init --cron` (or `--systemd`) installs one{ran}"
            ),
            ms: None,
        },
    };
    checks.push(check);
    checks
}

/// How housekeeping is scheduled: the crontab line, or the enabled timer.
fn schedule() -> Option<String> {
    use std::process::{Command, Stdio};
    let out = Command::new("crontab").arg("-l").stdin(Stdio::null()).stderr(Stdio::null()).output();
    if let Some(out) = out.ok().filter(|o| o.status.success()) {
        let table = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = table
            .lines()
            .map(str::trim)
            .find(|l| !l.starts_with('#') && l.contains("ragger") && l.contains("housekeeping"));
        if let Some(l) = line {
            return Some(format!("crontab: {l}"));
        }
    }
    let out = Command::new("systemctl")
        .args(["--user", "is-enabled", crate::init::TIMER])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "enabled" => {
            Some(format!("systemd user timer {} is enabled", crate::init::TIMER))
        }
        _ => None,
    }
}
