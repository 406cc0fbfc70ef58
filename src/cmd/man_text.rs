//! Man page sections beyond the option lists: examples, and the formats
//! of what a command reads (JSON Lines) and writes (`--json`). Keyed by
//! page name. In a body, a line indented by two spaces is shown verbatim
//! (a command, a JSON line); other lines are prose, and an empty line
//! starts a new paragraph.

/// `(section title, body)` pairs for a page.
pub fn sections(page: &str) -> &'static [(&'static str, &'static str)] {
    match page {
        "ragger" => &[(
            "EXAMPLES",
            "Store a turn, summarise it, find it again:

  ragger capture --session s1 --project web --user 'why is login flaky?' --assistant 'a race in the token refresh'
  ragger summarize --once
  ragger search 'login race'

What cron runs (every 20 minutes is typical):

  */20 * * * * ragger housekeeping

Look around:

  ragger sessions --since 3d
  ragger show s1
  ragger projects
  ragger failed",
        )],
        "ragger-capture" => &[
            (
                "EXAMPLES",
                "  ragger capture --session s1 --user 'question' --assistant 'answer'
  ragger capture --session s1 --project web --at 2026-03-01T09:00:00Z --id turn-42 --user-file q.txt --assistant-file a.txt
  ragger export --format jsonl | ragger capture --stdin",
            ),
            (
                "JSON LINES (--stdin)",
                "One turn per line, one JSON object each; unknown fields are refused:

  {\"session\":\"s1\",\"project\":\"web\",\"user\":\"question\",\"assistant\":\"answer\",\"at\":\"2026-03-01T09:00:00Z\",\"id\":\"turn-42\"}

session is required; user or assistant must be non-empty; project, at (RFC 3339, default now) and id are optional. A bad line is reported on stderr with its number and skipped (exit 1); the other lines are stored.

Idempotency: a turn whose id was already stored in its session is a duplicate. A line without id gets a derived key: a hash of session, at (as given, by its instant) and the two texts, taken after secrets are redacted. So fixing a bad line and sending the whole input again stores each turn once. Two identical lines of one session without id and at are one turn.

With --json, capture prints {\"stored\":N,\"duplicates\":N,\"rejected\":N,\"excluded\":N,\"redactions\":N}.",
            ),
        ],
        "ragger-import" => &[(
            "EXAMPLES",
            "  ragger import claude-code ~/.claude/projects
  ragger import codex ~/.codex/sessions
  ragger import jsonl turns.jsonl

jsonl files hold the lines `ragger capture --stdin` reads (see ragger-capture(1)); a line without id gets the same derived key, so importing a file again, or a copy of it with a line fixed, stores each turn once.",
        )],
        "ragger-search" => &[
            (
                "EXAMPLES",
                "  ragger search 'sqlite lock timeout'
  ragger search --project web --since 3d 'login race'
  ragger search --level 3 -n 5 --json 'deployment'",
            ),
            (
                "SCORES",
                "score = vector_weight x cosine(query, row) + keyword_weight x (share of the query's words, stopwords aside, found in the row); without vectors, the share alone. Scores mean the same in every query. Rows scoring below [search] min_score (default 0.3, or --min-score) are not shown; when none is left, \"no match\" is printed on stderr and the exit status is 0. An empty query is a usage error (exit 2).",
            ),
            (
                "JSON (--json)",
                "One JSON array, best first:

  [{\"id\":31,\"level\":3,\"session\":\"s1\",\"project\":\"web\",\"episode_range\":\"30-32\",\"score\":0.61,\"content\":\"...\",\"at\":\"2026-03-01T09:00:00Z\",\"key_terms\":\"...\",\"evidence\":{\"turn_id\":31,\"text\":\"User: ...\"}}]

id is a turn id (levels 1, 2) or a summary id (3, 4); at is the turn time or the summary's last update, RFC 3339 UTC; key_terms and evidence appear when there are some.",
            ),
        ],
        "ragger-sessions" => &[
            ("EXAMPLES", "  ragger sessions --limit 10\n  ragger sessions --open --since yesterday\n  ragger sessions --project web --json"),
            (
                "JSON (--json)",
                "  [{\"session\":\"s1\",\"project\":\"web\",\"turns\":3,\"first\":\"2026-03-01T09:00:00Z\",\"last\":\"2026-03-01T09:30:00Z\",\"open\":true,\"running_summary\":true,\"summary\":\"...\"}]

Times are RFC 3339 UTC (human output shows local time). summary is the latest session summary, else the latest turn summary, else the first user message.",
            ),
        ],
        "ragger-show" => &[
            ("EXAMPLES", "  ragger show s1\n  ragger show s1 --full\n  ragger show s1 --json"),
            (
                "JSON (--json)",
                "  {\"session\":\"s1\",\"project\":\"web\",\"open\":true,\"turns\":[{\"id\":12,\"n\":1,\"at\":\"2026-03-01T09:00:00Z\",\"user\":\"...\",\"assistant\":\"...\",\"l2\":\"...\",\"l2_origin\":\"model\",\"state\":\"folded\"}],\"summaries\":[{\"id\":4,\"level\":3,\"status\":\"running\",\"episode_range\":\"12-14\",\"content\":\"...\",\"start_reason\":\"first\",\"start_score\":null,\"key_terms\":\"...\",\"origin\":\"model\"}]}

n numbers the turns within the session (as human output does); id is the row id that forget --turn and retry take.",
            ),
        ],
        "ragger-projects" => &[
            (
                "PROJECTS",
                "A project is the repository of the agent's working folder: the nearest folder at or above it that holds .git (a folder, or a file in worktrees and submodules), else the working folder; a sub-folder belongs to its repository. Its name is that folder's name; where two projects share a name, the list adds the parent folder (backend (clientA)), or shows the root. [import] projects in the config names folders instead; folders given one name are one project. --project and the MCP tools take the listed name (any case), a name only one project has, or a folder.",
            ),
            (
                "JSON (--json)",
                "  [{\"project\":\"web\",\"name\":\"web\",\"root\":\"/home/me/src/web\",\"sessions\":4,\"turns\":37,\"last\":\"2026-03-01T09:30:00Z\",\"summary\":\"...\",\"summary_status\":\"running\"}]",
            ),
        ],
        "ragger-failed" => &[(
            "JSON (--json)",
            "  [{\"kind\":\"l2\",\"id\":12,\"session\":\"s1\",\"project\":\"web\",\"at\":\"2026-03-01T09:00:00Z\",\"attempts\":3,\"reason\":\"...\"}]

kind l2: a turn summary the memory model could not write (id is the turn id); l4: a project fold of an L3 row.",
        )],
        "ragger-retry" => &[(
            "EXAMPLES",
            "  ragger failed
  ragger retry 12 15
  ragger retry --all && ragger summarize --once",
        )],
        "ragger-summarize" => &[
            ("EXAMPLES", "  ragger summarize --once\n  ragger summarize --once --max-seconds 600 -v\n  ragger summarize --dry-run"),
            (
                "OUTPUT",
                "Silent on success. On a terminal a progress bar counts all the planned work: turn summaries, folds, project folds and vectors. With -v and no terminal, one line per item on stderr: level, session (or project), outcome and milliseconds. A first Ctrl-C stops after the current item; a second aborts (exit 130). With --json:

  {\"l2\":20,\"l3_folds\":20,\"topic_shifts\":1,\"l4_folds\":1,\"failed\":0,\"gave_up\":0,\"extractive\":0,\"remaining\":0,\"seconds\":41.2,\"embedded\":41}

failed counts bad replies in this pass; gave_up those whose last attempt it was (listed by ragger failed, reset by ragger retry).",
            ),
        ],
        "ragger-housekeeping" => &[(
            "EXAMPLES",
            "The cron line (crontab -e):

  */20 * * * * ragger housekeeping

A tick that finds another pass holding the lock exits 75; with -v it says so. A tick with nothing to do asks one query, loads no model and writes nothing to the database, only its time into the run lock file (DATABASE.lock), which ragger doctor reads.",
        )],
        "ragger-export" => &[(
            "EXAMPLES",
            "  ragger export --turns -o memory.md
  ragger export --format jsonl --since 2026-03-01 > turns.jsonl

JSON Lines output is what ragger capture --stdin reads (see ragger-capture(1)).",
        )],
        _ => &[],
    }
}

/// Write a body as roff: verbatim lines in no-fill blocks, prose as
/// paragraphs.
pub fn render(roff: &mut clap_mangen::roff::Roff, body: &str) {
    use clap_mangen::roff::roman;
    let mut verbatim = false;
    let mut first = true;
    for line in body.lines() {
        let code = line.starts_with("  ");
        if line.trim().is_empty() {
            if verbatim {
                roff.control("RE", []);
                roff.control("fi", []);
                verbatim = false;
            }
            continue;
        }
        if code && !verbatim {
            roff.control("PP", []);
            roff.control("nf", []);
            roff.control("RS", ["4"]);
            verbatim = true;
        } else if !code && verbatim {
            roff.control("RE", []);
            roff.control("fi", []);
            verbatim = false;
        }
        if !code && !first {
            roff.control("PP", []);
        }
        roff.text([roman(if code { line.trim_start() } else { line })]);
        first = false;
    }
    if verbatim {
        roff.control("RE", []);
        roff.control("fi", []);
    }
}
