//! Hybrid retrieval over turn summaries (L2), session/project summaries
//! (L3/L4) and the raw turns themselves (L1): FTS5 BM25 candidates and
//! exact cosine over the stored vectors of the current model find the
//! candidates; each is scored on absolute scales, blended with the
//! `[search]` weights: its cosine with the query, and the share of the
//! query's words (stopwords aside, compared by stem) that its text holds
//! ([`coverage`]; a raw turn also holds the month and year it was said).
//! A score thus means the same in every query (no per-query rescaling,
//! which made the best of bad candidates look good), and
//! `[search] min_score` tells "no match" from a weak hit. BM25 only breaks
//! ties. A raw turn that matches is rolled up to the L3
//! segment that holds it, shown as that hit's evidence, so an identifier a
//! summary dropped still leads to its segment and session.
//!
//! A summary's share of the query's words counts half
//! ([`SUMMARY_WORDS_WEIGHT`]): it holds the words of many turns.
//!
//! A raw turn is read with the turn said before it in its session: a
//! turn answers or goes on from that one ("They love dinosaurs" after
//! "What do your kids like?"), so a query word that only the previous turn
//! holds counts [`PREVIOUS_TURN_WEIGHT`] of one the turn holds itself, and
//! the turn after a keyword match is a candidate too.
//!
//! Turn summaries (L2) are hits only when `--level 2` asks for them: an L2
//! is a one-sentence view of a turn whose own words and vector are
//! searched anyway, and as a second, vaguer copy of the same turn it
//! pushed other sessions' turns out of the first results (measured:
//! BENCHMARKS.md, "Memory quality").

mod score;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
// The derive names `schemars`: rmcp's, for the MCP `search` output schema.
use rmcp::schemars;
use serde::Serialize;

use crate::store::embeddings::{self, Kind};
use crate::store::search::{self as rows, Content, Found};
use crate::store::Store;
use score::{coverage_in_context, dot_blob, query_terms, stem, stems};

pub use crate::store::search::Filters;
pub use score::is_stopword;

#[derive(Clone, Copy, Debug)]
pub struct Weights {
    pub vector: f64,
    pub keyword: f64,
    /// Candidates scoring below this are no hit (0: keep every candidate).
    pub min_score: f64,
}

/// The query vector and the model that made it; only vectors of that
/// model are compared.
pub struct QueryVector<'a> {
    pub vector: &'a [f32],
    pub model: &'a str,
}

/// One result; the JSON shape is documented (`ragger search --json`).
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct Hit {
    /// Turn id for levels 1 and 2, summary id for levels 3 and 4.
    pub id: i64,
    pub level: u8,
    /// The session's external id (None for level 4).
    pub session: Option<String>,
    pub project: Option<String>,
    /// `first-last` turn ids (level 2: `id-id`; level 4: the folded L3 ids).
    pub episode_range: Option<String>,
    pub score: f64,
    pub content: String,
    /// Identifiers and names of the summary's turns (levels 3 and 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_terms: Option<String>,
    /// The captured turn whose own words matched, when the hit was found
    /// through it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// When the work happened: the turn's time (levels 1, 2), the time of
    /// the last turn a summary covers (3, 4; its last update while it
    /// covers none): ms in memory, RFC 3339 UTC in JSON.
    #[serde(serialize_with = "crate::when::serialize_utc")]
    #[schemars(with = "String")]
    pub at: i64,
}

/// A raw turn that a hit was found through.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct Evidence {
    pub turn_id: i64,
    /// The turn's text (user, then assistant), cut to a few lines.
    pub text: String,
}

/// Characters of a turn shown as evidence.
const EVIDENCE_CHARS: usize = 400;

/// Results and what it took, for `-v`.
#[derive(Debug, Default)]
pub struct Outcome {
    pub hits: Vec<Hit>,
    pub vectors_scanned: usize,
    pub vector_time: Duration,
    pub keyword_time: Duration,
    pub keyword_matches: usize,
    /// The best score of any candidate, below `min_score` or not (`-v`).
    pub best_score: Option<f64>,
}

type Key = (Kind, i64);

#[derive(Default, Clone, Copy)]
struct Scores {
    vector: Option<f64>,
    keyword: Option<f64>,
}

