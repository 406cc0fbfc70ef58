//! Reading sessions and their turns and summaries for `sessions` and `show`.

use anyhow::Result;

use crate::store::{inspect as rows, Store};

pub use crate::store::inspect::{ProjectRow, SessionFilter, SessionRow, SessionView, SummaryView, TurnView};

/// The sessions `f` names, most recent first.
pub fn sessions(store: &Store, f: &SessionFilter<'_>) -> Result<Vec<SessionRow>> {
    rows::sessions(store, f)
}

/// Every project with its counts and its project summary, most recent first.
pub fn projects(store: &Store) -> Result<Vec<ProjectRow>> {
    rows::projects(store)
}

/// One session with its turns and summaries (None: no such session).
pub fn show(store: &Store, external_id: &str) -> Result<Option<SessionView>> {
    rows::show(store, external_id)
}
