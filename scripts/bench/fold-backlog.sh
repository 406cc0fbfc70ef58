#!/usr/bin/env bash
# Fold rate on a large backlog whose L2s are all written: SESSIONS sessions
# of PER turns each, captured interleaved (turn i goes to session i mod
# SESSIONS, as when several agents run at once), every L2 then marked done
# in SQL, so a `summarize --once` pass only folds. The memory model is the
# extractive stand-in server on 127.0.0.1 (answers at once), the embedder
# is off: what is timed is ragger choosing, claiming and committing folds.
# Each binary gets its own copy of the backlog, captured by itself (an older
# binary refuses a newer schema); runs alternate between the binaries.
#
# Usage: scripts/bench/fold-backlog.sh [--baseline BIN] [--sessions N] [--per N]
#                                      [--seconds S] [--runs N]
# Environment: RAGGER_BIN (default: a release build of this tree).
set -euo pipefail

cd "$(dirname "$0")/../.."
baseline='' sessions=100 per=1000 seconds=15 runs=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --baseline) baseline=$2; shift 2 ;;
    --sessions) sessions=$2; shift 2 ;;
    --per) per=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "fold-backlog: unknown argument: $1" >&2; exit 2 ;;
  esac
done
bin=${RAGGER_BIN:-}
if [[ -z $bin ]]; then
  cargo build --release --quiet
  bin=target/release/ragger
fi
bin=$(realpath "$bin")
[[ -z $baseline ]] || baseline=$(realpath "$baseline")

tmp=$(mktemp -d)
server=''
cleanup() {
  [[ -z $server ]] || kill "$server" 2> /dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
export RAGGER_SYSTEM_CONFIG=/nonexistent

python3 scripts/bench/extractive_server.py > "$tmp/server.out" 2> "$tmp/server.err" &
server=$!
for _ in $(seq 50); do
  url=$(sed -n 's/^URL //p' "$tmp/server.out")
  [[ -n $url ]] && break
  sleep 0.1
done
[[ -n $url ]] || { echo "fold-backlog: the stand-in server did not start" >&2; exit 1; }
cat > "$tmp/config.toml" <<EOF
[memory_model]
backend = "openai"
url = "$url"
model = "extractive"

[embedder]
enabled = false
EOF

python3 - "$sessions" "$per" > "$tmp/turns.jsonl" <<'PY'
import json, sys
sessions, per = int(sys.argv[1]), int(sys.argv[2])
for i in range(sessions * per):
    print(json.dumps({
        "session": f"s{i % sessions}", "project": f"p{i % sessions % 10}",
        "at": f"2024-01-{1 + i // 86400:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
        "user": f"How do I configure part {i} of the build pipeline?",
        "assistant": f"Set option number {i} in the config file and run the build again.",
    }))
PY

names=(after)
bins=("$bin")
if [[ -n $baseline ]]; then
  names=(before after)
  bins=("$baseline" "$bin")
fi
for k in "${!bins[@]}"; do
  db="$tmp/${names[$k]}.db"
  "${bins[$k]}" --config "$tmp/config.toml" --db "$db" capture --stdin < "$tmp/turns.jsonl" > /dev/null
  sqlite3 "$db" "UPDATE turns SET l2_state = 'done', l2_model = 'stand-in',
    l2 = 'The user asked how to configure part ' || id || ' of the build pipeline; the assistant said to set option number ' || id || ' in the config file.'"
done

echo "fold-backlog: $((sessions * per)) turns in $sessions interleaved sessions, L2s done, $seconds s passes, $runs runs each, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
  for k in "${!bins[@]}"; do
    cp "$tmp/${names[$k]}.db" "$tmp/run.db"
    "${bins[$k]}" --config "$tmp/config.toml" --db "$tmp/run.db" summarize --once --json --max-seconds "$seconds" > "$tmp/report.json"
    jq -r --arg who "${names[$k]}" --arg run "$run" \
      '"\($who) run \($run): \(.l3_folds) L3 folds in \(.seconds * 10 | round / 10) s, \(.l3_folds / .seconds | round) folds/s"' \
      "$tmp/report.json"
  done
done
