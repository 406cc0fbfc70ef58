#!/usr/bin/env bash
# The main job end to end on the embedded defaults, on a fresh machine:
# installs what is missing, builds ragger, fetches the models, captures a
# short conversation with two topics into a fresh database, summarises it
# with the local memory model (llama.cpp in-process, no server), embeds the
# summaries, and prints what ragger now remembers.
#
# Usage: scripts/demo.sh [DEMO_DIR]   (default: a new temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v clang >/dev/null || need_apt+=(clang)
ls /usr/lib/llvm-*/lib/libclang.so* /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1 || need_apt+=(libclang-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "demo: installing ${need_apt[*]} (apt)" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

echo "demo: building ragger (release; llama.cpp compiles once, a few minutes)" >&2
cargo build --release --locked -q
scripts/fetch-models.sh

dir=${1:-$(mktemp -d -t ragger-demo.XXXXXX)}
mkdir -p "$dir"
db=$dir/demo.db
cfg=$dir/config.toml
rm -f "$db" "$db-wal" "$db-shm" "$cfg"

echo
echo "== ragger init   (a config with absolute paths, the database, the cron line; as a user would, but in $dir)"
target/release/ragger --config "$cfg" --db "$db" init
ragger() { target/release/ragger --config "$cfg" "$@"; }

echo
echo "== capturing 6 turns of session 'demo' (project 'homelab'): 3 about backups, 3 about bread"
t0=$(date -u -d '2 hours ago' +%s)
at() { date -u -d "@$((t0 + $1 * 60))" +%Y-%m-%dT%H:%M:%SZ; }
ragger capture --session demo --project homelab --at "$(at 0)" --id t1 \
  --user "How should I back up my home server's /srv folder every night?" \
  --assistant "Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 to prune old snapshots."
ragger capture --session demo --project homelab --at "$(at 2)" --id t2 \
  --user "Should the restic repository be encrypted if the disk stays at home?" \
  --assistant "restic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended."
ragger capture --session demo --project homelab --at "$(at 4)" --id t3 \
  --user "How do I check that the backups can actually be restored?" \
  --assistant "Run restic check weekly and do a test restore of one folder into /tmp each month, comparing it with diff -r."
ragger capture --session demo --project homelab --at "$(at 30)" --id t4 \
  --user "Different question: my sourdough bread comes out dense. Why?" \
  --assistant "Usually the starter is too weak or the dough is under-proofed; feed the starter until it doubles in 4-6 hours and let the dough rise until it grows by half."
ragger capture --session demo --project homelab --at "$(at 32)" --id t5 \
  --user "What hydration should I use for a first sourdough loaf?" \
  --assistant "Start around 70% hydration: 700 g water per kilo of flour is easy to handle; go wetter once shaping feels comfortable."
ragger capture --session demo --project homelab --at "$(at 34)" --id t6 \
  --user "How long should I bake it and at what temperature?" \
  --assistant "Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown."
# Capturing the same turn again is a no-op (idempotency key t6).
ragger capture --session demo --project homelab --at "$(at 34)" --id t6 --user "How long should I bake it?" --assistant "dup"

echo
echo "== ragger summarize --once -v   (loads the local GGUF model in-process, then the embedder)"
time ragger summarize --once -v

echo
echo "== ragger housekeeping -v   (the session's last turn is over 20 minutes old: it is closed)"
ragger housekeeping -v

echo
echo "== ragger show demo"
ragger show demo

echo
echo "== ragger search 'restore a backup' --limit 3"
ragger search "restore a backup" --limit 3 || echo "(search unavailable)"

echo
echo "== ragger status"
ragger status
ragger check -v
echo
echo "demo: database at $db, config at $cfg (try: target/release/ragger --config $cfg search 'bread')"
