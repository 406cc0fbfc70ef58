#!/usr/bin/env bash
# A real cron run, end to end: Debian's cron runs the shipped crontab line
# (packaging/cron/ragger.crontab) every minute against a temporary database,
# with the in-process local model, and the turns captured before are found
# summarised and their idle sessions closed — with no other process running.
#
# Needs root (installs cron with apt-get if missing, starts the daemon, edits
# root's crontab, which it restores on exit) and the local model fetched by
# scripts/fetch-models.sh.
#
# Environment:
#   RAGGER_BIN          ragger binary to test (default: cargo build --release)
#   RAGGER_MODEL        GGUF file (default: the one fetch-models.sh downloads)
#   CRON_TEST_FIRE_TIMEOUT  seconds to wait for cron to start the job (150)
#   CRON_TEST_WORK_TIMEOUT  seconds to wait, after that, for the work (300)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
model=${RAGGER_MODEL:-${XDG_DATA_HOME:-$HOME/.local/share}/ragger/models/SmolLM2-135M-Instruct.Q4_1.gguf}
fire_timeout=${CRON_TEST_FIRE_TIMEOUT:-150}
work_timeout=${CRON_TEST_WORK_TIMEOUT:-300}
started=$(date +%s)

say() { printf 'cron-test: [%3ss] %s\n' "$(($(date +%s) - started))" "$*"; }
die() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it starts cron and edits root's crontab)"
[ -f "$model" ] || die "$model is missing: run scripts/fetch-models.sh"
command -v python3 >/dev/null || die "python3 is needed to read ragger's JSON"

if ! command -v cron >/dev/null || ! command -v crontab >/dev/null; then
    say "installing cron"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cron >/dev/null
fi

tmp=$(mktemp -d /tmp/ragger-cron-test.XXXXXX)
chmod 755 "$tmp"
saved_crontab=$tmp/saved.crontab
had_crontab=0
crontab -l >"$saved_crontab" 2>/dev/null && had_crontab=1
our_cron=""

cleanup() {
    if [ "$had_crontab" = 1 ]; then crontab "$saved_crontab"; else crontab -r 2>/dev/null || true; fi
    if [ -n "$our_cron" ] && kill -0 "$our_cron" 2>/dev/null; then
        kill "$our_cron" && say "stopped cron (pid $our_cron)"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A private copy of the binary: the shared target folder may be rebuilt
# (with other features) while we wait.
if [ -n "${RAGGER_BIN:-}" ]; then
    cp "$RAGGER_BIN" "$tmp/ragger"
else
    say "building ragger (release)"
    cargo build --quiet --release --bin ragger --manifest-path "$root/Cargo.toml"
    cp "$root/target/release/ragger" "$tmp/ragger"
fi
bin=$tmp/ragger

mkdir -p "$tmp/state" "$tmp/data"
cat >"$tmp/config.toml" <<EOF
[database]
path = "$tmp/data/ragger.db"

[memory_model]
backend = "local"
model_path = "$model"

[embedder]
enabled = false

[summaries]
# What is tested here is cron, not summary quality: short replies keep each
# model call to seconds on a small, busy CPU.
max_tokens = 48
EOF
export RAGGER_CONFIG=$tmp/config.toml XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data
r() { "$bin" "$@"; }
# One top-level field of a JSON object on stdin.
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
ago() { date -u -d "-$1 minutes" +%Y-%m-%dT%H:%M:%SZ; }

# Two sessions idle past the 20-minute pause, one still active.
r capture --session old-1 --project demo --at "$(ago 45)" \
    --user "How do I grow an ext4 file system?" --assistant "Grow the partition, then run resize2fs on it."
r capture --session old-1 --project demo --at "$(ago 44)" \
    --user "Can I do that while it is mounted?" --assistant "Yes: ext4 can be grown online."
r capture --session old-2 --at "$(ago 30)" \
    --user "What is a good name for a cat?" --assistant "Miso, Pepper or Biscuit."
r capture --session active --at "$(ago 2)" \
    --user "Write a haiku about tea." --assistant "Steam curls from the cup / ..."
[ "$(r status --json | field pending_l2)" = 4 ] || die "expected 4 pending turns after capture"

# The shipped line, with the schedule set to every minute and the binary
# path pointed at the copy; its output goes to a file instead of mail, to
# check that a successful run prints nothing.
line=$(grep -Ev '^[[:space:]]*(#|$)' "$root/packaging/cron/ragger.crontab" | grep -Ev '^[[:space:]]*[A-Za-z_]+=' )
[ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || die "expected one job line in packaging/cron/ragger.crontab"
command=$(printf '%s\n' "$line" | awk '{ $1=$2=$3=$4=$5=""; sub(/^ +/, ""); print }')
case $command in /usr/bin/ragger\ *) ;; *) die "unexpected command in the crontab: $command" ;; esac
job="* * * * * $bin ${command#/usr/bin/ragger } >>$tmp/cron.out 2>&1"
{
    [ "$had_crontab" = 1 ] && cat "$saved_crontab"
    echo "RAGGER_CONFIG=$tmp/config.toml"
    echo "XDG_STATE_HOME=$tmp/state"
    echo "XDG_DATA_HOME=$tmp/data"
    echo "$job"
} | crontab -
say "installed: $job"

