//! `ragger failed` and `ragger retry`'s SQL: listing failed items, and
//! setting them back to pending with the folds after them undone, in one
//! transaction (see `crate::retry`).

use anyhow::{Context, Result};

use super::{classify, Store};
use serde::Serialize;

/// Failed turn summaries and project folds, oldest first.
pub fn failed(store: &Store) -> Result<Vec<FailedItem>> {
    let mut stmt = store.conn.prepare(
        "SELECT 'l2', t.id, s.external_id, coalesce((SELECT p.label FROM projects p WHERE p.key = s.project), s.project), t.at, t.attempts, t.last_error
           FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.l2_state = 'failed'
         UNION ALL
         SELECT 'l4', m.id, s.external_id, coalesce((SELECT p.label FROM projects p WHERE p.key = m.project), m.project), m.updated_at, m.attempts, m.last_error
           FROM summaries m LEFT JOIN sessions s ON s.id = m.session_id WHERE m.l4_state = 'failed'
         ORDER BY 5, 2",
    )?;
    let rows = stmt
        .query_map([], |r| {
            let kind: String = r.get(0)?;
            Ok(FailedItem {
                kind: if kind == "l2" { "l2" } else { "l4" },
                id: r.get(1)?,
                session: r.get(2)?,
                project: r.get(3)?,
                at: r.get(4)?,
                attempts: r.get(5)?,
                reason: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Set failed items back to pending, in one write transaction. Returns the
/// ids given that are not failed turns as the error.
pub fn retry(store: &mut Store, which: Which<'_>) -> Result<RetryReport> {
    let path = store.path.clone();
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS retry_turns (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE IF NOT EXISTS retry_from (session_id INTEGER PRIMARY KEY, from_seq INTEGER);
         DELETE FROM retry_turns; DELETE FROM retry_from;",
    )?;
    let mut report = RetryReport::default();
    match which {
        Which::All => {
            tx.execute("INSERT INTO retry_turns SELECT id FROM turns WHERE l2_state = 'failed'", [])?;
            report.reset += tx.execute(
                "UPDATE summaries SET l4_state = 'pending', attempts = 0, last_error = NULL WHERE l4_state = 'failed'",
                [],
            )? as u64;
        }
        Which::Turns(ids) => {
            let mut ins = tx.prepare(
                "INSERT OR IGNORE INTO retry_turns SELECT id FROM turns WHERE id = ?1 AND l2_state = 'failed'",
            )?;
            let mut missing = Vec::new();
            for id in ids {
                if ins.execute([id])? == 0 {
                    missing.push(id.to_string());
                }
            }
            if !missing.is_empty() {
                anyhow::bail!("no failed turn {} in {} (see `ragger failed`)", missing.join(", "), path.display());
            }
        }
    }
    // Per session, the first L3 row that folded a turn coming after a
    // retried one in fold order (event time, then id).
    tx.execute_batch(
        "INSERT INTO retry_from
         SELECT t.session_id, min(m.first_seq) FROM retry_turns r
           JOIN turns t ON t.id = r.id
           JOIN turns u ON u.session_id = t.session_id AND u.l3_id IS NOT NULL
                       AND (u.at > t.at OR (u.at = t.at AND u.id > t.id))
           JOIN summaries m ON m.id = u.l3_id
         GROUP BY t.session_id;",
    )?;
    let undone = undo_folds(&tx)?;
    report.turns_to_refold = undone.turns_to_refold;
    report.summaries_removed = undone.summaries_removed;
    tx.execute_batch(
        "UPDATE sessions SET closed_at = NULL
          WHERE id IN (SELECT t.session_id FROM turns t JOIN retry_turns r ON r.id = t.id);",
    )?;
    report.reset += tx.execute(
        "UPDATE turns SET l2_state = 'pending', attempts = 0, last_error = NULL
          WHERE id IN (SELECT id FROM retry_turns)",
        [],
    )? as u64;
    tx.execute_batch("DROP TABLE retry_turns; DROP TABLE retry_from;")?;
    tx.commit().map_err(classify).with_context(|| format!("database {}", path.display()))?;
    Ok(report)
}

/// What [`undo_folds`] did.
pub(super) struct Undone {
    pub turns_to_refold: u64,
    pub summaries_removed: u64,
}

/// Undo the folds of each session in the temporary table `retry_from`
/// (session_id, from_seq) from its L3 row starting at `from_seq` on: those
/// L3 rows go, their turns go back to the fold queue and the session's
/// fold positions restart at `from_seq`; in each project that loses an L3,
/// the L4 rows from the first one that folded it go too and their
/// remaining L3s are folded again. Shared by `retry` (a failed turn folds
/// in its place) and a turn whose stored text grew (`turns::store_turn`).
pub(super) fn undo_folds(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<Undone> {
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS retry_l3 (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE IF NOT EXISTS retry_l4 (id INTEGER PRIMARY KEY);
         DELETE FROM retry_l3; DELETE FROM retry_l4;
         INSERT INTO retry_l3 SELECT m.id FROM summaries m JOIN retry_from f ON f.session_id = m.session_id
          WHERE m.level = 3 AND m.first_seq >= f.from_seq;
         INSERT INTO retry_l4
         SELECT p.id FROM summaries p
         JOIN (SELECT m.project, min(m.l4_id) AS from_id FROM retry_l3 f JOIN summaries m ON m.id = f.id
               WHERE m.l4_id IS NOT NULL GROUP BY m.project) x ON x.project = p.project
         WHERE p.level = 4 AND p.id >= x.from_id;
         UPDATE summaries SET l4_id = NULL, l4_state = 'pending'
          WHERE level = 3 AND l4_id IN (SELECT id FROM retry_l4) AND id NOT IN (SELECT id FROM retry_l3);",
    )?;
    let turns_to_refold = tx
        .execute("UPDATE turns SET l3_id = NULL, fold_seq = NULL WHERE l3_id IN (SELECT id FROM retry_l3)", [])?
        as u64;
    tx.execute_batch(
        "UPDATE sessions SET next_fold_seq = (SELECT from_seq FROM retry_from f WHERE f.session_id = sessions.id),
                closed_at = NULL
          WHERE id IN (SELECT session_id FROM retry_from);
         DELETE FROM embeddings WHERE kind = 'summary'
            AND (row_id IN (SELECT id FROM retry_l3) OR row_id IN (SELECT id FROM retry_l4));",
    )?;
    let summaries_removed = tx
        .execute("DELETE FROM summaries WHERE id IN (SELECT id FROM retry_l3) OR id IN (SELECT id FROM retry_l4)", [])?
        as u64;
    tx.execute_batch("DROP TABLE retry_l3; DROP TABLE retry_l4;")?;
    Ok(Undone { turns_to_refold, summaries_removed })
}

/// One failed item as `ragger failed` shows it.
#[derive(Debug, Serialize)]
pub struct FailedItem {
    /// What failed: `l2` (a turn summary; `id` is the turn id) or `l4`
    /// (an L3 row's project fold; `id` is the summary id).
    pub kind: &'static str,
    pub id: i64,
    pub session: Option<String>,
    pub project: Option<String>,
    /// Turn time (l2) or last update (l4), ms; RFC 3339 UTC in JSON.
    #[serde(serialize_with = "crate::when::serialize_utc")]
    pub at: i64,
    pub attempts: i64,
    /// The last reason the memory model's reply was refused.
    pub reason: Option<String>,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct RetryReport {
    /// Failed items set back to pending.
    pub reset: u64,
    /// Turns put back in the fold queue so the retried ones fold in order.
    pub turns_to_refold: u64,
    /// L3 and L4 rows removed to be folded again.
    pub summaries_removed: u64,
}

/// Which failed items to retry.
pub enum Which<'a> {
    All,
    /// Turn ids (as `ragger failed` and `show --json` print them).
    Turns(&'a [i64]),
}
