#!/usr/bin/env python3
"""Refit and score the segmenter's logistic combination (issue 13).

Reads a folder kept by `scripts/bench/segmentation.sh --keep DIR` (each
dialogue's database with its turns and stored turn vectors, and each set's
reference boundaries in DIR/SET.json) and recomputes, for every gap, the
signals that `src/pipeline/segment/score.rs` combines, with a Python mirror
of that file (its word lists are read from the Rust sources). Then:

1. checks the mirror: with the weights, cut and floor now in the code, it
   must take the decisions the binary took (the L3 starts in the databases);
2. 2-fold cross-validation (even and odd dialogues): fits the weights on one
   half of every set given with --fit (each set weighted alike), scores the
   other half at a few cuts, both ways;
3. fits on all dialogues of those sets and prints the weights as Rust.

Needs numpy and scikit-learn (pip install numpy scikit-learn).
Usage: scripts/bench/segmentation_fit.py DIR [--fit superseg_validation --fit joined]
"""
import argparse
import json
import math
import os
import re
import sqlite3
import struct
import sys

try:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
except ImportError as e:  # pragma: no cover
    sys.exit(f"segmentation_fit: {e.name} is missing: pip install numpy scikit-learn")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
from segmentation import Score  # noqa: E402

SRC = os.path.join(bl.ROOT, "src")
NAMES = ["depth", "lexical", "answers", "cue", "relative_total", "local", "asks", "reply_asked", "adjacent", "length"]
# The defaults of [summaries] and [housekeeping] that the signals use.
LEXICAL, ANSWER, PAUSE_WEIGHT, CUE, PAUSE_MS = 0.2, 0.8, 0.15, 0.6, 20 * 60_000
WINDOW, LONG_MESSAGE = 2, 40


def rust_strings(path, name):
    """The string literals of `const NAME: &[&str] = &[...]` in a Rust file."""
    text = open(os.path.join(SRC, path)).read()
    m = re.search(r"const " + name + r": &\[&str\] = &\[(.*?)\];", text, re.S)
    if not m:
        sys.exit(f"segmentation_fit: no const {name} in src/{path}")
    return re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))


def rust_weights():
    text = open(os.path.join(SRC, "pipeline/segment/score.rs")).read()
    w = re.search(r"pub const WEIGHTS: \[f32; \d+\] = \[(.*?)\];", text, re.S).group(1)
    b = re.search(r"pub const BIAS: f32 = (-?[0-9.]+);", text).group(1)
    return np.array([float(x) for x in w.split(",") if x.strip()]), float(b)


STOP = set(rust_strings("text.rs", "STOP_WORDS"))
OPENERS = set(rust_strings("pipeline/segment/mod.rs", "QUESTION_OPENERS"))
GREETINGS = rust_strings("pipeline/segment/mod.rs", "GREETINGS")
ADJ = set(rust_strings("pipeline/segment/mod.rs", "NEW_TOPIC_ADJ"))
NOUN = set(rust_strings("pipeline/segment/mod.rs", "NEW_TOPIC_NOUN"))
PHRASES = rust_strings("pipeline/segment/mod.rs", "NEW_TOPIC_PHRASES")


def words(text):
    """`crate::text::words`: lowercase runs of letters and digits, with
    `_'-` inside a word."""
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
    joined = " " + " ".join(words(user)) + " "
    return any(joined.startswith(f" {g} ") for g in GREETINGS)


def announces(user):
    ws = words(user)
    joined = " " + " ".join(ws) + " "
    return (any(f" {p} " in joined for p in PHRASES)
            or any(a in ADJ and b in NOUN for a, b in zip(ws, ws[1:])) or greets(user))


def is_question(text):
    text = text.strip()
    ws = words(text)
    return text.endswith("?") or (bool(ws) and ws[0] in OPENERS)


def asks(reply):
    return reply.strip().endswith("?")


def cosine(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))


