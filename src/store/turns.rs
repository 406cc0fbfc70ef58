//! Turns: storing raw turns (L1, the capture hot path: a few indexed
//! statements per turn, no scan) and writing their L2s.

use anyhow::{Context, Result};
use rusqlite::{params, OptionalExtension, Transaction};

use super::queue::PENDING_L2;
use super::{classify, estimate_tokens, now_ms, Store};

/// A validated turn, ready to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub session: String,
    /// The project it names (a folder's or a name); the store finds or
    /// adds it (`store::projects::ensure`).
    pub project: Option<crate::project::Spec>,
    pub user: String,
    pub assistant: String,
    pub at: i64,
    pub id: Option<String>,
    /// Secrets replaced in its texts (counted per session for `status`).
    pub redactions: i64,
    pub kind: TurnKind,
}

/// What a turn is: said in a conversation, or a note asked to be kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnKind {
    #[default]
    Turn,
    Note,
}

impl TurnKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnKind::Turn => "turn",
            TurnKind::Note => "note",
        }
    }
}

/// What storing a batch of turns did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stored {
    pub stored: u64,
    pub duplicates: u64,
    /// Turns that named another project than their stored session's:
    /// (session, project kept, project asked), one per pair.
    pub moved: Vec<(String, String, String)>,
}

/// Store `batch` in one transaction.
pub fn store_batch(store: &mut Store, batch: &[Turn]) -> Result<Stored> {
    let mut out = Stored::default();
    if batch.is_empty() {
        return Ok(out);
    }
    let path = store.path.clone();
    let tx = store.write().with_context(|| format!("database {}", path.display()))?;
    for t in batch {
        // A name several projects have: capture refuses it rather than
        // guess (a hook's turns name their folder, never only a name).
        if let Some(spec) = t.project.as_ref().filter(|p| p.root.is_none()) {
            if let super::projects::Found::Ambiguous(all) = super::projects::find(&tx, spec).map_err(classify)? {
                return Err(crate::exit::fail(crate::exit::Exit::Usage, super::projects::ambiguous(&spec.name, &all)));
            }
        }
        if let Some(kept) = other_project(&tx, t).map_err(classify)? {
            let asked = t.project.as_ref().map(|p| p.shown().to_string()).unwrap_or_default();
            if !out.moved.iter().any(|(s, _, a)| s == &t.session && a == &asked) {
                out.moved.push((t.session.clone(), kept, asked));
            }
        }
        let stored =
            insert(&tx, t).map_err(classify).with_context(|| format!("storing a turn of session {}", t.session))?;
        if stored {
            out.stored += 1;
        } else {
            out.duplicates += 1;
        }
    }
    tx.commit().map_err(classify).with_context(|| format!("database {}", path.display()))?;
    Ok(out)
}

/// The project a stored session already belongs to (its label), when `t`
/// names another one: a session keeps its first project (capture warns).
pub fn other_project(tx: &Transaction<'_>, t: &Turn) -> rusqlite::Result<Option<String>> {
    let Some(wanted) = t.project.as_ref() else { return Ok(None) };
    let have: Option<Option<String>> = tx
        .prepare_cached("SELECT project FROM sessions WHERE external_id = ?1")?
        .query_row([&t.session], |r| r.get(0))
        .optional()?;
    let Some(kept) = have.flatten() else { return Ok(None) };
    if super::projects::find(tx, wanted)? == super::projects::Found::Key(kept.clone()) {
        return Ok(None);
    }
    let label =
        tx.prepare_cached("SELECT label FROM projects WHERE key = ?1")?.query_row([&kept], |r| r.get(0)).optional()?;
    Ok(Some(label.unwrap_or(kept)))
}

/// Insert one turn inside the caller's transaction. Returns true when
/// stored, false when the idempotency key was already there (or names a
/// forgotten turn). Capture's rule: a key names one turn for good.
pub fn insert(tx: &Transaction<'_>, t: &Turn) -> rusqlite::Result<bool> {
    Ok(store_turn(tx, t, SameKey::Keep)? == Outcome::Stored)
}

