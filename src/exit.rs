//! Exit codes (documented in `--help`, README and docs/reference.md) and the error that
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

/// An error type that decides its own exit code. The memory model's and
/// the embedder's errors implement it where they are defined, so this
/// module knows none of them.
pub trait ExitStatus: std::error::Error + Send + Sync + 'static {
    fn exit(&self) -> Exit;
}

/// Finds one [`ExitStatus`] type in an error's chain (see [`class`]).
pub type Class = fn(&(dyn std::error::Error + 'static)) -> Option<Exit>;

/// The [`Class`] of the error type `E`: its exit code when a cause is an `E`.
pub fn class<E: ExitStatus>(cause: &(dyn std::error::Error + 'static)) -> Option<Exit> {
    cause.downcast_ref::<E>().map(ExitStatus::exit)
}

/// The exit code for an error: the first cause in its chain that is a
/// [`Coded`] or one of `classes`, else 1.
pub fn code_of(err: &anyhow::Error, classes: &[Class]) -> Exit {
    err.chain()
        .find_map(|cause| {
            cause.downcast_ref::<Coded>().map(|c| c.exit).or_else(|| classes.iter().find_map(|c| c(cause)))
        })
        .unwrap_or(Exit::Failed)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Down;

    impl fmt::Display for Down {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("down")
        }
    }

    impl std::error::Error for Down {}

    impl ExitStatus for Down {
        fn exit(&self) -> Exit {
            Exit::Unavailable
        }
    }

    #[test]
    fn the_first_coded_or_classified_cause_decides_the_exit_code() {
        let classes: &[Class] = &[class::<Down>];
        let deep = anyhow::Error::new(Down).context("summarizing s1").context("pass");
        assert_eq!(code_of(&deep, classes), Exit::Unavailable);
        assert_eq!(code_of(&deep, &[]), Exit::Failed, "an unlisted class is a plain failure");
        let coded = fail(Exit::Config, "bad key").context("reading config");
        assert_eq!(code_of(&coded, classes), Exit::Config);
        assert_eq!(code_of(&anyhow::anyhow!("plain"), classes), Exit::Failed);
    }
}
