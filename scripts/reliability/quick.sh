#!/usr/bin/env bash
# Short versions of the reliability suites (issue 8, items 2-6), about three
# minutes in all; .ci/run (scripts/test.sh) runs this after the test suite.
# The full versions: scripts/reliability/full.sh.
set -euo pipefail
cd "$(dirname "$0")"
started=$(date +%s)
export RELIABILITY_SEED="${RELIABILITY_SEED:-$(( $(date +%s) % 100000 ))}"
echo "reliability (quick): seed $RELIABILITY_SEED" >&2

./crash.sh 25 10
./soak.sh 30
./faults.sh 4 12
RAGGER_FUZZ_SKIP_CARGO_FUZZ=1 ./fuzz.sh 0 500000
# Hostile input and database faults (tests/cli/hostile.rs, dbfaults.rs).
(cd ../.. && cargo test --release --locked --quiet --test cli -- hostile:: dbfaults:: >&2)
echo "reliability (quick): crash, soak, faults, fuzz, hostile+dbfaults tests in $(( $(date +%s) - started )) s"
echo "reliability: 5 passed, 0 failed"
