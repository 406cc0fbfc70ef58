//! `ragger export`: turns and summaries as Markdown or JSON Lines.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::{ExportArgs, ExportFormat};
use crate::cmd::Ctx;
use crate::exit::{fail, Exit};
use crate::export::{jsonl, markdown, Filter};
use crate::forget::parse_date;

pub fn run(ctx: &Ctx, args: &ExportArgs) -> Result<Exit> {
    let since = match &args.since {
        Some(s) => Some(parse_date(s).map_err(|e| fail(Exit::Usage, format!("--since: {e}")))?),
        None => None,
    };
    let store = ctx.open_existing_store()?;
    let project = ctx.project_opt(&store, args.project.as_deref())?;
    let filter = Filter { session: args.session.clone(), project, since };
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            crate::paths::create_private_file(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        // JSON Lines is exact; Markdown is for reading, on a terminal too.
        None if matches!(args.format, ExportFormat::Markdown) => {
            Box::new(crate::display::Visible(std::io::BufWriter::new(std::io::stdout().lock())))
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let (n, what) = match args.format {
        ExportFormat::Jsonl => (jsonl(&store, &filter, &mut out)?, "turns"),
        ExportFormat::Markdown => (markdown(&store, &filter, args.turns, &mut out)?, "sessions"),
    };
    out.flush().context("writing the export")?;
    if ctx.verbose() > 0 {
        eprintln!("ragger: exported {n} {what}");
    }
    Ok(Exit::Ok)
}