if [ -s /run/crond.pid ] && kill -0 "$(cat /run/crond.pid)" 2>/dev/null; then
    say "cron already running (pid $(cat /run/crond.pid))"
else
    cron
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s /run/crond.pid ] && break; sleep 0.5; done
    our_cron=$(cat /run/crond.pid)
    say "started cron (pid $our_cron)"
fi

# cron reads the new crontab at its next minute: the job starts within two.
installed=$(date +%s)
until [ "$(r status --json | field last_run)" != None ]; do
    [ $(($(date +%s) - installed)) -lt "$fire_timeout" ] || die "cron did not start ragger within ${fire_timeout}s"
    sleep 2
done
say "cron started ragger housekeeping"

# Then until the work is done: nothing pending, the two idle sessions closed.
fired=$(date +%s)
while :; do
    status=$(r status --json)
    pending=$(($(field pending_l2 <<<"$status") + $(field pending_l3 <<<"$status") + $(field pending_l4 <<<"$status")))
    [ "$pending" = 0 ] && [ "$(field sessions_closed <<<"$status")" = 2 ] && break
    [ $(($(date +%s) - fired)) -lt "$work_timeout" ] ||
        die "the work was not done ${work_timeout}s after cron started: $status; output: $(cat "$tmp/cron.out" 2>/dev/null)"
    sleep 3
done
say "work done: $status"

# Let the job finish (its output is checked below).
while pgrep -f "^$bin housekeeping" >/dev/null; do sleep 1; done

check() {
    # session, expected open, expected summary statuses (space-separated)
    local show
    show=$(r show "$1" --json)
    python3 - "$1" "$2" "$3" "$show" <<'EOF'
import json, sys
name, want_open, want_status, show = sys.argv[1], sys.argv[2] == "true", sys.argv[3].split(), json.loads(sys.argv[4])
states = [t["state"] for t in show["turns"]]
statuses = [s["status"] for s in show["summaries"] if s["level"] == 3]
projects = [s for s in show["summaries"] if s["level"] == 4]
problems = []
if show["open"] != want_open:
    problems.append(f"open={show['open']}, expected {want_open}")
if any(s != "folded" for s in states):
    problems.append(f"turns not all folded: {states}")
if any(not t["l2"] for t in show["turns"]):
    problems.append("a turn has no L2 summary")
if statuses[-1:] != want_status[-1:] or not statuses:
    problems.append(f"summaries {statuses}, expected the last to be {want_status[-1]}")
if show["project"] and not projects:
    problems.append("no project (L4) summary")
if problems:
    print(f"session {name}: " + "; ".join(problems))
    sys.exit(1)
print(f"session {name}: open={show['open']}, turns {states}, session summaries {statuses}, project summaries {len(projects)}")
EOF
}
check old-1 false complete || die "old-1"
check old-2 false complete || die "old-2"
check active true running || die "active"
r check >/dev/null || die "ragger check: $(r check 2>&1)"
[ "$(r status --json | field failed)" = 0 ] || die "failed items: $(r status --json)"
if [ -s "$tmp/cron.out" ]; then
    die "cron would have mailed this (housekeeping should be silent on success):
$(cat "$tmp/cron.out")"
fi
say "OK: sessions summarised and closed by cron; no output (no mail)"
