//! L3 and L4 folds: new material is merged into the running summary, or
//! on `NO_MERGE` (topic shift) or size rollover the running summary is
//! completed and a new one starts. L3 folds a session's L2s in turn order;
//! L4 folds a project's completed L3s.

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::prompts::{self, Scope};
use super::queue::{self, FoldTurn, Skip, Table};
use super::{ModelSlot, PassOptions, Report, Step};
use crate::llm::clean::is_no_merge;
use crate::llm::{complete, MemoryModel, ModelError, Request};
use crate::store::{estimate_tokens, now_ms, Store};

/// Turns folded in one call under the threshold policy.
const MAX_BATCH: usize = 64;

struct Running {
    id: i64,
    content: String,
    tokens: i64,
    version: i64,
}

/// What a fold decided, before it is committed.
enum Decision {
    /// The running summary absorbs the new material.
    Update { content: String, model: String, prompt_version: i64 },
    /// A new running summary starts (completing the old one if any).
    Start { content: String, model: String, prompt_version: i64, shift: bool },
    /// A bad reply with attempts left: count it, retry next run.
    Retry(String),
}

fn running(conn: &Connection, level: i64, key: &dyn rusqlite::ToSql) -> rusqlite::Result<Option<Running>> {
    let sql = if level == 3 {
        "SELECT id, content, tokens, version FROM summaries WHERE level = 3 AND session_id = ?1 AND status = 'running'"
    } else {
        "SELECT id, content, tokens, version FROM summaries WHERE level = 4 AND project = ?1 AND status = 'running'"
    };
    conn.query_row(sql, [key], |r| {
        Ok(Running { id: r.get(0)?, content: r.get(1)?, tokens: r.get(2)?, version: r.get(3)? })
    })
    .optional()
}

/// Whether a fold calls the model: all but a new summary copied from a
/// single item (no running summary, or one that is full).
fn needs_model(opts: &PassOptions, run: Option<&Running>, items: &[&str]) -> bool {
    let full = run.is_some_and(|r| r.tokens >= opts.summaries.max_summary_tokens as i64);
    !(items.len() == 1 && (run.is_none() || full))
}

/// The model for the folds that need one (loaded on first use), or none.
fn model_for<'s>(slot: &'s mut ModelSlot<'_>, needed: bool) -> Result<Option<&'s dyn MemoryModel>, ModelError> {
    if needed {
        slot.get().map(Some)
    } else {
        Ok(None)
    }
}

/// Decide a fold; model errors other than a bad reply stop the pass.
/// `model` is there when [`needs_model`] says so.
fn decide(
    model: Option<&dyn MemoryModel>,
    opts: &PassOptions,
    scope: Scope,
    run: Option<&Running>,
    items: &[&str],
    copy_model: &str,
    attempts: i64,
) -> Result<Decision, ModelError> {
    let s = &opts.summaries;
    let last_try = attempts + 1 >= opts.max_attempts as i64;
    let call = |messages| -> Result<(String, String), ModelError> {
        let model = model.ok_or_else(|| ModelError::Unavailable("no memory model for a fold that needs one".into()))?;
        let req = Request { messages, temperature: s.temperature, max_tokens: s.max_tokens, stop: vec![] };
        Ok((super::tidy::tidy(&complete(model, &req)?.text, None), model.model_id()))
    };
    // A new summary from the items alone.
    let start = |shift: bool| -> Result<Decision, ModelError> {
        if items.len() == 1 {
            return Ok(Decision::Start {
                content: items[0].trim().to_string(),
                model: copy_model.to_string(),
                prompt_version: prompts::COPY_VERSION,
                shift,
            });
        }
        match call(prompts::fresh(scope, items, s.max_input_chars)) {
            Ok((content, model)) if !is_topic_shift(&content) => {
                Ok(Decision::Start { content, model, prompt_version: prompts::FRESH_VERSION, shift })
            }
            Ok(_) | Err(ModelError::BadReply(_)) if last_try => Ok(Decision::Start {
                content: items.iter().map(|i| i.trim()).collect::<Vec<_>>().join(" "),
                model: copy_model.to_string(),
                prompt_version: prompts::COPY_VERSION,
                shift,
            }),
            Ok(_) => Ok(Decision::Retry("fresh summary was NO_MERGE".into())),
            Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
            Err(e) => Err(e),
        }
    };
    let Some(run) = run else { return start(false) };
    if run.tokens >= s.max_summary_tokens as i64 {
        return start(false);
    }
    match call(prompts::merge(scope, &run.content, items, s.max_input_chars)) {
        Ok((text, _)) if is_topic_shift(&text) => start(true),
        Ok((content, model)) => Ok(Decision::Update { content, model, prompt_version: prompts::MERGE_VERSION }),
        // Out of attempts: keep the material anyway, as a new segment.
        Err(ModelError::BadReply(_)) if last_try => start(false),
        Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
        Err(e) => Err(e),
    }
}

