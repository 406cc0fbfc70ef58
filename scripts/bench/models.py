#!/usr/bin/env python3
"""Choose the embedded memory model by measurement (issue 20): run the model
benchmark (load, L2 latency, tokens/s, peak RSS), the memory benchmark
(a backfill of real dialogue: speed, faithfulness, recall) and the
segmentation benchmark with every candidate GGUF in one run, print the
table, apply the choosing rule, and write the "## Choosing the embedded
memory model" section of BENCHMARKS.md.

The rule (issue 20): among the models whose L2 median latency is at most
2.5 s, whose backfill reaches 1 turn/s and whose peak RSS in the model
benchmark is at most the model file + 200 MiB, the one with the better
faithfulness (fewer invented names and numbers, then fewer looping
summaries), then the better recall.

Run by scripts/bench/models.sh, which builds what it needs.
"""

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402

PROG = "models"

# --model name of scripts/fetch-models.sh -> (file in <data>/models, label)
MODELS = {
    "smollm2-135m": ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct Q4_1"),
    "qwen2.5-coder-0.5b": ("Qwen2.5-Coder-0.5B-Instruct.Q4_K_M.gguf", "Qwen2.5-Coder-0.5B-Instruct Q4_K_M"),
}

# The rule's limits.
MAX_L2_MEDIAN_MS = 2500
MIN_BACKFILL_TURNS_S = 1.0
RSS_OVER_FILE_MIB = 200


def data_dir():
    d = os.environ.get("RAGGER_DATA_DIR")
    if d:
        return d
    return os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "ragger")


def run(cmd, **kw):
    bl.say(PROG, "$ " + " ".join(cmd)[:200])
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        bl.die(PROG, f"{cmd[0]}: exit {p.returncode}: {(p.stderr or p.stdout).strip().splitlines()[-1:]}")
    return p


def model_bench(bench, gguf, turns, threads):
    """examples/local_bench under /usr/bin/time -v: load, latency, tokens/s, peak RSS."""
    p = run(["/usr/bin/time", "-v", bench, "--model", gguf, "--turns", str(turns), "--max-tokens", "120",
             "--threads", str(threads)])
    row = next(line.split() for line in p.stdout.splitlines() if line.startswith("local "))
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return {"load_ms": float(row[2]), "median_ms": float(row[3]), "p90_ms": float(row[4]), "out_tok": float(row[6]),
            "tok_s": float(row[7]), "ms_out_tok": float(row[10]) if row[10] != "-" else None, "peak_rss_mib": rss_kb / 1024}


def judge(name, r, file_mib):
    """The limits this model misses (empty: eligible)."""
    misses = []
    if r["bench"]["median_ms"] > MAX_L2_MEDIAN_MS:
        misses.append(f"L2 median {r['bench']['median_ms'] / 1000:.2f} s > {MAX_L2_MEDIAN_MS / 1000:.1f} s")
    if r["turns_s"] < MIN_BACKFILL_TURNS_S:
        misses.append(f"backfill {r['turns_s']:.2f} turns/s < {MIN_BACKFILL_TURNS_S:g}")
    limit = file_mib + RSS_OVER_FILE_MIB
    if r["bench"]["peak_rss_mib"] > limit:
        misses.append(f"peak RSS {r['bench']['peak_rss_mib']:.0f} MiB > {limit:.0f} MiB (file + {RSS_OVER_FILE_MIB})")
    return misses


