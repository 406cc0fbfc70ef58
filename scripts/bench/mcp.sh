#!/usr/bin/env bash
# `ragger mcp` search against `ragger search` on the same database of
# 100,000 embedded turns (random text and random unit turn vectors, filled
# by scripts/bench/fill_turns.py as for scripts/bench/search.sh): median wall time of 5 queries
# each, the MCP ones as tools/call round trips of one client session (and
# one session's start + initialize). Prints a Markdown section on stdout.
#
# Usage: scripts/bench/mcp.sh [SIZE]          (default 100000)
# Environment: PYTHON (needs numpy), RAGGER_BIN, RAGGER_TEST_MODEL_DIR,
# ORT_DYLIB_PATH, as for scripts/bench/search.sh.
set -euo pipefail

cd "$(dirname "$0")/../.."
size=${1:-100000}
data=${XDG_DATA_HOME:-$HOME/.local/share}/ragger
model_dir=${RAGGER_TEST_MODEL_DIR:-$data/models/all-MiniLM-L6-v2}
runtime=${ORT_DYLIB_PATH:-$data/lib/libonnxruntime.so}
[[ -f $model_dir/model.onnx && -e $runtime ]] || { echo "bench: model or runtime missing; run scripts/fetch-models.sh" >&2; exit 1; }
python=${PYTHON:-python3}
"$python" -c 'import numpy' 2>/dev/null || { echo "bench: $python lacks numpy" >&2; exit 1; }
bin=${RAGGER_BIN:-}
if [[ -z $bin ]]; then
  cargo build --release --quiet
  bin=$PWD/target/release/ragger
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RAGGER_SYSTEM_CONFIG=/nonexistent RAGGER_CONFIG=$tmp/config.toml RAGGER_DB=$tmp/bench.db
printf '[embedder]\nruntime_path = "%s"\nmodel_dir = "%s"\n' "$runtime" "$model_dir" > "$tmp/config.toml"
db=$tmp/bench.db
load=$(cut -d' ' -f1-3 /proc/loadavg)

"$bin" reembed --dry-run > /dev/null
"$python" scripts/bench/fill_turns.py seed "$db"
"$bin" reembed
"$python" scripts/bench/fill_turns.py fill "$db" "$size"

query="why did the nightly backup fail"
"$bin" search "$query" > /dev/null   # warm the page cache
cli=()
for _ in 1 2 3 4 5; do
  t0=$(date +%s%N); "$bin" search "$query" > /dev/null; t1=$(date +%s%N)
  cli+=($(( (t1 - t0) / 1000000 )))
done
cli_ms=$(printf '%s\n' "${cli[@]}" | sort -n | sed -n 3p)

read -r start_ms mcp_ms < <("$python" - "$bin" "$query" <<'PY'
import json, subprocess, sys, time
bin, query = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
p = subprocess.Popen([bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n"); p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"); p.stdin.flush()
start = (time.monotonic() - t0) * 1e3
times = []
for i in range(5):
    t = time.monotonic()
    r = call(10 + i, "tools/call", {"name": "search", "arguments": {"query": query, "limit": 10}})
    assert not r["result"].get("isError"), r
    assert "backup disk was full" in r["result"]["content"][0]["text"], r  # the real turn
    times.append((time.monotonic() - t) * 1e3)
p.stdin.close(); p.wait()
print(f"{start:.0f} {sorted(times)[2]:.0f}")
PY
)

cat <<MD
## MCP search vs ragger search

_Measured by \`scripts/bench/mcp.sh\`, ragger $(git rev-parse --short HEAD), load average $load when it started ($(nproc) cores)._

| Figure | Result | Goal | Verdict |
|---|---|---|---|
| \`ragger search\`, $size embedded turns, median of 5 (wall, process start included) | $cli_ms ms | | |
| \`ragger mcp\` tools/call search, same query and database, median of 5 | $mcp_ms ms | within the time of \`ragger search\` | $( (( mcp_ms <= cli_ms * 11 / 10 )) && echo met || echo "not met") |
| \`ragger mcp\` start + initialize | $start_ms ms | | |

Each MCP call opens the database and loads the embedder for the query, as \`ragger search\` does.
MD
