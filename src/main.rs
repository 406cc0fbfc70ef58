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
    match ragger::cmd::run(cli) {
        Ok(exit) => ExitCode::from(exit.code() as u8),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("ragger: {err:#}");
            ExitCode::from(ragger::exit::code_of(&err, ERROR_CLASSES).code() as u8)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