/// What to do with a turn whose idempotency key is stored already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameKey {
    /// Keep what is stored (`capture`: the key names one turn for good).
    Keep,
    /// A transcript read again: the same prompt with a longer reply is the
    /// same turn read before its reply was complete, and replaces it (its
    /// summaries go back to the queue); so does a longer reply that holds
    /// the stored one under another wording of the prompt (the same turn
    /// through another door: Codex's notify, then its rollout); anything
    /// else is a duplicate.
    Grow,
    /// As `Grow`, and another prompt under the same key is another turn
    /// (a transcript that reuses a record id), stored under
    /// [`forked_key`].
    GrowOrFork,
}

/// What storing one turn did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Stored,
    Duplicate,
    /// The stored turn had a shorter reply: it now has this one.
    Updated,
    /// The key names a turn `forget` removed: not stored again.
    Forgotten,
}

/// The key of a second prompt under an id already used by another one:
/// the id and a hash of the prompt, the same on every read.
pub fn forked_key(key: &str, user: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(user.as_bytes());
    let hex: String = d[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{key}~{hex}")
}

/// Store one turn inside the caller's transaction; `same` says what a
/// stored turn with the same key means.
pub fn store_turn(tx: &Transaction<'_>, t: &Turn, same: SameKey) -> rusqlite::Result<Outcome> {
    // Before anything is written: a forgotten turn leaves no session row.
    if let Some(key) = t.id.as_deref() {
        if super::forgotten::is_forgotten(tx, &t.session, key)? {
            return Ok(Outcome::Forgotten);
        }
    }
    let now = now_ms();
    let existing: Option<(i64, bool)> = tx
        .prepare_cached("SELECT id, project IS NOT NULL FROM sessions WHERE external_id = ?1")?
        .query_row([&t.session], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    // A session keeps its first project: only a session without one yet
    // finds (or adds) the project its turn names.
    let project = match (&t.project, existing) {
        (Some(spec), None | Some((_, false))) => Some(super::projects::ensure(tx, spec)?),
        _ => None,
    };
    let session_id = match existing {
        Some((id, _)) => id,
        None => tx
            .prepare_cached(
                "INSERT INTO sessions (external_id, project, first_at, last_at, created_at)
                 VALUES (?1, ?2, ?3, ?3, ?4) RETURNING id",
            )?
            .query_row(params![t.session, project, t.at, now], |r| r.get(0))?,
    };
    let tokens = estimate_tokens(&t.user) + estimate_tokens(&t.assistant);
    let inserted = tx
        .prepare_cached(
            "INSERT INTO turns (session_id, idem_key, at, captured_at, user_text, assistant_text, tokens, kind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (session_id, idem_key) DO NOTHING",
        )?
        .execute(params![session_id, t.id, t.at, now, t.user, t.assistant, tokens, t.kind.as_str()])?;
    if inserted == 0 {
        // The key is stored: the same turn read again, or another one.
        let (Some(key), true) = (t.id.as_deref(), same != SameKey::Keep) else { return Ok(Outcome::Duplicate) };
        let Some(old) = stored_by_key(tx, session_id, key)? else { return Ok(Outcome::Duplicate) };
        if old.user != t.user {
            if same == SameKey::GrowOrFork {
                let forked = Turn { id: Some(forked_key(key, &t.user)), ..t.clone() };
                return store_turn(tx, &forked, SameKey::Grow);
            }
            // Another door's fuller copy of the same turn: Codex's notify
            // gives the prompt as its text inputs and the last reply, the
            // rollout the prompt as it recorded it and every step of the
            // reply, that last one included.
            let last = old.assistant.trim();
            if !last.is_empty() && t.assistant.len() > old.assistant.len() && t.assistant.contains(last) {
                regrow(tx, &old, t)?;
                return Ok(Outcome::Updated);
            }
            return Ok(Outcome::Duplicate);
        }
        if t.assistant.len() > old.assistant.len() && t.assistant != old.assistant {
            regrow(tx, &old, t)?;
            return Ok(Outcome::Updated);
        }
        return Ok(Outcome::Duplicate);
    }
    // A late turn reopens a closed session; its running summary was
    // completed at close, so the next fold starts a new one.
    tx.prepare_cached(
        "UPDATE sessions SET first_at = min(first_at, ?2), last_at = max(last_at, ?2),
                closed_at = NULL, project = coalesce(project, ?3), tokens = tokens + ?4,
                redactions = redactions + ?5
         WHERE id = ?1",
    )?
    .execute(params![session_id, t.at, project, tokens, t.redactions])?;
    Ok(Outcome::Stored)
}

/// A stored turn as a later read of its transcript compares it.
struct StoredTurn {
    id: i64,
    session_id: i64,
    user: String,
    assistant: String,
    tokens: i64,
    l2: Option<String>,
}

fn stored_by_key(tx: &Transaction<'_>, session_id: i64, key: &str) -> rusqlite::Result<Option<StoredTurn>> {
    tx.prepare_cached(
        "SELECT id, session_id, user_text, assistant_text, tokens, l2 FROM turns WHERE session_id = ?1 AND idem_key = ?2",
    )?
    .query_row(params![session_id, key], |r| {
        Ok(StoredTurn {
            id: r.get(0)?,
            session_id: r.get(1)?,
            user: r.get(2)?,
            assistant: r.get(3)?,
            tokens: r.get(4)?,
            l2: r.get(5)?,
        })
    })
    .optional()
}

/// Redaction markers in a text: what a stored turn counted as redactions.
fn markers(text: &str) -> i64 {
    // `redact::MARKER`, spelled out: store/ sits below the redactor.
    text.matches("[REDACTED:").count() as i64
}

/// Give a stored turn the longer reply of a later read, and send what was
/// derived from the shorter one back to the queue: its L2 (and its vectors
/// and keyword entry), and its session's folds from the first L3 that holds
/// it or a turn after it on (and the project folds after those), as `retry`
/// does. Claims on the session's foldable turns are dropped, so a pass
/// folding them now loses its compare-and-set instead of committing a fold
/// built from the old text.
fn regrow(tx: &Transaction<'_>, old: &StoredTurn, t: &Turn) -> rusqlite::Result<()> {
    // The first L3 that folded this turn or one after it in fold order
    // (event time, then id): a turn whose L2 had failed was passed over,
    // and must now fold in its place.
    let from_seq: Option<i64> = tx.query_row(
        "SELECT min(m.first_seq) FROM turns t
         JOIN turns u ON u.session_id = t.session_id AND u.l3_id IS NOT NULL
                     AND (u.id = t.id OR u.at > t.at OR (u.at = t.at AND u.id > t.id))
         JOIN summaries m ON m.id = u.l3_id
         WHERE t.id = ?1",
        [old.id],
        |r| r.get(0),
    )?;
    if let Some(from_seq) = from_seq {
        tx.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS retry_from (session_id INTEGER PRIMARY KEY, from_seq INTEGER);
             DELETE FROM retry_from;",
        )?;
        tx.execute("INSERT INTO retry_from VALUES (?1, ?2)", params![old.session_id, from_seq])?;
        super::retry::undo_folds(tx)?;
        tx.execute_batch("DROP TABLE retry_from;")?;
    }
    if let Some(l2) = &old.l2 {
        tx.execute("INSERT INTO l2_fts(l2_fts, rowid, l2) VALUES ('delete', ?1, ?2)", params![old.id, l2])?;
    }
    tx.execute("DELETE FROM embeddings WHERE kind IN ('l2', 'turn') AND row_id = ?1", [old.id])?;
    let tokens = estimate_tokens(&t.user) + estimate_tokens(&t.assistant);
    tx.execute(
        "UPDATE turns SET user_text = ?2, assistant_text = ?3, tokens = ?4, captured_at = ?5,
                l2 = NULL, l2_state = 'pending', l2_tokens = NULL, l2_model = NULL, l2_prompt_version = NULL,
                l2_at = NULL, l2_origin = NULL, attempts = 0, fold_attempts = 0, last_error = NULL,
                lease_owner = NULL, lease_expires = NULL
         WHERE id = ?1",
        params![old.id, t.user, t.assistant, tokens, now_ms()],
    )?;
    tx.execute(
        "UPDATE turns SET lease_owner = NULL, lease_expires = NULL
         WHERE session_id = ?1 AND l3_id IS NULL AND l2_state = 'done' AND lease_owner IS NOT NULL",
        [old.session_id],
    )?;
    tx.execute(
        "UPDATE sessions SET tokens = tokens + ?2, closed_at = NULL, redactions = max(0, redactions + ?3)
         WHERE id = ?1",
        params![old.session_id, tokens - old.tokens, markers(&t.assistant) - markers(&old.assistant)],
    )?;
    Ok(())
}

/// How many turns are stored.
pub fn count(store: &Store) -> Result<i64> {
    Ok(store.conn.query_row("SELECT count(*) FROM turns", [], |r| r.get(0))?)
}

/// An L2 as written by the pass.
pub struct L2<'a> {
    pub text: &'a str,
    pub model: &'a str,
    pub prompt_version: i64,
    /// `model` or `extractive`.
    pub origin: &'a str,
}

