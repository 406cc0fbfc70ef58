#!/usr/bin/env bash
# Search latency with exact cosine over all stored vectors: fills a temporary
# database with random unit vectors (and random L2 texts for FTS) at each
# size, then times `ragger search` (median of 5). Reports the vector scan and
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

# One real turn summary, embedded by ragger, gives the current model id.
"$bin" --db "$db" reembed --dry-run > /dev/null
"$python" - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (1, 'bench', 'p', 0, 0, 0)")
c.execute("INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens) VALUES (1, 1, 0, 0, '', '', 0)")
c.execute("UPDATE turns SET l2 = 'The user asked why the nightly backup failed on a full disk.', l2_state = 'done' WHERE id = 1")
c.commit()
PY
"$bin" --db "$db" reembed

fill() {
  "$python" - "$db" "$1" <<'PY'
import sqlite3, sys, numpy as np
db, target = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
c.execute("PRAGMA synchronous=OFF")
model, dim = c.execute("SELECT model, dim FROM embeddings LIMIT 1").fetchone()
have = c.execute("SELECT max(id) FROM turns").fetchone()[0]
words = np.array("""backup disk database lock timeout query index vector search summary session project deploy
kubernetes pod error retry network latency cache memory thread rust python function test build release version
config file path folder permission restore log rotate cron schedule model embedding token batch meeting budget""".split())
rng = np.random.default_rng(have)
chunk = 20000
for start in range(have + 1, target + 1, chunk):
    ids = range(start, min(start + chunk, target + 1))
    v = rng.standard_normal((len(ids), dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    text = [" ".join(rng.choice(words, 12)) for _ in ids]
    c.executemany("INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens, l2, l2_state)"
                  " VALUES (?, 1, ?, 0, '', '', 0, ?, 'done')", ((i, i, t) for i, t in zip(ids, text)))
    c.executemany("INSERT INTO embeddings VALUES ('l2', ?, 1, ?, ?, ?, 0)",
                  ((i, model, dim, row.astype('<f4').tobytes()) for i, row in zip(ids, v)))
    c.commit()
c.execute("INSERT INTO l2_fts(l2_fts) VALUES ('rebuild')")
c.commit()
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

printf '%-10s %12s %12s %12s %12s\n' vectors "scan ms" "keyword ms" "query ms" "wall ms"
for size in "${sizes[@]}"; do
  fill "$size"
  "$bin" --db "$db" search "backup failed disk" > /dev/null   # warm the page cache
  : > "$tmp/t.tsv"
  for _ in 1 2 3 4 5; do
    t0=$(ms)
    "$bin" -v --db "$db" search "why did the nightly backup fail" > /dev/null 2> "$tmp/err"
    t1=$(ms)
    sed -n 's/.*query vector \([0-9]*\) ms; \([0-9]*\) vectors compared in \([0-9]*\) ms; [0-9]* keyword matches in \([0-9]*\) ms/\3\t\4\t\1/p' "$tmp/err" \
      | awk -v w=$((t1 - t0)) '{print $0 "\t" w}' >> "$tmp/t.tsv"
  done
  [[ -s $tmp/t.tsv ]] || { cat "$tmp/err" >&2; exit 1; }
  printf '%-10s %12s %12s %12s %12s\n' "$size" "$(cut -f1 "$tmp/t.tsv" | median)" "$(cut -f2 "$tmp/t.tsv" | median)" \
    "$(cut -f3 "$tmp/t.tsv" | median)" "$(cut -f4 "$tmp/t.tsv" | median)"
done
echo "(scan: exact cosine over every vector; query: embedder load + query embedding; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg))"
