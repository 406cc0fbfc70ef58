//! What `forget` removed stays removed: the idempotency keys of forgotten
//! turns, kept as one-way hashes (no session id, key or text of the turn is
//! kept), so that a hook or an import reading the same transcript again
//! does not store a forgotten turn a second time.

use rusqlite::{params, Transaction};

/// The hash a forgotten turn is remembered by: the first 16 bytes (hex) of
/// SHA-256 over its session's external id and its idempotency key.
pub fn key_hash(session: &str, key: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [session, key] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Remember the keys of the turns listed in the temporary table `table`
/// (one `id` column of turn ids), before they are deleted. Turns without a
/// key cannot come back by key and are not remembered.
pub(super) fn remember(tx: &Transaction<'_>, table: &str, now: i64) -> rusqlite::Result<u64> {
    let keys: Vec<(String, String)> = tx
        .prepare(&format!(
            "SELECT s.external_id, t.idem_key FROM {table} f JOIN turns t ON t.id = f.id
             JOIN sessions s ON s.id = t.session_id WHERE t.idem_key IS NOT NULL"
        ))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut ins = tx.prepare_cached("INSERT OR IGNORE INTO forgotten_keys (key_hash, forgotten_at) VALUES (?1, ?2)")?;
    let mut n = 0;
    for (session, key) in &keys {
        n += ins.execute(params![key_hash(session, key), now])? as u64;
    }
    Ok(n)
}

/// Whether the turn `key` of session `session` was forgotten.
pub(super) fn is_forgotten(tx: &Transaction<'_>, session: &str, key: &str) -> rusqlite::Result<bool> {
    tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM forgotten_keys WHERE key_hash = ?1)")?
        .query_row([key_hash(session, key)], |r| r.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_separates_session_and_key() {
        assert_eq!(key_hash("s", "k"), key_hash("s", "k"));
        assert_ne!(key_hash("s", "k"), key_hash("sk", ""));
        assert_ne!(key_hash("s", "k"), key_hash("t", "k"));
        assert_eq!(key_hash("s", "k").len(), 32);
    }
}
