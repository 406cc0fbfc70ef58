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

/// Printed on stderr at the first Ctrl-C of a pass.
const FIRST_INTERRUPT: &[u8] = b"\nragger: stopping after the current item; press Ctrl-C again to abort\n";

/// Whether the first Ctrl-C is acknowledged on stderr (not with `-q`).
static ANNOUNCE: AtomicBool = AtomicBool::new(true);

/// Say (or, for `--quiet`, do not say) what the first Ctrl-C does.
pub fn announce_interrupt(on: bool) {
    ANNOUNCE.store(on, Ordering::Relaxed);
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
        // Say at once what the first Ctrl-C does: the item in flight may
        // take a while (a model call). Actions run in registration order,
        // so a second Ctrl-C has already exited above and never gets here.
        // SAFETY: the action only calls write(2), which is async-signal-safe.
        unsafe {
            signal_hook::low_level::register(signal_hook::consts::SIGINT, || {
                if ANNOUNCE.load(Ordering::Relaxed) {
                    let _ = libc::write(libc::STDERR_FILENO, FIRST_INTERRUPT.as_ptr().cast(), FIRST_INTERRUPT.len());
                }
            })?;
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
