#!/usr/bin/env bash
# Process start and the per-turn commands (issue 35): `ragger capture` and
# `ragger hook claude-code` (a Stop event with one new turn) against one
# `sqlite3` insert of the same durability into a database of ragger's own
# schema, `ragger --version` against `sqlite3 --version`, and an idle
# `ragger housekeeping` tick against `--version`; for one or two ragger
# binaries (BEFORE, e.g. main's, and AFTER), all in one run. Prints a
# Markdown section on stdout (BENCHMARKS.md keeps the last one, at its end).
#
# Usage: scripts/bench/start.sh [--before BIN] [--runs N] [--tsv FILE] AFTER
#   AFTER         the ragger binary measured (copied first: a rebuild must
#                 not change what is measured)
#   --before BIN  a second binary measured beside it, e.g. main's
#   --runs N      hyperfine runs per command (default 200; 20 warm-ups)
#   --tsv FILE    also write AFTER's ratios there, one a line: figure, result,
#                 goal, verdict, tab-separated (for scripts/bench/run.sh)
# Needs hyperfine (apt-get install -y hyperfine), sqlite3, python3.
#
# The peer of capture: the sqlite3 CLI inserts one turn into a copy of
# ragger's database (same schema, indexes and triggers, same 1,000 turns),
# with ragger's settings: WAL, synchronous=NORMAL, foreign_keys=ON, a busy
# timeout. Both databases start with their WAL checkpointed.
#
# The hook is also set beside a capture of the very turn it stores (its
# prompt and its reply with the tool lines): what the hook adds to storing
# that turn is reading and parsing the transcript.
#
# hyperfine 1.15 (Debian's) cannot feed stdin to a command run without a
# shell, so the hook and a capture beside it are timed through the shell
# (hyperfine measures the shell's start and subtracts it); everything else
# runs without a shell (-N).
set -euo pipefail
prog=start
die() { echo "$prog: $*" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
before="" runs=200 after="" tsv=/dev/null
while [[ $# -gt 0 ]]; do
  case $1 in
    --before) before=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --tsv) tsv=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown argument: $1" ;;
    *) after=$1; shift ;;
  esac
done
[[ -n $after ]] || die "usage: $0 [--before BIN] [--runs N] AFTER"
for t in hyperfine sqlite3 python3; do command -v $t >/dev/null || die "$t is needed"; done

