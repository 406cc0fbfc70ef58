
use builtin;
use str;

set edit:completion:arg-completer[ragger] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'ragger'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'ragger'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook'
            cand capture 'Store one conversation turn (or JSON Lines from stdin)'
            cand summarize 'Summarise pending turns: L2, then L3, then L4'
            cand housekeeping 'Cron entry point: recover orphans, summarise, close idle sessions'
            cand status 'Counts of sessions, turns and pending work'
            cand failed 'List failed items (turn summaries the memory model could not write) with their reasons'
            cand retry 'Set failed items back to pending, for the next summarize pass'
            cand sessions 'List sessions'
            cand show 'Show one session: its turns and summaries'
            cand projects 'List projects with their project summaries (L4), or merge two'
            cand search 'Search summaries by meaning and keywords'
            cand embed 'Print embeddings of texts as JSON Lines'
            cand reembed 'Recompute vectors made by another embedding model'
            cand import 'Import agents'' transcript files (Claude Code, Codex) or JSON Lines'
            cand hook 'Agent hook entry points: capture each turn, give memory back'
            cand context 'Print the memory block for the start of a session'
            cand mcp 'Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)'
            cand check 'Verify the database invariants; exit 1 naming any violation'
            cand forget 'Remove turns and everything derived from them, leaving no trace in the file'
            cand redact 'Apply the current redaction rules to turns and summaries already stored'
            cand export 'Write turns and summaries out as Markdown or JSON Lines'
            cand doctor 'Check the database, models and runtime'
            cand config 'Print or inspect the configuration'
            cand completions 'Print shell completions to stdout'
            cand man 'Write man pages (one per subcommand) into a folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;init'= {
            cand --agent 'Wire this agent: its hooks and MCP server, in its own settings files'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --cron 'Add the housekeeping line to your crontab (with `crontab`)'
            cand --systemd 'Write and enable a systemd user timer (with `systemctl --user`)'
            cand --dry-run 'Print what would be done and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ragger;capture'= {
            cand --session 'Session id (any string your tool uses)'
            cand --project 'Project the session belongs to: a name, or a folder (`/…`, `~/…`, `./…`) whose repository root is the project'
            cand --user 'The user''s message (may begin with `-`)'
            cand --assistant 'The assistant''s reply (may begin with `-`)'
            cand --user-file 'Read the user''s message from a file (`-`: stdin), for texts too large for the command line'
            cand --assistant-file 'Read the assistant''s reply from a file (`-`: stdin)'
            cand --at 'Event time, RFC 3339 [default: now]; for backfilling old conversations'
            cand --id 'Idempotency key: the same key in the same session is stored once'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --stdin 'Read JSON Lines from stdin: {"session","project","user","assistant","at","id"}'
            cand --summarize 'Summarise the session right away (loads the memory model)'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;summarize'= {
            cand --limit 'Process at most N items'
            cand --session 'Only this session'
            cand --max-seconds 'Stop taking new work after S seconds'
            cand --interval 'Worker loop: seconds between passes (SIGUSR1 wakes it early)'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --once 'Run one pass and exit (housekeeping, what cron runs, includes one)'
            cand --dry-run 'Print what would be done and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;housekeeping'= {
            cand --max-seconds 'Stop taking new summarize work after S seconds (sessions are still closed)'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --no-summarize 'Skip the summarize pass'
            cand --dry-run 'List what would happen and write nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;status'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;failed'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;retry'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --all 'Every failed item'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;sessions'= {
            cand --project 'Only sessions of this project (a name as `ragger projects` lists it, or a folder)'
            cand -n 'At most N sessions, the most recent first'
            cand --limit 'At most N sessions, the most recent first'
            cand --since 'Only sessions with a turn since TIME: a date (2026-03-01), an RFC 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --open 'Only open sessions (not yet closed by housekeeping)'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;show'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --full 'Show each turn''s texts whole, not cut to one line'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;projects'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
            cand merge 'Move one project''s stored memory into another, for good'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;projects;merge'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --dry-run 'Print what would move and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;projects;help'= {
            cand merge 'Move one project''s stored memory into another, for good'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;projects;help;merge'= {
        }
        &'ragger;projects;help;help'= {
        }
        &'ragger;search'= {
            cand -n 'Number of results'
            cand --limit 'Number of results'
            cand --level 'Only this level: 2 turn summaries (searched only when asked for), 3 session segments (and the turns they hold), 4 project summaries'
            cand --session 'Only this session'
            cand --project 'Only this project (a name as `ragger projects` lists it, or a folder)'
            cand --since 'Only summaries updated since TIME: a date (2026-03-01), an RFC 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)'
            cand --min-score 'Hide hits scoring below this [default: [search] min_score, 0.3]; 0 shows every candidate'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;embed'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --stdin 'Read texts from stdin, one per line'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;reembed'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --dry-run 'Print how many vectors are stale and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;import'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --dry-run 'Count what would be stored and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ragger;hook'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
            cand claude-code 'Claude Code command hook: reads the hook''s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session''s transcript (only what is new); SessionStart prints the memory block as additional context'
            cand codex 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session''s rollout file (only what is new) and SessionStart prints the memory block as additional context'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;hook;claude-code'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;hook;codex'= {
            cand --then 'Then run this program with its arguments and the same JSON appended (the user''s own notify program: Codex takes one). Comes last; the JSON Codex appends ends it'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;hook;help'= {
            cand claude-code 'Claude Code command hook: reads the hook''s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session''s transcript (only what is new); SessionStart prints the memory block as additional context'
            cand codex 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session''s rollout file (only what is new) and SessionStart prints the memory block as additional context'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;hook;help;claude-code'= {
        }
        &'ragger;hook;help;codex'= {
        }
        &'ragger;hook;help;help'= {
        }
        &'ragger;context'= {
            cand --project 'Project: a name as `ragger projects` lists it, or a folder [default: the project of --cwd or of the current folder]'
            cand --cwd 'Working folder: its repository''s project (a sub-folder finds its repository)'
            cand --limit-tokens 'Budget of the block in tokens (about four characters a token)'
            cand --query 'What the session is about: earlier segments matching it are listed [default: the key terms of the project summary and recent segments]'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;mcp'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;check'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;forget'= {
            cand --session 'Turns of this session'
            cand --project 'Turns of this project (a name as `ragger projects` lists it, or a folder)'
            cand --turn 'One turn, by the id `ragger show --json` prints'
            cand --before 'Turns whose event time is before DATE (RFC 3339 or YYYY-MM-DD, UTC)'
            cand --match 'Turns whose text or turn summary contains TEXT (case-insensitive)'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --dry-run 'List the turns that would be removed and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;redact'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --dry-run 'Count what would change and change nothing'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;export'= {
            cand --format 'Output format'
            cand --session 'Only this session'
            cand --project 'Only this project (a name as `ragger projects` lists it, or a folder)'
            cand --since 'Only turns at or after DATE (RFC 3339 or YYYY-MM-DD, UTC)'
            cand -o 'Write to FILE (created 0600) instead of stdout'
            cand --output 'Write to FILE (created 0600) instead of stdout'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand --turns 'Markdown: include the turns under each session'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ragger;doctor'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;config'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
            cand default 'Print a commented example config with the defaults'
            cand show 'Print the merged configuration'
            cand path 'Print the config files consulted, in order'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;config;default'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;config;show'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;config;path'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;config;help'= {
            cand default 'Print a commented example config with the defaults'
            cand show 'Print the merged configuration'
            cand path 'Print the config files consulted, in order'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;config;help;default'= {
        }
        &'ragger;config;help;show'= {
        }
        &'ragger;config;help;path'= {
        }
        &'ragger;config;help;help'= {
        }
        &'ragger;completions'= {
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;man'= {
            cand --dir 'Output folder'
            cand --config 'Config file (replaces the user config file)'
            cand --db 'Database file [default: ragger.db in the data folder]'
            cand --color 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More output: -v a one-line summary, -vv details and model logs'
            cand --verbose 'More output: -v a one-line summary, -vv details and model logs'
            cand --json 'Machine-readable JSON on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ragger;help'= {
            cand init 'Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook'
            cand capture 'Store one conversation turn (or JSON Lines from stdin)'
            cand summarize 'Summarise pending turns: L2, then L3, then L4'
            cand housekeeping 'Cron entry point: recover orphans, summarise, close idle sessions'
            cand status 'Counts of sessions, turns and pending work'
            cand failed 'List failed items (turn summaries the memory model could not write) with their reasons'
            cand retry 'Set failed items back to pending, for the next summarize pass'
            cand sessions 'List sessions'
            cand show 'Show one session: its turns and summaries'
            cand projects 'List projects with their project summaries (L4), or merge two'
            cand search 'Search summaries by meaning and keywords'
            cand embed 'Print embeddings of texts as JSON Lines'
            cand reembed 'Recompute vectors made by another embedding model'
            cand import 'Import agents'' transcript files (Claude Code, Codex) or JSON Lines'
            cand hook 'Agent hook entry points: capture each turn, give memory back'
            cand context 'Print the memory block for the start of a session'
            cand mcp 'Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)'
            cand check 'Verify the database invariants; exit 1 naming any violation'
            cand forget 'Remove turns and everything derived from them, leaving no trace in the file'
            cand redact 'Apply the current redaction rules to turns and summaries already stored'
            cand export 'Write turns and summaries out as Markdown or JSON Lines'
            cand doctor 'Check the database, models and runtime'
            cand config 'Print or inspect the configuration'
            cand completions 'Print shell completions to stdout'
            cand man 'Write man pages (one per subcommand) into a folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ragger;help;init'= {
        }
        &'ragger;help;capture'= {
        }
        &'ragger;help;summarize'= {
        }
        &'ragger;help;housekeeping'= {
        }
        &'ragger;help;status'= {
        }
        &'ragger;help;failed'= {
        }
        &'ragger;help;retry'= {
        }
        &'ragger;help;sessions'= {
        }
        &'ragger;help;show'= {
        }
        &'ragger;help;projects'= {
            cand merge 'Move one project''s stored memory into another, for good'
        }
        &'ragger;help;projects;merge'= {
        }
        &'ragger;help;search'= {
        }
        &'ragger;help;embed'= {
        }
        &'ragger;help;reembed'= {
        }
        &'ragger;help;import'= {
        }
        &'ragger;help;hook'= {
            cand claude-code 'Claude Code command hook: reads the hook''s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session''s transcript (only what is new); SessionStart prints the memory block as additional context'
            cand codex 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session''s rollout file (only what is new) and SessionStart prints the memory block as additional context'
        }
        &'ragger;help;hook;claude-code'= {
        }
        &'ragger;help;hook;codex'= {
        }
        &'ragger;help;context'= {
        }
        &'ragger;help;mcp'= {
        }
        &'ragger;help;check'= {
        }
        &'ragger;help;forget'= {
        }
        &'ragger;help;redact'= {
        }
        &'ragger;help;export'= {
        }
        &'ragger;help;doctor'= {
        }
        &'ragger;help;config'= {
            cand default 'Print a commented example config with the defaults'
            cand show 'Print the merged configuration'
            cand path 'Print the config files consulted, in order'
        }
        &'ragger;help;config;default'= {
        }
        &'ragger;help;config;show'= {
        }
        &'ragger;help;config;path'= {
        }
        &'ragger;help;completions'= {
        }
        &'ragger;help;man'= {
        }
        &'ragger;help;help'= {
        }
    ]
    $completions[$command]
}
