#!/usr/bin/env python3
"""What a segmenter can reach on a labelled set for a given share of
one-turn segments (issue 32): the ceiling of boundary F1 and recall.

For each labelled dialogue, `segmentation.ceiling` gives the most of its
reference boundaries that can be put with at most k segments of one turn
(every one right, precision 1). Over a whole set, the best spread of one-turn
segments among the dialogues is found exactly (a knapsack over the
dialogues' tables), and printed for each share of one-turn segments: the
best F1 and recall any segmenter can reach while at most that share of its
segments are one turn. A wrong boundary only makes segments shorter, so it
never lets a segmenter reach more than this.

Standard library only. Usage:
  scripts/bench/segmentation_ceiling.py [--data DIR_OR_JSONL ...] [--most 8]
"""
import argparse
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import segmentation as sg  # noqa: E402

PROG = "segmentation_ceiling"
SHARES = (0.0, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30)


def frontier(items, most):
    """[(one-turn segments, boundaries right)] at the best spread, for each
    number of one-turn segments allowed over the set."""
    tables = []
    for it in items:
        n = len(it["turns"])
        tables.append([len(sg.ceiling(n, it["bounds"], k)) for k in range(most + 1)])
    # best[K]: the most boundaries with K one-turn segments in all.
    best = [0]
    for t in tables:
        nxt = [-1] * (len(best) + most)
        for used, got in enumerate(best):
            if got < 0:
                continue
            for k, right in enumerate(t):
                if got + right > nxt[used + k]:
                    nxt[used + k] = got + right
        best = nxt
    out, top = [], -1
    for used, got in enumerate(best):
        if got > top:
            top = got
            out.append((used, got))
    return out


def main():
    ap = argparse.ArgumentParser(prog="segmentation_ceiling.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", help="folder of *.jsonl sets or one .jsonl file (repeatable)")
    ap.add_argument("--most", type=int, default=8, help="one-turn segments a dialogue may have at most (default 8)")
    a = ap.parse_args()
    paths = []
    for src in a.data or [os.path.join(os.path.dirname(bl.ROOT), "shared", "data", "segmentation")]:
        if os.path.isdir(src):
            paths += sorted(glob.glob(os.path.join(src, "*.jsonl")))
        elif os.path.isfile(src):
            paths.append(src)
        else:
            bl.die(PROG, f"{src}: no such file or folder (set --data)", 2)
    if not paths:
        bl.die(PROG, "no *.jsonl sets found (set --data)", 2)
    rows = []
    for p in paths:
        items = sg.load_set(p)
        name = os.path.basename(p).removesuffix(".jsonl")
        refs = sum(len(it["bounds"]) for it in items)
        if not refs:
            continue
        one_turn_ref = sum(1 for it in items for a_, b_ in zip([0] + it["bounds"], it["bounds"] + [len(it["turns"])]) if b_ - a_ == 1)
        segments_ref = sum(len(it["bounds"]) + 1 for it in items)
        points = frontier(items, a.most)
        for share in SHARES:
            ok = [(used, got) for used, got in points if used <= share * (got + len(items)) + 1e-9]
            used, got = ok[-1]
            r = got / refs
            f1 = 2 * r / (1 + r)
            rows.append([name, f"≤ {share:.0%}", len(items), f"{f1:.3f}", f"{r:.3f}", f"{used / (got + len(items)):.1%}"])
        need = next(((used, got) for used, got in points if 2 * (got / refs) / (1 + got / refs) >= 0.75), None)
        rows.append([name, "reference", len(items), "1.000", "1.000", f"{one_turn_ref / segments_ref:.1%}"])
        if need:
            bl.say(PROG, f"{name}: F1 0.75 needs at least {need[0] / (need[1] + len(items)):.1%} of the segments to be one turn, every boundary right")
        else:
            bl.say(PROG, f"{name}: F1 0.75 is out of reach with at most {a.most} one-turn segments a dialogue")
    print(bl.md_table(["set", "one-turn segments allowed", "dialogues", "ceiling F1", "ceiling recall", "one-turn share used"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
