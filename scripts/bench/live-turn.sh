#!/usr/bin/env bash
# Live use: the latency of one new turn, captured and then summarised and
# folded by one `summarize --once` pass (L2, the segmenter with its turn
# vectors, the L3 fold, the vectors of the new rows), with the real
# embedded models, in a session that already holds five summarised turns.
# Compares two ragger binaries with hyperfine (all runs of one, then the
# other), each run on a fresh copy of the same database (issue 19: "no
# change for live use").
#
# Usage: scripts/bench/live-turn.sh BEFORE AFTER [--runs N]
#   BEFORE, AFTER  ragger binaries (copies: a build replaces target/release)
#   --runs N       runs of each (default 8)
# Needs hyperfine and the models of scripts/fetch-models.sh.
set -euo pipefail
prog=live-turn
die() { echo "$prog: $*" >&2; exit 1; }
[[ $# -ge 2 ]] || die "usage: $0 BEFORE AFTER [--runs N]"
before=$(realpath "$1"); after=$(realpath "$2"); shift 2
runs=8
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    *) die "unknown argument: $1" ;;
  esac
done
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"
work=$(mktemp -d "${TMPDIR:-/tmp}/ragger-live.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '[memory_model]\nthreads = 2\n' > "$work/config.toml"
run() { "$1" --config "$work/config.toml" --db "$work/$2" "${@:3}"; }

turns=(
  "How do I back up /srv on my home server every night?|Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 --prune."
  "Should the restic repository be encrypted?|restic always encrypts; keep the password in a file readable only by root and pass --password-file."
  "How do I know the backups are good?|Run restic check weekly, and restore a file now and then to a scratch folder."
  "The USB disk fills up, what now?|Prune harder with --keep-weekly 4 --keep-monthly 6, or move old snapshots to a second disk."
  "Can cron mail me when a backup fails?|Set MAILTO in the crontab and let the job exit non-zero on failure."
)
for i in "${!turns[@]}"; do
  t=${turns[$i]}
  run "$before" base.db capture --session s1 --project home --user "${t%%|*}" --assistant "${t#*|}" \
    --at "2026-11-30T10:0$i:00Z" -q
done
run "$before" base.db summarize --once -q
new_user="I also want to back up the Postgres database on that server."
new_reply="Dump it first with pg_dump -Fc into /srv/backup, so the nightly restic run picks the dump up."
prepare="rm -f $work/live.db*; cp $work/base.db $work/live.db"
cmd() {
  echo "$1 --config $work/config.toml --db $work/live.db capture --session s1 --project home --at 2026-11-30T10:06:00Z -q --user '$new_user' --assistant '$new_reply' && $1 --config $work/config.toml --db $work/live.db summarize --once -q"
}
echo "$prog: one new turn, capture + summarize --once, $runs runs each, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)" >&2
hyperfine --runs "$runs" --prepare "$prepare" --style basic \
  -n before "$(cmd "$before")" -n after "$(cmd "$after")"
