//! `ragger redact` on a database written before redaction (or before a
//! new rule): apply the current rules to stored turns, turn summaries and
//! summaries, keep their FTS rows in step, drop the vectors of what changed
//! so the next pass embeds the redacted text, and scrub the file.

use anyhow::{Context, Result};
use rusqlite::params;
use serde::Serialize;

use crate::redact::Redactor;
use crate::store::{classify, Store};

#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct RedactReport {
    pub turns_changed: u64,
    pub summaries_changed: u64,
    pub secrets: u64,
    /// Vectors dropped (turn summaries) or made stale (summaries) to be
    /// computed again from the redacted text.
    pub vectors_to_recompute: u64,
}

/// Rows read and written per transaction.
const BATCH: i64 = 500;

pub fn redact_stored(store: &mut Store, r: &Redactor, dry_run: bool) -> Result<RedactReport> {
    let mut rep = RedactReport::default();
    let path = store.path.clone();
    if !dry_run {
        store.conn.execute_batch("PRAGMA secure_delete = ON").map_err(classify)?;
    }
    let mut after = 0i64;
    loop {
        let rows: Vec<(i64, i64, String, String, Option<String>)> = store
            .conn
            .prepare_cached(
                "SELECT id, session_id, user_text, assistant_text, l2 FROM turns WHERE id > ?1 ORDER BY id LIMIT ?2",
            )?
            .query_map(params![after, BATCH], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let Some(last) = rows.last() else { break };
        after = last.0;
        let tx = store.write().with_context(|| format!("database {}", path.display()))?;
        for (id, session, user, assistant, l2) in rows {
            let (u, a) = (r.redact(&user), r.redact(&assistant));
            let l = l2.as_deref().map(|t| r.redact(t));
            let n = u.1 + a.1 + l.as_ref().map_or(0, |x| x.1);
            if n == 0 {
                continue;
            }
            rep.turns_changed += 1;
            rep.secrets += n as u64;
            let l2_changed = l.as_ref().is_some_and(|x| x.1 > 0);
            if l2_changed {
                rep.vectors_to_recompute += 1;
            }
            if dry_run {
                continue;
            }
            // turns_fts follows by trigger; the turn's own vector is stale.
            tx.execute(
                "UPDATE turns SET user_text = ?2, assistant_text = ?3 WHERE id = ?1",
                params![id, u.0.as_ref(), a.0.as_ref()],
            )?;
            if u.1 + a.1 > 0 {
                tx.execute("DELETE FROM embeddings WHERE kind = 'turn' AND row_id = ?1", [id])?;
            }
            if let (true, Some(old), Some((new, _))) = (l2_changed, l2.as_deref(), l.as_ref()) {
                // l2_fts has no update trigger (an L2 is written once).
                tx.execute("INSERT INTO l2_fts(l2_fts, rowid, l2) VALUES ('delete', ?1, ?2)", params![id, old])?;
                tx.execute("UPDATE turns SET l2 = ?2 WHERE id = ?1", params![id, new.as_ref()])?;
                tx.execute("INSERT INTO l2_fts(rowid, l2) VALUES (?1, ?2)", params![id, new.as_ref()])?;
                tx.execute("DELETE FROM embeddings WHERE kind = 'l2' AND row_id = ?1", [id])?;
            }
            tx.execute("UPDATE sessions SET redactions = redactions + ?2 WHERE id = ?1", params![session, n as i64])?;
        }
        tx.commit().map_err(classify)?;
    }
    let rows: Vec<(i64, Option<i64>, String, String)> = store
        .conn
        .prepare("SELECT id, session_id, content, key_terms FROM summaries ORDER BY id")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    for (id, session, content, terms) in rows {
        let (new, n) = r.redact(&content);
        let (new_terms, t) = r.redact(&terms);
        if t > 0 && !dry_run {
            // Key terms were extracted from the turns before these rules.
            tx.execute("UPDATE summaries SET key_terms = ?2 WHERE id = ?1", params![id, new_terms.as_ref()])?;
        }
        if n == 0 {
            continue;
        }
        rep.summaries_changed += 1;
        rep.secrets += n as u64;
        rep.vectors_to_recompute += 1;
        if dry_run {
            continue;
        }
        // A new version: the FTS row follows by trigger, the vector is stale.
        tx.execute(
            "UPDATE summaries SET content = ?2, version = version + 1 WHERE id = ?1",
            params![id, new.as_ref()],
        )?;
        if let Some(s) = session {
            tx.execute("UPDATE sessions SET redactions = redactions + ?2 WHERE id = ?1", params![s, n as i64])?;
        }
    }
    tx.commit().map_err(classify)?;
    // Scrub even when nothing was left to redact: an earlier run whose
    // scrub could not finish has already replaced the secrets, and their
    // old text is still in the WAL or in free pages.
    if !dry_run {
        super::forget::scrub(store).with_context(|| format!("scrubbing database {}", path.display()))?;
    }
    Ok(rep)
}
