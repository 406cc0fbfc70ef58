//! The command line (clap derive). Doc comments here are the help text and
//! the man pages: write them for users.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "ragger",
    version,
    about = "Keeps the memory of LLM conversations: turns, session and project summaries, searchable by meaning",
    long_about = "ragger stores each conversation turn in one SQLite file, summarises turns (L2), \
sessions (L3) and projects (L4) with a local memory model, and embeds the summaries for search. \
There is no daemon: cron (or a systemd user timer) runs `ragger housekeeping` every 20 minutes, which \
includes a summarize pass; `ragger init` sets it up.",
    after_help = crate::exit::EXIT_STATUS_HELP
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone, Default)]
pub struct Global {
    /// Config file (replaces the user config file)
    #[arg(long, global = true, env = "RAGGER_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Database file [default: ragger.db in the data folder]
    #[arg(long, global = true, env = "RAGGER_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Print nothing but errors
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// More output: -v a one-line summary, -vv details and model logs
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Machine-readable JSON on stdout
    #[arg(long, global = true)]
    pub json: bool,
    /// When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether this process colours its human output on stdout.
    pub fn wanted(self) -> bool {
        use std::io::IsTerminal;
        let forced = match self {
            ColorChoice::Auto => None,
            ColorChoice::Always => Some(true),
            ColorChoice::Never => Some(false),
        };
        crate::display::color_wanted(forced, std::env::var_os("NO_COLOR").as_deref(), std::io::stdout().is_terminal())
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook
    Init(InitArgs),
    /// Store one conversation turn (or JSON Lines from stdin)
    Capture(CaptureArgs),
    /// Summarise pending turns: L2, then L3, then L4
    Summarize(SummarizeArgs),
    /// Cron entry point: recover orphans, summarise, close idle sessions
    Housekeeping(HousekeepingArgs),
    /// Counts of sessions, turns and pending work
    Status,
    /// List failed items (turn summaries the memory model could not write) with their reasons
    Failed,
    /// Set failed items back to pending, for the next summarize pass
    Retry(RetryArgs),
    /// List sessions
    Sessions(SessionsArgs),
    /// Show one session: its turns and summaries
    Show(ShowArgs),
    /// List projects with their project summaries (L4), or merge two
    Projects(ProjectsArgs),
    /// Search summaries by meaning and keywords
    Search(SearchArgs),
    /// Print embeddings of texts as JSON Lines
    Embed(EmbedArgs),
    /// Recompute vectors made by another embedding model
    Reembed(ReembedArgs),
    /// Import agents' transcript files (Claude Code, Codex) or JSON Lines
    Import(ImportArgs),
    /// Agent hook entry points: capture each turn, give memory back
    Hook(HookArgs),
    /// Print the memory block for the start of a session
    Context(ContextArgs),
    /// Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)
    Mcp,
    /// Verify the database invariants; exit 1 naming any violation
    Check,
    /// Remove turns and everything derived from them, leaving no trace in the file
    Forget(ForgetArgs),
    /// Apply the current redaction rules to turns and summaries already stored
    Redact(RedactArgs),
    /// Write turns and summaries out as Markdown or JSON Lines
    Export(ExportArgs),
    /// Check the database, models and runtime
    Doctor,
    /// Print or inspect the configuration
    Config(ConfigArgs),
    /// Print shell completions to stdout
    Completions(CompletionsArgs),
    /// Write man pages (one per subcommand) into a folder
    #[command(hide = true)]
    Man(ManArgs),
}

#[derive(Args, Debug, Default)]
pub struct CaptureArgs {
    /// Session id (any string your tool uses)
    #[arg(long, required_unless_present = "stdin")]
    pub session: Option<String>,
    /// Project the session belongs to: a name, or a folder (`/…`, `~/…`, `./…`) whose
    /// repository root is the project
    #[arg(long, value_name = "NAME|DIR")]
    pub project: Option<String>,
    /// The user's message (may begin with `-`)
    #[arg(long, allow_hyphen_values = true, conflicts_with = "user_file")]
    pub user: Option<String>,
    /// The assistant's reply (may begin with `-`)
    #[arg(long, allow_hyphen_values = true, conflicts_with = "assistant_file")]
    pub assistant: Option<String>,
    /// Read the user's message from a file (`-`: stdin), for texts too large for the command line
    #[arg(long, value_name = "FILE")]
    pub user_file: Option<std::path::PathBuf>,
    /// Read the assistant's reply from a file (`-`: stdin)
    #[arg(long, value_name = "FILE")]
    pub assistant_file: Option<std::path::PathBuf>,
    /// Event time, RFC 3339 [default: now]; for backfilling old conversations
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    /// Idempotency key: the same key in the same session is stored once
    #[arg(long = "id", value_name = "KEY")]
    pub id: Option<String>,
    /// Read JSON Lines from stdin: {"session","project","user","assistant","at","id"}
    #[arg(long, conflicts_with_all = ["session", "project", "user", "assistant", "user_file", "assistant_file", "at", "id"])]
    pub stdin: bool,
    /// Summarise the session right away (loads the memory model)
    #[arg(long)]
    pub summarize: bool,
}

#[derive(Args, Debug, Default)]
#[command(after_help = "Writes the user config (or --config FILE) with the database, model and runtime \
paths resolved now, so cron and agents, which lack your shell's XDG variables, use the same files; creates \
the database; prints the housekeeping schedule (every 20 minutes: `ragger housekeeping`), or installs it with \
--cron or --systemd; with --agent, merges ragger's hooks and MCP server into that agent's own settings files \
(Claude Code: ~/.claude/settings.json and ~/.claude.json; Codex: ~/.codex/config.toml), keeping every other \
entry and a timestamped backup of each file it changes (--dry-run prints the diff). Running it again changes \
nothing and says so; a value the config file already sets differently is kept and named (KEPT), never overwritten.")]
pub struct InitArgs {
    /// Wire this agent: its hooks and MCP server, in its own settings files
    #[arg(long, value_enum, value_name = "AGENT")]
    pub agent: Option<InitAgent>,
    /// Add the housekeeping line to your crontab (with `crontab`)
    #[arg(long, conflicts_with = "systemd")]
    pub cron: bool,
    /// Write and enable a systemd user timer (with `systemctl --user`)
    #[arg(long)]
    pub systemd: bool,
    /// Print what would be done and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitAgent {
    /// Claude Code: SessionStart, Stop and SessionEnd hooks in ~/.claude/settings.json,
    /// the MCP server at user scope in ~/.claude.json
    ClaudeCode,
    /// Codex CLI: `notify` and `mcp_servers` in ~/.codex/config.toml, and the
    /// SessionStart and Stop hooks in ~/.codex/hooks.json when the installed
    /// Codex has hooks (0.114.0 and later; `codex --version`)
    Codex,
}

#[derive(Args, Debug, Default, Clone)]
pub struct SummarizeArgs {
    /// Run one pass and exit (housekeeping, what cron runs, includes one)
    #[arg(long)]
    pub once: bool,
    /// Process at most N items
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Only this session
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Stop taking new work after S seconds
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub max_seconds: Option<f64>,
    /// Print what would be done and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Worker loop: seconds between passes (SIGUSR1 wakes it early)
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = seconds)]
    pub interval: f64,
}

