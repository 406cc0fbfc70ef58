//! Scoring on absolute scales: the share of the query's words a text
//! holds, and the cosine of unit vectors stored as bytes.

/// Words too common to say what a query is about.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "does", "for", "from", "how", "i", "in", "is", "it",
    "its", "me", "my", "of", "on", "or", "so", "that", "the", "this", "to", "was", "we", "what", "when", "where",
    "which", "who", "why", "with", "you",
];

/// Words of a text as the FTS5 `unicode61` tokenizer splits them: runs of
/// letters and digits, lower-cased.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// The query's distinct words, stopwords aside.
pub fn query_terms(text: &str) -> Vec<String> {
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
pub fn coverage(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let have: std::collections::HashSet<String> = words(text).collect();
    terms.iter().filter(|t| have.contains(*t)).count() as f64 / terms.len() as f64
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
