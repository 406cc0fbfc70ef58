//! L3 and L4 folds: new material is merged into the running summary, or
//! on `NO_MERGE` (topic shift) or size rollover the running summary is
//! completed and a new one starts. L3 folds a session's L2s in turn order;
//! L4 folds a project's completed L3s.

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::prompts::{self, Scope};
use super::queue::{self, FoldTurn, Skip, Table};
use super::segment::{self, StartReason, TurnView};
use super::{grounding, vectors, verdict};
use super::{ModelSlot, PassOptions, Report, Step};
use crate::llm::{complete, MemoryModel, ModelError, Request};
use crate::store::turn_window;
use crate::store::{estimate_tokens, now_ms, Store};

/// Turns folded in one call at most (a backlog, or the threshold policy);
/// the prompt budget usually cuts a batch sooner.
const MAX_BATCH: usize = 64;

struct Running {
    id: i64,
    content: String,
    tokens: i64,
    version: i64,
    key_terms: String,
}

/// What a fold decided, before it is committed.
#[derive(Debug)]
enum Decision {
    /// The running summary absorbs the new material.
    Update { content: String, written: Written },
    /// A new running summary starts (completing the old one if any).
    Start { content: String, written: Written, reason: StartReason, score: Option<f32> },
    /// A bad reply with attempts left: count it, retry next run.
    Retry(String),
}

/// Who wrote a summary: provenance stored with the row.
#[derive(Debug, Clone)]
struct Written {
    model: String,
    prompt_version: i64,
    /// `model`, `extractive` (the model's replies failed the grounding
    /// check) or `copy` (one item copied, no call needed).
    origin: &'static str,
}

/// What a fold works from.
struct FoldInput<'a> {
    scope: Scope,
    run: Option<&'a Running>,
    items: &'a [&'a str],
    /// The model id of the items (a copy keeps it).
    copy_model: &'a str,
    attempts: i64,
    /// Set when the segmenter (or the size limit, or a first segment)
    /// already decided that the items start a new summary.
    start: Option<(StartReason, Option<f32>)>,
}

fn running(conn: &Connection, level: i64, key: &dyn rusqlite::ToSql) -> rusqlite::Result<Option<Running>> {
    let sql = if level == 3 {
        "SELECT id, content, tokens, version, key_terms FROM summaries WHERE level = 3 AND session_id = ?1 AND status = 'running'"
    } else {
        "SELECT id, content, tokens, version, key_terms FROM summaries WHERE level = 4 AND project = ?1 AND status = 'running'"
    };
    conn.query_row(sql, [key], |r| {
        Ok(Running { id: r.get(0)?, content: r.get(1)?, tokens: r.get(2)?, version: r.get(3)?, key_terms: r.get(4)? })
    })
    .optional()
}

/// Why a fold must start a new summary without asking the model, if it must.
fn forced_start(opts: &PassOptions, run: Option<&Running>, reopened: bool) -> Option<(StartReason, Option<f32>)> {
    match run {
        None if reopened => Some((StartReason::Pause, None)),
        None => Some((StartReason::First, None)),
        Some(r) if r.tokens >= opts.summaries.max_summary_tokens as i64 => Some((StartReason::Rollover, None)),
        Some(_) => None,
    }
}

/// Whether a fold calls the model: all but a new summary copied from a
/// single item.
fn needs_model(input: &FoldInput<'_>) -> bool {
    !(input.items.len() == 1 && input.start.is_some())
}

/// The model for the folds that need one (loaded on first use), or none.
fn model_for<'s>(slot: &'s mut ModelSlot<'_>, needed: bool) -> Result<Option<&'s dyn MemoryModel>, ModelError> {
    if needed {
        slot.get().map(Some)
    } else {
        Ok(None)
    }
}

