//! Where a setting came from, and the configuration with every path
//! resolved: for error messages, `doctor`, `config show` and `init`, so a
//! user (or cron, which lacks the shell's XDG variables) sees and can pin
//! the database and model files a command really uses.

use std::path::PathBuf;

use crate::cmd::Ctx;
use crate::config::{Backend, Config};

/// The database path and, in words, how it was chosen: `--db`, `RAGGER_DB`,
/// the config layer that set `[database] path`, or the default.
pub fn database(ctx: &Ctx) -> (PathBuf, String) {
    if let Some(db) = &ctx.global.db {
        let flag = std::env::args_os().any(|a| a == "--db" || a.to_string_lossy().starts_with("--db="));
        let how = if flag { "from --db" } else { "from RAGGER_DB" };
        return (db.clone(), how.to_string());
    }
    if let Some(db) = &ctx.config.database.path {
        let how = match ctx.origins.of("database", "path") {
            Some(layer) => format!("from [database] path in {layer}"),
            None => "from [database] path".to_string(),
        };
        return (db.clone(), how);
    }
    (ctx.paths.default_db(), format!("the default: ragger.db in the data folder, {}", data_folder_origin()))
}

/// How the data folder was found: XDG_DATA_HOME, or HOME.
fn data_folder_origin() -> String {
    match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty() && std::path::Path::new(v).is_absolute()) {
        Some(v) => format!("from XDG_DATA_HOME={}", v.to_string_lossy()),
        None => "under HOME (~/.local/share/ragger)".to_string(),
    }
}

/// The merged config with the paths a command would use filled in: the
/// database, and for the local backend the GGUF file, and the embedder's
/// model folder and runtime library (the first candidate that exists).
pub fn resolved(ctx: &Ctx) -> Config {
    let mut c = ctx.config.clone();
    c.database.path = Some(absolute(ctx.db_origin().0));
    if c.memory_model.backend == Backend::Local && c.memory_model.model_path.is_none() {
        c.memory_model.model_path = Some(ctx.paths.default_gguf());
    }
    if c.embedder.enabled {
        let opts = ctx.embed_options();
        c.embedder.model_dir = Some(absolute(opts.model_dir.clone()));
        if c.embedder.runtime_path.is_none() {
            c.embedder.runtime_path =
                crate::embed::runtime::candidates(&opts).into_iter().find(|p| p.is_file()).map(absolute);
        }
    }
    c
}

/// A path made absolute against the current folder (cron runs elsewhere).
pub fn absolute(p: PathBuf) -> PathBuf {
    if p.is_absolute() {
        return p;
    }
    std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
}
