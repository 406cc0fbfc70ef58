#!/usr/bin/env bash
# Choose the embedded memory model by measurement (issue 20): with every
# candidate GGUF in turn, in one run, the model benchmark (load, L2
# latency, tokens/s, peak RSS), the memory benchmark (a backfill of real
# dialogue from ../shared/data: speed, model calls, faithfulness, recall)
# and the segmentation benchmark; then the table, the choosing rule applied
# to it, and the "## Choosing the embedded memory model" section of
# BENCHMARKS.md. Fetches the candidates (scripts/fetch-models.sh --model).
# About an hour on 2 cores, most of it Qwen's backfill.
#
# Usage: scripts/bench/models.sh [--bin PATH] [--models A,B] [--max-turns N]
#            [--bench-turns N] [--seg-limit N] [--threads N] [--out FILE] [--no-write]
#   --bin PATH       ragger binary (default: target/release/ragger, built)
#   --models A,B     fetch-models.sh names (default: smollm2-135m,qwen2.5-coder-0.5b)
#   --max-turns N    LoCoMo turns of the backfill (default 200)
#   --bench-turns N  L2 calls of the model benchmark (default 30)
#   --seg-limit N    dialogues per segmentation set and model (default 4)
#   --threads N      threads of the model benchmark (default 2)
#   --no-write       print the table, leave BENCHMARKS.md alone
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=""
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) [[ $# -ge 2 ]] || { echo "models: --bin needs a path" >&2; exit 2; }; bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
command -v python3 >/dev/null || { echo "models: python3 is needed" >&2; exit 69; }
[[ -x /usr/bin/time ]] || { echo "models: /usr/bin/time is needed (apt-get install time)" >&2; exit 69; }
echo "models: building ragger and examples/local_bench (release)" >&2
(cd "$root" && cargo build --release --quiet --bin ragger --example local_bench) || { echo "models: build failed" >&2; exit 1; }
target_dir=${CARGO_TARGET_DIR:-$root/target}
[[ -n $bin ]] || bin=$target_dir/release/ragger
cmd="scripts/bench/models.sh"
for x in ${args[@]+"${args[@]}"}; do cmd+=" $(printf '%q' "$x")"; done
PYTHONDONTWRITEBYTECODE=1 exec python3 "$root/scripts/bench/models.py" --bin "$bin" \
  --bench "$target_dir/release/examples/local_bench" --command "$cmd" ${args[@]+"${args[@]}"}
