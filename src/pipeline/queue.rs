//! The work queue, derived from the database state (no job table): which
//! turns need an L2, which sessions have L2s to fold, which completed L3s
//! wait for their project summary. Also claims (leases) and their release.

use std::collections::HashSet;

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};

use super::LEASE;
use crate::store::{now_ms, Store};

/// Items that failed in this pass: retried next run, not again now.
#[derive(Default)]
pub struct Skip {
    pub turns: HashSet<i64>,
    pub sessions: HashSet<i64>,
    pub l3_rows: HashSet<i64>,
    /// Where the scan for sessions to fold resumes, so sessions passed over
    /// (gated, blocked, failed) are not read again on every step.
    pub session_cursor: i64,
}

pub fn session_id(conn: &Connection, external: &str) -> rusqlite::Result<Option<i64>> {
    conn.query_row("SELECT id FROM sessions WHERE external_id = ?1", [external], |r| r.get(0)).optional()
}

/// A claim is free when unowned, ours, or expired.
const FREE: &str = "(lease_owner IS NULL OR lease_owner = :owner OR lease_expires < :now)";

pub struct L2Item {
    pub id: i64,
    pub user: String,
    pub assistant: String,
    pub attempts: i64,
}

pub fn pending_l2(conn: &Connection, owner: &str, session: Option<i64>, n: usize, skip: &Skip) -> Result<Vec<L2Item>> {
    let sql = format!(
        "SELECT id, user_text, assistant_text, attempts FROM turns
         WHERE l2_state = 'pending' AND {FREE} AND (:session IS NULL OR session_id = :session)
         ORDER BY id LIMIT :n"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let want = n + skip.turns.len();
    let rows = stmt.query_map(
        rusqlite::named_params! {":owner": owner, ":now": now_ms(), ":session": session, ":n": want as i64},
        |r| Ok(L2Item { id: r.get(0)?, user: r.get(1)?, assistant: r.get(2)?, attempts: r.get(3)? }),
    )?;
    let mut out = Vec::new();
    for row in rows {
        let item = row?;
        if !skip.turns.contains(&item.id) {
            out.push(item);
        }
        if out.len() == n {
            break;
        }
    }
    Ok(out)
}

/// The first session at or after ?2 (only ?1 when given) with an L2 to fold.
const NEXT_FOLDABLE: &str = "SELECT session_id FROM turns INDEXED BY turns_foldable
     WHERE l3_id IS NULL AND l2_state = 'done' AND session_id >= ?2 AND (?1 IS NULL OR session_id = ?1)
     ORDER BY session_id LIMIT 1";

/// Sessions with L2s waiting to be folded, by id, from the skip cursor on.
/// When the scan reaches the end it starts over once (new work may have
/// appeared below the cursor); an empty result means no session is ready.
///
/// A loose index scan over `turns_foldable`: one seek per session found,
/// so the cost does not grow with the turns each session has waiting.
pub fn sessions_to_fold(conn: &Connection, session: Option<i64>, skip: &mut Skip, n: usize) -> Result<Vec<i64>> {
    let mut next = conn.prepare_cached(NEXT_FOLDABLE)?;
    for restart in [false, true] {
        if restart {
            if skip.session_cursor == 0 {
                break;
            }
            skip.session_cursor = 0;
        }
        let mut ready = Vec::new();
        let mut from = skip.session_cursor;
        while ready.len() < n {
            let Some(sid) = next.query_row(params![session, from], |r| r.get::<_, i64>(0)).optional()? else {
                break;
            };
            if !skip.sessions.contains(&sid) {
                ready.push(sid);
            } else if ready.is_empty() {
                // Passed over for the rest of the pass: the next scan starts after it.
                skip.session_cursor = sid + 1;
            }
            from = sid + 1;
        }
        if !ready.is_empty() {
            skip.session_cursor = ready[0];
            return Ok(ready);
        }
    }
    Ok(vec![])
}

#[derive(Clone, Debug)]
pub struct FoldTurn {
    pub id: i64,
    pub l2: String,
    /// The model that wrote the L2 (provenance of a summary copied from it).
    pub l2_model: String,
    pub fold_attempts: i64,
}

/// The session's next turns in fold order (event time, then id), as long
/// as their L2 exists. A turn still waiting for its L2 blocks the ones
/// after it; turns whose L2 failed are passed over.
pub fn fold_head(conn: &Connection, session: i64, max: usize) -> Result<Vec<FoldTurn>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, l2_state, l2, fold_attempts, l2_model FROM turns
         WHERE session_id = ?1 AND l3_id IS NULL AND l2_state <> 'failed'
         ORDER BY at, id LIMIT ?2",
    )?;
    let mut rows = stmt.query(params![session, max as i64])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let state: String = r.get(1)?;
        if state != "done" {
            break;
        }
        out.push(FoldTurn { id: r.get(0)?, l2: r.get(2)?, fold_attempts: r.get(3)?, l2_model: r.get(4)? });
    }
    Ok(out)
}

