//! `ragger projects merge`'s transaction: one project's stored memory
//! moves to another. In one write transaction, FROM's sessions and their
//! segments (L3) name INTO; the project summaries (L4) of both go, and
//! every segment they held goes back to the project fold queue, so the next
//! pass folds INTO's summary again from all of its completed segments (no
//! model is called here); FROM's row stays, merged into INTO, so its folder
//! and name keep finding INTO (`store::projects` follows `merged_into`),
//! and so do the projects merged into FROM before (merges stay one step).

use anyhow::{Context, Result};
use rusqlite::{named_params, Connection, OptionalExtension};
use serde::Serialize;

use super::{classify, Store};
use crate::exit::{fail, Exit};

/// What a merge moved (or, with `dry_run`, would move).
#[derive(Debug, Default, Clone, Serialize, PartialEq, Eq)]
pub struct MergeReport {
    /// The project merged (its label).
    pub from: String,
    /// The project it goes into (its label).
    pub into: String,
    /// Nothing was written: this is what a merge would do.
    pub dry_run: bool,
    /// FROM was merged into INTO before: nothing was left to merge.
    pub already_merged: bool,
    /// FROM's sessions, now INTO's.
    pub sessions: u64,
    /// The turns of those sessions.
    pub turns: u64,
    /// Their segments (L3 rows, running or complete).
    pub segments: u64,
    /// Project summaries (L4 rows) of both projects removed, to be folded
    /// again.
    pub summaries_removed: u64,
    /// INTO's completed segments the next pass folds into its new project
    /// summary (those the removed ones held).
    pub segments_to_refold: u64,
}

/// Merge the project keyed `from` (the stored row, as given) into the one
/// keyed `into` (a project not merged itself), or, with `dry_run`, say
/// what that would move and write nothing. A second merge of the same two
/// finds nothing left to merge and writes nothing. Merging a project into
/// itself, or one merged elsewhere already, is a usage error.
pub fn merge(store: &mut Store, from: &str, into: &str, dry_run: bool) -> Result<MergeReport> {
    if dry_run {
        let mut r = plan(&store.conn, from, into)?;
        r.dry_run = true;
        return Ok(r);
    }
    let path = store.path.clone();
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    let report = plan(&tx, from, into)?;
    if report.already_merged {
        return Ok(report); // rolled back: nothing was written
    }
    apply(&tx, from, into).map_err(classify).with_context(|| format!("merging projects in {}", path.display()))?;
    tx.commit().map_err(classify).with_context(|| format!("database {}", path.display()))?;
    Ok(report)
}

