#!/usr/bin/env python3
"""Recall@5 of candidate rankings (BM25, cosine, their fusions) over a database
kept by `scripts/bench/memory.sh --keep DIR`: a prototype for issue 14's
"search beats grep" goal. Read-only on the database.

usage: memory_fusion.py DIR [--bin RAGGER] [--max-turns N] [--miss] [--ragger]
Reads DIR/locomo_conv26.db (turns, turns_fts, l2_fts, summaries_fts,
embeddings) and DIR/config.toml; embeds the questions with `ragger embed`.
--max-turns must match the kept run's.
"""
import argparse, json, math, os, re, sqlite3, struct, subprocess, sys, collections

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory as m  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "release", "ragger"))
ap.add_argument("--max-turns", type=int, default=200)
ap.add_argument("--miss", action="store_true")
ap.add_argument("--ragger", action="store_true", help="also run `ragger search` per question")
a = ap.parse_args()

data = os.path.join(m.bl.ROOT, "..", "shared", "data", "locomo", "locomo_conv26.json")
turns, questions = m.load_locomo(data, a.max_turns)
dia_session = {d: t["session"] for t in turns for d in t["dia_ids"]}
qs = []
for q in questions:
    if q["category"] == 5:
        continue
    gold = {dia_session[e] for e in q["evidence"] if e in dia_session}
    if gold:
        qs.append({**q, "gold": gold})

dbp = os.path.join(a.dir, "locomo_conv26.db")
db = sqlite3.connect(f"file:{dbp}?mode=ro", uri=True)
sess_of_turn = dict(db.execute("SELECT t.id, s.external_id FROM turns t JOIN sessions s ON s.id = t.session_id"))
sess_of_sum = dict(db.execute("SELECT m.id, s.external_id FROM summaries m JOIN sessions s ON s.id = m.session_id WHERE m.level = 3"))
l3_of_turn = dict(db.execute("SELECT id, l3_id FROM turns"))
turn_text = {i: f"{u}\n{x}" for i, u, x in db.execute("SELECT id, user_text, assistant_text FROM turns")}
models = db.execute("SELECT kind, model, count(*) FROM embeddings GROUP BY 1, 2").fetchall()
print("embeddings:", models, file=sys.stderr)
model = models[0][1]

def vecs(kind):
    out = {}
    for rid, blob in db.execute("SELECT row_id, vector FROM embeddings WHERE kind = ? AND model = ?", (kind, model)):
        v = struct.unpack(f"<{len(blob)//4}f", blob)
        out[rid] = v
    return out

V = {k: vecs(k) for k in ("turn", "l2", "summary")}
# query vectors
cfg = os.path.join(a.dir, "config.toml")
flat = [re.sub(r"\s+", " ", q["question"]).strip() for q in qs]
p = subprocess.run([a.bin, "--config", cfg, "--db", dbp, "embed", "--stdin"], input="\n".join(flat) + "\n",
                   capture_output=True, text=True, check=True)
QV = [m.normalise(json.loads(l)["embedding"]) for l in p.stdout.splitlines() if l.strip()]
assert len(QV) == len(qs)

def cos_rank(kind, qv, n=200):
    sc = sorted(((sum(x * y for x, y in zip(qv, v)), rid) for rid, v in V[kind].items()), reverse=True)
    return sc[:n]

def fts_words(text):
    return sorted(set(w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)))

