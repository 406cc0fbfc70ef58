#!/usr/bin/env bash
# Summary-quality benchmark (issue 31): backfills a LoCoMo conversation with
# one or two ragger binaries and holds each session's summaries (its L3s
# joined) against the written session summary and the annotated facts,
# beside the session's first words cut to ragger's length and the same GGUF
# asked directly through llama.cpp's llama-server; then the context block
# against the newest written summaries and raw turns of the same length,
# and the share of rows the model wrote. Prints the tables and writes the
# "## Summary quality (issue 31)" section of BENCHMARKS.md.
#
# Usage: scripts/bench/summaries.sh [--bin PATH | --before PATH --after PATH]
#            [--max-turns N] [--threads N] [--model-path GGUF] [--data FILE]
#            [--no-server] [--config-extra TOML] [--keep DIR] [--out FILE]
#            [--no-write] [--json FILE]
#   --bin PATH       one ragger binary (default: target/release/ragger)
#   --before PATH, --after PATH
#                    two binaries in one run, each backfilling its own database
#                    (copy a build aside first: a rebuild changes the file)
#   --max-turns N    capture only the first N turns (a quick run; the full
#                    conversation is 214 turns, about 10+ minutes a binary on 2 busy cores)
#   --threads N      threads of the local model, the embedder and llama-server (0: all)
#   --model-path F   the GGUF for both ragger and llama-server (default: ragger's default model)
#   --data FILE      a LoCoMo JSON file (default: ../shared/data/locomo/locomo_conv26.json)
#   --no-server      leave out the llama-server row (else scripts/llama-server.sh
#                    builds llama-server once, about 3 minutes; if that fails the
#                    row is left out and the output says why)
#   --no-write       print the tables, leave BENCHMARKS.md alone
# Python: rouge-score (with nltk) is installed once into
# ${XDG_CACHE_HOME:-~/.cache}/ragger/bench-venv (pip; pinned versions).
# Also reachable as `scripts/bench/memory.sh --summaries ...`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
prog=summaries
die() { echo "$prog: $1" >&2; exit "${2:-1}"; }
bin=""
before=""
after=""
server=1
args=()
cmd="scripts/bench/summaries.sh"
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin|--before|--after)
      [[ $# -ge 2 ]] || die "$1 needs a path" 2
      case $1 in --bin) bin=$2 ;; --before) before=$2 ;; --after) after=$2 ;; esac
      cmd+=" $1 $(printf '%q' "$2")"; shift 2 ;;
    --no-server) server=0; cmd+=" --no-server"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); cmd+=" $(printf '%q' "$1")"; shift ;;
  esac
done
if [[ -n $before || -n $after ]]; then
  [[ -n $before && -n $after ]] || die "--before and --after go together" 2
  [[ -z $bin ]] || die "--bin or --before/--after, not both" 2
  bins=(--before "$before" --after "$after")
else
  [[ -n $bin ]] || bin=${CARGO_TARGET_DIR:-$root/target}/release/ragger
  bins=(--after "$bin")
fi
command -v python3 >/dev/null || die "python3 is needed" 69

# rouge-score and nltk in a venv of their own, made once.
cache_home=${XDG_CACHE_HOME:-$HOME/.cache}
venv=$cache_home/ragger/bench-venv
pins=(rouge-score==0.1.2 nltk==3.10.4 absl-py==2.5.1 numpy==2.4.6 six==1.17.0)
if ! "$venv/bin/python" -c 'import rouge_score, nltk' 2>/dev/null; then
  echo "$prog: installing ${pins[*]} into $venv (once)" >&2
  python3 -m venv "$venv" || die "cannot make a venv at $venv (apt install python3-venv)"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}" >&2 || die "pip install ${pins[*]} failed"
fi

# llama-server is built (once) after the backfills, by summaries.py.
server_args=()
[[ $server == 0 ]] || server_args=(--server-script "$root/scripts/llama-server.sh")
PYTHONDONTWRITEBYTECODE=1 exec "$venv/bin/python" "$root/scripts/bench/summaries.py" "${bins[@]}" \
  ${server_args[@]+"${server_args[@]}"} --command "$cmd" ${args[@]+"${args[@]}"}