def load(db):
    """Turns (user, reply, vector, at ms) in order, and the binary's boundaries."""
    c = sqlite3.connect(db)
    rows = c.execute(
        "select t.id, t.user_text, t.assistant_text, e.vector, t.at from turns t "
        "join embeddings e on e.kind = 'turn' and e.row_id = t.id order by t.id"
    ).fetchall()
    firsts = [f for (f,) in c.execute("select first_turn_id from summaries where level = 3")]
    c.close()
    ids = [r[0] for r in rows]
    turns = [(u, a, np.array(struct.unpack(f"<{len(v) // 4}f", v)), at) for _, u, a, v, at in rows]
    return turns, sorted(ids.index(f) for f in firsts if f in ids and ids.index(f) > 0)


def gaps(turns):
    """Per gap i = 1..n-1 of a session judged whole: (features, signal, content)."""
    n = len(turns)
    vec = [t[2] for t in turns]

    def mean(vs):
        return np.sum(vs, axis=0)

    sims = [0.0] + [cosine(mean(vec[max(0, i - WINDOW):i]), mean(vec[i:min(n, i + WINDOW)])) for i in range(1, n)]

    def peak(i, step):
        best, k = sims[i], i + step
        while 1 <= k < n and sims[k] >= best:
            best, k = sims[k], k + step
        return best

    st = [stems(u + "\n" + a) for u, a, _, _ in turns]
    raw = [None]
    for i in range(1, n):
        user = turns[i][0]
        depth = peak(i, -1) + peak(i, 1) - 2 * sims[i]
        left = set().union(*st[max(0, i - WINDOW):i])
        right = set().union(*st[i:min(n, i + WINDOW)])
        lexical = 1 - len(left & right) / max(1, min(len(left), len(right)))
        greeting = greets(user)
        answers = asks(turns[i - 1][1]) and not is_question(user) and not greeting
        pause = PAUSE_WEIGHT * min(max(turns[i][3] - turns[i - 1][3], 0) / PAUSE_MS, 1.0)
        cue = CUE if announces(user) else 0.0
        signal = depth + LEXICAL * lexical + cue
        total = signal + (0.0 if answers else ANSWER) + pause
        content = greeting or bool(stems(user))
        raw.append(dict(depth=depth, lexical=lexical, answers=float(answers), cue=cue, signal=signal, total=total,
                        asks=float(is_question(user)), reply_asked=float(asks(turns[i - 1][1])),
                        adjacent=cosine(vec[i - 1], vec[i]),
                        length=min(len(words(user)), LONG_MESSAGE) / LONG_MESSAGE, content=content))
    top = max([g["total"] for g in raw[1:]] + [0.0])
    out = []
    for i in range(1, n):
        g = raw[i]
        near = [raw[j]["signal"] for j in (i - 1, i + 1) if 1 <= j < n]
        g["relative_total"] = g["total"] / top if top > 1e-6 else 0.0
        g["local"] = g["signal"] - (max(near) if near else 0.0)
        out.append(([g[k] for k in NAMES], g["signal"], g["content"]))
    return out


def read_set(keep, name, variant):
    items = json.load(open(os.path.join(keep, f"{name}.json")))
    rows = []
    for idx, item in enumerate(items):
        db = os.path.join(keep, variant, name, f"{item['id']}.db")
        if not os.path.exists(db):
            continue
        turns, hyp = load(db)
        if len(turns) != len(item["turns"]):
            sys.exit(f"segmentation_fit: {db}: {len(turns)} turns with vectors, the set has {len(item['turns'])}")
        g = gaps(turns)
        rows.append(dict(idx=idx, n=len(turns), ref=item["bounds"], hyp=hyp,
                         x=np.array([f for f, _, _ in g]).reshape(len(g), len(NAMES)),
                         signal=np.array([s for _, s, _ in g]), content=np.array([c for _, _, c in g], dtype=bool)))
    return rows


def decide(rows, w, b, cut, floor):
    logit_cut = math.log(cut / (1 - cut))
    return [[j + 1 for j in range(len(r["x"])) if r["content"][j] and r["signal"][j] >= floor
             and r["x"][j] @ w + b >= logit_cut] for r in rows]


