#!/usr/bin/env bash
# Bad input (issue 8, item 5), bounded in time:
#   1. the random property tests of tests/cli/hostile.rs with a fresh seed
#      and many cases (stable Rust, always);
#   2. the cargo fuzz (libFuzzer) targets in fuzz/ for SECONDS each:
#      capture_line (capture JSON Lines parser + validation) and
#      clean_reply (reply cleaning + NO_MERGE verdict). They build on
#      stable Rust (the only toolchain a fresh machine has) with `-s none`:
#      coverage-guided libFuzzer without AddressSanitizer, which needs
#      nightly and adds little for safe Rust code; RAGGER_FUZZ_NIGHTLY=1
#      uses `cargo +nightly fuzz` with ASan instead.
# Both check the same properties (fuzz/props.rs). A crash is kept in
# fuzz/artifacts/<target>/ and fails the script.
#
#   scripts/reliability/fuzz.sh [SECONDS] [CASES]
#   RAGGER_FUZZ_SKIP_CARGO_FUZZ=1: only step 1 (what quick.sh runs).
#   RAGGER_FUZZ_INSTALL=0: do not `cargo install cargo-fuzz` when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

SECONDS_PER_TARGET="${1:-60}"
CASES="${2:-300000}"
SEED="${RELIABILITY_SEED:-$(( $(date +%s) % 1000000 ))}"
started=$(date +%s)
log() { printf 'fuzz: %s\n' "$*" >&2; }

log "property tests: $CASES cases each, seed $SEED"
RAGGER_FUZZ_SEED=$SEED RAGGER_FUZZ_CASES=$CASES \
    cargo test --release --locked --quiet --test cli -- --test-threads 2 \
    hostile::random_capture_lines hostile::random_model_replies >&2 ||
    { log "FAILED: a property test failed (RAGGER_FUZZ_SEED=$SEED RAGGER_FUZZ_CASES=$CASES reproduces it)"; exit 1; }
summary="property tests: 2 x $CASES random cases (seed $SEED) passed"

if [ "${RAGGER_FUZZ_SKIP_CARGO_FUZZ:-0}" = 1 ]; then
    printf 'fuzz: %s; cargo fuzz skipped (RAGGER_FUZZ_SKIP_CARGO_FUZZ=1); %d s\n' "$summary" $(( $(date +%s) - started ))
    exit 0
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    if [ "${RAGGER_FUZZ_INSTALL:-1}" = 1 ]; then
        log "installing cargo-fuzz from crates.io (a few minutes, once)"
        cargo install cargo-fuzz --locked --quiet >&2
    else
        log "cargo-fuzz is not installed (cargo install cargo-fuzz) and RAGGER_FUZZ_INSTALL=0: libFuzzer runs SKIPPED"
        printf 'fuzz: %s; cargo fuzz SKIPPED (not installed)\n' "$summary"
        exit 0
    fi
fi

if [ "${RAGGER_FUZZ_NIGHTLY:-0}" = 1 ]; then
    toolchain=(+nightly) sanitizer=address
else
    toolchain=() sanitizer=none
fi
log "cargo fuzz with ${toolchain[*]:-stable}, sanitizer $sanitizer, $SECONDS_PER_TARGET s per target"
cd fuzz
for target in capture_line clean_reply; do
    mkdir -p "corpus/$target"
    cargo "${toolchain[@]}" fuzz build -O -s "$sanitizer" "$target" >&2
    out="$(mktemp)"
    if ! cargo "${toolchain[@]}" fuzz run -O -s "$sanitizer" "$target" "corpus/$target" -- \
        -max_total_time="$SECONDS_PER_TARGET" -dict="dicts/$target.dict" -max_len=4096 \
        -seed="$SEED" -print_final_stats=1 >"$out" 2>&1; then
        tail -40 "$out" >&2
        log "FAILED: $target found a crash; the input is in fuzz/artifacts/$target/"
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$out" | tail -1)
    summary+="; $target: ${runs:-?} runs in ${SECONDS_PER_TARGET} s, $cov, corpus $(ls "corpus/$target" | wc -l), no crash"
    rm -f "$out"
done
printf 'fuzz: %s (cargo fuzz %s, sanitizer %s); %d s\n' "$summary" "${toolchain[*]:-stable}" "$sanitizer" \
    $(( $(date +%s) - started ))
