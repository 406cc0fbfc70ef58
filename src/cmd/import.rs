//! `ragger import FORMAT PATH…`: store the new turns of transcript files.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::ImportArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::import::file::{import_file, Options, Tail};
use crate::import::Report;

pub fn run(ctx: &Ctx, args: &ImportArgs) -> Result<Exit> {
    let mut files = Vec::new();
    let mut failed = false;
    for p in &args.paths {
        if p.is_dir() {
            if let Err(e) = jsonl_files(p, &mut files) {
                crate::display::eprint(&format!("{}: {e}", p.display()));
                failed = true;
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut store = ctx.open_store()?;
    let opts = Options {
        dry_run: args.dry_run,
        max_field_bytes: ctx.config.capture.max_field_bytes,
        tail: Tail::Store,
        fallback_session: None,
        projects: ctx.config.import.projects.clone(),
        door: crate::capture::Door::new(&ctx.config)?,
    };
    let bar = (ctx.progress_allowed() && files.len() > 1).then(|| {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut total = Report::default();
    let quiet = ctx.quiet();
    let mut warn = |m: String| {
        if !quiet {
            crate::display::eprint(&m);
        }
    };
    for f in &files {
        match import_file(&mut store, f, args.format, &opts, &mut warn) {
            Ok(r) => total.add(&r),
            Err(e) => {
                crate::display::eprint(&format!("{e:#}"));
                failed = true;
            }
        }
        if let Some(b) = &bar {
            b.set_message(format!("{} turns stored", total.stored));
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if ctx.json() {
        print_json(&total)?;
    } else if args.dry_run {
        println!(
            "would store {} turns ({} already stored) from {} files; {} records skipped, {} malformed lines",
            total.stored,
            total.duplicates,
            total.files,
            total.skipped_total(),
            total.malformed
        );
    } else if ctx.verbose() > 0 {
        let skipped: Vec<String> = total.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
        eprintln!(
            "ragger: {} files, {} turns: stored {}, duplicates {}, rejected {}, malformed lines {}, skipped records {}{}",
            total.files,
            total.turns,
            total.stored,
            total.duplicates,
            total.rejected,
            total.malformed,
            total.skipped_total(),
            if skipped.is_empty() { String::new() } else { format!(" ({})", skipped.join(", ")) }
        );
    }
    Ok(if failed || total.rejected > 0 || total.malformed > 0 { Exit::Failed } else { Exit::Ok })
}

/// Every *.jsonl file (and zstd-compressed *.jsonl.zst) under `dir`, sorted.
fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            jsonl_files(&p, out)?;
        } else if p.file_name().is_some_and(|n| {
            let n = n.to_string_lossy();
            n.ends_with(".jsonl") || n.ends_with(".jsonl.zst")
        }) {
            out.push(p);
        }
    }
    Ok(())
}
