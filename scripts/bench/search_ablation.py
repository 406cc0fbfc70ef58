#!/usr/bin/env python3
"""Recall@5 of `ragger search`'s scoring with and without each of its parts,
over a database kept by `scripts/bench/memory.sh --keep DIR` (issue 14's
"search beats grep" goal; BENCHMARKS.md, "Memory quality"). A Python copy of
the score in src/search/ (cosine × vector_weight + share of the query's
words × keyword_weight, a word only in the turn before a raw turn counting
0.3, an L3's share counting half (stop 60), each row a candidate, rolled up
to the first 5 distinct sessions);
read-only on the database. Every turn is a candidate here; the binary
takes the keyword and vector candidates and the turns after keyword hits.

usage: search_ablation.py DIR [--bin RAGGER] [--max-turns N]
Needs `pip install snowballstemmer` (the Snowball English stemmer, as the
rust-stemmers crate) and DIR/locomo_conv26.db, DIR/config.toml; embeds the
questions with `ragger embed`. --max-turns must match the kept run's.
"""
import argparse, datetime, json, os, re, sqlite3, struct, subprocess, sys

try:
    import snowballstemmer
except ImportError:
    sys.exit("search_ablation.py: needs the Python package snowballstemmer (pip install snowballstemmer==3.1.1)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory as m  # noqa: E402

# NLTK's English stopwords (the list the stop-words crate ships) and the
# list ragger used before.
NLTK = set("""i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that these those am is
are was were be been being have has had having do does did doing a an the and but if or because as until while of
at by for with about against between into through during before after above below to from up down in out on off
over under again further then once here there when where why how all any both each few more most other some such
no nor not only own same so than too very s t can will just don should now""".split())
OLD = set("""a an and are as at be but by do does for from how i in is it its me my of on or so that the this to
was we what when where which who why with you""".split())
MONTHS = "january february march april may june july august september october november december".split()

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--bin", default=os.path.join(m.bl.ROOT, "target", "release", "ragger"))
ap.add_argument("--max-turns", type=int, default=200)
a = ap.parse_args()

stem = snowballstemmer.stemmer("english").stemWord
turns, questions = m.load_locomo(os.path.join(m.bl.ROOT, "..", "shared", "data", "locomo", "locomo_conv26.json"), a.max_turns)
dia_session = {d: t["session"] for t in turns for d in t["dia_ids"]}
qs = []
for q in questions:
    gold = {dia_session[e] for e in q["evidence"] if e in dia_session}
    if q["category"] != 5 and gold:
        qs.append({**q, "gold": gold})

dbp = os.path.join(a.dir, "locomo_conv26.db")
db = sqlite3.connect(f"file:{dbp}?mode=ro", uri=True)
session_of = {("turn", i): s for i, s in db.execute("SELECT t.id, s.external_id FROM turns t JOIN sessions s ON s.id = t.session_id")}
session_of.update({("l2", i): s for (_, i), s in list(session_of.items())})
session_of.update({("summary", i): s for i, s in db.execute(
    "SELECT m.id, s.external_id FROM summaries m JOIN sessions s ON s.id = m.session_id WHERE m.level = 3")})
text = {("turn", i): f"{u} {x}" for i, u, x in db.execute("SELECT id, user_text, assistant_text FROM turns")}
text.update({("l2", i): l for i, l in db.execute("SELECT id, l2 FROM turns WHERE l2 IS NOT NULL")})
# A copied summary (a one-turn segment's L3) is no candidate of its own.
text.update({("summary", i): f"{c}\n{k or ''}" for i, c, k in db.execute(
    "SELECT id, content, key_terms FROM summaries WHERE level = 3 AND origin <> 'copy'")})
at = dict(db.execute("SELECT id, at FROM turns"))
model = db.execute("SELECT model FROM embeddings LIMIT 1").fetchone()[0]
vec = {}
for kind, rid, blob in db.execute("SELECT kind, row_id, vector FROM embeddings WHERE model = ?", (model,)):
    if (kind, rid) in session_of and (kind, rid) in text:
        vec[(kind, rid)] = struct.unpack(f"<{len(blob) // 4}f", blob)
flat = [re.sub(r"\s+", " ", q["question"]).strip() for q in qs]
p = subprocess.run([a.bin, "--config", os.path.join(a.dir, "config.toml"), "--db", dbp, "embed", "--stdin"],
                   input="\n".join(flat) + "\n", capture_output=True, text=True, check=True)
qvec = [m.normalise(json.loads(l)["embedding"]) for l in p.stdout.splitlines() if l.strip()]


def words(t):
    return [w.lower() for w in re.findall(r"[^\W_]+", t)]


def have(key, stems, dates):
    ws = words(text[key])
    out = {stem(w) for w in ws} if stems else set(ws)
    if dates and key[0] == "turn":
        d = datetime.datetime.fromtimestamp(at[key[1]] / 1000)
        out |= {stem(MONTHS[d.month - 1]) if stems else MONTHS[d.month - 1], str(d.year)}
    return out


# The turn said before each turn in its session (by time, then id).
previous = {}
for sess in {s for k, s in session_of.items() if k[0] == "turn"}:
    ids = sorted((at[i], i) for (kind, i), s in session_of.items() if kind == "turn" and s == sess)
    previous.update({("turn", b[1]): ("turn", a[1]) for a, b in zip(ids, ids[1:])})


CLAUSE = re.compile(r"(?<=[.!?;])\s+|\n+")


def recall(stems, stops, kinds, dates, wv=0.7, wk=0.3, before=0.0, summary_share=1.0, per_clause=False, mrr=None):
    """`before`: what a query word found only in the previous turn counts;
    `summary_share`: what an L3's share of the query's words counts (stop 56);
    `per_clause`: an L3's share is that of its best clause (split at . ! ? ;
    and lines, its key terms one each); `mrr`: a list that gets each
    question's reciprocal rank of its first evidence session."""
    bags = {k: have(k, stems, dates) for k in vec if k[0] in kinds}
    context = {k: have(previous[k], stems, False) if k in previous else set() for k in bags}
    clauses = {k: [{stem(w) for w in words(c)} for c in CLAUSE.split(text[k]) if c.strip()] for k in bags if k[0] == "summary"}
    hits = 0
    for q, qv in zip(qs, qvec):
        terms = list(dict.fromkeys((stem(w) if stems else w) for w in words(q["question"]) if w not in stops))
        scored = []
        for key, bag in bags.items():
            cos = max(0.0, min(1.0, sum(x * y for x, y in zip(qv, vec[key]))))
            found = sum(1.0 if t in bag else before if t in context[key] else 0.0 for t in terms)
            share = found / len(terms) if terms else 0.0
            if key[0] == "summary":
                if per_clause and terms:
                    share = max((sum(t in c for t in terms) / len(terms) for c in clauses[key]), default=0.0)
                share *= summary_share
            scored.append((wv * cos + wk * share, key))
        scored.sort(reverse=True)
        top = m.distinct_sessions(session_of[k] for _, k in scored)
        hits += bool(q["gold"] & set(top))
        if mrr is not None:
            ranked = m.distinct_sessions((session_of[k] for _, k in scored), len(scored))
            mrr.append(next((1 / (i + 1) for i, s in enumerate(ranked) if s in q["gold"]), 0.0))
    return hits / len(qs)


ALL, NO_L2 = ("turn", "l2", "summary"), ("turn", "summary")
rows = [
    ("before: exact words, 38 stopwords, L2 + turns + L3", dict(stems=False, stops=OLD, kinds=ALL, dates=False)),
    ("+ stems", dict(stems=True, stops=OLD, kinds=ALL, dates=False)),
    ("+ stems, NLTK stopwords", dict(stems=True, stops=NLTK, kinds=ALL, dates=False)),
    ("+ stems, NLTK stopwords, no L2 hits by default", dict(stems=True, stops=NLTK, kinds=NO_L2, dates=False)),
    ("+ stems, NLTK stopwords, no L2 hits, turn month and year", dict(stems=True, stops=NLTK, kinds=NO_L2, dates=True)),
    ("+ the previous turn's words at 0.3", dict(stems=True, stops=NLTK, kinds=NO_L2, dates=True, before=0.3)),
    ("+ an L3's share of the query's words at half (now)",
     dict(stems=True, stops=NLTK, kinds=NO_L2, dates=True, before=0.3, summary_share=0.5)),
]
print(f"{len(qs)} questions")
for name, kw in rows:
    print(f"{recall(**kw):.3f}  {name}", flush=True)
now = rows[-1][1]
print("  keyword weight 0.2 / 0.4 / 0.5 / 0.6 / 0.7: " + " / ".join(
    f"{recall(**now, wv=1 - w, wk=w):.3f}" for w in (0.2, 0.4, 0.5, 0.6, 0.7)))
print("  previous turn's weight 0.15 / 0.2 / 0.4 / 0.5: " + " / ".join(
    f"{recall(**{**now, 'before': b}):.3f}" for b in (0.15, 0.2, 0.4, 0.5)))
# Stop 56: an L3 digest holds the words of many turns, so its share of the
# query's words rewards breadth. Each variant with its mean reciprocal rank
# of the first evidence session (MRR) beside recall@5.
for name, kw in [("an L3's share counted like a turn's (before stop 60)", dict(now, summary_share=1.0)),
                 ("L3s' share of the query's words x 0.5 (now)", now),
                 ("L3s found by their vector alone (share x 0)", dict(now, summary_share=0.0)),
                 ("an L3's share is its best clause's", dict(now, per_clause=True, summary_share=1.0)),
                 ("no L3 candidates (turns rolled up to their L3)", dict(now, kinds=("turn",)))]:
    ranks = []
    r5 = recall(**kw, mrr=ranks)
    print(f"{r5:.3f}  MRR {sum(ranks) / len(ranks):.3f}  {name}", flush=True)