/// The two projects checked, and what merging them moves.
fn plan(c: &Connection, from: &str, into: &str) -> Result<MergeReport> {
    let row = |key: &str| -> rusqlite::Result<Option<(String, Option<String>)>> {
        c.query_row("SELECT label, merged_into FROM projects WHERE key = ?1", [key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
    };
    let no_such = |key: &str| fail(Exit::Usage, format!("unknown project {key:?}; `ragger projects` lists them"));
    let (from_label, from_merged) = row(from)?.ok_or_else(|| no_such(from))?;
    let (into_label, into_merged) = row(into)?.ok_or_else(|| no_such(into))?;
    if let Some(target) = into_merged {
        let target = row(&target)?.map_or(target, |(l, _)| l);
        return Err(fail(Exit::Usage, format!("project {into_label:?} was merged into {target:?}; merge into that")));
    }
    let mut report = MergeReport { from: from_label.clone(), into: into_label.clone(), ..MergeReport::default() };
    match from_merged {
        Some(t) if t == into => {
            report.already_merged = true;
            return Ok(report);
        }
        Some(t) => {
            let t = row(&t)?.map_or(t, |(l, _)| l);
            return Err(fail(Exit::Usage, format!("project {from_label:?} was merged into {t:?} already")));
        }
        None if from == into => {
            return Err(fail(Exit::Usage, format!("project {from_label:?} cannot be merged into itself")));
        }
        None => {}
    }
    let (sessions, turns, segments, summaries_removed, segments_to_refold): (i64, i64, i64, i64, i64) = c
        .query_row(
            "SELECT (SELECT count(*) FROM sessions WHERE project = :from),
                    (SELECT count(*) FROM turns t JOIN sessions s ON s.id = t.session_id WHERE s.project = :from),
                    (SELECT count(*) FROM summaries WHERE level = 3 AND project = :from),
                    (SELECT count(*) FROM summaries WHERE level = 4 AND project IN (:from, :into)),
                    (SELECT count(*) FROM summaries WHERE level = 3 AND project IN (:from, :into) AND l4_state = 'done')",
            named_params! {":from": from, ":into": into},
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .map_err(classify)?;
    report.sessions = sessions as u64;
    report.turns = turns as u64;
    report.segments = segments as u64;
    report.summaries_removed = summaries_removed as u64;
    report.segments_to_refold = segments_to_refold as u64;
    Ok(report)
}

/// The writes of a merge, inside the caller's transaction.
fn apply(tx: &Connection, from: &str, into: &str) -> rusqlite::Result<()> {
    let p = named_params! {":from": from, ":into": into};
    // Segments leave their project summaries first (the rows are about to
    // go), and no claim on them survives: a fold read before the merge
    // no longer commits (its compare-and-set sees the claim gone).
    tx.execute(
        "UPDATE summaries SET l4_id = NULL, l4_state = CASE WHEN l4_state = 'done' THEN 'pending' ELSE l4_state END,
                lease_owner = NULL, lease_expires = NULL
         WHERE level = 3 AND project IN (:from, :into)",
        p,
    )?;
    tx.execute("UPDATE summaries SET project = :into WHERE level = 3 AND project = :from", p)?;
    tx.execute("UPDATE sessions SET project = :into WHERE project = :from", p)?;
    tx.execute(
        "DELETE FROM embeddings WHERE kind = 'summary'
            AND row_id IN (SELECT id FROM summaries WHERE level = 4 AND project IN (:from, :into))",
        p,
    )?;
    tx.execute("DELETE FROM summaries WHERE level = 4 AND project IN (:from, :into)", p)?;
    tx.execute("UPDATE projects SET merged_into = :into WHERE key = :from OR merged_into = :from", p)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Spec;
    use crate::store::projects::{ensure, find, Found};

    /// Projects `old` (one closed session, two turns, a complete segment in
    /// its L4) and `new` (one session, one turn, a complete segment in its
    /// L4, a vector of that L4), as `ensure` and the fold would leave them.
    fn two_projects() -> Store {
        let store = Store::memory().unwrap();
        let old = ensure(&store.conn, &Spec { name: "old".into(), root: Some("/w/old".into()) }).unwrap();
        let new = ensure(&store.conn, &Spec { name: "new".into(), root: Some("/w/new".into()) }).unwrap();
        store
            .conn
            .execute_batch(&format!(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at, next_fold_seq)
                     VALUES (1, 's-old', '{old}', 1, 2, 1, 3), (2, 's-new', '{new}', 3, 3, 3, 2);
                 INSERT INTO summaries (id, level, project, status, content, tokens, first_l3_id, last_l3_id,
                                        model, prompt_version, created_at, updated_at)
                     VALUES (10, 4, '{old}', 'running', 'Old project.', 2, 1, 1, 'm', 1, 2, 2),
                            (20, 4, '{new}', 'running', 'New project.', 2, 2, 2, 'm', 1, 3, 3);
                 INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id,
                                        last_turn_id, first_seq, last_seq, model, prompt_version, created_at,
                                        updated_at, completed_at, l4_id, l4_state)
                     VALUES (1, 3, 1, '{old}', 'complete', 'Old segment.', 2, 1, 2, 1, 2, 'm', 1, 2, 2, 2, 10, 'done'),
                            (2, 3, 2, '{new}', 'complete', 'New segment.', 2, 3, 3, 1, 1, 'm', 1, 3, 3, 3, 20, 'done');
                 INSERT INTO turns (id, session_id, idem_key, at, captured_at, user_text, assistant_text, tokens)
                     VALUES (1, 1, 'a', 1, 1, 'u1', 'a1', 2), (2, 1, 'b', 2, 2, 'u2', 'a2', 2),
                            (3, 2, 'c', 3, 3, 'u3', 'a3', 2);
                 UPDATE turns SET l2 = 'L2 of ' || user_text || '.', l2_state = 'done',
                        l3_id = CASE WHEN session_id = 1 THEN 1 ELSE 2 END,
                        fold_seq = CASE id WHEN 2 THEN 2 ELSE 1 END;
                 INSERT INTO embeddings (kind, row_id, version, model, dim, vector, created_at)
                     VALUES ('summary', 20, 1, 'e', 1, x'00000000', 3);"
            ))
            .unwrap();
        store
    }

    fn count(store: &Store, sql: &str) -> i64 {
        store.conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn a_merge_moves_sessions_and_segments_and_queues_the_project_summary_again() {
        let mut store = two_projects();
        let (old, new) = ("/w/old", "/w/new");
        let dry = merge(&mut store, old, new, true).unwrap();
        let expected = MergeReport {
            from: "old".into(),
            into: "new".into(),
            dry_run: true,
            already_merged: false,
            sessions: 1,
            turns: 2,
            segments: 1,
            summaries_removed: 2,
            segments_to_refold: 2,
        };
        assert_eq!(dry, expected);
        assert_eq!(
            count(&store, "SELECT count(*) FROM sessions WHERE project = '/w/old'"),
            1,
            "a dry run writes nothing"
        );

        let done = merge(&mut store, old, new, false).unwrap();
        assert_eq!(done, MergeReport { dry_run: false, ..expected });
        assert_eq!(count(&store, "SELECT count(*) FROM sessions WHERE project = '/w/new'"), 2);
        assert_eq!(count(&store, "SELECT count(*) FROM summaries WHERE level = 3 AND project = '/w/new'"), 2);
        assert_eq!(count(&store, "SELECT count(*) FROM summaries WHERE level = 4"), 0);
        assert_eq!(count(&store, "SELECT count(*) FROM summaries WHERE level = 3 AND l4_state = 'pending'"), 2);
        assert_eq!(count(&store, "SELECT count(*) FROM embeddings"), 0);
        assert!(crate::store::check::check(&store).unwrap().is_empty());

        // Lookups follow the merge: FROM's folder and name are INTO now.
        assert_eq!(
            find(&store.conn, &Spec { name: "old".into(), root: Some(old.into()) }).unwrap(),
            Found::Key(new.into())
        );
        assert_eq!(ensure(&store.conn, &Spec::named("old")).unwrap(), new);
        assert_eq!(crate::store::projects::follow(&store.conn, old).unwrap(), new);

        // Again: nothing left, nothing written.
        let again = merge(&mut store, old, new, false).unwrap();
        assert!(again.already_merged && again.sessions == 0 && again.summaries_removed == 0, "{again:?}");
    }

    #[test]
    fn a_merge_into_itself_or_into_a_merged_project_is_refused_and_merges_stay_one_step() {
        let mut store = two_projects();
        let third = ensure(&store.conn, &Spec { name: "third".into(), root: Some("/w/third".into()) }).unwrap();
        store
            .conn
            .execute_batch(&format!(
                "INSERT INTO sessions (external_id, project, first_at, last_at, created_at) VALUES ('s3', '{third}', 4, 4, 4)"
            ))
            .unwrap();
        let code = |e: anyhow::Error| (crate::exit::code_of(&e, &[]), e.to_string());
        let (exit, msg) = code(merge(&mut store, "/w/new", "/w/new", false).unwrap_err());
        assert_eq!((exit, msg.as_str()), (Exit::Usage, "project \"new\" cannot be merged into itself"));
        merge(&mut store, "/w/old", "/w/new", false).unwrap();
        let (exit, msg) = code(merge(&mut store, "/w/third", "/w/old", false).unwrap_err());
        assert_eq!(exit, Exit::Usage);
        assert_eq!(msg, "project \"old\" was merged into \"new\"; merge into that");
        let (_, msg) = code(merge(&mut store, "/w/old", "/w/third", false).unwrap_err());
        assert_eq!(msg, "project \"old\" was merged into \"new\" already");
        // INTO merged in turn: what was merged into it follows it there.
        merge(&mut store, "/w/new", "/w/third", false).unwrap();
        let merged: Vec<(String, String)> = store
            .conn
            .prepare("SELECT key, merged_into FROM projects WHERE merged_into IS NOT NULL ORDER BY key")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(merged, [("/w/new".into(), "/w/third".into()), ("/w/old".into(), "/w/third".into())]);
        assert_eq!(count(&store, "SELECT count(*) FROM sessions WHERE project = '/w/third'"), 3);
        assert!(crate::store::check::check(&store).unwrap().is_empty());
    }

    #[test]
    fn forgetting_the_project_merged_into_drops_the_merged_rows_with_it() {
        let mut store = two_projects();
        merge(&mut store, "/w/old", "/w/new", false).unwrap();
        crate::store::projects::drop_unused(&store.conn).unwrap();
        assert_eq!(count(&store, "SELECT count(*) FROM projects"), 2, "a merged row lasts while its target does");
        store
            .conn
            .execute_batch(
                "DELETE FROM turns; UPDATE summaries SET l4_id = NULL; DELETE FROM summaries; DELETE FROM sessions;",
            )
            .unwrap();
        crate::store::projects::drop_unused(&store.conn).unwrap();
        assert_eq!(count(&store, "SELECT count(*) FROM projects"), 0);
    }
}
