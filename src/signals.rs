//! Signals: SIGPIPE default (a closed pipe ends us quietly, as ripgrep),
//! and SIGINT/SIGTERM/SIGUSR1 flags for the worker loop and long passes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Restore the default SIGPIPE action so `ragger sessions | head` exits quietly.
pub fn reset_sigpipe() {
    // SAFETY: setting a signal disposition to its default at start-up,
    // before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Flags set by signal handlers.
#[derive(Clone)]
pub struct Flags {
    pub stop: Arc<AtomicBool>,
    pub wake: Arc<AtomicBool>,
}

impl Flags {
    pub fn install() -> std::io::Result<Flags> {
        let stop = Arc::new(AtomicBool::new(false));
        let wake = Arc::new(AtomicBool::new(false));
        // A second SIGINT/SIGTERM while a model call is still running ends
        // the process at once (exit 130); the first asks for a clean stop
        // between items.
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))?;
            signal_hook::flag::register(sig, Arc::clone(&stop))?;
        }
        signal_hook::flag::register(signal_hook::consts::SIGUSR1, Arc::clone(&wake))?;
        Ok(Flags { stop, wake })
    }
    pub fn none() -> Flags {
        Flags { stop: Arc::new(AtomicBool::new(false)), wake: Arc::new(AtomicBool::new(false)) }
    }
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}
