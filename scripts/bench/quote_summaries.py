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

# A longer agent session written for this benchmark (issue 31): two topics,
# follow-ups that only make sense with the turn before ("That fixed it.",
# "Do it for the whole codebase."), tool calls whose output is not the answer,
# a fix with its numbers, and filler at the end. Each turn: the user's
# prompt, the tool calls [(tool, input, output)], the assistant's reply.
AGENT_TURNS = [
    ("Password reset emails from the shop never arrive. Users on Gmail say nothing shows up, not even in spam.",
     [("Bash", {"command": "grep -n EMAIL_ shopfront/settings.py"},
       "31:EMAIL_HOST = 'smtp.mailgun.org'\n32:EMAIL_PORT = 465\n33:EMAIL_USE_TLS = True"),
      ("Bash", {"command": "python manage.py sendtestemail dev@example.com"},
       "smtplib.SMTPServerDisconnected: Connection unexpectedly closed")],
     "The settings pair port 465 (implicit TLS) with EMAIL_USE_TLS, which means STARTTLS, so Mailgun closes the "
     "connection. I set EMAIL_PORT = 587 in shopfront/settings.py and kept EMAIL_USE_TLS = True; the other fix would be "
     "port 465 with EMAIL_USE_SSL = True."),
    ("That fixed it.", [],
     "Good: sendtestemail now reports 1 message sent, and the reset mail reached a Gmail inbox in 4 seconds."),
    ("Are there other places that open SMTP connections themselves?",
     [("Bash", {"command": "grep -rn 'smtplib.SMTP' --include=*.py ."},
       "billing/invoices.py:41:    server = smtplib.SMTP_SSL(host, 465)\nnewsletter/send.py:88:    server = smtplib.SMTP(host, 25)")],
     "Two: billing/invoices.py opens SMTP_SSL on port 465 and newsletter/send.py uses plain port 25; both bypass "
     "Django's mail settings."),
    ("Do it for the whole codebase.",
     [("Edit", {"file_path": "billing/invoices.py"}, "The file billing/invoices.py has been updated."),
      ("Edit", {"file_path": "newsletter/send.py"}, "The file newsletter/send.py has been updated."),
      ("Bash", {"command": "pytest -q"}, "212 passed in 14.2s")],
     "Both now send through django.core.mail.send_mail with the EMAIL_* settings, so port 587 with STARTTLS applies "
     "everywhere; the test suite passes (212 tests)."),
    ("ok commit",
     [("Bash", {"command": "git commit -am 'mail: one SMTP path, port 587 with STARTTLS'"},
       "[main 9c2d1e0] mail: one SMTP path, port 587 with STARTTLS\n 3 files changed, 9 insertions(+), 14 deletions(-)")],
     "Committed as 9c2d1e0."),
    ("Different thing: the CI job takes 11 minutes since last week. Why?",
     [("Bash", {"command": "gh run view 8812 --log | grep -i cache"},
       "Cache not found for input keys: pip-Linux-3f2a9c")],
     "The pip cache key hashes requirements-dev.txt, which Monday's lock update changed, and the restore-keys fallback was "
     "removed in the same commit, so every run reinstalls all 140 packages. A restore-keys line with pip-Linux- brings "
     "partial cache hits back."),
    ("Add the fallback and pin the Python version too.",
     [("Edit", {"file_path": ".github/workflows/ci.yml"}, "The file .github/workflows/ci.yml has been updated."),
      ("Bash", {"command": "gh run watch"}, "✓ ci  3m40s")],
     "ci.yml now restores from pip-Linux- when the exact key misses and pins python-version 3.12.7; the next run took "
     "3 min 40 s instead of 11 min."),
    ("Thanks!", [], "You're welcome."),
]


def agent_transcript(path, start):
    """AGENT_TURNS as a Claude Code session transcript (JSON Lines) at path."""
    sid = "5d0c1b2a-7e6f-4a3b-9c8d-0e1f2a3b4c5d"
    recs, parent, n = [], None, 0
    t = start

    def add(kind, content, **extra):
        nonlocal parent, n, t
        n += 1
        uid = f"9a8b7c6d-0000-4000-8000-{n:012d}"
        t += dt.timedelta(seconds=20)
        recs.append({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/src/shopfront",
                     "sessionId": sid, "version": "2.0.31", "gitBranch": "main", "type": kind,
                     "message": {"role": kind, "content": content, **extra}, "uuid": uid,
                     "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S.000Z")})
        parent = uid

    for i, (prompt, tools, reply) in enumerate(AGENT_TURNS):
        t += dt.timedelta(minutes=3)
        add("user", prompt)
        for j, (name, inp, output) in enumerate(tools):
            tid = f"toolu_{i:02d}{j:02d}"
            add("assistant", [{"type": "tool_use", "id": tid, "name": name, "input": inp}], model="claude-sonnet-4-5-20250929")
            add("user", [{"tool_use_id": tid, "type": "tool_result", "content": output}])
        add("assistant", [{"type": "text", "text": reply}], model="claude-sonnet-4-5-20250929")
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)


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
    ap.add_argument("--transcript", action="append",
                    help="a Claude Code transcript (.jsonl; repeatable; default: tests/fixtures/claude-code.jsonl and this script's own 8-turn session)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--model-path")
    ap.add_argument("--no-demo", action="store_true")
    ap.add_argument("--config-extra", default="", metavar="TOML", help="a TOML snippet added to the config")
    ap.add_argument("--keep", help="keep the databases in this folder")
    ap.add_argument("--write", action="store_true", help="also write the quotes as the 'Summaries quoted (issue 31)' section of BENCHMARKS.md")
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--command", default="scripts/bench/quote-summaries.sh")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        bl.die(PROG, f"no ragger binary at {a.bin} (build it: cargo build --release)", 2)
    for t in a.transcript or []:
        if not os.path.isfile(t):
            bl.die(PROG, f"{t}: no such file", 2)
    work = a.keep or tempfile.mkdtemp(prefix="ragger-quote.")
    os.makedirs(work, exist_ok=True)
    transcripts = a.transcript
    if not transcripts:
        own = os.path.join(work, "agent-session.jsonl")
        agent_transcript(own, dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(hours=3))
        transcripts = [os.path.join(bl.ROOT, "tests", "fixtures", "claude-code.jsonl"), own]
    try:
        cfg = os.path.join(work, "config.toml")
        with open(cfg, "w") as f:
            base = bl.base_config(None, threads=a.threads, model_path=a.model_path)
            f.write(bl.merge_toml(base, a.config_extra.replace("\\n", "\n")) if a.config_extra else base)
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
            name = os.path.relpath(t, bl.ROOT) if t.startswith(bl.ROOT) else f"{os.path.basename(t)} (AGENT_TURNS of scripts/bench/quote_summaries.py)"
            parts.append(report(r, f"Agent transcript `{name}` ({calls} model calls)"))
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
