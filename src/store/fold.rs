//! The fold's writes: a decided fold committed with a compare-and-set (one
//! `BEGIN IMMEDIATE` transaction that checks the state the fold read before
//! its model call, then writes), and a bad reply counted. The same shape
//! for both scopes; the statements differ by table.

use anyhow::Result;
use rusqlite::{params, Transaction};

use super::summaries::{complete_l3, complete_l4, running_version, FoldKey};
use super::{estimate_tokens, now_ms, Store};

/// Who wrote a summary: provenance stored with the row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub model: String,
    pub prompt_version: i64,
    /// `model`, `extractive` (the model's replies failed the grounding
    /// check) or `copy` (one item copied, no call needed).
    pub origin: &'static str,
}

/// What a fold writes.
#[derive(Debug)]
pub enum Change {
    /// The running summary absorbs the items.
    Update { content: String, written: Written, key_terms: String },
    /// The running summary (if any) is completed and a new one starts.
    Start { content: String, written: Written, reason: &'static str, score: Option<f32>, key_terms: String },
}

/// A decided fold, to commit.
pub struct FoldCommit<'a> {
    pub key: &'a FoldKey,
    /// The items folded, claimed by `owner`: a session's turns in fold
    /// order (L3), or the one completed L3 (L4).
    pub items: &'a [i64],
    /// The running summary's id and version when the fold read it.
    pub expected: Option<(i64, i64)>,
    pub owner: &'a str,
    pub change: Change,
}

/// Commit a fold if nothing moved since it was read: the running summary
/// is the same version and every item is still ours and unfolded. Returns
/// the id of the summary the items went into, or None when the state moved
/// (nothing written; the caller releases the items, retried next time).
pub fn commit_fold(store: &mut Store, c: &FoldCommit<'_>) -> Result<Option<i64>> {
    let tx = store.write()?;
    if running_version(&tx, c.key)? != c.expected || !items_still_ours(&tx, c.key, c.items, c.owner)? {
        return Ok(None); // dropped: rolled back
    }
    let now = now_ms();
    let target = match c.key {
        FoldKey::Session(sid) => write_l3(&tx, *sid, c, now)?,
        FoldKey::Project(project) => write_l4(&tx, project, c, now)?,
    };
    tx.commit()?;
    Ok(Some(target))
}

