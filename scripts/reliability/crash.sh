#!/usr/bin/env bash
# Crash suite (issue 8, item 2): N times (default 100) start a pass on a
# database with a backlog, against a fake model server with random delays,
# and SIGKILL it at a random moment; `ragger check` must pass after every
# kill. Most passes are `summarize --once`, one in five `housekeeping`
# (which also closes idle sessions); half of them with parallel = 4; a few
# turns arrive between kills, so the queue never runs dry. At the end: passes until the queue is empty,
# `ragger check` again, and SQL proves every turn has exactly one L2 and
# is folded, and every completed L3 of a project is in an L4.
#
#   scripts/reliability/crash.sh [N] [TURNS]   (TURNS per session of the
#   8-session backlog, default 25; RELIABILITY_SEED=S for a repeatable run)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

N="${1:-100}"
TURNS="${2:-25}"
SEED="${RELIABILITY_SEED:-$(( $(date +%s) % 100000 ))}"
RANDOM=$SEED
rel_build
rel_setup
start_fake --jitter-ms 150 --seed "$SEED"
write_config "timeout_seconds = 10" "retries = 0" "[housekeeping]" "summary_pause_minutes = 20"
started=$(date +%s)

backlog_jsonl 8 "$TURNS" crash >"$LOG/backlog.jsonl"
out="$(ragger capture --stdin --json <"$LOG/backlog.jsonl")"
captured=$(jq_field stored "$out")
[ "$captured" = $((8 * TURNS)) ] || die "backlog not stored: $out"

kills=0 orphaned=0 finished_early=0 housekeeping=0 extra=0
for ((i = 1; i <= N; i++)); do
    # A few new turns: recent ones, and now and then a late one for an old
    # (closed) session, which reopens it.
    for ((k = 0; k < 3; k++)); do
        s=$((RANDOM % 8))
        topic=${TOPICS[RANDOM % ${#TOPICS[@]}]}
        ragger capture -q --session "crash-s$s" --id "extra-$i-$k" \
            --user "Late question $i.$k about [topic:$topic]" --assistant "Late answer about $topic." ||
            die "capture failed at iteration $i"
        extra=$((extra + 1))
    done
    if [ $((RANDOM % 5)) = 0 ]; then
        cmd=(housekeeping)
        housekeeping=$((housekeeping + 1))
    else
        cmd=(summarize --once)
    fi
    # Kill moments from 0 to 1.5 s; one in eight within the first 60 ms
    # (startup, lock, orphan recovery).
    if [ $((RANDOM % 8)) = 0 ]; then delay_ms=$((RANDOM % 60)); else delay_ms=$((RANDOM % 1500)); fi
    # Half the passes make up to four model calls at once (L2s of any
    # turns, folds of different sessions), so a kill can catch several.
    if [ $((RANDOM % 2)) = 0 ]; then par=1; else par=4; fi
    RAGGER_MEMORY_MODEL__PARALLEL=$par "$RAGGER" "${cmd[@]}" >>"$LOG/passes.out" 2>>"$LOG/passes.err" &
    pid=$!
    sleep "$(printf '0.%03d' "$delay_ms")"
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
        kills=$((kills + 1))
    else
        finished_early=$((finished_early + 1))
    fi
    wait "$pid" 2>/dev/null || true
    claims=$(sql "SELECT (SELECT count(*) FROM turns WHERE lease_owner IS NOT NULL)
                       + (SELECT count(*) FROM summaries WHERE lease_owner IS NOT NULL)")
    [ "$claims" -gt 0 ] && orphaned=$((orphaned + 1))
    assert_check "after kill $i (${cmd[*]} killed at ${delay_ms} ms; seed $SEED)"
done

drain 100
ragger housekeeping || die "final housekeeping failed"
drain 100
assert_check "after the final passes"

total=$((captured + extra))
read -r turns l2 folded l2_failed pending_l4 l3 l3_running l4 <<<"$(sql "SELECT
    (SELECT count(*) FROM turns),
    (SELECT count(*) FROM turns WHERE l2_state = 'done' AND l2 IS NOT NULL AND trim(l2) <> ''),
    (SELECT count(*) FROM turns WHERE l3_id IS NOT NULL AND fold_seq IS NOT NULL),
    (SELECT count(*) FROM turns WHERE l2_state <> 'done'),
    (SELECT count(*) FROM summaries WHERE l4_state IN ('pending', 'failed')),
    (SELECT count(*) FROM summaries WHERE level = 3),
    (SELECT count(*) FROM summaries WHERE level = 3 AND status = 'running'),
    (SELECT count(*) FROM summaries WHERE level = 4)" | tr '|' ' ')"
[ "$turns" = "$total" ] || die "$total turns captured but $turns stored"
[ "$l2" = "$turns" ] || die "$turns turns but $l2 with an L2 ($l2_failed without)"
[ "$folded" = "$turns" ] || die "$turns turns but $folded folded"
[ "$pending_l4" = 0 ] || die "$pending_l4 completed L3 rows not folded into their project"
# Each turn sits in exactly one L3 row, at exactly one position.
dup=$(sql "SELECT count(*) FROM (SELECT session_id, fold_seq FROM turns GROUP BY 1, 2 HAVING count(*) > 1)")
[ "$dup" = 0 ] || die "$dup fold positions used twice"
[ "$l3_running" -le 8 ] || die "$l3_running running L3 rows for 8 sessions"

stop_fake
calls=$(sed -n 's/^CALLS //p' "$LOG/fake_server.err")
printf 'crash: %d passes started (%d housekeeping), %d SIGKILLed mid-run (%d left orphaned claims), %d finished before the kill; ragger check passed after every kill; final: %d turns, each with one L2 and folded, in %d L3 rows (%d running), %d L4 rows; %s model calls; seed %s; %d s\n' \
    "$N" "$housekeeping" "$kills" "$orphaned" "$finished_early" "$turns" "$l3" "$l3_running" "$l4" "$calls" "$SEED" \
    "$(( $(date +%s) - started ))"
