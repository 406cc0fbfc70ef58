//! `ragger summarize --dry-run`: what a pass would do, with estimated
//! prompt tokens; reads only.

use std::io::Write;

use anyhow::Result;
use rusqlite::params;
use serde::Serialize;

use crate::cli::SummarizeArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;
use crate::pipeline::queue;
use crate::store::Store;

#[derive(Serialize)]
struct Plan {
    l2: Vec<PlanTurn>,
    l3: Vec<PlanSession>,
    l4: Vec<PlanL3>,
    estimated_prompt_tokens: i64,
}

#[derive(Serialize)]
struct PlanTurn {
    turn: i64,
    session: String,
    prompt_tokens: i64,
}

#[derive(Serialize)]
struct PlanSession {
    session: String,
    /// L2s ready to fold now plus turns that get their L2 in this pass.
    turns_to_fold: i64,
}

#[derive(Serialize)]
struct PlanL3 {
    summary: i64,
    project: String,
}

/// Fixed overhead of the L2 prompt's instructions, in tokens.
const L2_PROMPT_OVERHEAD: i64 = 80;

pub fn print(ctx: &Ctx, store: &Store, args: &SummarizeArgs) -> Result<Exit> {
    let conn = &store.conn;
    let sid = match &args.session {
        Some(s) => match queue::session_id(conn, s)? {
            Some(id) => Some(id),
            None => return Err(crate::exit::fail(Exit::Failed, format!("no session {s:?}"))),
        },
        None => None,
    };
    let limit = args.limit.map(|l| l as i64).unwrap_or(-1);
    let max_chars = ctx.config.summaries.max_input_chars as i64;
    let mut stmt = conn.prepare(
        "SELECT t.id, s.external_id, min(length(t.user_text) + length(t.assistant_text), ?3) / 4
         FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.l2_state = 'pending' AND (?1 IS NULL OR t.session_id = ?1) ORDER BY t.id LIMIT ?2",
    )?;
    let l2 = stmt
        .query_map(params![sid, limit, max_chars], |r| {
            Ok(PlanTurn {
                turn: r.get(0)?,
                session: r.get(1)?,
                prompt_tokens: r.get::<_, i64>(2)? + L2_PROMPT_OVERHEAD,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare(
        "SELECT s.external_id, count(*) FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.l3_id IS NULL AND t.l2_state <> 'failed' AND (?1 IS NULL OR t.session_id = ?1)
         GROUP BY t.session_id ORDER BY min(t.id)",
    )?;
    let l3 = stmt
        .query_map(params![sid], |r| Ok(PlanSession { session: r.get(0)?, turns_to_fold: r.get(1)? }))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare(
        "SELECT id, project FROM summaries WHERE l4_state = 'pending' AND (?1 IS NULL OR session_id = ?1) ORDER BY id",
    )?;
    let l4 = stmt
        .query_map(params![sid], |r| Ok(PlanL3 { summary: r.get(0)?, project: r.get(1)? }))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // Each fold sends the running summary (bounded) and the new material.
    let fold_tokens: i64 = l3.iter().map(|s| s.turns_to_fold).sum::<i64>() * (max_chars / 4 / 2 + 60)
        + l4.len() as i64 * (max_chars / 4 + 60);
    let plan =
        Plan { estimated_prompt_tokens: l2.iter().map(|t| t.prompt_tokens).sum::<i64>() + fold_tokens, l2, l3, l4 };
    if ctx.json() {
        print_json(&plan)?;
        return Ok(Exit::Ok);
    }
    let mut out = std::io::stdout().lock();
    for t in &plan.l2 {
        writeln!(out, "L2  turn {} of session {} (~{} prompt tokens)", t.turn, t.session, t.prompt_tokens)?;
    }
    for s in &plan.l3 {
        writeln!(out, "L3  fold {} turn(s) of session {}", s.turns_to_fold, s.session)?;
    }
    for s in &plan.l4 {
        writeln!(out, "L4  fold session summary {} into project {}", s.summary, s.project)?;
    }
    writeln!(
        out,
        "{} L2 call(s), {} session(s) to fold, {} project fold(s), ~{} prompt tokens in all (upper bound)",
        plan.l2.len(),
        plan.l3.len(),
        plan.l4.len(),
        plan.estimated_prompt_tokens
    )?;
    Ok(Exit::Ok)
}
