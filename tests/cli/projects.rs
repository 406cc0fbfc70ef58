//! Project identity (issue 34 item 1): a project is its repository root
//! (the folder holding `.git`, else the working folder), named by that
//! folder; a sub-folder belongs to its repository; `--project` and the MCP
//! tools take a name or a folder and refuse an unknown one; a database
//! from before keeps its projects.
//!
//! Payload shapes, as the agents document them:
//! - Codex `notify`: one JSON argument `{"type": "agent-turn-complete",
//!   "thread-id", "turn-id", "cwd", "input-messages", "last-assistant-message"}`
//!   (codex-rs/core/src/user_notification.rs, docs/config.md "notify").
//! - Claude Code `SessionStart` hook input on stdin: `{"session_id",
//!   "transcript_path", "cwd", "hook_event_name": "SessionStart", "source"}`
//!   (https://docs.claude.com/en/docs/claude-code/hooks, "SessionStart Input").

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::support::Env;

/// A repository at `rel` (a `.git` folder), with `src/` inside.
fn repo(env: &Env, rel: &str) -> PathBuf {
    let root = env.path(rel);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    root
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// One finished Codex turn, as Codex's `notify` runs ragger.
fn codex_turn(env: &Env, thread: &str, cwd: &Path, user: &str, assistant: &str) {
    let payload = json!({
        "type": "agent-turn-complete",
        "thread-id": thread,
        "turn-id": format!("{thread}-1"),
        "cwd": cwd,
        "input-messages": [user],
        "last-assistant-message": assistant,
    });
    env.run(&["hook", "codex", &payload.to_string()]).ok();
}

/// What Claude Code's `SessionStart` hook hands the agent for `cwd` ("" for nothing).
fn session_start(env: &Env, cwd: &Path) -> String {
    let input = json!({
        "session_id": "new-session",
        "transcript_path": env.path("none.jsonl"),
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": "startup",
    });
    let r = env.run_stdin(&["hook", "claude-code"], input.to_string().as_bytes()).ok();
    if r.stdout.trim().is_empty() {
        return String::new();
    }
    r.json()["hookSpecificOutput"]["additionalContext"].as_str().unwrap().to_string()
}

/// The sessions a `context --json` block holds (pending turns and segments).
fn sessions_in(block: &Value) -> Vec<String> {
    let mut out: Vec<String> = ["pending", "segments", "related"]
        .iter()
        .flat_map(|k| block[*k].as_array().cloned().unwrap_or_default())
        .map(|e| e["session"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn two_repositories_with_the_same_folder_name_never_share_memory() {
    let env = Env::new();
    let a = repo(&env, "work/clientA/backend");
    let b = repo(&env, "work/clientB/backend");
    codex_turn(&env, "a1", &a.join("src"), "How is clientA's backend deployed?", "With the blue-green script.");
    codex_turn(&env, "b1", &b, "Where are clientB's API keys kept?", "In the vault under clientB/prod.");

    let projects = env.run(&["projects", "--json"]).ok().json();
    let mut listed: Vec<(String, String, String)> = projects
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["project"].as_str().unwrap().into(),
                p["name"].as_str().unwrap().into(),
                p["root"].as_str().unwrap().into(),
            )
        })
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            ("backend (clientA)".to_string(), "backend".to_string(), s(&a).to_string()),
            ("backend (clientB)".to_string(), "backend".to_string(), s(&b).to_string()),
        ],
        "{projects:#}"
    );
    let text = env.run(&["projects"]).ok().stdout;
    assert!(text.contains(&format!("backend (clientA)  {}", s(&a))), "{text}");

    // Each repository's memory, by folder, by listed name, and at session start.
    let of = |args: &[&str]| sessions_in(&env.run(&[&["context", "--json"], args].concat()).ok().json());
    assert_eq!(of(&["--cwd", s(&a.join("src/deep"))]), ["a1"]);
    assert_eq!(of(&["--project", s(&b)]), ["b1"]);
    assert_eq!(of(&["--project", "backend (clientA)"]), ["a1"]);
    let given = session_start(&env, &b.join("src"));
    assert!(given.contains("(project backend (clientB), from ragger)"), "{given}");
    assert!(given.contains("vault") && !given.contains("blue-green"), "{given}");
    let given = session_start(&env, &a);
    assert!(given.contains("blue-green") && !given.contains("vault"), "{given}");

    // Filters take the same names.
    let rows = env.run(&["sessions", "--project", "backend (clientB)", "--json"]).ok().json();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows:#}");
    assert_eq!(rows[0]["session"], "b1");
    assert_eq!(rows[0]["project"], "backend (clientB)");

    // The bare name is both: refused, naming both.
    let r = env.run(&["context", "--project", "backend"]).code(2);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("\"backend\" is ambiguous") && r.stderr.contains(s(&b)), "{}", r.stderr);
    env.assert_check();
}