/// The threshold gate, one aggregate query: new L2s ready to fold and the
/// session's token total, plus whether the session is idle.
pub struct Gate {
    pub new_l2s: i64,
    pub session_tokens: i64,
    pub idle: bool,
}

pub fn gate(conn: &Connection, session: i64, pause_ms: i64) -> Result<Gate> {
    let (new_l2s, session_tokens, last_at): (i64, i64, i64) = conn.query_row(
        "SELECT (SELECT count(*) FROM turns WHERE session_id = s.id AND l3_id IS NULL AND l2_state = 'done'),
                s.tokens, s.last_at
         FROM sessions s WHERE s.id = ?1",
        [session],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(Gate { new_l2s, session_tokens, idle: last_at <= now_ms() - pause_ms })
}

/// Take leases on rows of `table` by id; returns the ids actually claimed.
pub fn claim(store: &mut Store, table: Table, ids: &[i64], owner: &str) -> Result<Vec<i64>> {
    let now = now_ms();
    let expires = now + LEASE.as_millis() as i64;
    let tx = store.write()?;
    let mut got = Vec::new();
    {
        let sql =
            format!("UPDATE {} SET lease_owner = :owner, lease_expires = :exp WHERE id = :id AND {FREE}", table.name());
        let mut stmt = tx.prepare_cached(&sql)?;
        for id in ids {
            if stmt.execute(rusqlite::named_params! {":owner": owner, ":exp": expires, ":id": id, ":now": now})? == 1 {
                got.push(*id);
            }
        }
    }
    tx.commit()?;
    Ok(got)
}

pub fn release(store: &mut Store, table: Table, ids: &[i64], owner: &str) -> Result<()> {
    let tx = store.write()?;
    {
        let sql = format!(
            "UPDATE {} SET lease_owner = NULL, lease_expires = NULL WHERE id = ?1 AND lease_owner = ?2",
            table.name()
        );
        let mut stmt = tx.prepare_cached(&sql)?;
        for id in ids {
            stmt.execute(params![id, owner])?;
        }
    }
    tx.commit()?;
    Ok(())
}

#[derive(Clone, Copy)]
pub enum Table {
    Turns,
    Summaries,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Turns => "turns",
            Table::Summaries => "summaries",
        }
    }
}

/// Items still waiting: turns without L2, L2s not folded, L3s not in an L4.
pub fn remaining(conn: &Connection, session: Option<i64>) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT (SELECT count(*) FROM turns WHERE l2_state = 'pending' AND (?1 IS NULL OR session_id = ?1))
              + (SELECT count(*) FROM turns WHERE l3_id IS NULL AND l2_state = 'done' AND (?1 IS NULL OR session_id = ?1))
              + (SELECT count(*) FROM summaries WHERE l4_state = 'pending' AND (?1 IS NULL OR session_id = ?1))",
        [session],
        |r| r.get(0),
    )?;
    Ok(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sessions 1..=5 with two turns each; `done` says whose L2s are done.
    fn store_with(done: &[i64]) -> Store {
        let store = Store::memory().unwrap();
        for s in 1..=5i64 {
            store
                .conn
                .execute("INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (?1, ?2, 'p', 0, 0, 0)", params![s, format!("s{s}")])
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

    #[test]
    fn sessions_to_fold_lists_only_sessions_with_done_unfolded_l2s() {
        let store = store_with(&[2, 4, 5]);
        let mut skip = Skip::default();
        assert_eq!(sessions_to_fold(&store.conn, None, &mut skip, 8).unwrap(), vec![2, 4, 5]);
        assert_eq!(sessions_to_fold(&store.conn, None, &mut skip, 2).unwrap(), vec![2, 4]);
        assert_eq!(sessions_to_fold(&store.conn, Some(4), &mut skip, 8).unwrap(), vec![4]);
        assert!(sessions_to_fold(&store.conn, Some(3), &mut skip, 8).unwrap().is_empty());
    }

    #[test]
    fn sessions_to_fold_passes_over_skipped_sessions_and_starts_over_once() {
        let store = store_with(&[2, 4, 5]);
        let mut skip = Skip::default();
        skip.sessions.extend([2, 4]);
        assert_eq!(sessions_to_fold(&store.conn, None, &mut skip, 8).unwrap(), vec![5]);
        assert_eq!(skip.session_cursor, 5);
        // Session 2 comes free again while the cursor is past it: found by the restart.
        skip.sessions.remove(&2);
        skip.sessions.insert(5);
        assert_eq!(sessions_to_fold(&store.conn, None, &mut skip, 8).unwrap(), vec![2]);
        skip.sessions.insert(2);
        assert!(sessions_to_fold(&store.conn, None, &mut skip, 8).unwrap().is_empty());
    }

    #[test]
    fn sessions_to_fold_seeks_the_foldable_index_instead_of_scanning_unfolded_turns() {
        let store = store_with(&[1]);
        let plan: Vec<String> = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {NEXT_FOLDABLE}"))
            .unwrap()
            .query_map(params![None::<i64>, 0], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(plan.iter().any(|p| p.contains("SEARCH turns USING INDEX turns_foldable (session_id>?)")), "{plan:?}");
    }
}
