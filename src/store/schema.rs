//! The schema, as append-only migrations keyed by `PRAGMA user_version`.
//! Never edit a migration that has shipped; add a new one.
//!
//! Times are integer milliseconds since the Unix epoch (UTC).
//!
//! The invariants of design.md are checkable with SQL over these tables
//! (see `check.rs`):
//! - a turn is unique per (session, idempotency key);
//! - `turns.l2` is written once (state pending → done);
//! - `turns.l3_id` names the one L3 row a turn was folded into, and
//!   `turns.fold_seq` its position in the session's fold order; an L3 row's
//!   episode covers a contiguous run of fold_seq values;
//! - a partial unique index allows one running L3 per session and one
//!   running L4 per project.

pub const MIGRATIONS: &[&str] = &[
    // 1: initial schema
    r#"
CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    external_id  TEXT NOT NULL UNIQUE,
    project      TEXT,
    first_at     INTEGER NOT NULL,          -- earliest turn event time
    last_at      INTEGER NOT NULL,          -- latest turn event time
    closed_at    INTEGER,                   -- set when housekeeping closes it
    created_at   INTEGER NOT NULL,
    tokens       INTEGER NOT NULL DEFAULT 0,        -- total token estimate of its turns
    next_fold_seq INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX sessions_open ON sessions(last_at) WHERE closed_at IS NULL;

CREATE TABLE summaries (
    id             INTEGER PRIMARY KEY,
    level          INTEGER NOT NULL CHECK (level IN (3, 4)),
    session_id     INTEGER REFERENCES sessions(id),   -- level 3
    project        TEXT,                              -- level 4 (and L3's project, copied)
    status         TEXT NOT NULL CHECK (status IN ('running', 'complete')),
    content        TEXT NOT NULL,
    tokens         INTEGER NOT NULL,
    first_turn_id  INTEGER,                           -- level 3: episode range
    last_turn_id   INTEGER,
    first_seq      INTEGER,                           -- level 3: fold_seq range
    last_seq       INTEGER,
    first_l3_id    INTEGER,                           -- level 4: folded L3 range
    last_l3_id     INTEGER,
    version        INTEGER NOT NULL DEFAULT 1,        -- compare-and-set
    model          TEXT NOT NULL,
    prompt_version INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    completed_at   INTEGER,
    l4_id          INTEGER REFERENCES summaries(id),  -- level 3: folded into this L4
    l4_state       TEXT NOT NULL DEFAULT 'none' CHECK (l4_state IN ('none', 'pending', 'done', 'failed')),
    attempts       INTEGER NOT NULL DEFAULT 0,        -- level 3: failed L4 folds
    last_error     TEXT,
    lease_owner    TEXT,
    lease_expires  INTEGER,
    vec_version    INTEGER,                           -- version that has a vector (trigger-kept)
    CHECK ((level = 3 AND session_id IS NOT NULL) OR (level = 4 AND project IS NOT NULL))
);
CREATE UNIQUE INDEX one_running_l3 ON summaries(session_id) WHERE level = 3 AND status = 'running';
CREATE UNIQUE INDEX one_running_l4 ON summaries(project) WHERE level = 4 AND status = 'running';
CREATE INDEX summaries_session ON summaries(session_id, id);
CREATE INDEX summaries_l4_pending ON summaries(id) WHERE l4_state = 'pending';
CREATE INDEX summaries_leased ON summaries(lease_owner) WHERE lease_owner IS NOT NULL;

CREATE TABLE turns (
    id             INTEGER PRIMARY KEY,
    session_id     INTEGER NOT NULL REFERENCES sessions(id),
    idem_key       TEXT,
    at             INTEGER NOT NULL,                  -- event time
    captured_at    INTEGER NOT NULL,
    user_text      TEXT NOT NULL,
    assistant_text TEXT NOT NULL,
    tokens         INTEGER NOT NULL,                  -- estimate of user + assistant
    l2             TEXT,
    l2_state       TEXT NOT NULL DEFAULT 'pending' CHECK (l2_state IN ('pending', 'done', 'failed')),
    l2_tokens      INTEGER,
    l2_model       TEXT,
    l2_prompt_version INTEGER,
    l2_at          INTEGER,
    attempts       INTEGER NOT NULL DEFAULT 0,        -- failed L2 calls
    fold_attempts  INTEGER NOT NULL DEFAULT 0,        -- failed L3 folds (then folded without the model)
    last_error     TEXT,
    lease_owner    TEXT,
    lease_expires  INTEGER,
    l3_id          INTEGER REFERENCES summaries(id),  -- folded into
    fold_seq       INTEGER,                           -- position in the session's fold order
    l2_vec         INTEGER NOT NULL DEFAULT 0,        -- 1 once the L2 has a vector (trigger-kept)
    UNIQUE (session_id, idem_key),
    UNIQUE (session_id, fold_seq),
    CHECK ((l2 IS NULL) = (l2_state <> 'done')),
    CHECK (l3_id IS NULL OR l2_state = 'done')
);
CREATE INDEX turns_session_at ON turns(session_id, at, id);
CREATE INDEX turns_pending_l2 ON turns(id) WHERE l2_state = 'pending';
CREATE INDEX turns_unfolded ON turns(session_id, at, id) WHERE l3_id IS NULL;
CREATE INDEX turns_unfolded_id ON turns(id) WHERE l3_id IS NULL;
CREATE INDEX turns_leased ON turns(lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX turns_l3 ON turns(l3_id) WHERE l3_id IS NOT NULL;

-- One vector per embedded row. `kind` 'l2' points at turns.id, 'summary'
-- at summaries.id; `version` is the summary version that was embedded (1
-- for L2), so a running summary that changed is re-embedded. A rowid
-- table: the ~1.5 KB blobs would bloat a WITHOUT ROWID b-tree.
CREATE TABLE embeddings (
    kind       TEXT NOT NULL CHECK (kind IN ('l2', 'summary')),
    row_id     INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    model      TEXT NOT NULL,
    dim        INTEGER NOT NULL,
    vector     BLOB NOT NULL,                        -- little-endian f32 × dim
    created_at INTEGER NOT NULL,
    UNIQUE (kind, row_id)
);
CREATE INDEX embeddings_model ON embeddings(model, kind);

-- What still needs a vector, found through partial indexes instead of a
-- scan: turns.l2_vec and summaries.vec_version mirror the embeddings
-- table (kept by these triggers), and a summary whose version moved on
-- is stale by construction.
CREATE INDEX turns_unembedded ON turns(id) WHERE l2_state = 'done' AND l2_vec = 0;
CREATE INDEX summaries_unembedded ON summaries(id) WHERE vec_version IS NOT version;
CREATE TRIGGER embeddings_mark_ins AFTER INSERT ON embeddings
BEGIN
    UPDATE turns SET l2_vec = 1 WHERE new.kind = 'l2' AND id = new.row_id;
    UPDATE summaries SET vec_version = new.version WHERE new.kind = 'summary' AND id = new.row_id;
END;
CREATE TRIGGER embeddings_mark_upd AFTER UPDATE ON embeddings
BEGIN
    UPDATE turns SET l2_vec = 1 WHERE new.kind = 'l2' AND id = new.row_id;
    UPDATE summaries SET vec_version = new.version WHERE new.kind = 'summary' AND id = new.row_id;
END;
CREATE TRIGGER embeddings_unmark_del AFTER DELETE ON embeddings
BEGIN
    UPDATE turns SET l2_vec = 0 WHERE old.kind = 'l2' AND id = old.row_id;
    UPDATE summaries SET vec_version = NULL WHERE old.kind = 'summary' AND id = old.row_id;
END;

-- Keyword search (external content, kept by triggers).
CREATE VIRTUAL TABLE l2_fts USING fts5(l2, content='turns', content_rowid='id');
CREATE TRIGGER turns_l2_fts_ins AFTER UPDATE OF l2 ON turns
    WHEN new.l2 IS NOT NULL AND old.l2 IS NULL
BEGIN
    INSERT INTO l2_fts(rowid, l2) VALUES (new.id, new.l2);
END;
CREATE TRIGGER turns_l2_fts_del AFTER DELETE ON turns WHEN old.l2 IS NOT NULL
BEGIN
    INSERT INTO l2_fts(l2_fts, rowid, l2) VALUES ('delete', old.id, old.l2);
END;

CREATE VIRTUAL TABLE summaries_fts USING fts5(content, content='summaries', content_rowid='id');
CREATE TRIGGER summaries_fts_ins AFTER INSERT ON summaries
BEGIN
    INSERT INTO summaries_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER summaries_fts_upd AFTER UPDATE OF content ON summaries
BEGIN
    INSERT INTO summaries_fts(summaries_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO summaries_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER summaries_fts_del AFTER DELETE ON summaries
BEGIN
    INSERT INTO summaries_fts(summaries_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;

-- One row per pass (summarize, housekeeping), for `status`.
CREATE TABLE runs (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,
    owner      TEXT NOT NULL,
    started    INTEGER NOT NULL,
    finished   INTEGER,
    outcome    TEXT,                                  -- ok | failed | unavailable | interrupted
    counts     TEXT                                   -- JSON
);
"#,
    // 2: topic segments and faithful memory. Turn vectors (kind 'turn',
    // the segmenter's signal, computed once per turn), why each L3 started
    // and the score that decided it, deterministic key terms per summary,
    // which path wrote a row (model or extractive), and keyword search over
    // the raw turns and the key terms.
    r#"
ALTER TABLE turns ADD COLUMN t_vec INTEGER NOT NULL DEFAULT 0;   -- 1 once the turn's own text has a vector
ALTER TABLE turns ADD COLUMN l2_origin TEXT;                     -- model | extractive (NULL while pending)
ALTER TABLE summaries ADD COLUMN start_reason TEXT;              -- L3: first | topic_shift | rollover | pause | model_no_merge
ALTER TABLE summaries ADD COLUMN start_score REAL;               -- L3: the segmenter's score at the start
ALTER TABLE summaries ADD COLUMN key_terms TEXT NOT NULL DEFAULT '';
ALTER TABLE summaries ADD COLUMN origin TEXT NOT NULL DEFAULT 'model';  -- model | extractive | copy

CREATE TABLE embeddings_v2 (
    kind       TEXT NOT NULL CHECK (kind IN ('l2', 'summary', 'turn')),
    row_id     INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    model      TEXT NOT NULL,
    dim        INTEGER NOT NULL,
    vector     BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (kind, row_id)
);
INSERT INTO embeddings_v2 SELECT kind, row_id, version, model, dim, vector, created_at FROM embeddings;
DROP TABLE embeddings;
ALTER TABLE embeddings_v2 RENAME TO embeddings;
CREATE INDEX embeddings_model ON embeddings(model, kind);
CREATE INDEX turns_untexted ON turns(id) WHERE t_vec = 0;
CREATE TRIGGER embeddings_mark_ins AFTER INSERT ON embeddings
BEGIN
    UPDATE turns SET l2_vec = 1 WHERE new.kind = 'l2' AND id = new.row_id;
    UPDATE turns SET t_vec = 1 WHERE new.kind = 'turn' AND id = new.row_id;
    UPDATE summaries SET vec_version = new.version WHERE new.kind = 'summary' AND id = new.row_id;
END;
CREATE TRIGGER embeddings_mark_upd AFTER UPDATE ON embeddings
BEGIN
    UPDATE turns SET l2_vec = 1 WHERE new.kind = 'l2' AND id = new.row_id;
    UPDATE turns SET t_vec = 1 WHERE new.kind = 'turn' AND id = new.row_id;
    UPDATE summaries SET vec_version = new.version WHERE new.kind = 'summary' AND id = new.row_id;
END;
CREATE TRIGGER embeddings_unmark_del AFTER DELETE ON embeddings
BEGIN
    UPDATE turns SET l2_vec = 0 WHERE old.kind = 'l2' AND id = old.row_id;
    UPDATE turns SET t_vec = 0 WHERE old.kind = 'turn' AND id = old.row_id;
    UPDATE summaries SET vec_version = NULL WHERE old.kind = 'summary' AND id = old.row_id;
END;

-- Every turn findable by its own words (an identifier a summary dropped).
CREATE VIRTUAL TABLE turns_fts USING fts5(user_text, assistant_text, content='turns', content_rowid='id');
INSERT INTO turns_fts(turns_fts) VALUES ('rebuild');
CREATE TRIGGER turns_fts_ins AFTER INSERT ON turns
BEGIN
    INSERT INTO turns_fts(rowid, user_text, assistant_text) VALUES (new.id, new.user_text, new.assistant_text);
END;
CREATE TRIGGER turns_fts_upd AFTER UPDATE OF user_text, assistant_text ON turns
BEGIN
    INSERT INTO turns_fts(turns_fts, rowid, user_text, assistant_text) VALUES ('delete', old.id, old.user_text, old.assistant_text);
    INSERT INTO turns_fts(rowid, user_text, assistant_text) VALUES (new.id, new.user_text, new.assistant_text);
END;
CREATE TRIGGER turns_fts_del AFTER DELETE ON turns
BEGIN
    INSERT INTO turns_fts(turns_fts, rowid, user_text, assistant_text) VALUES ('delete', old.id, old.user_text, old.assistant_text);
END;

-- Summaries searchable by their key terms too.
DROP TRIGGER summaries_fts_ins;
DROP TRIGGER summaries_fts_upd;
DROP TRIGGER summaries_fts_del;
DROP TABLE summaries_fts;
CREATE VIRTUAL TABLE summaries_fts USING fts5(content, key_terms, content='summaries', content_rowid='id');
INSERT INTO summaries_fts(summaries_fts) VALUES ('rebuild');
CREATE TRIGGER summaries_fts_ins AFTER INSERT ON summaries
BEGIN
    INSERT INTO summaries_fts(rowid, content, key_terms) VALUES (new.id, new.content, new.key_terms);
END;
CREATE TRIGGER summaries_fts_upd AFTER UPDATE OF content, key_terms ON summaries
BEGIN
    INSERT INTO summaries_fts(summaries_fts, rowid, content, key_terms) VALUES ('delete', old.id, old.content, old.key_terms);
    INSERT INTO summaries_fts(rowid, content, key_terms) VALUES (new.id, new.content, new.key_terms);
END;
CREATE TRIGGER summaries_fts_del AFTER DELETE ON summaries
BEGIN
    INSERT INTO summaries_fts(summaries_fts, rowid, content, key_terms) VALUES ('delete', old.id, old.content, old.key_terms);
END;
"#,
    // 3 (privacy): secrets redacted at capture, counted per session for
    // `status` (a sum over sessions, not a scan of the turns' texts).
    r#"
ALTER TABLE sessions ADD COLUMN redactions INTEGER NOT NULL DEFAULT 0;
"#,
    // 4: what `ragger import` / `ragger hook` already read of each
    // transcript file, so the next run reads only the tail.
    r#"
CREATE TABLE import_files (
    path        TEXT PRIMARY KEY,           -- absolute path of the transcript
    format      TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,           -- where the next read starts (a turn's start)
    line_no     INTEGER NOT NULL,           -- lines before byte_offset
    check_hash  TEXT NOT NULL,              -- FNV-1a of the bytes before byte_offset (head and last 4 KiB)
    session     TEXT,                       -- what the file stated once (Codex session meta)
    cwd         TEXT,
    updated_at  INTEGER NOT NULL
);
"#,
    // 5: the sessions with L2s waiting to be folded, one index seek each,
    // however many unfolded turns still wait for their L2 (a backlog of
    // 100 interleaved sessions made every fold step read ~7,000 rows).
    r#"
CREATE INDEX turns_foldable ON turns(session_id) WHERE l3_id IS NULL AND l2_state = 'done';
"#,
    // 6: keyword search matches words by their stem (FTS5's porter
    // tokenizer over unicode61: "hiking" finds "hikes"), as `search`'s
    // score compares them. The triggers name the tables and columns,
    // which stay the same, so only the indexes are rebuilt.
    r#"
DROP TABLE l2_fts;
CREATE VIRTUAL TABLE l2_fts USING fts5(l2, content='turns', content_rowid='id', tokenize='porter unicode61');
INSERT INTO l2_fts(rowid, l2) SELECT id, l2 FROM turns WHERE l2 IS NOT NULL;
DROP TABLE summaries_fts;
CREATE VIRTUAL TABLE summaries_fts USING fts5(content, key_terms, content='summaries', content_rowid='id', tokenize='porter unicode61');
INSERT INTO summaries_fts(summaries_fts) VALUES ('rebuild');
DROP TABLE turns_fts;
CREATE VIRTUAL TABLE turns_fts USING fts5(user_text, assistant_text, content='turns', content_rowid='id', tokenize='porter unicode61');
INSERT INTO turns_fts(turns_fts) VALUES ('rebuild');
"#,
    // 7: what `forget` removed stays removed. A one-way hash of each
    // forgotten turn's (session, idempotency key): a hook or an import that
    // reads the same transcript again does not store the turn again, and
    // the table holds no id or text of it.
    r#"
CREATE TABLE IF NOT EXISTS forgotten_keys (
    key_hash     TEXT PRIMARY KEY,          -- see store::forgotten::key_hash
    forgotten_at INTEGER NOT NULL
) WITHOUT ROWID;
"#,
    // 8: a turn's kind: 'turn' (a conversation turn) or 'note' (something
    // the user or agent asked to keep: MCP `remember`, `"kind": "note"`
    // lines). A note is stored, searched and summarised as a turn is.
    r#"
ALTER TABLE turns ADD COLUMN kind TEXT NOT NULL DEFAULT 'turn' CHECK (kind IN ('turn', 'note'));
"#,
    // 9: project identity. A project is its repository root (the folder
    // holding `.git`, else the working folder), a name from `[import]
    // projects`, or a bare name (`capture --project NAME`, and every project
    // stored before this migration, whose root is unknown until a turn with
    // a working folder arrives). `sessions.project` and `summaries.project`
    // keep holding a text key, now the `key` of this table: the root path
    // for a project found by its folder, the name otherwise (so rows stored
    // before keep working). `label` is the name shown and accepted by
    // `--project`, unambiguous among all projects ("backend (clientA)"),
    // kept by `store::projects` whenever a project is added or renamed.
    r#"
CREATE TABLE projects (
    key        TEXT PRIMARY KEY,            -- what sessions.project and summaries.project hold
    name       TEXT NOT NULL,               -- the root's folder name, or the configured / given name
    root       TEXT UNIQUE,                 -- absolute path of the repository root; NULL: not known yet
    label      TEXT NOT NULL,               -- name, or name (parent folder), or the root: unique
    created_at INTEGER NOT NULL
);
CREATE INDEX projects_name ON projects(name);
INSERT INTO projects (key, name, root, label, created_at)
    SELECT project, project, NULL, project, min(created_at) FROM sessions
    WHERE project IS NOT NULL GROUP BY project;
INSERT INTO projects (key, name, root, label, created_at)
    SELECT project, project, NULL, project, min(created_at) FROM summaries
    WHERE project IS NOT NULL AND project NOT IN (SELECT key FROM projects) GROUP BY project;
"#,
    // 10: merged projects. `ragger projects merge FROM INTO` moves FROM's
    // sessions and segments to INTO and keeps FROM's row with the key of
    // INTO here, so a later turn from FROM's folder or name is stored in
    // INTO and `--project FROM` reads INTO. A merged row holds no memory
    // and always names a project that is not merged itself.
    r#"
ALTER TABLE projects ADD COLUMN merged_into TEXT;
CREATE INDEX projects_merged ON projects(merged_into) WHERE merged_into IS NOT NULL;
"#,
    // 11: the turn still open where the last read of a transcript stopped
    // (JSON: the parser's draft of it and a hash of what was stored of it),
    // so the next read goes on from `byte_offset` with that draft instead of
    // reading the whole turn again. NULL: nothing open, or a format whose
    // reads start over at the open turn (byte_offset is then its start).
    r#"
ALTER TABLE import_files ADD COLUMN open_turn TEXT;
"#,
];

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;
    use rusqlite::Connection;

    fn count(c: &Connection, table: &str, q: &str) -> i64 {
        c.query_row(&format!("SELECT count(*) FROM {table} WHERE {table} MATCH ?1"), [q], |r| r.get(0)).unwrap()
    }

    /// Migration 6 re-indexes what a database already holds with the
    /// stemming tokenizer, and the triggers keep working on the new tables.
    #[test]
    fn the_stemming_migration_reindexes_stored_rows_and_keeps_the_triggers() {
        let c = Connection::open_in_memory().unwrap();
        for sql in &MIGRATIONS[..5] {
            c.execute_batch(sql).unwrap();
        }
        c.execute_batch(
            "INSERT INTO sessions (id, external_id, first_at, last_at, created_at) VALUES (1, 's', 0, 0, 0);
             INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)
                 VALUES (1, 1, 0, 0, 'we went hiking', 'lovely', 1), (2, 1, 0, 0, 'planting tomatoes', 'ok', 1);
             UPDATE turns SET l2 = 'The user went hiking.', l2_state = 'done' WHERE id = 1;
             INSERT INTO summaries (id, level, session_id, status, content, tokens, first_turn_id, last_turn_id,
                                    model, prompt_version, created_at, updated_at, key_terms)
                 VALUES (5, 3, 1, 'running', 'Walks in the hills.', 4, 1, 1, 'm', 1, 0, 0, 'hikes');",
        )
        .unwrap();
        assert_eq!(count(&c, "turns_fts", "hikes"), 0, "unicode61 does not stem");
        c.execute_batch(MIGRATIONS[5]).unwrap();
        assert_eq!(count(&c, "turns_fts", "hikes"), 1);
        assert_eq!(count(&c, "l2_fts", "hikes"), 1);
        assert_eq!(count(&c, "summaries_fts", "hiking"), 1, "key terms are indexed too");
        assert_eq!(count(&c, "turns_fts", "tomato"), 1);
        // Triggers: an L2 written after the migration, an edit, a delete.
        c.execute_batch(
            "UPDATE turns SET l2 = 'The user planted tomatoes.', l2_state = 'done' WHERE id = 2;
             UPDATE turns SET user_text = 'we went camping' WHERE id = 1;
             DELETE FROM summaries WHERE id = 5;",
        )
        .unwrap();
        assert_eq!(count(&c, "l2_fts", "plant"), 1);
        assert_eq!(count(&c, "turns_fts", "hikes"), 0);
        assert_eq!(count(&c, "turns_fts", "camps"), 1);
        assert_eq!(count(&c, "summaries_fts", "hiking"), 0);
        for t in ["turns_fts", "l2_fts", "summaries_fts"] {
            c.execute(&format!("INSERT INTO {t}({t}) VALUES ('integrity-check')"), []).unwrap();
        }
    }

    /// Migration 9 gives every project a stored row keyed by its old name
    /// (an L4 whose sessions are gone too), root unknown, label the name.
    #[test]
    fn the_projects_migration_keeps_every_old_project_by_its_name() {
        let c = Connection::open_in_memory().unwrap();
        for sql in &MIGRATIONS[..8] {
            c.execute_batch(sql).unwrap();
        }
        c.execute_batch(
            "INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at)
                 VALUES (1, 's1', 'shop', 5, 5, 5), (2, 's2', 'shop', 3, 3, 3), (3, 's3', NULL, 1, 1, 1);
             INSERT INTO summaries (id, level, project, status, content, tokens, model, prompt_version, created_at, updated_at)
                 VALUES (1, 4, 'gone', 'complete', 'x', 1, 'm', 1, 2, 2), (2, 4, 'shop', 'running', 'y', 1, 'm', 1, 2, 2);",
        )
        .unwrap();
        c.execute_batch(MIGRATIONS[8]).unwrap();
        let rows: Vec<(String, String, Option<String>, String, i64)> = c
            .prepare("SELECT key, name, root, label, created_at FROM projects ORDER BY key")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                ("gone".into(), "gone".into(), None, "gone".into(), 2),
                ("shop".into(), "shop".into(), None, "shop".into(), 3)
            ]
        );
    }
}