def quality_key(r):
    """Smaller is better: invented share, looping summaries, then recall (negated)."""
    return (round(r["invented"], 4), r["looping"], -r["recall"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--bench", required=True, help="the built examples/local_bench")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated --model names of fetch-models.sh")
    ap.add_argument("--max-turns", type=int, default=200, help="turns of the LoCoMo backfill (memory benchmark)")
    ap.add_argument("--bench-turns", type=int, default=30, help="L2 calls of the model benchmark")
    ap.add_argument("--seg-limit", type=int, default=4, help="dialogues per segmentation set (each model)")
    ap.add_argument("--threads", type=int, default=2, help="threads of the model benchmark")
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--command", default="scripts/bench/models.sh")
    a = ap.parse_args()
    names = [m for m in a.models.split(",") if m]
    for m in names:
        if m not in MODELS:
            bl.die(PROG, f"--models: unknown model {m!r} (known: {', '.join(MODELS)})", 2)

    t_all = time.time()
    work = tempfile.mkdtemp(prefix="ragger-models.")
    res = {}
    for m in names:
        file, label = MODELS[m]
        run([os.path.join(bl.ROOT, "scripts", "fetch-models.sh"), "--model", m, "--only", "llm", "-q"])
        gguf = os.path.join(data_dir(), "models", file)
        file_mib = os.path.getsize(gguf) / 2**20
        bl.say(PROG, f"{label}: model benchmark")
        bench = model_bench(a.bench, gguf, a.bench_turns, a.threads)
        bl.say(PROG, f"{label}: memory benchmark ({a.max_turns} turns)")
        mj = os.path.join(work, f"{m}.memory.json")
        run([sys.executable, os.path.join(bl.ROOT, "scripts", "bench", "memory.py"), "--bin", a.bin, "--local",
             "--max-turns", str(a.max_turns), "--model-path", gguf, "--no-write", "--json", mj])
        mem = json.load(open(mj))
        s = mem["sets"][0]
        f = s["faith"]
        bl.say(PROG, f"{label}: segmentation benchmark ({a.seg_limit} dialogues a set)")
        sj = os.path.join(work, f"{m}.seg.json")
        run([sys.executable, os.path.join(bl.ROOT, "scripts", "bench", "segmentation.py"), "--bin", a.bin, "--local",
             "--limit", str(a.seg_limit), "--variant", f'[memory_model]\nmodel_path = "{gguf}"', "--no-write", "--json", sj])
        seg = json.load(open(sj))
        invented = sum(f["invented"].values())
        terms = sum(f["terms"].values())
        res[m] = {
            "label": label, "file_mib": file_mib, "bench": bench, "seg": seg,
            "turns": s["turns"], "seconds": s["seconds"], "turns_s": s["turns"] / max(s["seconds"], 1e-9),
            "calls": s["model_calls"], "cpu_s": s["cpu_s"], "pass_rss": s["peak_rss_mib"],
            "invented": invented / terms if terms else 0.0, "invented_n": invented, "terms": terms,
            "looping": sum(f["looping"].values()), "rows": f["rows"], "extractive": f["extractive"], "copied": f.get("copied", {}),
            "recall": s["recall"]["ragger search"], "questions": s["questions"],
            "demo": mem["demo"],
        }
    elapsed = time.time() - t_all

    # --- table --------------------------------------------------------------------
    cols = [res[m] for m in names]

    def row(label, fn):
        return [label, *(fn(r) for r in cols)]

    def lv(r, level, key):
        return r[key].get(str(level), r[key].get(level, 0))

    rows = [
        row("model file", lambda r: f"{r['file_mib']:.0f} MiB"),
        row("model bench: load", lambda r: f"{r['bench']['load_ms']:.0f} ms"),
        row("model bench: L2 latency median / p90", lambda r: f"{r['bench']['median_ms'] / 1000:.2f} s / {r['bench']['p90_ms'] / 1000:.2f} s"),
        row("model bench: output tokens/s (ms per output token)", lambda r: f"{r['bench']['tok_s']:.1f} ({r['bench']['ms_out_tok']} ms)"),
        row("model bench: peak RSS (limit: file + 200 MiB)", lambda r: f"{r['bench']['peak_rss_mib']:.0f} MiB ({r['file_mib'] + RSS_OVER_FILE_MIB:.0f})"),
        row(f"backfill of {cols[0]['turns']} LoCoMo turns: time, turns/s", lambda r: f"{r['seconds']:.0f} s, {r['turns_s']:.2f} turns/s"),
        row("backfill: model calls a turn, CPU, peak RSS (both models)", lambda r: f"{r['calls'] / max(r['turns'], 1):.2f}, {r['cpu_s']:.0f} s, {r['pass_rss']:.0f} MiB"),
        row("invented names/numbers, L2 + L3", lambda r: f"{r['invented']:.1%} ({r['invented_n']} of {r['terms']})"),
        row("looping summaries, L2 + L3", lambda r: f"{r['looping']}"),
        row("L2 written by the model (the rest extractive)", lambda r: f"{lv(r, 2, 'rows') - lv(r, 2, 'extractive')} of {lv(r, 2, 'rows')}"),
        row("L3 of several turns written by the model (the rest extractive)", lambda r: (
            lambda many: f"{many - lv(r, 3, 'extractive')} of {many}")(lv(r, 3, 'rows') - lv(r, 3, 'copied'))),
        row("recall@5, `ragger search`", lambda r: f"{r['recall']:.3f} ({r['questions']} questions)"),
        row("demo: key terms found; invented", lambda r: f"{r['demo']['found']} of {r['demo']['terms']}; {r['demo']['faith']['share']:.1%}"),
    ]
    for name in [x["set"] for x in cols[0]["seg"]]:
        rows.append(row(f"segmentation {name}: F1 / Pk", lambda r, n=name: next(
            f"{x['F1']:.3f} / {x['Pk']:.3f} ({x['dialogues']} dialogues)" for x in r["seg"] if x["set"] == n)))
    table = bl.md_table(["figure", *(r["label"] for r in cols)], rows)

    # --- the rule -------------------------------------------------------------------
    misses = {m: judge(m, res[m], res[m]["file_mib"]) for m in names}
    eligible = [m for m in names if not misses[m]]
    lines = []
    for m in names:
        lines.append(f"- {res[m]['label']}: " + ("meets every limit" if not misses[m] else "misses " + "; ".join(misses[m])))
    if eligible:
        best = min(eligible, key=lambda m: quality_key(res[m]))
        verdict = f"By the rule the default is **{res[best]['label']}** (`--model {best}`)."
    else:
        best = None
        keys = sorted({quality_key(res[m]) for m in names})
        by_quality = [m for m in names if quality_key(res[m]) == keys[0]]
        verdict = ("No model meets every limit, so the rule chooses none and the default stays "
                   f"{res[names[0]]['label']}; by faithfulness, then recall, alone "
                   + (f"the better one is {res[by_quality[0]]['label']}." if len(by_quality) == 1 else
                      "they tie (" + ", ".join(res[m]['label'] for m in by_quality) + ")."))
    print(table)
    print("\n".join(lines))
    print(verdict)
    bl.say(PROG, f"done in {elapsed:.0f} s")

    if not a.no_write:
        now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        load = os.getloadavg()
        body = f"""_Measured {now} with {bl.ragger_version(a.bin)} (commit {bl.git_describe()}), {elapsed:.0f} s in all,
{os.cpu_count()} cores, load average {load[0]:.2f} at the end:_

```sh
{a.command}
```

Every candidate in turn, one after the other on the same machine: the model benchmark
(`examples/local_bench`: {a.bench_turns} L2 calls at temperature 0, {a.threads} threads, under
`/usr/bin/time -v`), the memory benchmark (`scripts/bench/memory.sh --local --max-turns
{a.max_turns} --model-path GGUF`: LoCoMo locomo_conv26 captured, summarised, embedded and closed
with the embedder loaded too; the backfill figures are its summarising phase) and the segmentation
benchmark (`scripts/bench/segmentation.sh --local --limit {a.seg_limit}` with the model as
`model_path`). The rule (issue 20): among the models whose L2 median is at most
{MAX_L2_MEDIAN_MS / 1000:.1f} s, whose backfill reaches {MIN_BACKFILL_TURNS_S:g} turn/s and whose
peak RSS in the model benchmark is at most the file + {RSS_OVER_FILE_MIB} MiB, the better in
faithfulness (invented share, then looping summaries), then in recall.

{table}

{chr(10).join(lines)}

{verdict}
"""
        bl.write_section(a.out, "Choosing the embedded memory model", body)
        bl.say(PROG, f"section 'Choosing the embedded memory model' written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
