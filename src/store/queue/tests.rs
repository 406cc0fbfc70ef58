use rusqlite::params;

use super::*;

/// Sessions 1..=5 with two turns each; `done` says whose L2s are done.
fn store_with(done: &[i64]) -> Store {
    let store = Store::memory().unwrap();
    for s in 1..=5i64 {
        store
            .conn
            .execute(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (?1, ?2, 'p', 0, 0, 0)",
                params![s, format!("s{s}")],
            )
            .unwrap();
        for k in 0..2 {
            let (state, l2) = if done.contains(&s) { ("done", Some("x")) } else { ("pending", None) };
            store
                .conn
                .execute(
                    "INSERT INTO turns (session_id, at, captured_at, user_text, assistant_text, tokens, l2, l2_state)
                     VALUES (?1, ?2, 0, 'u', 'a', 1, ?3, ?4)",
                    params![s, k, l2, state],
                )
                .unwrap();
        }
    }
    store
}

fn fold(store: &Store, session: Option<i64>, skip: &HashSet<i64>, cursor: &mut i64, n: usize) -> Vec<i64> {
    sessions_to_fold(store, session, skip, cursor, n).unwrap()
}

#[test]
fn sessions_to_fold_lists_only_sessions_with_done_unfolded_l2s() {
    let store = store_with(&[2, 4, 5]);
    let (skip, mut cursor) = (HashSet::new(), 0);
    assert_eq!(fold(&store, None, &skip, &mut cursor, 8), vec![2, 4, 5]);
    assert_eq!(fold(&store, None, &skip, &mut cursor, 2), vec![2, 4]);
    assert_eq!(fold(&store, Some(4), &skip, &mut cursor, 8), vec![4]);
    assert!(fold(&store, Some(3), &skip, &mut cursor, 8).is_empty());
}

#[test]
fn sessions_to_fold_passes_over_skipped_sessions_and_starts_over_once() {
    let store = store_with(&[2, 4, 5]);
    let (mut skip, mut cursor) = (HashSet::new(), 0);
    skip.extend([2, 4]);
    assert_eq!(fold(&store, None, &skip, &mut cursor, 8), vec![5]);
    assert_eq!(cursor, 5);
    // Session 2 comes free again while the cursor is past it: found by the restart.
    skip.remove(&2);
    skip.insert(5);
    assert_eq!(fold(&store, None, &skip, &mut cursor, 8), vec![2]);
    skip.insert(2);
    assert!(fold(&store, None, &skip, &mut cursor, 8).is_empty());
}

#[test]
fn sessions_to_fold_seeks_the_foldable_index_instead_of_scanning_unfolded_turns() {
    let store = store_with(&[1]);
    let plan: Vec<String> = store
        .conn
        .prepare(&format!("EXPLAIN QUERY PLAN {}", next_foldable_sql()))
        .unwrap()
        .query_map(params![None::<i64>, 0], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(plan.iter().any(|p| p.contains("SEARCH turns USING INDEX turns_foldable (session_id>?)")), "{plan:?}");
}

#[test]
fn counts_follow_the_queue_conditions() {
    let store = store_with(&[2, 4]);
    assert_eq!(counts(&store, None).unwrap(), Counts { pending_l2: 6, foldable: 4, pending_l4: 0 });
    assert_eq!(counts(&store, Some(2)).unwrap(), Counts { pending_l2: 0, foldable: 2, pending_l4: 0 });
    assert_eq!(counts(&store, None).unwrap().remaining(), 10);
}
