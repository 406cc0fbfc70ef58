//! The configuration with every path resolved, for `doctor`, `config show`
//! and `init`, so a user (or cron, which lacks the shell's XDG variables)
//! sees and can pin the database and model files a command really uses.
//! Where the database path came from is `Ctx::db_origin`.

use std::path::PathBuf;

use crate::config::{Backend, Config};
use crate::ctx::Ctx;

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
