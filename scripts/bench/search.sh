#!/usr/bin/env bash
# Search latency with exact cosine over all stored vectors: fills a temporary
# database with turns of random text and random unit turn vectors at each
# size (scripts/bench/fill_turns.py), then times `ragger search` (median of
# 5), checking that it finds the one real turn. Reports the vector scan and
# keyword times that `ragger -v search` prints, and the wall time of the
# whole command (which includes loading the embedder for the query).
#
# Usage: scripts/bench/search.sh [SIZE...]      (default: 10000 1000000)
# Environment: PYTHON (needs numpy), RAGGER_BIN, RAGGER_TEST_MODEL_DIR,
# ORT_DYLIB_PATH, as for scripts/bench/embed.sh.
set -euo pipefail

cd "$(dirname "$0")/../.."
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(10000 1000000)

data=${XDG_DATA_HOME:-$HOME/.local/share}/ragger
model_dir=${RAGGER_TEST_MODEL_DIR:-$data/models/all-MiniLM-L6-v2}
runtime=${ORT_DYLIB_PATH:-$data/lib/libonnxruntime.so}
[[ -f $model_dir/model.onnx && -e $runtime ]] || { echo "bench: model or runtime missing; run scripts/fetch-models.sh" >&2; exit 1; }
python=${PYTHON:-}
if [[ -z $python ]]; then
  if [[ -x .venv-embed/bin/python ]]; then python=.venv-embed/bin/python; else python=python3; fi
fi
"$python" -c 'import numpy' 2>/dev/null || { echo "bench: $python lacks numpy" >&2; exit 1; }
bin=${RAGGER_BIN:-}
if [[ -z $bin ]]; then
  cargo build --release --quiet
  bin=target/release/ragger
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RAGGER_SYSTEM_CONFIG=/nonexistent RAGGER_CONFIG=$tmp/config.toml
printf '[embedder]\nruntime_path = "%s"\nmodel_dir = "%s"\n' "$runtime" "$model_dir" > "$tmp/config.toml"
db=$tmp/bench.db

# One real turn, embedded by ragger, gives the current model id; it is the
# turn the query must find.
"$bin" --db "$db" reembed --dry-run > /dev/null
"$python" scripts/bench/fill_turns.py seed "$db"
"$bin" --db "$db" reembed

fill() { "$python" scripts/bench/fill_turns.py fill "$db" "$1"; }

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

printf '%-10s %12s %12s %12s %12s\n' vectors "scan ms" "keyword ms" "query ms" "wall ms"
for size in "${sizes[@]}"; do
  fill "$size"
  "$bin" --db "$db" search "backup failed disk" > /dev/null   # warm the page cache
  : > "$tmp/t.tsv"
  for _ in 1 2 3 4 5; do
    t0=$(ms)
    "$bin" -v --db "$db" search "why did the nightly backup fail" > "$tmp/out" 2> "$tmp/err"
    grep -q "backup disk was full" "$tmp/out" || { echo "bench: the search did not find the real turn" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(ms)
    sed -n 's/.*query vector \([0-9]*\) ms; \([0-9]*\) vectors compared in \([0-9]*\) ms; [0-9]* keyword matches in \([0-9]*\) ms/\3\t\4\t\1/p' "$tmp/err" \
      | awk -v w=$((t1 - t0)) '{print $0 "\t" w}' >> "$tmp/t.tsv"
  done
  [[ -s $tmp/t.tsv ]] || { cat "$tmp/err" >&2; exit 1; }
  printf '%-10s %12s %12s %12s %12s\n' "$size" "$(cut -f1 "$tmp/t.tsv" | median)" "$(cut -f2 "$tmp/t.tsv" | median)" \
    "$(cut -f3 "$tmp/t.tsv" | median)" "$(cut -f4 "$tmp/t.tsv" | median)"
done
echo "(scan: exact cosine over every vector; query: embedder load + query embedding; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg))"