def fit(sets):
    """Logistic regression on the gaps with a content word, each set weighted alike."""
    xs, ys, ws = [], [], []
    for rows in sets:
        x = np.vstack([r["x"][r["content"]] for r in rows if len(r["x"])])
        y = np.concatenate([[1 if j + 1 in r["ref"] else 0 for j in range(len(r["x"])) if r["content"][j]] for r in rows])
        xs.append(x), ys.append(y), ws.append(np.full(len(y), 1.0 / len(y)))
    x, y = np.vstack(xs), np.concatenate(ys)
    weight = np.concatenate(ws) * len(y)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    m = LogisticRegression(C=1.0, max_iter=5000).fit((x - mu) / sd, y, sample_weight=weight)
    w = m.coef_[0] / sd
    return w, m.intercept_[0] - float(np.sum(m.coef_[0] * mu / sd))


def scored(rows, hyps):
    s = Score()
    for r, h in zip(rows, hyps):
        s.add(r["n"], r["ref"], h)
    return s.row()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keep", help="folder written by segmentation.sh --keep")
    ap.add_argument("--fit", action="append", help="sets fitted together (default: superseg_validation, joined)")
    ap.add_argument("--score", action="append", help="sets only scored (default: tiage_validation)")
    ap.add_argument("--variant", default="variant0")
    ap.add_argument("--cut", type=float, action="append", help="cuts to score (default 0.33 0.35 0.37 0.39)")
    ap.add_argument("--floor", type=float, default=0.1, help="segment_threshold (default 0.1)")
    ap.add_argument("--code-cut", type=float, default=0.37, help="segment_cut the kept run used (default 0.37)")
    a = ap.parse_args()
    fit_names = a.fit or ["superseg_validation", "joined"]
    score_names = a.score if a.score is not None else ["tiage_validation"]
    sets = {n: read_set(a.keep, n, a.variant) for n in fit_names + score_names
            if os.path.exists(os.path.join(a.keep, f"{n}.json"))}
    fit_names = [n for n in fit_names if n in sets]

    w, b = rust_weights()
    for name, rows in sets.items():
        mirror = decide(rows, w, b, a.code_cut, a.floor)
        gaps_n = sum(r["n"] - 1 for r in rows)
        differ = sum(len(set(m) ^ set(r["hyp"])) for m, r in zip(mirror, rows))
        print(f"{name}: {len(rows)} dialogues, {gaps_n} gaps; the mirror of the code's weights decides "
              f"{gaps_n - differ} of them as the binary did")

    print("\n| cut | trained on → scored on | " + " | ".join(f"{n}: F1 · Pk" for n in sets) + " |")
    print("|---|---|" + "---|" * len(sets))
    for cut in a.cut or [0.33, 0.35, 0.37, 0.39]:
        for train, test in ((0, 1), (1, 0)):
            half = {n: [r for r in rows if r["idx"] % 2 == train] for n, rows in sets.items()}
            other = {n: [r for r in rows if r["idx"] % 2 == test] for n, rows in sets.items()}
            fw, fb = fit([half[n] for n in fit_names])
            cells = []
            for n in sets:
                f1, _, _, pk, _ = scored(other[n], decide(other[n], fw, fb, cut, a.floor))
                cells.append(f"{f1:.3f} · {pk:.3f}")
            names = ("even", "odd")
            print(f"| {cut} | {names[train]} → {names[test]} | " + " | ".join(cells) + " |")

    fw, fb = fit([sets[n] for n in fit_names])
    print("\nfitted on all of " + ", ".join(fit_names) + ":")
    print(f"pub const WEIGHTS: [f32; {len(NAMES)}] = [{', '.join(f'{x:.2f}' for x in fw)}];")
    print(f"pub const BIAS: f32 = {fb:.2f};")
    print("// " + ", ".join(NAMES))


if __name__ == "__main__":
    main()
