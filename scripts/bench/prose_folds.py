#!/usr/bin/env python3
"""Whether the memory model can write a conversation's summaries (L3, L4)
itself (issue 31): captures a LoCoMo conversation one session at a time and
runs `ragger housekeeping -v` after each, so every pass asks the model afresh
(the payoff rule stops asking within a pass, not across passes, as in live
use), with one binary, one GGUF and one setting of `[summaries] l3_digest`
(false: the design's prose folds, the model's own sentences; true: the
default digest). Prints the L3 and L4 rows by origin, the fact recall of each
session's L3s joined (as scripts/bench/summaries.sh scores it), why the
model's fold replies were refused (the `-v` lines, first reason each), and
every L3 the model wrote, to be read.

Usage: scripts/bench/prose-folds.sh --bin PATH --model-path GGUF
           [--sessions N] [--digest] [--threads N] [--data FILE] [--keep DIR]
Needs python3 with rouge-score's nltk (scripts/bench/summaries.sh installs it
into its venv; prose-folds.sh uses that venv) and the models fetched by
scripts/fetch-models.sh.
"""
import argparse
import collections
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import memory  # noqa: E402
import summaries as S  # noqa: E402  (content_stems, held: the fact recall of summaries.sh)

PROG = "prose-folds"
REFUSED = re.compile(r"ragger: fold reply rejected, written extractively: (.*)")


def reason(line):
    """The kind of a refusal: its reason without the reply or the words it names."""
    why = REFUSED.match(line).group(1)
    why = why.split(': "', 1)[0]
    return re.sub(r"\s*\(.*|:.*", "", why)


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model-path", required=True)
    ap.add_argument("--sessions", type=int, default=0, help="only the first N sessions (0: all)")
    ap.add_argument("--digest", action="store_true", help="the default digest instead of prose folds")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--data", default=os.path.join(bl.ROOT, "..", "shared", "data", "locomo", "locomo_conv26.json"))
    ap.add_argument("--keep", help="keep the database and the log in this folder")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        bl.die(PROG, f"no ragger binary at {a.bin}", 2)
    if not os.path.isfile(a.model_path):
        bl.die(PROG, f"{a.model_path}: no such GGUF (scripts/fetch-models.sh fetches both models)", 2)
    turns, _ = memory.load_locomo(a.data, None)
    conv = json.load(open(a.data))
    conv = conv[0] if isinstance(conv, list) else conv
    sessions = list(dict.fromkeys(t["session"] for t in turns))
    if a.sessions:
        sessions = sessions[: a.sessions]
    work = a.keep or tempfile.mkdtemp(prefix="ragger-prose.")
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, "prose.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    cfg = os.path.join(work, "config.toml")
    with open(cfg, "w") as f:
        base = bl.base_config(None, threads=a.threads, model_path=a.model_path)
        f.write(bl.merge_toml(base, f"[summaries]\nl3_digest = {'true' if a.digest else 'false'}\n"))
    r = bl.Ragger(a.bin, cfg, db)
    log = []
    started = time.time()
    try:
        for i, sid in enumerate(sessions):
            lines = [{k: t[k] for k in ("session", "project", "user", "assistant", "at", "id")} for t in turns if t["session"] == sid]
            r.run("capture", "--stdin", stdin="".join(json.dumps(x) + "\n" for x in lines))
            log += r.run("housekeeping", "-v").stderr.splitlines()
            bl.say(PROG, f"session {i + 1} of {len(sessions)} summarised ({time.time() - started:.0f} s)")
        log += r.run("housekeeping", "-v").stderr.splitlines()
        seconds = time.time() - started
        if a.keep:
            with open(os.path.join(work, "log"), "w") as f:
                f.write("\n".join(log) + "\n")
        rows = sqlite3.connect(db).execute(
            "SELECT s.level, s.origin, s.content, se.external_id FROM summaries s "
            "LEFT JOIN sessions se ON se.id = s.session_id ORDER BY s.id").fetchall()
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    origins = {3: collections.Counter(), 4: collections.Counter()}
    words = {3: [], 4: []}
    l3_of = collections.defaultdict(list)
    model_l3 = []
    for level, origin, content, sid in rows:
        origins[level][origin] += 1
        words[level].append(len(content.split()))
        if level == 3:
            l3_of[sid].append(content)
            if origin == "model":
                model_l3.append(content)
    recall = []
    for sid, texts in l3_of.items():
        n = int(sid.rsplit("_", 1)[1])
        facts = [it[0] for items in (conv["observation"].get(f"session_{n}_observation") or {}).values() for it in items]
        have = S.content_stems(" ".join(texts))
        if facts:
            recall.append(sum(S.held(S.content_stems(f), have) for f in facts) / len(facts))
    reasons = collections.Counter(reason(line) for line in log if REFUSED.match(line))
    name = os.path.basename(a.model_path)
    kind = "digest (default)" if a.digest else "prose folds"

    def share(level):
        n = sum(origins[level].values())
        return f"{origins[level]['model']} of {n}" + (f" ({origins[level]['model'] / n:.0%})" if n else "")

    print("| model, summaries | sessions | turns | L3 by the model | L4 by the model | words per L3 | fact recall | fold replies refused | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    n_turns = sum(1 for t in turns if t["session"] in sessions)
    print(f"| {name}, {kind} | {len(sessions)} | {n_turns} | {share(3)} | {share(4)} | "
          f"{sum(words[3]) / max(len(words[3]), 1):.0f} | {sum(recall) / max(len(recall), 1):.3f} | {sum(reasons.values())} | {seconds:.0f} |")
    print("\nL3 and L4 rows by origin:", {f"L{k}": dict(v) for k, v in origins.items()})
    print("\nWhy fold replies were refused (first reason of each):")
    for why, n in reasons.most_common():
        print(f"- {n}: {why}")
    print(f"\nThe L3s the model wrote ({len(model_l3)}):")
    for t in model_l3:
        print(f"- {t}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
