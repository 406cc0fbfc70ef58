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

/// A bounded view of a session (MCP `show_session`): at most `limit`
/// turns from `offset` on, each text (turn, L2, summary) cut to
/// `max_chars` characters.
#[derive(Debug, serde::Serialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SessionPage {
    pub session: String,
    pub project: Option<String>,
    pub open: bool,
    /// Turns in the session.
    pub turns_total: usize,
    /// Turns skipped before the first one shown.
    pub offset: usize,
    pub turns: Vec<TurnView>,
    pub summaries: Vec<SummaryView>,
    /// Something was left out: turns outside this page, or a text cut to
    /// `max_chars` (marked inside it).
    pub truncated: bool,
    /// The `offset` of the next page, when turns follow this one.
    pub next_offset: Option<usize>,
}

pub fn page(view: SessionView, offset: usize, limit: usize, max_chars: usize) -> SessionPage {
    let turns_total = view.turns.len();
    let mut cut = false;
    let mut fit = |s: &mut String| {
        if s.chars().count() > max_chars {
            *s = crate::text::cut(s, max_chars);
            cut = true;
        }
    };
    let mut turns: Vec<TurnView> = view.turns.into_iter().skip(offset).take(limit).collect();
    for t in &mut turns {
        fit(&mut t.user);
        fit(&mut t.assistant);
        if let Some(l2) = &mut t.l2 {
            fit(l2);
        }
    }
    let mut summaries = view.summaries;
    for s in &mut summaries {
        fit(&mut s.content);
        fit(&mut s.key_terms);
    }
    let end = offset.saturating_add(turns.len());
    let next_offset = (end < turns_total).then_some(end);
    SessionPage {
        session: view.session,
        project: view.project,
        open: view.open,
        turns_total,
        offset,
        turns,
        summaries,
        truncated: cut || offset > 0 || next_offset.is_some(),
        next_offset,
    }
}
