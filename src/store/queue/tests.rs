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

/// A database with nothing left to do: session 1 closed, its two turns
/// summarised and folded into a complete L3 that is in its project's L4,
/// every row with its vectors. A failed L2 (kept out of the fold for good)
/// is no work either.
fn idle_store() -> Store {
    let store = Store::memory().unwrap();
    store
        .exec(
            "INSERT INTO sessions (id, external_id, project, first_at, last_at, closed_at, created_at)
                 VALUES (1, 's1', 'p', 1000, 2000, 9000, 1000);
             INSERT INTO summaries (id, level, project, status, content, tokens, model, prompt_version,
                                    created_at, updated_at, vec_version)
                 VALUES (2, 4, 'p', 'running', 'All of p.', 3, 'm', 1, 0, 0, 1);
             INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                    model, prompt_version, created_at, updated_at, completed_at, l4_id, l4_state, vec_version)
                 VALUES (1, 3, 1, 'p', 'complete', 'Both turns.', 2, 1, 2, 'm', 1, 0, 0, 9000, 2, 'done', 1);
             INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens,
                                l2, l2_state, l3_id, fold_seq, l2_vec, t_vec)
                 VALUES (1, 1, 1000, 1000, 'u', 'a', 1, 'x', 'done', 1, 1, 1, 1),
                        (2, 1, 2000, 2000, 'u', 'a', 1, 'y', 'done', 1, 2, 1, 1);
             INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens, l2_state, attempts, t_vec)
                 VALUES (3, 1, 1500, 1500, 'u', 'a', 1, 'failed', 3, 1);",
        )
        .unwrap();
    store
}

/// What `tick_work` finds after `sql` on the idle store, with the pause
/// over long ago (`idle_before` far after every turn) and vectors on.
fn work_after(sql: &str) -> Option<Work> {
    let store = idle_store();
    store.exec(sql).unwrap();
    tick_work(&store, i64::MAX / 2, true).unwrap()
}

#[test]
fn tick_work_finds_nothing_only_when_there_is_nothing_to_do() {
    let store = idle_store();
    assert_eq!(tick_work(&store, i64::MAX / 2, true).unwrap(), None);
    assert_eq!(tick_work(&store, i64::MAX / 2, false).unwrap(), None);
    assert_eq!(work_after(""), None, "a failed L2 waits for `ragger retry`, not for a tick");
}

/// Each kind of work a tick does is found on its own: a wrong "nothing"
/// would stop the memory without a word.
#[test]
fn tick_work_finds_each_kind_of_work() {
    let cases: [(&str, &str, Work); 11] = [
        ("a claim on a turn", "UPDATE turns SET lease_owner = 'x', lease_expires = 1 WHERE id = 1", Work::Leased),
        ("a claim on a summary", "UPDATE summaries SET lease_owner = 'x', lease_expires = 1 WHERE id = 2", Work::Leased),
        (
            "a turn without its L2",
            "INSERT INTO turns (session_id, at, captured_at, user_text, assistant_text, tokens) VALUES (1, 3000, 3000, 'u', 'a', 1)",
            Work::PendingL2,
        ),
        ("a failed L2 retried", "UPDATE turns SET l2_state = 'pending', attempts = 0 WHERE id = 3", Work::PendingL2),
        ("an L2 not folded", "UPDATE turns SET l3_id = NULL, fold_seq = NULL WHERE id = 2", Work::Foldable),
        ("a segment waiting for its L4", "UPDATE summaries SET l4_state = 'pending', l4_id = NULL WHERE id = 1", Work::PendingL4),
        ("an open session idle past the pause", "UPDATE sessions SET closed_at = NULL", Work::IdleSession),
        ("an L2 without its vector", "DELETE FROM embeddings; UPDATE turns SET l2_vec = 0 WHERE id = 2", Work::Unembedded),
        ("a turn without its vector", "UPDATE turns SET t_vec = 0 WHERE id = 3", Work::Unembedded),
        ("a summary without its vector", "UPDATE summaries SET vec_version = NULL WHERE id = 1", Work::Unembedded),
        ("a summary that changed since its vector", "UPDATE summaries SET version = 2 WHERE id = 2", Work::Unembedded),
    ];
    for (what, sql, want) in cases {
        assert_eq!(work_after(sql), Some(want), "{what}");
    }
}

#[test]
fn tick_work_waits_for_the_pause_and_leaves_vectors_to_an_enabled_embedder() {
    let store = idle_store();
    store.exec("UPDATE sessions SET closed_at = NULL; UPDATE turns SET t_vec = 0 WHERE id = 1").unwrap();
    // The last turn is at 2000: idle from then on, not before.
    assert_eq!(tick_work(&store, 2000, false).unwrap(), Some(Work::IdleSession));
    assert_eq!(tick_work(&store, 1999, false).unwrap(), None);
    assert_eq!(tick_work(&store, 1999, true).unwrap(), Some(Work::Unembedded));
}

/// One seek per condition, whatever the size of the database: each
/// condition reads a partial index (whose rows are exactly the work), so
/// the idle tick's cost does not grow with what is stored.
#[test]
fn tick_work_reads_only_partial_indexes() {
    let store = idle_store();
    let partial: Vec<String> = store
        .conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql LIKE '% WHERE %'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let plan: Vec<String> = store
        .conn
        .prepare(&format!("EXPLAIN QUERY PLAN {}", tick_work_sql(true)))
        .unwrap()
        .query_map(named_params! {":before": 0}, |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let reads: Vec<&String> = plan
        .iter()
        .filter(|p| (p.starts_with("SCAN") || p.starts_with("SEARCH")) && !p.contains("CONSTANT ROW"))
        .collect();
    assert_eq!(reads.len(), 9, "{plan:?}");
    for p in reads {
        let index = p.split(" INDEX ").nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or("");
        assert!(partial.iter().any(|n| n == index), "{p}: not a partial index ({partial:?})");
    }
}

#[test]
fn a_pending_turn_carries_what_the_user_said_before_it_newest_first_by_event_time() {
    let store = store_with(&[]);
    // Session 1 gets three more turns; one captured late but said first.
    for (at, user) in [(5, "third"), (7, "fourth"), (-1, "said first"), (8, "fifth")] {
        store
            .conn
            .execute(
                "INSERT INTO turns (session_id, at, captured_at, user_text, assistant_text, tokens)
                 VALUES (1, ?1, 0, ?2, 'a', 1)",
                params![at, user],
            )
            .unwrap();
    }
    let items = pending_l2(&store, "me", Some(1), 10, &HashSet::new()).unwrap();
    let earlier = |user: &str| items.iter().find(|i| i.user == user).unwrap().earlier.clone();
    assert_eq!(earlier("fourth"), vec!["third", "u", "u", "said first"]);
    assert!(earlier("said first").is_empty());
    // At most EARLIER_TURNS, and never another session's.
    assert_eq!(earlier("fifth"), vec!["fourth", "third", "u", "u"]);
    let other = pending_l2(&store, "me", Some(2), 10, &HashSet::new()).unwrap();
    assert_eq!(other.iter().map(|i| i.earlier.len()).collect::<Vec<_>>(), vec![0, 1]);
}
