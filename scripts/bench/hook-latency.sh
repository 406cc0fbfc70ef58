#!/usr/bin/env bash
# Hook latency (issue 33): p50/p99 of `ragger hook claude-code` (Stop, one
# new turn appended to a 200-turn transcript before each run) and of
# `ragger hook codex` (one new turn per run), for a binary before and one
# after, in the same run; then one hook while another process holds the
# database's write lock (a long pass or `forget`). Prints a Markdown section
# on stdout.
#
# Usage: RAGGER_BEFORE=/path/to/old/ragger scripts/bench/hook-latency.sh
# Environment: RAGGER_BIN (after; default: build target/release/ragger),
# RAGGER_BEFORE (before; required), RUNS (default 200), LOCKED_RUNS (after,
# with the lock held; default 20).
set -euo pipefail

cd "$(dirname "$0")/../.."
after=${RAGGER_BIN:-}
if [[ -z $after ]]; then
  cargo build --release --quiet
  after=$PWD/target/release/ragger
fi
before=${RAGGER_BEFORE:?set RAGGER_BEFORE to the binary to compare with}
runs=${RUNS:-200}
locked_runs=${LOCKED_RUNS:-20}
command -v hyperfine > /dev/null || { echo "bench: hyperfine is missing" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RAGGER_SYSTEM_CONFIG=/nonexistent RAGGER_CONFIG=$tmp/config.toml
export XDG_STATE_HOME=$tmp/state
printf '[embedder]\nenabled = false\n' > "$tmp/config.toml"

# A Claude Code transcript: N turns of prompt, tool call, tool result, reply.
gen() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
n, path, first = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
base = dict(isSidechain=False, userType="external", cwd="/home/dev/src/bench", sessionId="bench-session",
            version="2.0.31", gitBranch="main")
with open(path, "a") as f:
    for i in range(first, first + n):
        ts = f"2026-11-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        u = f"00000000-0000-4000-8000-{i:012d}"
        for r in [
            dict(base, type="user", uuid=u, timestamp=ts,
                 message=dict(role="user", content=f"Turn {i}: why does the nightly backup job {i % 97} fail?")),
            dict(base, type="assistant", uuid=u + "-a", timestamp=ts, message=dict(role="assistant", content=[
                dict(type="tool_use", id=f"t{i}", name="Bash", input=dict(command=f"journalctl -u backup-{i % 97}"))])),
            dict(base, type="user", uuid=u + "-r", timestamp=ts, message=dict(role="user", content=[
                dict(type="tool_result", tool_use_id=f"t{i}", content="No space left on device\n" * 30)])),
            dict(base, type="assistant", uuid=u + "-b", timestamp=ts, message=dict(role="assistant", content=[
                dict(type="text", text=f"The disk of host {i % 13} is full; rotating the archives fixes it.")])),
        ]:
            f.write(json.dumps(r) + "\n")
PY
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
for which in before after; do
  bin=${!which}
  d=$tmp/$which
  mkdir -p "$d"
  gen 200 "$d/session.jsonl" 0
  "$bin" --db "$d/ragger.db" import claude-code "$d/session.jsonl"
  echo 200 > "$d/next"
  printf '{"session_id":"bench-session","transcript_path":"%s","cwd":"/home/dev/src/bench","hook_event_name":"Stop"}' \
    "$d/session.jsonl" > "$d/stop.json"
  cat > "$d/append.sh" <<SH
#!/usr/bin/env bash
set -e
n=\$(cat "$d/next"); echo \$((n + 1)) > "$d/next"
$(declare -f gen)
gen 1 "$d/session.jsonl" "\$n"
printf '{"type":"agent-turn-complete","thread-id":"bench-codex","turn-id":"turn-%s","cwd":"/w/api","input-messages":["run the tests, round %s"],"last-assistant-message":"All 41 pass."}' "\$n" "\$n" > "$d/notify.json"
SH
  chmod +x "$d/append.sh"
  "$d/append.sh"
  # hyperfine 1.15 has no --input: stdin comes through a shell, whose
  # start-up hyperfine measures and subtracts.
  hyperfine --warmup 3 --runs "$runs" --prepare "$d/append.sh" --export-json "$d/stop-hook.json" \
    "$bin --db $d/ragger.db hook claude-code < $d/stop.json" > /dev/null 2>&1
  hyperfine --warmup 3 --runs "$runs" --prepare "$d/append.sh" --export-json "$d/codex-hook.json" \
    "$bin --db $d/ragger.db hook codex \"\$(cat $d/notify.json)\"" > /dev/null 2>&1
  "$bin" --db "$d/ragger.db" status --json > "$d/status.json"
done

# One Stop hook while another process holds the write lock for 40 s.
locked() {
  local bin=$1 d=$2 n=$3
  python3 - "$d/ragger.db" > "$d/lock.log" 2>&1 <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(40)
PY
  local holder=$!
  until grep -q locked "$d/lock.log" 2> /dev/null; do sleep 0.05; done
  : > "$d/locked.times"
  for _ in $(seq "$n"); do
    "$d/append.sh"
    local t0 t1
    t0=$(date +%s%N)
    timeout 45 "$bin" --db "$d/ragger.db" hook claude-code < "$d/stop.json" 2> /dev/null || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000)) >> "$d/locked.times"
  done
  kill "$holder" 2> /dev/null || true
  wait "$holder" 2> /dev/null || true
}
locked "$before" "$tmp/before" 1
locked "$after" "$tmp/after" "$locked_runs"
# What the hooks spooled is stored by the next command that writes.
"$after" --db "$tmp/after/ragger.db" capture --session bench-drain --user 'after the lock' --assistant ok
spooled_left=$(find "$tmp/state" -name '*.json' 2> /dev/null | wc -l)
after_turns=$("$after" --db "$tmp/after/ragger.db" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["turns"])')

