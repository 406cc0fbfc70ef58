//! Scoring on absolute scales: the share of the query's words a text
//! holds, and the cosine of unit vectors stored as bytes.
//!
//! Words are compared by their stems (Snowball English), so "hiking"
//! finds "hikes" and "destress" finds "destressing", and the query's
//! stopwords (NLTK's English list: "did", "her", "have" …) are left out:
//! they are in nearly every text and say nothing about what it is about.

use std::collections::HashSet;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

fn stopwords() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| stop_words::get("en").iter().copied().collect())
}

/// Whether a lower-cased word is one of NLTK's English stopwords.
pub fn is_stopword(word: &str) -> bool {
    stopwords().contains(word)
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Words of a text as the FTS5 `unicode61` tokenizer splits them: runs of
/// letters and digits, lower-cased.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// A lower-cased word's stem.
pub fn stem(word: &str) -> String {
    stemmer().stem(word).into_owned()
}

/// The query's distinct stems, stopwords aside.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(text) {
        if stopwords().contains(w.as_str()) {
            continue;
        }
        let s = stem(&w);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The distinct stems of a text's words.
pub fn stems(text: &str) -> HashSet<String> {
    words(text).map(|w| stem(&w)).collect()
}

/// The share of `terms` (from [`query_terms`]) found among a text's
/// [`stems`], the text read with its context: a term the text lacks but
/// `context` holds counts `weight` (0 to 1). On the same scale, 0 to 1, in
/// every query (0 when the query has only stopwords).
pub fn coverage_in_context(terms: &[String], have: &HashSet<String>, context: &HashSet<String>, weight: f64) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let found: f64 = terms
        .iter()
        .map(|t| {
            if have.contains(t) {
                1.0
            } else if context.contains(t) {
                weight
            } else {
                0.0
            }
        })
        .sum();
    found / terms.len() as f64
}

/// Dot product of a unit query with a stored little-endian f32 unit vector
/// (= cosine); None when the lengths differ.
pub fn dot_blob(q: &[f32], blob: &[u8]) -> Option<f32> {
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
