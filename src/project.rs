//! Project identity: which project a working folder (or a `--project`
//! argument) belongs to. A project is its repository root, the nearest
//! folder at or above the working folder that holds `.git` (a directory,
//! or a file as in worktrees and submodules), else the working folder
//! itself; its name is that folder's name. `[import] projects` names
//! folders (and everything under them) instead: folders given one name are
//! one project. Storing and looking projects up is `store::projects`.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// What a turn says about its project, before the store finds or adds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The readable name: the root's folder name, or the configured or
    /// given name.
    pub name: String,
    /// The root folder (absolute), when the project came from a folder.
    pub root: Option<String>,
}

impl Spec {
    /// A project given by name only (`capture --project NAME`, a turn
    /// stored before roots were known).
    pub fn named(name: &str) -> Spec {
        Spec { name: name.to_string(), root: None }
    }

    /// How a message names it: its root, else its name.
    pub fn shown(&self) -> &str {
        self.root.as_deref().unwrap_or(&self.name)
    }
}

/// Whether a `--project` value (or a turn's `project` field) is a folder
/// rather than a name: absolute, `~/…`, or `./…` / `../…`.
pub fn is_path(s: &str) -> bool {
    let s = s.trim();
    s.starts_with('/')
        || s == "~"
        || s.starts_with("~/")
        || s == "."
        || s == ".."
        || s.starts_with("./")
        || s.starts_with("../")
        || Path::new(s).is_absolute()
        || is_drive_path(s)
}

/// `C:\…` or `C:/…`: a Windows folder (in a transcript from there).
fn is_drive_path(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
}

