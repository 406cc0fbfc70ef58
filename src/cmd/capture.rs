//! `ragger capture`: store turns from flags or JSON Lines on stdin.

use std::io::{BufRead, Read};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::capture::{parse_line, Admitted, Counts, Door, Turn, TurnInput};
use crate::cli::CaptureArgs;
use crate::cmd::{print_json, Ctx};
use crate::exclude::ignore_file;
use crate::exit::{fail, Exit};
use crate::store::{now_ms, Store};

/// Lines per transaction when reading stdin.
const BATCH: usize = 500;
/// The most time a capture gives to turns hooks spooled.
const SPOOL_DRAIN: std::time::Duration = std::time::Duration::from_millis(500);

pub fn run(ctx: &Ctx, args: &CaptureArgs) -> Result<Exit> {
    let max = ctx.config.capture.max_field_bytes;
    let now = now_ms();
    let mut counts = Counts::default();
    let door = Door::new(&ctx.config)?;
    // A folder marked `.ragger-ignore` is never captured: read what was
    // sent (so a hook's pipe does not break), store nothing, exit 0.
    if let Some(marker) = std::env::current_dir().ok().and_then(|d| ignore_file(&d)) {
        counts.excluded = if args.stdin { count_lines(std::io::stdin().lock())? } else { 1 };
        return report(ctx, &counts, Some(&marker)).map(|_| Exit::Ok);
    }
    let mut store = ctx.open_store()?;
    let mut sessions_touched: Vec<String> = Vec::new();
    // Sessions a turn tried to move to another project: (session, kept, asked).
    let mut moved: Vec<(String, String, String)> = Vec::new();
    let stdin_files =
        [&args.user_file, &args.assistant_file].iter().filter(|f| f.as_deref() == Some("-".as_ref())).count();
    if stdin_files > 1 {
        return Err(fail(Exit::Usage, "only one of --user-file and --assistant-file can be `-` (stdin)"));
    }
    if args.stdin {
        let stdin = std::io::stdin();
        let mut reader = stdin.lock();
        let mut batch: Vec<Turn> = Vec::with_capacity(BATCH);
        let mut buf = Vec::new();
        let mut line_no = 0u64;
        let limit = max_line_bytes(max);
        loop {
            buf.clear();
            // Never buffer more of a line than a valid one can be.
            let n = (&mut reader).take(limit as u64 + 1).read_until(b'\n', &mut buf).context("reading stdin")?;
            if n == 0 {
                break;
            }
            line_no += 1;
            if buf.len() > limit && buf.last() != Some(&b'\n') {
                skip_line(&mut reader).context("reading stdin")?;
                counts.rejected += 1;
                eprintln!(
                    "ragger: stdin line {line_no}: longer than {limit} bytes (4 × [capture] max_field_bytes + 64 KiB)"
                );
                continue;
            }
            let line = trim_line(&buf);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match parse_line(line).and_then(|i| prepare(i, &door, now, &mut counts, true)) {
                Ok(None) => {}
                Ok(Some(t)) => {
                    if args.summarize && !sessions_touched.contains(&t.session) {
                        sessions_touched.push(t.session.clone());
                    }
                    batch.push(t)
                }
                Err(why) => {
                    counts.rejected += 1;
                    eprintln!("ragger: stdin line {line_no}: {why}");
                }
            }
            if batch.len() >= BATCH {
                store_batch(&mut store, &mut batch, &mut counts, &mut moved)?;
            }
        }
        store_batch(&mut store, &mut batch, &mut counts, &mut moved)?;
    } else {
        // A bad flag value is a usage error (exit 2), as for every --since.
        if let Some(at) = args.at.as_deref().filter(|s| !s.trim().is_empty()) {
            crate::store::parse_time(at).map_err(|e| fail(Exit::Usage, format!("--at: {e}")))?;
        }
        let input = TurnInput {
            session: args.session.clone().unwrap_or_default(),
            project: args.project.clone(),
            user: text_arg(&args.user, &args.user_file, "--user-file", max)?,
            assistant: text_arg(&args.assistant, &args.assistant_file, "--assistant-file", max)?,
            at: args.at.clone(),
            id: args.id.clone(),
            kind: None,
        };
        let turn = prepare(input, &door, now, &mut counts, false)
            .map_err(|why| fail(Exit::Failed, format!("capture refused: {why}")))?;
        if let Some(turn) = turn {
            sessions_touched.push(turn.session.clone());
            store_batch(&mut store, &mut vec![turn], &mut counts, &mut moved)?;
        }
    }
    // Turns hooks spooled while the database was busy, in a bounded time.
    crate::cmd::drain_spool_until(ctx, &mut store, Some(std::time::Instant::now() + SPOOL_DRAIN));
    report(ctx, &counts, None)?;
    for (session, kept, asked) in &moved {
        ctx.warn(&format!(
            "warning: session {session} belongs to project {kept}; project {asked} ignored (a session keeps its first project)"
        ));
    }
    if args.summarize && counts.stored > 0 && ctx.partial_config {
        ctx.warn("warning: --summarize skipped: the config has an error (above); the turn waits for the next pass");
    } else if args.summarize && counts.stored > 0 {
        let env = crate::cmd::summarize::pass_env(ctx);
        for s in &sessions_touched {
            crate::pipeline::pass::summarize_session_now(&env, &mut store, s);
        }
    }
    if !ctx.quiet() {
        if let Some(w) = crate::status::lag_warning(&store, crate::pipeline::options::pause_ms(&ctx.config))? {
            eprintln!("ragger: warning: {w}");
        }
    }
    Ok(if counts.rejected > 0 { Exit::Failed } else { Exit::Ok })
}