/// What a query word found only in the turn before a raw turn counts,
/// against 1 for a word of the turn's own (chosen by measurement:
/// BENCHMARKS.md, "Memory quality"; 0.2 to 0.5 gave the same gain).
pub const PREVIOUS_TURN_WEIGHT: f64 = 0.3;

/// What the share of the query's words counts in a summary (L3, L4),
/// against 1 in a raw turn. A summary holds the words of many turns, so its
/// share rewards breadth: on LoCoMo conv-26, session digests that named
/// both speakers again and again ranked above the turn that answered
/// ("How many children does Melanie have?"). Its turns are candidates of
/// their own and roll up to it, so it is still found through them, and by
/// its vector. Measured with `scripts/bench/search_ablation.py` on three
/// builds' databases: recall@5 0.910–0.931 → 0.944, mean reciprocal rank
/// 0.780–0.799 → 0.799 (BENCHMARKS.md, stop 60).
pub const SUMMARY_WORDS_WEIGHT: f64 = 0.5;

/// Candidates taken from each side before blending.
fn pool(limit: usize) -> usize {
    (limit * 5).max(100)
}

/// The user's words as an FTS5 query: each term quoted (so `AND`, `*`,
/// `col:` and quotes are plain text), any term may match, BM25 ranks.
/// None when there is nothing to look for.
pub fn fts_query(text: &str) -> Option<String> {
    rows::fts_any(text.split_whitespace().filter(|t| t.chars().any(char::is_alphanumeric)))
}

pub fn search(
    store: &Store,
    text: &str,
    query: Option<QueryVector<'_>>,
    filters: &Filters,
    weights: Weights,
    limit: usize,
) -> Result<Outcome> {
    let mut out = Outcome::default();
    if limit == 0 {
        return Ok(out);
    }
    let k = pool(limit);
    let mut cands: HashMap<Key, Scores> = HashMap::new();

    let t = Instant::now();
    if let Some(q) = fts_query(text) {
        let found = rows::keyword_candidates(store, &q, filters, k).context("keyword search")?;
        for (key, rank) in &found {
            // bm25() is lower-is-better.
            cands.entry(*key).or_default().keyword = Some(-rank);
            out.keyword_matches += 1;
        }
        // The turn after a matching turn may be about its words too.
        for ((kind, id), _) in found {
            if kind == Kind::Turn {
                if let Some(next) = rows::next_turn(store, id)? {
                    cands.entry((Kind::Turn, next)).or_default();
                }
            }
        }
    }
    out.keyword_time = t.elapsed();

    let t = Instant::now();
    if let Some(q) = &query {
        let (top, scanned) = vector_candidates(store, q, filters, k).context("vector search")?;
        out.vectors_scanned = scanned;
        for (key, cos) in top {
            cands.entry(key).or_default().vector = Some(cos);
        }
        // Keyword hits outside the vector top-k still get their cosine.
        let missing: Vec<Key> = cands.iter().filter(|(_, s)| s.vector.is_none()).map(|(k, _)| *k).collect();
        for key in missing {
            if let Some(cos) = cosine_of(store, key, q)? {
                cands.get_mut(&key).expect("candidate").vector = Some(cos);
            }
        }
    }
    out.vector_time = t.elapsed();

    let words = query_terms(text);
    let mut ranked: Vec<(Key, f64, f64)> = Vec::with_capacity(cands.len());
    for (key, s) in &cands {
        let (have, before) = keyword_stems(store, *key)?;
        let mut kw = coverage_in_context(&words, &have, &before, PREVIOUS_TURN_WEIGHT);
        if key.0 == Kind::Summary {
            kw *= SUMMARY_WORDS_WEIGHT;
        }
        let score = if query.is_some() {
            weights.vector * s.vector.map_or(0.0, |c| c.clamp(0.0, 1.0)) + weights.keyword * kw
        } else {
            kw
        };
        ranked.push((*key, score, s.keyword.unwrap_or(0.0)));
    }
    out.best_score = ranked.iter().map(|r| r.1).reduce(f64::max);
    ranked.retain(|r| r.1 >= weights.min_score);
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.total_cmp(&a.2)).then(b.0 .1.cmp(&a.0 .1)));
    // Best first: a raw turn stands for the segment that holds it (when
    // summaries are wanted), and each result appears once.
    let mut seen: Vec<Key> = Vec::new();
    for (key, score, _) in ranked {
        if out.hits.len() >= limit {
            break;
        }
        let (target, evidence) = match key.0 {
            Kind::Turn => match (rows::segment_of(store, key.1)?, filters.level) {
                (Some(l3), l) if l != Some(1) => ((Kind::Summary, l3), Some(key.1)),
                // Asked for segments only: a turn not yet in one is no hit.
                (None, Some(3)) => continue,
                _ => (key, None),
            },
            _ => (key, None),
        };
        if seen.contains(&target) {
            if let (Some(turn), Some(hit)) = (evidence, out.hits.iter_mut().find(|h| h.level >= 3 && h.id == target.1))
            {
                if hit.evidence.is_none() {
                    hit.evidence = evidence_of(store, turn)?;
                }
            }
            continue;
        }
        seen.push(target);
        if let Some(mut hit) = rows::found(store, target.0, target.1)?.map(to_hit) {
            hit.score = score;
            if let Some(turn) = evidence {
                hit.evidence = evidence_of(store, turn)?;
            }
            out.hits.push(hit);
        }
    }
    Ok(out)
}

