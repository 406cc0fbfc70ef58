//! The work queue, derived from the database state (no job table). Its
//! conditions are written here once, as SQL fragments, and every reader of
//! the queue (the pass, `status`, `summarize --dry-run`, housekeeping,
//! the progress bar) goes through the functions below.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use rusqlite::{named_params, params, Connection, OpenFlags, OptionalExtension};

use super::{now_ms, Store};

/// A turn waiting for its L2.
pub const PENDING_L2: &str = "l2_state = 'pending'";
/// A turn whose L2 is written but not folded into an L3 yet (the partial
/// index `turns_foldable` has this condition).
pub const FOLDABLE: &str = "l3_id IS NULL AND l2_state = 'done'";
/// A turn not folded yet whose L2 did not fail: waiting for its L2 or its
/// fold (a session with such turns is not closed).
pub const UNFOLDED: &str = "l3_id IS NULL AND l2_state <> 'failed'";
/// A row (turn or summary) claimed by some pass.
pub const LEASED: &str = "lease_owner IS NOT NULL";
/// A complete L3 waiting for its project's L4 fold.
pub const PENDING_L4: &str = "l4_state = 'pending'";
/// The running L3 of session `?1`.
pub const RUNNING_L3: &str = "level = 3 AND session_id = ?1 AND status = 'running'";
/// A turn whose L2 used its last attempt.
pub const FAILED_L2: &str = "l2_state = 'failed'";
/// An L3 whose project fold used its last attempt.
pub const FAILED_L4: &str = "l4_state = 'failed'";
/// A claim that `:owner` may take at `:now`: unowned, its own, or expired.
pub const FREE: &str = "(lease_owner IS NULL OR lease_owner = :owner OR lease_expires < :now)";
/// Rows of session `?1`, or of every session when `?1` is NULL.
const OF_SESSION: &str = "(?1 IS NULL OR session_id = ?1)";

/// The row id of the session with this external id.
pub fn session_id(store: &Store, external: &str) -> Result<Option<i64>> {
    Ok(store
        .conn
        .prepare_cached("SELECT id FROM sessions WHERE external_id = ?1")?
        .query_row([external], |r| r.get(0))
        .optional()?)
}

pub struct L2Item {
    pub id: i64,
    pub user: String,
    pub assistant: String,
    pub attempts: i64,
    /// What the user said in the turns before it in its session, newest
    /// first, by event time (at most [`EARLIER_TURNS`]): a follow-up
    /// ("That fixed it.", "ok commit") is read with the request it goes
    /// back to.
    pub earlier: Vec<String>,
}

/// How many earlier turns' user texts an [`L2Item`] carries.
pub const EARLIER_TURNS: usize = 4;

/// Up to `n` turns waiting for their L2 whose claim `owner` may take, by
/// id, leaving out those in `skip`.
pub fn pending_l2(
    store: &Store,
    owner: &str,
    session: Option<i64>,
    n: usize,
    skip: &HashSet<i64>,
) -> Result<Vec<L2Item>> {
    let sql = format!(
        "SELECT id, user_text, assistant_text, attempts, session_id, at
         FROM turns
         WHERE {PENDING_L2} AND {FREE} AND (:session IS NULL OR session_id = :session)
         ORDER BY id LIMIT :n"
    );
    let mut stmt = store.conn.prepare_cached(&sql)?;
    let want = n + skip.len();
    let rows = stmt.query_map(
        named_params! {":owner": owner, ":now": now_ms(), ":session": session, ":n": want as i64},
        |r| {
            let item = L2Item {
                id: r.get(0)?,
                user: r.get(1)?,
                assistant: r.get(2)?,
                attempts: r.get(3)?,
                earlier: Vec::new(),
            };
            Ok((item, r.get::<_, i64>(4)?, r.get::<_, i64>(5)?))
        },
    )?;
    let mut out = Vec::new();
    for row in rows {
        let (mut item, session_id, at) = row?;
        if skip.contains(&item.id) {
            continue;
        }
        item.earlier = earlier_requests(store, session_id, at, item.id)?;
        out.push(item);
        if out.len() == n {
            break;
        }
    }
    Ok(out)
}

