//! The database file: creation, permissions, migrations, refusal of a
//! newer schema, and damaged files.

use std::os::unix::fs::PermissionsExt;

use crate::support::Env;

#[test]
fn database_and_folder_are_private() {
    let env = Env::new();
    env.capture("s", "a", "b", &[]).ok();
    let db = env.db();
    assert_eq!(std::fs::metadata(&db).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(db.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
}

#[test]
fn an_empty_file_is_migrated() {
    let env = Env::new();
    let db = env.path("empty.db");
    std::fs::write(&db, b"").unwrap();
    env.run(&["--db", db.to_str().unwrap(), "capture", "--session", "s", "--user", "a", "--assistant", "b"]).ok();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert!(v >= 1);
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn a_newer_schema_is_refused_with_a_hint_and_left_alone() {
    let env = Env::new();
    env.capture("s", "a", "b", &[]).ok();
    env.sql().execute_batch("PRAGMA user_version = 999").unwrap();
    let r = env.capture("s", "c", "d", &[]).code(78);
    assert!(r.stderr.contains("newer than this ragger understands"), "{}", r.stderr);
    let n: i64 = env.sql().query_row("SELECT count(*) FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
}

#[test]
fn a_file_that_is_not_a_database_is_a_clear_error() {
    let env = Env::new();
    let db = env.path("garbage.db");
    let junk: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    std::fs::write(&db, &junk).unwrap();
    let r = env.run(&["--db", db.to_str().unwrap(), "status"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("ragger: "), "{}", r.stderr);
    assert!(r.stderr.contains("not a SQLite database"), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"));
    assert_eq!(std::fs::read(&db).unwrap(), junk, "the file must not be touched");
}

#[test]
fn a_read_only_database_is_a_clear_error_and_keeps_its_data() {
    let env = Env::new();
    env.capture("s", "a", "b", &[]).ok();
    // Root ignores file modes, so make the folder unwritable via a
    // read-only bind is not possible here; use SQLite's own read-only
    // check instead: a database file whose WAL cannot be created.
    let db = env.db();
    let dir = db.parent().unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o400)).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    let r = env.capture("s", "c", "d", &[]);
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).unwrap();
    if r.code != 0 {
        assert!(r.stderr.starts_with("ragger: "), "{}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    let n: i64 = env.sql().query_row("SELECT count(*) FROM turns", [], |r| r.get(0)).unwrap();
    assert!(n >= 1, "stored turns must survive");
}
