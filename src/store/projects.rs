//! The `projects` table: the project a turn's [`Spec`] names (found, given
//! its root, or added), and the project a `--project` argument (a path or
//! a name) means. `sessions.project` and `summaries.project` hold a
//! project's `key`; its `label` is the name shown, unambiguous among all
//! projects (see `project::labels`). A project merged into another
//! (`merged_into`, see `store::merge`) keeps its row so its folder and name
//! still find it, and every lookup here follows it to the project it was
//! merged into: a turn from its folder lands there, `--project` reads
//! there.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use super::{now_ms, Store};
use crate::exit::{fail, Exit};
use crate::project::{self, Spec};

/// A stored project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Project {
    pub key: String,
    pub name: String,
    pub root: Option<String>,
    pub label: String,
}

/// A key's project after merges: the project it was merged into, else
/// itself (merges are flattened, so one step is the end).
const LIVE: &str = "coalesce(merged_into, key)";

/// The project `key` now is: the one it was merged into, else `key`.
pub fn follow(c: &Connection, key: &str) -> rusqlite::Result<String> {
    Ok(key_where(c, &format!("SELECT {LIVE} FROM projects WHERE key = ?1"), key)?.unwrap_or_else(|| key.to_string()))
}

/// What a spec names among the stored projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// This project.
    Key(String),
    /// A name several projects have (their labels and roots).
    Ambiguous(Vec<Project>),
    None,
}

fn key_where(c: &Connection, sql: &str, arg: &str) -> rusqlite::Result<Option<String>> {
    c.prepare_cached(sql)?.query_row([arg], |r| r.get(0)).optional()
}

/// The stored project `spec` names, without writing anything, after
/// merges ([`follow`]). A root is found by that root, then as a key (a
/// project named by a path before roots were known), then as a project of
/// its name whose root is not known yet (which it then becomes: see
/// [`ensure`]). A name is found as a key, then as the name of exactly one
/// project (projects merged into one count once).
pub fn find(c: &Connection, spec: &Spec) -> rusqlite::Result<Found> {
    Ok(match find_row(c, spec)? {
        Found::Key(k) => Found::Key(follow(c, &k)?),
        other => other,
    })
}

/// [`find`] before merges: the row the spec names.
fn find_row(c: &Connection, spec: &Spec) -> rusqlite::Result<Found> {
    if let Some(root) = spec.root.as_deref() {
        for (sql, arg) in [
            ("SELECT key FROM projects WHERE root = ?1", root),
            ("SELECT key FROM projects WHERE key = ?1 AND root IS NULL", root),
            ("SELECT key FROM projects WHERE key = ?1 AND root IS NULL", spec.name.as_str()),
        ] {
            if let Some(k) = key_where(c, sql, arg)? {
                return Ok(Found::Key(k));
            }
        }
        return Ok(Found::None);
    }
    if let Some(k) = key_where(c, "SELECT key FROM projects WHERE key = ?1", &spec.name)? {
        return Ok(Found::Key(k));
    }
    let live = keys(c, &format!("SELECT DISTINCT {LIVE} FROM projects WHERE name = ?1"), &spec.name)?;
    Ok(match live.len() {
        0 => Found::None,
        1 => Found::Key(live.into_iter().next().unwrap()),
        _ => Found::Ambiguous(live_rows(c, &live)?),
    })
}

fn keys(c: &Connection, sql: &str, arg: &str) -> rusqlite::Result<Vec<String>> {
    c.prepare_cached(sql)?.query_map([arg], |r| r.get(0))?.collect()
}

/// The stored projects keyed `keys`, by label.
fn live_rows(c: &Connection, keys: &[String]) -> rusqlite::Result<Vec<Project>> {
    let mut out = Vec::new();
    for k in keys {
        out.extend(rows(c, "WHERE key = ?1", k)?);
    }
    out.sort_by(|a, b| (&a.label, &a.key).cmp(&(&b.label, &b.key)));
    Ok(out)
}

fn rows(c: &Connection, filter: &str, arg: &str) -> rusqlite::Result<Vec<Project>> {
    let sql = format!("SELECT key, name, root, label FROM projects {filter} ORDER BY label, key");
    let mut stmt = c.prepare_cached(&sql)?;
    let map =
        |r: &rusqlite::Row<'_>| Ok(Project { key: r.get(0)?, name: r.get(1)?, root: r.get(2)?, label: r.get(3)? });
    let out = if filter.contains("?1") { stmt.query_map([arg], map)? } else { stmt.query_map([], map)? };
    out.collect()
}

/// Every stored project not merged into another, by label.
pub fn all(store: &Store) -> Result<Vec<Project>> {
    Ok(rows(&store.conn, "WHERE merged_into IS NULL", "")?)
}

