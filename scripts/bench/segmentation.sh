#!/usr/bin/env bash
# Topic segmentation benchmark (issues 13, 32): runs the real binary
# (capture → summarize --once with the real embedder → show --json) over
# one set of each kind of conversation (task dialogue, chit-chat, joined
# conversations, coding-agent sessions, LoCoMo sessions without labels),
# prints one table (F1, Pk, WindowDiff with k = half the mean true segment
# length and at least 2, segments per 10 turns, one-turn segments) per set
# and variant beside the trivial baselines, with BEFORE (--before) and AFTER
# from the same run, and writes the "## Segmentation across kinds" section
# of BENCHMARKS.md.
#
# Usage: scripts/bench/segmentation.sh [--limit N] [--data DIR|FILE]...
#            [--bin PATH] [--before PATH] [--local] [--variant TOML]...
#            [--joined N] [--agents FILE] [--locomo FILE] [--jobs 1|2]
#            [--threads N] [--seed S] [--out FILE] [--section NAME]
#            [--no-write] [--keep DIR]
#   --limit N      first N dialogues per set (default: all; 200 joined
#                  sessions)
#   --data DIR     folder of *.jsonl sets ({"id","dialogue"} a line, see
#                  ../shared/data/README.md) or one .jsonl file; repeatable
#                  (default: <repo>/../shared/data/segmentation)
#   --bin PATH     ragger binary (default: target/release/ragger)
#   --before PATH  another ragger binary (main's code) run in the same run
#                  on the same dialogues as the BEFORE rows
#   --agents FILE  coding-agent sessions, {"id","dialogue"} a line
#                  (default: scripts/bench/data/agents.jsonl; '' for none)
#   --locomo FILE  LoCoMo file whose sessions are measured without labels
#                  (default: ../shared/data/locomo/locomo_conv26.json; '')
#   --section NAME the BENCHMARKS.md heading written (default
#                  "Segmentation across kinds")
#   --local        memory model: the embedded local default (slow; use
#                  --limit) instead of the extractive stand-in server
#                  (scripts/bench/extractive_server.py, instant, never
#                  answers NO_MERGE)
#   --variant TOML a TOML snippet added to the config, e.g.
#                  $'[summaries]\nsegmenter = "embedding"' (a literal \n
#                  also works; @FILE reads a file); repeat to run several
#                  variants in one go (default: the config default only)
#   --joined N     joined sessions (default: --limit if given, else 200):
#                  each joins 2-3 pieces of different dialogues of the sets
#                  (seeded by --seed), boundaries at the joins only; a piece
#                  is one topic by its dialogue's own reference: the first
#                  run of at least 2 turns (user words and replies) that lie
#                  whole inside one reference segment, cut to 4 turns; a
#                  dialogue without one gives no piece
#   --jobs N       databases run in parallel (at most 2; default 2)
#   --threads N    CPU threads per process, local model and embedder
#                  (default 1: llama.cpp threads spin, and two processes
#                  with two threads each on a busy machine crawl)
#   --no-write     print the table, leave BENCHMARKS.md alone
#   --keep DIR     keep every dialogue's database (DIR/variantN/SET/ID.db)
#                  and the sets with their gold boundaries (DIR/SET.json),
#                  to study the stored turn vectors offline
# Needs python3 (standard library only) and the models fetched by
# scripts/fetch-models.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/target/release/ragger
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) [[ $# -ge 2 ]] || { echo "segmentation: --bin needs a path" >&2; exit 2; }; bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
command -v python3 >/dev/null || { echo "segmentation: python3 is needed" >&2; exit 69; }
cmd="scripts/bench/segmentation.sh"
for x in ${args[@]+"${args[@]}"}; do cmd+=" $(printf '%q' "$x")"; done
PYTHONDONTWRITEBYTECODE=1 exec python3 "$root/scripts/bench/segmentation.py" --bin "$bin" --command "$cmd" ${args[@]+"${args[@]}"}