/// The second half of the compare: the items are still claimed by us and
/// not folded by anyone else.
fn items_still_ours(tx: &Transaction<'_>, key: &FoldKey, items: &[i64], owner: &str) -> Result<bool> {
    let sql = match key {
        FoldKey::Session(_) => "SELECT l3_id IS NULL AND lease_owner = ?2 FROM turns WHERE id = ?1",
        FoldKey::Project(_) => "SELECT l4_state = 'pending' AND lease_owner IS ?2 FROM summaries WHERE id = ?1",
    };
    let mut stmt = tx.prepare_cached(sql)?;
    for id in items {
        let ok: Option<bool> = rusqlite::OptionalExtension::optional(stmt.query_row(params![id, owner], |r| r.get(0)))?;
        if ok != Some(true) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// An L3 fold: the session's turns go into the running summary (or a new
/// one) and take the next fold sequence numbers.
fn write_l3(tx: &Transaction<'_>, sid: i64, c: &FoldCommit<'_>, now: i64) -> Result<i64> {
    let ids = c.items;
    let (first_seq, project): (i64, Option<String>) =
        tx.query_row("SELECT next_fold_seq, project FROM sessions WHERE id = ?1", [sid], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let last_seq = first_seq + ids.len() as i64 - 1;
    let (first_id, last_id) = (ids[0], *ids.last().expect("a fold has items"));
    let target = match &c.change {
        Change::Update { content, written, key_terms } => {
            let (id, _) = c.expected.expect("an update has a running summary");
            tx.execute(
                "UPDATE summaries SET content = ?2, tokens = ?3, version = version + 1, last_turn_id = ?4,
                        last_seq = ?5, updated_at = ?6, model = ?7, prompt_version = ?8, key_terms = ?9,
                        origin = CASE WHEN origin = 'extractive' THEN origin ELSE ?10 END
                 WHERE id = ?1",
                params![
                    id,
                    content,
                    estimate_tokens(content),
                    last_id,
                    last_seq,
                    now,
                    written.model,
                    written.prompt_version,
                    key_terms,
                    written.origin
                ],
            )?;
            id
        }
        Change::Start { content, written, reason, score, key_terms } => {
            if let Some((id, _)) = c.expected {
                complete_l3(tx, id, now)?;
            }
            tx.query_row(
                "INSERT INTO summaries (level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                        first_seq, last_seq, model, prompt_version, created_at, updated_at,
                        start_reason, start_score, key_terms, origin)
                 VALUES (3, ?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13, ?14, ?15) RETURNING id",
                params![
                    sid,
                    project,
                    content,
                    estimate_tokens(content),
                    first_id,
                    last_id,
                    first_seq,
                    last_seq,
                    written.model,
                    written.prompt_version,
                    now,
                    reason,
                    score,
                    key_terms,
                    written.origin
                ],
                |r| r.get::<_, i64>(0),
            )?
        }
    };
    {
        let mut stmt = tx.prepare_cached(
            "UPDATE turns SET l3_id = ?2, fold_seq = ?3, lease_owner = NULL, lease_expires = NULL WHERE id = ?1",
        )?;
        for (i, id) in ids.iter().enumerate() {
            stmt.execute(params![id, target, first_seq + i as i64])?;
        }
    }
    tx.execute("UPDATE sessions SET next_fold_seq = ?2 WHERE id = ?1", params![sid, last_seq + 1])?;
    Ok(target)
}

/// An L4 fold: the completed L3s go into their project's running summary
/// (or a new one), whose range then ends at the last of them.
fn write_l4(tx: &Transaction<'_>, project: &str, c: &FoldCommit<'_>, now: i64) -> Result<i64> {
    let (first, last) = (c.items[0], *c.items.last().expect("a fold has items"));
    let target = match &c.change {
        Change::Update { content, written, key_terms } => {
            let (id, _) = c.expected.expect("an update has a running summary");
            tx.execute(
                "UPDATE summaries SET content = ?2, tokens = ?3, version = version + 1, last_l3_id = ?4,
                        updated_at = ?5, model = ?6, prompt_version = ?7, key_terms = ?8,
                        origin = CASE WHEN origin = 'extractive' THEN origin ELSE ?9 END
                 WHERE id = ?1",
                params![
                    id,
                    content,
                    estimate_tokens(content),
                    last,
                    now,
                    written.model,
                    written.prompt_version,
                    key_terms,
                    written.origin
                ],
            )?;
            id
        }
        Change::Start { content, written, reason, score: _, key_terms } => {
            if let Some((id, _)) = c.expected {
                complete_l4(tx, id, now)?;
            }
            tx.query_row(
                "INSERT INTO summaries (level, project, status, content, tokens, first_l3_id, last_l3_id,
                        model, prompt_version, created_at, updated_at, start_reason, key_terms, origin)
                 VALUES (4, ?1, 'running', ?2, ?3, ?4, ?11, ?5, ?6, ?7, ?7, ?8, ?9, ?10) RETURNING id",
                params![
                    project,
                    content,
                    estimate_tokens(content),
                    first,
                    written.model,
                    written.prompt_version,
                    now,
                    reason,
                    key_terms,
                    written.origin,
                    last
                ],
                |r| r.get::<_, i64>(0),
            )?
        }
    };
    let mut done = tx.prepare_cached(
        "UPDATE summaries SET l4_id = ?2, l4_state = 'done', lease_owner = NULL, lease_expires = NULL WHERE id = ?1",
    )?;
    for item in c.items {
        done.execute(params![item, target])?;
    }
    Ok(target)
}

/// Count a bad reply against a fold (on its first item) and release its
/// claims: it is retried by a later pass.
pub fn count_fold_failure(store: &mut Store, key: &FoldKey, items: &[i64], why: &str, owner: &str) -> Result<()> {
    let tx = store.write()?;
    match key {
        FoldKey::Session(sid) => {
            tx.execute(
                "UPDATE turns SET fold_attempts = fold_attempts + 1, last_error = ?2, lease_owner = NULL, lease_expires = NULL
                 WHERE id = ?1 AND lease_owner = ?3",
                params![items[0], why, owner],
            )?;
            tx.execute(
                "UPDATE turns SET lease_owner = NULL, lease_expires = NULL WHERE session_id = ?1 AND lease_owner = ?2",
                params![sid, owner],
            )?;
        }
        FoldKey::Project(_) => {
            tx.execute(
                "UPDATE summaries SET attempts = attempts + 1, last_error = ?2, lease_owner = NULL, lease_expires = NULL
                 WHERE id = ?1 AND lease_owner = ?3",
                params![items[0], why, owner],
            )?;
            let mut release = tx.prepare_cached(
                "UPDATE summaries SET lease_owner = NULL, lease_expires = NULL WHERE id = ?1 AND lease_owner = ?2",
            )?;
            for id in &items[1..] {
                release.execute(params![id, owner])?;
            }
        }
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::summaries::running;

    /// Session 1 (project `p`) with turns 1..=n, their L2s done and claimed by `me`.
    fn session(n: i64) -> Store {
        let store = Store::memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (1, 's', 'p', 0, 0, 0)",
            )
            .unwrap();
        for id in 1..=n {
            store
                .conn
                .execute(
                    "INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens, l2, l2_state, lease_owner)
                     VALUES (?1, 1, ?1, 0, 'u', 'a', 1, 'x', 'done', 'me')",
                    [id],
                )
                .unwrap();
        }
        store
    }

    fn written() -> Written {
        Written { model: "m".into(), prompt_version: 2, origin: "model" }
    }

    fn start(content: &str) -> Change {
        Change::Start {
            content: content.into(),
            written: written(),
            reason: "first",
            score: None,
            key_terms: "t".into(),
        }
    }

    fn commit(
        store: &mut Store,
        key: &FoldKey,
        items: &[i64],
        expected: Option<(i64, i64)>,
        change: Change,
    ) -> Option<i64> {
        commit_fold(store, &FoldCommit { key, items, expected, owner: "me", change }).unwrap()
    }

    /// (l3_id, fold_seq, lease_owner) of a turn.
    fn turn(store: &Store, id: i64) -> (Option<i64>, Option<i64>, Option<String>) {
        store
            .conn
            .query_row("SELECT l3_id, fold_seq, lease_owner FROM turns WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap()
    }

    #[test]
    fn an_l3_fold_starts_a_summary_then_updates_it_and_numbers_the_turns() {
        let mut store = session(3);
        let key = FoldKey::Session(1);
        let id = commit(&mut store, &key, &[1, 2], None, start("first")).expect("nothing moved");
        assert_eq!((turn(&store, 1), turn(&store, 2)), ((Some(id), Some(1), None), (Some(id), Some(2), None)));
        let r = running(&store, &key).unwrap().expect("a running summary");
        assert_eq!((r.id, r.content.as_str(), r.version), (id, "first", 1));
        let update = Change::Update { content: "both".into(), written: written(), key_terms: "t; u".into() };
        assert_eq!(commit(&mut store, &key, &[3], Some((id, 1)), update), Some(id));
        assert_eq!(turn(&store, 3), (Some(id), Some(3), None));
        let r = running(&store, &key).unwrap().unwrap();
        assert_eq!((r.content.as_str(), r.version, r.key_terms.as_str()), ("both", 2, "t; u"));
        let next: i64 =
            store.conn.query_row("SELECT next_fold_seq FROM sessions WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(next, 4);
    }

    #[test]
    fn an_l3_fold_writes_nothing_when_the_summary_or_a_turn_moved() {
        let mut store = session(3);
        let key = FoldKey::Session(1);
        let id = commit(&mut store, &key, &[1], None, start("first")).unwrap();
        // Read at version 1, but another writer got there first.
        store.conn.execute("UPDATE summaries SET version = 2 WHERE id = ?1", [id]).unwrap();
        assert_eq!(commit(&mut store, &key, &[2], Some((id, 1)), start("late")), None);
        assert_eq!(turn(&store, 2), (None, None, Some("me".into())), "left claimed for the caller to release");
        // A turn whose claim was taken over.
        store.conn.execute("UPDATE turns SET lease_owner = 'other' WHERE id = 3", []).unwrap();
        assert_eq!(commit(&mut store, &key, &[2, 3], Some((id, 2)), start("late")), None);
        let r = running(&store, &key).unwrap().unwrap();
        assert_eq!((r.id, r.content.as_str()), (id, "first"));
    }

    #[test]
    fn an_l4_fold_completes_the_old_running_summary_and_marks_the_l3_done() {
        let mut store = session(2);
        let l3 = commit(&mut store, &FoldKey::Session(1), &[1], None, start("l3 one")).unwrap();
        let tx = store.write().unwrap();
        complete_l3(&tx, l3, 1).unwrap();
        tx.commit().unwrap();
        store.conn.execute("UPDATE summaries SET lease_owner = 'me' WHERE id = ?1", [l3]).unwrap();
        let key = FoldKey::Project("p".into());
        let old = commit(&mut store, &key, &[l3], None, start("project")).expect("nothing moved");
        let state: (String, Option<i64>) = store
            .conn
            .query_row("SELECT l4_state, l4_id FROM summaries WHERE id = ?1", [l3], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!(state, ("done".to_string(), Some(old)));
        // A second L3 that starts a new project summary completes the first.
        let l3b = commit(&mut store, &FoldKey::Session(1), &[2], None, start("l3 two")).unwrap();
        let tx = store.write().unwrap();
        complete_l3(&tx, l3b, 2).unwrap();
        tx.commit().unwrap();
        store.conn.execute("UPDATE summaries SET lease_owner = 'me' WHERE id = ?1", [l3b]).unwrap();
        let new = commit(&mut store, &key, &[l3b], Some((old, 1)), start("project two")).unwrap();
        assert_ne!(new, old);
        let status: String =
            store.conn.query_row("SELECT status FROM summaries WHERE id = ?1", [old], |r| r.get(0)).unwrap();
        assert_eq!(status, "complete");
        assert_eq!(running(&store, &key).unwrap().unwrap().id, new);
        // Folded already: a second commit of the same L3 is refused.
        assert_eq!(commit(&mut store, &key, &[l3b], Some((new, 1)), start("again")), None);
    }

    #[test]
    fn a_projects_waiting_l3s_are_taken_together_while_they_fit() {
        use crate::store::summaries::next_l4_items;
        use std::collections::HashSet;
        let mut store = session(3);
        let mut l3s = Vec::new();
        for (turn, text) in [(1, "a".repeat(40)), (2, "b".repeat(40)), (3, "c".repeat(40))] {
            let expected = l3s.last().map(|&id| (id, 1));
            let id = commit(&mut store, &FoldKey::Session(1), &[turn], expected, start(&text)).unwrap();
            l3s.push(id);
        }
        // The last one is still running: only completed L3s wait.
        let tx = store.write().unwrap();
        complete_l3(&tx, l3s[0], 1).unwrap();
        complete_l3(&tx, l3s[1], 1).unwrap();
        tx.commit().unwrap();
        let ids = |skip: &HashSet<i64>, max: usize, budget: usize| -> Vec<i64> {
            next_l4_items(&store, None, "me", skip, max, budget).unwrap().iter().map(|i| i.id).collect()
        };
        let none = HashSet::new();
        assert_eq!(ids(&none, 64, 100), vec![l3s[0], l3s[1]]);
        assert_eq!(ids(&none, 64, 50), vec![l3s[0]], "the second does not fit");
        assert_eq!(ids(&none, 64, 10), vec![l3s[0]], "the first is always taken");
        assert_eq!(ids(&none, 1, 100), vec![l3s[0]], "at most max");
        assert_eq!(ids(&HashSet::from([l3s[0]]), 64, 100), vec![l3s[1]]);
    }

    #[test]
    fn a_bad_reply_counts_on_the_first_turn_and_releases_the_session() {
        let mut store = session(2);
        count_fold_failure(&mut store, &FoldKey::Session(1), &[1, 2], "empty", "me").unwrap();
        let (attempts, error): (i64, String) = store
            .conn
            .query_row("SELECT fold_attempts, last_error FROM turns WHERE id = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((attempts, error.as_str()), (1, "empty"));
        assert_eq!((turn(&store, 1).2, turn(&store, 2).2), (None, None));
    }
}
