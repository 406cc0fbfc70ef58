#!/usr/bin/env python3
"""Leave-one-dataset-out validation of the segmenter's settings (issue 32).

Loads the sets of `segmentation.sh` (SuperDialseg and TIAGE validation
splits, the joined sessions, the coding-agent sessions, LoCoMo conv-26
sessions without labels), embeds every turn once with `ragger embed` (the
same text and model as the turn vectors the pass stores), and mirrors the
rule of `src/pipeline/segment/score.rs` in Python (its word lists are read
from the Rust sources), decided gap after gap as the pass does, each gap
seeing 2 x CONTEXT turns on either side. Then, for a small grid of the
settings (floor, strong, minimum turns, lexical and cue weights), every set
is held out in turn: the settings that do best on the other sets are
scored on it. Loss per set: Pk + (1 - F1) where there are labels; on LoCoMo,
how far it exceeds 3 segments per 10 turns and 15% one-turn segments.

Standard library only. Usage:
  scripts/bench/segmentation_lodo.py [--bin target/release/ragger] [--cache FILE]
"""
import argparse
import itertools
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import segmentation as sg  # noqa: E402

PROG = "segmentation_lodo"
SRC = os.path.join(bl.ROOT, "src")
WINDOW, CONTEXT, SIMILARITY_WEIGHT = 2, 10, 2.0


def rust_strings(path, name):
    text = open(os.path.join(SRC, path)).read()
    m = re.search(r"const " + name + r": &\[&str\] = &\[(.*?)\];", text, re.S)
    if not m:
        bl.die(PROG, f"no const {name} in src/{path}")
    return re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))


STOP = set(rust_strings("text.rs", "STOP_WORDS"))
ACK = set(rust_strings("pipeline/segment/score.rs", "ACKNOWLEDGEMENTS"))
OPENERS = set(rust_strings("pipeline/segment/mod.rs", "QUESTION_OPENERS"))
GREETINGS = rust_strings("pipeline/segment/mod.rs", "GREETINGS")
ADJ = set(rust_strings("pipeline/segment/mod.rs", "NEW_TOPIC_ADJ"))
NOUN = set(rust_strings("pipeline/segment/mod.rs", "NEW_TOPIC_NOUN"))
PHRASES = rust_strings("pipeline/segment/mod.rs", "NEW_TOPIC_PHRASES")


def words(text):
    out, cur = [], ""
    for c in text:
        if c.isalnum() or (c in "_'-" and cur):
            cur += c.lower()
        elif cur:
            out.append(cur.rstrip("'-_"))
            cur = ""
    if cur:
        out.append(cur.rstrip("'-_"))
    return out


def stems(text):
    return {w[:5] for w in words(text) if len(w) >= 3 and w not in STOP}


def greets(user):
    j = " " + " ".join(words(user)) + " "
    return any(j.startswith(f" {g} ") for g in GREETINGS)


def announces(user):
    ws = words(user)
    j = " " + " ".join(ws) + " "
    return any(f" {p} " in j for p in PHRASES) or any(a in ADJ and b in NOUN for a, b in zip(ws, ws[1:])) or greets(user)


def is_question(text):
    text = text.strip()
    ws = words(text)
    return text.endswith("?") or (bool(ws) and ws[0] in OPENERS)


def substance(user):
    return any(len(w) >= 3 and w not in STOP and w not in ACK for w in words(user))


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    return 0.0 if na == 0 or nb == 0 else dot / (na * nb)


def vsum(vs):
    return [sum(x) for x in zip(*vs)]


def flat(u, a):
    return re.sub(r"\s+", " ", f"{u} {a}").strip() or "."


