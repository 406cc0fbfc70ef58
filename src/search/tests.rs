//! Unit tests of hybrid search over a small fixture database.

use std::collections::HashSet;

use super::score::{coverage_in_context, dot_blob, query_terms, stems};
use super::*;
use crate::store::vector_to_blob;

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

/// The share of the query's terms a text holds, without context.
fn coverage(terms: &[String], have: &HashSet<String>) -> f64 {
    coverage_in_context(terms, have, &HashSet::new(), 0.0)
}

fn unit(v: [f32; 2]) -> Vec<f32> {
    let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
    vec![v[0] / n, v[1] / n]
}

/// Two sessions in two projects: L2 turns 1, 2 (session a), 3 (b); L3 10 (a).
fn fixture() -> Store {
    let v = [("l2", 1, [1.0, 0.0]), ("l2", 2, [0.0, 1.0]), ("l2", 3, [-1.0, 0.2]), ("summary", 10, [0.7, 0.7])];
    crate::store::search::fixture(&v.map(|(kind, id, v)| (kind, id, unit(v))))
}

const W: Weights = Weights { vector: 0.7, keyword: 0.3, min_score: 0.0 };

#[test]
fn scores_do_not_depend_on_the_other_candidates_and_min_score_drops_weak_ones() {
    let s = fixture();
    let q = unit([0.0, 1.0]);
    let qv = || Some(QueryVector { vector: &q, model: "m" });
    let l2 = || Filters { level: Some(2), ..Default::default() };
    let all = search(&s, "zzz", qv(), &l2(), W, 10).unwrap();
    let one = search(&s, "zzz", qv(), &Filters { session: Some("a".into()), ..l2() }, W, 10).unwrap();
    let score = |o: &Outcome, id: i64| o.hits.iter().find(|h| h.level == 2 && h.id == id).unwrap().score;
    assert!((score(&all, 2) - score(&one, 2)).abs() < 1e-12);
    // The vector of turn 1 is orthogonal to the query: scored 0, not
    // rescaled to look like a middling hit.
    assert!(score(&all, 1).abs() < 1e-6, "{}", score(&all, 1));
    // A query that matches nothing well returns nothing with a minimum.
    let far = unit([-0.2, -1.0]);
    let strict = Weights { min_score: 0.3, ..W };
    let o = search(&s, "zzz", Some(QueryVector { vector: &far, model: "m" }), &Filters::default(), strict, 10).unwrap();
    assert!(o.hits.is_empty(), "{:?}", o.hits);
    assert!(o.best_score.unwrap() < 0.3);
}

#[test]
fn coverage_counts_the_query_words_a_text_holds_by_stem() {
    let cov = |q: &str, text: &str| coverage(&query_terms(q), &stems(text));
    let terms = query_terms("How do I fix the SQLite lock-timeout?");
    assert_eq!(terms, ["fix", "sqlite", "lock", "timeout"]);
    assert_eq!(coverage(&terms, &stems("The user fixed the sqlite LOCK timeout.")), 1.0, "fixed is fix");
    assert_eq!(coverage(&terms, &stems("The user fixed the sqlite lock.")), 0.75);
    assert_eq!(coverage(&terms, &stems("nothing here")), 0.0);
    assert_eq!(cov("restic --password-file", "restic --password-file /srv"), 1.0);
    assert_eq!(cov("hiking trips", "She hikes; the trip was long"), 1.0);
}

#[test]
fn stopwords_say_nothing_about_a_text() {
    assert!(query_terms("the of and").is_empty());
    assert_eq!(coverage(&query_terms("the of and"), &stems("the of and")), 0.0);
    // Words that nearly every turn has ("did", "her", "have") do not lift a
    // text that only shares them with the query.
    assert_eq!(query_terms("What did her family have for dinner?"), ["famili", "dinner"]);
}

fn ids(o: &Outcome) -> Vec<(u8, i64)> {
    o.hits.iter().map(|h| (h.level, h.id)).collect()
}

#[test]
fn vectors_and_keywords_blend() {
    let s = fixture();
    let q = unit([0.1, 1.0]);
    let qv = || Some(QueryVector { vector: &q, model: "m" });
    let l2 = Filters { level: Some(2), ..Default::default() };
    let o = search(&s, "bread", qv(), &l2, W, 10).unwrap();
    assert_eq!(ids(&o)[0], (2, 2), "{:?}", o.hits);
    assert_eq!(o.vectors_scanned, 3);
    let top = &o.hits[0];
    assert_eq!(top.session.as_deref(), Some("a"));
    assert_eq!(top.episode_range.as_deref(), Some("2-2"));
    // Absolute scale: a near-identical vector and a keyword match score
    // high but not a rescaled 1.0.
    assert!(top.score > 0.7 && top.score < 1.0, "{}", top.score);
    // Keyword-only: the vectors are ignored and only matches come back.
    let o = search(&s, "guitar", None, &l2, W, 10).unwrap();
    assert_eq!(ids(&o), vec![(2, 3)]);
    // Another model's vectors are not compared.
    let o = search(&s, "zzz", Some(QueryVector { vector: &q, model: "other" }), &Filters::default(), W, 10).unwrap();
    assert!(o.hits.is_empty());
}

