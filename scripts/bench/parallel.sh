#!/usr/bin/env bash
# Backlog throughput of the embedded local model by `[memory_model]
# parallel` (issue 19): the same LoCoMo backlog summarised (L2) with
# parallel 1, 2, 4, 8 and folded (L3) with parallel 1 and 4 by the real
# binary, interleaved, with turns/s, folds/s, CPU time and peak RSS. Writes
# the "## Backlog throughput by parallel (local model)" section of
# BENCHMARKS.md.
#
# Usage: scripts/bench/parallel.sh [--bin PATH] [--data FILE] [--sessions N]
#            [--per-session N] [--parallel 1,2,4,8] [--fold-parallel 1,4]
#            [--reps N] [--fold-reps N] [--threads N] [--no-write]
#   --data FILE        a LoCoMo JSON file (default:
#                      <repo>/../shared/data/locomo/locomo_conv26.json)
#   --sessions, --per-session  the backlog: the first N turns of the first
#                      N sessions (default 4 × 8)
#   --parallel LIST    L2 settings, the first is the baseline
#   --fold-parallel LIST  fold settings ("" for none)
#   --threads N        model threads (default: all cores)
# Needs python3, /usr/bin/time and the model fetched by scripts/fetch-models.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/target/release/ragger
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) [[ $# -ge 2 ]] || { echo "parallel: --bin needs a path" >&2; exit 2; }; bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
command -v python3 >/dev/null || { echo "parallel: python3 is needed" >&2; exit 69; }
[[ -x /usr/bin/time ]] || { echo "parallel: /usr/bin/time is needed (apt-get install time)" >&2; exit 69; }
cmd="scripts/bench/parallel.sh"
for x in ${args[@]+"${args[@]}"}; do cmd+=" $(printf '%q' "$x")"; done
PYTHONDONTWRITEBYTECODE=1 exec python3 "$root/scripts/bench/parallel.py" --bin "$bin" --command "$cmd" ${args[@]+"${args[@]}"}
