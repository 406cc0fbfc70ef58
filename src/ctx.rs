//! What every command gets: the global flags, the paths, the merged config
//! and where each setting came from, with the helpers every command uses
//! (open the database, warn, verbosity). Built once in `cmd::run`.

use std::path::PathBuf;

use anyhow::Result;

use crate::cli::Global;
use crate::config::{Config, Source};
use crate::embed::EmbedOptions;
use crate::exit::Exit;
use crate::paths::Paths;
use crate::store::Store;

/// What every command gets: flags, paths and the merged config.
pub struct Ctx {
    pub global: Global,
    pub paths: Paths,
    pub config: Config,
    pub sources: Vec<Source>,
    pub origins: crate::config::Origins,
    /// The config had an error outside what capture needs; only those
    /// sections were read (see [`Ctx::for_capture`]).
    pub partial_config: bool,
}

impl Ctx {
    pub fn new(global: Global) -> Result<Ctx> {
        let paths = Paths::from_env()?;
        let loaded = crate::config::load(&paths, global.config.as_deref())?;
        Ok(Ctx::from_loaded(global, paths, loaded))
    }

    /// For `capture` and the hooks: a config mistake outside what capture
    /// needs is one warning line on stderr, not a dropped turn.
    pub fn for_capture(global: Global) -> Result<Ctx> {
        let paths = Paths::from_env()?;
        let (loaded, problem) = crate::config::load_for_capture(&paths, global.config.as_deref())?;
        let mut ctx = Ctx::from_loaded(global, paths, loaded);
        ctx.partial_config = problem.is_some();
        if let Some(e) = problem {
            ctx.warn(&format!("warning: {e:#} (the turn is stored; summarize and housekeeping refuse this config)"));
        }
        Ok(ctx)
    }

    /// For `init`: an explicit config file may not exist yet.
    pub fn for_init(global: Global) -> Result<Ctx> {
        let paths = Paths::from_env()?;
        let loaded = crate::config::load_maybe_absent(&paths, global.config.as_deref())?;
        Ok(Ctx::from_loaded(global, paths, loaded))
    }

    fn from_loaded(global: Global, paths: Paths, loaded: crate::config::Loaded) -> Ctx {
        Ctx {
            global,
            paths,
            config: loaded.config,
            sources: loaded.sources,
            origins: loaded.origins,
            partial_config: false,
        }
    }

    /// The database path and, in words, how it was chosen: `--db`,
    /// `RAGGER_DB`, the config layer that set `[database] path`, or the
    /// default; for errors and `doctor`.
    pub fn db_origin(&self) -> (PathBuf, String) {
        if let Some(db) = &self.global.db {
            let flag = std::env::args_os().any(|a| a == "--db" || a.to_string_lossy().starts_with("--db="));
            let how = if flag { "from --db" } else { "from RAGGER_DB" };
            return (db.clone(), how.to_string());
        }
        if let Some(db) = &self.config.database.path {
            let how = match self.origins.of("database", "path") {
                Some(layer) => format!("from [database] path in {layer}"),
                None => "from [database] path".to_string(),
            };
            return (db.clone(), how);
        }
        (self.paths.default_db(), format!("the default: ragger.db in the data folder, {}", data_folder_origin()))
    }

    /// Open the database for a command that only reads: a missing file is
    /// an error naming the path and its origin (exit 66), never a new empty
    /// database in the wrong place.
    pub fn open_existing_store(&self) -> Result<Store> {
        self.require_db()?;
        self.open_store()
    }

    /// A missing database is an error naming the path and its origin (exit 66).
    pub fn require_db(&self) -> Result<()> {
        let (db, origin) = self.db_origin();
        if !db.exists() {
            return Err(crate::exit::fail(
                Exit::NoInput,
                format!(
                    "no database at {} ({origin}); capture a turn or run `ragger init` first, or point --db at yours",
                    db.display()
                ),
            ));
        }
        Ok(())
    }

    /// Flag > config > default, as [`Ctx::db_origin`] says it, without its
    /// words (capture opens the database on every turn).
    pub fn db_path(&self) -> PathBuf {
        self.global.db.clone().or_else(|| self.config.database.path.clone()).unwrap_or_else(|| self.paths.default_db())
    }

