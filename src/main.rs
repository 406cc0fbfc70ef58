use std::process::ExitCode;

use clap::Parser;
use ragger::embed::EmbedError;
use ragger::exit::{class, Class};
use ragger::llm::ModelError;

/// The domain errors that decide their own exit code (each implements
/// `exit::ExitStatus` beside its definition); any other error exits 1
/// unless it carries an `exit::Coded`.
const ERROR_CLASSES: &[Class] = &[class::<ModelError>, class::<EmbedError>];

fn main() -> ExitCode {
    ragger::signals::reset_sigpipe();
    let cli = match ragger::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { ragger::exit::Exit::Usage.code() } else { 0 };
            let _ = e.print();
            return ExitCode::from(code as u8);
        }
    };
    ragger::display::set_color(cli.global.color.wanted());
    let code = match ragger::cmd::run(cli) {
        Ok(exit) => exit.code() as u8,
        Err(err) if is_broken_pipe(&err) => 0,
        Err(err) => {
            ragger::display::eprint(&format!("{err:#}"));
            ragger::exit::code_of(&err, ERROR_CLASSES).code() as u8
        }
    };
    if ragger::llm::calls_running() > 0 {
        // A model call abandoned by a signal or `--max-seconds` still runs
        // on its thread: end now, without the exit-time destructors that
        // would tear down llama.cpp under it. The database, the run lock
        // and the output were closed and written when `run` returned.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: `_exit` ends the process at once; nothing after it runs.
        unsafe { libc::_exit(i32::from(code)) }
    }
    ExitCode::from(code)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