python3 - "$tmp" "$load" "$(git rev-parse --short HEAD)" "$runs" "$locked_runs" "$spooled_left" "$after_turns" <<'PY'
import json, sys
tmp, load, rev, runs, locked_runs, spooled_left, after_turns = sys.argv[1:]
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
def t(which, name):
    r = json.load(open(f"{tmp}/{which}/{name}.json"))["results"][0]
    times = [x * 1e3 for x in r["times"]]
    return pct(times, 50), pct(times, 99), max(times), (r["user"] + r["system"]) * 1e3
def locked(which):
    xs = [int(l) for l in open(f"{tmp}/{which}/locked.times")]
    return pct(xs, 50), max(xs), len(xs)
print("## Hook latency, before and after issue 33 (hooks33)\n")
print(f"_Measured by `scripts/bench/hook-latency.sh` ({runs} runs each), ragger {rev} against the binary before it, "
      f"load average {load} when it started (2 cores shared with other jobs)._\n")
print("| Figure | Before p50 / p99 / max (CPU) | After p50 / p99 / max (CPU) | Goal | Verdict |")
print("|---|---|---|---|---|")
for name, label in [("stop-hook", "`hook claude-code` (Stop), 200-turn transcript, 1 new turn"),
                    ("codex-hook", "`hook codex` (notify), 1 new turn")]:
    b, a = t("before", name), t("after", name)
    verdict = "met" if a[1] < 50 else "not met"
    print(f"| {label} | {b[0]:.1f} / {b[1]:.1f} / {b[2]:.1f} ms ({b[3]:.1f} ms) | {a[0]:.1f} / {a[1]:.1f} / {a[2]:.1f} ms ({a[3]:.1f} ms) | p99 < 50 ms | {verdict} |")
b, a = locked("before"), locked("after")
print(f"| Stop hook, another process holding the write lock | {b[1] / 1e3:.1f} s ({b[2]} run) | {a[0]} ms p50, {a[1]} ms max ({a[2]} runs) | < 1 s | {'met' if a[1] < 1000 else 'not met'} |")
print(f"\nAfter the lock was released, one `capture` stored what the after-hooks had spooled: "
      f"{spooled_left} spool files left, {after_turns} turns in the after database.")
PY
