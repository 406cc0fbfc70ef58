#!/usr/bin/env bash
# Whether the memory model can write a conversation's summaries (L3, L4)
# itself (issue 31): a LoCoMo conversation captured one session at a time,
# `ragger housekeeping -v` after each, with the design's prose folds
# (`[summaries] l3_digest = false`) or, with --digest, the default digest.
# Prints the rows by origin, fact recall, why replies were refused, and
# every L3 the model wrote.
#
# Usage: scripts/bench/prose-folds.sh --bin PATH --model-path GGUF
#            [--sessions N] [--digest] [--threads N] [--data FILE] [--keep DIR]
# Uses the Python of scripts/bench/summaries.sh's venv (nltk's Porter
# stemmer, for fact recall), made by a run of that script.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${XDG_CACHE_HOME:-$HOME/.cache}/ragger/bench-venv/bin/python
[[ -x $py ]] || { echo "prose-folds: no venv at $py (run scripts/bench/summaries.sh once)" >&2; exit 69; }
PYTHONDONTWRITEBYTECODE=1 exec "$py" "$root/scripts/bench/prose_folds.py" "$@"