/// A text given inline or in a file (`-`: stdin). A file is read up to one
/// byte past `max` bytes, so an oversized one is refused by `validate`
/// without being read whole.
fn text_arg(inline: &Option<String>, file: &Option<PathBuf>, flag: &str, max: usize) -> Result<String> {
    let Some(path) = file else { return Ok(inline.clone().unwrap_or_default()) };
    let mut bytes = Vec::new();
    let limit = max as u64 + 1;
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .with_context(|| format!("{flag}: reading stdin"))?;
    } else {
        let f = std::fs::File::open(path).with_context(|| format!("{flag} {}", path.display()))?;
        f.take(limit).read_to_end(&mut bytes).with_context(|| format!("{flag} {}", path.display()))?;
    }
    if bytes.len() > max {
        return Err(fail(
            Exit::Failed,
            format!("capture refused: {flag} {} is larger than [capture] max_field_bytes ({max})", path.display()),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|e| fail(Exit::Failed, format!("capture refused: {flag} {}: not valid UTF-8 ({e})", path.display())))
}

/// The longest JSON line read from stdin: both texts at `max_field_bytes`,
/// room for escapes, plus the other fields.
fn max_line_bytes(max_field_bytes: usize) -> usize {
    max_field_bytes.saturating_mul(4).saturating_add(64 << 10)
}

/// Read and drop the rest of a line, a buffer at a time.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
}

/// One turn through the capture door; `Ok(None)`: excluded.
/// A turn through the door; `line`: from a JSON line (a turn without `id`
/// gets a derived key, see `capture::derived_key`).
fn prepare(input: TurnInput, door: &Door, now: i64, counts: &mut Counts, line: bool) -> Result<Option<Turn>, String> {
    let admitted = if line { door.admit_line(input, None, now)? } else { door.admit(input, None, now)? };
    match admitted {
        Admitted::Excluded => {
            counts.excluded += 1;
            Ok(None)
        }
        Admitted::Turn(turn) => {
            counts.redactions += turn.redactions as u64;
            Ok(Some(turn))
        }
    }
}

fn report(ctx: &Ctx, counts: &Counts, marker: Option<&std::path::Path>) -> Result<()> {
    if ctx.json() {
        print_json(counts)?;
    } else if ctx.verbose() > 0 {
        let why = marker.map(|m| format!(" ({} found)", m.display())).unwrap_or_default();
        eprintln!(
            "ragger: stored {}, duplicates {}, rejected {}, excluded {}{why}, secrets redacted {}",
            counts.stored, counts.duplicates, counts.rejected, counts.excluded, counts.redactions
        );
    }
    Ok(())
}

/// Non-blank lines on stdin, read to the end.
fn count_lines(mut r: impl BufRead) -> Result<u64> {
    let mut n = 0;
    let mut buf = Vec::new();
    while r.read_until(b'\n', &mut buf).context("reading stdin")? > 0 {
        if !buf.iter().all(u8::is_ascii_whitespace) {
            n += 1;
        }
        buf.clear();
    }
    Ok(n)
}

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut b = buf;
    while let [rest @ .., b'\n' | b'\r'] = b {
        b = rest;
    }
    b
}

fn store_batch(
    store: &mut Store,
    batch: &mut Vec<Turn>,
    counts: &mut Counts,
    moved: &mut Vec<(String, String, String)>,
) -> Result<()> {
    let r = crate::store::turns::store_batch(store, batch)?;
    counts.stored += r.stored;
    counts.duplicates += r.duplicates;
    for m in r.moved {
        if !moved.iter().any(|(s, _, a)| s == &m.0 && a == &m.2) {
            moved.push(m);
        }
    }
    batch.clear();
    Ok(())
}