/// The merge verdict: the reply is NO_MERGE alone, or NO_MERGE as its own
/// first sentence followed by an explanation ("NO_MERGE. The new turn is
/// about cooking."), which small models often add. A summary that merely
/// mentions NO_MERGE inside a sentence is not a verdict.
pub fn is_topic_shift(reply: &str) -> bool {
    if is_no_merge(reply) {
        return true;
    }
    match reply.find(['.', '\n', ':', '!', ';']) {
        Some(end) => is_no_merge(&reply[..end]),
        None => false,
    }
}

// ---------------------------------------------------------------- L3

/// One L3 step: the next fold of up to `[memory_model] parallel` sessions.
/// A session's folds are strictly ordered, but different sessions are
/// independent: their model calls run concurrently and each result is
/// committed on its own.
pub fn l3_step(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    let heads = ready_sessions(store, opts, session, skip)?;
    if heads.is_empty() {
        return Ok(Step::Idle);
    }
    // Claim each head and read its running summary.
    let mut folds = Vec::new();
    for (sid, head) in heads {
        let ids: Vec<i64> = head.iter().map(|t| t.id).collect();
        let claimed = queue::claim(store, Table::Turns, &ids, &opts.owner)?;
        if claimed.len() != ids.len() {
            queue::release(store, Table::Turns, &claimed, &opts.owner)?;
            skip.sessions.insert(sid);
            continue;
        }
        let run = running(&store.conn, 3, &sid)?;
        folds.push(L3Fold { sid, head, ids, run });
    }
    if folds.is_empty() {
        return Ok(Step::Done(0));
    }
    let needed = folds.iter().any(|f| needs_model(opts, f.run.as_ref(), &f.items()));
    let model = match model_for(slot, needed) {
        Ok(m) => m,
        Err(e) => {
            for f in &folds {
                queue::release(store, Table::Turns, &f.ids, &opts.owner)?;
            }
            return Ok(Step::Stop(e));
        }
    };
    let decide_one = |f: &L3Fold| {
        let first = &f.head[0];
        decide(model, opts, Scope::Session, f.run.as_ref(), &f.items(), &first.l2_model, first.fold_attempts)
    };
    let decisions = super::concurrently(&folds, decide_one);
    let mut stop = None;
    let mut done = 0;
    for (fold, decision) in folds.iter().zip(decisions) {
        match decision {
            Ok(d) => done += commit_l3(store, opts, fold, d, skip, report)?,
            Err(e) => {
                queue::release(store, Table::Turns, &fold.ids, &opts.owner)?;
                stop.get_or_insert(e);
            }
        }
    }
    Ok(match stop {
        Some(e) => Step::Stop(e),
        None => Step::Done(done),
    })
}

/// A session's next fold, claimed.
struct L3Fold {
    sid: i64,
    head: Vec<FoldTurn>,
    ids: Vec<i64>,
    run: Option<Running>,
}

