//! `ragger completions SHELL`: completions generated from the clap definitions.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::Exit;

pub fn run(args: &CompletionsArgs) -> Result<Exit> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "ragger", &mut std::io::stdout());
    Ok(Exit::Ok)
}
