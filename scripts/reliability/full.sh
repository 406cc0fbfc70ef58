#!/usr/bin/env bash
# The full reliability suites (issue 8, items 2-6): 100 SIGKILLs, a 60 s
# soak, a model-fault run on a larger backlog, cargo fuzz for 5 minutes per
# target, and the hostile-input and database-fault tests. About 20 minutes
# (the first run also installs cargo-fuzz and builds the fuzz targets).
#
#   scripts/reliability/full.sh            RELIABILITY_SEED=S to repeat a run
set -euo pipefail
cd "$(dirname "$0")"
started=$(date +%s)
export RELIABILITY_SEED="${RELIABILITY_SEED:-$(( $(date +%s) % 100000 ))}"
echo "reliability (full): seed $RELIABILITY_SEED" >&2

./crash.sh 100
./soak.sh 60
./faults.sh 8 25
./fuzz.sh 300 1000000
(cd ../.. && cargo test --release --locked --quiet --test cli -- hostile:: dbfaults:: >&2)
echo "reliability (full): crash, soak, faults, fuzz, hostile+dbfaults tests in $(( $(date +%s) - started )) s"
echo "reliability: 5 passed, 0 failed"
