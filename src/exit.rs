//! Exit codes (documented in `--help` and README) and the error that
//! carries one. Any other error exits 1.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Failed = 1,
    Usage = 2,
    /// A read-only command found no database (sysexits EX_NOINPUT).
    NoInput = 66,
    /// A model or runtime is unavailable; retry next tick.
    Unavailable = 69,
    /// Skipped: another run holds the lock.
    Locked = 75,
    /// Bad configuration (also a refused model request, a too-new database).
    Config = 78,
    Interrupted = 130,
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// An error that decides the exit code. Wrap with anyhow context freely:
/// `code_of` finds it anywhere in the chain.
#[derive(Debug)]
pub struct Coded {
    pub exit: Exit,
    pub message: String,
}

impl fmt::Display for Coded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Coded {}

pub fn fail(exit: Exit, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded { exit, message: message.into() })
}

/// The exit code for an error: the first `Coded` in its chain, a model error
/// class, else 1.
pub fn code_of(err: &anyhow::Error) -> Exit {
    for cause in err.chain() {
        if let Some(c) = cause.downcast_ref::<Coded>() {
            return c.exit;
        }
        if let Some(m) = cause.downcast_ref::<crate::llm::ModelError>() {
            return match m {
                crate::llm::ModelError::Unavailable(_) => Exit::Unavailable,
                crate::llm::ModelError::Interrupted => Exit::Interrupted,
                crate::llm::ModelError::Refused(_) => Exit::Config,
                crate::llm::ModelError::BadReply(_) => Exit::Failed,
            };
        }
        if let Some(e) = cause.downcast_ref::<crate::embed::EmbedError>() {
            return match e {
                crate::embed::EmbedError::Unavailable(_) => Exit::Unavailable,
                crate::embed::EmbedError::Failed(_) => Exit::Failed,
            };
        }
    }
    Exit::Failed
}

/// The text printed for `--help`'s exit-status section and the man page.
pub const EXIT_STATUS_HELP: &str = "Exit status:
  0    ok (also: nothing to do)
  1    failed (also: partial failure, e.g. some input lines rejected)
  2    usage error
  66   no database where one was expected (read-only commands never create one)
  69   a model or runtime is unavailable (retry next tick)
  75   skipped: another run holds the lock
  78   bad configuration (unknown key, refused model request, database too new)
  130  interrupted";
