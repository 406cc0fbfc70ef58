//! Warnings about file modes that let other users read the memory or
//! change what ragger trusts: the database readable by others, the
//! database or its folder writable by others, and a config file that names
//! the API key's variable writable by others (it could point the key at
//! another server).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Group or others may write.
const WRITABLE_BY_OTHERS: u32 = 0o022;
/// Others may read.
const READABLE_BY_OTHERS: u32 = 0o004;

fn mode(p: &Path) -> Option<u32> {
    std::fs::metadata(p).ok().map(|m| m.permissions().mode())
}

/// The files beside the database that hold its data or guard it:
/// SQLite's WAL and shared-memory index (new turns sit in the WAL until a
/// checkpoint), and the run lock.
pub fn companions(db: &Path) -> Vec<PathBuf> {
    ["-wal", "-shm", ".lock"]
        .iter()
        .map(|suffix| {
            let mut name = db.as_os_str().to_os_string();
            name.push(suffix);
            PathBuf::from(name)
        })
        .collect()
}

/// Give each companion file no more access for group and others than the
/// database has: after `chmod 600 ragger.db` a WAL kept between processes
/// would otherwise stay 0644 and readable by everyone. Best effort: a file
/// of another user stays as it is, and [`warnings`] names it.
pub fn align_companions(db: &Path) {
    let Some(db_mode) = mode(db) else { return };
    for f in companions(db) {
        let Some(m) = mode(&f) else { continue };
        let aligned = m & !(0o077 & !db_mode);
        if aligned & 0o7777 != m & 0o7777 {
            let _ = std::fs::set_permissions(&f, std::fs::Permissions::from_mode(aligned & 0o7777));
        }
    }
}

/// One line per problem, naming the file and the fix.
pub fn warnings(db: &Path, config_files: &[&Path], names_api_key: bool) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        // A sticky folder such as /tmp protects the file from deletion,
        // not from being replaced by its owner; still worth a warning.
        if mode(dir).is_some_and(|m| m & WRITABLE_BY_OTHERS != 0) {
            out.push(format!(
                "warning: the database folder {} is writable by other users (chmod go-w it)",
                dir.display()
            ));
        }
    }
    let files = std::iter::once((db.to_path_buf(), "database")).chain(companions(db).into_iter().zip([
        "database's write-ahead log",
        "database's shared-memory index",
        "database's run lock",
    ]));
    for (f, what) in files {
        if let Some(m) = mode(&f) {
            if m & WRITABLE_BY_OTHERS != 0 {
                out.push(format!("warning: the {what} {} is writable by other users (chmod 600 it)", f.display()));
            } else if m & READABLE_BY_OTHERS != 0 {
                out.push(format!("warning: the {what} {} is readable by other users (chmod 600 it)", f.display()));
            }
        }
    }
    if names_api_key {
        for f in config_files {
            if mode(f).is_some_and(|m| m & WRITABLE_BY_OTHERS != 0) {
                out.push(format!(
                    "warning: the config file {} sets api_key_env and is writable by other users (chmod go-w it)",
                    f.display()
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chmod(p: &Path, m: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    }

    #[test]
    fn modes_that_expose_the_memory_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("ragger.db");
        let cfg = dir.path().join("config.toml");
        std::fs::write(&db, b"").unwrap();
        std::fs::write(&cfg, b"").unwrap();
        chmod(dir.path(), 0o700);
        chmod(&db, 0o600);
        chmod(&cfg, 0o644);
        assert!(warnings(&db, &[&cfg], true).is_empty());
        chmod(&db, 0o644);
        assert_eq!(warnings(&db, &[&cfg], true).len(), 1);
        assert!(warnings(&db, &[], false)[0].contains("readable by other users"));
        chmod(&db, 0o666);
        assert!(warnings(&db, &[], false)[0].contains("writable by other users"));
        chmod(&db, 0o600);
        chmod(dir.path(), 0o777);
        assert!(warnings(&db, &[], false)[0].contains("database folder"));
        chmod(dir.path(), 0o700);
        chmod(&cfg, 0o666);
        assert!(warnings(&db, &[&cfg], false).is_empty(), "no key named: nothing to protect");
        assert!(warnings(&db, &[&cfg], true)[0].contains("sets api_key_env"));
    }

    #[test]
    fn companions_follow_the_database_and_each_is_named() {
        let dir = tempfile::tempdir().unwrap();
        chmod(dir.path(), 0o700);
        let db = dir.path().join("ragger.db");
        std::fs::write(&db, b"").unwrap();
        for f in companions(&db) {
            std::fs::write(&f, b"").unwrap();
            chmod(&f, 0o644);
        }
        chmod(&db, 0o644);
        let w = warnings(&db, &[], false);
        assert_eq!(w.len(), 4, "{w:?}");
        for f in ["ragger.db ", "ragger.db-wal", "ragger.db-shm", "ragger.db.lock"] {
            assert!(w.iter().any(|l| l.contains(f)), "{f} not named: {w:?}");
        }
        chmod(&db, 0o600);
        align_companions(&db);
        for f in companions(&db) {
            assert_eq!(mode(&f).unwrap() & 0o777, 0o600, "{}", f.display());
        }
        assert!(warnings(&db, &[], false).is_empty());
    }
}
