#!/usr/bin/env bash
# Memory-quality benchmark (issue 14): captures a LoCoMo conversation as
# ragger sessions, summarises it with the embedded defaults, closes the
# sessions, and measures (a) faithfulness of the stored L2/L3 text (invented
# names and numbers, looping summaries), (b) recall@5 of `ragger search`
# beside BM25 and MiniLM-cosine baselines over the raw turns, (c) the share
# of scripts/demo.sh's key terms that `ragger search TERM` finds. Prints a
# table and writes the "## Memory quality" section of BENCHMARKS.md.
#
# Usage: scripts/bench/memory.sh [--bin PATH] [--local|--fake]
#            [--data FILE]... [--max-turns N] [--search-limit N]
#            [--jobs 1|2] [--threads N] [--model-path GGUF] [--no-demo] [--keep DIR] [--out FILE] [--no-write]
#   --bin PATH      ragger binary (default: target/release/ragger)
#   --local         the embedded local memory model (default; slow: about
#                   a second per turn summary and a few per fold)
#   --fake          the extractive stand-in server instead (fast; to test
#                   the script, not a model)
#   --data FILE     a LoCoMo-format JSON file (default:
#                   <repo>/../shared/data/locomo/locomo_conv26.json)
#   --max-turns N   capture only the first N turns
#   --model-path F  the local backend's GGUF (default: the default model;
#                   e.g. ~/.local/share/ragger/models/Qwen2.5-Coder-0.5B-Instruct.Q4_K_M.gguf)
#   --threads N     CPU threads of the local model and the embedder (default
#                   0: all cores; 1 is much faster on a busy machine)
#   --keep DIR      keep the databases in DIR
#   --no-write      print the table, leave BENCHMARKS.md alone
#   --summaries     instead, the summary-quality benchmark (issue 31):
#                   scripts/bench/summaries.sh with the other arguments
#                   (--bin, or --before and --after; see its --help)
# Needs python3 (standard library only) and the models fetched by
# scripts/fetch-models.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
for x in "$@"; do
  if [[ $x == --summaries ]]; then
    rest=()
    for y in "$@"; do [[ $y == --summaries ]] || rest+=("$y"); done
    exec "$root/scripts/bench/summaries.sh" ${rest[@]+"${rest[@]}"}
  fi
done
bin=$root/target/release/ragger
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) [[ $# -ge 2 ]] || { echo "memory: --bin needs a path" >&2; exit 2; }; bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
command -v python3 >/dev/null || { echo "memory: python3 is needed" >&2; exit 69; }
cmd="scripts/bench/memory.sh"
for x in ${args[@]+"${args[@]}"}; do cmd+=" $(printf '%q' "$x")"; done
PYTHONDONTWRITEBYTECODE=1 exec python3 "$root/scripts/bench/memory.py" --bin "$bin" --command "$cmd" ${args[@]+"${args[@]}"}
