//! `ragger embed`: vectors of texts as JSON Lines `{"text", "embedding"}`,
//! for scripts and to check the model.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cli::EmbedArgs;
use crate::cmd::Ctx;
use crate::embed::Embedder;
use crate::exit::{fail, Exit};

/// Lines read from stdin before they are embedded and printed, so a long
/// stream starts producing output early and memory stays flat.
const CHUNK: usize = 1024;

#[derive(Serialize)]
struct Line<'a> {
    text: &'a str,
    embedding: &'a [f32],
}

pub fn run(ctx: &Ctx, args: &EmbedArgs) -> Result<Exit> {
    if args.text.is_empty() && !args.stdin {
        return Err(fail(Exit::Usage, "nothing to embed: give TEXT arguments or --stdin"));
    }
    let opts = ctx.embed_options();
    let mut embedder = Embedder::load(&opts)?;
    if ctx.verbose() > 0 {
        eprintln!(
            "ragger: loaded {} with {} in {} ms",
            embedder.model_id(),
            embedder.runtime_path().display(),
            embedder.load_time().as_millis()
        );
    }
    let started = std::time::Instant::now();
    let mut count = args.text.len();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    emit(&mut embedder, &mut out, &args.text)?;
    if args.stdin {
        let mut chunk = Vec::with_capacity(CHUNK);
        for line in std::io::stdin().lock().lines() {
            chunk.push(line.context("reading stdin")?);
            if chunk.len() == CHUNK {
                count += chunk.len();
                emit(&mut embedder, &mut out, &chunk)?;
                chunk.clear();
            }
        }
        count += chunk.len();
        emit(&mut embedder, &mut out, &chunk)?;
    }
    out.flush()?;
    if ctx.verbose() > 0 {
        eprintln!("ragger: embedded {count} texts in {} ms", started.elapsed().as_millis());
    }
    Ok(Exit::Ok)
}

fn emit(embedder: &mut Embedder, out: &mut impl Write, texts: &[String]) -> Result<()> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs)?;
    for (text, v) in refs.iter().zip(&vectors) {
        serde_json::to_writer(&mut *out, &Line { text, embedding: v })?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
