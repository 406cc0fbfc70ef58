//! `ragger capture`: store turns from flags or JSON Lines on stdin.

use std::io::BufRead;

use anyhow::{Context, Result};

use crate::capture::{insert, parse_line, validate, Counts, Turn, TurnInput};
use crate::cli::CaptureArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::{fail, Exit};
use crate::store::{now_ms, Store};

/// Lines per transaction when reading stdin.
const BATCH: usize = 500;

pub fn run(ctx: &Ctx, args: &CaptureArgs) -> Result<Exit> {
    let max = ctx.config.capture.max_field_bytes;
    let now = now_ms();
    let mut counts = Counts::default();
    let mut store = ctx.open_store()?;
    let mut sessions_touched: Vec<String> = Vec::new();
    if args.stdin {
        let stdin = std::io::stdin();
        let mut reader = stdin.lock();
        let mut batch: Vec<Turn> = Vec::with_capacity(BATCH);
        let mut buf = Vec::new();
        let mut line_no = 0u64;
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf).context("reading stdin")?;
            if n == 0 {
                break;
            }
            line_no += 1;
            let line = trim_line(&buf);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match parse_line(line).and_then(|i| validate(i, max, now)) {
                Ok(t) => {
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
                store_batch(&mut store, &mut batch, &mut counts)?;
            }
        }
        store_batch(&mut store, &mut batch, &mut counts)?;
    } else {
        let input = TurnInput {
            session: args.session.clone().unwrap_or_default(),
            project: args.project.clone(),
            user: args.user.clone().unwrap_or_default(),
            assistant: args.assistant.clone().unwrap_or_default(),
            at: args.at.clone(),
            id: args.id.clone(),
        };
        let turn = validate(input, max, now).map_err(|why| fail(Exit::Failed, format!("capture refused: {why}")))?;
        sessions_touched.push(turn.session.clone());
        store_batch(&mut store, &mut vec![turn], &mut counts)?;
    }
    if ctx.json() {
        print_json(&counts)?;
    } else if ctx.verbose() > 0 {
        eprintln!("ragger: stored {}, duplicates {}, rejected {}", counts.stored, counts.duplicates, counts.rejected);
    }
    if args.summarize && counts.stored > 0 {
        for s in &sessions_touched {
            crate::cmd::summarize::summarize_session_now(ctx, &mut store, s);
        }
    }
    if !ctx.quiet() {
        if let Some(w) = crate::status::lag_warning(&store.conn, &ctx.config)? {
            eprintln!("ragger: warning: {w}");
        }
    }
    Ok(if counts.rejected > 0 { Exit::Failed } else { Exit::Ok })
}

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut b = buf;
    while let [rest @ .., b'\n' | b'\r'] = b {
        b = rest;
    }
    b
}

fn store_batch(store: &mut Store, batch: &mut Vec<Turn>, counts: &mut Counts) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let path = store.path.clone();
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    for t in batch.iter() {
        let stored = insert(&tx, t)
            .map_err(crate::store::classify)
            .with_context(|| format!("storing a turn of session {}", t.session))?;
        if stored {
            counts.stored += 1;
        } else {
            counts.duplicates += 1;
        }
    }
    tx.commit().map_err(crate::store::classify).with_context(|| format!("database {}", path.display()))?;
    batch.clear();
    Ok(())
}