/// Decide a fold: a plain function of the running summary, the new items,
/// the settings and a model (no SQL), so it is unit-tested with a scripted
/// model. Every reply passes the grounding check before it is used; a
/// reply that fails it is asked again once (warmer), then the summary is
/// written extractively from its sources. Model errors other than a bad
/// reply stop the pass.
fn decide(model: Option<&dyn MemoryModel>, opts: &PassOptions, input: &FoldInput<'_>) -> Result<Decision, ModelError> {
    let s = &opts.summaries;
    let items = input.items;
    let last_try = input.attempts + 1 >= opts.max_attempts as i64;
    let examples = prompts::example_texts();
    // One model call whose reply must pass the grounding check against
    // `sources`; Ok(None) after two replies that did not.
    let grounded = |messages: Vec<crate::llm::Message>, check: &dyn Fn(&str) -> Option<String>, verdict_ok: bool| {
        let model = model.ok_or_else(|| ModelError::Unavailable("no memory model for a fold that needs one".into()))?;
        let mut why = String::new();
        let mut last = String::new();
        for temperature in [s.temperature, (s.temperature + 0.5).min(1.5)] {
            let req = Request { messages: messages.clone(), temperature, max_tokens: s.max_tokens, stop: vec![] };
            let text = super::tidy::tidy(&complete(model, &req)?.text, None);
            if verdict::is_topic_shift(&text) {
                if verdict_ok {
                    return Ok(Some((text, model.model_id())));
                }
                why = "the reply is the NO_MERGE verdict, which was not asked for".into();
                continue;
            }
            match check(&text) {
                None => return Ok(Some((text, model.model_id()))),
                Some(w) => (why, last) = (w, text),
            }
        }
        if opts.verbose {
            eprintln!(
                "ragger: fold reply rejected, written extractively: {why}: {:?}",
                crate::llm::truncate_for_message(&last, 300)
            );
        }
        Ok::<_, ModelError>(None)
    };
    let extractive = || Written {
        model: input.copy_model.to_string(),
        prompt_version: prompts::EXTRACTIVE_VERSION,
        origin: "extractive",
    };
    // A new summary from the items alone.
    let start = |reason: StartReason, score: Option<f32>| -> Result<Decision, ModelError> {
        if items.len() == 1 {
            let written =
                Written { model: input.copy_model.to_string(), prompt_version: prompts::COPY_VERSION, origin: "copy" };
            return Ok(Decision::Start { content: items[0].trim().to_string(), written, reason, score });
        }
        let check = |text: &str| grounding::check(text, items, &examples);
        match grounded(prompts::fresh(input.scope, items, s.max_input_chars), &check, false) {
            Ok(Some((content, model))) => {
                let written = Written { model, prompt_version: prompts::FRESH_VERSION, origin: "model" };
                Ok(Decision::Start { content, written, reason, score })
            }
            Ok(None) => Ok(Decision::Start {
                content: grounding::extractive_fold(None, items, s.max_input_chars),
                written: extractive(),
                reason,
                score,
            }),
            Err(ModelError::BadReply(_)) if last_try => Ok(Decision::Start {
                content: grounding::extractive_fold(None, items, s.max_input_chars),
                written: extractive(),
                reason: StartReason::FoldFailed,
                score,
            }),
            Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
            Err(e) => Err(e),
        }
    };
    if let Some((reason, score)) = input.start {
        return start(reason, score);
    }
    let Some(run) = input.run else { return start(StartReason::First, None) };
    let votes = opts.segment.model_votes;
    let check = |text: &str| grounding::check_merge(text, &run.content, items, &examples);
    match grounded(prompts::merge(input.scope, &run.content, items, s.max_input_chars, votes), &check, votes) {
        Ok(Some((text, _))) if verdict::is_topic_shift(&text) => start(StartReason::ModelNoMerge, None),
        Ok(Some((content, model))) => Ok(Decision::Update {
            content,
            written: Written { model, prompt_version: prompts::MERGE_VERSION, origin: "model" },
        }),
        Ok(None) => Ok(Decision::Update {
            content: grounding::extractive_fold(Some(&run.content), items, s.max_input_chars),
            written: extractive(),
        }),
        // Out of attempts: keep the material anyway, as a new segment.
        Err(ModelError::BadReply(_)) if last_try => start(StartReason::FoldFailed, None),
        Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
        Err(e) => Err(e),
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
    // Claim each head, read its running summary, and let the segmenter
    // cut the head where a new topic starts.
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
        let mut fold = L3Fold { sid, head, ids, run, views: Vec::new(), start: None };
        segment_head(store, slot, opts, &mut fold)?;
        folds.push(fold);
    }
    if folds.is_empty() {
        return Ok(Step::Done(0));
    }
    if let Some(why) = slot.vectors.unavailable.take() {
        // Once per pass: the embedder stays off for the rest of it.
        eprintln!("ragger: warning: topic segmentation without turn vectors (embedder unavailable: {why})");
        slot.vectors = vectors::TurnVectors::none();
    }
    let needed = folds.iter().any(|f| needs_model(&f.input(&f.items())));
    let model = match model_for(slot, needed) {
        Ok(m) => m,
        Err(e) => {
            for f in &folds {
                queue::release(store, Table::Turns, &f.ids, &opts.owner)?;
            }
            return Ok(Step::Stop(e));
        }
    };
    let started = std::time::Instant::now();
    let decide_one = |f: &L3Fold| decide(model, opts, &f.input(&f.items()));
    let decisions = super::concurrently(&folds, decide_one);
    let mut stop = None;
    let mut done = 0;
    for (fold, decision) in folds.iter().zip(decisions) {
        match decision {
            Ok(d) => {
                let before = report.tally();
                done += commit_l3(store, opts, fold, d, skip, report)?;
                report.note(super::Level::L3, super::progress::Subject::Session(fold.sid), before, started);
            }
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
    /// The head's turns as the segmenter saw them (texts for key terms).
    views: Vec<TurnView>,
    /// Set when the head starts a new segment.
    start: Option<(StartReason, Option<f32>)>,
}

impl L3Fold {
    fn items(&self) -> Vec<&str> {
        self.head.iter().map(|t| t.l2.as_str()).collect()
    }
    fn input<'a>(&'a self, items: &'a [&'a str]) -> FoldInput<'a> {
        let first = &self.head[0];
        FoldInput {
            scope: Scope::Session,
            run: self.run.as_ref(),
            items,
            copy_model: &first.l2_model,
            attempts: first.fold_attempts,
            start: self.start,
        }
    }
}

