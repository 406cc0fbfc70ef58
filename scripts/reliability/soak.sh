#!/usr/bin/env bash
# Concurrency soak (issue 8, item 3): for DURATION seconds (default 60),
# 4 processes capture turns in a loop (one of them in batches on stdin;
# every fifth capture repeats an earlier idempotency key), 2 run
# `summarize --once` in a loop and 1 runs `housekeeping` in a loop, with
# `summary_pause_minutes = 0` so sessions close and reopen all the time.
# Afterwards: no capture failed (none with "database is locked"), every
# distinct (session, key) sent is stored exactly once and nothing else is,
# passes exited only 0 or 75, `ragger check` passes, and so it does after
# one more pass of at most 10 s. Reports captures per second, capture
# latency (p50, p99, worst) and how far the passes got.
#
# The writers capture far faster than conversations happen, so the backlog
# is not drained at the end (that would take minutes against the fake
# server); every L2 is committed between the captures' transactions.
#
#   scripts/reliability/soak.sh [DURATION]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DURATION="${1:-60}"
rel_build
rel_setup
start_fake --jitter-ms 30 --seed 8
write_config "timeout_seconds = 10" "retries = 0" "[housekeeping]" "summary_pause_minutes = 0"
ragger capture -q --session warmup --user "create the database" --assistant "ok" || die "first capture failed"
: >"$LOG/capture-errors"
deadline=$(( $(date +%s) + DURATION ))

# capture_loop W: flags, one turn per process; keys k<W>-<n>, and every
# fifth capture re-sends the key of three captures back.
capture_loop() {
    local w=$1 n=0 key session t0 t1 rc
    while [ "$(date +%s)" -lt "$deadline" ]; do
        n=$((n + 1))
        session="soak-w$w-s$((n % 7))"
        key="k$w-$n"
        if [ $((n % 5)) = 0 ] && [ "$n" -gt 5 ]; then
            session="soak-w$w-s$(((n - 3) % 7))"
            key="k$w-$((n - 3))"
        fi
        printf '%s\t%s\n' "$session" "$key" >>"$LOG/sent.$w"
        t0=${EPOCHREALTIME/./}
        rc=0
        "$RAGGER" capture -q --session "$session" --id "$key" --project "p$((n % 3))" \
            --user "Soak question $n of writer $w [topic:t$((n / 6 % 4))]" \
            --assistant "Soak answer $n." 2>"$LOG/err.$w.tmp" || rc=$?
        t1=${EPOCHREALTIME/./}
        printf '%d\t%d\n' "$rc" $(((t1 - t0) / 1000)) >>"$LOG/latency.$w"
        if [ "$rc" != 0 ] || [ -s "$LOG/err.$w.tmp" ]; then
            { printf 'writer %d capture %d exit %d: ' "$w" "$n" "$rc"; cat "$LOG/err.$w.tmp"; } >>"$LOG/capture-errors"
        fi
    done
}

# capture_stdin_loop W: batches of 5 JSON lines through --stdin, one key
# of each batch repeated from the batch before.
capture_stdin_loop() {
    local w=$1 n=0 b=0 i key session t0 t1 rc batch
    while [ "$(date +%s)" -lt "$deadline" ]; do
        b=$((b + 1))
        batch=""
        for i in 1 2 3 4 5; do
            n=$((n + 1))
            key="k$w-$n"
            [ "$i" = 5 ] && [ "$b" -gt 1 ] && key="k$w-$((n - 5))"
            session="soak-w$w-s$((n % 5))"
            [ "$i" = 5 ] && [ "$b" -gt 1 ] && session="soak-w$w-s$(((n - 5) % 5))"
            printf '%s\t%s\n' "$session" "$key" >>"$LOG/sent.$w"
            batch+="{\"session\":\"$session\",\"id\":\"$key\",\"user\":\"Batch question $n [topic:b$((b % 3))]\",\"assistant\":\"Batch answer $n.\"}"$'\n'
        done
        t0=${EPOCHREALTIME/./}
        rc=0
        printf '%s' "$batch" | "$RAGGER" capture -q --stdin 2>"$LOG/err.$w.tmp" || rc=$?
        t1=${EPOCHREALTIME/./}
        printf '%d\t%d\n' "$rc" $(((t1 - t0) / 1000)) >>"$LOG/latency.$w"
        if [ "$rc" != 0 ] || [ -s "$LOG/err.$w.tmp" ]; then
            { printf 'writer %d batch %d exit %d: ' "$w" "$b" "$rc"; cat "$LOG/err.$w.tmp"; } >>"$LOG/capture-errors"
        fi
    done
}

# pass_loop NAME CMD...: run a pass over and over until the deadline;
# log exit codes. Under a steady stream of captures a pass never runs out
# of work, so each run is bounded to a few seconds and the run lock
# changes hands: summarize by --max-seconds 3, housekeeping (which has no
# such option) by SIGTERM after 5 s, which it obeys between items
# (`timeout` then exits 124).
pass_loop() {
    local name=$1 rc left
    shift
    while [ "$(date +%s)" -lt "$deadline" ]; do
        left=$((deadline - $(date +%s)))
        [ "$left" -gt 0 ] || break
        [ "$left" -gt 5 ] && left=5
        rc=0
        if [ "$1" = summarize ]; then
            timeout -s TERM -k 30 $((left + 5)) "$RAGGER" "$@" --max-seconds "$((left < 3 ? left : 3))" \
                >/dev/null 2>>"$LOG/$name.err" || rc=$?
        else
            timeout -s TERM -k 30 "$left" "$RAGGER" "$@" >/dev/null 2>>"$LOG/$name.err" || rc=$?
        fi
        echo "$rc" >>"$LOG/$name.codes"
        sleep 0.1
    done
}

