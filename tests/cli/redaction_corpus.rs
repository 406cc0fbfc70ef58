//! The redaction corpus (tests/data/redaction_corpus.jsonl, written by
//! scripts/gen-redaction-corpus.py): real-shaped secrets embedded in
//! realistic turns, and near-misses (git SHAs, UUIDs, base64 image data,
//! `sk-` in prose, placeholders, public keys) that must stay unchanged.
//! Recall must be 100% on the listed formats, precision at least 98% on
//! the near-misses. `cargo test --release --test cli redaction_corpus -- --nocapture`
//! prints the figures for BENCHMARKS.md.

use std::collections::BTreeMap;

use ragger::config::Privacy;
use ragger::redact::{Redactor, MARKER};

#[derive(serde::Deserialize)]
struct Case {
    kind: Option<String>,
    text: String,
    secrets: Vec<String>,
}

#[test]
fn recall_is_complete_and_near_misses_stay_untouched() {
    let corpus = crate::support::fixtures::data("redaction_corpus.jsonl");
    let cases: Vec<Case> = corpus.lines().map(|l| serde_json::from_str(l).expect("corpus line")).collect();
    assert!(cases.len() >= 200, "the corpus has {} cases", cases.len());
    let r = Redactor::new(&Privacy::default()).unwrap();
    let mut per_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut missed, mut false_hits) = (Vec::new(), Vec::new());
    let (mut positives, mut negatives) = (0, 0);
    for c in &cases {
        let (out, n) = r.redact(&c.text);
        match &c.kind {
            Some(kind) => {
                positives += 1;
                let e = per_kind.entry(kind.clone()).or_default();
                e.0 += 1;
                let leaked: Vec<&String> = c.secrets.iter().filter(|s| out.contains(s.as_str())).collect();
                let marked = out.contains(&format!("{MARKER}{kind}"));
                if leaked.is_empty() && marked && n >= 1 {
                    e.1 += 1;
                } else {
                    missed.push(format!("{kind}: {:?} -> {:?}", c.text, out));
                }
            }
            None => {
                negatives += 1;
                if n != 0 || out != c.text {
                    false_hits.push(format!("{:?} -> {:?}", c.text, out));
                }
            }
        }
    }
    let recall = (positives - missed.len()) as f64 / positives as f64;
    let precision = (negatives - false_hits.len()) as f64 / negatives as f64;
    eprintln!("redaction corpus: {} cases, {positives} secrets, {negatives} near-misses", cases.len());
    for (kind, (n, ok)) in &per_kind {
        eprintln!("  {kind:<20} {ok}/{n}");
    }
    eprintln!("recall {:.1}% precision on near-misses {:.1}%", recall * 100.0, precision * 100.0);
    for f in &false_hits {
        eprintln!("  near-miss redacted: {f}");
    }
    assert!(missed.is_empty(), "secrets not redacted:\n{}", missed.join("\n"));
    assert!(precision >= 0.98, "near-misses redacted ({:.1}%):\n{}", precision * 100.0, false_hits.join("\n"));
    assert!(negatives >= 100, "the corpus has {negatives} near-misses");
}