impl L3Fold {
    fn items(&self) -> Vec<&str> {
        self.head.iter().map(|t| t.l2.as_str()).collect()
    }
}

/// Up to `parallel` sessions with a fold to do now, each with its head
/// (the L2s the fold takes). Sessions with nothing to do now are skipped
/// for the rest of the pass.
fn ready_sessions(
    store: &Store,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
) -> Result<Vec<(i64, Vec<FoldTurn>)>> {
    let want = opts.parallel.max(1);
    let mut ready: Vec<(i64, Vec<FoldTurn>)> = Vec::new();
    'find: loop {
        // Sessions already taken are skipped while looking for more.
        let candidates = queue::sessions_to_fold(&store.conn, session, &mut *skip, 8)?;
        if candidates.is_empty() {
            break;
        }
        for sid in candidates {
            let batch = if opts.threshold() { MAX_BATCH } else { 1 };
            let head = queue::fold_head(&store.conn, sid, batch)?;
            let gated = opts.threshold() && {
                let g = queue::gate(&store.conn, sid, opts.pause_ms)?;
                !(g.idle
                    || (g.session_tokens > opts.summaries.threshold_tokens as i64
                        && g.new_l2s >= opts.summaries.min_episodes as i64))
            };
            skip.sessions.insert(sid);
            if head.is_empty() || gated {
                continue;
            }
            ready.push((sid, head));
            if ready.len() == want {
                break 'find;
            }
        }
    }
    // A session taken now may have more to fold after this step.
    for (sid, _) in &ready {
        skip.sessions.remove(sid);
    }
    Ok(ready)
}

