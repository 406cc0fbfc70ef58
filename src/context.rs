//! The memory block for the start of an agent session: the project's
//! latest L4 summary, then its most recent L3 segments with their dates,
//! within a token budget (about four characters a token).

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::store::fmt_time;

/// L3 segments looked at, newest first, before the budget cuts.
const MAX_SEGMENTS: usize = 50;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Entry {
    /// Session id (L3 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// running | complete
    pub status: String,
    /// RFC 3339 time of the last update.
    pub updated: String,
    pub content: String,
    /// Identifiers and names of its turns (`; `-separated), when any.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key_terms: String,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Block {
    pub project: String,
    pub project_summary: Option<Entry>,
    pub segments: Vec<Entry>,
    /// Estimated tokens of the Markdown block.
    pub tokens: usize,
}

impl Block {
    pub fn is_empty(&self) -> bool {
        self.project_summary.is_none() && self.segments.is_empty()
    }
}

fn tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

pub fn build(conn: &Connection, project: &str, limit_tokens: usize) -> Result<Block> {
    let l4: Option<Entry> = conn
        .prepare_cached(
            "SELECT status, updated_at, content, key_terms FROM summaries WHERE level = 4 AND project = ?1
             ORDER BY updated_at DESC, id DESC LIMIT 1",
        )?
        .query_row([project], |r| {
            Ok(Entry {
                session: None,
                status: r.get(0)?,
                updated: fmt_time(r.get(1)?),
                content: r.get(2)?,
                key_terms: r.get(3)?,
            })
        })
        .optional()?;
    let mut stmt = conn.prepare_cached(
        "SELECT se.external_id, m.status, m.updated_at, m.content, m.key_terms
         FROM summaries m JOIN sessions se ON se.id = m.session_id
         WHERE m.level = 3 AND se.project = ?1
         ORDER BY m.updated_at DESC, m.id DESC LIMIT ?2",
    )?;
    let l3 = stmt
        .query_map(params![project, MAX_SEGMENTS as i64], |r| {
            Ok(Entry {
                session: r.get(0)?,
                status: r.get(1)?,
                updated: fmt_time(r.get(2)?),
                content: r.get(3)?,
                key_terms: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut block = Block { project: project.to_string(), project_summary: None, segments: vec![], tokens: 0 };
    let budget = limit_tokens * 4;
    let mut used = header(project).len();
    if let Some(mut e) = l4 {
        let frame = l4_text(&Entry { content: String::new(), ..e.clone() }).len();
        let room = budget.saturating_sub(used + frame);
        if room >= 40 {
            if e.content.len() > room {
                e.content = crate::import::fit(&e.content, room);
            }
            used += l4_text(&e).len();
            block.project_summary = Some(e);
        }
    }
    for e in l3 {
        let cost = segment_line(&e).len() + if block.segments.is_empty() { SEGMENTS_HEAD.len() } else { 0 };
        if used + cost > budget {
            break;
        }
        used += cost;
        block.segments.push(e);
    }
    block.tokens = tokens(markdown(&block).len());
    Ok(block)
}

fn header(project: &str) -> String {
    format!("## Memory of earlier sessions (project {project}, from ragger)\n\n")
}

/// The block as Markdown; empty when there is nothing to say.
pub fn markdown(b: &Block) -> String {
    if b.is_empty() {
        return String::new();
    }
    let mut out = header(&b.project);
    if let Some(e) = &b.project_summary {
        out.push_str(&l4_text(e));
    }
    if !b.segments.is_empty() {
        out.push_str(SEGMENTS_HEAD);
        for e in &b.segments {
            out.push_str(&segment_line(e));
        }
    }
    out
}

const SEGMENTS_HEAD: &str = "Recent sessions, newest first:\n";

fn l4_text(e: &Entry) -> String {
    format!("Project summary ({}, {}):\n{}\n\n", day(&e.updated), e.status, e.content.trim())
}

fn segment_line(e: &Entry) -> String {
    let session = e.session.as_deref().unwrap_or("?");
    let flat = e.content.split_whitespace().collect::<Vec<_>>().join(" ");
    let terms = if e.key_terms.is_empty() { String::new() } else { format!(" [key terms: {}]", e.key_terms) };
    format!("- {} (session {session}, {}): {flat}{terms}\n", day(&e.updated), e.status)
}

fn day(rfc3339: &str) -> &str {
    rfc3339.get(..10).unwrap_or(rfc3339)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> crate::store::Store {
        let store = crate::store::Store::memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES
                   (1, 's-old', 'app', 0, 0, 0), (2, 's-new', 'app', 0, 0, 0), (3, 's-other', 'web', 0, 0, 0);
                 INSERT INTO summaries (level, session_id, project, status, content, tokens, model, prompt_version, created_at, updated_at) VALUES
                   (3, 1, 'app', 'complete', 'The user set up the build with cargo.', 9, 'm', 1, 0, 86400000),
                   (3, 2, 'app', 'running', 'The user is fixing the flaky login test.', 9, 'm', 1, 0, 172800000),
                   (3, 3, 'web', 'complete', 'Unrelated web work.', 4, 'm', 1, 0, 172800000),
                   (4, NULL, 'app', 'running', 'A Rust service; build and tests are being fixed.', 9, 'm', 1, 0, 172800000);",
            )
            .unwrap();
        store
    }

    #[test]
    fn block_has_the_l4_then_newest_segments_of_the_project_only() {
        let store = fixture();
        let b = build(&store.conn, "app", 1000).unwrap();
        assert_eq!(b.project_summary.as_ref().unwrap().content, "A Rust service; build and tests are being fixed.");
        let sessions: Vec<_> = b.segments.iter().map(|e| e.session.clone().unwrap()).collect();
        assert_eq!(sessions, ["s-new", "s-old"]);
        let md = markdown(&b);
        assert!(md.contains("- 1970-01-03 (session s-new, running): The user is fixing"), "{md}");
        assert!(!md.contains("Unrelated"));
    }

    #[test]
    fn budget_drops_older_segments() {
        let store = fixture();
        let b = build(&store.conn, "app", 70).unwrap();
        assert_eq!(b.segments.len(), 1, "{b:?}");
        assert!(b.tokens <= 70, "{}", b.tokens);
        assert!(build(&store.conn, "nothing", 1000).unwrap().is_empty());
    }
}