w=$(mktemp -d "${TMPDIR:-/tmp}/ragger-start.XXXXXX")
server_pid=""
cleanup() {
  [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$w"
}
trap cleanup EXIT
for v in $(compgen -e | grep '^RAGGER_' || true); do unset "$v"; done
export RAGGER_SYSTEM_CONFIG=/nonexistent
export XDG_DATA_HOME=$w/xdg/data XDG_STATE_HOME=$w/xdg/state XDG_CONFIG_HOME=$w/xdg/config XDG_CACHE_HOME=$w/xdg/cache
mkdir -p "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$w/bin"
cp "$after" "$w/bin/after"
names=(after)
if [[ -n $before ]]; then cp "$before" "$w/bin/before"; names=(before after); fi

# Capture never calls a model: an address nothing listens on.
printf '[memory_model]\nbackend = "openai"\nurl = "http://127.0.0.1:9/v1"\nmodel = "none"\n\n[embedder]\nenabled = false\n' >"$w/capture.toml"
warm() { # 1,000 turns in 10 sessions, as JSON Lines
  awk 'BEGIN { for (i = 0; i < 1000; i++) printf "{\"session\":\"warm-s%d\",\"project\":\"proj%d\",\"user\":\"How do I configure part %d of the build pipeline?\",\"assistant\":\"Edit the config file, set the option and run the tests.\"}\n", int(i / 100), int(i / 100), i }'
}
for n in "${names[@]}"; do
  warm | "$w/bin/$n" --config "$w/capture.toml" --db "$w/$n.db" capture --stdin -q
  sqlite3 "$w/$n.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
done
cp "$w/after.db" "$w/peer.db"
rm -f "$w/peer.db-wal" "$w/peer.db-shm"
user='How do I rotate the logs every night?'
asst='Use logrotate with a daily rule and compress old files.'
insert="PRAGMA busy_timeout = 30000; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; INSERT INTO turns (session_id, at, captured_at, user_text, assistant_text, tokens) VALUES (1, 1764600000000, 1764600000000, '$user', '$asst', 24);"
[[ $(sqlite3 "$w/peer.db" 'PRAGMA journal_mode;') == wal ]] || die "the peer database is not in WAL mode"

# The idle tick: 100 old turns in 10 sessions, summarised and closed by two
# housekeeping passes against a model that answers at once; the tick's
# config then names a local model file that does not exist, so a tick that
# loaded a model would fail.
python3 "$root/scripts/bench/extractive_server.py" >"$w/server.out" 2>"$w/server.err" &
server_pid=$!
for _ in $(seq 200); do grep -q '^URL ' "$w/server.out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^URL //p' "$w/server.out")
[[ -n $url ]] || die "the extractive server did not start: $(cat "$w/server.err")"
printf '[memory_model]\nbackend = "openai"\nurl = "%s"\nmodel = "extractive"\n\n[embedder]\nenabled = false\n' "$url" >"$w/prep.toml"
printf '[memory_model]\nbackend = "local"\nmodel_path = "%s/missing/model.gguf"\n\n[embedder]\nenabled = false\n' "$w" >"$w/tick.toml"
old() {
  awk 'BEGIN { for (i = 0; i < 100; i++) printf "{\"session\":\"idle-s%d\",\"project\":\"proj%d\",\"at\":\"2024-01-01T00:%02d:%02dZ\",\"user\":\"How do I configure part %d of the build pipeline?\",\"assistant\":\"Edit the config file, set the option and run the tests.\"}\n", int(i / 10), int(i / 10), int(i / 60), i % 60, i }'
}
for n in "${names[@]}"; do
  old | "$w/bin/$n" --config "$w/prep.toml" --db "$w/idle-$n.db" capture --stdin -q
  "$w/bin/$n" --config "$w/prep.toml" --db "$w/idle-$n.db" housekeeping -q
  "$w/bin/$n" --config "$w/prep.toml" --db "$w/idle-$n.db" housekeeping -q
  "$w/bin/$n" --config "$w/tick.toml" --db "$w/idle-$n.db" housekeeping >"$w/tick.out" 2>&1 ||
    die "$n: the idle tick failed: $(head -3 "$w/tick.out")"
  [[ ! -s $w/tick.out ]] || die "$n: the idle tick was not silent: $(head -3 "$w/tick.out")"
done
# Ticks come 20 minutes apart: the files a tick sees have settled (a file
# written within the last second is never taken as unchanged). One more
# tick on settled files, as the measured ones will find them.
sleep 1.1
for n in "${names[@]}"; do
  "$w/bin/$n" --config "$w/tick.toml" --db "$w/idle-$n.db" housekeeping -q
done
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# The hook: a Claude Code session as real use grows it (see
# claude_transcript.py: prompt, thinking, three tool calls and their
# results, the reply; about 30 KB a turn), 40 turns imported; before each
# timed run one turn is appended and the Stop input written (not timed), so
# every run stores one turn, as a Stop at the end of each turn does.
for n in "${names[@]}"; do
  python3 "$root/scripts/bench/claude_transcript.py" 40 "$w/t-$n.jsonl" 0
  "$w/bin/$n" --config "$w/capture.toml" --db "$w/hook-$n.db" import claude-code "$w/t-$n.jsonl" -q
  sqlite3 "$w/hook-$n.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
  echo 40 >"$w/next-$n"
  {
    echo '#!/usr/bin/env bash'
    echo 'set -e'
    echo "k=\$(cat $w/next-$n); echo \$((k + 1)) >$w/next-$n"
    echo "python3 $root/scripts/bench/claude_transcript.py 1 $w/t-$n.jsonl \$k --stop $w/stop-$n.json"
  } >"$w/append-$n.sh"
  chmod +x "$w/append-$n.sh"
  "$w/append-$n.sh"
  # The like-for-like peer of the hook: a capture of the very turn it
  # stores (the user's prompt and the reply with its tool lines, about
  # 1.3 KB), into a session of its own.
  sqlite3 "$w/hook-$n.db" "SELECT user_text FROM turns ORDER BY id DESC LIMIT 1;" >"$w/turn-user-$n.txt"
  sqlite3 "$w/hook-$n.db" "SELECT assistant_text FROM turns ORDER BY id DESC LIMIT 1;" >"$w/turn-asst-$n.txt"
  [[ -s $w/turn-asst-$n.txt ]] || die "$n: no turn of the hook's session to capture"
  # The captures timed beside the hook get the same preparation (the same
  # Python run writing a turn, to a scratch file): what runs just before a
  # command moves its time (caches), so both pay it alike.
  {
    echo '#!/usr/bin/env bash'
    echo "exec python3 $root/scripts/bench/claude_transcript.py 1 $w/scratch-$n.jsonl 0 --stop $w/scratch-stop-$n.json"
  } >"$w/same-$n.sh"
  chmod +x "$w/same-$n.sh"
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
hf() { hyperfine --style none --warmup 20 --runs "$runs" "$@" >/dev/null 2>"$w/hf.err" || die "hyperfine: $(tail -3 "$w/hf.err")"; }
# 1. Without a shell: capture, the sqlite3 insert, --version, the idle tick.
args=()
for n in "${names[@]}"; do
  args+=(-n "$n: capture" "$w/bin/$n --config $w/capture.toml --db $w/$n.db capture --session bench-s1 --project bench --user '$user' --assistant '$asst'")
done
args+=(-n "sqlite3: insert" "sqlite3 -batch $w/peer.db \"$insert\"")
for n in "${names[@]}"; do args+=(-n "$n: --version" "$w/bin/$n --version"); done
args+=(-n "sqlite3: --version" "sqlite3 --version")
for n in "${names[@]}"; do
  args+=(-n "$n: idle housekeeping" "$w/bin/$n --config $w/tick.toml --db $w/idle-$n.db housekeeping")
done
hf -N --export-json "$w/direct.json" "${args[@]}"
# 2. Through the shell: the hook (stdin from a file) and capture beside it.
args=()
for n in "${names[@]}"; do
  args+=(--prepare "$w/append-$n.sh" -n "$n: hook claude-code (Stop)" "$w/bin/$n --config $w/capture.toml --db $w/hook-$n.db hook claude-code < $w/stop-$n.json")
  args+=(--prepare "$w/same-$n.sh" -n "$n: capture (shell)" "$w/bin/$n --config $w/capture.toml --db $w/hook-$n.db capture --session bench-s2 --project bench --user '$user' --assistant '$asst'")
  args+=(--prepare "$w/same-$n.sh" -n "$n: capture of the hook's turn (shell)" "$w/bin/$n --config $w/capture.toml --db $w/hook-$n.db capture --session bench-s3 --project bench --user-file $w/turn-user-$n.txt --assistant-file $w/turn-asst-$n.txt")
done
hf --export-json "$w/shell.json" "${args[@]}"
# 3. Instructions (callgrind, load-independent): one capture, one hook, one
# --version and one idle tick of each binary. Under valgrind a process runs
# ~50 times slower, so the clock runs 100 times slower (faketime): the
# hook's time budgets must not cut what it reads.
: >"$w/ir.tsv"
if command -v valgrind >/dev/null && command -v faketime >/dev/null; then
  ir() { # NAME STDIN COMMAND...: the instructions of one run
    local name=$1 input=$2; shift 2
    faketime -f '+0 x0.01' valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <"$input" 2>"$w/cg.err" >/dev/null ||
      die "callgrind $name: $(tail -3 "$w/cg.err")"
    printf '%s\t%s\n' "$name" "$(sed -n 's/.*Collected : //p' "$w/cg.err" | tail -1)" >>"$w/ir.tsv"
  }
  for n in "${names[@]}"; do
    ir "$n: capture" /dev/null "$w/bin/$n" --config "$w/capture.toml" --db "$w/hook-$n.db" capture --session bench-s2 --project bench --user "$user" --assistant "$asst"
    ir "$n: capture of the hook's turn" /dev/null "$w/bin/$n" --config "$w/capture.toml" --db "$w/hook-$n.db" capture --session bench-s3 --project bench --user-file "$w/turn-user-$n.txt" --assistant-file "$w/turn-asst-$n.txt"
    "$w/append-$n.sh"
    ir "$n: hook" "$w/stop-$n.json" "$w/bin/$n" --config "$w/capture.toml" --db "$w/hook-$n.db" hook claude-code
    ir "$n: --version" /dev/null "$w/bin/$n" --version
    ir "$n: idle tick" /dev/null "$w/bin/$n" --config "$w/tick.toml" --db "$w/idle-$n.db" housekeeping
  done
fi
for n in "${names[@]}"; do
  got=$(sqlite3 "$w/hook-$n.db" "SELECT count(*) FROM turns t JOIN sessions s ON s.id = t.session_id WHERE s.external_id = '6a1f0c3e-2b4d-4c8e-9f10-3d5e7a9b1c2d';")
  want=$(( $(cat "$w/next-$n") ))
  [[ $got == "$want" ]] || die "$n: the hook stored $got turns of $want"
done

python3 - "$w" "$tsv" "$load" "$(nproc)" "$runs" "$(git -C "$root" describe --always --dirty 2>/dev/null || echo '?')" "${names[@]}" <<'PY'
import json, sys
w, tsv, load, cores, runs, rev, *names = sys.argv[1:]
res = {}
for f in ("direct", "shell"):
    for r in json.load(open(f"{w}/{f}.json"))["results"]:
        res[r["command"]] = r
def wall(k): return res[k]["median"] * 1e3
def cpu(k): return (res[k]["user"] + res[k]["system"]) * 1e3
def cell(k): return f"{wall(k):.2f} ms (CPU {cpu(k):.2f} ms)"
def verdict(v, goal): return "met" if v <= goal else f"MISSED by {(v / goal - 1) * 100:.0f}%"
ir = dict(l.rstrip("\n").split("\t") for l in open(f"{w}/ir.tsv") if "\t" in l)
print("## Process start and the per-turn commands (issue 35)\n")
print(f"_Measured by `scripts/bench/start.sh` ({runs} runs of each command after 20 warm-ups), "
      f"ragger {rev}, load average {load} when it started ({cores} cores)._\n")
print("Wall time is the median, CPU time (user + system) the mean; on a loaded machine the CPU time is the steadier figure.\n")
cols = " | ".join(names)
print(f"| Command | {cols} | sqlite3 |")
print("|---|" + "---|" * (len(names) + 1))
print(f"| capture (one turn) | " + " | ".join(cell(f"{n}: capture") for n in names) + f" | insert: {cell('sqlite3: insert')} |")
print(f"| --version | " + " | ".join(cell(f"{n}: --version") for n in names) + f" | {cell('sqlite3: --version')} |")
print(f"| idle housekeeping tick | " + " | ".join(cell(f"{n}: idle housekeeping") for n in names) + " | |")
print(f"| hook claude-code, Stop, one new turn of a growing 40-turn session (through the shell) | " + " | ".join(cell(f"{n}: hook claude-code (Stop)") for n in names) + " | |")
print(f"| capture (through the shell, beside the hook) | " + " | ".join(cell(f"{n}: capture (shell)") for n in names) + " | |")
print(f"| capture of the turn the hook stores (through the shell) | " + " | ".join(cell(f"{n}: capture of the hook's turn (shell)") for n in names) + " | |")
print()
if ir:
    print("Instructions of one run (callgrind, the clock slowed by `faketime` for both):\n")
    print("| Command | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for c in ("capture", "capture of the hook's turn", "hook", "--version", "idle tick"):
        print(f"| {c} | " + " | ".join(f"{int(ir[f'{n}: {c}']):,}" for n in names) + " |")
    for a, b in (("hook", "capture"), ("hook", "capture of the hook's turn"), ("idle tick", "--version")):
        print(f"| {a} / {b} | " + " | ".join(f"{int(ir[f'{n}: {a}']) / int(ir[f'{n}: {b}']):.2f}" for n in names) + " |")
    print()
print(f"| Ratio | " + " | ".join(f"{n}: wall / CPU" for n in names) + " | Goal | Verdict (" + names[-1] + ", wall / CPU) |")
print("|---|" + "---|" * (len(names) + 2))
rows = [
    ("capture / sqlite3 insert", lambda n, f: f(f"{n}: capture") / f("sqlite3: insert"), 1.0),
    ("hook / capture", lambda n, f: f(f"{n}: hook claude-code (Stop)") / f(f"{n}: capture (shell)"), 1.1),
    ("hook / capture of the same turn", lambda n, f: f(f"{n}: hook claude-code (Stop)") / f(f"{n}: capture of the hook's turn (shell)"), 1.1),
    ("idle tick / --version", lambda n, f: f(f"{n}: idle housekeeping") / f(f"{n}: --version"), 2.0),
    ("--version / sqlite3 --version", lambda n, f: f(f"{n}: --version") / f("sqlite3: --version"), None),
]
with open(tsv, "w") as out:
    for label, r, goal in rows:
        vals = " | ".join(f"{r(n, wall):.2f} / {r(n, cpu):.2f}" for n in names)
        last = names[-1]
        v = "" if goal is None else f"{verdict(r(last, wall), goal)} / {verdict(r(last, cpu), goal)}"
        g = "" if goal is None else f"≤ {goal}"
        print(f"| {label} | {vals} | {g} | {v} |")
        out.write(f"{label}, wall / CPU ({last})\t{r(last, wall):.2f} / {r(last, cpu):.2f}\t{g}\t{v}\n")
print()
PY
