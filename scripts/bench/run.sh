#!/usr/bin/env bash
# The benchmark suite (issue 8): builds ragger and the fake model server in
# release mode, measures, prints a table on stdout and writes BENCHMARKS.md
# (machine description, every figure with its goal and the command that
# measured it).
#
# Usage: scripts/bench/run.sh [--quick] [--only LIST] [--out FILE] [--keep]
#   --quick        smaller sizes (about 10 minutes instead of about 2 hours):
#                  1k instead of 10k turns for the overhead, 100k instead of
#                  1M turns for cost growth, 500 instead of 10k turns for the
#                  backfill, fewer hyperfine runs
#   --only LIST    comma-separated sections: capture, idle, overhead, growth,
#                  backfill, model, rss, start (default: all). Results of the other
#                  sections are kept from their last run, so BENCHMARKS.md
#                  always shows every section with the date it was measured.
#   --out FILE     where to write the report (default: BENCHMARKS.md at the
#                  top of the repository)
#   --keep         keep the work folder (databases, configs, logs)
#   --results DIR  where each section's results are kept (default below)
#   --report-only  measure nothing; write the report from the kept results
#   Each section's results are kept in target/bench-results/ (under
#   CARGO_TARGET_DIR if set) and the report is assembled from them.
# Environment: CARGO_TARGET_DIR (as cargo), TMPDIR (work folder; the 1M-turn
#              database with its vectors needs about 6 GB),
#              RAGGER_BENCH_BEFORE (a ragger binary, e.g. main's, that the
#              `start` section measures beside the one built; that section
#              is kept at the end of the report).
#
# Peers and model time: the fake model server (examples/fake_server.rs)
# answers after a fixed delay, so model time is known and subtracted. The
# `model` and `rss` sections run the real models (fetched by
# scripts/fetch-models.sh); `model` runs scripts/bench/local-model.sh, which
# builds llama.cpp's server once (minutes) to compare against.
set -euo pipefail
# The whole script is one block, read before it runs: editing the file while
# a long run goes on cannot derail it.
{
prog=bench
die() { echo "$prog: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

root=$(cd "$(dirname "$0")/../.." && pwd)
quick=0
only=""
out=$root/BENCHMARKS.md
keep=0
results=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --results) results=$2; shift 2 ;;
    --report-only) only=none; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$prog: unknown argument: $1" >&2; exit 2 ;;
  esac
done
all_sections=(capture idle overhead growth backfill model rss start)
if [[ $only == none ]]; then
  sections=()
elif [[ -n $only ]]; then
  IFS=, read -r -a sections <<<"$only"
  for s in "${sections[@]}"; do
    [[ " ${all_sections[*]} " == *" $s "* ]] || die "unknown section: $s (one of: ${all_sections[*]})"
  done
else
  sections=("${all_sections[@]}")
fi

# --- sizes -------------------------------------------------------------------
if [[ $quick == 1 ]]; then
  mode=quick
  overhead_turns=1000      # the 10k figure, shrunk
  growth_big=100000        # 1M, shrunk
  backfill_turns=500       # 10k, shrunk
  hf_runs=100              # hyperfine runs of a short command
  hf_pass_runs=3           # hyperfine runs of a summarize pass
  rss_turns=3              # real-model calls take seconds each
  model_turns=10           # turn summaries per memory-model backend
else
  mode=full
  overhead_turns=10000
  growth_big=1000000
  backfill_turns=10000
  hf_runs=300
  hf_pass_runs=10
  rss_turns=8
  model_turns=50
fi
growth_small=1000
overhead_delay_ms=5
backfill_delay_ms=100
backfill_sessions=100
pass_batch=100             # turns summarised per measured pass (cost growth)

# --- tools -------------------------------------------------------------------
apt_updated=0
need() { # command package
  command -v "$1" >/dev/null 2>&1 && return 0
  say "installing $2 (apt)"
  if [[ $apt_updated == 0 ]]; then apt-get update -qq >&2 || true; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2 || die "cannot install $2"
}
need hyperfine hyperfine
need sqlite3 sqlite3
need jq jq
need strace strace
[[ -x /usr/bin/time ]] || need /usr/bin/time time

