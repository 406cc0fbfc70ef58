//! Database faults: a corrupt file (random bytes, a valid database with a
//! page overwritten, a garbage WAL), a read-only filesystem, a full disk
//! (a small tmpfs; the test says loudly that it was skipped when mount is
//! not permitted) and a schema newer than the binary. Every command gives
//! a clear one-line error and a documented exit code, never a panic, and
//! what was stored stays readable and unchanged. (store.rs has the basic
//! cases for single commands.)

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{Env, FakeServer, Run};

/// Every command that opens the database, as a user would run it.
const COMMANDS: &[&[&str]] = &[
    &["capture", "--session", "s", "--user", "new", "--assistant", "turn"],
    &["summarize", "--once"],
    &["housekeeping"],
    &["status"],
    &["sessions"],
    &["show", "s0"],
    &["search", "anything"],
    &["check"],
];

/// A failure is one line naming the problem; never a panic.
#[track_caller]
fn assert_clean(r: &Run, what: &str) {
    assert!(!r.stderr.contains("panicked") && r.code != 101, "{what}: panic:\n{}", r.stderr);
    assert!(r.code >= 0, "{what}: killed by a signal:\n{}", r.stderr);
    if r.code != 0 {
        assert_eq!(r.stderr.lines().count(), 1, "{what}: exit {} but not one line:\n{}", r.code, r.stderr);
        assert!(r.stderr.starts_with("ragger: "), "{what}: {}", r.stderr);
    }
}

fn run_db(env: &Env, db: &Path, args: &[&str]) -> Run {
    let mut all = vec!["--db", db.to_str().unwrap()];
    all.extend_from_slice(args);
    env.run(&all)
}

/// `n` turns with texts long enough to fill many pages, then a
/// checkpoint so that everything is in the main file.
fn fill(env: &Env, db: &Path, n: usize) {
    let mut input = String::new();
    for i in 0..n {
        input.push_str(&format!(
            "{{\"session\":\"s{}\",\"id\":\"k{i}\",\"user\":\"TURN-TEXT-{i} {}\",\"assistant\":\"answer {i}\"}}\n",
            i % 3,
            "lorem ipsum ".repeat(40)
        ));
    }
    let mut args = vec!["--db", db.to_str().unwrap()];
    args.extend_from_slice(&["capture", "--stdin"]);
    env.run_stdin(&args, input.as_bytes()).ok();
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
}

/// Each turn that can be read: id -> (user, assistant). Rows on a damaged
/// page are left out.
fn readable_turns(db: &Path) -> Vec<(i64, String, String)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut out = Vec::new();
    for id in 1..=2000i64 {
        let row = conn.query_row("SELECT user_text, assistant_text FROM turns WHERE id = ?1", [id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        });
        if let Ok((u, a)) = row {
            out.push((id, u, a));
        }
    }
    out
}

/// Pseudo-random bytes (fixed, so a failure repeats).
fn junk(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32).map(|i| (i.wrapping_add(seed).wrapping_mul(2654435761) >> 13) as u8).collect()
}

fn page_size(db: &Path) -> usize {
    let head = std::fs::read(db).unwrap();
    match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65536,
        n => n as usize,
    }
}

/// Page numbers (1-based) of table leaf pages that hold turn texts.
fn turn_leaf_pages(db: &Path) -> Vec<usize> {
    let bytes = std::fs::read(db).unwrap();
    let ps = page_size(db);
    (1..bytes.len() / ps)
        .filter(|&p| {
            let page = &bytes[p * ps..(p + 1) * ps];
            page[0] == 0x0D && page.windows(10).any(|w| w == b"TURN-TEXT-")
        })
        .map(|p| p + 1)
        .collect()
}

fn overwrite_page(db: &Path, page: usize, seed: u32) {
    let mut bytes = std::fs::read(db).unwrap();
    let ps = page_size(db);
    let start = (page - 1) * ps;
    let offset = if page == 1 { 100 } else { 0 }; // keep the file header
    bytes[start + offset..start + ps].copy_from_slice(&junk(ps - offset, seed));
    std::fs::write(db, bytes).unwrap();
}

#[test]
fn a_database_with_an_overwritten_page_fails_cleanly_and_keeps_every_readable_turn() {
    let server = FakeServer::fixed("The user asked something.");
    let env = Env::new().with_server(&server);
    let db = env.path("corrupt.db");
    fill(&env, &db, 300);
    let leaves = turn_leaf_pages(&db);
    assert!(leaves.len() > 10, "expected the turns to span many pages, got {leaves:?}");
    overwrite_page(&db, leaves[leaves.len() / 2], 7);
    let before = readable_turns(&db);
    assert!(before.len() >= 250 && before.len() < 300, "{} turns readable", before.len());
    for args in COMMANDS {
        let r = run_db(&env, &db, args);
        assert_clean(&r, &args.join(" "));
    }
    // check must say the database is damaged.
    let r = run_db(&env, &db, &["check"]).code(1);
    assert!(r.stderr.contains("malformed") || r.stdout.contains("quick_check"), "{}{}", r.stdout, r.stderr);
    // Nothing that could be read before was lost or changed.
    let after = readable_turns(&db);
    for t in &before {
        assert!(after.contains(t), "turn {} was damaged by a command", t.0);
    }
}