/// Compare-and-set: only a turn still pending and claimed by `owner`
/// takes the L2. Returns whether it did.
pub fn commit_l2(store: &mut Store, id: i64, owner: &str, l2: &L2<'_>) -> Result<bool> {
    let tx = store.write()?;
    let n = tx.execute(
        &format!(
            "UPDATE turns SET l2 = ?1, l2_state = 'done', l2_tokens = ?2, l2_model = ?3, l2_prompt_version = ?4,
                    l2_at = ?5, last_error = NULL, lease_owner = NULL, lease_expires = NULL, l2_origin = ?8
             WHERE id = ?6 AND {PENDING_L2} AND lease_owner = ?7"
        ),
        params![l2.text, estimate_tokens(l2.text), l2.model, l2.prompt_version, now_ms(), id, owner, l2.origin],
    )?;
    tx.commit()?;
    Ok(n == 1)
}

/// Count a failed L2 attempt of a turn still pending and claimed by
/// `owner`; true when it was the last of `max_attempts` (the turn is now
/// `failed` and is not retried unless `ragger retry` says so).
pub fn fail_l2_attempt(store: &mut Store, id: i64, owner: &str, why: &str, max_attempts: u32) -> Result<bool> {
    let tx = store.write()?;
    let gave_up: Option<bool> = tx
        .query_row(
            &format!(
                "UPDATE turns SET attempts = attempts + 1, last_error = ?2,
                        l2_state = CASE WHEN attempts + 1 >= ?3 THEN 'failed' ELSE l2_state END,
                        lease_owner = NULL, lease_expires = NULL
                 WHERE id = ?1 AND {PENDING_L2} AND lease_owner = ?4
                 RETURNING l2_state = 'failed'"
            ),
            params![id, why, max_attempts, owner],
            |r| r.get(0),
        )
        .optional()?;
    tx.commit()?;
    Ok(gave_up.unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(assistant: &str) -> Turn {
        Turn {
            session: "s".into(),
            project: None,
            user: "fix it".into(),
            assistant: assistant.into(),
            at: 1,
            id: Some("k".into()),
            redactions: 0,
            kind: TurnKind::Turn,
        }
    }

    fn put(store: &mut Store, t: &Turn, same: SameKey) -> Outcome {
        let tx = store.write().unwrap();
        let o = store_turn(&tx, t, same).unwrap();
        tx.commit().unwrap();
        o
    }

    #[test]
    fn a_longer_reply_replaces_the_stored_one_and_an_l2_in_flight_loses_its_claim() {
        let mut store = Store::memory().unwrap();
        assert_eq!(put(&mut store, &turn("[tool Bash: ls]"), SameKey::Grow), Outcome::Stored);
        // A pass claims the turn and asks the model...
        store.exec("UPDATE turns SET lease_owner = 'pass', lease_expires = 9e15").unwrap();
        // ...while a later read brings the whole reply.
        assert_eq!(put(&mut store, &turn("[tool Bash: ls]\nDone."), SameKey::Grow), Outcome::Updated);
        let l2 = L2 { text: "The user listed files.", model: "m", prompt_version: 1, origin: "model" };
        assert!(!commit_l2(&mut store, 1, "pass", &l2).unwrap(), "an L2 of the short reply is not kept");
        // Shorter or equal: a duplicate; capture's rule keeps the first.
        assert_eq!(put(&mut store, &turn("[tool Bash: ls]"), SameKey::Grow), Outcome::Duplicate);
        assert_eq!(put(&mut store, &turn("[tool Bash: ls]\nDone, and more."), SameKey::Keep), Outcome::Duplicate);
        let text: String = store.conn.query_row("SELECT assistant_text FROM turns", [], |r| r.get(0)).unwrap();
        assert_eq!(text, "[tool Bash: ls]\nDone.");
    }

    #[test]
    fn a_passed_over_turn_that_grows_folds_in_its_place() {
        let mut store = Store::memory().unwrap();
        // Turn 1's L2 failed, so the fold went on with turn 2.
        store
            .exec(
                "INSERT INTO sessions (id, external_id, first_at, last_at, created_at, next_fold_seq)
                     VALUES (1, 's', 1, 2, 0, 2);
                 INSERT INTO summaries (id, level, session_id, status, content, tokens, first_turn_id, last_turn_id,
                        first_seq, last_seq, model, prompt_version, created_at, updated_at)
                     VALUES (1, 3, 1, 'running', 'x', 1, 2, 2, 1, 1, 'm', 1, 0, 0);
                 INSERT INTO turns (id, session_id, idem_key, at, captured_at, user_text, assistant_text, tokens,
                        l2_state, attempts)
                     VALUES (1, 1, 'k', 1, 0, 'fix it', '[tool Bash: ls]', 1, 'failed', 3);
                 INSERT INTO turns (id, session_id, idem_key, at, captured_at, user_text, assistant_text, tokens,
                        l2, l2_state, l3_id, fold_seq)
                     VALUES (2, 1, 'k2', 2, 0, 'and then', 'ok', 1, 'The user went on.', 'done', 1, 1);",
            )
            .unwrap();
        assert_eq!(crate::store::check::check(&store).unwrap(), vec![]);
        assert_eq!(put(&mut store, &turn("[tool Bash: ls]\nDone."), SameKey::Grow), Outcome::Updated);
        assert_eq!(crate::store::check::check(&store).unwrap(), vec![]);
        let (state, folded): (String, i64) = store
            .conn
            .query_row(
                "SELECT (SELECT l2_state FROM turns WHERE id = 1), (SELECT count(*) FROM turns WHERE l3_id IS NOT NULL)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((state.as_str(), folded), ("pending", 0));
    }

    #[test]
    fn another_prompt_under_a_used_key_is_forked_only_when_asked() {
        let mut store = Store::memory().unwrap();
        put(&mut store, &turn("a"), SameKey::GrowOrFork);
        let other = Turn { user: "something else".into(), ..turn("b") };
        assert_eq!(put(&mut store, &other, SameKey::Grow), Outcome::Duplicate);
        assert_eq!(put(&mut store, &other, SameKey::GrowOrFork), Outcome::Stored);
        assert_eq!(put(&mut store, &other, SameKey::GrowOrFork), Outcome::Duplicate);
        let key: String = store.conn.query_row("SELECT idem_key FROM turns WHERE id = 2", [], |r| r.get(0)).unwrap();
        assert_eq!(key, forked_key("k", "something else"));
    }

    #[test]
    fn a_fuller_copy_from_another_door_replaces_the_stored_turn_when_it_holds_its_reply() {
        let mut store = Store::memory().unwrap();
        // notify: the text inputs and the last reply.
        let notify = Turn { user: "fix it\nand test".into(), ..turn("Done.") };
        assert_eq!(put(&mut store, &notify, SameKey::Grow), Outcome::Stored);
        // Not the same turn (the reply is not in it): kept as it was.
        let other = Turn { user: "something else".into(), ..turn("[tool Bash: ls]\nNothing to do here.") };
        assert_eq!(put(&mut store, &other, SameKey::Grow), Outcome::Duplicate);
        // The rollout: its wording of the prompt, the tool calls, the reply.
        let rollout = Turn { user: "fix it".into(), ..turn("[tool Bash: cargo test]\n[result: ok]\nDone.") };
        assert_eq!(put(&mut store, &rollout, SameKey::Grow), Outcome::Updated);
        let (user, text): (String, String) = store
            .conn
            .query_row("SELECT user_text, assistant_text FROM turns", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((user.as_str(), text.as_str()), ("fix it", "[tool Bash: cargo test]\n[result: ok]\nDone."));
        assert_eq!(put(&mut store, &notify, SameKey::Grow), Outcome::Duplicate, "notify again changes nothing");
        assert_eq!(crate::store::check::check(&store).unwrap(), vec![]);
    }
}
