//! `ragger context`: the memory block for the start of an agent session.

use std::io::Write;

use anyhow::Result;

use crate::cli::ContextArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::{fail, Exit};

/// The project named by --project (a name or a folder), else the project
/// of --cwd or of the current folder (its repository's).
pub fn project_of_args(ctx: &Ctx, store: &crate::store::Store, args: &ContextArgs) -> Result<String> {
    if let Some(p) = args.project.as_deref() {
        return ctx.project(store, p);
    }
    let dir = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
    let shown = dir.display().to_string();
    let abs = crate::project::absolute(&dir.to_string_lossy(), None, &std::env::current_dir()?);
    crate::store::projects::of_folder(store, &abs, &ctx.config.import.projects)?.ok_or_else(|| {
        fail(
            Exit::Usage,
            format!("no project for folder {shown}: nothing stored from it yet; `ragger projects` lists them"),
        )
    })
}

pub fn run(ctx: &Ctx, args: &ContextArgs) -> Result<Exit> {
    let store = ctx.open_existing_store()?;
    let project = project_of_args(ctx, &store, args)?;
    let block = crate::context::build(&store, &project, args.limit_tokens, args.query.as_deref())?;
    if ctx.json() {
        print_json(&block)?;
    } else {
        // Summaries are model replies and turn text: shown, never run.
        let shown = crate::display::text(&crate::context::markdown(&block));
        std::io::stdout().lock().write_all(shown.as_bytes())?;
    }
    if block.is_empty() && ctx.verbose() > 0 {
        crate::display::eprint(&format!("no summaries yet for project {}", block.project));
    }
    Ok(Exit::Ok)
}
