#!/usr/bin/env bash
# Redaction cost and quality. Times `ragger capture` of the same turn (it
# holds an OpenAI key and a password in a URL) with [privacy] redact = true
# (the default) and false, in the same run, on databases pre-warmed with
# 1,000 turns, and reports the difference as a share of the capture; then
# runs the redaction corpus test for its precision and recall.
#
# Usage: scripts/bench/redaction.sh [RUNS]      (default: 300)
# Environment: RAGGER_BIN (default: a release build of this tree).
set -euo pipefail

cd "$(dirname "$0")/../.."
runs=${1:-300}
bin=${RAGGER_BIN:-}
if [[ -z $bin ]]; then
  cargo build --release --quiet
  bin=target/release/ragger
fi
command -v hyperfine > /dev/null || { echo "bench: hyperfine is missing" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RAGGER_SYSTEM_CONFIG=/nonexistent
printf '[embedder]\nenabled = false\n' > "$tmp/on.toml"
printf '[embedder]\nenabled = false\n[privacy]\nredact = false\n' > "$tmp/off.toml"
for mode in on off; do
  for i in $(seq 1 1000); do
    printf '{"session":"warm-%d","project":"bench","user":"How do I rotate the logs, take %d?","assistant":"Use logrotate with a daily rule."}\n' $((i % 50)) "$i"
  done | "$bin" --config "$tmp/$mode.toml" --db "$tmp/$mode.db" capture --stdin
done

user='My key is sk-proj-ABCDEF1234567890abcdef1234567890 and the database is postgres://admin:hunter2@db:5432/app; why does the deploy fail with 401?'
assistant='The key was revoked: create a new one, store it in the secret manager, and rotate the database password too.'
plain_user='How do I rotate the logs every night, and keep a week of them compressed?'
plain_assistant='Use logrotate with a daily rule, rotate 7 and compress; test it with logrotate -d.'
hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/h.json" \
  -n secrets-on "$bin --config $tmp/on.toml --db $tmp/on.db capture --session bench-s1 --project bench --user '$user' --assistant '$assistant'" \
  -n secrets-off "$bin --config $tmp/off.toml --db $tmp/off.db capture --session bench-s1 --project bench --user '$user' --assistant '$assistant'" \
  -n plain-on "$bin --config $tmp/on.toml --db $tmp/on.db capture --session bench-s2 --project bench --user '$plain_user' --assistant '$plain_assistant'" \
  -n plain-off "$bin --config $tmp/off.toml --db $tmp/off.db capture --session bench-s2 --project bench --user '$plain_user' --assistant '$plain_assistant'" \
  > "$tmp/hyperfine.txt"
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ms = lambda s: s * 1000
cpu = lambda x: x["user"] + x["system"]
for turn in ("secrets", "plain"):
    on, off = r[turn + "-on"], r[turn + "-off"]
    for name, x in (("on", on), ("off", off)):
        print(f"capture, {turn} turn, redact {name:<3}: mean {ms(x['mean']):.2f} ms ± {ms(x['stddev']):.2f}, median {ms(x['median']):.2f} ms, CPU {ms(cpu(x)):.2f} ms")
    print(f"redaction cost, {turn} turn, share of a capture: median {100 * (on['median'] / off['median'] - 1):+.1f}%, "
          f"CPU {100 * (cpu(on) / cpu(off) - 1):+.1f}%")
PY
cargo test --release --quiet --test cli redaction_corpus -- --nocapture 2>&1 | grep -E '^(redaction corpus|recall)'
cargo test --release --quiet --lib redact::cost -- --ignored --nocapture 2>&1 | grep -E '^redaction in-process'
