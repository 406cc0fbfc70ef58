//! `ragger reembed`: recompute vectors made by another embedding model (and
//! any missing ones). Commits batch by batch, so an interrupted run resumes.

use anyhow::Result;

use crate::cli::ReembedArgs;
use crate::cmd::{print_json, Ctx};
use crate::embed::{index, LazyEmbedder};
use crate::exit::{fail, Exit};

pub fn run(ctx: &Ctx, args: &ReembedArgs) -> Result<Exit> {
    let opts = ctx.embed_options();
    let mut store = ctx.open_store()?;
    if args.dry_run {
        let model = index::model_id_for(&opts);
        let stale = crate::store::embeddings::unembedded(&store, model.as_deref())?;
        if ctx.json() {
            print_json(&serde_json::json!({ "stale": stale }))?;
        } else {
            println!("{stale}");
        }
        return Ok(Exit::Ok);
    }
    if !ctx.config.embedder.enabled {
        return Err(fail(Exit::Config, "the embedder is disabled ([embedder] enabled = false)"));
    }
    let mut slot = LazyEmbedder::new();
    let n = index::reembed(&mut store, &opts, &mut slot, ctx.progress_allowed())?;
    if ctx.json() {
        print_json(&serde_json::json!({ "embedded": n }))?;
    } else if ctx.verbose() > 0 {
        eprintln!("ragger: {n} vectors computed");
    }
    Ok(Exit::Ok)
}