#[test]
fn a_session_started_in_a_sub_folder_gets_its_repositorys_memory() {
    let env = Env::new();
    let shop = repo(&env, "projects/webshop");
    codex_turn(&env, "w1", &shop, "Which payment provider does the webshop use?", "Stripe, through its checkout API.");
    std::fs::create_dir_all(shop.join("tests/unit")).unwrap();
    let given = session_start(&env, &shop.join("tests/unit"));
    assert!(given.contains("(project webshop, from ragger)") && given.contains("Stripe"), "{given}");
    // A turn from the sub-folder goes to the same project.
    codex_turn(&env, "w2", &shop.join("tests"), "Run the checkout tests", "All 12 pass.");
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!(p.as_array().unwrap().len(), 1, "{p:#}");
    assert_eq!(p[0]["sessions"], 2);
    // Another repository with no memory yet gets none (not its parent's).
    let other = repo(&env, "projects/webshop/vendor/lib");
    assert_eq!(session_start(&env, &other), "");
}

/// A minimal MCP client over stdio (as `mcp.rs`).
struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(env: &Env) -> Mcp {
        let mut c = env.command(&["mcp"]);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = c.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut m = Mcp { child, stdin, stdout, next: 1 };
        m.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        writeln!(m.stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
        m
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "ragger mcp closed stdout");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v["result"].clone();
            }
        }
    }

    /// A tool's text and whether it is an error.
    fn tool(&mut self, name: &str, args: Value) -> (String, bool) {
        let r = self.call("tools/call", json!({"name": name, "arguments": args}));
        (r["content"][0]["text"].as_str().unwrap_or_default().to_string(), r["isError"] == json!(true))
    }
}

#[test]
fn mcp_and_cli_take_a_path_or_a_name_and_refuse_an_unknown_project() {
    let env = Env::new();
    let shop = repo(&env, "projects/webshop");
    codex_turn(&env, "w1", &shop.join("src"), "Which payment provider does the webshop use?", "Stripe checkout.");
    let mut m = Mcp::start(&env);
    for project in [s(&shop).to_string(), s(&shop.join("src/cart")).to_string(), "webshop".into(), "Webshop".into()] {
        let (text, err) = m.tool("context", json!({"project": project}));
        assert!(!err && text.contains("Stripe"), "{project}: {text}");
        let (text, err) = m.tool("recent", json!({"project": project}));
        assert!(!err, "{project}: {text}");
    }
    let (text, err) = m.tool("search", json!({"query": "payment provider", "project": "Webshop"}));
    assert!(!err && text.contains("w1"), "{text}");
    for unknown in ["frontend", "/nowhere/frontend"] {
        for tool in ["context", "recent", "search"] {
            let (text, err) = m.tool(tool, json!({"query": "x", "project": unknown}));
            assert!(err, "{tool} {unknown}: {text}");
            assert!(
                text.contains(&format!("unknown project {unknown:?}")) && text.contains("ragger projects"),
                "{text}"
            );
        }
    }
    drop(m.stdin);
    assert!(m.child.wait().unwrap().success());

    // The CLI reads them alike.
    let here = env.command(&["context", "--project", "./src", "--json"]).current_dir(&shop).output().unwrap();
    assert!(here.status.success(), "{}", String::from_utf8_lossy(&here.stderr));
    assert!(String::from_utf8_lossy(&here.stdout).contains("w1"));
    for args in [
        &["context", "--project", "frontend"][..],
        &["search", "payment", "--project", "frontend"],
        &["sessions", "--project", "frontend"],
        &["export", "--project", "frontend"],
        &["forget", "--project", "frontend"],
    ] {
        let r = env.run(args).code(2);
        assert_eq!(
            r.stderr.trim(),
            "ragger: unknown project \"frontend\": no project has that name; `ragger projects` lists them",
            "{args:?}"
        );
    }
    let r = env.run(&["context", "--cwd", s(&env.path("elsewhere"))]).code(2);
    assert!(r.stderr.contains("no project for folder") && r.stderr.contains("ragger projects"), "{}", r.stderr);
}

