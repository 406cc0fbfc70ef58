//! `ragger man --dir DIR` (hidden): one man page per subcommand, from the
//! clap definitions, with EXAMPLES and formats (`man_text`), EXIT STATUS,
//! ENVIRONMENT and FILES sections.

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

/// Pages are deterministic (no date), so the committed copies under
/// `man/man1/` only change when the CLI does.
pub fn write_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // Building first propagates the global flags into every subcommand and
    // names each one: display name "ragger-config-show" (the page), bin name
    // "ragger config show" (the synopsis).
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    write_tree(dir, &cmd)
}

/// One page for `cmd` and one for each visible subcommand, recursively, so
/// every `ragger-…(1)` a SUBCOMMANDS section names exists.
fn write_tree(dir: &Path, cmd: &clap::Command) -> Result<()> {
    write_page(dir, cmd)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        write_tree(dir, sub)?;
    }
    Ok(())
}

fn write_page(dir: &Path, cmd: &clap::Command) -> Result<()> {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name()).to_string();
    // Subcommands carry no version of their own; the VERSION section needs one.
    let cmd = cmd.clone().version(env!("CARGO_PKG_VERSION"));
    let man = clap_mangen::Man::new(cmd.clone());
    // Written by hand: clap_mangen leaves an empty date unquoted, which
    // shifts source and manual into the wrong .TH fields. The date stays
    // empty so the output only changes when the CLI does.
    let mut buf =
        format!(".TH {} 1 \"\" \"ragger {}\" \"ragger manual\"\n", name.to_uppercase(), env!("CARGO_PKG_VERSION"))
            .into_bytes();
    man.render_name_section(&mut buf)?;
    man.render_synopsis_section(&mut buf)?;
    man.render_description_section(&mut buf)?;
    man.render_options_section(&mut buf)?;
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut buf)?;
    }
    let mut roff = clap_mangen::roff::Roff::new();
    for (title, body) in super::man_text::sections(&name) {
        roff.control("SH", [*title]);
        super::man_text::render(&mut roff, body);
    }
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