pids=()
capture_loop 1 & pids+=($!)
capture_loop 2 & pids+=($!)
capture_loop 3 & pids+=($!)
capture_stdin_loop 4 & pids+=($!)
pass_loop summarize-a summarize --once & pids+=($!)
pass_loop summarize-b summarize --once & pids+=($!)
pass_loop housekeeping housekeeping & pids+=($!)
wait "${pids[@]}"
log "loops done after $DURATION s"
assert_check "right after the soak"
rc=0
out="$(ragger summarize --once --max-seconds 10 --json 2>>"$LOG/after.err")" || rc=$?
[ "$rc" = 0 ] || die "the pass after the soak exited $rc: $(tail -1 "$LOG/after.err")"
assert_check "after one more pass"

# Captures: exit codes, stderr, latency.
cat "$LOG"/latency.* >"$LOG/latency"
invocations=$(wc -l <"$LOG/latency")
failed=$(awk -F'\t' '$1 != 0' "$LOG/latency" | wc -l)
locked=$(grep -ci 'locked\|busy' "$LOG/capture-errors" || true)
[ "$locked" = 0 ] || die "$locked capture(s) failed with 'database is locked':
$(grep -i 'locked\|busy' "$LOG/capture-errors" | head -5)"
[ "$failed" = 0 ] || die "$failed capture(s) failed:
$(head -5 "$LOG/capture-errors")"
[ -s "$LOG/capture-errors" ] && die "captures wrote to stderr:
$(head -5 "$LOG/capture-errors")"
read -r p50 p99 worst <<<"$(cut -f2 "$LOG/latency" | sort -n | awk '{a[NR] = $1} END {
    i50 = int(NR * 0.50); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
    print a[i50], a[i99], a[NR]}')"

# Exactly once: the distinct (session, key) pairs sent are the pairs stored.
cat "$LOG"/sent.* | sort -u >"$LOG/sent"
sent_total=$(cat "$LOG"/sent.* | wc -l)
sql "SELECT s.external_id || char(9) || t.idem_key FROM turns t JOIN sessions s ON s.id = t.session_id
     WHERE t.idem_key IS NOT NULL" | sort >"$LOG/stored"
distinct=$(wc -l <"$LOG/sent")
stored=$(wc -l <"$LOG/stored")
if ! diff -q "$LOG/sent" "$LOG/stored" >/dev/null; then
    die "sent and stored differ ($distinct distinct sent, $stored stored):
$(diff "$LOG/sent" "$LOG/stored" | head -10)"
fi
dups=$(sql "SELECT count(*) FROM (SELECT 1 FROM turns GROUP BY session_id, idem_key HAVING count(*) > 1)")
[ "$dups" = 0 ] || die "$dups (session, key) pairs stored more than once"

# Passes: only 0 (ran) or 75 (another pass held the lock); housekeeping
# also 124 (stopped by SIGTERM after 5 s).
pass_summary=""
for name in summarize-a summarize-b housekeeping; do
    [ -s "$LOG/$name.codes" ] || die "$name never ran"
    bad=$(grep -v '^124$' "$LOG/$name.codes" | grep -cv '^\(0\|75\)$' || true)
    [ "$bad" = 0 ] || die "$name exited with $(grep -v '^\(0\|75\)$' "$LOG/$name.codes" | sort | uniq -c | tr '\n' ' '):
$(tail -3 "$LOG/$name.err")"
    ran=$(grep -c '^\(0\|124\)$' "$LOG/$name.codes" || true)
    skipped=$(grep -c '^75$' "$LOG/$name.codes" || true)
    pass_summary+=" $name $ran ran, $skipped skipped (75);"
done
read -r l2 folded turns l3 l4 <<<"$(sql "SELECT (SELECT count(*) FROM turns WHERE l2_state = 'done'),
    (SELECT count(*) FROM turns WHERE l3_id IS NOT NULL), (SELECT count(*) FROM turns),
    (SELECT count(*) FROM summaries WHERE level = 3), (SELECT count(*) FROM summaries WHERE level = 4)" | tr '|' ' ')"

printf 'soak: %d s, 4 writers: %d capture runs (%.1f/s), %d turns sent, %d distinct (session, key) stored exactly once; 0 failed, 0 "database is locked"; capture latency p50 %d ms, p99 %d ms, worst %d ms;%s passes meanwhile and 10 s after: %d of %d turns with an L2, %d folded (%d L3, %d L4 rows); ragger check passed\n' \
    "$DURATION" "$invocations" "$(echo "$invocations $DURATION" | awk '{print $1 / $2}')" "$sent_total" "$stored" \
    "$p50" "$p99" "$worst" "$pass_summary" "$l2" "$turns" "$folded" "$l3" "$l4"