/// The segmenter's part of a fold: decide whether the head's first turn
/// continues the running segment, and cut the head before the next turn
/// that starts a new one (threshold mode and backlogs fold several turns
/// at once). Turns cut off are released for the next step.
fn segment_head(store: &mut Store, slot: &mut ModelSlot<'_>, opts: &PassOptions, fold: &mut L3Fold) -> Result<()> {
    let reopened = fold.run.is_none() && vectors::has_segment(store, fold.sid)?;
    fold.start = forced_start(opts, fold.run.as_ref(), reopened);
    let seg = &opts.segment;
    fold.views = vectors::views(store, &fold.ids)?;
    if !seg.uses_signals() || !slot.vectors.enabled() {
        return Ok(());
    }
    // The gaps are judged on the session's turns around the head, with the
    // later ones where they are captured (see segment::score).
    let first = fold.ids[0];
    let last = *fold.ids.last().expect("non-empty head");
    let mut before = vectors::views(store, &turn_window::before(store, fold.sid, first, segment::CONTEXT)?)?;
    let mut after = vectors::views(store, &turn_window::after(store, fold.sid, last, segment::CONTEXT)?)?;
    slot.vectors.fill(store, &mut before)?;
    slot.vectors.fill(store, &mut fold.views)?;
    slot.vectors.fill(store, &mut after)?;
    let offset = before.len();
    let mut around = before;
    around.extend(fold.views.iter().cloned());
    around.extend(after);
    let Some(judged) = segment::judge(&around, seg) else { return Ok(()) };
    let mut cut = fold.views.len();
    for j in 0..fold.views.len() {
        let Some(score) = judged[offset + j] else { continue };
        let boundary = score.is_boundary();
        if opts.verbose {
            eprintln!(
                "ragger: segmenter: session {} turn {}: score {:.3} (depth {:.3}, similarity {:.3}, lexical {:.3}, pause {:.3}, cue {:.2}, content words {}) bar {:.3} -> {}",
                fold.sid,
                fold.views[j].id,
                score.total,
                score.depth,
                score.similarity,
                score.lexical,
                score.pause,
                score.cue,
                if score.content { "yes" } else { "no" },
                score.bar,
                if boundary { "new segment" } else { "continues" }
            );
        }
        if !boundary {
            continue;
        }
        if j == 0 {
            if fold.start.is_none() {
                fold.start = Some((StartReason::TopicShift, Some(score.total)));
            }
        } else {
            cut = j;
            break;
        }
    }
    if cut < fold.ids.len() {
        let released = fold.ids.split_off(cut);
        fold.head.truncate(cut);
        fold.views.truncate(cut);
        queue::release(store, Table::Turns, &released, &opts.owner)?;
    }
    Ok(())
}