/// The user texts of the turns said before (`at`, `id`) in a session,
/// newest first.
fn earlier_requests(store: &Store, session: i64, at: i64, id: i64) -> Result<Vec<String>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT user_text FROM turns WHERE session_id = ?1 AND (at, id) < (?2, ?3)
         ORDER BY at DESC, id DESC LIMIT ?4",
    )?;
    let rows = stmt.query_map(params![session, at, id, EARLIER_TURNS as i64], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The first session at or after ?2 (only ?1 when given) with an L2 to fold.
fn next_foldable_sql() -> String {
    format!(
        "SELECT session_id FROM turns INDEXED BY turns_foldable
         WHERE {FOLDABLE} AND session_id >= ?2 AND {OF_SESSION} ORDER BY session_id LIMIT 1"
    )
}

/// Up to `n` sessions with L2s waiting to be folded, by id, from `cursor`
/// on, leaving out those in `skip`. When the scan reaches the end it
/// starts over once (new work may have appeared below the cursor); an
/// empty result means no session is ready. `cursor` moves past sessions
/// passed over, so they are not read again on every step.
///
/// A loose index scan over `turns_foldable`: one seek per session found,
/// so the cost does not grow with the turns each session has waiting.
pub fn sessions_to_fold(
    store: &Store,
    session: Option<i64>,
    skip: &HashSet<i64>,
    cursor: &mut i64,
    n: usize,
) -> Result<Vec<i64>> {
    let mut next = store.conn.prepare_cached(&next_foldable_sql())?;
    for restart in [false, true] {
        if restart {
            if *cursor == 0 {
                break;
            }
            *cursor = 0;
        }
        let mut ready = Vec::new();
        let mut from = *cursor;
        while ready.len() < n {
            let Some(sid) = next.query_row(params![session, from], |r| r.get::<_, i64>(0)).optional()? else {
                break;
            };
            if !skip.contains(&sid) {
                ready.push(sid);
            } else if ready.is_empty() {
                // Passed over for the rest of the pass: the next scan starts after it.
                *cursor = sid + 1;
            }
            from = sid + 1;
        }
        if !ready.is_empty() {
            *cursor = ready[0];
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
    /// Whether the model's decoding wrote the L2 (else it is extractive).
    pub l2_by_model: bool,
    pub fold_attempts: i64,
}

/// The session's next turns in fold order (event time, then id), as long
/// as their L2 exists. A turn still waiting for its L2 blocks the ones
/// after it; turns whose L2 failed are passed over.
pub fn fold_head(store: &Store, session: i64, max: usize) -> Result<Vec<FoldTurn>> {
    let mut stmt = store.conn.prepare_cached(&format!(
        "SELECT id, l2_state, l2, fold_attempts, l2_model, coalesce(l2_origin = 'model', 0) FROM turns
         WHERE session_id = ?1 AND {UNFOLDED} ORDER BY at, id LIMIT ?2"
    ))?;
    let mut rows = stmt.query(params![session, max as i64])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let state: String = r.get(1)?;
        if state != "done" {
            break;
        }
        out.push(FoldTurn {
            id: r.get(0)?,
            l2: r.get(2)?,
            fold_attempts: r.get(3)?,
            l2_model: r.get(4)?,
            l2_by_model: r.get(5)?,
        });
    }
    Ok(out)
}

/// What the threshold gate weighs, read in one aggregate query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    /// L2s ready to fold.
    pub new_l2s: i64,
    /// The session's token total.
    pub session_tokens: i64,
    /// No turn for at least the pause.
    pub idle: bool,
}

pub fn gate(store: &Store, session: i64, pause_ms: i64) -> Result<Gate> {
    let (new_l2s, session_tokens, last_at): (i64, i64, i64) = store
        .conn
        .prepare_cached(&format!(
            "SELECT (SELECT count(*) FROM turns WHERE session_id = s.id AND {FOLDABLE}), s.tokens, s.last_at
         FROM sessions s WHERE s.id = ?1"
        ))?
        .query_row([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(Gate { new_l2s, session_tokens, idle: last_at <= now_ms() - pause_ms })
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

/// Take leases on rows of `table` by id until `expires`; returns the ids
/// actually claimed.
pub fn claim(store: &mut Store, table: Table, ids: &[i64], owner: &str, expires: i64) -> Result<Vec<i64>> {
    let now = now_ms();
    let tx = store.write()?;
    let mut got = Vec::new();
    {
        let sql =
            format!("UPDATE {} SET lease_owner = :owner, lease_expires = :exp WHERE id = :id AND {FREE}", table.name());
        let mut stmt = tx.prepare_cached(&sql)?;
        for id in ids {
            if stmt.execute(named_params! {":owner": owner, ":exp": expires, ":id": id, ":now": now})? == 1 {
                got.push(*id);
            }
        }
    }
    tx.commit()?;
    Ok(got)
}

/// Give back `owner`'s leases on these rows.
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

/// Claims held by any process (turns and summaries).
pub fn leased(store: &Store) -> Result<i64> {
    Ok(store.conn.query_row(
        &format!(
            "SELECT (SELECT count(*) FROM turns WHERE {LEASED}) + (SELECT count(*) FROM summaries WHERE {LEASED})"
        ),
        [],
        |r| r.get(0),
    )?)
}

/// Clear every claim (only a pass holding the run lock may). Returns how
/// many were cleared; without claims, no write transaction at all.
pub fn clear_leases(store: &mut Store) -> Result<u64> {
    let any: bool = store.conn.query_row(
        &format!(
            "SELECT EXISTS (SELECT 1 FROM turns WHERE {LEASED}) OR EXISTS (SELECT 1 FROM summaries WHERE {LEASED})"
        ),
        [],
        |r| r.get(0),
    )?;
    if !any {
        return Ok(0);
    }
    let tx = store.write()?;
    let mut n = 0;
    for table in ["turns", "summaries"] {
        n += tx.execute(&format!("UPDATE {table} SET lease_owner = NULL, lease_expires = NULL WHERE {LEASED}"), [])?;
    }
    tx.commit()?;
    Ok(n as u64)
}

/// A kind of work a housekeeping tick finds (the first found, in this
/// order, is named).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Claims to recover (orphans once the run lock is held).
    Leased,
    /// Turns waiting for their L2.
    PendingL2,
    /// L2s waiting to be folded.
    Foldable,
    /// Complete L3s waiting for their project's L4 fold.
    PendingL4,
    /// Open sessions idle past the pause: to close.
    IdleSession,
    /// Rows without a vector of any kind (only asked when the embedder is on).
    Unembedded,
}

impl Work {
    pub const ALL: [Work; 6] =
        [Work::Leased, Work::PendingL2, Work::Foldable, Work::PendingL4, Work::IdleSession, Work::Unembedded];
}

/// Whether a housekeeping tick has anything to do, in one statement over
/// the partial indexes: each condition is the one the tick's own step
/// acts on (recovering claims, the pass's levels, closing sessions idle
/// since `idle_before`, embedding when `vectors`), so `None` means the
/// tick would find nothing. Spooled turns are not looked at: they are
/// stored before this is asked, and then are pending L2s.
pub fn tick_work(store: &Store, idle_before: i64, vectors: bool) -> Result<Option<Work>> {
    let found: usize =
        store.conn.query_row(&tick_work_sql(vectors), named_params! {":before": idle_before}, |r| r.get(0))?;
    Ok(found.checked_sub(1).map(|i| Work::ALL[i]))
}

/// `CASE WHEN <work of Work::ALL[0]> THEN 1 ... ELSE 0 END`: SQLite stops
/// at the first condition that holds.
fn tick_work_sql(vectors: bool) -> String {
    let exists = |table: &str, cond: &str| format!("EXISTS (SELECT 1 FROM {table} WHERE {cond})");
    let mut sql = String::from("SELECT CASE");
    for (i, w) in Work::ALL.iter().enumerate() {
        let cond = match w {
            Work::Leased => format!("{} OR {}", exists("turns", LEASED), exists("summaries", LEASED)),
            Work::PendingL2 => exists("turns", PENDING_L2),
            Work::Foldable => exists("turns", FOLDABLE),
            Work::PendingL4 => exists("summaries", PENDING_L4),
            Work::IdleSession => exists("sessions", super::sessions::IDLE_OPEN),
            Work::Unembedded if vectors => super::embeddings::Kind::ALL
                .iter()
                .map(|k| format!("EXISTS (SELECT 1 {})", k.missing_sql()))
                .collect::<Vec<_>>()
                .join(" OR "),
            Work::Unembedded => continue,
        };
        sql += &format!(" WHEN {cond} THEN {}", i + 1);
    }
    sql + " ELSE 0 END"
}

/// The queue's sizes, of one session or of all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub pending_l2: i64,
    /// L2s waiting to be folded.
    pub foldable: i64,
    pub pending_l4: i64,
}

impl Counts {
    /// Items still waiting: turns without L2, L2s not folded, L3s not in an L4.
    pub fn remaining(&self) -> u64 {
        (self.pending_l2 + self.foldable + self.pending_l4) as u64
    }
}

pub fn counts(store: &Store, session: Option<i64>) -> Result<Counts> {
    Ok(store
        .conn
        .prepare_cached(&format!(
            "SELECT (SELECT count(*) FROM turns WHERE {PENDING_L2} AND {OF_SESSION}),
                (SELECT count(*) FROM turns WHERE {FOLDABLE} AND {OF_SESSION}),
                (SELECT count(*) FROM summaries WHERE {PENDING_L4} AND {OF_SESSION})"
        ))?
        .query_row([session], |r| Ok(Counts { pending_l2: r.get(0)?, foldable: r.get(1)?, pending_l4: r.get(2)? }))?)
}

/// Failed items: turns whose L2 and L3s whose L4 fold used their last attempt.
pub fn failed(store: &Store) -> Result<(i64, i64)> {
    Ok(store.conn.query_row(
        &format!(
            "SELECT (SELECT count(*) FROM turns WHERE {FAILED_L2}), (SELECT count(*) FROM summaries WHERE {FAILED_L4})"
        ),
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Capture time of the oldest turn still waiting for its L2 or its fold
/// (one row of a partial index, whatever the size of the database).
pub fn oldest_unfolded_ms(store: &Store) -> Result<Option<i64>> {
    Ok(store
        .conn
        .query_row(&format!("SELECT captured_at FROM turns WHERE {UNFOLDED} ORDER BY id LIMIT 1"), [], |r| r.get(0))
        .optional()?)
}

/// A second, read-only handle on the store's file, for readers beside a
/// pass that holds the store (`None` when it cannot be opened).
pub fn reader(path: &Path) -> Option<Store> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    Some(Store { conn, path: path.to_path_buf() })
}

#[cfg(test)]
mod tests;
