//! `ragger man --dir DIR` (hidden): one man page per subcommand, from the
//! clap definitions, with EXIT STATUS, ENVIRONMENT and FILES sections.

use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::exit::Exit;

pub fn run(args: &ManArgs) -> Result<Exit> {
    write_all(&args.dir)?;
    Ok(Exit::Ok)
}

const ENVIRONMENT: &[(&str, &str)] = &[
    ("RAGGER_CONFIG", "Config file to use instead of the user config file."),
    ("RAGGER_DB", "Database file."),
    ("RAGGER_LOG", "Diagnostics level: error, warn, info or debug (like -v)."),
    ("RAGGER_<SECTION>__<KEY>", "Any config key, e.g. RAGGER_MEMORY_MODEL__BACKEND=openai."),
    ("ORT_DYLIB_PATH", "ONNX Runtime shared library for the embedder."),
    ("XDG_DATA_HOME, XDG_CONFIG_HOME, XDG_STATE_HOME", "Base folders for data, config and state."),
];

const FILES: &[(&str, &str)] = &[
    ("/etc/ragger/config.toml", "System configuration."),
    ("~/.config/ragger/config.toml", "User configuration."),
    ("~/.local/share/ragger/ragger.db", "The database (SQLite, WAL)."),
    ("~/.local/share/ragger/models/", "Memory model (GGUF) and embedder (ONNX) files."),
    ("~/.local/share/ragger/lib/", "ONNX Runtime shared library."),
    ("~/.local/state/ragger/", "Run locks."),
];

pub fn write_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let cmd = Cli::command();
    write_page(dir, &cmd, "ragger")?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name: &'static str = Box::leak(format!("ragger-{}", sub.get_name()).into_boxed_str());
        let sub = sub.clone().name(name);
        write_page(dir, &sub, name)?;
    }
    Ok(())
}

fn write_page(dir: &Path, cmd: &clap::Command, name: &str) -> Result<()> {
    let man = clap_mangen::Man::new(cmd.clone()).title(name.to_uppercase()).source("ragger");
    let mut buf = Vec::new();
    man.render_title(&mut buf)?;
    man.render_name_section(&mut buf)?;
    man.render_synopsis_section(&mut buf)?;
    man.render_description_section(&mut buf)?;
    man.render_options_section(&mut buf)?;
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut buf)?;
    }
    let mut roff = clap_mangen::roff::Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for line in crate::exit::EXIT_STATUS_HELP.lines().skip(1) {
        let line = line.trim();
        let (code, what) = line.split_once(' ').unwrap_or((line, ""));
        roff.control("TP", []);
        roff.text([clap_mangen::roff::bold(code)]);
        roff.text([clap_mangen::roff::roman(what.trim())]);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    for (k, v) in ENVIRONMENT {
        roff.control("TP", []);
        roff.text([clap_mangen::roff::bold(*k)]);
        roff.text([clap_mangen::roff::roman(*v)]);
    }
    roff.control("SH", ["FILES"]);
    for (k, v) in FILES {
        roff.control("TP", []);
        roff.text([clap_mangen::roff::italic(*k)]);
        roff.text([clap_mangen::roff::roman(*v)]);
    }
    roff.to_writer(&mut buf)?;
    man.render_version_section(&mut buf)?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, buf).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
