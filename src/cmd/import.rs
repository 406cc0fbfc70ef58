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
            for e in jsonl_files(p, &mut files) {
                crate::display::eprint(&e);
                failed = true;
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut store = ctx.open_store()?;
    if !args.dry_run {
        crate::cmd::drain_spool(ctx, &mut store);
    }
    let opts = Options {
        dry_run: args.dry_run,
        max_field_bytes: ctx.config.capture.max_field_bytes,
        tail: Tail::Store,
        fallback_session: None,
        door: crate::capture::Door::new(&ctx.config)?,
        last_message: None,
        limits: None,
        end: None,
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
            "ragger: {} files, {} turns: stored {}, duplicates {}, updated {}, forgotten {}, rejected {}, malformed lines {}, skipped records {}{}",
            total.files,
            total.turns,
            total.stored,
            total.duplicates,
            total.updated,
            total.forgotten,
            total.rejected,
            total.malformed,
            total.skipped_total(),
            if skipped.is_empty() { String::new() } else { format!(" ({})", skipped.join(", ")) }
        );
    }
    Ok(if failed || total.rejected > 0 || total.malformed > 0 { Exit::Failed } else { Exit::Ok })
}

/// Every regular *.jsonl file (and zstd-compressed *.jsonl.zst) under `dir`, sorted, each once: links to
/// folders are not followed (a link to `.` would loop), a link to a file
/// counts as that file, FIFOs and devices are passed over. Returns the
/// folders that could not be read, one line each.
fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) -> Vec<String> {
    let mut seen: std::collections::HashSet<PathBuf> = out.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let mut errors = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(false).sort_by_file_name() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let at = e.path().unwrap_or(dir).display().to_string();
                errors.push(format!("{at}: {}", e.io_error().map_or_else(|| e.to_string(), |io| io.to_string())));
                continue;
            }
        };
        let p = entry.path();
        let wanted = p.file_name().is_some_and(|n| {
            let n = n.to_string_lossy();
            n.ends_with(".jsonl") || n.ends_with(".jsonl.zst")
        });
        if !wanted {
            continue;
        }
        // A link is followed only to a regular file (metadata follows it).
        let regular = if entry.path_is_symlink() {
            std::fs::metadata(p).is_ok_and(|m| m.is_file())
        } else {
            entry.file_type().is_file()
        };
        if regular && p.canonicalize().is_ok_and(|real| seen.insert(real)) {
            out.push(p.to_path_buf());
        }
    }
    errors
}
