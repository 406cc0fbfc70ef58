//! `ragger init`: one command from install to a working set-up. The work
//! lives in `crate::init`; this file picks the values and prints the steps.

use anyhow::{Context, Result};

use crate::cli::InitArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::init::{Pin, State, Step};
use crate::origin::absolute;

pub fn run(ctx: &Ctx, args: &InitArgs) -> Result<Exit> {
    let file = absolute(ctx.global.config.clone().unwrap_or_else(|| ctx.paths.config_file()));
    let resolved = crate::origin::resolved(ctx);
    let db = resolved.database.path.clone().expect("resolved");
    let mut pins = vec![Pin { section: "database", key: "path", value: db.clone() }];
    if let Some(p) = resolved.memory_model.model_path.clone() {
        pins.push(Pin { section: "memory_model", key: "model_path", value: absolute(p) });
    }
    if let Some(p) = resolved.embedder.model_dir.clone() {
        pins.push(Pin { section: "embedder", key: "model_dir", value: p });
    }
    if let Some(p) = resolved.embedder.runtime_path.clone() {
        pins.push(Pin { section: "embedder", key: "runtime_path", value: p });
    }
    let mut steps = crate::init::pin_config(&file, &pins, args.dry_run)?;
    steps.push(database(&db, args.dry_run)?);

    let exe = absolute(std::env::current_exe().context("finding the ragger binary")?);
    let exe = exe.canonicalize().unwrap_or(exe);
    let prefix = vec![exe.display().to_string(), "--config".to_string(), file.display().to_string()];
    let command = prefix.iter().map(|w| crate::init::shell_word(w)).collect::<Vec<_>>().join(" ") + " housekeeping";
    let line = crate::init::cron_line(&command);
    if args.cron {
        steps.push(crate::init::install_cron(&line, args.dry_run)?);
    }
    if args.systemd {
        let dirs = directories::BaseDirs::new().context("cannot find a home directory")?;
        let unit_dir = dirs.config_dir().join("systemd/user");
        steps.extend(crate::init::install_systemd(&unit_dir, &command, args.dry_run)?);
    }
    if let Some(agent) = args.agent {
        let homes = crate::agents::Homes::from_env()?;
        let wiring = crate::agents::Wiring { prefix: prefix.clone() };
        steps.extend(crate::init::wire_agent(agent, &wiring, &homes, args.dry_run)?);
    }
    // Files the pinned paths name that are not there yet.
    let missing: Vec<String> = pins
        .iter()
        .filter(|p| p.section != "database" && !p.value.exists())
        .map(|p| p.value.display().to_string())
        .collect();
    let fetch = (!missing.is_empty())
        .then(|| format!("missing: {}; fetch them with {}", missing.join(", "), crate::paths::fetch_command()));
    let changed = steps.iter().any(|s| s.state == State::Changed);
    if ctx.json() {
        print_json(&serde_json::json!({
            "dry_run": args.dry_run,
            "changed": changed,
            "config": file,
            "database": db,
            "steps": steps,
            "cron_line": line,
            "models": fetch,
        }))?;
        return Ok(Exit::Ok);
    }
    for s in &steps {
        let mark = match s.state {
            State::Changed => "",
            State::Unchanged => "ok: ",
            State::Kept => "KEPT: ",
        };
        println!("{:<9} {mark}{}", s.step, s.detail);
        if let Some(d) = &s.diff {
            print!("{d}");
        }
    }
    if let Some(f) = &fetch {
        println!("{:<9} {f}", "models");
    }
    if !changed {
        println!("nothing to change{}", if args.dry_run { "" } else { ": ragger is set up" });
    } else if args.dry_run {
        println!("(dry run: nothing was changed)");
    }
    if !args.cron && !args.systemd {
        println!();
        println!(
            "Housekeeping summarises captured turns and closes idle sessions; run it every {} minutes.",
            crate::init::PERIOD_MINUTES
        );
        println!("`ragger init --cron` adds this line to your crontab (`--systemd`: a user timer instead):");
        println!("  {line}");
    }
    if args.systemd && !args.dry_run {
        println!("To keep the timer running while you are logged out: loginctl enable-linger \"$USER\"");
    }
    Ok(Exit::Ok)
}

/// Create the database, so the read-only commands find it from now on.
fn database(db: &std::path::Path, dry_run: bool) -> Result<Step> {
    let step = |state, detail: String| Step { step: "database".into(), state, detail, diff: None };
    if db.exists() {
        return Ok(step(State::Unchanged, format!("{} exists", db.display())));
    }
    if dry_run {
        return Ok(step(State::Changed, format!("would create {}", db.display())));
    }
    crate::store::Store::open(db)?;
    Ok(step(State::Changed, format!("created {}", db.display())))
}