def embed(binary, texts, cache):
    known = {}
    if cache and os.path.exists(cache):
        known = json.load(open(cache))
    todo = [t for t in sorted(set(texts)) if t not in known]
    if todo:
        bl.say(PROG, f"embedding {len(todo)} turn texts with {binary}")
        with tempfile.TemporaryDirectory() as d:
            cfg = os.path.join(d, "c.toml")
            open(cfg, "w").write("[embedder]\nthreads = 1\n")
            p = subprocess.run([binary, "--config", cfg, "--db", os.path.join(d, "e.db"), "embed", "--stdin"],
                               input="\n".join(todo) + "\n", capture_output=True, text=True, check=True)
        vecs = [json.loads(l)["embedding"] for l in p.stdout.splitlines() if l.strip()]
        if len(vecs) != len(todo):
            bl.die(PROG, f"ragger embed: {len(todo)} texts in, {len(vecs)} vectors out")
        known.update(zip(todo, vecs))
        if cache:
            json.dump(known, open(cache, "w"))
    return known


def prepare(item, vec):
    """What the rule reads of a dialogue, independent of the settings."""
    turns = item["turns"]
    n = len(turns)
    vs = [vec[flat(u, a)] for u, a in turns]
    st = [stems(u + "\n" + a) for u, a in turns]
    sims, lex = [0.0] * n, [0.0] * n
    for j in range(1, n):
        sims[j] = cosine(vsum(vs[max(0, j - WINDOW):j]), vsum(vs[j:min(n, j + WINDOW)]))
        left, right = set().union(*st[max(0, j - WINDOW):j]), set().union(*st[j:min(n, j + WINDOW)])
        lex[j] = 1 - len(left & right) / max(1, min(len(left), len(right)))
    depth = [0.0] * n
    for j in range(1, n):
        lo, hi = max(1, j - CONTEXT), min(n - 1, j + CONTEXT)

        def peak(step):
            best, k = sims[j], j + step
            while lo <= k <= hi and sims[k] >= best:
                best, k = sims[k], k + step
            return best

        depth[j] = peak(-1) + peak(1) - 2 * sims[j]
    opens, cue = [False] * n, [False] * n
    for j in range(1, n):
        u = turns[j][0]
        g, c = greets(u), announces(u)
        answers = turns[j - 1][1].strip().endswith("?") and not is_question(u) and not g and not c
        opens[j] = (g or c or substance(u)) and not answers
        cue[j] = c
    return dict(n=n, bounds=item["bounds"], sims=sims, lex=lex, depth=depth, opens=opens, cue=cue)


def decide(d, p):
    n = d["n"]
    sig = [0.0] + [d["depth"][j] + SIMILARITY_WEIGHT * (1 - d["sims"][j]) + p["lexical"] * d["lex"][j]
                   + (p["cue"] if d["cue"][j] else 0.0) for j in range(1, n)]
    hyp, running = [], 1
    for i in range(1, n):
        lo, hi = max(1, i - CONTEXT), min(n - 1, i + CONTEXT)
        mean = sum(sig[lo:hi + 1]) / (hi - lo + 1)
        peak = all(sig[i] >= sig[j] for j in (i - 1, i + 1) if 1 <= j < n and d["opens"][j])
        s = sig[i]
        new = d["opens"][i] and (s >= p["strong"] or (s >= max(p["floor"], mean) and peak and running >= p["min_turns"]))
        if new:
            hyp.append(i)
            running = 0
        running += 1
    return hyp


def decide_live(item, vec, p):
    """The decisions of live every-turn mode: each gap judged when its turn
    is the newest, with the past alone."""
    hyp, running = [], 1
    for i in range(1, len(item["turns"])):
        d = prepare({"turns": item["turns"][: i + 1], "bounds": None}, vec)
        sig = [0.0] + [d["depth"][j] + SIMILARITY_WEIGHT * (1 - d["sims"][j]) + p["lexical"] * d["lex"][j]
                       + (p["cue"] if d["cue"][j] else 0.0) for j in range(1, i + 1)]
        lo = max(1, i - CONTEXT)
        mean = sum(sig[lo:i + 1]) / (i - lo + 1)
        peak = i - 1 < 1 or not d["opens"][i - 1] or sig[i] >= sig[i - 1]
        s = sig[i]
        if d["opens"][i] and (s >= p["strong"] or (s >= max(p["floor"], mean) and peak and running >= p["min_turns"])):
            hyp.append(i)
            running = 0
        running += 1
    return hyp


