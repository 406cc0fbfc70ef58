//! One pass as an object: lock → run record → recover orphaned claims →
//! drain the queue in [`PRIORITY`](super::PRIORITY) order → embed what was
//! written → finish the run record. `summarize`, `housekeeping` and
//! `capture --summarize` only wire it to the command line.

mod outcome;
mod show;

use anyhow::Result;

pub use self::outcome::{failed_message, one_line, PassOutcome};
pub use super::options::deadline;
use super::{queue, run_pass, vectors, ModelSlot, PassOptions};
use crate::config::Config;
use crate::embed::EmbedOptions;
use crate::lock::{self, RunLock};
use crate::paths::Paths;
use crate::signals::Flags;
use crate::store::{runs, Store};

/// What a pass needs from the process that runs it: the config, where
/// models live, and how much it may say.
#[derive(Clone)]
pub struct PassEnv {
    pub config: Config,
    pub paths: Paths,
    pub embed: EmbedOptions,
    /// `-v` count (0 with `-q`).
    pub verbose: u8,
    pub quiet: bool,
    pub json: bool,
    /// A progress bar may be drawn (stderr is a terminal, not `-q`/`--json`).
    pub progress: bool,
}

impl PassEnv {
    /// The settings of a pass over one session or all (see
    /// [`PassOptions::from_config`]), owned by this process.
    pub fn options(&self, session: Option<String>) -> PassOptions {
        PassOptions::from_config(&self.config, crate::runs::owner(), session, self.verbose > 0)
    }

    /// A warning on stderr, unless `-q`.
    pub fn warn(&self, msg: &str) {
        if !self.quiet {
            eprintln!("ragger: {msg}");
        }
    }
}

/// One pass of a kind (`summarize`, `housekeeping`, `capture`: recorded in
/// the run record) with its settings.
pub struct Pass<'a> {
    pub env: &'a PassEnv,
    pub opts: PassOptions,
    pub kind: &'static str,
    pub flags: &'a Flags,
}

impl Pass<'_> {
    /// Take the run lock and run. `None`: another pass holds the lock (the
    /// command exits 75; with `-v` it says so).
    pub fn run(&self, store: &mut Store) -> Result<Option<PassOutcome>> {
        let Some(held) = lock::for_pass(&store.path, self.env.verbose > 0)? else { return Ok(None) };
        self.run_locked(store, &held, true).map(Some)
    }

    /// Run while the caller holds the run lock (`_held`): record the run,
    /// recover orphaned claims when `recover` (once per locked stretch is
    /// enough: no other pass can leave claims meanwhile), drain the queue,
    /// embed, finish the record.
    pub fn run_locked(&self, store: &mut Store, _held: &RunLock, recover: bool) -> Result<PassOutcome> {
        let env = self.env;
        let opts = &self.opts;
        let run_id = runs::start(store, self.kind, &opts.owner)?;
        let recovered = if recover { queue::recover_orphans(store)? } else { 0 };
        let (config, paths, verbose) = (env.config.clone(), env.paths.clone(), env.verbose);
        let mut slot = ModelSlot::new(move || crate::llm::factory::from_config(&config, &paths, verbose));
        if env.config.embedder.enabled && opts.segment.uses_signals() {
            let embed_opts = env.embed.clone();
            slot.vectors = vectors::TurnVectors::new(move || {
                crate::embed::Embedder::load(&embed_opts)
                    .map(|e| Box::new(e) as Box<dyn vectors::Embed>)
                    .map_err(|e| e.to_string())
            });
        }
        let sid = match &opts.session {
            Some(s) => queue::session_id(store, s)?,
            None => None,
        };
        let shown = show::Shown::new(env, store, sid)?;
        let (mut report, stop) =
            run_pass(store, &mut slot, opts, self.flags, &mut |_| shown.tick(), &mut |e| shown.item(e))?;
        let model_loads = slot.loads;
        drop(slot); // free the memory model before the embedder loads
        report.embedded = show::embed_pending(env, store, shown.bar());
        shown.finish();
        let outcome = PassOutcome { report, stop, recovered, model_loads };
        let counts = serde_json::to_string(&outcome.report)?;
        runs::finish(store, run_id, outcome.outcome_name(), &counts)?;
        Ok(outcome)
    }
}

/// `capture --summarize`: summarise one session now if no pass is running;
/// otherwise leave the turn to that pass. Never fails the capture.
pub fn summarize_session_now(env: &PassEnv, store: &mut Store, session: &str) {
    let held = match lock::try_lock(&store.path) {
        Ok(Some(l)) => l,
        Ok(None) => {
            if env.verbose > 0 {
                eprintln!("ragger: a pass is running; it will summarise session {session}");
            }
            return;
        }
        Err(e) => {
            env.warn(&format!("warning: could not summarise now: {e:#}"));
            return;
        }
    };
    let flags = Flags::none();
    let pass = Pass { env, opts: env.options(Some(session.to_string())), kind: "capture", flags: &flags };
    match pass.run_locked(store, &held, true) {
        Ok(o) => {
            if let Err(e) = o.exit() {
                env.warn(&format!("warning: the turn is stored but not summarised yet: {e:#}"));
            }
        }
        Err(e) => env.warn(&format!("warning: the turn is stored but not summarised yet: {e:#}")),
    }
}
