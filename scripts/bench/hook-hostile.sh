#!/usr/bin/env bash
# Hooks on hostile input (issue 33): how long `ragger hook claude-code`
# and `ragger hook codex` take when the transcript is a FIFO nobody writes
# or /dev/zero, when stdin is never closed, and while another process holds
# the database's write lock. Each case runs RUNS times (default 10); prints
# a Markdown table of the median and the worst wall time (goal: every hook
# returns within 1 s) and the exit codes seen.
#
# Usage: RAGGER_BIN=target/release/ragger scripts/bench/hook-hostile.sh
set -euo pipefail
bin=${RAGGER_BIN:?set RAGGER_BIN to the ragger binary}
runs=${RUNS:-10}
tmp=$(mktemp -d)
holder=""
cleanup() {
  [[ -z $holder ]] || kill "$holder" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
export RAGGER_SYSTEM_CONFIG=/nonexistent RAGGER_CONFIG=$tmp/config.toml XDG_STATE_HOME=$tmp/state
printf '[embedder]\nenabled = false\n' >"$tmp/config.toml"
db=$tmp/ragger.db
"$bin" --db "$db" capture --session s0 --user 'first' --assistant 'turn' -q
mkfifo "$tmp/fifo.jsonl"
python3 "$(dirname "$0")/claude_transcript.py" 3 "$tmp/t.jsonl" 0 --stop "$tmp/stop.json"
stop() { printf '{"session_id":"s","transcript_path":"%s","cwd":"/w","hook_event_name":"Stop"}' "$1"; }

# One case: NAME then a command line run through bash; appends the times.
case_() {
  local name=$1 cmd=$2
  for _ in $(seq "$runs"); do
    local t0 t1 code=0
    t0=$(date +%s%N)
    timeout 10 bash -c "$cmd" >/dev/null 2>"$tmp/err" || code=$?
    t1=$(date +%s%N)
    printf '%s\t%d\t%d\n' "$name" $(((t1 - t0) / 1000000)) "$code" >>"$tmp/times.tsv"
  done
}
: >"$tmp/times.tsv"
case_ "Stop, transcript_path a FIFO nobody writes" "$bin --db $db hook claude-code <<<'$(stop "$tmp/fifo.jsonl")'"
case_ "Stop, transcript_path /dev/zero" "$bin --db $db hook claude-code <<<'$(stop /dev/zero)'"
# The writer keeps the pipe open and outlives the hook; `exec` makes the
# time the hook's alone (a pipeline would wait for the writer too).
case_ "Stop, stdin never closed (input never sent)" "exec $bin --db $db hook claude-code < <(sleep 5)"
case_ "Stop, half an input and stdin never closed" "exec $bin --db $db hook claude-code < <(printf '{\"session_id\":'; sleep 5)"
case_ "codex, stdin never closed" "exec $bin --db $db hook codex < <(sleep 5)"
# Another process holds the write lock (a long pass or forget).
python3 - "$db" >"$tmp/lock.log" 2>&1 <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(120)
PY
holder=$!
until grep -q locked "$tmp/lock.log" 2>/dev/null; do sleep 0.05; done
case_ "Stop, database write-locked by another process" "$bin --db $db hook claude-code < $tmp/stop.json"
case_ "codex, database write-locked by another process" \
  "$bin --db $db hook codex '{\"type\":\"agent-turn-complete\",\"thread-id\":\"c1\",\"turn-id\":\"t'\$RANDOM\$RANDOM'\",\"input-messages\":[\"run the tests\"],\"last-assistant-message\":\"ok\"}'"
kill "$holder"; wait "$holder" 2>/dev/null || true; holder=""

python3 - "$tmp/times.tsv" "$(cut -d' ' -f1-3 /proc/loadavg)" "$runs" <<'PY'
import sys, statistics
path, load, runs = sys.argv[1:]
rows = {}
for line in open(path):
    name, ms, code = line.rstrip("\n").split("\t")
    rows.setdefault(name, []).append((int(ms), int(code)))
print(f"_`scripts/bench/hook-hostile.sh`, {runs} runs a case, load average {load} at the end._\n")
print("| Case | median | worst | exit codes | within 1 s |")
print("|---|---|---|---|---|")
worst = 0
for name, xs in rows.items():
    ms = [m for m, _ in xs]
    codes = ", ".join(str(c) for c in sorted({c for _, c in xs}))
    worst = max(worst, max(ms))
    print(f"| {name} | {statistics.median(ms):.0f} ms | {max(ms)} ms | {codes} | {'yes' if max(ms) < 1000 else 'NO'} |")
print(f"\nWorst of all: {worst} ms.")
PY
