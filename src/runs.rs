//! Each pass records itself (start, end, counts, outcome) for `status`.

use anyhow::Result;
use rusqlite::params;

use crate::store::{now_ms, Store};

pub fn start(store: &mut Store, kind: &str, owner: &str) -> Result<i64> {
    let tx = store.write()?;
    let id = tx.query_row(
        "INSERT INTO runs (kind, owner, started) VALUES (?1, ?2, ?3) RETURNING id",
        params![kind, owner, now_ms()],
        |r| r.get(0),
    )?;
    tx.commit()?;
    Ok(id)
}

pub fn finish(store: &mut Store, id: i64, outcome: &str, counts: &serde_json::Value) -> Result<()> {
    let tx = store.write()?;
    tx.execute(
        "UPDATE runs SET finished = ?2, outcome = ?3, counts = ?4 WHERE id = ?1",
        params![id, now_ms(), outcome, counts.to_string()],
    )?;
    // Keep the table small: the last thousand runs are plenty for `status`.
    tx.execute("DELETE FROM runs WHERE id < ?1 - 1000", [id])?;
    tx.commit()?;
    Ok(())
}

/// A lease owner name unique to this process.
pub fn owner() -> String {
    format!("pid{}-{}", std::process::id(), now_ms())
}