#[test]
fn capture_and_export_take_a_folder_and_round_trip_it() {
    let env = Env::new();
    let app = repo(&env, "src/app");
    env.capture("c1", "Where is the config read?", "In src/config.rs.", &["--project", s(&app.join("src"))]).ok();
    env.capture("c2", "And the logging?", "In src/log.rs.", &["--project", "app"]).ok();
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!(p.as_array().unwrap().len(), 1, "a name finds the one project of that name: {p:#}");
    assert_eq!(p[0]["root"], s(&app));
    // JSON Lines name the project by its folder, so a copy keeps it apart.
    let out = env.run(&["export", "--format", "jsonl"]).ok().stdout;
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["project"], s(&app));
    let copy = Env::new();
    copy.run_stdin(&["capture", "--stdin"], out.as_bytes()).ok();
    let q = copy.run(&["projects", "--json"]).ok().json();
    assert_eq!(
        (q[0]["project"].as_str(), q[0]["root"].as_str(), q[0]["sessions"].as_i64()),
        (Some("app"), Some(s(&app)), Some(2))
    );
}

#[test]
fn configured_names_merge_folders_into_one_project() {
    let env = Env::new();
    let web = repo(&env, "src/shop-web");
    let api = repo(&env, "src/shop-api");
    let env =
        env.with_config(&format!("[import]\nprojects = {{ {:?} = \"shop\", {:?} = \"shop\" }}", s(&web), s(&api)));
    codex_turn(&env, "w", &web.join("src"), "Style the cart button", "Done, in cart.css.");
    codex_turn(&env, "a", &api, "Add a cart endpoint", "POST /cart added.");
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!(p.as_array().unwrap().len(), 1, "{p:#}");
    assert_eq!((p[0]["project"].as_str(), p[0]["sessions"].as_i64()), (Some("shop"), Some(2)));
    let block = env.run(&["context", "--cwd", s(&api.join("src")), "--json"]).ok().json();
    assert_eq!(sessions_in(&block), ["a", "w"]);
}

