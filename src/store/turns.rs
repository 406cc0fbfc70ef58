//! Turns: storing raw turns (L1, the capture hot path: a few indexed
//! statements per turn, no scan) and writing their L2s.

use anyhow::{Context, Result};
use rusqlite::{params, OptionalExtension, Transaction};

use super::queue::PENDING_L2;
use super::{classify, estimate_tokens, now_ms, Store};

/// A validated turn, ready to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub session: String,
    pub project: Option<String>,
    pub user: String,
    pub assistant: String,
    pub at: i64,
    pub id: Option<String>,
    /// Secrets replaced in its texts (counted per session for `status`).
    pub redactions: i64,
}

/// What storing a batch of turns did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stored {
    pub stored: u64,
    pub duplicates: u64,
    /// Turns that named another project than their stored session's:
    /// (session, project kept, project asked), one per pair.
    pub moved: Vec<(String, String, String)>,
}

/// Store `batch` in one transaction.
pub fn store_batch(store: &mut Store, batch: &[Turn]) -> Result<Stored> {
    let mut out = Stored::default();
    if batch.is_empty() {
        return Ok(out);
    }
    let path = store.path.clone();
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    for t in batch {
        if let Some(kept) = other_project(&tx, t).map_err(classify)? {
            let asked = t.project.clone().unwrap_or_default();
            if !out.moved.iter().any(|(s, _, a)| s == &t.session && a == &asked) {
                out.moved.push((t.session.clone(), kept, asked));
            }
        }
        let stored =
            insert(&tx, t).map_err(classify).with_context(|| format!("storing a turn of session {}", t.session))?;
        if stored {
            out.stored += 1;
        } else {
            out.duplicates += 1;
        }
    }
    tx.commit().map_err(classify).with_context(|| format!("database {}", path.display()))?;
    Ok(out)
}

/// The project a stored session already belongs to, when `t` names
/// another one: a session keeps its first project (capture warns).
pub fn other_project(tx: &Transaction<'_>, t: &Turn) -> rusqlite::Result<Option<String>> {
    let Some(wanted) = t.project.as_deref() else { return Ok(None) };
    let have: Option<Option<String>> = tx
        .prepare_cached("SELECT project FROM sessions WHERE external_id = ?1")?
        .query_row([&t.session], |r| r.get(0))
        .optional()?;
    Ok(have.flatten().filter(|p| p != wanted))
}

/// Insert one turn inside the caller's transaction. Returns true when
/// stored, false when the idempotency key was already there.
pub fn insert(tx: &Transaction<'_>, t: &Turn) -> rusqlite::Result<bool> {
    let now = now_ms();
    let existing: Option<i64> = tx
        .prepare_cached("SELECT id FROM sessions WHERE external_id = ?1")?
        .query_row([&t.session], |r| r.get(0))
        .optional()?;
    let session_id = match existing {
        Some(id) => id,
        None => tx
            .prepare_cached(
                "INSERT INTO sessions (external_id, project, first_at, last_at, created_at)
                 VALUES (?1, ?2, ?3, ?3, ?4) RETURNING id",
            )?
            .query_row(params![t.session, t.project, t.at, now], |r| r.get(0))?,
    };
    let tokens = estimate_tokens(&t.user) + estimate_tokens(&t.assistant);
    let inserted = tx
        .prepare_cached(
            "INSERT INTO turns (session_id, idem_key, at, captured_at, user_text, assistant_text, tokens)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (session_id, idem_key) DO NOTHING",
        )?
        .execute(params![session_id, t.id, t.at, now, t.user, t.assistant, tokens])?;
    if inserted == 0 {
        return Ok(false);
    }
    // A late turn reopens a closed session; its running summary was
    // completed at close, so the next fold starts a new one.
    tx.prepare_cached(
        "UPDATE sessions SET first_at = min(first_at, ?2), last_at = max(last_at, ?2),
                closed_at = NULL, project = coalesce(project, ?3), tokens = tokens + ?4,
                redactions = redactions + ?5
         WHERE id = ?1",
    )?
    .execute(params![session_id, t.at, t.project, tokens, t.redactions])?;
    Ok(true)
}

/// How many turns are stored.
pub fn count(store: &Store) -> Result<i64> {
    Ok(store.conn.query_row("SELECT count(*) FROM turns", [], |r| r.get(0))?)
}

/// An L2 as written by the pass.
pub struct L2<'a> {
    pub text: &'a str,
    pub model: &'a str,
    pub prompt_version: i64,
    /// `model` or `extractive`.
    pub origin: &'a str,
}

/// Compare-and-set: only a turn still pending and claimed by `owner`
/// takes the L2. Returns whether it did.
pub fn commit_l2(store: &mut Store, id: i64, owner: &str, l2: &L2<'_>) -> Result<bool> {
    let tx = store.write()?;
    let n = tx.execute(
        &format!(
            "UPDATE turns SET l2 = ?1, l2_state = 'done', l2_tokens = ?2, l2_model = ?3, l2_prompt_version = ?4,
                    l2_at = ?5, last_error = NULL, lease_owner = NULL, lease_expires = NULL, l2_origin = ?8
             WHERE id = ?6 AND {PENDING_L2} AND lease_owner = ?7"
        ),
        params![l2.text, estimate_tokens(l2.text), l2.model, l2.prompt_version, now_ms(), id, owner, l2.origin],
    )?;
    tx.commit()?;
    Ok(n == 1)
}

/// Count a failed L2 attempt of a turn still pending and claimed by
/// `owner`; true when it was the last of `max_attempts` (the turn is now
/// `failed` and is not retried unless `ragger retry` says so).
pub fn fail_l2_attempt(store: &mut Store, id: i64, owner: &str, why: &str, max_attempts: u32) -> Result<bool> {
    let tx = store.write()?;
    let gave_up: Option<bool> = tx
        .query_row(
            &format!(
                "UPDATE turns SET attempts = attempts + 1, last_error = ?2,
                        l2_state = CASE WHEN attempts + 1 >= ?3 THEN 'failed' ELSE l2_state END,
                        lease_owner = NULL, lease_expires = NULL
                 WHERE id = ?1 AND {PENDING_L2} AND lease_owner = ?4
                 RETURNING l2_state = 'failed'"
            ),
            params![id, why, max_attempts, owner],
            |r| r.get(0),
        )
        .optional()?;
    tx.commit()?;
    Ok(gave_up.unwrap_or(false))
}
