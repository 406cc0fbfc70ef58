//! `ragger search`: hybrid (meaning + keyword) search over summaries.
//! Falls back to keyword-only, with a warning, when the embedder cannot be
//! used; loads nothing when the database holds no vector of the current model.

use std::time::Instant;

use anyhow::Result;

use crate::cli::SearchArgs;
use crate::cmd::{print_json, Ctx};
use crate::display;
use crate::embed::{index, Embedder};
use crate::exit::{fail, Exit};
use crate::search::{self, Filters, Hit, QueryVector, Weights};
use crate::store::{embeddings, Store};

pub fn run(ctx: &Ctx, args: &SearchArgs) -> Result<Exit> {
    let text = args.query.join(" ");
    if crate::search::fts_query(&text).is_none() {
        return Err(fail(
            Exit::Usage,
            format!("nothing to search for in {text:?}: give a word or two (ragger search QUERY)"),
        ));
    }
    let since = match &args.since {
        Some(s) => Some(
            crate::when::parse_since(s, chrono::Local::now())
                .map_err(|e| fail(Exit::Usage, format!("--since: {e}")))?,
        ),
        None => None,
    };
    let filters = Filters { level: args.level, session: args.session.clone(), project: None, since };
    let store = ctx.open_existing_store()?;
    let filters = Filters { project: ctx.project_opt(&store, args.project.as_deref())?, ..filters };
    let mut weights = weights(ctx);
    if let Some(m) = args.min_score {
        weights.min_score = m;
    }

    let started = Instant::now();
    let query = query_vector(ctx, &store, &text)?;
    let embed_time = started.elapsed();
    let qv = query.as_ref().map(|(v, m)| QueryVector { vector: v, model: m });
    let outcome = search::search(&store, &text, qv, &filters, weights, args.limit)?;
    if ctx.verbose() > 0 {
        eprintln!(
            "ragger: search: query vector {} ms; {} vectors compared in {} ms; {} keyword matches in {} ms",
            embed_time.as_millis(),
            outcome.vectors_scanned,
            outcome.vector_time.as_millis(),
            outcome.keyword_matches,
            outcome.keyword_time.as_millis()
        );
    }
    if outcome.hits.is_empty() && !ctx.quiet() {
        // On stderr: stdout stays a (here empty) list of results.
        match outcome.best_score {
            Some(best) => eprintln!(
                "ragger: no match for {:?} (best score {best:.3}, below [search] min_score {:.2})",
                display::line(&text),
                weights.min_score
            ),
            None => eprintln!("ragger: no match for {:?}", display::line(&text)),
        }
    }
    if ctx.json() {
        print_json(&outcome.hits)?;
    } else {
        print!("{}", render(&outcome.hits));
    }
    Ok(Exit::Ok)
}

/// Search as `ragger search` does, for other front ends (`ragger mcp`).
pub fn find(ctx: &Ctx, store: &Store, text: &str, filters: &Filters, limit: usize) -> Result<Vec<Hit>> {
    let weights = weights(ctx);
    let query = query_vector(ctx, store, text)?;
    let qv = query.as_ref().map(|(v, m)| QueryVector { vector: v, model: m });
    Ok(search::search(store, text, qv, filters, weights, limit)?.hits)
}

fn weights(ctx: &Ctx) -> Weights {
    let s = &ctx.config.search;
    Weights { vector: s.vector_weight, keyword: s.keyword_weight, min_score: s.min_score }
}

/// The query's vector and model id, or None for keyword-only search.
fn query_vector(ctx: &Ctx, store: &Store, text: &str) -> Result<Option<(Vec<f32>, String)>> {
    if !ctx.config.embedder.enabled {
        return Ok(None);
    }
    let opts = ctx.embed_options();
    let any_vector = || embeddings::any_vector(store, None);
    let Some(model) = index::model_id_for(&opts) else {
        if any_vector()? {
            ctx.warn(&format!(
                "embedder model missing in {}; searching by keyword only (run {})",
                opts.model_dir.display(),
                crate::paths::fetch_command()
            ));
        }
        return Ok(None);
    };
    let has_current = embeddings::any_vector(store, Some(&model))?;
    if !has_current {
        if any_vector()? {
            ctx.warn("the stored vectors were made by another embedding model; searching by keyword only (run `ragger reembed`)");
        }
        return Ok(None);
    }
    let vector = Embedder::load(&opts).and_then(|mut e| e.embed(&[text]));
    match vector {
        Ok(mut v) => Ok(v.pop().map(|v| (v, model))),
        Err(e) => {
            ctx.warn(&format!("{e}; searching by keyword only"));
            Ok(None)
        }
    }
}

/// One block per result: a header line (score, level, session, episode
/// range, time, project) and the text indented below it.
/// Text from the database is shown with its control characters made
/// visible, in columns no wider than `display::MAX_COLUMN`.
fn render(hits: &[Hit]) -> String {
    let sessions: Vec<String> = hits.iter().map(|h| display::line(h.session.as_deref().unwrap_or("-"))).collect();
    let ranges: Vec<String> = hits.iter().map(|h| display::line(h.episode_range.as_deref().unwrap_or("-"))).collect();
    let session_w = display::column_width(sessions.iter().map(String::as_str), 1);
    let range_w = display::column_width(ranges.iter().map(String::as_str), 1);
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut header = format!(
            "{:.3}  L{}  {:<session_w$}  {:<range_w$}  {}",
            h.score,
            h.level,
            sessions[i],
            ranges[i],
            crate::when::local(h.at),
        );
        if let Some(p) = &h.project {
            header.push_str("  ");
            header.push_str(&display::line(p));
        }
        out.push_str(&display::heading(header.trim_end()));
        out.push('\n');
        for line in display::text(&h.content).lines() {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
        }
        if let Some(terms) = &h.key_terms {
            out.push_str(&format!("    key terms: {}\n", display::line(terms)));
        }
        if let Some(e) = &h.evidence {
            out.push_str(&format!("    found in turn {}:\n", e.turn_id));
            for line in display::text(&e.text).lines() {
                out.push_str("      ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_aligns_headers_and_indents_text() {
        let hit = |id: i64, session: &str, range: &str| Hit {
            id,
            level: 3,
            session: Some(session.into()),
            project: None,
            episode_range: Some(range.into()),
            score: 0.5,
            content: "line one\nline two".into(),
            at: 0,
            key_terms: None,
            evidence: None,
        };
        let text = render(&[hit(1, "long-session", "1-9"), hit(2, "s", "10-120")]);
        let t = crate::when::local(0);
        assert_eq!(
            text,
            format!(
                "0.500  L3  long-session  1-9     {t}\n    line one\n    line two\n\n\
                 0.500  L3  s             10-120  {t}\n    line one\n    line two\n"
            )
        );
    }
}