/// A folder argument as an absolute path, in its stored form: `~` is
/// `home`, a relative path is taken from `cwd`, then [`canonical`].
pub fn absolute(s: &str, home: Option<&Path>, cwd: &Path) -> PathBuf {
    let s = s.trim();
    if is_drive_path(s) {
        return PathBuf::from(s);
    }
    let p = match (s.strip_prefix('~'), home) {
        (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => h.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(s),
    };
    canonical(&if p.is_absolute() { p } else { cwd.join(p) })
}

/// The one form a folder is stored and compared in: the deepest part of
/// it that exists on this machine as the file system names it (`..` and
/// symlinks resolved, so `/home/dev/x/../webshop` and a link to it are one
/// project), the rest by its text with `.` and `..` resolved (a folder not
/// created yet, or one of another machine's transcript). A relative path
/// (a Windows folder read here) is left as it is.
pub fn canonical(p: &Path) -> PathBuf {
    if !p.is_absolute() {
        return p.to_path_buf();
    }
    let parts: Vec<Component<'_>> = p.components().collect();
    // `/` always exists, so some head does.
    let (mut out, rest) = (1..=parts.len())
        .rev()
        .find_map(|i| {
            std::fs::canonicalize(parts[..i].iter().collect::<PathBuf>()).ok().map(|real| (real, &parts[i..]))
        })
        .unwrap_or_else(|| (PathBuf::new(), &parts[..]));
    for c in rest {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The repository root of `dir`: the nearest folder at or above it holding
/// `.git` (directory or file), else `dir` itself.
pub fn repo_root(dir: &Path) -> PathBuf {
    // A relative path (a Windows folder read on Unix) is not looked up:
    // its ancestors would be folders of this process's working folder.
    if !dir.is_absolute() {
        return dir.to_path_buf();
    }
    dir.ancestors().find(|a| a.join(".git").exists()).unwrap_or(dir).to_path_buf()
}

/// A path as the text stored for it: no trailing separator (but `/`).
pub fn path_text(p: &Path) -> String {
    let s = p.to_string_lossy();
    let t = s.trim_end_matches(['/', '\\']);
    if t.is_empty() {
        s.chars().take(1).collect()
    } else {
        t.to_string()
    }
}

/// The last component of a folder path (`/` and `\` separate).
pub fn folder_name(path: &str) -> Option<String> {
    let trimmed = path.trim_end_matches(['/', '\\']);
    let name = trimmed.rsplit(['/', '\\']).next().unwrap_or("");
    (!name.is_empty()).then(|| name.to_string())
}

/// The project of a working folder `cwd` (absolute): the `[import]
/// projects` entry for it or a folder above it (the deepest one), else its
/// repository root. A configured name's project is rooted at the first
/// folder (in sorting order) given that name, so all of them are one
/// project. `None` for a folder with no name (`/`).
pub fn for_folder(cwd: &str, configured: &BTreeMap<String, String>) -> Option<Spec> {
    let cwd = cwd.trim();
    if cwd.is_empty() {
        return None;
    }
    // Folders compare in their stored form: an agent's working folder may
    // be a symlinked path, a configured one too.
    let cwd = path_text(&canonical(Path::new(cwd)));
    let cwd = cwd.as_str();
    let dirs: Vec<(String, &String)> =
        configured.iter().map(|(dir, name)| (path_text(&canonical(Path::new(dir.trim()))), name)).collect();
    let named = dirs
        .iter()
        .filter(|(dir, _)| {
            cwd == dir || cwd.strip_prefix(dir.as_str()).is_some_and(|rest| rest.starts_with('/') || dir == "/")
        })
        .max_by_key(|(dir, _)| dir.len());
    if let Some((_, name)) = named {
        let first = dirs.iter().find(|(_, n)| n == name).map(|(d, _)| d.clone());
        return Some(Spec { name: (*name).clone(), root: first });
    }
    let root = path_text(&repo_root(Path::new(cwd)));
    let name = folder_name(&root)?;
    Some(Spec { name, root: Some(root) })
}

/// The labels that tell projects apart where two share a name: each
/// `(key, name, root)` gets its name when no other project has it, else
/// `name (parent folder)` when that is unique among them, else its root.
/// A project with no root keeps its name (it is found by that key).
pub fn labels(projects: &[(String, String, Option<String>)]) -> Vec<String> {
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, name, _) in projects {
        *by_name.entry(name).or_default() += 1;
    }
    let parent = |root: &str| -> Option<String> {
        let t = root.trim_end_matches(['/', '\\']);
        let up = &t[..t.rfind(['/', '\\'])?];
        folder_name(up)
    };
    projects
        .iter()
        .map(|(_, name, root)| {
            let Some(root) = root.as_deref().filter(|_| by_name[name.as_str()] > 1) else { return name.clone() };
            let mine = parent(root);
            let clash = projects.iter().filter(|(_, n, r)| n == name && r.as_deref().and_then(parent) == mine).count();
            match mine {
                Some(p) if clash == 1 => format!("{name} ({p})"),
                _ => root.to_string(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_inside_a_repository_belongs_to_the_repository_root() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("webshop");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("tests/unit")).unwrap();
        let spec = for_folder(&repo.join("tests/unit").to_string_lossy(), &BTreeMap::new()).unwrap();
        assert_eq!(spec.name, "webshop");
        assert_eq!(spec.root.as_deref(), Some(&*repo.to_string_lossy()));
        // A worktree or submodule: `.git` is a file.
        let wt = repo.join("sub");
        std::fs::create_dir_all(wt.join("src")).unwrap();
        std::fs::write(wt.join(".git"), "gitdir: ../.git/modules/sub\n").unwrap();
        assert_eq!(for_folder(&wt.join("src").to_string_lossy(), &BTreeMap::new()).unwrap().name, "sub");
        // No repository: the folder itself.
        let plain = d.path().join("notes/2026");
        assert_eq!(
            for_folder(&plain.to_string_lossy(), &BTreeMap::new()).unwrap().root.as_deref(),
            Some(&*plain.to_string_lossy())
        );
        assert_eq!(for_folder("/", &BTreeMap::new()), None);
    }

    #[test]
    fn configured_folders_name_their_projects_and_one_name_is_one_project() {
        let map: BTreeMap<String, String> =
            [("/src/shop/", "shop"), ("/src/shop/admin", "admin"), ("/old/shop", "shop")]
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
        let shop = Spec { name: "shop".into(), root: Some("/old/shop".into()) };
        assert_eq!(for_folder("/src/shop", &map), Some(shop.clone()));
        assert_eq!(for_folder("/src/shop/web/ui", &map), Some(shop.clone()));
        assert_eq!(for_folder("/old/shop/x", &map), Some(shop));
        assert_eq!(for_folder("/src/shop/admin/x", &map).unwrap().name, "admin");
        assert_eq!(for_folder("/src/shopping", &map).unwrap().name, "shopping");
    }

    #[test]
    fn a_folder_is_stored_in_one_form_through_links_and_dots() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let shop = base.join("src/webshop");
        std::fs::create_dir_all(shop.join(".git")).unwrap();
        std::fs::create_dir_all(base.join("src/x")).unwrap();
        std::fs::create_dir_all(base.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(&shop, base.join("link")).unwrap();
        // A link inside a `..` path: the file system decides, not the text.
        std::os::unix::fs::symlink(base.join("src/x"), base.join("elsewhere/to-x")).unwrap();
        let cwd = Path::new("/");
        for given in [
            shop.join("src/../").to_string_lossy().into_owned(),
            format!("{}/src/x/../webshop", base.display()),
            format!("{}/link", base.display()),
            format!("{}/elsewhere/to-x/../webshop", base.display()),
        ] {
            assert_eq!(absolute(&given, None, cwd), shop, "{given}");
        }
        let spec = for_folder(&format!("{}/link/sub", base.display()), &BTreeMap::new()).unwrap();
        assert_eq!(spec.root.as_deref(), Some(&*shop.to_string_lossy()));
        // Configured through a link, asked for by its real path.
        let map: BTreeMap<String, String> = [(format!("{}/link", base.display()), "shop".to_string())].into();
        assert_eq!(
            for_folder(&shop.to_string_lossy(), &map),
            Some(Spec { name: "shop".into(), root: Some(shop.to_string_lossy().into()) })
        );
        // A folder not on this machine keeps its text, `..` resolved.
        assert_eq!(absolute("/nowhere/a/../b/", None, cwd), PathBuf::from("/nowhere/b"));
        assert_eq!(canonical(Path::new("C:\\work")), PathBuf::from("C:\\work"));
    }

    #[test]
    fn labels_tell_same_named_projects_apart() {
        let p = |k: &str, n: &str, r: Option<&str>| (k.to_string(), n.to_string(), r.map(str::to_string));
        let rows = vec![
            p("/home/dev/clientA/backend", "backend", Some("/home/dev/clientA/backend")),
            p("/home/dev/clientB/backend", "backend", Some("/home/dev/clientB/backend")),
            p("/x/api", "api", Some("/x/api")),
            p("/a/web", "web", Some("/a/web")),
            p("/b/a/web", "web", Some("/b/a/web")),
            p("notes", "notes", None),
        ];
        assert_eq!(
            labels(&rows),
            ["backend (clientA)", "backend (clientB)", "api", "/a/web", "/b/a/web", "notes"].map(String::from)
        );
    }

    #[test]
    fn paths_are_told_from_names_and_made_absolute() {
        for p in ["/a", "~/a", "./a", "../a", ".", "~", "C:\\work\\app"] {
            assert!(is_path(p), "{p}");
        }
        for n in ["webshop", "Webshop", "backend (clientA)", "a/b"] {
            assert!(!is_path(n), "{n}");
        }
        let home = Path::new("/home/me");
        assert_eq!(absolute("~/src/x/", Some(home), Path::new("/tmp")), PathBuf::from("/home/me/src/x"));
        assert_eq!(absolute("../y/./z", None, Path::new("/w/v")), PathBuf::from("/w/y/z"));
        assert_eq!(path_text(Path::new("/a/b/")), "/a/b");
        assert_eq!(path_text(Path::new("/")), "/");
        assert_eq!(for_folder("C:\\work\\app", &BTreeMap::new()).unwrap().name, "app");
    }
}
