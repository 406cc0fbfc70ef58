//! Exclusion: projects and folders that are never captured. A project
//! matching a `[capture] exclude_projects` glob (by its name or its root folder), or a working folder with a
//! `.ragger-ignore` file in it or in a parent, is skipped silently.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::config::Capture;
use crate::exit::{fail, Exit};

/// The marker file that excludes its folder and everything below it.
pub const IGNORE_FILE: &str = ".ragger-ignore";

pub struct Exclusions {
    projects: Vec<glob::Pattern>,
}

impl Exclusions {
    pub fn new(c: &Capture) -> Result<Exclusions> {
        let mut projects = Vec::new();
        for (i, g) in c.exclude_projects.iter().enumerate() {
            projects.push(glob::Pattern::new(g).map_err(|e| {
                fail(Exit::Config, format!("[capture] exclude_projects[{i}] {g:?} is not a valid glob: {e}"))
            })?);
        }
        Ok(Exclusions { projects })
    }

    /// Whether a turn of this project must not be captured.
    pub fn project(&self, project: Option<&str>) -> bool {
        let Some(p) = project.map(str::trim).filter(|p| !p.is_empty()) else { return false };
        self.projects.iter().any(|g| g.matches(p))
    }
}

/// The `.ragger-ignore` file that excludes `dir`, if there is one in it or
/// in a parent.
pub fn ignore_file(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(IGNORE_FILE)).find(|f| f.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_project_names() {
        let c = Capture { exclude_projects: vec!["client-*".into(), "/home/*/secret".into()], ..Capture::default() };
        let e = Exclusions::new(&c).unwrap();
        assert!(e.project(Some("client-acme")));
        assert!(e.project(Some("/home/me/secret")));
        assert!(!e.project(Some("my-client-acme")));
        assert!(!e.project(None));
        let bad = Capture { exclude_projects: vec!["[".into()], ..Capture::default() };
        assert!(Exclusions::new(&bad).err().unwrap().to_string().contains("exclude_projects[0]"));
    }

    #[test]
    fn marker_file_in_a_parent_excludes_the_folder() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(ignore_file(&sub), None);
        std::fs::write(d.path().join("a").join(IGNORE_FILE), "").unwrap();
        assert_eq!(ignore_file(&sub), Some(d.path().join("a").join(IGNORE_FILE)));
    }
}
