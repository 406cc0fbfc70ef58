//! The repository's files as tests read them: fixtures (`tests/fixtures/`),
//! generated test data (`tests/data/`, written by scripts/), and the
//! committed files that tests compare with what the program produces.

use std::path::{Path, PathBuf};

/// The repository's root (ragger's manifest folder).
pub fn repo_root() -> PathBuf {
    let kit = Path::new(env!("CARGO_MANIFEST_DIR"));
    kit.parent().and_then(Path::parent).expect("tests/kit sits two levels below the root").to_path_buf()
}

/// A file of the repository, by its path from the root.
pub fn repo_file(rel: &str) -> PathBuf {
    repo_root().join(rel)
}

/// A file of the repository, read; fails naming it.
#[track_caller]
pub fn read(rel: &str) -> String {
    let p = repo_file(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A fixture: `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    repo_file("tests/fixtures").join(name)
}

/// Generated test data: `tests/data/<name>` (scripts/gen-redaction-corpus.py,
/// scripts/embed-reference.py).
#[track_caller]
pub fn data(name: &str) -> String {
    read(&format!("tests/data/{name}"))
}