/// Cut a head to the turns whose L2s fit the new-material half of a merge
/// prompt (the other half is the running summary's), so no turn of a batch
/// is cut out of the prompt; the first turn always stays.
fn fit_prompt(head: &mut Vec<FoldTurn>, max_input_chars: usize) {
    let budget = max_input_chars - max_input_chars / 2;
    let mut used = 0;
    let keep = head
        .iter()
        .position(|t| {
            used += t.l2.trim().chars().count() + 3; // "- " and the newline
            used > budget
        })
        .unwrap_or(head.len())
        .max(1);
    head.truncate(keep);
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
            // A backlog folds in batches (a live session's newest turn is a
            // head of one), cut where the segmenter sees a new topic. Only a
            // model asked for a verdict on every turn folds one at a time.
            let batch = if opts.threshold() || !opts.segment.model_votes { MAX_BATCH } else { 1 };
            let mut head = queue::fold_head(&store.conn, sid, batch)?;
            fit_prompt(&mut head, opts.summaries.max_input_chars);
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
    let texts = fold.views.iter().map(|v| v.text.as_str());
    let target = match decision {
        Decision::Update { content, written } => {
            let r = run.expect("update needs a running summary");
            let terms = merge_terms(&r.key_terms, texts);
            if written.origin == "extractive" {
                report.extractive += 1;
            }
            tx.execute(
                "UPDATE summaries SET content = ?2, tokens = ?3, version = version + 1, last_turn_id = ?4,
                        last_seq = ?5, updated_at = ?6, model = ?7, prompt_version = ?8, key_terms = ?9,
                        origin = CASE WHEN origin = 'extractive' THEN origin ELSE ?10 END
                 WHERE id = ?1",
                params![
                    r.id,
                    content,
                    estimate_tokens(&content),
                    last_id,
                    last_seq,
                    now,
                    written.model,
                    written.prompt_version,
                    terms,
                    written.origin
                ],
            )?;
            r.id
        }
        Decision::Start { content, written, reason, score } => {
            if let Some(r) = run {
                complete_l3(&tx, r.id, now)?;
            }
            if reason.is_shift() {
                report.topic_shifts += 1;
            }
            if written.origin == "extractive" {
                report.extractive += 1;
            }
            let terms = merge_terms("", texts);
            tx.query_row(
                "INSERT INTO summaries (level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                        first_seq, last_seq, model, prompt_version, created_at, updated_at,
                        start_reason, start_score, key_terms, origin)
                 VALUES (3, ?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13, ?14, ?15) RETURNING id",
                params![
                    sid,
                    project,
                    content,
                    estimate_tokens(&content),
                    first_id,
                    last_id,
                    first_seq,
                    last_seq,
                    written.model,
                    written.prompt_version,
                    now,
                    reason.name(),
                    score,
                    terms,
                    written.origin
                ],
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
    key_terms: String,
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
            "SELECT id, project, content, model, attempts, key_terms FROM summaries
             WHERE l4_state = 'pending' AND (?1 IS NULL OR session_id = ?1)
               AND (lease_owner IS NULL OR lease_owner = ?2 OR lease_expires < ?3)
             ORDER BY id LIMIT ?4",
        )?;
        let want = 1 + skip.l3_rows.len() as i64;
        let rows = stmt.query_map(params![session, opts.owner, now_ms(), want], |r| {
            Ok(L4Item {
                id: r.get(0)?,
                project: r.get(1)?,
                content: r.get(2)?,
                model: r.get(3)?,
                attempts: r.get(4)?,
                key_terms: r.get(5)?,
            })
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
    let (started, before, l3_row) = (std::time::Instant::now(), report.tally(), item.id);
    let step = l4_item(store, slot, opts, skip, report, item)?;
    if matches!(step, Step::Done(n) if n > 0) {
        report.note(super::Level::L4, super::progress::Subject::Summary(l3_row), before, started);
    }
    Ok(step)
}

/// The L4 fold of one L3 row.
fn l4_item(
    store: &mut Store,
    slot: &mut ModelSlot<'_>,
    opts: &PassOptions,
    skip: &mut Skip,
    report: &mut Report,
    item: L4Item,
) -> Result<Step> {
    if queue::claim(store, Table::Summaries, &[item.id], &opts.owner)?.is_empty() {
        skip.l3_rows.insert(item.id);
        return Ok(Step::Done(0));
    }
    let run = running(&store.conn, 4, &item.project)?;
    let items = [item.content.as_str()];
    let input = FoldInput {
        scope: Scope::Project,
        run: run.as_ref(),
        items: &items,
        copy_model: &item.model,
        attempts: item.attempts,
        start: forced_start(opts, run.as_ref(), false),
    };
    let decision = model_for(slot, needs_model(&input)).and_then(|model| decide(model, opts, &input));
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
        Decision::Update { content, written } => {
            let r = run.as_ref().expect("update needs a running summary");
            if written.origin == "extractive" {
                report.extractive += 1;
            }
            let terms = merge_terms(&r.key_terms, [item.key_terms.as_str()]);
            tx.execute(
                "UPDATE summaries SET content = ?2, tokens = ?3, version = version + 1, last_l3_id = ?4,
                        updated_at = ?5, model = ?6, prompt_version = ?7, key_terms = ?8,
                        origin = CASE WHEN origin = 'extractive' THEN origin ELSE ?9 END
                 WHERE id = ?1",
                params![
                    r.id,
                    content,
                    estimate_tokens(&content),
                    item.id,
                    now,
                    written.model,
                    written.prompt_version,
                    terms,
                    written.origin
                ],
            )?;
            r.id
        }
        Decision::Start { content, written, reason, score: _ } => {
            if let Some(r) = &run {
                tx.execute(
                    "UPDATE summaries SET status = 'complete', completed_at = ?2, updated_at = ?2, version = version + 1
                     WHERE id = ?1",
                    params![r.id, now],
                )?;
            }
            if reason.is_shift() {
                report.topic_shifts += 1;
            }
            if written.origin == "extractive" {
                report.extractive += 1;
            }
            tx.query_row(
                "INSERT INTO summaries (level, project, status, content, tokens, first_l3_id, last_l3_id,
                        model, prompt_version, created_at, updated_at, start_reason, key_terms, origin)
                 VALUES (4, ?1, 'running', ?2, ?3, ?4, ?4, ?5, ?6, ?7, ?7, ?8, ?9, ?10) RETURNING id",
                params![
                    item.project,
                    content,
                    estimate_tokens(&content),
                    item.id,
                    written.model,
                    written.prompt_version,
                    now,
                    reason.name(),
                    item.key_terms,
                    written.origin
                ],
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

/// Most key terms kept per summary.
const MAX_KEY_TERMS: usize = 48;

/// A summary's key terms (`; `-separated) with those of new texts added.
fn merge_terms<'a>(existing: &str, texts: impl IntoIterator<Item = &'a str>) -> String {
    let old = existing.split("; ").filter(|t| !t.is_empty());
    let new: Vec<String> = grounding::key_terms(texts, MAX_KEY_TERMS);
    let mut out: Vec<String> = Vec::new();
    for t in old.map(str::to_string).chain(new) {
        if out.len() < MAX_KEY_TERMS && !out.iter().any(|o| o.eq_ignore_ascii_case(&t)) {
            out.push(t);
        }
    }
    out.join("; ")
}

#[cfg(test)]
mod tests {
    //! The fold decision on data, with a scripted model: no database.

    use std::sync::Mutex;

    use super::*;
    use crate::config::Summaries;
    use crate::llm::{Reply, Usage};

    /// Answers with the scripted replies in order (the last one repeats)
    /// and records every prompt it was given.
    struct Scripted {
        replies: Vec<Result<String, ModelError>>,
        prompts: Mutex<Vec<String>>,
    }

    impl Scripted {
        fn new(replies: &[Result<&str, ModelError>]) -> Self {
            Scripted {
                replies: replies.iter().map(|r| r.clone().map(str::to_string)).collect(),
                prompts: Mutex::new(Vec::new()),
            }
        }
        fn calls(&self) -> usize {
            self.prompts.lock().unwrap().len()
        }
        fn last_prompt(&self) -> String {
            self.prompts.lock().unwrap().last().cloned().unwrap_or_default()
        }
    }

    impl MemoryModel for Scripted {
        fn describe(&self) -> String {
            "scripted".into()
        }
        fn model_id(&self) -> String {
            "scripted".into()
        }
        fn preflight(&self) -> Result<(), ModelError> {
            Ok(())
        }
        fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
            let mut prompts = self.prompts.lock().unwrap();
            prompts.push(req.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n"));
            let i = (prompts.len() - 1).min(self.replies.len() - 1);
            self.replies[i].clone().map(|text| Reply { text, usage: Usage::default() })
        }
    }

    const RUNNING: &str = "The user set up nightly restic backups of /srv to a USB disk.";
    const NEW: &str = "The user asked how to check the restic backups; the assistant suggested restic check weekly.";
    const GOOD: &str =
        "The user set up nightly restic backups of /srv to a USB disk and asked how to check them; the assistant suggested restic check weekly.";

    fn opts(votes: bool) -> PassOptions {
        let mut o = PassOptions::new("me".into(), Summaries::default());
        o.segment.model_votes = votes;
        o
    }

    fn run(tokens: i64) -> Running {
        Running { id: 7, content: RUNNING.into(), tokens, version: 3, key_terms: String::new() }
    }

    fn input<'a>(run: Option<&'a Running>, items: &'a [&'a str], attempts: i64) -> FoldInput<'a> {
        FoldInput { scope: Scope::Session, run, items, copy_model: "l2-model", attempts, start: None }
    }

    #[test]
    fn a_grounded_merge_updates_the_running_summary() {
        let m = Scripted::new(&[Ok(GOOD)]);
        let r = run(10);
        let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
        match d {
            Decision::Update { content, written } => {
                assert_eq!(content, GOOD);
                assert_eq!((written.origin, written.prompt_version), ("model", prompts::MERGE_VERSION));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(m.calls(), 1);
        assert!(!m.last_prompt().contains("NO_MERGE"), "an untrusted model is not asked for the verdict");
    }

    #[test]
    fn a_segmenter_shift_starts_a_segment_without_a_model_call() {
        let m = Scripted::new(&[Ok(GOOD)]);
        let r = run(10);
        let mut i = input(Some(&r), &[NEW], 0);
        i.start = Some((StartReason::TopicShift, Some(1.2)));
        assert!(!needs_model(&i), "one item copied: no call");
        match decide(Some(&m), &opts(false), &i).unwrap() {
            Decision::Start { content, written, reason, score } => {
                assert_eq!(content, NEW);
                assert_eq!(written.origin, "copy");
                assert_eq!((reason, score), (StartReason::TopicShift, Some(1.2)));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(m.calls(), 0);
    }

    #[test]
    fn a_trusted_models_no_merge_is_a_topic_shift() {
        let m = Scripted::new(&[Ok("NO_MERGE")]);
        let r = run(10);
        let d = decide(Some(&m), &opts(true), &input(Some(&r), &[NEW], 0)).unwrap();
        assert!(matches!(d, Decision::Start { reason: StartReason::ModelNoMerge, .. }), "{d:?}");
        assert!(m.last_prompt().contains("NO_MERGE"), "a trusted model is asked");
    }

    #[test]
    fn an_untrusted_models_no_merge_is_a_bad_reply_then_extractive() {
        let m = Scripted::new(&[Ok("NO_MERGE")]);
        let r = run(10);
        match decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap() {
            Decision::Update { content, written } => {
                assert_eq!(written.origin, "extractive");
                assert!(content.contains(RUNNING) && content.contains(NEW), "{content}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(m.calls(), 2, "asked once more before falling back");
    }

    #[test]
    fn a_full_running_summary_rolls_over() {
        let m = Scripted::new(&[Ok(GOOD)]);
        let r = run(10_000);
        let o = opts(false);
        let mut i = input(Some(&r), &[NEW], 0);
        i.start = forced_start(&o, Some(&r), false);
        match decide(Some(&m), &o, &i).unwrap() {
            Decision::Start { reason, written, .. } => {
                assert_eq!(reason, StartReason::Rollover);
                assert_eq!(written.origin, "copy");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(forced_start(&o, None, false), Some((StartReason::First, None)));
        assert_eq!(forced_start(&o, None, true), Some((StartReason::Pause, None)));
        assert_eq!(forced_start(&o, Some(&run(10)), false), None);
    }

    #[test]
    fn an_invented_fact_is_retried_then_written_extractively() {
        let invented = "The user set up restic backups of /srv to a USB disk encrypted with AES256; the assistant suggested restic check weekly.";
        let m = Scripted::new(&[Ok(invented), Ok(GOOD)]);
        let r = run(10);
        let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
        assert!(
            matches!(&d, Decision::Update { content, written } if content == GOOD && written.origin == "model"),
            "{d:?}"
        );
        assert_eq!(m.calls(), 2, "the second, warmer reply was grounded");
        let m = Scripted::new(&[Ok(invented)]);
        let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
        assert!(matches!(&d, Decision::Update { written, .. } if written.origin == "extractive"), "{d:?}");
    }

    #[test]
    fn a_looping_or_echoing_merge_is_never_stored() {
        let looping = "The user set up restic backups of /srv. They made a backup, then they made a backup, then they made a backup, then they made a backup.";
        let echo = "Running summary: The user set up restic backups of /srv. New turns: - restic check weekly. Reply with the updated summary.";
        for bad in [looping, echo] {
            let m = Scripted::new(&[Ok(bad)]);
            let r = run(10);
            let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
            match d {
                Decision::Update { content, written } => {
                    assert_eq!(written.origin, "extractive", "{bad}");
                    assert_ne!(content, bad);
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn an_unparseable_reply_with_attempts_left_is_retried_next_run() {
        let m = Scripted::new(&[Err(ModelError::BadReply("empty".into()))]);
        let r = run(10);
        let d = decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)).unwrap();
        assert!(matches!(&d, Decision::Retry(why) if why == "empty"), "{d:?}");
    }

    #[test]
    fn on_the_last_attempt_the_material_becomes_a_segment_of_its_own() {
        let m = Scripted::new(&[Err(ModelError::BadReply("empty".into()))]);
        let r = run(10);
        let o = opts(false);
        let d = decide(Some(&m), &o, &input(Some(&r), &[NEW], o.max_attempts as i64 - 1)).unwrap();
        match d {
            Decision::Start { content, reason, .. } => {
                assert_eq!(reason, StartReason::FoldFailed);
                assert_eq!(content, NEW);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unavailable_model_stops_the_pass() {
        let m = Scripted::new(&[Err(ModelError::Unavailable("down".into()))]);
        let r = run(10);
        assert!(matches!(decide(Some(&m), &opts(false), &input(Some(&r), &[NEW], 0)), Err(ModelError::Unavailable(_))));
    }

    #[test]
    fn merge_terms_keeps_old_terms_first_without_duplicates() {
        let t = merge_terms("/srv; restic", ["restic check and --password-file for /srv"]);
        assert_eq!(t, "/srv; restic; --password-file");
    }

    fn turns(lens: &[usize]) -> Vec<FoldTurn> {
        let turn = |(i, n): (usize, &usize)| FoldTurn {
            id: i as i64 + 1,
            l2: "x".repeat(*n),
            l2_model: "m".into(),
            fold_attempts: 0,
        };
        lens.iter().enumerate().map(turn).collect()
    }

    #[test]
    fn a_backlog_head_keeps_the_turns_that_fit_the_new_material_half_of_the_prompt() {
        // 3000 characters: 1500 for new material, each L2 costs its length + 3.
        let mut head = turns(&[497, 497, 497, 497]);
        fit_prompt(&mut head, 3000);
        assert_eq!(head.len(), 3);
        let mut one_long = turns(&[5000, 10]);
        fit_prompt(&mut one_long, 3000);
        assert_eq!(one_long.len(), 1, "the first turn always stays");
        let mut small = turns(&[100; 64]);
        fit_prompt(&mut small, 3000);
        assert_eq!(small.len(), 14);
    }
}
