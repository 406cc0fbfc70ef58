//! `ragger check`: the invariants of design.md, verified with SQL of its
//! own (the independent auditor: it does not reuse the queue's queries). Each
//! check is one query that returns offending rows; a healthy database
//! returns none.

use super::Store;
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Violation {
    pub check: &'static str,
    pub detail: String,
}

/// (name, query returning one text column per violation)
const CHECKS: &[(&str, &str)] = &[
    (
        "duplicate idempotency key",
        "SELECT 'session ' || session_id || ' key ' || idem_key || ' stored ' || count(*) || ' times'
         FROM turns WHERE idem_key IS NOT NULL GROUP BY session_id, idem_key HAVING count(*) > 1",
    ),
    (
        "turn without session",
        "SELECT 'turn ' || t.id FROM turns t LEFT JOIN sessions s ON s.id = t.session_id WHERE s.id IS NULL",
    ),
    (
        "L2 state inconsistent",
        "SELECT 'turn ' || id || ' state ' || l2_state FROM turns
         WHERE (l2 IS NULL) <> (l2_state <> 'done') OR (l2 IS NOT NULL AND trim(l2) = '')",
    ),
    (
        "folded turn without L2",
        "SELECT 'turn ' || id FROM turns WHERE l3_id IS NOT NULL AND l2_state <> 'done'",
    ),
    (
        "turn folded into a foreign summary",
        "SELECT 'turn ' || t.id || ' -> summary ' || t.l3_id FROM turns t JOIN summaries m ON m.id = t.l3_id
         WHERE m.level <> 3 OR m.session_id <> t.session_id",
    ),
    (
        "fold position missing",
        "SELECT 'turn ' || id FROM turns WHERE (l3_id IS NULL) <> (fold_seq IS NULL)",
    ),
    (
        "fold order has gaps",
        "SELECT 'session ' || s.id || ': ' || count(t.fold_seq) || ' folded turns, positions up to '
                || coalesce(max(t.fold_seq), 0) || ', next ' || s.next_fold_seq
         FROM sessions s LEFT JOIN turns t ON t.session_id = s.id AND t.fold_seq IS NOT NULL
         GROUP BY s.id HAVING count(t.fold_seq) <> coalesce(max(t.fold_seq), 0)
                           OR s.next_fold_seq <> coalesce(max(t.fold_seq), 0) + 1",
    ),
    (
        "L3 episode range wrong",
        "SELECT 'summary ' || m.id || ' range ' || m.first_turn_id || '-' || m.last_turn_id
                || ' (positions ' || m.first_seq || '-' || m.last_seq || ') but holds '
                || count(t.id) || ' turns at positions ' || coalesce(min(t.fold_seq), '?') || '-' || coalesce(max(t.fold_seq), '?')
         FROM summaries m LEFT JOIN turns t ON t.l3_id = m.id
         WHERE m.level = 3
         GROUP BY m.id
         HAVING count(t.id) = 0 OR min(t.fold_seq) <> m.first_seq OR max(t.fold_seq) <> m.last_seq
             OR count(t.id) <> m.last_seq - m.first_seq + 1
             OR m.first_turn_id <> (SELECT id FROM turns WHERE l3_id = m.id AND fold_seq = m.first_seq)
             OR m.last_turn_id <> (SELECT id FROM turns WHERE l3_id = m.id AND fold_seq = m.last_seq)",
    ),
    (
        "overlapping episode ranges",
        "SELECT 'summaries ' || prev_id || ' and ' || id || ' of session ' || session_id FROM (
            SELECT id, session_id, first_seq,
                   lag(last_seq) OVER (PARTITION BY session_id ORDER BY first_seq) AS prev_last,
                   lag(id) OVER (PARTITION BY session_id ORDER BY first_seq) AS prev_id
            FROM summaries WHERE level = 3)
         WHERE prev_last IS NOT NULL AND first_seq <= prev_last",
    ),
    (
        "running summary not the latest",
        "SELECT 'summary ' || m.id || ' is running but summary ' || n.id || ' of the same session is later'
         FROM summaries m JOIN summaries n ON n.level = 3 AND n.session_id = m.session_id AND n.first_seq > m.first_seq
         WHERE m.level = 3 AND m.status = 'running'",
    ),
    (
        // A turn captured before a folded turn that it precedes in event
        // order must itself be folded (unless its L2 failed for good).
        "turn skipped by the fold",
        // "Later" is later in both capture (id) and event order (at, id):
        // a folded turn with a larger id and an `at` at least as large. One
        // window pass finds, for every turn, the latest `at` of the folded
        // turns captured after it (the EXISTS form was quadratic in the
        // unfolded turns of a session: a minute mid-backlog).
        "SELECT 'turn ' || id || ' of session ' || session_id || ' is unfolded but a later turn is folded'
         FROM (SELECT id, session_id, at, l3_id, l2_state,
                      max(CASE WHEN l3_id IS NOT NULL THEN at END) OVER (
                          PARTITION BY session_id ORDER BY id DESC
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS later_folded_at
               FROM turns)
         WHERE l3_id IS NULL AND l2_state <> 'failed' AND later_folded_at >= at",
    ),
    (
        // Consecutive folds: the later one must not be a turn that was
        // captured earlier and sorts earlier.
        "turns folded out of order",
        "SELECT 'turn ' || id || ' folded after turn ' || prev_id || ' of session ' || session_id FROM (
            SELECT id, session_id, at,
                   lag(id) OVER (PARTITION BY session_id ORDER BY fold_seq) AS prev_id,
                   lag(at) OVER (PARTITION BY session_id ORDER BY fold_seq) AS prev_at
            FROM turns WHERE fold_seq IS NOT NULL)
         WHERE prev_id IS NOT NULL AND id < prev_id AND (at < prev_at OR (at = prev_at AND id < prev_id))",
    ),
    (
        "more than one running L3 in a session",
        "SELECT 'session ' || session_id || ': ' || count(*) FROM summaries
         WHERE level = 3 AND status = 'running' GROUP BY session_id HAVING count(*) > 1",
    ),
    (
        "more than one running L4 in a project",
        "SELECT 'project ' || project || ': ' || count(*) FROM summaries
         WHERE level = 4 AND status = 'running' GROUP BY project HAVING count(*) > 1",
    ),
    (
        "project not in the projects table",
        "SELECT 'project ' || project FROM (SELECT project FROM sessions UNION SELECT project FROM summaries)
         WHERE project IS NOT NULL AND project NOT IN (SELECT key FROM projects)",
    ),
    (
        // A merge moves all of a project's memory and points its row at a
        // project that is not merged itself (`store::merge`).
        "merged project still in use or merged into a missing or merged one",
        "SELECT 'project ' || p.key || ' -> ' || p.merged_into FROM projects p WHERE p.merged_into IS NOT NULL
           AND (NOT EXISTS (SELECT 1 FROM projects q WHERE q.key = p.merged_into AND q.merged_into IS NULL)
                OR EXISTS (SELECT 1 FROM sessions s WHERE s.project = p.key)
                OR EXISTS (SELECT 1 FROM summaries m WHERE m.project = p.key))",
    ),
    (
        "two projects with one label",
        "SELECT 'label ' || label || ': ' || count(*) FROM projects GROUP BY label HAVING count(*) > 1",
    ),
    (
        "closed session with a running summary",
        "SELECT 'session ' || s.external_id FROM sessions s JOIN summaries m ON m.session_id = s.id
         WHERE s.closed_at IS NOT NULL AND m.level = 3 AND m.status = 'running'",
    ),
    (
        "L4 state inconsistent",
        "SELECT 'summary ' || id || ' l4_state ' || l4_state FROM summaries
         WHERE level = 3 AND ((l4_state = 'done') <> (l4_id IS NOT NULL)
                              OR (status = 'running' AND l4_state <> 'none')
                              OR (status = 'complete' AND project IS NOT NULL AND l4_state = 'none')
                              OR (project IS NULL AND l4_state <> 'none'))",
    ),
    (
        "L3 folded into a foreign L4",
        "SELECT 'summary ' || m.id || ' -> ' || m.l4_id FROM summaries m JOIN summaries p ON p.id = m.l4_id
         WHERE p.level <> 4 OR p.project IS NOT m.project",
    ),
    (
        // L3 rows of a project complete in any id order (its sessions
        // overlap), so an L4's range is the first and the last L3 it
        // folded, not the lowest and the highest id.
        "L4 range names rows it does not hold",
        "SELECT 'summary ' || p.id || ' range ' || p.first_l3_id || '-' || p.last_l3_id FROM summaries p
         WHERE p.level = 4
           AND (NOT EXISTS (SELECT 1 FROM summaries m WHERE m.id = p.first_l3_id AND m.l4_id = p.id)
                OR NOT EXISTS (SELECT 1 FROM summaries m WHERE m.id = p.last_l3_id AND m.l4_id = p.id))",
    ),
    (
        "empty summary",
        "SELECT 'summary ' || id FROM summaries WHERE trim(content) = ''",
    ),
    (
        "vector of a missing row",
        "SELECT e.kind || ' ' || e.row_id FROM embeddings e
         WHERE (e.kind = 'l2' AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.id = e.row_id AND t.l2 IS NOT NULL))
            OR (e.kind = 'summary' AND NOT EXISTS (SELECT 1 FROM summaries m WHERE m.id = e.row_id))
            OR (e.kind = 'turn' AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.id = e.row_id))",
    ),
];

