//! `ragger status`: counts of sessions, turns and pending work.

use anyhow::Result;

use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let store = ctx.open_existing_store()?;
    let model = crate::embed::index::model_id_for(&ctx.embed_options());
    let unembedded = crate::store::embeddings::unembedded(&store, model.as_deref())?;
    let s = crate::status::status(&store, unembedded)?;
    let hook_failure = crate::hook_failure::last(&ctx.paths.state);
    if ctx.json() {
        let mut v = serde_json::to_value(&s)?;
        v["last_hook_failure"] = serde_json::to_value(&hook_failure)?;
        return print_json(&v).map(|_| Exit::Ok);
    }
    let last = match &s.last_run {
        None => "never".to_string(),
        Some(r) => {
            format!("{} ({})", crate::when::local_of(&r.started), r.outcome.as_deref().unwrap_or("running or killed"))
        }
    };
    let oldest = s.oldest_pending_seconds.map(|x| format!("{x} s")).unwrap_or_else(|| "-".into());
    let rows: [(&str, String); 14] = [
        ("sessions open", s.rows.sessions_open.to_string()),
        ("sessions closed", s.rows.sessions_closed.to_string()),
        ("turns", s.rows.turns.to_string()),
        ("pending L2", s.rows.pending_l2.to_string()),
        ("pending L3", s.rows.pending_l3.to_string()),
        ("pending L4", s.rows.pending_l4.to_string()),
        ("summaries running", s.rows.summaries_running.to_string()),
        ("summaries complete", s.rows.summaries_complete.to_string()),
        ("failed", if s.failed > 0 { format!("{} (see `ragger failed`)", s.failed) } else { "0".into() }),
        // Rows wait for a vector only while the embedder is on.
        (
            "unembedded",
            if ctx.config.embedder.enabled {
                s.unembedded.to_string()
            } else {
                format!("{} (embedder disabled)", s.unembedded)
            },
        ),
        ("oldest pending", oldest),
        ("secrets redacted", s.redactions.to_string()),
        ("last run", last),
        ("last hook failure", hook_failure.as_ref().map_or_else(|| "none".into(), crate::hook_failure::describe)),
    ];
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{}{v}\n", crate::display::heading(&format!("{k:<20}"))));
    }
    print!("{out}");
    Ok(Exit::Ok)
}