/// The schema before project identity (migrations 1–7, as shipped), with a
/// closed session of project `webshop`: its turn, its segment (L3) and the
/// project summary (L4) it was folded into.
fn old_database(env: &Env) {
    std::fs::create_dir_all(env.db().parent().unwrap()).unwrap();
    let c = rusqlite::Connection::open(env.db()).unwrap();
    for sql in &ragger::store::schema::MIGRATIONS[..7] {
        c.execute_batch(sql).unwrap();
    }
    c.execute_batch(
        "PRAGMA user_version = 7;
         INSERT INTO sessions (id, external_id, project, first_at, last_at, closed_at, created_at, next_fold_seq)
             VALUES (1, 'old', 'webshop', 1767225600000, 1767225660000, 1767225700000, 1767225600000, 2);
         INSERT INTO summaries (id, level, project, status, content, tokens, first_l3_id, last_l3_id, model,
                                prompt_version, created_at, updated_at)
             VALUES (1, 4, 'webshop', 'running', 'The webshop runs on PostgreSQL 16.', 9, 2, 2, 'm', 1,
                     1767225700000, 1767225700000);
         INSERT INTO summaries (id, level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                                first_seq, last_seq, model, prompt_version, created_at, updated_at, completed_at,
                                l4_id, l4_state)
             VALUES (2, 3, 1, 'webshop', 'complete', 'The user chose PostgreSQL 16.', 7, 1, 1, 1, 1, 'm', 1,
                     1767225700000, 1767225700000, 1767225700000, 1, 'done');
         INSERT INTO turns (id, session_id, idem_key, at, captured_at, user_text, assistant_text, tokens,
                            l2, l2_state, l3_id, fold_seq)
             VALUES (1, 1, 'k1', 1767225600000, 1767225600000, 'Which database?', 'PostgreSQL 16.', 8,
                     'The webshop uses PostgreSQL 16.', 'done', 2, 1);",
    )
    .unwrap();
    drop(c);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(env.db(), std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn an_old_database_keeps_its_projects_until_a_folder_of_that_name_takes_them_over() {
    let env = Env::new();
    old_database(&env);
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!((p[0]["project"].as_str(), p[0]["root"].as_str()), (Some("webshop"), None), "{p:#}");
    // Migrated through 8 (turn kinds: the old turn is a conversation
    // turn), 9 (projects), 10 (merged projects) and 11 (transcripts' open turns).
    assert_eq!(env.sql().query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap(), 11);
    assert_eq!(
        env.sql().query_row("SELECT kind FROM turns WHERE id = 1", [], |r| r.get::<_, String>(0)).unwrap(),
        "turn"
    );
    let block = env.run(&["context", "--project", "webshop", "--json"]).ok().json();
    assert_eq!(block["project_summary"]["content"], "The webshop runs on PostgreSQL 16.");

    // The first repository of that name takes the project over: the old
    // memory is handed to its sessions, and its root is known from now on.
    let shop = repo(&env, "projects/webshop");
    codex_turn(&env, "new", &shop, "Add a coupon field", "Added to the checkout form.");
    let given = session_start(&env, &shop.join("src"));
    assert!(given.contains("PostgreSQL 16"), "{given}");
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!((p[0]["root"].as_str(), p[0]["sessions"].as_i64()), (Some(s(&shop)), Some(2)), "{p:#}");
    // Another repository of that name is another project.
    let fork = repo(&env, "forks/webshop");
    codex_turn(&env, "fork", &fork, "Rename the shop", "Renamed.");
    let given = session_start(&env, &fork);
    assert!(given.contains("Rename the shop") && !given.contains("PostgreSQL"), "{given}");
    let mut labels: Vec<String> = env
        .run(&["projects", "--json"])
        .ok()
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["project"].as_str().unwrap().to_string())
        .collect();
    labels.sort();
    assert_eq!(labels, ["webshop (forks)", "webshop (projects)"]);
    env.assert_check();
}

/// Two repositories, `old-shop` and `webshop`, each with a closed session
/// summarised through its project summary (L4); `old-shop`'s turns name
/// `zebracorn`.
fn two_summarized_repositories() -> (crate::support::FakeServer, Env, PathBuf, PathBuf) {
    let server = crate::support::FakeServer::start(crate::support::topic_reply);
    let env = Env::new().with_server(&server);
    let old = repo(&env, "work/old-shop");
    let shop = repo(&env, "work/webshop");
    let at = crate::support::minutes_ago(60);
    for (session, root, topic) in [("o1", &old, "zebracorn"), ("w1", &shop, "checkout")] {
        for i in 0..3 {
            let user = format!("Question {i} about [topic:{topic}] in {session}");
            env.capture(session, &user, &format!("Answer {i}."), &["--project", s(root), "--at", &at]).ok();
        }
    }
    env.run(&["housekeeping"]).ok();
    let l4: i64 =
        env.sql().query_row("SELECT count(DISTINCT project) FROM summaries WHERE level = 4", [], |r| r.get(0)).unwrap();
    assert_eq!(l4, 2, "the setup must have built both project summaries");
    env.assert_check();
    (server, env, old, shop)
}

/// Everything a merge could change, as text.
fn memory_rows(env: &Env) -> String {
    env.sql()
        .query_row(
            "SELECT (SELECT group_concat(key || ':' || coalesce(merged_into, '-') || ':' || label, ' ') FROM projects)
                 || ' | ' || (SELECT group_concat(external_id || ':' || project, ' ') FROM sessions)
                 || ' | ' || (SELECT group_concat(id || ':' || level || ':' || project || ':' || l4_state, ' ') FROM summaries)
                 || ' | ' || (SELECT count(*) FROM embeddings)",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn merging_a_project_moves_its_memory_and_its_folder_follows() {
    let (_server, env, old, shop) = two_summarized_repositories();
    let before = memory_rows(&env);

    // A dry run says what would move and writes nothing.
    let dry = env.run(&["projects", "merge", "old-shop", s(&shop), "--dry-run"]).ok();
    assert_eq!(
        dry.stdout.trim(),
        "would merge old-shop into webshop: 1 session(s), 3 turn(s), 1 segment(s); 2 project summaries removed, \
         2 segment(s) to fold into webshop's again",
    );
    assert_eq!(memory_rows(&env), before, "--dry-run must change nothing");
    let dry = env.run(&["projects", "merge", "old-shop", "webshop", "--dry-run", "--json"]).ok().json();
    assert_eq!((dry["dry_run"].as_bool(), dry["sessions"].as_u64()), (Some(true), Some(1)), "{dry}");

    let r = env.run(&["projects", "merge", "old-shop", "webshop", "--json"]).ok().json();
    assert_eq!(
        r,
        json!({"from": "old-shop", "into": "webshop", "dry_run": false, "already_merged": false, "sessions": 1,
               "turns": 3, "segments": 1, "summaries_removed": 2, "segments_to_refold": 2})
    );
    env.assert_check();

    // One project now, holding both sessions; the merged one is named on its row.
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!(p.as_array().unwrap().len(), 1, "{p:#}");
    assert_eq!((p[0]["project"].as_str(), p[0]["sessions"].as_i64()), (Some("webshop"), Some(2)), "{p:#}");
    assert_eq!(p[0]["merged"], json!(["old-shop"]));
    assert!(env.run(&["projects"]).ok().stdout.contains("merged into it: old-shop"));

    // Search and context for INTO find FROM's turns; FROM's name reads INTO.
    let hits = env.run(&["search", "--json", "zebracorn", "--project", "webshop"]).ok().json();
    assert!(hits.as_array().unwrap().iter().any(|h| h["session"] == "o1"), "{hits:#}");
    let block = env.run(&["context", "--project", "webshop", "--json"]).ok().json();
    assert_eq!(sessions_in(&block), ["o1", "w1"], "{block:#}");
    let block = env.run(&["context", "--project", "old-shop", "--json"]).ok().json();
    assert_eq!(sessions_in(&block), ["o1", "w1"], "{block:#}");

    // The next pass folds INTO's project summary again, from both segments.
    env.run(&["housekeeping"]).ok();
    let st = env.status();
    assert_eq!(st["pending_l4"], 0, "{st:#}");
    let covered: Vec<String> = env
        .sql()
        .prepare(
            "SELECT s.external_id FROM summaries m JOIN summaries p ON p.id = m.l4_id JOIN sessions s ON s.id = m.session_id
             WHERE p.project = ?1 ORDER BY 1",
        )
        .unwrap()
        .query_map([s(&shop)], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(covered, ["o1", "w1"]);
    env.assert_check();

    // A turn captured later in FROM's folder lands in INTO.
    codex_turn(&env, "o2", &old.join("src"), "Is the old shop still deployed?", "No, it redirects to webshop.");
    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!((p.as_array().unwrap().len(), p[0]["sessions"].as_i64()), (1, Some(3)), "{p:#}");
    let given = session_start(&env, &old);
    assert!(given.contains("(project webshop, from ragger)"), "{given}");

    // Merging again: nothing left, nothing changed.
    let before = memory_rows(&env);
    let again = env.run(&["projects", "merge", "old-shop", "webshop"]).ok();
    assert_eq!(again.stdout.trim(), "nothing left to merge: old-shop is merged into webshop");
    let again = env.run(&["projects", "merge", s(&old), s(&shop), "--json"]).ok().json();
    assert_eq!((again["already_merged"].as_bool(), again["sessions"].as_u64()), (Some(true), Some(0)));
    assert_eq!(memory_rows(&env), before);
    env.assert_check();
}

#[test]
fn merging_an_unknown_project_or_one_into_itself_is_a_usage_error() {
    let env = Env::new();
    let shop = repo(&env, "work/webshop");
    codex_turn(&env, "w1", &shop, "Which payment provider?", "Stripe.");
    for (args, message) in [
        (
            ["projects", "merge", "nowhere", "webshop"],
            "ragger: unknown project \"nowhere\": no project has that name; `ragger projects` lists them",
        ),
        (
            ["projects", "merge", "webshop", "/elsewhere/shop"],
            "ragger: unknown project \"/elsewhere/shop\": no project has that folder; `ragger projects` lists them",
        ),
        (["projects", "merge", "webshop", "webshop"], "ragger: project \"webshop\" cannot be merged into itself"),
    ] {
        let r = env.run(&args).code(2);
        assert_eq!(r.stderr.trim(), message, "{args:?}");
        assert!(r.stdout.is_empty());
    }
    env.run(&["projects", "merge", "webshop"]).code(2);
    env.assert_check();
}

#[test]
fn a_symlinked_or_dotted_path_is_the_same_project_as_its_folder() {
    let env = Env::new();
    let shop = repo(&env, "work/webshop");
    std::fs::create_dir_all(env.path("work/other")).unwrap();
    let link = env.path("link-to-shop");
    std::os::unix::fs::symlink(&shop, &link).unwrap();
    let canonical = std::fs::canonicalize(&shop).unwrap();

    env.capture("c1", "Where is the cart?", "In src/cart.rs.", &["--project", s(&link.join("src"))]).ok();
    let dotted = format!("{}/work/other/../webshop", s(&env.path("")).trim_end_matches('/'));
    env.capture("c2", "And the tests?", "In tests/.", &["--project", &dotted]).ok();
    codex_turn(&env, "c3", &link, "Which payment provider?", "Stripe.");
    // A folder behind a link and `..` inside the link's folder.
    codex_turn(&env, "c4", &link.join("src/../src"), "Run the tests", "All pass.");

    let p = env.run(&["projects", "--json"]).ok().json();
    assert_eq!(p.as_array().unwrap().len(), 1, "{p:#}");
    assert_eq!((p[0]["root"].as_str(), p[0]["sessions"].as_i64()), (Some(s(&canonical)), Some(4)), "{p:#}");
    // `--project` reads a link alike.
    let rows = env.run(&["sessions", "--project", s(&link), "--json"]).ok().json();
    assert_eq!(rows.as_array().unwrap().len(), 4, "{rows:#}");
    let block =
        env.run(&["context", "--project", &format!("{}/../link-to-shop", s(&env.path("work"))), "--json"]).ok().json();
    assert!(!sessions_in(&block).is_empty(), "{block:#}");
    env.assert_check();
}
