"""Backlog throughput of the embedded memory model by `[memory_model]
parallel` (issue 19): the same backlog of LoCoMo turns summarised (L2) with
parallel 1, 2, 4, 8, then folded (L3, every-turn merges, several sessions at
once) with parallel 1 and 4, by the real binary with the local backend.
Runs are interleaved (each repetition takes the settings in a rotated
order) because the machine is shared; the table gives the median and the
range over the repetitions. Peak RSS and CPU time come from /usr/bin/time.
Standard library only."""
import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import memory  # noqa: E402

PROG = "parallel"


def backlog(path, sessions, per_session):
    """The first `per_session` turns of each of the first `sessions` LoCoMo
    sessions, dated over the last minutes (open, recent sessions)."""
    turns, _ = memory.load_locomo(path, None)
    picked, seen = [], {}
    for t in turns:
        n = seen.get(t["session"], 0)
        if n < per_session and (t["session"] in seen or len(seen) < sessions):
            seen[t["session"]] = n + 1
            picked.append(t)
    now = dt.datetime.now(dt.timezone.utc)
    lines = []
    for i, t in enumerate(picked):
        at = now - dt.timedelta(seconds=10 * (len(picked) - i))
        lines.append({"session": t["session"], "project": t["project"], "user": t["user"],
                      "assistant": t["assistant"], "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "id": t["id"]})
    return lines


def config(path, threads, parallel, fold):
    with open(path, "w") as f:
        f.write("[memory_model]\nbackend = \"local\"\n")
        f.write(f"threads = {threads}\nparallel = {parallel}\n\n[embedder]\nenabled = false\n\n[summaries]\n")
        if fold:
            f.write('fold = "every-turn"\n')
        else:
            # L2 only: the fold gate stays shut (recent turns, a huge threshold).
            f.write('fold = "threshold"\nthreshold_tokens = 1000000000\n')


def timed(binary, cfg, db, *args):
    """Run ragger under /usr/bin/time; (wall s, peak RSS MiB, CPU s, JSON out)."""
    fmt = "TIME %e %M %U %S"
    cmd = ["/usr/bin/time", "-f", fmt, binary, "--config", cfg, "--db", db, *args]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    line = next((l for l in p.stderr.splitlines() if l.startswith("TIME ")), None)
    if p.returncode != 0 or line is None:
        raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    _, _, rss_kib, user, sys_ = line.split()
    return wall, int(rss_kib) / 1024, float(user) + float(sys_), json.loads(p.stdout)


def copy_db(src, dst):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(dst + suffix):
            os.remove(dst + suffix)
        if os.path.exists(src + suffix):
            shutil.copy(src + suffix, dst + suffix)


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def summary(rows, key):
    vals = [r[key] for r in rows]
    return statistics.median(vals), min(vals), max(vals)


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--bin", default=os.path.join(bl.ROOT, "target", "release", "ragger"))
    ap.add_argument("--data", default=os.path.join(os.path.dirname(bl.ROOT), "shared", "data", "locomo", "locomo_conv26.json"))
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--per-session", type=int, default=8)
    ap.add_argument("--parallel", default="1,2,4,8", help="L2 settings, the first is the baseline")
    ap.add_argument("--fold-parallel", default="1,4", help="fold settings (empty: no folds)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--fold-reps", type=int, default=2)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--command", default="scripts/bench/parallel.sh")
    a = ap.parse_args()
    if not os.path.isfile(a.data):
        bl.die(PROG, f"{a.data}: no such file (set --data)", 2)
    if not os.access(a.bin, os.X_OK):
        bl.die(PROG, f"{a.bin}: no ragger binary (cargo build --release)", 2)
    l2_settings = [int(x) for x in a.parallel.split(",") if x]
    fold_settings = [int(x) for x in a.fold_parallel.split(",") if x]
    lines = backlog(a.data, a.sessions, a.per_session)
    n = len(lines)
    sessions = len({l["session"] for l in lines})
    work = tempfile.mkdtemp(prefix="ragger-parallel-")
    stdin = "".join(json.dumps(x) + "\n" for x in lines)
    loads = [loadavg()]
    bl.say(PROG, f"{n} turns in {sessions} sessions, {a.threads} threads, {os.cpu_count()} cores; work in {work}")
    try:
        # A captured backlog, copied for every run.
        seed_db = os.path.join(work, "captured.db")
        cfg = os.path.join(work, "capture.toml")
        config(cfg, a.threads, 1, False)
        bl.Ragger(a.bin, cfg, seed_db).run("capture", "--stdin", stdin=stdin)
        l2 = {p: [] for p in l2_settings}
        folded_db = os.path.join(work, "summarised.db")
        for rep in range(a.reps):
            order = l2_settings[rep % len(l2_settings):] + l2_settings[: rep % len(l2_settings)]
            for p in order:
                db, cfg = os.path.join(work, f"l2-{p}.db"), os.path.join(work, f"l2-{p}.toml")
                copy_db(seed_db, db)
                config(cfg, a.threads, p, False)
                wall, rss, cpu, out = timed(a.bin, cfg, db, "summarize", "--once", "--json")
                row = {"wall": wall, "rss": rss, "cpu": cpu, "done": out["l2"], "extractive": out["extractive"],
                       "rate": out["l2"] / wall}
                l2[p].append(row)
                bl.say(PROG, f"rep {rep + 1} L2 parallel {p}: {out['l2']} L2s in {wall:.1f} s ({row['rate']:.2f}/s), "
                             f"peak RSS {rss:.0f} MiB, load {loadavg()}")
                if p == l2_settings[0] and rep == 0:
                    copy_db(db, folded_db)
        loads.append(loadavg())
        folds = {p: [] for p in fold_settings}
        for rep in range(a.fold_reps if fold_settings else 0):
            order = fold_settings[rep % len(fold_settings):] + fold_settings[: rep % len(fold_settings)]
            for p in order:
                db, cfg = os.path.join(work, f"l3-{p}.db"), os.path.join(work, f"l3-{p}.toml")
                copy_db(folded_db, db)
                config(cfg, a.threads, p, True)
                wall, rss, cpu, out = timed(a.bin, cfg, db, "summarize", "--once", "--json")
                row = {"wall": wall, "rss": rss, "cpu": cpu, "done": out["l3_folds"], "extractive": out["extractive"],
                       "rate": out["l3_folds"] / wall}
                folds[p].append(row)
                bl.say(PROG, f"rep {rep + 1} folds parallel {p}: {out['l3_folds']} folds in {wall:.1f} s "
                             f"({row['rate']:.3f}/s), peak RSS {rss:.0f} MiB, load {loadavg()}")
        loads.append(loadavg())
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def table(results, what, unit):
        base = statistics.median(r["rate"] for r in results[next(iter(results))])
        rows = []
        for p, rs in results.items():
            rate, lo, hi = summary(rs, "rate")
            wall, _, _ = summary(rs, "wall")
            rss = max(r["rss"] for r in rs)
            cpu, _, _ = summary(rs, "cpu")
            extra = sum(r["extractive"] for r in rs) / len(rs)
            rows.append([p, f"{statistics.median(r['done'] for r in rs):.0f}", f"{wall:.1f}", f"{rate:.3f} ({lo:.3f}–{hi:.3f})",
                         f"{rate / base:.2f}×", f"{cpu:.1f}", f"{rss:.0f}", f"{extra:.1f}"])
        return bl.md_table(["parallel", what, "wall s", f"{unit}/s median (range)", "vs parallel " + str(next(iter(results))),
                            "CPU s", "peak RSS MiB", "extractive"], rows)

    l2_table = table(l2, "L2s", "turns")
    fold_table = table(folds, "L3 folds", "folds") if fold_settings else ""
    print(l2_table)
    if fold_table:
        print()
        print(fold_table)
    cores = os.cpu_count()
    body = f"""`{a.command}` — {bl.ragger_version(a.bin)} ({bl.git_describe()}), {dt.date.today().isoformat()}, the
embedded SmolLM2-135M-Instruct Q4_1 with `threads = {a.threads}` on a {cores}-core machine (4 cores were not
available, so only 2 cores were measured). The backlog: the first {a.per_session} turns of the first {sessions}
sessions of LoCoMo `locomo_conv26` ({n} turns, read from `../shared/data`), captured once and copied for every run;
`summarize --once` timed by `/usr/bin/time` (wall, user+system CPU, peak RSS), embedder off. L2 runs keep the fold
gate shut (L2s only); fold runs start from the database of the first `parallel = 1` L2 run and fold every turn
(`fold = "every-turn"`, up to `parallel` sessions at once). Each repetition takes the settings in a rotated order
({a.reps} repetitions of L2 runs, {a.fold_reps} of fold runs), so other engineers' builds on the shared machine slow
all settings alike; the range shows the noise. Load average (1 min) at the start, after the L2 runs and at the end:
{', '.join(loads)}. `parallel = 1` is the sequential path (one call at a time, unchanged), the baseline from the
same run.

{l2_table}

{fold_table}
"""
    if not a.no_write:
        bl.write_section(a.out, "Backlog throughput by parallel (local model)", body)
        bl.say(PROG, f"wrote {a.out}")


if __name__ == "__main__":
    main()