/// The key of the project `spec` names, adding it when there is none (the
/// caller's write transaction). A project found by its name whose root was
/// not known gets the root; a project found by its root takes the spec's
/// name (a configured name renames it). A name several projects have goes
/// to the project keyed by that name (see [`find`] for a caller that
/// refuses it instead). A merged project's turn goes to the project it was
/// merged into (its own row still learns its root).
pub fn ensure(c: &Connection, spec: &Spec) -> rusqlite::Result<String> {
    let key = match find_row(c, spec)? {
        Found::Key(k) => {
            if let Some(root) = spec.root.as_deref() {
                let changed = c
                    .prepare_cached(
                        "UPDATE projects SET root = ?2, name = ?3
                         WHERE key = ?1 AND (root IS NULL OR root = ?2) AND (root IS NOT ?2 OR name <> ?3)",
                    )?
                    .execute(params![k, root, spec.name])?;
                if changed > 0 {
                    relabel(c)?;
                }
            }
            return follow(c, &k);
        }
        Found::Ambiguous(_) | Found::None => spec.root.clone().unwrap_or_else(|| spec.name.clone()),
    };
    c.prepare_cached(
        "INSERT INTO projects (key, name, root, label, created_at) VALUES (?1, ?2, ?3, ?1, ?4)
         ON CONFLICT (key) DO NOTHING",
    )?
    .execute(params![key, spec.name, spec.root, now_ms()])?;
    relabel(c)?;
    follow(c, &key)
}

/// Remove the projects no session or summary names any more (after
/// `forget`), and the projects merged into one of them (a merged project
/// holds no memory of its own: it lasts as long as the one it went to).
pub fn drop_unused(c: &Connection) -> rusqlite::Result<()> {
    let n = c.execute(
        "DELETE FROM projects WHERE merged_into IS NULL
            AND key NOT IN (SELECT project FROM sessions WHERE project IS NOT NULL)
            AND key NOT IN (SELECT project FROM summaries WHERE project IS NOT NULL)",
        [],
    )? + c.execute("DELETE FROM projects WHERE merged_into NOT IN (SELECT key FROM projects)", [])?;
    if n > 0 {
        relabel(c)?;
    }
    Ok(())
}

/// Recompute every label (a handful of rows; only when a project is added
/// or renamed).
fn relabel(c: &Connection) -> rusqlite::Result<()> {
    let all: Vec<(String, String, Option<String>)> = c
        .prepare_cached("SELECT key, name, root FROM projects ORDER BY key")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let labels = project::labels(&all);
    let mut upd = c.prepare_cached("UPDATE projects SET label = ?2 WHERE key = ?1 AND label <> ?2")?;
    for ((key, _, _), label) in all.iter().zip(labels) {
        upd.execute(params![key, label])?;
    }
    Ok(())
}

/// How a project argument is read: the user's home and current folder for
/// a path, the configured folder names.
pub struct Lookup<'a> {
    pub home: Option<&'a Path>,
    pub cwd: &'a Path,
    pub configured: &'a BTreeMap<String, String>,
}

/// Whether a lookup follows merges (what `--project` means now) or stops
/// at the row the argument names (what `projects merge` moves).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Merged {
    Follow,
    Row,
}

/// The key of the project `arg` means: a path (`/…`, `~/…`, `./…`) is the
/// project of that folder (its repository root, a configured name) or of
/// the nearest stored root above it; a name is a key, a label, a name
/// (exactly one project's), or one of those in another case. A merged
/// project means the project it was merged into. An unknown or ambiguous
/// one is a usage error that names it.
pub fn resolve(store: &Store, arg: &str, lookup: &Lookup<'_>) -> Result<String> {
    resolve_as(store, arg, lookup, Merged::Follow)
}

/// [`resolve`], following merges or not.
pub fn resolve_as(store: &Store, arg: &str, lookup: &Lookup<'_>, merged: Merged) -> Result<String> {
    let arg = arg.trim();
    if arg.is_empty() {
        return Err(fail(Exit::Usage, "the project is empty; `ragger projects` lists them"));
    }
    let c = &store.conn;
    let unknown = |what: &str| {
        fail(Exit::Usage, format!("unknown project {arg:?}: no project has {what}; `ragger projects` lists them"))
    };
    if project::is_path(arg) {
        let abs = project::absolute(arg, lookup.home, lookup.cwd);
        return folder_key(store, &abs, lookup.configured, merged)?.ok_or_else(|| unknown("that folder"));
    }
    // Each step takes a unique answer (projects merged into one are one
    // answer when following merges).
    let col = if merged == Merged::Follow { LIVE } else { "key" };
    for filter in ["key = ?1", "label = ?1", "name = ?1", "lower(label) = lower(?1)", "lower(name) = lower(?1)"] {
        let found = keys(c, &format!("SELECT DISTINCT {col} FROM projects WHERE {filter}"), arg)?;
        if let [k] = &found[..] {
            return Ok(k.clone());
        }
    }
    let same = keys(c, &format!("SELECT DISTINCT {col} FROM projects WHERE lower(name) = lower(?1)"), arg)?;
    if same.len() > 1 {
        return Err(fail(Exit::Usage, ambiguous(arg, &live_rows(c, &same)?)));
    }
    Err(unknown("that name"))
}

