//! Hybrid retrieval over turn summaries (L2), session/project summaries
//! (L3/L4) and the raw turns themselves (L1): FTS5 BM25 candidates and
//! exact cosine over the stored vectors of the current model find the
//! candidates; each is scored on absolute scales, blended with the
//! `[search]` weights: its cosine with the query, and the share of the
//! query's words (stopwords aside) that its text holds ([`coverage`]).
//! A score thus means the same in every query (no per-query rescaling,
//! which made the best of bad candidates look good), and
//! `[search] min_score` tells "no match" from a weak hit. BM25 only breaks
//! ties. A raw turn that matches is rolled up to the L3
//! segment that holds it, shown as that hit's evidence, so an identifier a
//! summary dropped still leads to its segment and session.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

/// Restrictions from the command line; None means any.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    pub level: Option<u8>,
    /// `sessions.external_id`.
    pub session: Option<String>,
    pub project: Option<String>,
    /// Milliseconds: L2 by turn time, L3/L4 by last update.
    pub since: Option<i64>,
}

impl Filters {
    fn any(&self) -> bool {
        self.session.is_some() || self.project.is_some() || self.since.is_some()
    }
    fn wants(&self, kind: Kind) -> bool {
        match (kind, self.level) {
            (_, None) => true,
            (Kind::L2, Some(l)) => l == 2,
            (Kind::Summary, Some(l)) => l >= 3,
            (Kind::Turn, Some(l)) => l == 1 || l == 3,
        }
    }
}

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
#[derive(Clone, Debug, Serialize, PartialEq)]
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
    /// Turn time (levels 1, 2) or last update (3, 4): ms in memory,
    /// RFC 3339 UTC in JSON.
    #[serde(serialize_with = "crate::when::serialize_utc")]
    pub at: i64,
}

/// A raw turn that a hit was found through.
#[derive(Clone, Debug, Serialize, PartialEq)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    L2,
    Summary,
    /// A raw turn (L1).
    Turn,
}

type Key = (Kind, i64);

#[derive(Default, Clone, Copy)]
struct Scores {
    vector: Option<f64>,
    keyword: Option<f64>,
}

/// Candidates taken from each side before blending.
fn pool(limit: usize) -> usize {
    (limit * 5).max(100)
}

/// The user's words as an FTS5 query: each term quoted (so `AND`, `*`,
/// `col:` and quotes are plain text), any term may match, BM25 ranks.
/// None when there is nothing to look for.
pub fn fts_query(text: &str) -> Option<String> {
    let terms: Vec<String> = text
        .split_whitespace()
        .filter(|t| t.chars().any(char::is_alphanumeric))
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

pub fn search(
    conn: &Connection,
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
        for (key, rank) in keyword_candidates(conn, &q, filters, k).context("keyword search")? {
            // bm25() is lower-is-better.
            cands.entry(key).or_default().keyword = Some(-rank);
            out.keyword_matches += 1;
        }
    }
    out.keyword_time = t.elapsed();

    let t = Instant::now();
    if let Some(q) = &query {
        let (top, scanned) = vector_candidates(conn, q, filters, k).context("vector search")?;
        out.vectors_scanned = scanned;
        for (key, cos) in top {
            cands.entry(key).or_default().vector = Some(cos);
        }
        // Keyword hits outside the vector top-k still get their cosine.
        let missing: Vec<Key> = cands.iter().filter(|(_, s)| s.vector.is_none()).map(|(k, _)| *k).collect();
        for key in missing {
            if let Some(cos) = cosine_of(conn, key, q)? {
                cands.get_mut(&key).expect("candidate").vector = Some(cos);
            }
        }
    }
    out.vector_time = t.elapsed();

    let words = query_terms(text);
    let mut ranked: Vec<(Key, f64, f64)> = Vec::with_capacity(cands.len());
    for (key, s) in &cands {
        let kw = coverage(&words, &text_of(conn, *key)?);
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
            Kind::Turn => match (segment_of(conn, key.1)?, filters.level) {
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
                    hit.evidence = evidence_of(conn, turn)?;
                }
            }
            continue;
        }
        seen.push(target);
        if let Some(mut hit) = details(conn, target)? {
            hit.score = score;
            if let Some(turn) = evidence {
                hit.evidence = evidence_of(conn, turn)?;
            }
            out.hits.push(hit);
        }
    }
    Ok(out)
}