#[derive(Args, Debug, Default)]
pub struct HousekeepingArgs {
    /// Skip the summarize pass
    #[arg(long)]
    pub no_summarize: bool,
    /// Stop taking new summarize work after S seconds (sessions are still closed)
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub max_seconds: Option<f64>,
    /// List what would happen and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// A turn whose summary failed is passed over by the session's fold; to
/// fold it in its place, the session's summaries from there on are removed
/// and folded again by the next pass.
#[derive(Args, Debug, Default)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["all", "ids"])))]
pub struct RetryArgs {
    /// Every failed item
    #[arg(long)]
    pub all: bool,
    /// Turn ids, as `ragger failed` lists them
    #[arg(value_name = "ID")]
    pub ids: Vec<i64>,
}

#[derive(Args, Debug, Default)]
pub struct SessionsArgs {
    /// Only sessions of this project (a name as `ragger projects` lists it, or a folder)
    #[arg(long)]
    pub project: Option<String>,
    /// At most N sessions, the most recent first
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<usize>,
    /// Only open sessions (not yet closed by housekeeping)
    #[arg(long)]
    pub open: bool,
    /// Only sessions with a turn since TIME: a date (2026-03-01), an RFC
    /// 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Session id
    pub session: String,
    /// Show each turn's texts whole, not cut to one line
    #[arg(long)]
    pub full: bool,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// What to look for
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Number of results
    #[arg(long, short = 'n', default_value_t = 10)]
    pub limit: usize,
    /// Only this level: 2 turn summaries (searched only when asked for), 3
    /// session segments (and the turns they hold), 4 project summaries
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=4))]
    pub level: Option<u8>,
    /// Only this session
    #[arg(long)]
    pub session: Option<String>,
    /// Only this project (a name as `ragger projects` lists it, or a folder)
    #[arg(long)]
    pub project: Option<String>,
    /// Only summaries updated since TIME: a date (2026-03-01), an RFC 3339
    /// time, today, yesterday, or an age (3d, 12h, 90m, 2w)
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Hide hits scoring below this [default: [search] min_score, 0.3]; 0 shows every candidate
    #[arg(long, value_name = "SCORE", value_parser = score)]
    pub min_score: Option<f64>,
}

#[derive(Args, Debug)]
pub struct EmbedArgs {
    /// Texts to embed
    pub text: Vec<String>,
    /// Read texts from stdin, one per line
    #[arg(long)]
    pub stdin: bool,
}

#[derive(Args, Debug)]
pub struct ReembedArgs {
    /// Print how many vectors are stale and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Summaries built from a forgotten turn are removed, and the turns that
/// remain are folded again by the next summarize pass, so no summary keeps
/// text of a forgotten turn. The filters combine: every one given must hold.
#[derive(Args, Debug, Default)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true)
    .args(["session", "project", "turn", "before", "matching"])))]
