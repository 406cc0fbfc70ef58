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

/// Sessions with L2s waiting to be folded, by id, from the skip cursor on.
/// When the scan reaches the end it starts over once (new work may have
/// appeared below the cursor); an empty result means no session is ready.
pub fn sessions_to_fold(conn: &Connection, session: Option<i64>, skip: &mut Skip, n: usize) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT session_id FROM turns
         WHERE l3_id IS NULL AND l2_state = 'done' AND session_id >= ?3 AND (?1 IS NULL OR session_id = ?1)
         ORDER BY session_id LIMIT ?2",
    )?;
    for restart in [false, true] {
        if restart {
            if skip.session_cursor == 0 {
                break;
            }
            skip.session_cursor = 0;
        }
        loop {
            let ids = stmt
                .query_map(params![session, n as i64, skip.session_cursor], |r| r.get::<_, i64>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let Some(&last) = ids.last() else { break };
            let ready: Vec<i64> = ids.into_iter().filter(|id| !skip.sessions.contains(id)).collect();
            if !ready.is_empty() {
                skip.session_cursor = ready[0];
                return Ok(ready);
            }
            skip.session_cursor = last + 1;
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
