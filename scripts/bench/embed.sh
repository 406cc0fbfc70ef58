#!/usr/bin/env bash
# Embedding throughput: `ragger embed --stdin` against the Python
# onnxruntime + tokenizers reference (scripts/embed-reference.py bench) on
# the same 1,000 turn-length texts, same model files, same threads and batch
# size, alternating runs in one go; plus model load time.
#
# Usage: scripts/bench/embed.sh [-n TEXTS] [-r ROUNDS] [-t THREADS] [-b BATCH]
# Environment:
#   PYTHON      interpreter with onnxruntime, tokenizers and numpy
#               (default .venv-embed/bin/python, else python3; see the header
#               of scripts/embed-reference.py)
#   RAGGER_BIN  ragger binary (default: cargo build --release, target/release/ragger)
#   RAGGER_TEST_MODEL_DIR, ORT_DYLIB_PATH   model folder / runtime (default: the data folder)
set -euo pipefail

cd "$(dirname "$0")/../.."
n=1000 rounds=3 threads=$(nproc) batch=32
while getopts "n:r:t:b:" opt; do
  case $opt in
    n) n=$OPTARG ;; r) rounds=$OPTARG ;; t) threads=$OPTARG ;; b) batch=$OPTARG ;;
    *) sed -n '2,14p' "$0" >&2; exit 2 ;;
  esac
done

data=${XDG_DATA_HOME:-$HOME/.local/share}/ragger
model_dir=${RAGGER_TEST_MODEL_DIR:-$data/models/all-MiniLM-L6-v2}
runtime=${ORT_DYLIB_PATH:-$data/lib/libonnxruntime.so}
[[ -f $model_dir/model.onnx && -e $runtime ]] || { echo "bench: model or runtime missing; run scripts/fetch-models.sh" >&2; exit 1; }

python=${PYTHON:-}
if [[ -z $python ]]; then
  if [[ -x .venv-embed/bin/python ]]; then python=.venv-embed/bin/python; else python=python3; fi
fi
"$python" -c 'import onnxruntime, tokenizers, numpy' 2>/dev/null \
  || { echo "bench: $python lacks onnxruntime/tokenizers/numpy (see scripts/embed-reference.py)" >&2; exit 1; }

bin=${RAGGER_BIN:-}
if [[ -z $bin ]]; then
  cargo build --release --quiet
  bin=target/release/ragger
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Turn-length texts (30-250 words, one per line), the same every run.
"$python" - "$n" > "$tmp/texts.txt" <<'PY'
import random, sys
random.seed(20261129)
words = """the user asked assistant database migration sqlite lock timeout query index vector search
summary session project deploy kubernetes pod error retry network latency cache memory thread rust
python function test build release version config file path folder permission backup restore disk
full log rotate cron schedule model embedding token batch meeting budget launch plan design review
bug fix patch merge branch commit refactor module interface performance because however then""".split()
for _ in range(int(sys.argv[1])):
    print(" ".join(random.choice(words) for _ in range(random.randint(30, 250))).capitalize() + ".")
PY

export RAGGER_SYSTEM_CONFIG=/nonexistent RAGGER_CONFIG=$tmp/config.toml
printf '[embedder]\nruntime_path = "%s"\nmodel_dir = "%s"\nthreads = %s\nbatch_size = %s\n' \
  "$runtime" "$model_dir" "$threads" "$batch" > "$tmp/config.toml"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: > "$tmp/ragger.tsv"; : > "$tmp/python.tsv"
for ((r = 1; r <= rounds; r++)); do
  t0=$(ms)
  "$bin" -v embed --stdin < "$tmp/texts.txt" > "$tmp/out.jsonl" 2> "$tmp/err"
  t1=$(ms)
  [[ $(wc -l < "$tmp/out.jsonl") -eq $n ]] || { cat "$tmp/err" >&2; echo "bench: ragger printed the wrong number of lines" >&2; exit 1; }
  load=$(sed -n 's/.* in \([0-9]*\) ms$/\1/p' "$tmp/err" | head -1)
  embed=$(sed -n 's/^ragger: embedded .* in \([0-9]*\) ms$/\1/p' "$tmp/err")
  echo -e "$load\t$embed\t$((t1 - t0))" >> "$tmp/ragger.tsv"

  t0=$(ms)
  "$python" scripts/embed-reference.py --model-dir "$model_dir" --threads "$threads" bench "$tmp/texts.txt" --batch-size "$batch" > "$tmp/py.json"
  t1=$(ms)
  "$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%d\t%d\t%s" % (d["load_ms"], d["embed_ms"], sys.argv[2]))' "$tmp/py.json" "$((t1 - t0))" >> "$tmp/python.tsv"
done

# Load time alone: ragger embedding one word, five times.
for _ in 1 2 3 4 5; do
  "$bin" -v embed warmup 2>&1 >/dev/null | sed -n 's/.* in \([0-9]*\) ms$/\1/p' | head -1
done > "$tmp/load.txt"

col() { cut -f"$1" "$2" | median; }
r_load=$(median < "$tmp/load.txt") r_embed=$(col 2 "$tmp/ragger.tsv") r_wall=$(col 3 "$tmp/ragger.tsv")
p_load=$(col 1 "$tmp/python.tsv") p_embed=$(col 2 "$tmp/python.tsv") p_wall=$(col 3 "$tmp/python.tsv")
echo "embedding $n texts ($(wc -w < "$tmp/texts.txt") words), threads $threads, batch $batch, median of $rounds rounds; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
printf '%-22s %10s %10s %10s %10s\n' implementation "load ms" "embed ms" "texts/s" "wall ms"
printf '%-22s %10s %10s %10.1f %10s\n' "ragger embed --stdin" "$r_load" "$r_embed" "$(echo "$n * 1000 / $r_embed" | bc -l)" "$r_wall"
printf '%-22s %10s %10s %10.1f %10s\n' "python reference" "$p_load" "$p_embed" "$(echo "$n * 1000 / $p_embed" | bc -l)" "$p_wall"
printf 'throughput ratio ragger/python: %.2f (goal >= 1.0); ragger load %s ms (goal < 300)\n' \
  "$(echo "$p_embed / $r_embed" | bc -l)" "$r_load"
