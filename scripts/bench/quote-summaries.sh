#!/usr/bin/env bash
# Print what ragger remembers of the demo conversation (scripts/demo.sh's six
# turns) and of an agent transcript (tests/fixtures/claude-code.jsonl) after a
# backfill with the embedded defaults: every L2, L3 and L4 text with its
# length and origin, as Markdown to quote in BENCHMARKS.md or an issue's
# closing note (issue 31).
#
# Usage: scripts/bench/quote-summaries.sh [--bin PATH] [--transcript FILE]...
#            [--threads N] [--model-path GGUF] [--no-demo] [--keep DIR]
#            [--config-extra TOML] [--write]
#   --bin PATH         ragger binary (default: target/release/ragger)
#   --transcript FILE  a Claude Code transcript (repeatable; default the fixture)
#   --config-extra TOML
#                      a TOML snippet added to the config, e.g.
#                      '[summaries]\nl3_digest = false' (the model's prose folds)
#   --write            also write them as the "## Summaries quoted (issue 31)"
#                      section of BENCHMARKS.md
# Needs python3 (standard library only) and the models fetched by
# scripts/fetch-models.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${CARGO_TARGET_DIR:-$root/target}/release/ragger
args=()
cmd="scripts/bench/quote-summaries.sh"
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) [[ $# -ge 2 ]] || { echo "quote-summaries: --bin needs a path" >&2; exit 2; }; bin=$2; cmd+=" --bin $(printf '%q' "$2")"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
command -v python3 >/dev/null || { echo "quote-summaries: python3 is needed" >&2; exit 69; }
for x in ${args[@]+"${args[@]}"}; do cmd+=" $(printf '%q' "$x")"; done
PYTHONDONTWRITEBYTECODE=1 exec python3 "$root/scripts/bench/quote_summaries.py" --bin "$bin" --command "$cmd" ${args[@]+"${args[@]}"}