/// The stored project of the folder `abs` (absolute): the project of its
/// repository root or configured name, else, for a folder in no
/// repository here (one on another machine, a root without `.git`), of
/// the nearest stored root above it. A repository with no memory yet gets
/// none, never its parent folder's. A merged project's folder is the
/// project it was merged into. Nothing is written.
pub fn of_folder(store: &Store, abs: &Path, configured: &BTreeMap<String, String>) -> Result<Option<String>> {
    folder_key(store, abs, configured, Merged::Follow)
}

fn folder_key(
    store: &Store,
    abs: &Path,
    configured: &BTreeMap<String, String>,
    merged: Merged,
) -> Result<Option<String>> {
    let c = &store.conn;
    let live = |k: String| -> rusqlite::Result<String> {
        if merged == Merged::Follow {
            follow(c, &k)
        } else {
            Ok(k)
        }
    };
    let abs = project::canonical(abs);
    let spec = project::for_folder(&project::path_text(&abs), configured);
    if let Some(spec) = &spec {
        if let Found::Key(k) = find_row(c, spec)? {
            return Ok(Some(live(k)?));
        }
    }
    let in_repository =
        spec.as_ref().and_then(|s| s.root.as_deref()).is_some_and(|r| Path::new(r).join(".git").exists());
    let configured_name =
        configured.keys().any(|d| abs.starts_with(project::canonical(Path::new(d.trim_end_matches('/')))));
    if in_repository || configured_name {
        return Ok(None);
    }
    let nearest = rows(c, "", "")?
        .into_iter()
        .filter_map(|p| p.root.map(|r| (r, p.key)))
        .filter(|(r, _)| abs.starts_with(r))
        .max_by_key(|(r, _)| r.len())
        .map(|(_, k)| k);
    Ok(nearest.map(live).transpose()?)
}

/// The one-line message for a name several projects have.
pub fn ambiguous(name: &str, projects: &[Project]) -> String {
    let each: Vec<String> = projects
        .iter()
        .map(|p| match &p.root {
            Some(r) => format!("{:?} ({r})", p.label),
            None => format!("{:?}", p.label),
        })
        .collect();
    format!("project name {name:?} is ambiguous: {}; pass one of these or its folder", each.join(", "))
}

/// The label of the project keyed `key` (the key itself for a project not
/// in the table).
pub fn label(store: &Store, key: &str) -> Result<String> {
    Ok(key_where(&store.conn, "SELECT label FROM projects WHERE key = ?1", key)?.unwrap_or_else(|| key.to_string()))
}

/// The stored project keyed `key`.
pub fn get(store: &Store, key: &str) -> Result<Option<Project>> {
    Ok(rows(&store.conn, "WHERE key = ?1", key)?.into_iter().next())
}

/// The label of the project of the stored session `external_id` (None: no
/// such session, or one with no project).
pub fn of_session(store: &Store, external_id: &str) -> Result<Option<String>> {
    Ok(store
        .conn
        .query_row(
            "SELECT coalesce(p.label, s.project) FROM sessions s LEFT JOIN projects p ON p.key = s.project
             WHERE s.external_id = ?1",
            [external_id],
            |r| r.get(0),
        )
        .optional()?
        .flatten())
}