/// The L3 segment a turn was folded into.
fn segment_of(conn: &Connection, turn: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT l3_id FROM turns WHERE id = ?1")?
        .query_row([turn], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .flatten())
}

fn evidence_of(conn: &Connection, turn: i64) -> Result<Option<Evidence>> {
    Ok(conn
        .prepare_cached("SELECT user_text, assistant_text FROM turns WHERE id = ?1")?
        .query_row([turn], |r| {
            let (u, a): (String, String) = (r.get(0)?, r.get(1)?);
            Ok(Evidence { turn_id: turn, text: turn_excerpt(&u, &a) })
        })
        .optional()?)
}

/// A turn's text as a hit shows it.
fn turn_excerpt(user: &str, assistant: &str) -> String {
    crate::pipeline::prompts::cut(&format!("User: {}\nAssistant: {}", user.trim(), assistant.trim()), EVIDENCE_CHARS)
}

/// Words too common to say what a query is about.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "does", "for", "from", "how", "i", "in", "is", "it",
    "its", "me", "my", "of", "on", "or", "so", "that", "the", "this", "to", "was", "we", "what", "when", "where",
    "which", "who", "why", "with", "you",
];

/// Words of a text as the FTS5 `unicode61` tokenizer splits them: runs of
/// letters and digits, lower-cased.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// The query's distinct words, stopwords aside.
fn query_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(text) {
        if !STOPWORDS.contains(&w.as_str()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The share of `terms` that occur as words of `text`: 0 to 1, the same
/// scale in every query (0 when the query has only stopwords).
fn coverage(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let have: std::collections::HashSet<String> = words(text).collect();
    terms.iter().filter(|t| have.contains(*t)).count() as f64 / terms.len() as f64
}

/// The text a candidate's words are looked for in.
fn text_of(conn: &Connection, key: Key) -> Result<String> {
    let sql = match key.0 {
        Kind::L2 => "SELECT coalesce(l2, '') FROM turns WHERE id = ?1",
        Kind::Summary => "SELECT content || ' ' || coalesce(key_terms, '') FROM summaries WHERE id = ?1",
        Kind::Turn => "SELECT user_text || ' ' || assistant_text FROM turns WHERE id = ?1",
    };
    Ok(conn.prepare_cached(sql)?.query_row([key.1], |r| r.get::<_, String>(0)).optional()?.unwrap_or_default())
}

fn keyword_candidates(conn: &Connection, q: &str, f: &Filters, k: usize) -> Result<Vec<(Key, f64)>> {
    let mut out = Vec::new();
    let args = params![q, f.session, f.project, f.since, k as i64, f.level];
    if f.wants(Kind::L2) {
        let mut stmt = conn.prepare_cached(
            "SELECT l2_fts.rowid, bm25(l2_fts) AS rank
             FROM l2_fts JOIN turns t ON t.id = l2_fts.rowid JOIN sessions s ON s.id = t.session_id
             WHERE l2_fts MATCH ?1
               AND (?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR s.project = ?3)
               AND (?4 IS NULL OR t.at >= ?4) AND (?6 IS NULL OR ?6 = 2)
             ORDER BY rank LIMIT ?5",
        )?;
        let rows = stmt.query_map(args, |r| Ok(((Kind::L2, r.get(0)?), r.get(1)?)))?;
        for row in rows {
            out.push(row?);
        }
    }
    if f.wants(Kind::Summary) {
        let mut stmt = conn.prepare_cached(
            "SELECT summaries_fts.rowid, bm25(summaries_fts) AS rank
             FROM summaries_fts JOIN summaries m ON m.id = summaries_fts.rowid
                  LEFT JOIN sessions s ON s.id = m.session_id
             WHERE summaries_fts MATCH ?1
               AND (?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR coalesce(m.project, s.project) = ?3)
               AND (?4 IS NULL OR m.updated_at >= ?4) AND (?6 IS NULL OR m.level = ?6)
             ORDER BY rank LIMIT ?5",
        )?;
        let rows = stmt.query_map(args, |r| Ok(((Kind::Summary, r.get(0)?), r.get(1)?)))?;
        for row in rows {
            out.push(row?);
        }
    }
    if f.wants(Kind::Turn) {
        let mut stmt = conn.prepare_cached(
            "SELECT turns_fts.rowid, bm25(turns_fts) AS rank
             FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
             WHERE turns_fts MATCH ?1
               AND (?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR s.project = ?3)
               AND (?4 IS NULL OR t.at >= ?4) AND (?6 IS NULL OR ?6 IN (1, 3))
             ORDER BY rank LIMIT ?5",
        )?;
        let rows = stmt.query_map(args, |r| Ok(((Kind::Turn, r.get(0)?), r.get(1)?)))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}

/// Exact cosine against every stored vector of the query's model that
/// passes the filters; returns the best `k` and how many were compared.
fn vector_candidates(
    conn: &Connection,
    q: &QueryVector<'_>,
    f: &Filters,
    k: usize,
) -> Result<(Vec<(Key, f64)>, usize)> {
    let mut scored: Vec<(Key, f32)> = Vec::new();
    let mut scanned = 0;
    for kind in [Kind::L2, Kind::Summary, Kind::Turn] {
        if !f.wants(kind) {
            continue;
        }
        // Without filters, a plain range scan of the table; joins only when needed.
        let join = f.any() || (kind != Kind::L2 && f.level.is_some());
        let sql = match (kind, join) {
            (Kind::L2, false) => {
                "SELECT row_id, vector FROM embeddings WHERE kind = 'l2' AND model = ?1
                   AND ?2 IS NULL AND ?3 IS NULL AND ?4 IS NULL AND ?5 IS NULL"
            }
            (Kind::Summary, false) => {
                "SELECT row_id, vector FROM embeddings WHERE kind = 'summary' AND model = ?1
                   AND ?2 IS NULL AND ?3 IS NULL AND ?4 IS NULL AND ?5 IS NULL"
            }
            (Kind::L2, true) => {
                "SELECT e.row_id, e.vector FROM embeddings e
                   JOIN turns t ON t.id = e.row_id JOIN sessions s ON s.id = t.session_id
                 WHERE e.kind = 'l2' AND e.model = ?1
                   AND (?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR s.project = ?3)
                   AND (?4 IS NULL OR t.at >= ?4) AND (?5 IS NULL OR ?5 = 2)"
            }
            (Kind::Summary, true) => {
                "SELECT e.row_id, e.vector FROM embeddings e
                   JOIN summaries m ON m.id = e.row_id LEFT JOIN sessions s ON s.id = m.session_id
                 WHERE e.kind = 'summary' AND e.model = ?1
                   AND (?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR coalesce(m.project, s.project) = ?3)
                   AND (?4 IS NULL OR m.updated_at >= ?4) AND (?5 IS NULL OR m.level = ?5)"
            }
            (Kind::Turn, false) => {
                "SELECT row_id, vector FROM embeddings WHERE kind = 'turn' AND model = ?1
                   AND ?2 IS NULL AND ?3 IS NULL AND ?4 IS NULL AND ?5 IS NULL"
            }
            (Kind::Turn, true) => {
                "SELECT e.row_id, e.vector FROM embeddings e
                   JOIN turns t ON t.id = e.row_id JOIN sessions s ON s.id = t.session_id
                 WHERE e.kind = 'turn' AND e.model = ?1
                   AND (?2 IS NULL OR s.external_id = ?2) AND (?3 IS NULL OR s.project = ?3)
                   AND (?4 IS NULL OR t.at >= ?4) AND (?5 IS NULL OR ?5 IN (1, 3))"
            }
        };
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query(params![q.model, f.session, f.project, f.since, f.level])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let blob = row.get_ref(1)?.as_blob()?;
            scanned += 1;
            if let Some(cos) = dot_blob(q.vector, blob) {
                scored.push(((kind, id), cos));
            }
        }
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
    }
    Ok((scored.into_iter().map(|(key, s)| (key, s as f64)).collect(), scanned))
}

/// Dot product of a unit query with a stored little-endian f32 unit vector
/// (= cosine); None when the lengths differ.
fn dot_blob(q: &[f32], blob: &[u8]) -> Option<f32> {
    if blob.len() != q.len() * 4 {
        return None;
    }
    // Four accumulators let the compiler vectorise.
    let mut acc = [0f32; 4];
    for (qs, bs) in q.chunks_exact(4).zip(blob.chunks_exact(16)) {
        for i in 0..4 {
            let b = f32::from_le_bytes([bs[4 * i], bs[4 * i + 1], bs[4 * i + 2], bs[4 * i + 3]]);
            acc[i] += qs[i] * b;
        }
    }
    let mut sum = acc.iter().sum::<f32>();
    let tail = q.len() / 4 * 4;
    for (qv, bs) in q[tail..].iter().zip(blob[tail * 4..].chunks_exact(4)) {
        sum += qv * f32::from_le_bytes([bs[0], bs[1], bs[2], bs[3]]);
    }
    Some(sum)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::L2 => "l2",
        Kind::Summary => "summary",
        Kind::Turn => "turn",
    }
}

fn cosine_of(conn: &Connection, key: Key, q: &QueryVector<'_>) -> Result<Option<f64>> {
    let mut stmt =
        conn.prepare_cached("SELECT vector FROM embeddings WHERE kind = ?1 AND row_id = ?2 AND model = ?3")?;
    let blob: Option<Vec<u8>> = stmt.query_row(params![kind_name(key.0), key.1, q.model], |r| r.get(0)).optional()?;
    Ok(blob.and_then(|b| dot_blob(q.vector, &b)).map(f64::from))
}

fn details(conn: &Connection, key: Key) -> Result<Option<Hit>> {
    let hit = match key.0 {
        Kind::L2 => conn
            .prepare_cached(
                "SELECT t.id, t.l2, t.at, s.external_id, s.project
                 FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?1 AND t.l2 IS NOT NULL",
            )?
            .query_row([key.1], |r| {
                let id: i64 = r.get(0)?;
                Ok(Hit {
                    id,
                    level: 2,
                    content: r.get(1)?,
                    at: r.get(2)?,
                    session: r.get(3)?,
                    project: r.get(4)?,
                    episode_range: Some(format!("{id}-{id}")),
                    score: 0.0,
                    key_terms: None,
                    evidence: None,
                })
            })
            .optional()?,
        Kind::Turn => conn
            .prepare_cached(
                "SELECT t.id, t.user_text, t.assistant_text, t.at, s.external_id, s.project
                 FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?1",
            )?
            .query_row([key.1], |r| {
                let id: i64 = r.get(0)?;
                let (u, a): (String, String) = (r.get(1)?, r.get(2)?);
                Ok(Hit {
                    id,
                    level: 1,
                    content: turn_excerpt(&u, &a),
                    at: r.get(3)?,
                    session: r.get(4)?,
                    project: r.get(5)?,
                    episode_range: Some(format!("{id}-{id}")),
                    score: 0.0,
                    key_terms: None,
                    evidence: None,
                })
            })
            .optional()?,
        Kind::Summary => conn
            .prepare_cached(
                "SELECT m.id, m.level, m.content, m.updated_at, s.external_id, coalesce(m.project, s.project),
                        CASE m.level WHEN 3 THEN m.first_turn_id ELSE m.first_l3_id END,
                        CASE m.level WHEN 3 THEN m.last_turn_id ELSE m.last_l3_id END, m.key_terms
                 FROM summaries m LEFT JOIN sessions s ON s.id = m.session_id WHERE m.id = ?1",
            )?
            .query_row([key.1], |r| {
                let first: Option<i64> = r.get(6)?;
                let last: Option<i64> = r.get(7)?;
                Ok(Hit {
                    id: r.get(0)?,
                    level: r.get(1)?,
                    content: r.get(2)?,
                    at: r.get(3)?,
                    session: r.get(4)?,
                    project: r.get(5)?,
                    episode_range: first.map(|f| format!("{f}-{}", last.unwrap_or(f))),
                    score: 0.0,
                    key_terms: r.get::<_, String>(8).ok().filter(|k| !k.is_empty()),
                    evidence: None,
                })
            })
            .optional()?,
    };
    Ok(hit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{vector_to_blob, Store};

    #[test]
    fn fts_query_quotes_every_term() {
        assert_eq!(fts_query("  "), None);
        assert_eq!(fts_query("- * ()"), None);
        assert_eq!(fts_query("sqlite lock").unwrap(), r#""sqlite" OR "lock""#);
        assert_eq!(fts_query(r#"a"b NEAR(x) col:y AND"#).unwrap(), r#""a""b" OR "NEAR(x)" OR "col:y" OR "AND""#);
    }

    #[test]
    fn dot_blob_matches_a_plain_dot_product() {
        let q: Vec<f32> = (0..7).map(|i| i as f32 * 0.1).collect();
        let v: Vec<f32> = (0..7).map(|i| 1.0 - i as f32 * 0.05).collect();
        let want: f32 = q.iter().zip(&v).map(|(a, b)| a * b).sum();
        assert!((dot_blob(&q, &vector_to_blob(&v)).unwrap() - want).abs() < 1e-6);
        assert_eq!(dot_blob(&q, &vector_to_blob(&v[..6])), None);
    }

    fn unit(v: [f32; 2]) -> Vec<f32> {
        let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
        vec![v[0] / n, v[1] / n]
    }

    /// Two sessions in two projects: L2 turns 1, 2 (session a), 3 (b); L3 10 (a).
    fn fixture() -> Store {
        let store = Store::memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at)
                     VALUES (1, 'a', 'p', 0, 0, 0), (2, 'b', 'q', 0, 0, 0);
                 INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
                     VALUES (1, 1, 1000, 0, '', '', 0), (2, 1, 2000, 0, '', '', 0), (3, 2, 3000, 0, '', '', 0);
                 UPDATE turns SET l2_state = 'done', l2 = CASE id
                     WHEN 1 THEN 'The user fixed the sqlite lock timeout.'
                     WHEN 2 THEN 'The user baked sourdough bread.'
                     ELSE 'The user tuned the guitar strings.' END;
                 INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                        model, prompt_version, created_at, updated_at)
                     VALUES (10, 3, 1, 'p', 'running', 'Database locking and bread.', 5, 1, 2, 'm', 1, 0, 2500);",
            )
            .unwrap();
        for (kind, id, v) in
            [("l2", 1, [1.0, 0.0]), ("l2", 2, [0.0, 1.0]), ("l2", 3, [-1.0, 0.2]), ("summary", 10, [0.7, 0.7])]
        {
            store
                .conn
                .execute(
                    "INSERT INTO embeddings VALUES (?1, ?2, 1, 'm', 2, ?3, 0)",
                    params![kind, id, vector_to_blob(&unit(v))],
                )
                .unwrap();
        }
        store
    }

    const W: Weights = Weights { vector: 0.7, keyword: 0.3, min_score: 0.0 };

    #[test]
    fn scores_do_not_depend_on_the_other_candidates_and_min_score_drops_weak_ones() {
        let s = fixture();
        let q = unit([0.0, 1.0]);
        let qv = || Some(QueryVector { vector: &q, model: "m" });
        let all = search(&s.conn, "zzz", qv(), &Filters::default(), W, 10).unwrap();
        let one =
            search(&s.conn, "zzz", qv(), &Filters { session: Some("a".into()), ..Default::default() }, W, 10).unwrap();
        let score = |o: &Outcome, id: i64| o.hits.iter().find(|h| h.level == 2 && h.id == id).unwrap().score;
        assert!((score(&all, 2) - score(&one, 2)).abs() < 1e-12);
        // The vector of turn 1 is orthogonal to the query: scored 0, not
        // rescaled to look like a middling hit.
        assert!(score(&all, 1).abs() < 1e-6, "{}", score(&all, 1));
        // A query that matches nothing well returns nothing with a minimum.
        let far = unit([-0.2, -1.0]);
        let strict = Weights { min_score: 0.3, ..W };
        let o = search(&s.conn, "zzz", Some(QueryVector { vector: &far, model: "m" }), &Filters::default(), strict, 10)
            .unwrap();
        assert!(o.hits.is_empty(), "{:?}", o.hits);
        assert!(o.best_score.unwrap() < 0.3);
    }

    #[test]
    fn coverage_counts_the_query_words_a_text_holds() {
        let terms = query_terms("How do I fix the SQLite lock-timeout?");
        assert_eq!(terms, ["fix", "sqlite", "lock", "timeout"]);
        assert_eq!(coverage(&terms, "The user fixed the sqlite LOCK timeout."), 0.75);
        assert_eq!(coverage(&terms, "nothing here"), 0.0);
        assert_eq!(coverage(&query_terms("the of and"), "the of and"), 0.0, "stopwords say nothing");
        assert_eq!(coverage(&query_terms("--password-file"), "restic --password-file /srv"), 1.0);
    }

    fn ids(o: &Outcome) -> Vec<(u8, i64)> {
        o.hits.iter().map(|h| (h.level, h.id)).collect()
    }

    #[test]
    fn vectors_and_keywords_blend() {
        let s = fixture();
        let q = unit([0.1, 1.0]);
        let qv = || Some(QueryVector { vector: &q, model: "m" });
        let o = search(&s.conn, "bread", qv(), &Filters::default(), W, 10).unwrap();
        assert_eq!(ids(&o)[0], (2, 2), "{:?}", o.hits);
        assert_eq!(o.vectors_scanned, 4);
        let top = &o.hits[0];
        assert_eq!(top.session.as_deref(), Some("a"));
        assert_eq!(top.episode_range.as_deref(), Some("2-2"));
        // Absolute scale: a near-identical vector and a keyword match score
        // high but not a rescaled 1.0.
        assert!(top.score > 0.7 && top.score < 1.0, "{}", top.score);
        // Keyword-only: the vectors are ignored and only matches come back.
        let o = search(&s.conn, "guitar", None, &Filters::default(), W, 10).unwrap();
        assert_eq!(ids(&o), vec![(2, 3)]);
        // Another model's vectors are not compared.
        let o = search(&s.conn, "zzz", Some(QueryVector { vector: &q, model: "other" }), &Filters::default(), W, 10)
            .unwrap();
        assert!(o.hits.is_empty());
    }

    #[test]
    fn filters_restrict_both_sides() {
        let s = fixture();
        let q = unit([0.0, 1.0]);
        let run = |f: Filters| {
            let o = search(&s.conn, "the user", Some(QueryVector { vector: &q, model: "m" }), &f, W, 10).unwrap();
            let mut v = ids(&o);
            v.sort();
            v
        };
        assert_eq!(run(Filters { level: Some(3), ..Default::default() }), vec![(3, 10)]);
        assert_eq!(run(Filters { level: Some(2), ..Default::default() }), vec![(2, 1), (2, 2), (2, 3)]);
        assert_eq!(run(Filters { session: Some("b".into()), ..Default::default() }), vec![(2, 3)]);
        assert_eq!(run(Filters { project: Some("p".into()), ..Default::default() }), vec![(2, 1), (2, 2), (3, 10)]);
        assert_eq!(run(Filters { since: Some(2000), ..Default::default() }), vec![(2, 2), (2, 3), (3, 10)]);
        assert_eq!(run(Filters { level: Some(4), ..Default::default() }), vec![]);
    }
}