# --- build -------------------------------------------------------------------
say "building ragger and examples/fake_server (release)"
(cd "$root" && cargo build --release --quiet --bin ragger --example fake_server) || die "build failed"
target_dir=${CARGO_TARGET_DIR:-$root/target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
[[ -n $results ]] || results=$target_dir/bench-results
mkdir -p "$results"

# Where the real models live (before XDG_* is pointed at the work folder).
data_home=${XDG_DATA_HOME:-}
[[ -n $data_home ]] || data_home=$HOME/.local/share
models_data=${RAGGER_DATA_DIR:-$data_home/ragger}
# The llama.cpp server built for the model section is cached here.
cache_home=${XDG_CACHE_HOME:-}
[[ -n $cache_home ]] || cache_home=$HOME/.cache

# --- an isolated environment -------------------------------------------------
w=$(mktemp -d "${TMPDIR:-/tmp}/ragger-bench.XXXXXX")
server_pid=""
cleanup() {
  stop_server >/dev/null 2>&1 || true
  if [[ $keep == 1 ]]; then say "work folder kept: $w"; else rm -rf "$w"; fi
}
trap cleanup EXIT
# Private copies of the binaries: a rebuild in the shared target folder during
# a long run must not change what is measured.
bin_dir=$w/bin
mkdir -p "$bin_dir/examples"
cp "$target_dir/release/ragger" "$bin_dir/ragger"
cp "$target_dir/release/examples/fake_server" "$bin_dir/examples/fake_server"
ragger=$bin_dir/ragger
fake=$bin_dir/examples/fake_server
for v in $(compgen -e | grep '^RAGGER_' || true); do unset "$v"; done
export XDG_DATA_HOME=$w/xdg/data XDG_STATE_HOME=$w/xdg/state XDG_CONFIG_HOME=$w/xdg/config XDG_CACHE_HOME=$w/xdg/cache
mkdir -p "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
[[ ! -e /etc/ragger/config.toml ]] || say "warning: /etc/ragger/config.toml exists and is read by every command"

# --- helpers -----------------------------------------------------------------
now_ns() { date +%s%N; }
ms_since() { echo $(( ($(now_ns) - $1) / 1000000 )); }
# Print a command for the report: work-folder and binary paths shortened.
show() { local c="$*"; c=${c//$bin_dir\/examples\//}; c=${c//$bin_dir\//}; c=${c//$w\//}; echo "$c"; }
# Floating point with awk: calc 'expression'
calc() { awk "BEGIN { printf \"%s\", $1 }"; }
fmt() { awk -v x="$1" -v p="${2:-2}" 'BEGIN { printf "%.*f", p, x }'; }
# verdict VALUE MAX: "met" or "MISSED by N%"
verdict() {
  awk -v v="$1" -v m="$2" 'BEGIN { if (v <= m) print "met"; else printf "MISSED by %.0f%%\n", (v / m - 1) * 100 }'
}

section=""
begin() { # name title
  section=$1
  : >"$results/$1.tsv"
  {
    echo "## $2"
    echo
    echo "_Measured $(date -u +%Y-%m-%dT%H:%MZ), $mode run, ragger $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?'),"
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg) when it started ($(nproc) cores)._"
    echo
  } >"$results/$1.md"
  say "== $1: $2"
}
note() { printf '%s\n' "$@" >>"$results/$section.md"; }
# record FIGURE VALUE GOAL VERDICT
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$results/$section.tsv"; }
cmdblock() { { echo '```sh'; for c in "$@"; do show "$c"; done; echo '```'; echo; } >>"$results/$section.md"; }

# start_server DELAY_MS: starts the fake server, sets $url.
start_server() {
  stop_server
  "$fake" --delay-ms "$1" >"$w/fake.out" 2>"$w/fake.err" &
  server_pid=$!
  for _ in $(seq 1200); do
    if grep -q '^URL ' "$w/fake.out" 2>/dev/null; then break; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  url=$(sed -n 's/^URL //p' "$w/fake.out")
  if [[ -z $url ]]; then
    local rc=0
    kill -0 "$server_pid" 2>/dev/null && rc="still running after 60 s" || { wait "$server_pid" || rc=$?; }
    server_pid=""
    die "fake server did not start (exit $rc): $(cat "$w/fake.err")"
  fi
}
# stop_server: stops it; sets $calls to the chat calls it answered and
# $delayed_ms to the time it spent in its fixed delays.
stop_server() {
  calls=0
  delayed_ms=0
  [[ -n $server_pid ]] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  calls=$(sed -n 's/^CALLS //p' "$w/fake.err")
  calls=${calls:-0}
  delayed_ms=$(sed -n 's/^DELAYED_MS //p' "$w/fake.err")
  delayed_ms=${delayed_ms:-0}
}

# config_fake FILE [PARALLEL]: the openai backend on the fake server, no embedder.
config_fake() {
  cat >"$1" <<EOF
[memory_model]
backend = "openai"
url = "$url"
model = "fake-model"
parallel = ${2:-1}

[embedder]
enabled = false
EOF
}

# turns N PER_SESSION PREFIX [TARGET] [OLD]: JSON Lines for capture --stdin.
# The first TARGET turns go to session PREFIX-target, the rest to sessions of
# PER_SESSION turns; ten projects. OLD=1 dates them on 2024-01-01 (one a
# second) so housekeeping finds their sessions idle; else capture time.
turns() {
  awk -v n="$1" -v per="$2" -v pre="$3" -v target="${4:-0}" -v old="${5:-0}" 'BEGIN {
    for (i = 0; i < n; i++) {
      if (i < target) { s = pre "-target"; k = 0 } else { k = int((i - target) / per); s = pre "-s" k }
      at = ""
      if (old) at = sprintf(",\"at\":\"2024-01-01T%02d:%02d:%02dZ\"", int(i / 3600) % 24, int(i / 60) % 60, i % 60)
      printf "{\"session\":\"%s\",\"project\":\"proj%d\"%s,", s, k % 10, at
      printf "\"user\":\"How do I configure part %d of the build pipeline, and what should I check first?\",", i
      printf "\"assistant\":\"To configure part %d, edit the config file, set the option, run the tests and read the log for warnings; repeat until the output is clean and the step passes.\"}\n", i
    }
  }'
}

rag() { "$ragger" "$@"; }
# status_field DB CONFIG FIELD
status_field() { rag --config "$2" --db "$1" status --json | jq -r ".$3"; }
check_db() { # DB CONFIG
  rag --config "$2" --db "$1" check >"$w/check.out" 2>&1 || die "ragger check failed on $1: $(head -5 "$w/check.out")"
}
# hf_mean JSON INDEX -> mean in ms; hf_median likewise
hf_mean() { jq -r ".results[$2].mean * 1000" "$1"; }
hf_median() { jq -r ".results[$2].median * 1000" "$1"; }
hf_stddev() { jq -r ".results[$2].stddev * 1000" "$1"; }
# CPU time (user + system) in ms: unlike wall time, hardly moved by other load.
hf_cpu() { jq -r "(.results[$2].user + .results[$2].system) * 1000" "$1"; }
hf() { hyperfine --style basic "$@" >&2; }

# =============================================================================
sec_capture() {
  begin capture "ragger capture vs one sqlite3 insert"
  local d=$w/capture; mkdir -p "$d"
  url=http://127.0.0.1:9/v1 # capture never calls a model
  config_fake "$d/fake.toml"
  local db=$d/ragger.db peer=$d/sqlite.db
  turns 1000 100 warm | rag --config "$d/fake.toml" --db "$db" capture --stdin
  # The peer: a table like ragger's turns, WAL, with the same unique key and
  # index, pre-warmed with as many rows.
  sqlite3 -batch "$peer" >/dev/null <<'EOF'
PRAGMA journal_mode = WAL;
CREATE TABLE turns (
  id INTEGER PRIMARY KEY, session TEXT NOT NULL, idem_key TEXT, at INTEGER NOT NULL,
  captured_at INTEGER NOT NULL, user_text TEXT NOT NULL, assistant_text TEXT NOT NULL,
  tokens INTEGER NOT NULL, UNIQUE (session, idem_key));
CREATE INDEX turns_session_at ON turns(session, at, id);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO turns (session, at, captured_at, user_text, assistant_text, tokens)
SELECT 'warm-s' || (i / 100), 1700000000000 + i, 1700000000000 + i, 'How do I configure part ' || i || '?',
       'Edit the config file and run the tests.', 20 FROM n;
EOF
  local user='How do I rotate the logs every night?'
  local asst='Use logrotate with a daily rule and compress old files.'
  local c_ragger="$ragger --config $d/fake.toml --db $db capture --session bench-s1 --project bench --user '$user' --assistant '$asst'"
  local insert="INSERT INTO turns (session, at, captured_at, user_text, assistant_text, tokens) VALUES ('bench-s1', 1700000000000, 1700000000000, '$user', '$asst', 24);"
  local c_normal="sqlite3 -batch $peer \"PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; $insert\""
  local c_full="sqlite3 -batch $peer \"PRAGMA busy_timeout = 5000; $insert\""
  # Not a peer: what one insert costs when the last connection neither
  # checkpoints nor deletes the WAL on close (see the notes).
  cp "$peer" "$d/nockpt.db"
  local c_fast="sqlite3 -batch -cmd '.dbconfig no_ckpt_on_close on' -cmd '.filectrl persist_wal 1' $d/nockpt.db \"PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; $insert\""
  hf -N --warmup 20 --runs "$hf_runs" --export-json "$d/hf.json" \
    -n "ragger capture" "$c_ragger" -n "sqlite3 insert (synchronous=NORMAL)" "$c_normal" \
    -n "sqlite3 insert (default synchronous=FULL)" "$c_full" \
    -n "sqlite3 insert, no checkpoint on close, WAL kept" "$c_fast"
  local r n f
  r=$(hf_mean "$d/hf.json" 0); n=$(hf_mean "$d/hf.json" 1); f=$(hf_mean "$d/hf.json" 2)
  local ratio_n ratio_f
  ratio_n=$(calc "$r / $n"); ratio_f=$(calc "$r / $f")
  record "capture latency (mean)" "$(fmt "$r") ms ± $(fmt "$(hf_stddev "$d/hf.json" 0)") ms" "" ""
  record "sqlite3 insert, synchronous=NORMAL (ragger's setting)" "$(fmt "$n") ms ± $(fmt "$(hf_stddev "$d/hf.json" 1)") ms" "" ""
  record "sqlite3 insert, default synchronous=FULL" "$(fmt "$f") ms ± $(fmt "$(hf_stddev "$d/hf.json" 2)") ms" "" ""
  record "capture / sqlite3 (same durability, NORMAL)" "$(fmt "$ratio_n")" "≤ 1.0" "$(verdict "$ratio_n" 1.0)"
  record "capture / sqlite3 (CLI default, FULL)" "$(fmt "$ratio_f")" "≤ 1.0" "$(verdict "$ratio_f" 1.0)"
  record "(not a peer) sqlite3 insert, no checkpoint on close, WAL kept" "$(fmt "$(hf_mean "$d/hf.json" 3)") ms ± $(fmt "$(hf_stddev "$d/hf.json" 3)") ms" "" ""
  note "Both databases are pre-warmed with 1,000 turns in WAL mode. ragger's capture looks up or" \
    "creates the session, inserts the turn (unique idempotency key) and updates the session, in one" \
    "transaction; the peer is one INSERT into a table with the same columns, unique key and index." \
    "ragger runs with synchronous=NORMAL (design.md), so the like-for-like peer sets it too; the" \
    "sqlite3 CLI's default (FULL: an fsync per commit) is shown as well. Means of $hf_runs runs" \
    "after 20 warm-ups, without a shell (hyperfine -N)." ""
  note "The commands, one a line, given to \`hyperfine -N --warmup 20 --runs $hf_runs\`:" ""
  cmdblock "$c_ragger" "$c_normal" "$c_full" "$c_fast"

  # What a process start costs, to explain the ratio.
  hf -N --warmup 20 --runs "$hf_runs" --export-json "$d/start.json" \
    "$ragger --version" "sqlite3 --version"
  local v s
  v=$(hf_mean "$d/start.json" 0); s=$(hf_mean "$d/start.json" 1)
  record "process start: ragger --version vs sqlite3 --version" "$(fmt "$v") ms vs $(fmt "$s") ms" "" ""
  local libs
  libs=$(ldd "$ragger" | awk '{print $1}' | sed 's,.*/,,' | tr '\n' ' ')
  local ld_stats
  ld_stats=$(LD_DEBUG=statistics "$ragger" --version 2>&1 >/dev/null | sed -n 's/^[[:space:]]*[0-9]*:[[:space:]]*//p' | grep -E 'total startup time|relocation processing|number of relocations:|objects loaded' | sed 's/^/    /' || true)
  # System calls of 50 consecutive commands of each kind, averaged.
  local k
  for k in $(seq 50); do
    strace -f -c -o "$d/strace-ragger.$k" "$ragger" --config "$d/fake.toml" --db "$db" capture --session bench-s2 --user x --assistant y
    strace -f -c -o "$d/strace-sqlite.$k" sqlite3 -batch "$peer" "PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; $insert" >/dev/null
  done
  # per_call PREFIX REGEX: mean calls per command of the syscalls matching REGEX
  per_call() { cat "$d/strace-$1".* | awk -v re="$2" '$NF ~ re {n += $4} END {printf "%.1f", n / 50}'; }
  local sys_r sys_s sync_r sync_s pread_r pread_s wal_kb
  sys_r=$(per_call ragger '^total$'); sys_s=$(per_call sqlite '^total$')
  sync_r=$(per_call ragger '^f(data)?sync$'); sync_s=$(per_call sqlite '^f(data)?sync$')
  pread_r=$(per_call ragger '^pread64$'); pread_s=$(per_call sqlite '^pread64$')
  wal_kb=$(( $(stat -c %s "$db-wal" 2>/dev/null || echo 0) / 1024 ))
  note "Process start (the floor under both): \`ragger --version\` $(fmt "$v") ms, \`sqlite3 --version\` $(fmt "$s") ms." \
    "ragger's shared libraries: $libs" "" \
    "Dynamic loader statistics of \`ragger --version\` (LD_DEBUG=statistics):" "" "$ld_stats" "" \
    "System calls per command, mean of 50 under \`strace -f -c\`: capture $sys_r ($sync_r fsync," \
    "$pread_r pread64), sqlite3 insert (synchronous=NORMAL) $sys_s ($sync_s fdatasync, $pread_s pread64)." \
    "ragger's WAL file was $wal_kb KiB at the end." "" \
    "Where the time goes: a sqlite3 process is the last connection to its database when it exits," \
    "so SQLite creates the WAL file (a sync of the WAL header and of the folder), and on close" \
    "checkpoints it into the database (two more syncs) and deletes it; those syncs are most of the" \
    "sqlite3 figures (compare hyperfine's User and System columns with the wall time)." ""
  if (( wal_kb > 4200 )); then
    note "ragger keeps the WAL between processes and does not checkpoint on close" \
      "(SQLITE_FCNTL_PERSIST_WAL and SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, src/store/mod.rs), but" \
      "nothing ever resets the kept WAL: each new process rebuilds the WAL index by reading every" \
      "valid frame (SQLite's WAL recovery: the pread64 calls above) and then counts none of them as" \
      "checkpointed, so once the WAL is past the auto-checkpoint size (1,000 pages, about 4 MiB)" \
      "every capture checkpoints the whole WAL again (the fsyncs above), and the WAL still grows" \
      "by each capture's frames ($wal_kb KiB after this benchmark). A capture's cost thus grows" \
      "with the number of captures since the WAL was last truncated. The last row runs sqlite3" \
      "with the same two settings on a fresh database, for comparison." ""
  elif [[ ${sync_r%.*} == 0 ]]; then
    note "ragger keeps the WAL between processes and does not checkpoint on close" \
      "(SQLITE_FCNTL_PERSIST_WAL and SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, src/store/mod.rs), so at" \
      "synchronous=NORMAL a capture syncs nothing, except now and then the one that checkpoints and" \
      "truncates a grown WAL ($sync_r syncs per capture on average above). The price: the first" \
      "connection of every process rebuilds the WAL index by reading every valid frame of the kept" \
      "WAL (SQLite's WAL recovery, the pread64 calls above), so a capture costs a little more the" \
      "fuller the WAL is; hence part of the spread of the capture times. The last row runs sqlite3" \
      "with the same two settings, for comparison." ""
  else
    note "ragger pays the same syncs (ragger's bundled SQLite uses fsync where Debian's sqlite3 uses" \
      "fdatasync). The last row is not a peer but the cost without them: sqlite3 with the WAL kept" \
      "and no checkpoint on close (SQLITE_FCNTL_PERSIST_WAL, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE)." ""
  fi
}

# =============================================================================
sec_idle() {
  begin idle "Idle cron tick"
  local d=$w/idle; mkdir -p "$d"
  local db=$d/idle.db
  local rt=$models_data/lib/libonnxruntime.so md=$models_data/models/all-MiniLM-L6-v2
  local with_embedder=0
  if [[ -e $rt && -e $md/model.onnx ]]; then with_embedder=1; fi
  start_server 0
  config_fake "$d/prep.toml"
  if [[ $with_embedder == 1 ]]; then
    sed -i 's/^enabled = false/enabled = true/' "$d/prep.toml"
    printf 'runtime_path = "%s"\nmodel_dir = "%s"\n' "$rt" "$md" >>"$d/prep.toml"
  fi
  # 100 old turns in 10 sessions: housekeeping summarises, closes the idle
  # sessions, folds their projects and embeds everything; then nothing is left.
  turns 100 10 idle 0 1 | rag --config "$d/prep.toml" --db "$db" capture --stdin
  rag --config "$d/prep.toml" --db "$db" housekeeping
  rag --config "$d/prep.toml" --db "$db" housekeeping
  stop_server
  local pending
  pending=$(rag --config "$d/prep.toml" --db "$db" status --json | jq -c '[.pending_l2, .pending_l3, .pending_l4, .unembedded, .sessions_open]')
  [[ $pending == "[0,0,0,0,0]" ]] || [[ $with_embedder == 0 && $pending == "[0,0,0,"*",0]" ]] ||
    die "idle fixture still has work: pending l2,l3,l4,unembedded,open = $pending"
  check_db "$db" "$d/prep.toml"
  # The tick's config: every model file missing. A tick that loaded a model
  # would fail (exit 69 or a warning on stderr).
  cat >"$d/tick.toml" <<EOF
[memory_model]
backend = "local"
model_path = "$d/missing/model.gguf"

[embedder]
enabled = $([[ $with_embedder == 1 ]] && echo true || echo false)
runtime_path = "$d/missing/libonnxruntime.so"
model_dir = "$d/missing/all-MiniLM-L6-v2"
EOF
  local c_sum="$ragger --config $d/tick.toml --db $db summarize --once"
  local c_hk="$ragger --config $d/tick.toml --db $db housekeeping"
  for c in "$c_sum" "$c_hk"; do
    local rc=0
    strace -f -e trace=open,openat -o "$d/open.txt" $c >"$d/tick.out" 2>"$d/tick.err" || rc=$?
    [[ $rc == 0 && ! -s $d/tick.err && ! -s $d/tick.out ]] ||
      die "idle tick failed or was not silent (exit $rc): $(head -3 "$d/tick.err")"
    if grep -q "$d/missing" "$d/open.txt"; then die "idle tick opened a model file: $(grep "$d/missing" "$d/open.txt" | head -2)"; fi
  done
  hf -N --warmup 10 --runs "$hf_runs" --export-json "$d/hf.json" \
    -n "ragger --version" "$ragger --version" -n "summarize --once (idle)" "$c_sum" -n "housekeeping (idle)" "$c_hk"
  local v s h
  v=$(hf_mean "$d/hf.json" 0); s=$(hf_mean "$d/hf.json" 1); h=$(hf_mean "$d/hf.json" 2)
  local rs rh
  rs=$(calc "$s / $v"); rh=$(calc "$h / $v")
  record "ragger --version" "$(fmt "$v") ms" "" ""
  record "idle summarize --once" "$(fmt "$s") ms ($(fmt "$rs")× --version)" "≤ 2×" "$(verdict "$rs" 2)"
  record "idle housekeeping" "$(fmt "$h") ms ($(fmt "$rh")× --version)" "≤ 2×" "$(verdict "$rh" 2)"
  local cv cs ch
  cv=$(hf_cpu "$d/hf.json" 0); cs=$(hf_cpu "$d/hf.json" 1); ch=$(hf_cpu "$d/hf.json" 2)
  record "CPU time: --version, idle summarize, idle housekeeping" "$(fmt "$cv") ms, $(fmt "$cs") ms ($(fmt "$(calc "$cs / $cv")")×), $(fmt "$ch") ms ($(fmt "$(calc "$ch / $cv")")×)" "≤ 2×" "$(verdict "$(calc "($cs > $ch ? $cs : $ch) / $cv")" 2)"
  record "model loaded by an idle tick" "none (model files missing, exit 0, silent, never opened)" "none" "met"
  note "The database holds 100 turns in 10 closed sessions (10 projects), all summarised" \
    "$([[ $with_embedder == 1 ]] && echo 'and embedded (real MiniLM embedder)' || echo '(embedder missing: not embedded, so the tick runs with the embedder disabled)')," \
    "so a tick has nothing to do. The tick's config names a local GGUF and an embedder that do" \
    "not exist: both ticks exit 0 and print nothing, and \`strace -e trace=open,openat\` shows" \
    "that no file under missing/ was opened: no model was loaded. Means of $hf_runs runs." ""
  note "tick.toml:" "" '```toml' "$(sed "s,$d/,,g" "$d/tick.toml")" '```' ""
  cmdblock "strace -f -e trace=open,openat -o open.txt $c_sum   # exit 0, no output, no missing/ in open.txt" \
    "strace -f -e trace=open,openat -o open.txt $c_hk" \
    "hyperfine -N --warmup 10 --runs $hf_runs 'ragger --version' '$c_sum' '$c_hk'"
}

# =============================================================================
# overhead_run N DELAY_MS -> records one figure
overhead_run() {
  local n=$1 delay=$2 d=$w/overhead
  local db=$d/o-$n-$delay.db
  start_server "$delay"
  config_fake "$d/fake.toml"
  turns "$n" 100 ovh | rag --config "$d/fake.toml" --db "$db" capture --stdin
  local t0 wall
  t0=$(now_ns)
  /usr/bin/time -f '%U %S' -o "$d/cpu.txt" "$ragger" --config "$d/fake.toml" --db "$db" summarize --once --json >"$d/report.json"
  wall=$(ms_since "$t0")
  local cpu_ms
  cpu_ms=$(awk '{printf "%d", ($1 + $2) * 1000}' "$d/cpu.txt")
  stop_server
  local left items
  left=$(status_field "$db" "$d/fake.toml" pending_l2)/$(status_field "$db" "$d/fake.toml" pending_l3)
  [[ $left == "0/0" ]] || die "summarize left work (pending l2/l3 $left)"
  check_db "$db" "$d/fake.toml"
  items=$(jq -r '"\(.l2) L2s, \(.l3_folds) turns folded into L3s, \(.l4_folds) L4 folds; \(.extractive) items written extractively"' "$d/report.json")
  local per per_call
  per=$(calc "($wall - $delayed_ms) / $n")
  per_call=$(calc "($wall - $delayed_ms) / ($calls > 0 ? $calls : 1)")
  record "overhead per turn, $n turns, delay ${delay} ms" "$(fmt "$per" 3) ms (wall $(fmt "$(calc "$wall / 1000")" 1) s, $calls calls; $(fmt "$per_call" 3) ms a call)" "≤ 2 ms" "$(verdict "$per" 2)"
  record "  ragger's CPU time per turn (user + system)" "$(fmt "$(calc "$cpu_ms / $n")" 3) ms" "" ""
  note "- $n turns ($((n / 100)) sessions of 100 turns), fake server delay $delay ms:" \
    "  wall $wall ms, $calls model calls ($items)," \
    "  model time $(fmt "$delayed_ms" 0) ms as slept by the fake server ($calls × $delay ms = $((calls * delay)) ms nominal)" \
    "  → ($wall − $(fmt "$delayed_ms" 0)) / $n = $(fmt "$per" 3) ms per turn, $(fmt "$per_call" 3) ms per model call;" \
    "  ragger itself used $cpu_ms ms of CPU (user + system, /usr/bin/time), $(fmt "$(calc "$cpu_ms / $n")" 3) ms per turn."
}
sec_overhead() {
  begin overhead "Pipeline overhead per turn beyond model time"
  mkdir -p "$w/overhead"
  note "One \`summarize --once\` pass (parallel = 1, embedder off, default folds) over freshly" \
    "captured turns in sessions of 100 turns. Overhead = (wall − model time) / turns, where model" \
    "time is the time the fake server spent in its fixed delays (it sums what it really slept," \
    "which is a little more than calls × delay). The overhead includes process start, the HTTP round trips on localhost and" \
    "the fake server's own time, so it is an upper bound. The wall figure depends on the machine's" \
    "load (see the load average above); ragger's own CPU time per turn does not, and the rest of" \
    "the wall time is waiting: for the fake server (another process; one fresh localhost" \
    "connection per call, see examples/fake_server.rs) and for the disk at WAL checkpoints." \
    "The fake server's replies are not grounded in the turns, so the grounding check refuses" \
    "them and the items are written extractively; after its probe the pass asks the model for" \
    "one item in 8 (\`src/pipeline/payoff.rs\`). Fewer calls than items is therefore expected;" \
    "the overhead per model call is given beside the one per turn." ""
  overhead_run 1000 0
  overhead_run "$overhead_turns" "$overhead_delay_ms"
  note ""
  cmdblock "scripts/bench/run.sh --only overhead   # per run:" \
    "fake_server --delay-ms D      # prints URL …; on SIGTERM CALLS n, DELAYED_MS t" \
    "<N turns as JSON Lines> | ragger --config fake.toml --db o.db capture --stdin" \
    "time ragger --config fake.toml --db o.db summarize --once --json"
}

# =============================================================================
# SQL giving every L2 and summary without a current vector a zero vector of
# the real size (384 f32), as if the embedder had run.
fake_vectors_sql() {
  cat <<'EOF'
BEGIN IMMEDIATE;
INSERT OR REPLACE INTO embeddings (kind, row_id, version, model, dim, vector, created_at)
  SELECT 'l2', t.id, 1, 'bench-zero-vectors', 384, zeroblob(1536), t.captured_at
  FROM turns t LEFT JOIN embeddings e ON e.kind = 'l2' AND e.row_id = t.id
  WHERE t.l2_state = 'done' AND e.row_id IS NULL;
INSERT OR REPLACE INTO embeddings (kind, row_id, version, model, dim, vector, created_at)
  SELECT 'summary', m.id, m.version, 'bench-zero-vectors', 384, zeroblob(1536), m.updated_at
  FROM summaries m LEFT JOIN embeddings e ON e.kind = 'summary' AND e.row_id = m.id
  WHERE e.row_id IS NULL OR e.version <> m.version;
COMMIT;
EOF
}

# growth_db N DB: N summarised turns; the first N/10 in session growth-target.
growth_db() {
  local n=$1 db=$2 cfg=$3 t0
  t0=$(now_ns)
  turns "$n" 1000 growth $((n / 10)) | rag --config "$cfg" --db "$db" capture --stdin
  (cd "$(dirname "$cfg")" && fake_vectors_sql >fake-vectors.sql)
  local cap_ms
  cap_ms=$(ms_since "$t0")
  t0=$(now_ns)
  # The state a summarize pass leaves (written with SQL, not with the model):
  # every turn has an L2 and is folded, in order, into one running L3 per
  # session; `ragger check` verifies the result.
  (cd "$(dirname "$cfg")" && sqlite3 -batch "$db" >/dev/null) <<'EOF'
PRAGMA busy_timeout = 10000;
PRAGMA synchronous = NORMAL;
BEGIN IMMEDIATE;
CREATE TEMP TABLE seq AS
  SELECT id, session_id, row_number() OVER (PARTITION BY session_id ORDER BY at, id) AS s FROM turns;
CREATE INDEX temp.seq_id ON seq(id);
CREATE INDEX temp.seq_ss ON seq(session_id, s);
CREATE TEMP TABLE ends AS SELECT session_id, max(s) AS n FROM seq GROUP BY session_id;
INSERT INTO summaries (level, session_id, project, status, content, tokens, first_turn_id, last_turn_id,
                       first_seq, last_seq, version, model, prompt_version, created_at, updated_at)
  SELECT 3, e.session_id, s.project, 'running',
         'The conversation is about configuring the build pipeline; the assistant explains each part.',
         20, (SELECT id FROM seq f WHERE f.session_id = e.session_id AND f.s = 1),
         (SELECT id FROM seq l WHERE l.session_id = e.session_id AND l.s = e.n),
         1, e.n, e.n, 'fake-model', 1, s.created_at, s.created_at
  FROM ends e JOIN sessions s ON s.id = e.session_id;
UPDATE turns SET
  l2 = 'The user asked how to configure part ' || turns.id || ' of the build pipeline; the assistant explained.',
  l2_state = 'done', l2_tokens = 20, l2_model = 'fake-model', l2_prompt_version = 1, l2_at = captured_at,
  fold_seq = seq.s,
  l3_id = (SELECT m.id FROM summaries m WHERE m.level = 3 AND m.session_id = turns.session_id)
FROM seq WHERE seq.id = turns.id;
UPDATE sessions SET next_fold_seq = (SELECT n + 1 FROM ends WHERE ends.session_id = sessions.id);
COMMIT;
.read fake-vectors.sql
PRAGMA wal_checkpoint(TRUNCATE);
EOF
  local sql_ms
  sql_ms=$(ms_since "$t0")
  check_db "$db" "$cfg"
  note "- $n turns: captured with \`capture --stdin\` in $(fmt "$(calc "$cap_ms / 1000")" 1) s" \
    "  ($(fmt "$(calc "$n / ($cap_ms / 1000)")" 0) turns/s), marked summarised (and given zero vectors) with SQL in $(fmt "$(calc "$sql_ms / 1000")" 1) s;" \
    "  $(du -h "$db" | cut -f1) on disk; \`ragger check\` passes."
}
sec_growth() {
  begin growth "Cost growth: 1k vs $(( growth_big / 1000 ))k turns already stored"
  local d=$w/growth; mkdir -p "$d"
  start_server 0
  config_fake "$d/fake.toml"
  note "Each database holds N turns: a tenth of them in one session (growth-target), the rest in" \
    "sessions of 1,000 turns, ten projects. They are captured with \`capture --stdin\`; the state a" \
    "summarize pass would leave (an L2 for every turn, all folded in order into one running L3" \
    "per session) is then written directly with SQL that mimics what summarize writes" \
    "(see growth_db in scripts/bench/run.sh), because 2M model calls are out of reach." ""
  local n
  for n in "$growth_small" "$growth_big"; do growth_db "$n" "$d/g$n.db" "$d/fake.toml"; done
  note ""
  # The batch each measured pass summarises: new turns of the big session.
  local q="'"
  turns "$pass_batch" 1 growth "$pass_batch" >"$d/batch.jsonl"
  local cap_cmds=() sum_cmds=()
  for n in "$growth_small" "$growth_big"; do
    cap_cmds+=(-n "capture, $n stored" "$ragger --config $d/fake.toml --db $d/g$n.db capture --session growth-target --project proj0 --user ${q}How do I tune the cache?${q} --assistant ${q}Raise the size and watch the hit rate.${q}")
    sum_cmds+=(-n "summarize $pass_batch new turns, $n stored" --prepare "$ragger --config $d/fake.toml --db $d/g$n.db capture --stdin < $d/batch.jsonl" "$ragger --config $d/fake.toml --db $d/g$n.db summarize --once")
  done
  # Summarize first (the capture benchmark leaves pending turns behind).
  hf --warmup 1 --runs "$hf_pass_runs" --export-json "$d/sum.json" "${sum_cmds[@]}"
  hf -N --warmup 20 --runs "$hf_runs" --export-json "$d/cap.json" "${cap_cmds[@]}"
  # An idle tick at each size: drain what the benchmarks left, give the new
  # rows vectors, then tick with every model file missing (as in `idle`).
  cat >"$d/tick.toml" <<EOF
[memory_model]
backend = "local"
model_path = "$d/missing/model.gguf"

[embedder]
enabled = true
runtime_path = "$d/missing/libonnxruntime.so"
model_dir = "$d/missing/all-MiniLM-L6-v2"
EOF
  fake_vectors_sql >"$d/fake-vectors.sql"
  local tick_cmds=()
  for n in "$growth_small" "$growth_big"; do
    rag --config "$d/fake.toml" --db "$d/g$n.db" summarize --once
    sqlite3 -batch "$d/g$n.db" <"$d/fake-vectors.sql" >/dev/null
    rag --config "$d/tick.toml" --db "$d/g$n.db" summarize --once >"$d/tick.out" 2>&1 ||
      die "idle tick failed on g$n.db: $(head -3 "$d/tick.out")"
    [[ ! -s $d/tick.out ]] || die "idle tick on g$n.db was not silent: $(head -3 "$d/tick.out")"
    tick_cmds+=(-n "idle summarize --once, $n stored" "$ragger --config $d/tick.toml --db $d/g$n.db summarize --once")
  done
  stop_server
  hf -N --warmup 1 --runs "$hf_pass_runs" --export-json "$d/tick.json" "${tick_cmds[@]}"
  local c1 c2 s1 s2 rc rs
  c1=$(hf_mean "$d/cap.json" 0); c2=$(hf_mean "$d/cap.json" 1)
  s1=$(calc "$(hf_mean "$d/sum.json" 0) / $pass_batch"); s2=$(calc "$(hf_mean "$d/sum.json" 1) / $pass_batch")
  rc=$(calc "$c2 / $c1"); rs=$(calc "$s2 / $s1")
  record "capture latency, $growth_small vs $growth_big stored" "$(fmt "$c1") ms vs $(fmt "$c2") ms" "" ""
  record "capture growth ratio" "$(fmt "$rc")" "≤ 1.2" "$(verdict "$rc" 1.2)"
  record "summarize time per turn, $growth_small vs $growth_big stored" "$(fmt "$s1" 3) ms vs $(fmt "$s2" 3) ms" "" ""
  record "summarize growth ratio" "$(fmt "$rs")" "≤ 1.2" "$(verdict "$rs" 1.2)"
  local i1 i2 ri
  i1=$(hf_mean "$d/tick.json" 0); i2=$(hf_mean "$d/tick.json" 1); ri=$(calc "$i2 / $i1")
  record "idle tick (embedder on), $growth_small vs $growth_big stored" "$(fmt "$i1") ms vs $(fmt "$i2") ms" "" ""
  record "idle tick growth ratio" "$(fmt "$ri")" "≤ 1.2" "$(verdict "$ri" 1.2)"
  local cc1 cc2 cs1 cs2 ci1 ci2
  cc1=$(hf_cpu "$d/cap.json" 0); cc2=$(hf_cpu "$d/cap.json" 1)
  cs1=$(calc "$(hf_cpu "$d/sum.json" 0) / $pass_batch"); cs2=$(calc "$(hf_cpu "$d/sum.json" 1) / $pass_batch")
  ci1=$(hf_cpu "$d/tick.json" 0); ci2=$(hf_cpu "$d/tick.json" 1)
  record "CPU time: capture, $growth_small vs $growth_big stored" "$(fmt "$cc1") ms vs $(fmt "$cc2") ms (ratio $(fmt "$(calc "$cc2 / $cc1")"))" "≤ 1.2" "$(verdict "$(calc "$cc2 / $cc1")" 1.2)"
  record "CPU time: summarize per turn, $growth_small vs $growth_big stored" "$(fmt "$cs1" 3) ms vs $(fmt "$cs2" 3) ms (ratio $(fmt "$(calc "$cs2 / $cs1")"))" "≤ 1.2" "$(verdict "$(calc "$cs2 / $cs1")" 1.2)"
  record "CPU time: idle tick, $growth_small vs $growth_big stored" "$(fmt "$ci1") ms vs $(fmt "$ci2") ms (ratio $(fmt "$(calc "$ci2 / $ci1")"))" "≤ 1.2" "$(verdict "$(calc "$ci2 / $ci1")" 1.2)"
  if awk -v r="$ri" 'BEGIN { exit !(r > 1.2) }'; then
    note "The idle tick grows with the table: with the embedder on, every pass first counts the" \
      "rows that lack a current vector (count_unembedded in src/embed/index.rs, a LEFT JOIN of" \
      "every done turn and every summary with embeddings), which reads the whole turns table" \
      "even when nothing is missing." ""
  fi
  note "Capture: one new turn into the big session (means of $hf_runs runs). Summarize: before each" \
    "of $hf_pass_runs runs, $pass_batch new turns are captured into the big session; one" \
    "\`summarize --once\` then writes their $pass_batch L2s and folds them into the session's" \
    "running L3 (fake server, no delay, embedder off); time per turn = pass time / $pass_batch." \
    "Idle tick: every L2 and summary is given a zero vector of the real size with SQL" \
    "(fake_vectors_sql), as if the embedder had run, so a tick with the embedder on has nothing" \
    "to do; its config names model files that do not exist (as in the idle section), and it exits" \
    "0 silently at both sizes. Means of $hf_pass_runs runs." ""
  cmdblock "hyperfine -N --warmup 20 --runs $hf_runs \\" \
    "  'ragger --config fake.toml --db g$growth_small.db capture --session growth-target --project proj0 --user … --assistant …' \\" \
    "  'ragger --config fake.toml --db g$growth_big.db capture --session growth-target --project proj0 --user … --assistant …'" \
    "hyperfine --warmup 1 --runs $hf_pass_runs \\" \
    "  --prepare 'ragger --config fake.toml --db g$growth_small.db capture --stdin < batch.jsonl' 'ragger --config fake.toml --db g$growth_small.db summarize --once' \\" \
    "  --prepare 'ragger --config fake.toml --db g$growth_big.db capture --stdin < batch.jsonl' 'ragger --config fake.toml --db g$growth_big.db summarize --once'" \
    "hyperfine -N --warmup 1 --runs $hf_pass_runs 'ragger --config tick.toml --db g$growth_small.db summarize --once' 'ragger --config tick.toml --db g$growth_big.db summarize --once'"
}

# =============================================================================
sec_backfill() {
  begin backfill "Backfill: $backfill_turns turns, $backfill_delay_ms ms per model call"
  local d=$w/backfill; mkdir -p "$d"
  local n=$backfill_turns per=$((backfill_turns / backfill_sessions))
  start_server 0
  config_fake "$d/fake.toml"
  stop_server
  turns "$n" "$per" bf | rag --config "$d/fake.toml" --db "$d/pristine.db" capture --stdin
  sqlite3 "$d/pristine.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
  note "$n turns in $backfill_sessions sessions of $per turns, fake server with a fixed" \
    "$backfill_delay_ms ms per call, embedder off. Phase 1 (\`summarize --once --limit $n\`) writes" \
    "the $n L2s, \`parallel\` calls at a time; phase 2 (\`summarize --once\`) folds them into the" \
    "sessions' L3s: a session's folds one after another (they keep turn order), up to \`parallel\`" \
    "sessions at a time. Ideal L2 throughput = parallel × 1000 / $backfill_delay_ms turns/s; ideal overall = turns /" \
    "(L2 phase at the ideal rate + $((n - backfill_sessions)) fold calls × $backfill_delay_ms ms / parallel; the first turn of" \
    "each session is copied, no call). A verdict is met at 80% of ideal or more." ""
  [[ $mode == full ]] && note "The full run takes about an hour: phase 2 is about $(( (n - backfill_sessions) * backfill_delay_ms / 60000 )) minutes at parallel = 1." ""
  local p
  for p in 1 2 4 8; do
    local db=$d/p$p.db
    cp "$d/pristine.db" "$db"
    start_server "$backfill_delay_ms"
    config_fake "$d/p$p.toml" "$p"
    local t0 t_l2 t_l3 c_l2
    t0=$(now_ns)
    rag --config "$d/p$p.toml" --db "$db" summarize --once --limit "$n" --json >"$d/l2.json"
    t_l2=$(ms_since "$t0")
    [[ $(jq -r .l2 "$d/l2.json") == "$n" ]] || die "phase 1 wrote $(jq -r .l2 "$d/l2.json") L2s, not $n"
    t0=$(now_ns)
    rag --config "$d/p$p.toml" --db "$db" summarize --once --json >"$d/l3.json"
    t_l3=$(ms_since "$t0")
    stop_server
    check_db "$db" "$d/p$p.toml"
    local thr_l2 thr_all ideal eff
    thr_l2=$(calc "$n / ($t_l2 / 1000)"); thr_all=$(calc "$n / (($t_l2 + $t_l3) / 1000)")
    ideal=$(calc "$p * 1000 / $backfill_delay_ms"); eff=$(calc "100 * $thr_l2 / $ideal")
    # Ideal overall: the L2 phase at full parallelism, then the fold calls
    # `parallel` at a time (the first turn of each session is copied, no call).
    local ideal_all eff_all
    ideal_all=$(calc "$n / ($n / $ideal + ($n - $backfill_sessions) * $backfill_delay_ms / 1000 / $p)")
    eff_all=$(calc "100 * $thr_all / $ideal_all")
    record "parallel = $p: L2 phase" "$(fmt "$thr_l2" 1) turns/s ($(fmt "$eff" 0)% of ideal $(fmt "$ideal" 0)), $(fmt "$(calc "$t_l2 / 1000")" 1) s" "scales with parallel" "$(awk -v e="$eff" 'BEGIN { print (e >= 80 ? "met" : "MISSED") }')"
    record "parallel = $p: overall (L2 + L3)" "$(fmt "$thr_all" 1) turns/s ($(fmt "$eff_all" 0)% of ideal $(fmt "$ideal_all" 1)), $(fmt "$(calc "($t_l2 + $t_l3) / 1000")" 1) s, $calls calls" "scales with parallel" "$(awk -v e="$eff_all" 'BEGIN { print (e >= 80 ? "met" : "MISSED") }')"
    rm -f "$db" "$db-wal" "$db-shm"
  done
  cmdblock "fake_server --delay-ms $backfill_delay_ms" \
    "<$n turns, $backfill_sessions sessions, as JSON Lines> | ragger --config fake.toml --db bf.db capture --stdin" \
    "# for P in 1 2 4 8, on a fresh copy of bf.db, with [memory_model] parallel = P:" \
    "time ragger --config pP.toml --db pP.db summarize --once --limit $n   # L2 phase" \
    "time ragger --config pP.toml --db pP.db summarize --once              # L3 folds"
}

# =============================================================================
sec_model() {
  begin model "Memory model: local backend vs llama.cpp's server"
  "$root/scripts/fetch-models.sh" -q --dest "$models_data" || die "cannot fetch the models (scripts/fetch-models.sh)"
  local gguf=$models_data/models/SmolLM2-135M-Instruct.Q4_1.gguf
  RAGGER_TEST_GGUF=$gguf XDG_CACHE_HOME=$cache_home \
    "$root/scripts/bench/local-model.sh" --turns "$model_turns" >"$w/model.txt" 2>"$w/model.err" ||
    die "scripts/bench/local-model.sh failed: $(tail -n 3 "$w/model.err")"
  # Columns: backend threads load_ms median_ms p90_ms mean_ms out_tok tok/s eval_tok prompt_ms ms/out_tok
  local lload lmed lout lprompt lper sload smed sprompt sper
  read -r _ _ lload lmed _ _ lout _ _ lprompt lper < <(awk '$1 == "local"' "$w/model.txt")
  read -r _ _ sload smed _ _ _ _ _ sprompt sper < <(awk '$1 == "server"' "$w/model.txt")
  [[ -n $lper && -n $sper ]] || die "unexpected output of scripts/bench/local-model.sh: $(cat "$w/model.txt")"
  record "memory model load, local backend (vs llama-server start to ready)" "$lload ms (vs $sload ms)" "< 300 ms" \
    "$(verdict "$lload" 300)"
  record "L2 latency per turn, median of $model_turns: local vs llama-server" "$lmed ms vs $smed ms" "local ≤ server" \
    "$(verdict "$lmed" "$smed")"
  # The replies differ in length: what each would take for a reply as long
  # as the local backend's (median prompt time + tokens x time per token).
  record "  same reply length ($lout tokens), from the split: local vs llama-server" \
    "$(fmt "$(calc "$lprompt + $lout * $lper")" 0) ms vs $(fmt "$(calc "$sprompt + $lout * $sper")" 0) ms" "" ""
  note "$model_turns turn summaries (L2 prompt, max_tokens 120, temperature 0) with SmolLM2-135M-Instruct Q4_1," \
    "$(nproc) threads, by the in-process \`local\` backend and by llama.cpp's own \`llama-server\` (built from the" \
    "llama.cpp that llama-cpp-python 0.3.36 vendors, same CPU flags, one slot, prompt cache on, the same" \
    "repetition penalty) over the \`openai\` backend. The two take turns call by call. Latency is per call," \
    "from request to cleaned reply. \`eval_tok\` is the prompt tokens evaluated per call (the rest came from" \
    "the backend's prompt cache), \`prompt_ms\` their median time, \`ms/out_tok\` generation time per" \
    "output token: replies differ in length between the two (the same greedy sampling gives different text)," \
    "so compare those columns too; the summary's \"same reply length\" row puts them side by side. The" \
    "server reuses any prompt prefix it has cached; the local backend reuses only whole fixed batches" \
    "(the first 64 tokens) so that a reply never depends on the call before it, and evaluates more." \
    "Server load is process start until \`/health\` answers." "" '```'
  cat "$w/model.txt" >>"$results/model.md"
  note '```' ""
  cmdblock "scripts/bench/local-model.sh --turns $model_turns"
}

# =============================================================================
sec_rss() {
  begin rss "Peak memory of a summarize pass with both real models"
  local d=$w/rss; mkdir -p "$d"
  "$root/scripts/fetch-models.sh" -q --dest "$models_data" || die "cannot fetch the models (scripts/fetch-models.sh)"
  local gguf=$models_data/models/SmolLM2-135M-Instruct.Q4_1.gguf
  local rt=$models_data/lib/libonnxruntime.so md=$models_data/models/all-MiniLM-L6-v2
  cat >"$d/real.toml" <<EOF
[memory_model]
backend = "local"
model_path = "$gguf"

[embedder]
enabled = true
runtime_path = "$rt"
model_dir = "$md"
EOF
  turns "$rss_turns" "$rss_turns" rss | rag --config "$d/real.toml" --db "$d/rss.db" capture --stdin
  /usr/bin/time -v -o "$d/time.txt" "$ragger" --config "$d/real.toml" --db "$d/rss.db" summarize --once --json >"$d/report.json"
  local kb secs
  kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time.txt")
  secs=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$d/time.txt")
  local base_kb
  /usr/bin/time -v -o "$d/time0.txt" "$ragger" --version >/dev/null
  base_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time0.txt")
  local items
  items=$(jq -r '"\(.l2) L2, \(.l3_folds) L3 folds, \(.embedded) embedded"' "$d/report.json")
  record "peak RSS, summarize pass (SmolLM2-135M Q4_1 + MiniLM-L6)" "$(fmt "$(calc "$kb / 1024")" 0) MiB" "(reported)" ""
  record "peak RSS, ragger --version" "$(fmt "$(calc "$base_kb / 1024")" 1) MiB" "" ""
  note "$rss_turns turns in one session, local backend (llama.cpp, $(nproc) threads) and the MiniLM embedder" \
    "(ONNX Runtime): $items, in $secs (h:mm:ss or m:ss of wall time; the time depends on what" \
    "else runs on the cores). The pass frees the memory model before the embedder" \
    "loads, so the peak is the larger of the two, not their sum." ""
  cmdblock "/usr/bin/time -v ragger --config real.toml --db rss.db summarize --once   # Maximum resident set size"
}

# =============================================================================
# Process start (issue 35): scripts/bench/start.sh, with the binary of
# RAGGER_BENCH_BEFORE beside this one when given. Its section is the last of
# the report (see below).
sec_start() {
  begin start "Process start and the per-turn commands (issue 35)"
  local args=(--runs "$hf_runs" --tsv "$results/start.tsv")
  [[ -z ${RAGGER_BENCH_BEFORE:-} ]] || args+=(--before "$RAGGER_BENCH_BEFORE")
  "$root/scripts/bench/start.sh" "${args[@]}" "$ragger" >"$results/start.md" ||
    die "scripts/bench/start.sh failed"
}

# =============================================================================
for s in "${sections[@]+"${sections[@]}"}"; do "sec_$s"; done

# --- the report --------------------------------------------------------------
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
fs=$(df -T "$w" | awk 'NR == 2 {print $2}')
{
  echo "# Benchmarks"
  echo
  echo "Measured by \`scripts/bench/run.sh\` (full run; \`--quick\` for smaller sizes). Each section"
  echo "says when and in which mode it was last measured and the commands that measured it. The"
  echo "fake model server (\`examples/fake_server.rs\`) answers after a fixed delay, so model time is"
  echo "known and subtracted; the last two sections run the real models."
  echo
  echo "Wall times on a small machine move with whatever else runs on it: each section gives the"
  echo "load average when it started, and CPU time (user + system, from hyperfine or"
  echo "\`/usr/bin/time\`) is given beside the wall time where a goal depends on it."
  echo
  # The hand-kept summary of every kind's newest figure (BENCHMARKS.md,
  # "Current figures") is carried over as it is: copy this run's figures
  # into it by hand.
  if [[ -f $out ]] && grep -q '^## Current figures' "$out"; then
    awk '/^## Current figures/ { keep = 1; print; next } /^## / { keep = 0 } keep' "$out"
  fi
  echo "## History: the figure table of scripts/bench/run.sh"
  echo
  echo "The table this script writes from the sections it measures. Newer figures of the same kinds"
  echo "may be in \"Current figures\" above."
  echo
  echo "Machine: $(nproc) cores ($cpu), $mem memory, Linux $(uname -r), work folder on $fs;"
  echo "$(sqlite3 --version | cut -d' ' -f1-2 | sed 's/^/sqlite3 /'), $(hyperfine --version); report written $(date -u +%Y-%m-%dT%H:%MZ)."
  echo
  echo "| Figure | Result | Goal | Verdict |"
  echo "|---|---|---|---|"
  for s in "${all_sections[@]}"; do
    [[ -s $results/$s.tsv ]] || continue
    awk -F'\t' '{printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}' "$results/$s.tsv"
  done
  echo
  for s in "${all_sections[@]}"; do
    [[ -s $results/$s.md && $s != start ]] || continue
    cat "$results/$s.md"
  done
  # The reliability suites (scripts/reliability) keep their own section at
  # the end of the file: carry it over. The process-start section (issue
  # 35) comes last: its kept result replaces the copy carried over.
  start_heading='^## Process start and the per-turn commands'
  if [[ -f $out ]] && grep -q '^## Reliability' "$out"; then
    echo
    if [[ -s $results/start.md ]]; then
      sed -n '/^## Reliability/,$p' "$out" | awk -v h="$start_heading" '$0 ~ h { skip = 1; next } /^## / { skip = 0 } !skip'
    else
      sed -n '/^## Reliability/,$p' "$out"
    fi
  fi
  if [[ -s $results/start.md ]]; then
    echo
    cat "$results/start.md"
  fi
} >"$out.new"
mv "$out.new" "$out"

printf '%-58s %-58s %-12s %s\n' FIGURE RESULT GOAL VERDICT
for s in "${all_sections[@]}"; do
  [[ -s $results/$s.tsv ]] || continue
  awk -F'\t' '{printf "%-58s %-58s %-12s %s\n", $1, $2, $3, $4}' "$results/$s.tsv"
done
say "report written to $out"
exit 0
}