    /// Open the database; the first time in a process, warn about modes
    /// that let other users read it or change what ragger trusts.
    pub fn open_store(&self) -> Result<Store> {
        self.open_store_waiting(crate::store::BUSY_TIMEOUT)
    }

    /// [`Ctx::open_store`], waiting at most `busy` for another process's
    /// lock (hooks).
    pub fn open_store_waiting(&self, busy: std::time::Duration) -> Result<Store> {
        let db = self.db_path();
        let store = Store::open_waiting(&db, busy)?;
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            let files: Vec<&std::path::Path> =
                self.sources.iter().filter(|s| s.exists).map(|s| s.path.as_path()).collect();
            let names_key = self.config.memory_model.api_key_env.as_deref().is_some_and(|v| !v.is_empty());
            for w in crate::perms::warnings(&db, &files, names_key) {
                self.warn(&w);
            }
            // The file that says where an API key lives should be private too.
            if names_key {
                for f in files.iter().filter(|f| crate::paths::readable_by_others(f)) {
                    self.warn(&format!(
                        "warning: {} names an api_key_env and is readable by other users; run chmod 600 on it",
                        f.display()
                    ));
                }
            }
        });
        Ok(store)
    }

    /// The key of the project a `--project` value (or an MCP tool's
    /// `project` argument) means: a folder or a name, as
    /// `store::projects::resolve` reads it; an unknown one is a one-line
    /// usage error.
    pub fn project(&self, store: &Store, arg: &str) -> Result<String> {
        self.project_as(store, arg, crate::store::projects::Merged::Follow)
    }

    /// [`Ctx::project`], following merges (what the project is now) or
    /// not (the row the argument names: what `projects merge` moves).
    pub fn project_as(&self, store: &Store, arg: &str, merged: crate::store::projects::Merged) -> Result<String> {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let lookup = crate::store::projects::Lookup {
            home: home.as_deref(),
            cwd: &cwd,
            configured: &self.config.import.projects,
        };
        crate::store::projects::resolve_as(store, arg, &lookup, merged)
    }

    /// [`Ctx::project`] for an optional argument.
    pub fn project_opt(&self, store: &Store, arg: Option<&str>) -> Result<Option<String>> {
        arg.map(|a| self.project(store, a)).transpose()
    }

    pub fn json(&self) -> bool {
        self.global.json
    }
    pub fn quiet(&self) -> bool {
        self.global.quiet
    }
    /// `-v` count; without flags, `RAGGER_LOG` (info = 1, debug/trace = 2).
    pub fn verbose(&self) -> u8 {
        if self.global.quiet {
            return 0;
        }
        if self.global.verbose > 0 {
            return self.global.verbose;
        }
        match std::env::var("RAGGER_LOG").unwrap_or_default().to_ascii_lowercase().as_str() {
            "info" => 1,
            "debug" | "trace" => 2,
            _ => 0,
        }
    }

    /// Progress bars only on a terminal, and never with --quiet or --json.
    pub fn progress_allowed(&self) -> bool {
        use std::io::IsTerminal;
        !self.global.quiet && !self.global.json && std::io::stderr().is_terminal()
    }

    pub fn embed_options(&self) -> EmbedOptions {
        let e = &self.config.embedder;
        EmbedOptions {
            runtime_path: e.runtime_path.clone(),
            lib_dir: self.paths.lib(),
            model_dir: e.model_dir.clone().unwrap_or_else(|| self.paths.default_embedder_dir()),
            batch_size: e.batch_size,
            threads: e.threads,
        }
    }

    /// A diagnostic line on stderr (not with --quiet).
    pub fn warn(&self, msg: &str) {
        if !self.global.quiet {
            crate::display::eprint(msg);
        }
    }
}

/// How the data folder was found: XDG_DATA_HOME, or HOME.
fn data_folder_origin() -> String {
    match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty() && std::path::Path::new(v).is_absolute()) {
        Some(v) => format!("from XDG_DATA_HOME={}", v.to_string_lossy()),
        None => "under HOME (~/.local/share/ragger)".to_string(),
    }
}