/// The root of the project keyed `key`, when known.
pub fn root(store: &Store, key: &str) -> Result<Option<String>> {
    Ok(store.conn.query_row("SELECT root FROM projects WHERE key = ?1", [key], |r| r.get(0)).optional()?.flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rooted(root: &str) -> Spec {
        Spec { name: project::folder_name(root).unwrap(), root: Some(root.into()) }
    }

    fn lookup_in<'a>(cwd: &'a Path, map: &'a BTreeMap<String, String>) -> Lookup<'a> {
        Lookup { home: None, cwd, configured: map }
    }

    #[test]
    fn same_named_roots_are_two_projects_with_labels_that_tell_them_apart() {
        let store = Store::memory().unwrap();
        let a = ensure(&store.conn, &rooted("/home/dev/clientA/backend")).unwrap();
        let b = ensure(&store.conn, &rooted("/home/dev/clientB/backend")).unwrap();
        assert_ne!(a, b);
        assert_eq!(ensure(&store.conn, &rooted("/home/dev/clientA/backend")).unwrap(), a);
        assert_eq!(label(&store, &a).unwrap(), "backend (clientA)");
        assert_eq!(label(&store, &b).unwrap(), "backend (clientB)");
        let map = BTreeMap::new();
        let l = lookup_in(Path::new("/"), &map);
        assert_eq!(resolve(&store, "backend (clientB)", &l).unwrap(), b);
        assert_eq!(resolve(&store, "/home/dev/clientA/backend/src/x", &l).unwrap(), a);
        let e = resolve(&store, "Backend", &l).unwrap_err().to_string();
        assert!(e.contains("ambiguous") && e.contains("/home/dev/clientB/backend"), "{e}");
        let e = resolve(&store, "frontend", &l).unwrap_err().to_string();
        assert_eq!(e, "unknown project \"frontend\": no project has that name; `ragger projects` lists them");
    }

    #[test]
    fn a_name_only_project_gets_the_root_of_the_first_folder_of_its_name() {
        let store = Store::memory().unwrap();
        let old = ensure(&store.conn, &Spec::named("webshop")).unwrap();
        assert_eq!(old, "webshop");
        assert_eq!(ensure(&store.conn, &rooted("/w/webshop")).unwrap(), "webshop");
        assert_eq!(root(&store, "webshop").unwrap().as_deref(), Some("/w/webshop"));
        // Another folder of that name is another project.
        let other = ensure(&store.conn, &rooted("/v/webshop")).unwrap();
        assert_eq!(other, "/v/webshop");
        assert_eq!(label(&store, "webshop").unwrap(), "webshop (w)");
        // By name, the key wins; a name given to capture finds a single rooted project.
        assert_eq!(ensure(&store.conn, &Spec::named("webshop")).unwrap(), "webshop");
        ensure(&store.conn, &rooted("/x/api")).unwrap();
        assert_eq!(find(&store.conn, &Spec::named("api")).unwrap(), Found::Key("/x/api".into()));
        let map = BTreeMap::new();
        assert_eq!(resolve(&store, "WEBSHOP (V)", &lookup_in(Path::new("/"), &map)).unwrap(), "/v/webshop");
    }

    #[test]
    fn a_merged_project_is_found_as_the_project_it_went_into() {
        let store = Store::memory().unwrap();
        let a = ensure(&store.conn, &rooted("/home/dev/clientA/backend")).unwrap();
        let b = ensure(&store.conn, &rooted("/home/dev/clientB/backend")).unwrap();
        store.conn.execute("UPDATE projects SET merged_into = ?2 WHERE key = ?1", [&a, &b]).unwrap();
        let map = BTreeMap::new();
        let l = lookup_in(Path::new("/"), &map);
        // The bare name two rows share is one project now; each label and folder follows.
        for arg in ["backend", "Backend", "backend (clientA)", "/home/dev/clientA/backend/src"] {
            assert_eq!(resolve(&store, arg, &l).unwrap(), b, "{arg}");
        }
        // Unless the row itself is asked for.
        assert_eq!(resolve_as(&store, "backend (clientA)", &l, Merged::Row).unwrap(), a);
        assert_eq!(resolve_as(&store, "/home/dev/clientA/backend", &l, Merged::Row).unwrap(), a);
        assert!(resolve_as(&store, "backend", &l, Merged::Row).unwrap_err().to_string().contains("ambiguous"));
        // A turn of its folder or its name goes to the project it went into.
        assert_eq!(ensure(&store.conn, &rooted("/home/dev/clientA/backend")).unwrap(), b);
        assert_eq!(find(&store.conn, &Spec::named("backend")).unwrap(), Found::Key(b.clone()));
        assert_eq!(all(&store).unwrap().into_iter().map(|p| p.key).collect::<Vec<_>>(), [b]);
    }

    #[test]
    fn a_configured_name_renames_the_project_of_its_folder() {
        let store = Store::memory().unwrap();
        let k = ensure(&store.conn, &rooted("/src/shop")).unwrap();
        let renamed = Spec { name: "storefront".into(), root: Some("/src/shop".into()) };
        assert_eq!(ensure(&store.conn, &renamed).unwrap(), k);
        assert_eq!(label(&store, &k).unwrap(), "storefront");
        let map: BTreeMap<String, String> = [("/src/shop".to_string(), "storefront".to_string())].into();
        assert_eq!(resolve(&store, "/src/shop/web", &lookup_in(Path::new("/"), &map)).unwrap(), k);
        assert_eq!(resolve(&store, "./web", &lookup_in(Path::new("/src/shop"), &map)).unwrap(), k);
    }
}
