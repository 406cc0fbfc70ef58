#!/usr/bin/env bash
# Benchmark the memory model on turn summaries (L2): the in-process `local`
# backend against the same GGUF served by llama.cpp's own server
# (`llama-server`) over the `openai` backend, in one run.
#
# llama-server comes from scripts/llama-server.sh (built once, about 3
# minutes on 2 cores, from the llama.cpp that a pinned PyPI sdist vendors,
# with the same CPU flags as ragger's build).
#
# Reports model load time, latency per call (median and p90 over N turns),
# and the split each backend reports: prompt tokens evaluated (not cached),
# prompt time, generation time per output token. The server samples with the
# local backend's repetition penalty, but the two still write replies of
# different length, so compare the split too. With --threads-effect also the
# local backend at 1 thread and at llama.cpp's own default of 4. The backends
# take turns call by call, so a busy machine slows them alike.
#
# Usage: scripts/bench/local-model.sh [--turns N] [--threads N] [--max-tokens N]
#                                     [--no-server] [--threads-effect] [--show]
# Environment: RAGGER_TEST_GGUF (default: the data folder's SmolLM2),
#              CARGO_TARGET_DIR (as cargo).
set -euo pipefail

prog=local-model-bench
die() { echo "$prog: $*" >&2; exit 1; }

root=$(cd "$(dirname "$0")/../.." && pwd)
turns=50
threads=$(nproc)
max_tokens=120
server=1
threads_effect=0
show=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --turns) turns=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --max-tokens) max_tokens=$2; shift 2 ;;
    --no-server) server=0; shift ;;
    --threads-effect) threads_effect=1; shift ;;
    --show) show=(--show); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$prog: unknown argument: $1" >&2; exit 2 ;;
  esac
done

# --- the model ---------------------------------------------------------------
if [[ -n ${RAGGER_TEST_GGUF:-} ]]; then
  gguf=$RAGGER_TEST_GGUF
else
  "$root/scripts/fetch-models.sh" --only llm -q
  data_home=${XDG_DATA_HOME:-}
  [[ -n $data_home ]] || data_home=$HOME/.local/share
  gguf=${RAGGER_DATA_DIR:-$data_home/ragger}/models/SmolLM2-135M-Instruct.Q4_1.gguf
fi
[[ -f $gguf ]] || die "model not found: $gguf"

# --- the benchmark binary ----------------------------------------------------
echo "$prog: building examples/local_bench (release)" >&2
(cd "$root" && cargo build --release --quiet --example local_bench) || die "build failed"
target_dir=${CARGO_TARGET_DIR:-$root/target}
bench=$target_dir/release/examples/local_bench
common=(--model "$gguf" --turns "$turns" --max-tokens "$max_tokens" "${show[@]}")

# --- the server --------------------------------------------------------------
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

server_args=()
if [[ $server == 1 ]]; then
  llama_server=$("$root/scripts/llama-server.sh") || die "no llama-server"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  log=$(mktemp "${TMPDIR:-/tmp}/ragger-bench-server.XXXXXX")
  start_ns=$(date +%s%N)
  # One slot, as ragger makes one call at a time; prompt caching is on (the
  # server's default). The repetition penalty is the local backend's, so that
  # both sample alike (greedy at temperature 0) and write replies of similar
  # length.
  "$llama_server" --model "$gguf" --host 127.0.0.1 --port "$port" \
    --threads "$threads" --threads-batch "$threads" --ctx-size 4096 --parallel 1 --log-disable \
    --repeat-penalty 1.15 --repeat-last-n 64 \
    >"$log" 2>&1 &
  server_pid=$!
  url=http://127.0.0.1:$port/v1
  for _ in $(seq 600); do
    if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then break; fi
    kill -0 "$server_pid" 2>/dev/null || die "server exited: $(tail -n3 "$log")"
    sleep 0.1
  done
  curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 || die "server did not come up in 60 s (log: $log)"
  server_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  server_args=(--server "$url" --server-threads "$threads" --server-load-ms "$server_ms")
fi

# --- run ---------------------------------------------------------------------
echo "$prog: $turns turn summaries, max_tokens $max_tokens, temperature 0, $(nproc) cores, model $(basename "$gguf")" >&2
echo "$prog: server load_ms = process start until /health answers" >&2
local_threads=$threads
[[ $threads_effect == 0 ]] || local_threads="$threads,1,4"
"$bench" "${common[@]}" --threads "$local_threads" "${server_args[@]}"
