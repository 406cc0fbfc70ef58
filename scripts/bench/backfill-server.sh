#!/usr/bin/env bash
# Backfill with the in-process local backend against llama.cpp's own
# server (issue 19): the same 200 LoCoMo turns (scripts/bench/memory.sh's
# workload, from ../shared/data) summarised once by ragger's `local`
# backend and once by `llama-server -np N` (continuous batching, built by
# scripts/llama-server.sh) through ragger's `openai` backend with the same
# `parallel`, one after the other in one run. Both use the default GGUF,
# the same repetition penalty and the embedding segmenter (with a server,
# `auto` would also ask the model for NO_MERGE verdicts: another workload).
#
# Usage: scripts/bench/backfill-server.sh [--bin PATH] [--parallel N] [--max-turns N]
set -euo pipefail
prog=backfill-server
root=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "$prog: $*" >&2; exit 1; }
bin=$root/target/release/ragger
parallel=1
turns=200
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --max-turns) turns=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done
"$root/scripts/fetch-models.sh" --only llm -q
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
gguf=${RAGGER_DATA_DIR:-$data_home/ragger}/models/SmolLM2-135M-Instruct.Q4_1.gguf
llama_server=$("$root/scripts/llama-server.sh") || die "no llama-server"
extra=$(printf '[memory_model]\nparallel = %s\n[summaries]\nsegmenter = "embedding"' "$parallel")
work=$(mktemp -d "${TMPDIR:-/tmp}/ragger-backfill-server.XXXXXX")
server_pid=""
cleanup() { [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

memory() { PYTHONDONTWRITEBYTECODE=1 python3 "$root/scripts/bench/memory.py" --bin "$bin" --max-turns "$turns" \
  --no-demo --no-write --config-extra "$extra" --json "$work/$1.json" "${@:2}" >"$work/$1.out" 2>&1 ||
  die "$1: $(tail -n 3 "$work/$1.out")"; }

echo "$prog: local backend, parallel $parallel, $turns turns" >&2
memory local --local

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$llama_server" --model "$gguf" --host 127.0.0.1 --port "$port" --threads "$(nproc)" --threads-batch "$(nproc)" \
  --ctx-size $((4096 * parallel)) --parallel "$parallel" --log-disable --repeat-penalty 1.15 --repeat-last-n 64 \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 600); do
  curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || die "server exited: $(tail -n 3 "$work/server.log")"
  sleep 0.1
done
echo "$prog: llama-server -np $parallel, parallel $parallel, $turns turns" >&2
memory server --server "http://127.0.0.1:$port/v1" --server-model "$(basename "$gguf")"

python3 - "$work" "$parallel" <<'PY'
import json, sys
work, parallel = sys.argv[1], sys.argv[2]
print(f"| backend (parallel {parallel}) | summarised in | turns/s | model calls a turn | ragger CPU | ragger peak RSS | recall@5 |")
print("|---|---|---|---|---|---|---|")
for name, label in (("local", "local (in-process)"), ("server", f"llama-server -np {parallel}")):
    s = json.load(open(f"{work}/{name}.json"))["sets"][0]
    print(f"| {label} | {s['seconds']:.0f} s | {s['turns'] / s['seconds']:.2f} | {s['model_calls'] / s['turns']:.2f} | "
          f"{s['cpu_s']:.0f} s | {s['peak_rss_mib']:.0f} MiB | {s['recall']['ragger search']:.3f} |")
PY
