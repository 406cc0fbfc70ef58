//! `ragger doctor`: check the database, the memory model and the embedder,
//! one line each; exit 1 if any check fails.

use std::time::Instant;

use anyhow::Result;
use serde::Serialize;

use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;

#[derive(Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
}

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let mut checks = Vec::new();
    let db = ctx.db_path();
    match ctx.open_store() {
        Ok(store) => {
            let v: i64 = store.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            let violations = crate::check::check(&store.conn)?;
            checks.push(Check {
                name: "database",
                ok: violations.is_empty(),
                detail: format!("{} (schema {v}, {} invariant violation(s))", db.display(), violations.len()),
            });
        }
        Err(e) => checks.push(Check { name: "database", ok: false, detail: format!("{}: {e:#}", db.display()) }),
    }
    let m = &ctx.config.memory_model;
    let started = Instant::now();
    let answer = crate::llm::factory::from_config(&ctx.config, &ctx.paths, ctx.verbose()).and_then(|model| {
        model.preflight()?;
        Ok(model.describe())
    });
    checks.push(Check {
        name: "memory model",
        ok: answer.is_ok(),
        detail: match answer {
            Ok(d) => format!("{d}: answers ({} ms)", started.elapsed().as_millis()),
            Err(e) => format!(
                "{} {} model {:?}: {e}",
                m.backend.name(),
                crate::llm::factory::location(&ctx.config, &ctx.paths),
                m.model
            ),
        },
    });
    let opts = ctx.embed_options();
    if ctx.config.embedder.enabled {
        let started = Instant::now();
        match crate::embed::Embedder::load(&opts) {
            Ok(e) => checks.push(Check {
                name: "embedder",
                ok: true,
                detail: format!(
                    "{} in {} ({} ms to load)",
                    e.model_id(),
                    opts.model_dir.display(),
                    started.elapsed().as_millis()
                ),
            }),
            Err(e) => checks.push(Check { name: "embedder", ok: false, detail: e.to_string() }),
        }
    } else {
        checks.push(Check { name: "embedder", ok: true, detail: "disabled ([embedder] enabled = false)".into() });
    }
    let all_ok = checks.iter().all(|c| c.ok);
    if ctx.json() {
        print_json(&serde_json::json!({"ok": all_ok, "checks": checks}))?;
    } else {
        for c in &checks {
            println!("{:<4} {:<13} {}", if c.ok { "ok" } else { "FAIL" }, c.name, c.detail);
        }
    }
    Ok(if all_ok { Exit::Ok } else { Exit::Failed })
}