/// Commit one L3 decision with a compare-and-set; returns the items it
/// counts for (0 when the state moved under us: retried next time).
fn commit_l3(
    store: &mut Store,
    opts: &PassOptions,
    fold: &L3Fold,
    decision: Decision,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<u64> {
    let (sid, ids, run) = (fold.sid, &fold.ids, fold.run.as_ref());
    if let Decision::Retry(why) = &decision {
        let tx = store.write()?;
        tx.execute(
            "UPDATE turns SET fold_attempts = fold_attempts + 1, last_error = ?2, lease_owner = NULL, lease_expires = NULL
             WHERE id = ?1 AND lease_owner = ?3",
            params![ids[0], why, opts.owner],
        )?;
        tx.execute(
            "UPDATE turns SET lease_owner = NULL, lease_expires = NULL WHERE session_id = ?1 AND lease_owner = ?2",
            params![sid, opts.owner],
        )?;
        tx.commit()?;
        skip.sessions.insert(sid);
        report.failed += 1;
        return Ok(1);
    }
    let tx = store.write()?;
    if !l3_unchanged(&tx, sid, run, ids, &opts.owner)? {
        drop(tx);
        queue::release(store, Table::Turns, ids, &opts.owner)?;
        return Ok(0);
    }
    let now = now_ms();
    let (first_seq, project): (i64, Option<String>) =
        tx.query_row("SELECT next_fold_seq, project FROM sessions WHERE id = ?1", [sid], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let last_seq = first_seq + ids.len() as i64 - 1;
    let (first_id, last_id) = (ids[0], *ids.last().expect("non-empty head"));
    let target = match decision {
        Decision::Update { content, model, prompt_version } => {
            let r = run.expect("update needs a running summary");
            tx.execute(
                "UPDATE summaries SET content = ?2, tokens = ?3, version = version + 1, last_turn_id = ?4,
                        last_seq = ?5, updated_at = ?6, model = ?7, prompt_version = ?8
                 WHERE id = ?1",
                params![r.id, content, estimate_tokens(&content), last_id, last_seq, now, model, prompt_version],
            )?;
            r.id
        }
        Decision::Start { content, model, prompt_version, shift } => {
            if let Some(r) = run {
                complete_l3(&tx, r.id, now)?;
            }
            if shift {
                report.topic_shifts += 1;
            }
            tx.query_row(
                "INSERT INTO summaries (level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                        first_seq, last_seq, model, prompt_version, created_at, updated_at)
                 VALUES (3, ?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11) RETURNING id",
                params![sid, project, content, estimate_tokens(&content), first_id, last_id, first_seq, last_seq, model, prompt_version, now],
                |r| r.get::<_, i64>(0),
            )?
        }
        Decision::Retry(_) => unreachable!("handled above"),
    };
    {
        let mut stmt = tx.prepare_cached(
            "UPDATE turns SET l3_id = ?2, fold_seq = ?3, lease_owner = NULL, lease_expires = NULL WHERE id = ?1",
        )?;
        for (i, id) in ids.iter().enumerate() {
            stmt.execute(params![id, target, first_seq + i as i64])?;
        }
    }
    tx.execute("UPDATE sessions SET next_fold_seq = ?2 WHERE id = ?1", params![sid, last_seq + 1])?;
    tx.commit()?;
    report.l3_folds += 1;
    Ok(1)
}

/// The compare-and-set check of an L3 fold.
fn l3_unchanged(tx: &Transaction<'_>, sid: i64, run: Option<&Running>, ids: &[i64], owner: &str) -> Result<bool> {
    let current: Option<(i64, i64)> = tx
        .query_row(
            "SELECT id, version FROM summaries WHERE level = 3 AND session_id = ?1 AND status = 'running'",
            [sid],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    if current != run.map(|r| (r.id, r.version)) {
        return Ok(false);
    }
    let mut stmt = tx.prepare_cached("SELECT l3_id IS NULL AND lease_owner = ?2 FROM turns WHERE id = ?1")?;
    for id in ids {
        let ok: Option<bool> = stmt.query_row(params![id, owner], |r| r.get(0)).optional()?;
        if ok != Some(true) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Mark a running L3 complete; if its session has a project it now waits
/// for the L4 fold.
pub fn complete_l3(tx: &Transaction<'_>, id: i64, now: i64) -> rusqlite::Result<usize> {
    tx.execute(
        "UPDATE summaries SET status = 'complete', completed_at = ?2, updated_at = ?2, version = version + 1,
                l4_state = CASE WHEN project IS NOT NULL THEN 'pending' ELSE 'none' END
         WHERE id = ?1 AND level = 3 AND status = 'running'",
        params![id, now],
    )
}

// ---------------------------------------------------------------- L4

struct L4Item {
    id: i64,
    project: String,
    content: String,
    model: String,
    attempts: i64,
}

pub fn l4_step(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    session: Option<i64>,
    skip: &mut Skip,
    report: &mut Report,
) -> Result<Step> {
    let item = {
        let mut stmt = store.conn.prepare_cached(
            "SELECT id, project, content, model, attempts FROM summaries
             WHERE l4_state = 'pending' AND (?1 IS NULL OR session_id = ?1)
               AND (lease_owner IS NULL OR lease_owner = ?2 OR lease_expires < ?3)
             ORDER BY id LIMIT ?4",
        )?;
        let want = 1 + skip.l3_rows.len() as i64;
        let rows = stmt.query_map(params![session, opts.owner, now_ms(), want], |r| {
            Ok(L4Item { id: r.get(0)?, project: r.get(1)?, content: r.get(2)?, model: r.get(3)?, attempts: r.get(4)? })
        })?;
        let mut found = None;
        for row in rows {
            let row = row?;
            if !skip.l3_rows.contains(&row.id) {
                found = Some(row);
                break;
            }
        }
        found
    };
    let Some(item) = item else { return Ok(Step::Idle) };
    if queue::claim(store, Table::Summaries, &[item.id], &opts.owner)?.is_empty() {
        skip.l3_rows.insert(item.id);
        return Ok(Step::Done(0));
    }
    let run = running(&store.conn, 4, &item.project)?;
    let items = [item.content.as_str()];
    let decision = model_for(slot, needs_model(opts, run.as_ref(), &items))
        .and_then(|model| decide(model, opts, Scope::Project, run.as_ref(), &items, &item.model, item.attempts));
    let decision = match decision {
        Ok(d) => d,
        Err(e) => {
            queue::release(store, Table::Summaries, &[item.id], &opts.owner)?;
            return Ok(Step::Stop(e));
        }
    };
    let tx = store.write()?;
    if let Decision::Retry(why) = &decision {
        tx.execute(
            "UPDATE summaries SET attempts = attempts + 1, last_error = ?2, lease_owner = NULL, lease_expires = NULL
             WHERE id = ?1 AND lease_owner = ?3",
            params![item.id, why, opts.owner],
        )?;
        tx.commit()?;
        skip.l3_rows.insert(item.id);
        report.failed += 1;
        return Ok(Step::Done(1));
    }
    let current: Option<(i64, i64)> = tx
        .query_row(
            "SELECT id, version FROM summaries WHERE level = 4 AND project = ?1 AND status = 'running'",
            [&item.project],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let still_mine: bool = tx.query_row(
        "SELECT l4_state = 'pending' AND lease_owner IS ?2 FROM summaries WHERE id = ?1",
        params![item.id, opts.owner],
        |r| r.get(0),
    )?;
    if current != run.as_ref().map(|r| (r.id, r.version)) || !still_mine {
        drop(tx);
        queue::release(store, Table::Summaries, &[item.id], &opts.owner)?;
        return Ok(Step::Done(0));
    }
    let now = now_ms();
    let target = match decision {
        Decision::Update { content, model, prompt_version } => {
            let r = run.as_ref().expect("update needs a running summary");
            tx.execute(
                "UPDATE summaries SET content = ?2, tokens = ?3, version = version + 1, last_l3_id = ?4,
                        updated_at = ?5, model = ?6, prompt_version = ?7
                 WHERE id = ?1",
                params![r.id, content, estimate_tokens(&content), item.id, now, model, prompt_version],
            )?;
            r.id
        }
        Decision::Start { content, model, prompt_version, shift } => {
            if let Some(r) = &run {
                tx.execute(
                    "UPDATE summaries SET status = 'complete', completed_at = ?2, updated_at = ?2, version = version + 1
                     WHERE id = ?1",
                    params![r.id, now],
                )?;
            }
            if shift {
                report.topic_shifts += 1;
            }
            tx.query_row(
                "INSERT INTO summaries (level, project, status, content, tokens, first_l3_id, last_l3_id,
                        model, prompt_version, created_at, updated_at)
                 VALUES (4, ?1, 'running', ?2, ?3, ?4, ?4, ?5, ?6, ?7, ?7) RETURNING id",
                params![item.project, content, estimate_tokens(&content), item.id, model, prompt_version, now],
                |r| r.get::<_, i64>(0),
            )?
        }
        Decision::Retry(_) => unreachable!("handled above"),
    };
    tx.execute(
        "UPDATE summaries SET l4_id = ?2, l4_state = 'done', lease_owner = NULL, lease_expires = NULL WHERE id = ?1",
        params![item.id, target],
    )?;
    tx.commit()?;
    report.l4_folds += 1;
    Ok(Step::Done(1))
}

#[cfg(test)]
mod tests {
    use super::is_topic_shift;

    #[test]
    fn verdict_alone_or_as_first_sentence_is_a_shift() {
        for yes in [
            "NO_MERGE",
            "**NO_MERGE**",
            "no_merge.",
            "NO_MERGE. The new turn is about cooking.",
            "NO_MERGE\nBecause...",
        ] {
            assert!(is_topic_shift(yes), "{yes}");
        }
    }

    #[test]
    fn a_mention_inside_a_sentence_is_not_a_shift() {
        for no in [
            "NO_MERGE is not needed; the user continued with Rust.",
            "The user asked whether NO_MERGE applies. The assistant said no.",
            "They discussed merges.",
        ] {
            assert!(!is_topic_shift(no), "{no}");
        }
    }
}