/// The stems a candidate's keyword score looks for the query's words in:
/// its text, and for a raw turn also the month and year it was said in
/// (local time), so "camping in June" finds the turn about camping that
/// was captured in June; then, for a raw turn, the stems of the turn said
/// before it (its context; empty for other rows).
fn keyword_stems(store: &Store, key: Key) -> Result<(HashSet<String>, HashSet<String>)> {
    let (text, at) = rows::text_of(store, key.0, key.1)?;
    let mut have = stems(&text);
    if let Some(at) = at {
        have.extend(date_words(at).iter().map(|w| stem(w)));
    }
    let before = match key.0 {
        Kind::Turn => rows::previous_turn_text(store, key.1)?.map(|t| stems(&t)).unwrap_or_default(),
        _ => HashSet::new(),
    };
    Ok((have, before))
}

/// The month (lower-cased English name) and year of a time in ms, local.
fn date_words(at: i64) -> Vec<String> {
    use chrono::TimeZone;
    match chrono::Local.timestamp_millis_opt(at).single() {
        Some(t) => vec![t.format("%B").to_string().to_lowercase(), t.format("%Y").to_string()],
        None => Vec::new(),
    }
}

fn evidence_of(store: &Store, turn: i64) -> Result<Option<Evidence>> {
    Ok(rows::turn_words(store, turn)?.map(|(u, a)| Evidence { turn_id: turn, text: turn_excerpt(&u, &a) }))
}

/// A hit (scored later) for the row behind a candidate.
fn to_hit(f: Found) -> Hit {
    let content = match f.content {
        Content::Text(t) => t,
        Content::Turn { user, assistant } => turn_excerpt(&user, &assistant),
    };
    Hit {
        id: f.id,
        level: f.level,
        session: f.session,
        project: f.project,
        episode_range: f.episode_range,
        score: 0.0,
        content,
        key_terms: f.key_terms,
        evidence: None,
        at: f.at,
    }
}

/// A turn's text as a hit shows it.
fn turn_excerpt(user: &str, assistant: &str) -> String {
    crate::text::cut(&format!("User: {}\nAssistant: {}", user.trim(), assistant.trim()), EVIDENCE_CHARS)
}

/// Exact cosine against every stored vector of the query's model that
/// passes the filters; returns the best `k` and how many were compared.
fn vector_candidates(store: &Store, q: &QueryVector<'_>, f: &Filters, k: usize) -> Result<(Vec<(Key, f64)>, usize)> {
    let mut scored: Vec<(Key, f32)> = Vec::new();
    let mut scanned = 0;
    for kind in Kind::ALL {
        if !f.wants(kind) {
            continue;
        }
        scanned += rows::scan(store, kind, q.model, f, |id, blob| {
            if let Some(cos) = dot_blob(q.vector, blob) {
                scored.push(((kind, id), cos));
            }
        })?;
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
    }
    Ok((scored.into_iter().map(|(key, s)| (key, s as f64)).collect(), scanned))
}

fn cosine_of(store: &Store, key: Key, q: &QueryVector<'_>) -> Result<Option<f64>> {
    let blob = embeddings::vector_blob(store, key.0, key.1, q.model)?;
    Ok(blob.and_then(|b| dot_blob(q.vector, &b)).map(f64::from))
}

#[cfg(test)]
mod tests;
