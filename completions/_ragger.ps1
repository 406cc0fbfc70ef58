
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ragger' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ragger'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'ragger' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook')
            [CompletionResult]::new('capture', 'capture', [CompletionResultType]::ParameterValue, 'Store one conversation turn (or JSON Lines from stdin)')
            [CompletionResult]::new('summarize', 'summarize', [CompletionResultType]::ParameterValue, 'Summarise pending turns: L2, then L3, then L4')
            [CompletionResult]::new('housekeeping', 'housekeeping', [CompletionResultType]::ParameterValue, 'Cron entry point: recover orphans, summarise, close idle sessions')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Counts of sessions, turns and pending work')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'List failed items (turn summaries the memory model could not write) with their reasons')
            [CompletionResult]::new('retry', 'retry', [CompletionResultType]::ParameterValue, 'Set failed items back to pending, for the next summarize pass')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List sessions')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one session: its turns and summaries')
            [CompletionResult]::new('projects', 'projects', [CompletionResultType]::ParameterValue, 'List projects with their project summaries (L4), or merge two')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search summaries by meaning and keywords')
            [CompletionResult]::new('embed', 'embed', [CompletionResultType]::ParameterValue, 'Print embeddings of texts as JSON Lines')
            [CompletionResult]::new('reembed', 'reembed', [CompletionResultType]::ParameterValue, 'Recompute vectors made by another embedding model')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import agents'' transcript files (Claude Code, Codex) or JSON Lines')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Agent hook entry points: capture each turn, give memory back')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print the memory block for the start of a session')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the database invariants; exit 1 naming any violation')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove turns and everything derived from them, leaving no trace in the file')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Apply the current redaction rules to turns and summaries already stored')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write turns and summaries out as Markdown or JSON Lines')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the database, models and runtime')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print or inspect the configuration')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions to stdout')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into a folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;init' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Wire this agent: its hooks and MCP server, in its own settings files')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--cron', '--cron', [CompletionResultType]::ParameterName, 'Add the housekeeping line to your crontab (with `crontab`)')
            [CompletionResult]::new('--systemd', '--systemd', [CompletionResultType]::ParameterName, 'Write and enable a systemd user timer (with `systemctl --user`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be done and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ragger;capture' {
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id (any string your tool uses)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project the session belongs to: a name, or a folder (`/…`, `~/…`, `./…`) whose repository root is the project')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user''s message (may begin with `-`)')
            [CompletionResult]::new('--assistant', '--assistant', [CompletionResultType]::ParameterName, 'The assistant''s reply (may begin with `-`)')
            [CompletionResult]::new('--user-file', '--user-file', [CompletionResultType]::ParameterName, 'Read the user''s message from a file (`-`: stdin), for texts too large for the command line')
            [CompletionResult]::new('--assistant-file', '--assistant-file', [CompletionResultType]::ParameterName, 'Read the assistant''s reply from a file (`-`: stdin)')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Event time, RFC 3339 [default: now]; for backfilling old conversations')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Idempotency key: the same key in the same session is stored once')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--stdin', '--stdin', [CompletionResultType]::ParameterName, 'Read JSON Lines from stdin: {"session","project","user","assistant","at","id"}')
            [CompletionResult]::new('--summarize', '--summarize', [CompletionResultType]::ParameterName, 'Summarise the session right away (loads the memory model)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;summarize' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Process at most N items')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session')
            [CompletionResult]::new('--max-seconds', '--max-seconds', [CompletionResultType]::ParameterName, 'Stop taking new work after S seconds')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Worker loop: seconds between passes (SIGUSR1 wakes it early)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Run one pass and exit (housekeeping, what cron runs, includes one)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be done and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;housekeeping' {
            [CompletionResult]::new('--max-seconds', '--max-seconds', [CompletionResultType]::ParameterName, 'Stop taking new summarize work after S seconds (sessions are still closed)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--no-summarize', '--no-summarize', [CompletionResultType]::ParameterName, 'Skip the summarize pass')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would happen and write nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;status' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;failed' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;retry' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every failed item')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;sessions' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions of this project (a name as `ragger projects` lists it, or a folder)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most N sessions, the most recent first')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most N sessions, the most recent first')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions with a turn since TIME: a date (2026-03-01), an RFC 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--open', '--open', [CompletionResultType]::ParameterName, 'Only open sessions (not yet closed by housekeeping)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;show' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Show each turn''s texts whole, not cut to one line')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;projects' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Move one project''s stored memory into another, for good')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;projects;merge' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would move and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;projects;help' {
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Move one project''s stored memory into another, for good')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;projects;help;merge' {
            break
        }
        'ragger;projects;help;help' {
            break
        }
        'ragger;search' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Number of results')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Number of results')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Only this level: 2 turn summaries (searched only when asked for), 3 session segments (and the turns they hold), 4 project summaries')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only this project (a name as `ragger projects` lists it, or a folder)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only summaries updated since TIME: a date (2026-03-01), an RFC 3339 time, today, yesterday, or an age (3d, 12h, 90m, 2w)')
            [CompletionResult]::new('--min-score', '--min-score', [CompletionResultType]::ParameterName, 'Hide hits scoring below this [default: [search] min_score, 0.3]; 0 shows every candidate')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;embed' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--stdin', '--stdin', [CompletionResultType]::ParameterName, 'Read texts from stdin, one per line')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;reembed' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print how many vectors are stale and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;import' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Count what would be stored and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ragger;hook' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('claude-code', 'claude-code', [CompletionResultType]::ParameterValue, 'Claude Code command hook: reads the hook''s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session''s transcript (only what is new); SessionStart prints the memory block as additional context')
            [CompletionResult]::new('codex', 'codex', [CompletionResultType]::ParameterValue, 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session''s rollout file (only what is new) and SessionStart prints the memory block as additional context')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;hook;claude-code' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;hook;codex' {
            [CompletionResult]::new('--then', '--then', [CompletionResultType]::ParameterName, 'Then run this program with its arguments and the same JSON appended (the user''s own notify program: Codex takes one). Comes last; the JSON Codex appends ends it')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;hook;help' {
            [CompletionResult]::new('claude-code', 'claude-code', [CompletionResultType]::ParameterValue, 'Claude Code command hook: reads the hook''s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session''s transcript (only what is new); SessionStart prints the memory block as additional context')
            [CompletionResult]::new('codex', 'codex', [CompletionResultType]::ParameterValue, 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session''s rollout file (only what is new) and SessionStart prints the memory block as additional context')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;hook;help;claude-code' {
            break
        }
        'ragger;hook;help;codex' {
            break
        }
        'ragger;hook;help;help' {
            break
        }
        'ragger;context' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project: a name as `ragger projects` lists it, or a folder [default: the project of --cwd or of the current folder]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working folder: its repository''s project (a sub-folder finds its repository)')
            [CompletionResult]::new('--limit-tokens', '--limit-tokens', [CompletionResultType]::ParameterName, 'Budget of the block in tokens (about four characters a token)')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'What the session is about: earlier segments matching it are listed [default: the key terms of the project summary and recent segments]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;mcp' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;check' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;forget' {
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Turns of this session')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Turns of this project (a name as `ragger projects` lists it, or a folder)')
            [CompletionResult]::new('--turn', '--turn', [CompletionResultType]::ParameterName, 'One turn, by the id `ragger show --json` prints')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Turns whose event time is before DATE (RFC 3339 or YYYY-MM-DD, UTC)')
            [CompletionResult]::new('--match', '--match', [CompletionResultType]::ParameterName, 'Turns whose text or turn summary contains TEXT (case-insensitive)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List the turns that would be removed and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;redact' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Count what would change and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;export' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only this project (a name as `ragger projects` lists it, or a folder)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only turns at or after DATE (RFC 3339 or YYYY-MM-DD, UTC)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE (created 0600) instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE (created 0600) instead of stdout')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('--turns', '--turns', [CompletionResultType]::ParameterName, 'Markdown: include the turns under each session')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ragger;doctor' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;config' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('default', 'default', [CompletionResultType]::ParameterValue, 'Print a commented example config with the defaults')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the merged configuration')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config files consulted, in order')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;config;default' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;config;show' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;config;path' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;config;help' {
            [CompletionResult]::new('default', 'default', [CompletionResultType]::ParameterValue, 'Print a commented example config with the defaults')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the merged configuration')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config files consulted, in order')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;config;help;default' {
            break
        }
        'ragger;config;help;show' {
            break
        }
        'ragger;config;help;path' {
            break
        }
        'ragger;config;help;help' {
            break
        }
        'ragger;completions' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Output folder')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (replaces the user config file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: ragger.db in the data folder]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour headings on stdout: auto (on a terminal, unless NO_COLOR is set), always, never')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More output: -v a one-line summary, -vv details and model logs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ragger;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Set up: config with absolute paths, the 20-minute housekeeping schedule, the agent hook')
            [CompletionResult]::new('capture', 'capture', [CompletionResultType]::ParameterValue, 'Store one conversation turn (or JSON Lines from stdin)')
            [CompletionResult]::new('summarize', 'summarize', [CompletionResultType]::ParameterValue, 'Summarise pending turns: L2, then L3, then L4')
            [CompletionResult]::new('housekeeping', 'housekeeping', [CompletionResultType]::ParameterValue, 'Cron entry point: recover orphans, summarise, close idle sessions')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Counts of sessions, turns and pending work')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'List failed items (turn summaries the memory model could not write) with their reasons')
            [CompletionResult]::new('retry', 'retry', [CompletionResultType]::ParameterValue, 'Set failed items back to pending, for the next summarize pass')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List sessions')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one session: its turns and summaries')
            [CompletionResult]::new('projects', 'projects', [CompletionResultType]::ParameterValue, 'List projects with their project summaries (L4), or merge two')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search summaries by meaning and keywords')
            [CompletionResult]::new('embed', 'embed', [CompletionResultType]::ParameterValue, 'Print embeddings of texts as JSON Lines')
            [CompletionResult]::new('reembed', 'reembed', [CompletionResultType]::ParameterValue, 'Recompute vectors made by another embedding model')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import agents'' transcript files (Claude Code, Codex) or JSON Lines')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Agent hook entry points: capture each turn, give memory back')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print the memory block for the start of a session')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Model Context Protocol server on stdio (search, show_session, recent, context, list_projects, remember)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the database invariants; exit 1 naming any violation')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove turns and everything derived from them, leaving no trace in the file')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Apply the current redaction rules to turns and summaries already stored')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write turns and summaries out as Markdown or JSON Lines')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the database, models and runtime')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print or inspect the configuration')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions to stdout')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into a folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ragger;help;init' {
            break
        }
        'ragger;help;capture' {
            break
        }
        'ragger;help;summarize' {
            break
        }
        'ragger;help;housekeeping' {
            break
        }
        'ragger;help;status' {
            break
        }
        'ragger;help;failed' {
            break
        }
        'ragger;help;retry' {
            break
        }
        'ragger;help;sessions' {
            break
        }
        'ragger;help;show' {
            break
        }
        'ragger;help;projects' {
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Move one project''s stored memory into another, for good')
            break
        }
        'ragger;help;projects;merge' {
            break
        }
        'ragger;help;search' {
            break
        }
        'ragger;help;embed' {
            break
        }
        'ragger;help;reembed' {
            break
        }
        'ragger;help;import' {
            break
        }
        'ragger;help;hook' {
            [CompletionResult]::new('claude-code', 'claude-code', [CompletionResultType]::ParameterValue, 'Claude Code command hook: reads the hook''s JSON on stdin. Stop, SubagentStop, PreCompact and SessionEnd import the session''s transcript (only what is new); SessionStart prints the memory block as additional context')
            [CompletionResult]::new('codex', 'codex', [CompletionResultType]::ParameterValue, 'Codex `notify` program: stores the finished turn from the JSON argument (agent-turn-complete). As a Codex hook (JSON with `hook_event_name` on stdin), Stop imports the session''s rollout file (only what is new) and SessionStart prints the memory block as additional context')
            break
        }
        'ragger;help;hook;claude-code' {
            break
        }
        'ragger;help;hook;codex' {
            break
        }
        'ragger;help;context' {
            break
        }
        'ragger;help;mcp' {
            break
        }
        'ragger;help;check' {
            break
        }
        'ragger;help;forget' {
            break
        }
        'ragger;help;redact' {
            break
        }
        'ragger;help;export' {
            break
        }
        'ragger;help;doctor' {
            break
        }
        'ragger;help;config' {
            [CompletionResult]::new('default', 'default', [CompletionResultType]::ParameterValue, 'Print a commented example config with the defaults')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the merged configuration')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config files consulted, in order')
            break
        }
        'ragger;help;config;default' {
            break
        }
        'ragger;help;config;show' {
            break
        }
        'ragger;help;config;path' {
            break
        }
        'ragger;help;completions' {
            break
        }
        'ragger;help;man' {
            break
        }
        'ragger;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
