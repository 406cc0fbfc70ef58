//! A quiet tick: when a housekeeping tick finds nothing to do, it leaves a
//! line in the run lock that says what the database files looked like then
//! and when the first open session goes idle. The next tick that finds the
//! files as they were, before that time, with the same settings and no
//! spooled turns, has nothing to do either, and says so without opening the
//! database (SQLite reads the whole schema at open: most of an idle tick).
//!
//! The files are the database and its WAL: device, inode, size and the
//! time of the last write in nanoseconds (not the change time: opening the
//! store sets the WAL's mode each time). Every commit writes the WAL and
//! every checkpoint the database, so a write since the line moves a time
//! forward. A file written in the last second is not trusted (its
//! timestamp may be coarser than the write: git's "racy" rule), and a tick
//! that found nothing only leaves its line when the files after it closed
//! the database are the files before it opened it: nothing was written
//! between the look and the line, by it or anyone else.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Files written this recently are not described by their times.
const RACY_NS: i128 = 1_000_000_000;

/// What the quiet line is valid for: the binary and the settings a tick
/// reads (`pause_ms` sets when a session goes idle, `vectors` whether rows
/// without vectors are work, `summarize` whether passes run).
pub fn settings(pause_ms: i64, vectors: bool, summarize: bool) -> String {
    format!("v{} pause={pause_ms} vectors={} summarize={}", env!("CARGO_PKG_VERSION"), vectors as u8, summarize as u8)
}

/// The database's files as of now, or `None` when the database is missing
/// or a file was written within the last second.
pub fn files(db: &Path) -> Option<String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos() as i128;
    // SQLite keeps the WAL beside the file a symbolic link points to.
    let db = db.canonicalize().ok()?;
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let mut out = String::new();
    for (name, path, required) in [("db", db.as_path(), true), ("wal", Path::new(&wal), false)] {
        match std::fs::metadata(path) {
            Ok(m) => {
                let mtime = m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128;
                if now - mtime < RACY_NS {
                    return None;
                }
                out += &format!(" {name}={}:{}:{}:{mtime}", m.dev(), m.ino(), m.len());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => out += &format!(" {name}=none"),
            Err(_) => return None,
        }
    }
    Some(out)
}

/// The line a quiet tick leaves: `settings`, when the first open session
/// goes idle (ms since the epoch; none: no session is open) and the files.
pub fn line(settings: &str, due_ms: Option<i64>, files: &str) -> String {
    let due = due_ms.map_or("-".to_string(), |d| d.to_string());
    format!("quiet {settings} due={due}{files}")
}

/// Whether `line` still holds at `now_ms` for these settings and files.
pub fn holds(line: &str, settings: &str, files: &str, now_ms: i64) -> bool {
    let Some(rest) = line.strip_prefix("quiet ").and_then(|r| r.strip_prefix(settings)) else { return false };
    let Some(rest) = rest.strip_prefix(" due=") else { return false };
    let Some((due, seen)) = rest.split_once(' ') else { return false };
    let due_ok = match due {
        "-" => true,
        d => d.parse::<i64>().is_ok_and(|d| now_ms < d),
    };
    due_ok && format!(" {seen}") == files
}

/// Whether the spool folder holds a turn to store (or cannot be read).
pub fn spooled(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_holds_until_a_file_changes_the_settings_change_or_a_session_goes_idle() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        assert_eq!(files(&db), None, "no database, no line");
        std::fs::write(&db, b"x").unwrap();
        assert_eq!(files(&db), None, "written within the second");
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let seen = files(&db).expect("an old file is described");
        assert!(seen.contains(" wal=none"), "{seen}");
        let s = settings(1_200_000, true, true);
        let l = line(&s, Some(10_000), &seen);
        assert!(holds(&l, &s, &seen, 9_999));
        assert!(!holds(&l, &s, &seen, 10_000), "the first open session has gone idle");
        assert!(holds(&line(&s, None, &seen), &s, &seen, i64::MAX), "no open session: no deadline");
        assert!(!holds(&l, &settings(60_000, true, true), &seen, 0), "another pause");
        assert!(!holds(&l, &settings(1_200_000, false, true), &seen, 0), "vectors off");
        assert!(!holds("quiet garbage", &s, &seen, 0) && !holds("", &s, &seen, 0));
        // A write: the file is too new to be described, and once old, differs.
        std::fs::write(&db, b"y").unwrap();
        assert_eq!(files(&db), None, "written within the second");
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let after = files(&db).expect("old enough again");
        assert_ne!(after, seen);
        assert!(!holds(&l, &s, &after, 0));
        // A WAL appearing changes the files too.
        let wal = dir.path().join("r.db-wal");
        std::fs::write(&wal, b"").unwrap();
        assert_eq!(files(&db), None);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let with_wal = files(&db).unwrap();
        assert!(with_wal.contains(" wal=") && !with_wal.contains("wal=none") && with_wal != after, "{with_wal}");
        // Through a symbolic link, the WAL is the one beside the real file.
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&db, &link).unwrap();
        assert_eq!(files(&link).as_deref(), Some(with_wal.as_str()));
        std::fs::write(&wal, b"a frame").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert_ne!(files(&link).unwrap(), with_wal, "a write to the real WAL is seen through the link");
    }

    #[test]
    fn a_spool_with_a_file_or_unreadable_counts_and_a_missing_or_empty_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let spool = dir.path().join("spool");
        assert!(!spooled(&spool));
        std::fs::create_dir(&spool).unwrap();
        assert!(!spooled(&spool));
        std::fs::write(spool.join("1.json"), b"{}").unwrap();
        assert!(spooled(&spool));
        std::fs::write(dir.path().join("file"), b"").unwrap();
        assert!(spooled(&dir.path().join("file")), "not a folder: the full tick finds out");
    }
}
