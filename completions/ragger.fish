# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ragger_global_optspecs
    string join \n config= db= q/quiet v/verbose json color= h/help V/version
end

function __fish_ragger_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ragger_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ragger_using_subcommand
    set -l cmd (__fish_ragger_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ragger -n "__fish_ragger_needs_command" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_needs_command" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_needs_command" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_needs_command" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_needs_command" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_needs_command" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ragger -n "__fish_ragger_needs_command" -s V -l version -d 'Print version'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "init" -d 'Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "capture" -d 'Store one conversation turn (or JSON Lines from stdin)'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "summarize" -d 'Summarise pending turns: L2, then L3, then L4'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "housekeeping" -d 'Cron entry point: recover orphans, summarise, close idle sessions'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "status" -d 'Counts of sessions, turns and pending work'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "failed" -d 'List failed items (turn summaries the memory model could not write) with their reasons'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "retry" -d 'Set failed items back to pending, for the next summarize pass'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "sessions" -d 'List sessions'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "show" -d 'Show one session: its turns and summaries'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "projects" -d 'List projects with their project summaries (L4), or merge two'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "search" -d 'Search summaries by meaning and keywords'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "embed" -d 'Print embeddings of texts as JSON Lines'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "reembed" -d 'Recompute vectors made by another embedding model'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "import" -d 'Import agents\' transcript files (Claude Code, Codex) or JSON Lines'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "hook" -d 'Agent hook entry points: capture each turn, give memory back'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "context" -d 'Print the memory block for the start of a session'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "mcp" -d 'Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "check" -d 'Verify the database invariants; exit 1 naming any violation'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "forget" -d 'Remove turns and everything derived from them, leaving no trace in the file'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "redact" -d 'Apply the current redaction rules to turns and summaries already stored'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "export" -d 'Write turns and summaries out as Markdown or JSON Lines'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "doctor" -d 'Check the database, models and runtime'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "config" -d 'Print or inspect the configuration'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "completions" -d 'Print shell completions to stdout'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "man" -d 'Write man pages (one per subcommand) into a folder'
complete -c ragger -n "__fish_ragger_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand init" -l agent -d 'Wire this agent: its hooks and MCP server, in its own settings files' -r -f -a "claude-code\t'Claude Code: SessionStart, Stop and SessionEnd hooks in ~/.claude/settings.json, the MCP server at user scope in ~/.claude.json'
codex\t'Codex CLI: `notify` and `mcp_servers` in ~/.codex/config.toml, and the SessionStart and Stop hooks in ~/.codex/hooks.json when the installed Codex has hooks (0.114.0 and later; `codex --version`)'"
complete -c ragger -n "__fish_ragger_using_subcommand init" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand init" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand init" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand init" -l cron -d 'Add the housekeeping line to your crontab (with `crontab`)'
complete -c ragger -n "__fish_ragger_using_subcommand init" -l systemd -d 'Write and enable a systemd user timer (with `systemctl --user`)'
complete -c ragger -n "__fish_ragger_using_subcommand init" -l dry-run -d 'Print what would be done and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand init" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand init" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand init" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l session -d 'Session id (any string your tool uses)' -r
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l project -d 'Project the session belongs to: a name, or a folder (`/…`, `~/…`, `./…`) whose repository root is the project' -r
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l user -d 'The user\'s message (may begin with `-`)' -r
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l assistant -d 'The assistant\'s reply (may begin with `-`)' -r
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l user-file -d 'Read the user\'s message from a file (`-`: stdin), for texts too large for the command line' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l assistant-file -d 'Read the assistant\'s reply from a file (`-`: stdin)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l at -d 'Event time, RFC 3339 [default: now]; for backfilling old conversations' -r
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l id -d 'Idempotency key: the same key in the same session is stored once' -r
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l stdin -d 'Read JSON Lines from stdin: {"session","project","user","assistant","at","id"}'
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l summarize -d 'Summarise the session right away (loads the memory model)'
complete -c ragger -n "__fish_ragger_using_subcommand capture" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand capture" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand capture" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand capture" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l limit -d 'Process at most N items' -r
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l session -d 'Only this session' -r
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l max-seconds -d 'Stop taking new work after S seconds' -r
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l interval -d 'Worker loop: seconds between passes (SIGUSR1 wakes it early)' -r
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l once -d 'Run one pass and exit (housekeeping, what cron runs, includes one)'
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l dry-run -d 'Print what would be done and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand summarize" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l max-seconds -d 'Stop taking new summarize work after S seconds (sessions are still closed)' -r
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l no-summarize -d 'Skip the summarize pass'
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l dry-run -d 'List what would happen and write nothing'
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand housekeeping" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand status" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand status" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand status" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand status" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand status" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand status" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand status" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand failed" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand failed" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand failed" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand failed" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand failed" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand failed" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand failed" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand retry" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand retry" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand retry" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand retry" -l all -d 'Every failed item'
complete -c ragger -n "__fish_ragger_using_subcommand retry" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand retry" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand retry" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand retry" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l project -d 'Only sessions of this project (a name as `ragger projects` lists it, or a folder)' -r
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -s n -l limit -d 'At most N sessions, the most recent first' -r
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l since -d 'Only sessions with a turn since TIME: a date (2026-03-01), an RFC 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)' -r
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l open -d 'Only open sessions (not yet closed by housekeeping)'
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand sessions" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand show" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand show" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand show" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand show" -l full -d 'Show each turn\'s texts whole, not cut to one line'
complete -c ragger -n "__fish_ragger_using_subcommand show" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand show" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand show" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand show" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -f -a "merge" -d 'Move one project\'s stored memory into another, for good'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -l dry-run -d 'Print what would move and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Move one project\'s stored memory into another, for good'
complete -c ragger -n "__fish_ragger_using_subcommand projects; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand search" -s n -l limit -d 'Number of results' -r
complete -c ragger -n "__fish_ragger_using_subcommand search" -l level -d 'Only this level: 2 turn summaries (searched only when asked for), 3 session segments (and the turns they hold), 4 project summaries' -r
complete -c ragger -n "__fish_ragger_using_subcommand search" -l session -d 'Only this session' -r
complete -c ragger -n "__fish_ragger_using_subcommand search" -l project -d 'Only this project (a name as `ragger projects` lists it, or a folder)' -r
complete -c ragger -n "__fish_ragger_using_subcommand search" -l since -d 'Only summaries updated since TIME: a date (2026-03-01), an RFC 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)' -r
complete -c ragger -n "__fish_ragger_using_subcommand search" -l min-score -d 'Hide hits scoring below this [default: [search] min_score, 0.3]; 0 shows every candidate' -r
complete -c ragger -n "__fish_ragger_using_subcommand search" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand search" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand search" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand search" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand search" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand search" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand search" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand embed" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand embed" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand embed" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand embed" -l stdin -d 'Read texts from stdin, one per line'
complete -c ragger -n "__fish_ragger_using_subcommand embed" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand embed" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand embed" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand embed" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -l dry-run -d 'Print how many vectors are stale and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand reembed" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand import" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand import" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand import" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand import" -l dry-run -d 'Count what would be stored and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand import" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand import" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand import" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -f -a "claude-code" -d 'Claude Code command hook: reads the hook\'s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session\'s transcript (only what is new); SessionStart prints the memory block as additional context'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -f -a "codex" -d 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session\'s rollout file (only what is new) and SessionStart prints the memory block as additional context'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -l then -d 'Then run this program with its arguments and the same JSON appended (the user\'s own notify program: Codex takes one). Comes last; the JSON Codex appends ends it' -r
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from codex" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "claude-code" -d 'Claude Code command hook: reads the hook\'s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session\'s transcript (only what is new); SessionStart prints the memory block as additional context'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "codex" -d 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session\'s rollout file (only what is new) and SessionStart prints the memory block as additional context'
complete -c ragger -n "__fish_ragger_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand context" -l project -d 'Project: a name as `ragger projects` lists it, or a folder [default: the project of --cwd or of the current folder]' -r
complete -c ragger -n "__fish_ragger_using_subcommand context" -l cwd -d 'Working folder: its repository\'s project (a sub-folder finds its repository)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand context" -l limit-tokens -d 'Budget of the block in tokens (about four characters a token)' -r
complete -c ragger -n "__fish_ragger_using_subcommand context" -l query -d 'What the session is about: earlier segments matching it are listed [default: the key terms of the project summary and recent segments]' -r
complete -c ragger -n "__fish_ragger_using_subcommand context" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand context" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand context" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand context" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand context" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand context" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand context" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand check" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand check" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand check" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand check" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand check" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand check" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand check" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l session -d 'Turns of this session' -r
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l project -d 'Turns of this project (a name as `ragger projects` lists it, or a folder)' -r
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l turn -d 'One turn, by the id `ragger show --json` prints' -r
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l before -d 'Turns whose event time is before DATE (RFC 3339 or YYYY-MM-DD, UTC)' -r
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l match -d 'Turns whose text or turn summary contains TEXT (case-insensitive)' -r
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l dry-run -d 'List the turns that would be removed and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand forget" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand forget" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand forget" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand forget" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand redact" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand redact" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand redact" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand redact" -l dry-run -d 'Count what would change and change nothing'
complete -c ragger -n "__fish_ragger_using_subcommand redact" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand redact" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand redact" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand redact" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand export" -l format -d 'Output format' -r -f -a "markdown\t'For people: per project its summary, then each session\'s segments'
jsonl\t'One turn per line, readable back by `ragger capture --stdin`'"
complete -c ragger -n "__fish_ragger_using_subcommand export" -l session -d 'Only this session' -r
complete -c ragger -n "__fish_ragger_using_subcommand export" -l project -d 'Only this project (a name as `ragger projects` lists it, or a folder)' -r
complete -c ragger -n "__fish_ragger_using_subcommand export" -l since -d 'Only turns at or after DATE (RFC 3339 or YYYY-MM-DD, UTC)' -r
complete -c ragger -n "__fish_ragger_using_subcommand export" -s o -l output -d 'Write to FILE (created 0600) instead of stdout' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand export" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand export" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand export" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand export" -l turns -d 'Markdown: include the turns under each session'
complete -c ragger -n "__fish_ragger_using_subcommand export" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand export" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand export" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -f -a "default" -d 'Print a commented example config with the defaults'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -f -a "show" -d 'Print the merged configuration'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -f -a "path" -d 'Print the config files consulted, in order'
complete -c ragger -n "__fish_ragger_using_subcommand config; and not __fish_seen_subcommand_from default show path help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from default" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "default" -d 'Print a commented example config with the defaults'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the merged configuration'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the config files consulted, in order'
complete -c ragger -n "__fish_ragger_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand completions" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand completions" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand completions" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand completions" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand completions" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand completions" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand completions" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand man" -l dir -d 'Output folder' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand man" -l config -d 'Config file (replaces the user config file)' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand man" -l db -d 'Database file [default: ragger.db in the data folder]' -r -F
complete -c ragger -n "__fish_ragger_using_subcommand man" -l color -d 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ragger -n "__fish_ragger_using_subcommand man" -s q -l quiet -d 'Print nothing but errors'
complete -c ragger -n "__fish_ragger_using_subcommand man" -s v -l verbose -d 'More output: -v a one-line summary, -vv details and model logs'
complete -c ragger -n "__fish_ragger_using_subcommand man" -l json -d 'Machine-readable JSON on stdout'
complete -c ragger -n "__fish_ragger_using_subcommand man" -s h -l help -d 'Print help'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "init" -d 'Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "capture" -d 'Store one conversation turn (or JSON Lines from stdin)'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "summarize" -d 'Summarise pending turns: L2, then L3, then L4'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "housekeeping" -d 'Cron entry point: recover orphans, summarise, close idle sessions'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "status" -d 'Counts of sessions, turns and pending work'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "failed" -d 'List failed items (turn summaries the memory model could not write) with their reasons'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "retry" -d 'Set failed items back to pending, for the next summarize pass'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "sessions" -d 'List sessions'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "show" -d 'Show one session: its turns and summaries'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "projects" -d 'List projects with their project summaries (L4), or merge two'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "search" -d 'Search summaries by meaning and keywords'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "embed" -d 'Print embeddings of texts as JSON Lines'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "reembed" -d 'Recompute vectors made by another embedding model'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "import" -d 'Import agents\' transcript files (Claude Code, Codex) or JSON Lines'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "hook" -d 'Agent hook entry points: capture each turn, give memory back'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "context" -d 'Print the memory block for the start of a session'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "mcp" -d 'Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "check" -d 'Verify the database invariants; exit 1 naming any violation'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "forget" -d 'Remove turns and everything derived from them, leaving no trace in the file'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "redact" -d 'Apply the current redaction rules to turns and summaries already stored'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "export" -d 'Write turns and summaries out as Markdown or JSON Lines'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "doctor" -d 'Check the database, models and runtime'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "config" -d 'Print or inspect the configuration'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "completions" -d 'Print shell completions to stdout'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "man" -d 'Write man pages (one per subcommand) into a folder'
complete -c ragger -n "__fish_ragger_using_subcommand help; and not __fish_seen_subcommand_from init capture summarize housekeeping status failed retry sessions show projects search embed reembed import hook context mcp check forget redact export doctor config completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ragger -n "__fish_ragger_using_subcommand help; and __fish_seen_subcommand_from projects" -f -a "merge" -d 'Move one project\'s stored memory into another, for good'
complete -c ragger -n "__fish_ragger_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "claude-code" -d 'Claude Code command hook: reads the hook\'s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session\'s transcript (only what is new); SessionStart prints the memory block as additional context'
complete -c ragger -n "__fish_ragger_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "codex" -d 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session\'s rollout file (only what is new) and SessionStart prints the memory block as additional context'
complete -c ragger -n "__fish_ragger_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "default" -d 'Print a commented example config with the defaults'
complete -c ragger -n "__fish_ragger_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the merged configuration'
complete -c ragger -n "__fish_ragger_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the config files consulted, in order'
