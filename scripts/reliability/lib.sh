# Shared helpers of the reliability scripts; sourced, not run.
#
# Each script runs the release `ragger` in a scratch folder of its own
# (HOME and XDG folders inside it, config in RAGGER_CONFIG) against the
# standalone fake model server (examples/fake_server.rs) on 127.0.0.1.
# Set RAGGER_RELIABILITY_KEEP=1 to keep the scratch folder.

set -euo pipefail

REL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REL_NAME="$(basename "$0" .sh)"
RAGGER="${RAGGER_BIN:-$REL_ROOT/target/release/ragger}"
FAKE_SERVER="${RAGGER_FAKE_SERVER:-$REL_ROOT/target/release/examples/fake_server}"
FAKE_PID=""
REL_DIR=""

log() { printf '%s: %s\n' "$REL_NAME" "$*" >&2; }
die() {
    printf '%s: FAILED: %s\n' "$REL_NAME" "$*" >&2
    [ -n "$REL_DIR" ] && printf '%s: scratch folder kept: %s\n' "$REL_NAME" "$REL_DIR" >&2
    REL_KEEP=1
    exit 1
}

# Build the binary and the fake server once (release, like the tests).
rel_build() {
    if [ -z "${RAGGER_BIN:-}" ] || [ -z "${RAGGER_FAKE_SERVER:-}" ]; then
        (cd "$REL_ROOT" && cargo build --release --locked --quiet --bin ragger --example fake_server) ||
            die "cargo build failed"
    fi
    [ -x "$RAGGER" ] || die "no ragger binary at $RAGGER"
    [ -x "$FAKE_SERVER" ] || die "no fake server at $FAKE_SERVER"
    command -v sqlite3 >/dev/null || die "sqlite3 (the CLI) is needed: apt-get install sqlite3"
}

# A scratch folder with a scrubbed environment; sets DB and CONFIG.
rel_setup() {
    REL_DIR="$(mktemp -d "${TMPDIR:-/tmp}/ragger-$REL_NAME.XXXXXX")"
    REL_KEEP="${RAGGER_RELIABILITY_KEEP:-0}"
    trap rel_cleanup EXIT
    mkdir -p "$REL_DIR"/{home,data,config,state,cache,log}
    export HOME="$REL_DIR/home" XDG_DATA_HOME="$REL_DIR/data" XDG_CONFIG_HOME="$REL_DIR/config"
    export XDG_STATE_HOME="$REL_DIR/state" XDG_CACHE_HOME="$REL_DIR/cache"
    export RAGGER_SYSTEM_CONFIG="$REL_DIR/no-system-config.toml" RAGGER_CONFIG="$REL_DIR/ragger.toml"
    unset RAGGER_DB
    DB="$REL_DIR/data/ragger/ragger.db"
    CONFIG="$RAGGER_CONFIG"
    LOG="$REL_DIR/log"
}

rel_cleanup() {
    local rc=$?
    stop_fake
    # Children of this script (loops, passes) that are still running.
    local kids
    kids="$(jobs -p 2>/dev/null || true)"
    [ -n "$kids" ] && kill $kids 2>/dev/null || true
    wait 2>/dev/null || true
    if [ "$rc" -ne 0 ] || [ "${REL_KEEP:-0}" = 1 ]; then
        [ -n "$REL_DIR" ] && log "scratch folder kept: $REL_DIR"
    else
        rm -rf "$REL_DIR"
    fi
}

# start_fake ARGS...: start the fake server; sets FAKE_URL and FAKE_PID.
start_fake() {
    local out="$LOG/fake_server.out"
    # The fake server keeps a descriptor for every connection it accepted
    # (tests/kit/src/fake_server.rs closes them when it stops) and
    # ragger opens one connection per call: give it room for long runs.
    (
        ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
        exec "$FAKE_SERVER" "$@"
    ) >"$out" 2>"$LOG/fake_server.err" &
    FAKE_PID=$!
    local i
    for i in $(seq 100); do
        if grep -q '^URL ' "$out" 2>/dev/null; then
            FAKE_URL="$(sed -n 's/^URL //p' "$out" | head -1)"
            return 0
        fi
        kill -0 "$FAKE_PID" 2>/dev/null || die "fake server exited: $(cat "$LOG/fake_server.err")"
        sleep 0.05
    done
    die "fake server did not print its URL"
}