#[test]
fn filters_restrict_both_sides() {
    let s = fixture();
    let q = unit([0.0, 1.0]);
    let run = |f: Filters| {
        let o = search(&s, "the user", Some(QueryVector { vector: &q, model: "m" }), &f, W, 10).unwrap();
        let mut v = ids(&o);
        v.sort();
        v
    };
    assert_eq!(run(Filters { level: Some(3), ..Default::default() }), vec![(3, 10)]);
    assert_eq!(run(Filters { level: Some(2), ..Default::default() }), vec![(2, 1), (2, 2), (2, 3)]);
    let l2 = |f: Filters| Filters { level: Some(2), ..f };
    assert_eq!(run(l2(Filters { session: Some("b".into()), ..Default::default() })), vec![(2, 3)]);
    assert_eq!(run(l2(Filters { project: Some("p".into()), ..Default::default() })), vec![(2, 1), (2, 2)]);
    assert_eq!(run(l2(Filters { since: Some(2000), ..Default::default() })), vec![(2, 2), (2, 3)]);
    assert_eq!(run(Filters { project: Some("p".into()), ..Default::default() }), vec![(3, 10)]);
    assert_eq!(run(Filters { since: Some(2500), ..Default::default() }), vec![(3, 10)]);
    // Without a level, turn summaries are no hits of their own.
    assert_eq!(run(Filters::default()), vec![(3, 10)]);
    assert_eq!(run(Filters { level: Some(4), ..Default::default() }), vec![]);
}

#[test]
fn a_raw_turn_is_found_by_the_month_and_year_it_was_said_in() {
    // Turn 3 has no words of its own; its vector is orthogonal to the query.
    let s = crate::store::search::fixture(&[("turn", 3, unit([1.0, 0.0]))]);
    let q = unit([0.0, 1.0]);
    let when = date_words(3000).join(" ");
    let find = |text: &str| {
        let o = search(&s, text, Some(QueryVector { vector: &q, model: "m" }), &Filters::default(), W, 10).unwrap();
        o.hits.iter().find(|h| h.level == 1 && h.id == 3).map(|h| h.score)
    };
    // Two of "guitar", its month and its year: 0.3 × 2/3.
    let score = find(&format!("guitar {when}")).expect("turn 3 is a candidate by its vector");
    assert!((score - 0.2).abs() < 1e-6, "{score}");
    assert!(find("guitar lessons").unwrap().abs() < 1e-6, "no date, no keyword score");
}

#[test]
fn coverage_in_context_counts_the_context_s_words_at_their_weight() {
    let terms = query_terms("kids dinosaurs");
    let own = stems("They love dinosaurs.");
    let before = stems("What do your kids like?");
    assert_eq!(coverage_in_context(&terms, &own, &before, 0.3), (1.0 + 0.3) / 2.0);
    assert_eq!(coverage_in_context(&terms, &own, &HashSet::new(), 0.3), 0.5);
    // A word the turn holds itself counts once, whatever its context holds.
    assert_eq!(coverage_in_context(&terms, &stems("kids dinosaurs"), &before, 0.3), 1.0);
}

#[test]
fn a_raw_turn_is_read_with_the_turn_before_it_in_its_session() {
    // Session a: turn 1 asks, turn 2 answers; session b: turn 3 speaks of
    // kids too, but its session has no turn before it.
    let s = crate::store::search::fixture(&[]);
    s.exec(
        "UPDATE turns SET user_text = CASE id
             WHEN 1 THEN 'What do your kids like?'
             WHEN 2 THEN 'They love dinosaurs.'
             ELSE 'The kids went camping.' END",
    )
    .unwrap();
    let turns = Filters { level: Some(1), ..Default::default() };
    // Hits best first (ties in any order) with their scores.
    let scores = |q: &str| {
        let o = search(&s, q, None, &turns, W, 10).unwrap();
        let mut v: Vec<(i64, f64)> = o.hits.iter().map(|h| (h.id, (h.score * 100.0).round() / 100.0)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    };
    // Turn 2 holds "dinosaurs" and is read after the question about kids;
    // turn 3 holds "kids" only.
    assert_eq!(scores("kids dinosaurs"), vec![(2, 0.65), (1, 0.5), (3, 0.5)]);
    // Keyword-only, turn 2 matches nothing itself: it is a candidate as the
    // turn after a match, scored at the context's weight.
    assert_eq!(scores("kids"), vec![(1, 1.0), (3, 1.0), (2, 0.3)]);
}

#[test]
fn a_summary_s_share_of_the_query_s_words_counts_half_a_turn_s() {
    // Keyword-only, so the score is the share alone: the L3 holds "bread"
    // of "bread locking" (one of two words) as turn 1 would.
    let s = crate::store::search::fixture(&[]);
    s.exec("UPDATE turns SET user_text = CASE id WHEN 1 THEN 'The bread rose.' ELSE 'Nothing here.' END").unwrap();
    let score = |f: Filters| {
        let o = search(&s, "bread guitar", None, &f, W, 10).unwrap();
        o.hits.first().map(|h| (h.level, h.id, (h.score * 100.0).round() / 100.0))
    };
    assert_eq!(score(Filters { level: Some(3), ..Default::default() }), Some((3, 10, 0.25)));
    assert_eq!(score(Filters { level: Some(1), ..Default::default() }), Some((1, 1, 0.5)));
}
