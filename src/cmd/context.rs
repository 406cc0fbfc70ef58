//! `ragger context`: the memory block for the start of an agent session.

use std::io::Write;

use anyhow::Result;

use crate::cli::ContextArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::{fail, Exit};

/// The project named by --project, else by the last folder of --cwd or of
/// the current folder.
pub fn project_of_args(ctx: &Ctx, args: &ContextArgs) -> Result<String> {
    if let Some(p) = args.project.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        return Ok(p.to_string());
    }
    let dir = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
    crate::import::project_for(&dir.to_string_lossy(), &ctx.config.import.projects)
        .ok_or_else(|| fail(Exit::Usage, format!("no project name in {}; pass --project", dir.display())))
}

pub fn run(ctx: &Ctx, args: &ContextArgs) -> Result<Exit> {
    let project = project_of_args(ctx, args)?;
    let store = ctx.open_existing_store()?;
    let block = crate::context::build(&store, &project, args.limit_tokens, args.query.as_deref())?;
    if ctx.json() {
        print_json(&block)?;
    } else {
        // Summaries are model replies and turn text: shown, never run.
        let shown = crate::display::text(&crate::context::markdown(&block));
        std::io::stdout().lock().write_all(shown.as_bytes())?;
    }
    if block.is_empty() && ctx.verbose() > 0 {
        crate::display::eprint(&format!("no summaries yet for project {project}"));
    }
    Ok(Exit::Ok)
}
