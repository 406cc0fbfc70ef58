//! Warnings about file modes that let other users read the memory or
//! change what ragger trusts: the database readable by others, the
//! database or its folder writable by others, and a config file that names
//! the API key's variable writable by others (it could point the key at
//! another server).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Group or others may write.
const WRITABLE_BY_OTHERS: u32 = 0o022;
/// Others may read.
const READABLE_BY_OTHERS: u32 = 0o004;

fn mode(p: &Path) -> Option<u32> {
    std::fs::metadata(p).ok().map(|m| m.permissions().mode())
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
    if let Some(m) = mode(db) {
        if m & WRITABLE_BY_OTHERS != 0 {
            out.push(format!("warning: the database {} is writable by other users (chmod 600 it)", db.display()));
        } else if m & READABLE_BY_OTHERS != 0 {
            out.push(format!("warning: the database {} is readable by other users (chmod 600 it)", db.display()));
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
}