pub struct ForgetArgs {
    /// Turns of this session
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Turns of this project (a name as `ragger projects` lists it, or a folder)
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// One turn, by the id `ragger show --json` prints
    #[arg(long, value_name = "ID")]
    pub turn: Option<i64>,
    /// Turns whose event time is before DATE (RFC 3339 or YYYY-MM-DD, UTC)
    #[arg(long, value_name = "DATE")]
    pub before: Option<String>,
    /// Turns whose text or turn summary contains TEXT (case-insensitive)
    #[arg(long = "match", value_name = "TEXT")]
    pub matching: Option<String>,
    /// List the turns that would be removed and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Changed turns lose their turn summary and vectors (the next summarize
/// pass writes them again from the redacted text); changed summaries are
/// re-embedded.
#[derive(Args, Debug, Default)]
pub struct RedactArgs {
    /// Count what would change and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExportFormat {
    /// For people: per project its summary, then each session's segments
    #[default]
    Markdown,
    /// One turn per line, readable back by `ragger capture --stdin`
    Jsonl,
}

#[derive(Args, Debug, Default)]
pub struct ExportArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
    pub format: ExportFormat,
    /// Only this session
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only this project (a name as `ragger projects` lists it, or a folder)
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Only turns at or after DATE (RFC 3339 or YYYY-MM-DD, UTC)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Markdown: include the turns under each session
    #[arg(long)]
    pub turns: bool,
    /// Write to FILE (created 0600) instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub action: ConfigAction,
}

#[derive(Subcommand, Debug)]
pub enum ConfigAction {
    /// Print a commented example config with the defaults
    Default,
    /// Print the merged configuration
    Show,
    /// Print the config files consulted, in order
    Path,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ProjectsArgs {
    #[command(subcommand)]
    pub action: Option<ProjectsAction>,
}

#[derive(Subcommand, Debug)]
pub enum ProjectsAction {
    /// Move one project's stored memory into another, for good
    #[command(after_help = "FROM's sessions, their turns and segments become INTO's, and INTO's project \
summary is folded again from all of its segments by the next summarize pass. FROM's folder and name stay \
known: a turn captured there later is stored in INTO, and `--project FROM` reads INTO. Running the same \
merge again changes nothing. To have new turns of two folders go to one project from the start, give both \
folders one name in `[import] projects`.")]
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The project to merge: its name as `ragger projects` lists it, or its folder
    pub from: String,
    /// The project that keeps the memory: a name or a folder
    pub into: String,
    /// Print what would move and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// Shell
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
#[command(after_help = "Importing a file again stores only its new turns: each turn's key comes from the \
transcript's own ids, and ragger remembers how far each file was read. A folder is searched for *.jsonl files.")]
pub struct ImportArgs {
    /// Transcript format
    #[arg(value_enum)]
    pub format: crate::import::Format,
    /// Transcript files or folders
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Count what would be stored and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "A hook never blocks the agent: on any error it prints one line on stderr and exits 1, \
which Claude Code shows as a non-blocking hook error (exit 2 would block); the failure is recorded, and \
`ragger status` and `ragger doctor` show the last one.")]
pub struct HookArgs {
    #[command(subcommand)]
    pub agent: HookAgent,
}

#[derive(Subcommand, Debug)]
pub enum HookAgent {
    /// Claude Code command hook: reads the hook's JSON on stdin. Stop,
    /// SubagentStop, PreCompact and SessionEnd import the session's transcript
    /// (only what is new); SessionStart prints the memory block as additional
    /// context.
    ClaudeCode,
    /// Codex `notify` program: stores the finished turn from the JSON argument
    /// (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on
    /// stdin), Stop imports the session's rollout file (only what is new) and
    /// SessionStart prints the memory block as additional context.
    Codex {
        /// Then run this program with its arguments and the same JSON
        /// appended (the user's own notify program: Codex takes one). Comes
        /// last; the JSON Codex appends ends it.
        #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "PROGRAM")]
        then: Vec<String>,
        /// The notification JSON (read from stdin when absent)
        #[arg(value_name = "JSON")]
        payload: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct ContextArgs {
    /// Project: a name as `ragger projects` lists it, or a folder
    /// [default: the project of --cwd or of the current folder]
    #[arg(long, conflicts_with = "cwd")]
    pub project: Option<String>,
    /// Working folder: its repository's project (a sub-folder finds its repository)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Budget of the block in tokens (about four characters a token)
    #[arg(long, value_name = "N", default_value_t = 1500)]
    pub limit_tokens: usize,
    /// What the session is about: earlier segments matching it are listed
    /// [default: the key terms of the project summary and recent segments]
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Output folder
    #[arg(long)]
    pub dir: PathBuf,
}

/// A score from 0 to 1.
fn score(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("expected a score from 0 to 1".into()),
    }
}

/// The longest duration a flag takes: about 31 years.
const MAX_SECONDS: f64 = 1e9;

/// A duration in seconds: a finite number from 0 to [`MAX_SECONDS`]
/// (anything else would not fit a timer).
fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=MAX_SECONDS).contains(&v) => Ok(v),
        _ => Err(format!("expected a number of seconds from 0 to {MAX_SECONDS:.0}")),
    }
}