# Stop the fake server; its last stderr lines (CALLS, FAULTS) stay in the log.
stop_fake() {
    if [ -n "$FAKE_PID" ]; then
        kill -TERM "$FAKE_PID" 2>/dev/null || true
        wait "$FAKE_PID" 2>/dev/null || true
        FAKE_PID=""
    fi
}

# write_config [extra TOML lines...]: the memory model is the fake server.
write_config() {
    {
        printf '[embedder]\nenabled = false\n'
        printf '[memory_model]\nbackend = "openai"\nurl = "%s"\nmodel = "fake-model"\n' "$FAKE_URL"
        printf '%s\n' "$@"
    } >"$CONFIG"
}

ragger() { "$RAGGER" "$@"; }

# sql QUERY: one query against the database, plain output.
sql() { sqlite3 -batch -noheader -cmd ".timeout 30000" "$DB" "$1"; }

# `ragger check` must pass; on failure print the violations and stop.
assert_check() {
    local what="$1" out
    if ! out="$(ragger check 2>&1)"; then
        cp "$DB" "$REL_DIR/failed-check.db" 2>/dev/null || true
        die "ragger check failed $what:
$out"
    fi
}

# Drain the queue: passes until one exits 0 with nothing remaining.
drain() {
    local i out rc
    for i in $(seq "${1:-50}"); do
        rc=0
        out="$(ragger summarize --once --json 2>>"$LOG/drain.err")" || rc=$?
        if [ "$rc" = 0 ] && [ "$(jq_field remaining "$out")" = 0 ]; then
            return 0
        fi
    done
    die "the queue did not drain in ${1:-50} passes (last exit $rc: $out)"
}

# jq_field NAME JSON: a top-level number field of a one-line JSON object
# (no jq on a bare machine).
jq_field() {
    printf '%s' "$2" | sed -n "s/.*\"$1\":\\([-0-9.]*\\).*/\\1/p"
}

now_ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }

# rfc3339 SECONDS_AGO
rfc3339_ago() { date -u -d "@$(( $(date +%s) - $1 ))" +%Y-%m-%dT%H:%M:%SZ; }

TOPICS=(rust cooking sqlite music travel gardening)

# backlog_jsonl SESSIONS TURNS PREFIX: JSON Lines for `capture --stdin`.
# Two sessions in three have a project; even sessions are old (event times
# hours ago, so housekeeping closes them), odd ones recent; each session
# changes topic every 2-6 turns (the fake server answers NO_MERGE then).
backlog_jsonl() {
    local sessions=$1 turns=$2 prefix=$3 s t topic left base at project now
    now=$(date +%s)
    for ((s = 0; s < sessions; s++)); do
        project=""
        [ $((s % 3)) != 2 ] && project=",\"project\":\"proj-$((s % 3))\""
        if [ $((s % 2)) = 0 ]; then base=$((now - 4 * 3600 + s * 60)); else base=$((now - turns)); fi
        left=0
        for ((t = 0; t < turns; t++)); do
            if [ "$left" = 0 ]; then
                topic=${TOPICS[RANDOM % ${#TOPICS[@]}]}
                left=$((2 + RANDOM % 5))
            fi
            left=$((left - 1))
            at=$(date -u -d "@$((base + t))" +%Y-%m-%dT%H:%M:%SZ)
            printf '{"session":"%s-s%d"%s,"user":"Question %d about [topic:%s]: how does it work?","assistant":"Answer %d about %s.","at":"%s","id":"%s-%d-%d"}\n' \
                "$prefix" "$s" "$project" "$t" "$topic" "$t" "$topic" "$at" "$prefix" "$s" "$t"
        done
    done
}
