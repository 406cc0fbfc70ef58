//! Each pass records itself (start, end, counts, outcome) for `status`:
//! see `store::runs`.

/// A lease owner name unique to this process.
pub fn owner() -> String {
    format!("pid{}-{}", std::process::id(), crate::store::now_ms())
}
