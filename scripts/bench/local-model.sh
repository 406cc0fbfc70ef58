#!/usr/bin/env bash
# Benchmark the memory model on turn summaries (L2): the in-process `local`
# backend against the same GGUF served by llama.cpp's server
# (llama-cpp-python[server], in a venv) over the `openai` backend, in one run.
#
# Reports model load time and latency per call (median and p90 over N turns)
# as a table; with --threads-effect also the local backend at 1 thread and at
# llama.cpp's own default of 4. The backends take turns call by call, so a
# busy machine slows them alike.
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

cache_home=${XDG_CACHE_HOME:-}
[[ -n $cache_home ]] || cache_home=$HOME/.cache
venv=$cache_home/ragger/venv
# Pinned so the comparison is repeatable; it builds llama.cpp from source
# (several minutes the first time).
server_pkg='llama-cpp-python[server]==0.3.36'

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
  if ! "$venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
    echo "$prog: installing $server_pkg into $venv (builds llama.cpp; takes minutes)" >&2
    python3 -m venv "$venv" || die "cannot create a venv in $venv (install python3-venv)"
    "$venv/bin/pip" install -q "$server_pkg" || die "cannot install $server_pkg"
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  log=$(mktemp "${TMPDIR:-/tmp}/ragger-bench-server.XXXXXX")
  start_ns=$(date +%s%N)
  "$venv/bin/python" -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" \
    --n_threads "$threads" --n_threads_batch "$threads" --n_ctx 4096 --verbose False \
    >"$log" 2>&1 &
  server_pid=$!
  url=http://127.0.0.1:$port/v1
  for _ in $(seq 600); do
    if curl -fsS "$url/models" >/dev/null 2>&1; then break; fi
    kill -0 "$server_pid" 2>/dev/null || die "server exited: $(tail -n3 "$log")"
    sleep 0.1
  done
  curl -fsS "$url/models" >/dev/null 2>&1 || die "server did not come up in 60 s (log: $log)"
  server_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  server_args=(--server "$url" --server-threads "$threads" --server-load-ms "$server_ms")
fi

# --- run ---------------------------------------------------------------------
echo "$prog: $turns turn summaries, max_tokens $max_tokens, temperature 0, $(nproc) cores, model $(basename "$gguf")" >&2
echo "$prog: server load_ms = process start until /v1/models answers" >&2
local_threads=$threads
[[ $threads_effect == 0 ]] || local_threads="$threads,1,4"
"$bench" "${common[@]}" --threads "$local_threads" "${server_args[@]}"