def score(data, p):
    s = sg.Score()
    for d in data:
        s.add(d["n"], d["bounds"], decide(d, p))
    f1, _, _, pk, wd = s.row()
    seg10, one = s.density()
    return dict(F1=f1, Pk=pk, WD=wd, seg10=seg10, one=one)


def loss(name, r):
    if name == "locomo":
        return max(0.0, r["seg10"] - 3) / 3 + 5 * max(0.0, r["one"] - 0.15)
    return r["Pk"] + (1 - r["F1"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(bl.ROOT, "target", "release", "ragger"))
    ap.add_argument("--cache", help="JSON file keeping the turn vectors between runs")
    ap.add_argument("--min-turns", type=int, action="append", help="minimum segment lengths tried (default 1, 2, 3)")
    ap.add_argument("--live", action="store_true", help="also score the defaults in live every-turn mode (each turn judged on the past alone)")
    a = ap.parse_args()
    a.min_turns = a.min_turns or [1, 2, 3]
    data_dir = os.path.join(os.path.dirname(bl.ROOT), "shared", "data")
    sets = {}
    sets["superseg"] = sg.load_set(os.path.join(data_dir, "segmentation", "superseg_validation.jsonl"))
    sets["tiage"] = sg.load_set(os.path.join(data_dir, "segmentation", "tiage_validation.jsonl"))
    sets["joined"] = sg.joined_set(sets["superseg"] + sets["tiage"], 200, 13)
    sets["agents"] = sg.load_set(os.path.join(bl.HERE, "data", "agents.jsonl"))
    sets["locomo"] = sg.load_locomo(os.path.join(data_dir, "locomo", "locomo_conv26.json"))
    vec = embed(a.bin, [flat(u, x) for items in sets.values() for it in items for u, x in it["turns"]], a.cache)
    data = {k: [prepare(it, vec) for it in items] for k, items in sets.items()}
    grid = [dict(floor=f, strong=s, min_turns=m, lexical=l, cue=c)
            for f, s, m, l, c in itertools.product([1.8, 2.0, 2.2, 2.4, 2.6], [3.0, 3.5, 4.0, 99.0], a.min_turns, [0.2, 0.4], [0.6, 1.0])]
    results = [(p, {k: score(v, p) for k, v in data.items()}) for p in grid]
    names = list(data)
    print("| held out | chosen on the others: floor, strong, min turns, lexical, cue | F1 | Pk | WD | segments / 10 turns | one-turn |")
    print("|---|---|---|---|---|---|---|")
    for held in names:
        train = [n for n in names if n != held]
        p, r = min(results, key=lambda pr: sum(loss(n, pr[1][n]) for n in train))
        h = r[held]
        cells = ["–"] * 3 if held == "locomo" else [f"{h['F1']:.3f}", f"{h['Pk']:.3f}", f"{h['WD']:.3f}"]
        print(f"| {held} | {p['floor']}, {p['strong']}, {p['min_turns']}, {p['lexical']}, {p['cue']} | " + " | ".join(cells)
              + f" | {h['seg10']:.2f} | {100 * h['one']:.0f}% |")
    p, r = min(results, key=lambda pr: sum(loss(n, pr[1][n]) for n in names))
    print(f"\nchosen on all sets: {p}")
    for n in names:
        h = r[n]
        print(f"  {n}: F1 {h['F1']:.3f} Pk {h['Pk']:.3f} WD {h['WD']:.3f}, {h['seg10']:.2f} segments / 10 turns, {100 * h['one']:.0f}% one-turn")
    if a.live:
        defaults = dict(floor=2.0, strong=3.5, min_turns=2, lexical=0.4, cue=1.0)
        print(f"\nlive every-turn mode, the defaults {defaults}:")
        for n, items in sets.items():
            s = sg.Score()
            for it in items:
                s.add(len(it["turns"]), it["bounds"], decide_live(it, vec, defaults))
            f1, _, _, pk, wd = s.row()
            seg10, one = s.density()
            print(f"  {n}: F1 {f1:.3f} Pk {pk:.3f} WD {wd:.3f}, {seg10:.2f} segments / 10 turns, {100 * one:.0f}% one-turn")


if __name__ == "__main__":
    main()