pub fn check(store: &Store) -> Result<Vec<Violation>> {
    let conn = &store.conn;
    let mut out = Vec::new();
    for (name, sql) in CHECKS {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for row in rows {
            out.push(Violation { check: name, detail: row? });
        }
    }
    let ok: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if ok != "ok" {
        out.push(Violation { check: "sqlite quick_check", detail: ok });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sessions of project p: L3 row 2 completes (topic shift) and
    /// starts the L4, then row 1 completes (its session closes) and is
    /// folded after it.
    fn two_overlapping_sessions() -> crate::store::Store {
        let store = crate::store::Store::memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO projects (key, name, label, created_at) VALUES ('p', 'p', 'p', 0), ('q', 'q', 'q', 0);
                 INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at, next_fold_seq)
                 VALUES (1, 'a', 'p', 0, 0, 0, 2), (2, 'b', 'p', 0, 0, 0, 2);
                 INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id,
                        last_turn_id, first_seq, last_seq, model, prompt_version, created_at, updated_at, l4_state)
                 VALUES (1, 3, 1, 'p', 'complete', 'x', 1, 1, 1, 1, 1, 'm', 1, 0, 0, 'done'),
                        (2, 3, 2, 'p', 'complete', 'y', 1, 2, 2, 1, 1, 'm', 1, 0, 0, 'done');
                 INSERT INTO summaries (id, level, project, status, content, tokens, first_l3_id, last_l3_id,
                        model, prompt_version, created_at, updated_at)
                 VALUES (3, 4, 'p', 'running', 'xy', 1, 2, 1, 'm', 1, 0, 0);
                 UPDATE summaries SET l4_id = 3 WHERE id IN (1, 2);
                 INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens, l2,
                        l2_state, l3_id, fold_seq)
                 VALUES (1, 1, 0, 0, 'u', 'a', 1, 'l2', 'done', 1, 1), (2, 2, 0, 0, 'u', 'a', 1, 'l2', 'done', 2, 1);",
            )
            .unwrap();
        store
    }

    #[test]
    fn an_unfolded_turn_before_a_folded_one_in_both_orders_is_a_violation() {
        let store = two_overlapping_sessions();
        let skipped = |store: &crate::store::Store| -> Vec<String> {
            check(store)
                .unwrap()
                .into_iter()
                .filter(|v| v.check == "turn skipped by the fold")
                .map(|v| v.detail)
                .collect()
        };
        // Turn 5 is captured after folded turn 1 but happened before it
        // (a backfill): the fold goes on without it, no violation.
        let insert = "INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
                      VALUES (?1, 1, ?2, 0, 'u', 'a', 1)";
        store.conn.execute(insert, rusqlite::params![5, -10]).unwrap();
        assert_eq!(skipped(&store), Vec::<String>::new());
        // Turn 0 was captured before folded turn 1, at the same time: skipped.
        store.conn.execute(insert, rusqlite::params![0, 0]).unwrap();
        assert_eq!(skipped(&store), vec!["turn 0 of session 1 is unfolded but a later turn is folded".to_string()]);
        // Its L2 failed for good: passed over, no violation.
        store.conn.execute_batch("UPDATE turns SET l2_state = 'failed' WHERE id = 0").unwrap();
        assert_eq!(skipped(&store), Vec::<String>::new());
        // A turn of another session does not count.
        store.conn.execute_batch("UPDATE turns SET l2_state = 'pending', session_id = 2, at = 5 WHERE id = 0").unwrap();
        assert_eq!(skipped(&store), Vec::<String>::new());
    }

    #[test]
    fn l3_rows_folded_into_the_project_summary_out_of_id_order_are_no_violation() {
        let store = two_overlapping_sessions();
        assert_eq!(check(&store).unwrap(), vec![]);
    }

    #[test]
    fn a_project_key_with_no_projects_row_or_a_label_twice_is_a_violation() {
        let store = two_overlapping_sessions();
        store.conn.execute_batch("UPDATE sessions SET project = 'r' WHERE id = 2").unwrap();
        store.conn.execute_batch("UPDATE projects SET label = 'p' WHERE key = 'q'").unwrap();
        let found: Vec<(&str, String)> = check(&store).unwrap().into_iter().map(|v| (v.check, v.detail)).collect();
        assert!(found.contains(&("project not in the projects table", "project r".into())), "{found:?}");
        assert!(found.contains(&("two projects with one label", "label p: 2".into())), "{found:?}");
    }

    #[test]
    fn a_merged_project_with_memory_or_merged_into_a_merged_one_is_a_violation() {
        let store = two_overlapping_sessions();
        let found = |store: &Store| -> Vec<String> {
            check(store)
                .unwrap()
                .into_iter()
                .filter(|v| v.check.starts_with("merged project"))
                .map(|v| v.detail)
                .collect()
        };
        // p still holds both sessions and their summaries.
        store.conn.execute_batch("UPDATE projects SET merged_into = 'q' WHERE key = 'p'").unwrap();
        assert_eq!(found(&store), ["project p -> q"]);
        store.conn.execute_batch("UPDATE projects SET merged_into = NULL WHERE key = 'p'").unwrap();
        // q holds nothing: merged into p is fine, into a missing project is not.
        store.conn.execute_batch("UPDATE projects SET merged_into = 'p' WHERE key = 'q'").unwrap();
        assert_eq!(found(&store), Vec::<String>::new());
        store.conn.execute_batch("UPDATE projects SET merged_into = 'gone' WHERE key = 'q'").unwrap();
        assert_eq!(found(&store), ["project q -> gone"]);
    }

    #[test]
    fn an_l3_in_another_projects_summary_or_a_range_it_is_not_in_is_a_violation() {
        let store = two_overlapping_sessions();
        store.conn.execute_batch("UPDATE summaries SET project = 'q' WHERE id = 1").unwrap();
        let names: Vec<&str> = check(&store).unwrap().iter().map(|v| v.check).collect();
        assert!(names.contains(&"L3 folded into a foreign L4"), "{names:?}");
        store
            .conn
            .execute_batch("UPDATE summaries SET project = 'p', l4_id = NULL, l4_state = 'pending' WHERE id = 1")
            .unwrap();
        let names: Vec<&str> = check(&store).unwrap().iter().map(|v| v.check).collect();
        assert!(names.contains(&"L4 range names rows it does not hold"), "{names:?}");
    }
}