#[test]
fn a_database_whose_schema_page_is_overwritten_is_refused_by_every_command_and_left_alone() {
    let env = Env::new();
    let db = env.path("schema.db");
    fill(&env, &db, 20);
    overwrite_page(&db, 1, 3);
    let bytes = std::fs::read(&db).unwrap();
    for args in COMMANDS {
        let r = run_db(&env, &db, args);
        assert_clean(&r, &args.join(" "));
        assert_eq!(r.code, 1, "{}: {}", args.join(" "), r.stderr);
        assert!(r.stderr.contains("malformed") || r.stderr.contains("corrupt"), "{}", r.stderr);
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the damaged file must not be touched");
}

#[test]
fn a_file_of_random_bytes_is_refused_by_every_command_and_left_alone() {
    let env = Env::new();
    let db = env.path("random.db");
    let bytes = junk(64 << 10, 11);
    std::fs::write(&db, &bytes).unwrap();
    for args in COMMANDS {
        let r = run_db(&env, &db, args).code(1);
        assert_clean(&r, &args.join(" "));
        assert!(r.stderr.contains("not a SQLite database"), "{}", r.stderr);
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
}

#[test]
fn a_garbage_wal_file_is_ignored_and_loses_nothing() {
    let env = Env::new();
    let db = env.path("wal.db");
    fill(&env, &db, 30);
    let before = readable_turns(&db);
    std::fs::write(env.path("wal.db-wal"), junk(100_000, 5)).unwrap();
    let r = run_db(&env, &db, &["status", "--json"]).ok();
    assert_eq!(r.json()["turns"], 30);
    run_db(&env, &db, &["capture", "--session", "s", "--user", "after", "--assistant", "wal"]).ok();
    run_db(&env, &db, &["check"]).ok();
    let after = readable_turns(&db);
    assert_eq!(after.len(), 31);
    assert!(before.iter().all(|t| after.contains(t)));
}

#[test]
fn a_schema_newer_than_the_binary_is_refused_by_every_command_and_left_alone() {
    let server = FakeServer::fixed("The user asked something.");
    let env = Env::new().with_server(&server);
    let db = env.path("newer.db");
    fill(&env, &db, 5);
    rusqlite::Connection::open(&db).unwrap().execute_batch("PRAGMA user_version = 999").unwrap();
    let bytes = std::fs::read(&db).unwrap();
    for args in COMMANDS {
        let r = run_db(&env, &db, args).code(78);
        assert_clean(&r, &args.join(" "));
        assert!(r.stderr.contains("schema version 999, newer than this ragger understands"), "{}", r.stderr);
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "a newer database must not be touched");
    assert_eq!(server.count(), 0);
}

#[test]
fn a_database_path_that_is_a_folder_or_under_a_file_is_a_clear_error() {
    let env = Env::new();
    let folder = env.path("a-folder.db");
    std::fs::create_dir_all(&folder).unwrap();
    let file = env.path("plain-file");
    std::fs::write(&file, b"x").unwrap();
    for db in [folder.clone(), file.join("ragger.db")] {
        for args in [&["status"][..], &["capture", "--session", "s", "--user", "u", "--assistant", "a"]] {
            // `status` only reads: a path under a file has no database (66).
            let code = if args[0] == "status" && !db.exists() { 66 } else { 1 };
            let r = run_db(&env, &db, args).code(code);
            assert_clean(&r, &format!("{} {}", db.display(), args.join(" ")));
            assert!(r.stderr.contains(db.to_str().unwrap()), "names the path: {}", r.stderr);
        }
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

// ------------------------------------------------ filesystems (tmpfs, root)

/// A tmpfs mounted for one test, unmounted when dropped.
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Fails the test when mounting is not permitted: it needs root (as CI
    /// and the project's machines run); scripts/test.sh leaves these tests
    /// out, saying so, when it is not run as root.
    #[track_caller]
    fn mount(dir: &Path, size: &str, test: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "{test}: cannot mount a tmpfs at {} (needs root)", dir.display());
        Tmpfs { dir: dir.to_path_buf() }
    }

    /// Remounts with `opts`, trying again for up to 5 s while the kernel
    /// says the mount point is busy: on a loaded machine the files of a
    /// command that has just exited can still be closing when it is
    /// waited for (CI saw "mount point is busy" once in many runs).
    fn remount(&self, opts: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let ok = Command::new("mount").args(["-o", &format!("remount,{opts}")]).arg(&self.dir).status().unwrap();
            if ok.success() {
                return;
            }
            assert!(std::time::Instant::now() < deadline, "remount {opts} failed");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

fn turns_on(db: &Path) -> i64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row("SELECT count(*) FROM turns", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_full_disk_fails_captures_cleanly_keeps_what_was_stored_and_recovers() {
    let server = FakeServer::fixed("The user asked something.");
    let env = Env::new().with_server(&server);
    let fs = Tmpfs::mount(&env.path("small-fs"), "1M", "full disk");
    let db = fs.dir.join("ragger.db");
    let text = "x".repeat(4000);
    let mut stored = 0i64;
    let mut full = None;
    for batch in 0..200 {
        let mut input = String::new();
        for i in 0..10 {
            input.push_str(&format!(
                "{{\"session\":\"s{}\",\"id\":\"b{batch}-{i}\",\"user\":\"{text}\",\"assistant\":\"a\"}}\n",
                batch % 4
            ));
        }
        let r = env.run_stdin(&["--db", db.to_str().unwrap(), "capture", "--stdin", "--json"], input.as_bytes());
        assert_clean(&r, "capture on a filling disk");
        if r.code == 0 {
            stored += r.json()["stored"].as_i64().unwrap();
        } else {
            full = Some(r);
            break;
        }
    }
    let r = full.expect("the 1 MB filesystem never filled up");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("disk is full"), "{}", r.stderr);
    assert!(stored > 0, "nothing fitted at all");
    // The failed batch stored nothing; every earlier one is intact.
    assert_eq!(turns_on(&db), stored);
    // Reading and checking work on a full disk; a pass fails cleanly.
    let r = run_db(&env, &db, &["status", "--json"]);
    assert_clean(&r, "status on a full disk");
    let r = run_db(&env, &db, &["summarize", "--once"]);
    assert_clean(&r, "summarize on a full disk");
    let r = run_db(&env, &db, &["check"]);
    assert_clean(&r, "check on a full disk");
    assert_eq!(turns_on(&db), stored);
    // Room again: everything resumes and the invariants hold.
    fs.remount("size=64M");
    run_db(&env, &db, &["capture", "--session", "s0", "--user", "after", "--assistant", "room"]).ok();
    run_db(&env, &db, &["summarize", "--once"]).ok();
    run_db(&env, &db, &["check"]).ok();
    let done: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM turns WHERE l3_id IS NOT NULL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(done, stored + 1);
}

#[test]
fn a_read_only_filesystem_refuses_writes_clearly_and_keeps_the_data() {
    let server = FakeServer::fixed("The user asked something.");
    let env = Env::new().with_server(&server);
    let fs = Tmpfs::mount(&env.path("ro-fs"), "8M", "read-only filesystem");
    let db = fs.dir.join("ragger.db");
    fill(&env, &db, 20);
    // As ragger leaves it: the WAL index (-shm) is there, so readers work.
    run_db(&env, &db, &["status"]).ok();
    assert!(fs.dir.join("ragger.db-shm").exists());
    let before = readable_turns(&db);
    fs.remount("ro");
    for args in COMMANDS {
        let r = run_db(&env, &db, args);
        assert_clean(&r, &format!("{} on a read-only filesystem", args.join(" ")));
        if matches!(args[0], "capture" | "summarize" | "housekeeping") {
            assert_eq!(r.code, 1, "{}: {}", args.join(" "), r.stderr);
            assert!(r.stderr.contains("readonly") || r.stderr.contains("read-only"), "{}", r.stderr);
        } else {
            assert_eq!(r.code, 0, "{} reads a read-only database: {}", args.join(" "), r.stderr);
        }
    }
    let r = run_db(&env, &db, &["status", "--json"]).ok();
    assert_eq!(r.json()["turns"], 20);
    assert_eq!(server.count(), 0, "no model call for work that cannot be stored");
    // After a clean close by another tool (no -wal, no -shm) SQLite cannot
    // open a WAL database on read-only media at all: every command fails,
    // in one line naming the file.
    fs.remount("rw");
    rusqlite::Connection::open(&db).unwrap().execute_batch("PRAGMA journal_mode=DELETE").unwrap();
    rusqlite::Connection::open(&db).unwrap().execute_batch("PRAGMA journal_mode=WAL").unwrap();
    assert!(!fs.dir.join("ragger.db-shm").exists() && !fs.dir.join("ragger.db-wal").exists());
    fs.remount("ro");
    for args in COMMANDS {
        let r = run_db(&env, &db, args).code(1);
        assert_clean(&r, &format!("{} on a read-only filesystem without -shm", args.join(" ")));
        assert!(r.stderr.contains(db.to_str().unwrap()), "{}", r.stderr);
        // Says why: the folder, and the files SQLite needs to create.
        assert!(r.stderr.contains(&format!("the folder {} cannot be written", fs.dir.display())), "{}", r.stderr);
        assert!(r.stderr.contains("ragger.db-shm"), "{}", r.stderr);
    }
    fs.remount("rw");
    assert_eq!(readable_turns(&db), before);
    run_db(&env, &db, &["check"]).ok();
}
