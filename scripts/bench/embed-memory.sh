#!/usr/bin/env bash
# Peak memory of the embedder by batch size (issue 19): 64 long texts (six
# LoCoMo utterances each, cut by the model to its 256 tokens) embedded by
# `ragger embed --stdin` under /usr/bin/time -v, one process per
# `[embedder] batch_size`, 1 thread. Prints peak RSS and wall time.
#
# Usage: scripts/bench/embed-memory.sh [--bin PATH] [--data FILE] [BATCH...]
#   --bin PATH   ragger binary (default: target/release/ragger)
#   --data FILE  LoCoMo-format JSON (default: ../shared/data/locomo/locomo_conv26.json)
#   BATCH...     batch sizes (default: 32 16 8 4 1)
# Needs python3 and GNU time (/usr/bin/time), and the models fetched by
# scripts/fetch-models.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/target/release/ragger
data=$root/../shared/data/locomo/locomo_conv26.json
sizes=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[[ ${#sizes[@]} -gt 0 ]] || sizes=(32 16 8 4 1)
[[ -x /usr/bin/time ]] || { echo "embed-memory: GNU time (/usr/bin/time) is needed" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$data" > "$work/texts.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d[0]["conversation"] if isinstance(d, list) else d["conversation"]
utts = [u["text"] for k in sorted(c) if k.startswith("session_") and not k.endswith("date_time") for u in c[k]]
for i in range(64):
    print(" ".join(utts[i * 6:(i + 1) * 6]).replace("\n", " "))
PY
echo "| batch_size | peak RSS | wall time |"
echo "|---|---|---|"
for b in "${sizes[@]}"; do
  printf '[embedder]\nthreads = 1\nbatch_size = %s\n' "$b" > "$work/c.toml"
  /usr/bin/time -v -o "$work/time" "$bin" --config "$work/c.toml" --db "$work/db" embed --stdin < "$work/texts.txt" > /dev/null
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$work/time")
  wall=$(awk -F': ' '/Elapsed/ {print $2}' "$work/time")
  echo "| $b | $((rss / 1024)) MiB | $wall |"
done