def bm25(table, text, n=200):
    words = fts_words(text)
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    return [(-r, i) for i, r in db.execute(f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY 2 LIMIT ?", (match, n))]

STOP = set(m.STOP) | {"what", "did", "does", "do", "is", "was", "when", "how", "who", "where", "which", "of", "to", "for", "a", "an", "has", "have", "her", "his", "in", "on", "at", "with", "about"}
def bm25_nostop(table, text, n=200):
    words = [w for w in fts_words(text) if w not in STOP]
    if not words:
        return bm25(table, text, n)
    match = " OR ".join(f'"{w}"' for w in words)
    return [(-r, i) for i, r in db.execute(f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY 2 LIMIT ?", (match, n))]

def sessions_of(ranked, kind):
    f = {"turn": sess_of_turn, "l2": sess_of_turn, "summary": sess_of_sum}[kind]
    return [f.get(i) for _, i in ranked]

def rrf(lists, k=60, weights=None):
    """lists: ranked lists of hashable items (sessions); sum of w/(k+rank)."""
    sc = collections.defaultdict(float)
    for li, lst in enumerate(lists):
        w = 1.0 if weights is None else weights[li]
        seen = set()
        r = 0
        for it in lst:
            if it is None or it in seen:
                continue
            seen.add(it)
            r += 1
            sc[it] += w / (k + r)
    return [s for s, _ in sorted(sc.items(), key=lambda x: -x[1])]

def rrf_items(lists, k=60, weights=None):
    """RRF at item level (items are (kind,id)); then roll up to sessions by best item."""
    sc = collections.defaultdict(float)
    for li, lst in enumerate(lists):
        w = 1.0 if weights is None else weights[li]
        for r, it in enumerate(lst, 1):
            sc[it] += w / (k + r)
    return sorted(sc.items(), key=lambda x: -x[1])

def roll(items):
    out = []
    for (kind, i), _ in items:
        s = (sess_of_turn if kind in ("turn", "l2") else sess_of_sum).get(i)
        if s and s not in out:
            out.append(s)
    return out

def recall(tops):
    return sum(1 for q, t in zip(qs, tops) if q["gold"] & set(m.distinct_sessions(t))) / len(qs)

mem = sqlite3.connect(":memory:")
mem.execute("CREATE VIRTUAL TABLE p USING fts5(body, tokenize='porter unicode61')")
mem.executemany("INSERT INTO p(rowid, body) VALUES (?, ?)", list(turn_text.items()))


def bm25_porter(text, n=200):
    match = " OR ".join(f'"{w}"' for w in fts_words(text))
    if not match:
        return []
    return [(-r, i) for i, r in mem.execute("SELECT rowid, bm25(p) FROM p WHERE p MATCH ? ORDER BY 2 LIMIT ?", (match, n))]


per = collections.defaultdict(list)
for q, qv in zip(qs, QV):
    t = q["question"]
    bt = bm25("turns_fts", t); bts = bm25_nostop("turns_fts", t)
    ct = cos_rank("turn", qv); cl2 = cos_rank("l2", qv); cs = cos_rank("summary", qv)
    bl2 = bm25("l2_fts", t); bs = bm25("summaries_fts", t)
    per["BM25 turns (baseline)"].append(sessions_of(bt, "turn"))
    bp = bm25_porter(t)
    per["BM25 Porter turns"].append(sessions_of(bp, "turn"))
    for kk in (1, 3, 5):
        per[f"RRF items k={kk}: BM25 Porter turns + cos turns"].append(
            roll(rrf_items([[("turn", i) for _, i in bp], [("turn", i) for _, i in ct]], k=kk)))
    per["BM25 turns, stopwords out"].append(sessions_of(bts, "turn"))
    per["cosine turns"].append(sessions_of(ct, "turn"))
    per["cosine L2"].append(sessions_of(cl2, "l2"))
    per["cosine L3"].append(sessions_of(cs, "summary"))
    per["BM25 L2"].append(sessions_of(bl2, "l2"))
    per["BM25 L3"].append(sessions_of(bs, "summary"))
    T = lambda lst, kind: [(kind, i) for _, i in lst]
    per["RRF items: BM25 turns + cos turns"].append(roll(rrf_items([T(bt, "turn"), T(ct, "turn")])))
    per["RRF items: BM25 turns + cos turns + cos L3"].append(roll(rrf_items([T(bt, "turn"), T(ct, "turn"), T(cs, "summary")])))
    per["RRF items: BM25 turns + cos turns + cos L2"].append(roll(rrf_items([T(bt, "turn"), T(ct, "turn"), T(cl2, "turn")])))
    per["RRF items: all six"].append(roll(rrf_items([T(bt, "turn"), T(ct, "turn"), T(cl2, "turn"), T(cs, "summary"), T(bl2, "turn"), T(bs, "summary")])))
    per["RRF sessions: BM25 turns + cos turns"].append(rrf([sessions_of(bt, "turn"), sessions_of(ct, "turn")]))
    per["RRF sessions: BM25 turns + cos turns + cos L3"].append(rrf([sessions_of(bt, "turn"), sessions_of(ct, "turn"), sessions_of(cs, "summary")]))
    per["RRF sessions: BM25t + cos t + cos L2 + cos L3"].append(rrf([sessions_of(bt, "turn"), sessions_of(ct, "turn"), sessions_of(cl2, "l2"), sessions_of(cs, "summary")]))
    per["RRF sessions: all six"].append(rrf([sessions_of(x, k) for x, k in ((bt, "turn"), (ct, "turn"), (cl2, "l2"), (cs, "summary"), (bl2, "l2"), (bs, "summary"))]))
    for kk in (5, 20, 60):
        per[f"RRF items k={kk}: BM25 turns + cos turns + cos L3"].append(roll(rrf_items([T(bt, "turn"), T(ct, "turn"), T(cs, "summary")], k=kk)))
        per[f"RRF items k={kk}: BM25 turns + cos turns"].append(roll(rrf_items([T(bt, "turn"), T(ct, "turn")], k=kk)))
    # session score = sum over its top-3 turns of rrf (session evidence mass)
    it = rrf_items([T(bt, "turn"), T(ct, "turn")])
    mass = collections.defaultdict(list)
    for (kind, i), s in it:
        mass[sess_of_turn.get(i)].append(s)
    per["RRF items BM25t+cos t, session = sum of top-2 turns"].append([s for s, v in sorted(mass.items(), key=lambda x: -sum(sorted(x[1], reverse=True)[:2]))])
    # CombSUM of per-query max-normalised scores at turn level
    def norm(lst):
        if not lst: return {}
        mx = max(s for s, _ in lst); mn = min(s for s, _ in lst)
        return {i: (s - mn) / ((mx - mn) or 1) for s, i in lst}
    nb, nc = norm(bt), norm(ct)
    comb = collections.defaultdict(float)
    for i, v in nb.items(): comb[i] += 0.5 * v
    for i, v in nc.items(): comb[i] += 0.5 * v
    per["CombSUM min-max BM25t+cos t (0.5/0.5)"].append([sess_of_turn[i] for i, _ in sorted(comb.items(), key=lambda x: -x[1])])

if a.ragger:
    r = m.bl.Ragger(a.bin, cfg, dbp)
    per["ragger search"] = [m.distinct_sessions(m.hit_session(h) for h in m.search(r, q["question"], 20)) for q in qs]

print(f"{len(qs)} questions")
for k, v in per.items():
    print(f"{recall(v):.3f}  {k}")

if a.miss:
    base = per["BM25 turns (baseline)"]
    for name in [n for n in per if n.startswith("ragger") or n.startswith("RRF items: BM25 turns + cos turns + cos L3")]:
        print(f"\n== {name}: missed but BM25 hit")
        for q, b, o in zip(qs, base, per[name]):
            if q["gold"] & set(m.distinct_sessions(b)) and not q["gold"] & set(m.distinct_sessions(o)):
                print(f"- {q['question']}  gold={sorted(q['gold'])} bm25={m.distinct_sessions(b)[:5]} got={m.distinct_sessions(o)[:5]}")
