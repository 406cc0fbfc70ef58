#!/usr/bin/env python3
"""Print the L2, L3 and L4 texts ragger writes for the demo conversation
(scripts/demo.sh's six turns) and for agent transcripts (default:
tests/fixtures/claude-code.jsonl), after a backfill with the embedded
defaults, as Markdown for quoting (issue 31). Run it through
quote-summaries.sh. Standard library only."""
import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import memory  # noqa: E402  (DEMO_TURNS)

PROG = "quote-summaries"


def summarise(r):
    """summarize --once, then housekeeping until nothing is pending or open."""
    calls = json.loads(r.run("summarize", "--once", "--json").stdout).get("model_calls", 0)
    for _ in range(5):
        rep = json.loads(r.run("housekeeping", "--json").stdout)
        calls += (rep.get("summarized") or {}).get("model_calls", 0)
        st = json.loads(r.run("status", "--json").stdout)
        if not any(st.get(k) for k in ("pending_l2", "pending_l3", "pending_l4", "sessions_open")):
            break
    return calls


def words(text):
    return len((text or "").split())


def quote(text):
    """The text verbatim in a fence (BENCHMARKS.md's prose re-filling leaves fences alone)."""
    body = re.sub(r"\n\s*\n", "\n", (text or "").strip()) or "(empty)"  # a blank line would end the fence's paragraph
    return "```text\n" + body + "\n```"


def report(r, title):
    out = [f"### {title}", ""]
    sessions = json.loads(r.run("sessions", "--json").stdout)
    for s in sorted(sessions, key=lambda s: s.get("first") or ""):
        v = json.loads(r.run("show", s["session"], "--json").stdout)
        out += [f"#### session `{s['session']}` (project {v.get('project')}, {len(v.get('turns') or [])} turns)", ""]
        for t in v.get("turns") or []:
            out.append(f"- L2 of turn {t['n']} ({words(t.get('l2'))} words, {t.get('l2_origin') or 'pending'}): {(t.get('l2') or '').strip()}")
        out.append("")
        for row in v.get("summaries") or []:
            if row.get("level") != 3:
                continue
            out += [f"L3 {row['id']}, turns {row.get('episode_range')}, {words(row.get('content'))} words, origin {row.get('origin')}:", "",
                    quote(row.get("content")), ""]
    for p in json.loads(r.run("projects", "--json").stdout):
        out += [f"#### L4 of project {p['project']} ({words(p.get('summary'))} words, {p.get('summary_status')})", "", quote(p.get("summary")), ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(prog="quote-summaries.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--transcript", action="append", help="a Claude Code transcript (.jsonl; repeatable)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--model-path")
    ap.add_argument("--no-demo", action="store_true")
    ap.add_argument("--keep", help="keep the databases in this folder")
    ap.add_argument("--write", action="store_true", help="also write the quotes as the 'Summaries quoted (issue 31)' section of BENCHMARKS.md")
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--command", default="scripts/bench/quote-summaries.sh")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        bl.die(PROG, f"no ragger binary at {a.bin} (build it: cargo build --release)", 2)
    transcripts = a.transcript or [os.path.join(bl.ROOT, "tests", "fixtures", "claude-code.jsonl")]
    for t in transcripts:
        if not os.path.isfile(t):
            bl.die(PROG, f"{t}: no such file", 2)
    work = a.keep or tempfile.mkdtemp(prefix="ragger-quote.")
    os.makedirs(work, exist_ok=True)
    try:
        cfg = os.path.join(work, "config.toml")
        with open(cfg, "w") as f:
            f.write(bl.base_config(None, threads=a.threads, model_path=a.model_path))
        parts = [f"_Produced by `scripts/bench/quote-summaries.sh` with {bl.ragger_version(a.bin)} (commit {bl.git_describe()}), "
                 f"{dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%dT%H:%MZ')}, embedded defaults:_\n\n```sh\n{a.command}\n```\n"]
        print(parts[0])
        if not a.no_demo:
            r = bl.Ragger(a.bin, cfg, os.path.join(work, "demo.db"))
            t0 = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(hours=2)
            lines = [{"session": "demo", "project": "homelab", "user": u, "assistant": x,
                      "at": (t0 + dt.timedelta(minutes=m)).strftime("%Y-%m-%dT%H:%M:%SZ"), "id": f"t{i + 1}"}
                     for i, (m, u, x) in enumerate(memory.DEMO_TURNS)]
            r.run("capture", "--stdin", stdin="".join(json.dumps(x) + "\n" for x in lines))
            bl.say(PROG, "demo: 6 turns; summarising")
            calls = summarise(r)
            parts.append(report(r, f"The demo (scripts/demo.sh, 6 turns; {calls} model calls)"))
            print(parts[-1])
        for i, t in enumerate(transcripts):
            r = bl.Ragger(a.bin, cfg, os.path.join(work, f"transcript{i}.db"))
            r.run("import", "claude-code", t)
            bl.say(PROG, f"{os.path.basename(t)}: imported; summarising")
            calls = summarise(r)
            parts.append(report(r, f"Agent transcript `{os.path.relpath(t, bl.ROOT)}` ({calls} model calls)"))
            print(parts[-1])
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if a.write:
        bl.write_section(a.out, "Summaries quoted (issue 31)", "\n\n".join(p.strip() for p in parts))
        bl.say(PROG, f"section 'Summaries quoted (issue 31)' written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
