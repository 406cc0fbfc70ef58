#!/usr/bin/env python3
"""Memory-quality benchmark (issue 14); run it through memory.sh.

A LoCoMo conversation is captured as ragger sessions, summarised with the
embedded defaults, its sessions closed by housekeeping; then:
(a) faithfulness: the share of names and numbers in stored L2 and L3 text
    that occur nowhere in the turns they summarise, and looping summaries;
(b) retrieval recall@5 of `ragger search QUESTION` (a session holding an
    evidence turn among the first 5 distinct sessions of the hits), beside
    BM25 (SQLite FTS5) and MiniLM cosine over the raw turns;
(c) the demo conversation (scripts/demo.sh): the share of its key terms
    that `ragger search TERM` finds.
"""
import argparse
import collections
import datetime as dt
import json
import math
import os
import re
import resource
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402

PROG = "memory"

# The six turns of scripts/demo.sh (minutes after the start, user, assistant).
DEMO_TURNS = [
    (0, "How should I back up my home server's /srv folder every night?",
     "Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 to prune old snapshots."),
    (2, "Should the restic repository be encrypted if the disk stays at home?",
     "restic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended."),
    (4, "How do I check that the backups can actually be restored?",
     "Run restic check weekly and do a test restore of one folder into /tmp each month, comparing it with diff -r."),
    (30, "Different question: my sourdough bread comes out dense. Why?",
     "Usually the starter is too weak or the dough is under-proofed; feed the starter until it doubles in 4-6 hours and let the dough rise until it grows by half."),
    (32, "What hydration should I use for a first sourdough loaf?",
     "Start around 70% hydration: 700 g water per kilo of flour is easy to handle; go wetter once shaping feels comfortable."),
    (34, "How long should I bake it and at what temperature?",
     "Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown."),
]
DEMO_TERMS = ["restic", "--password-file", "/srv", "70%", "250 C", "sourdough", "Dutch oven"]

STOP = {
    "the", "user", "assistant", "i", "i'm", "i've", "i'll", "i'd", "a", "an", "it", "this", "that", "they",
    "he", "she", "we", "you", "and", "but", "or", "in", "on", "summary", "conversation", "ok", "okay",
}
MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], 1)}


# --- data ---------------------------------------------------------------------
def parse_when(s):
    """"1:56 pm on 8 May, 2023" (LoCoMo), or ISO 8601 -> aware datetime."""
    m = re.match(r"\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", s or "", re.I)
    if m:
        h, mi, ap, d, mon, y = m.groups()
        month = MONTHS.get(mon.lower()) or next((v for k, v in MONTHS.items() if k.startswith(mon.lower()[:3])), None)
        if month:
            h = int(h) % 12 + (12 if ap.lower() == "p" else 0)
            return dt.datetime(int(y), month, int(d), h, int(mi), tzinfo=dt.timezone.utc)
    try:
        t = dt.datetime.fromisoformat((s or "").replace("Z", "+00:00"))
        return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return None


def utterance_text(u):
    text = f"{u.get('speaker', '?')}: {u.get('text', '').strip()}"
    if u.get("blip_caption"):
        text += f" [shares a photo: {u['blip_caption']}]"
    return text


def load_locomo(path, max_turns):
    """Turns [{session, project, user, assistant, at, id, dia_ids}] and the
    questions [{question, category, evidence: [dia_id]}] of a LoCoMo file."""
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        bl.die(PROG, f"{path}: not a LoCoMo JSON file ({e})", 2)
    convs = data if isinstance(data, list) else [data]
    turns, questions = [], []
    for ci, conv in enumerate(convs):
        if not isinstance(conv, dict) or not isinstance(conv.get("conversation"), dict):
            bl.die(PROG, f"{path}: conversation {ci}: no `conversation` object", 2)
        sample = str(conv.get("sample_id") or f"conv-{ci}")
        c = conv["conversation"]
        keys = sorted((int(m.group(1)), k) for k in c if (m := re.fullmatch(r"session_(\d+)", k)))
        for n, key in keys:
            utts = c[key] or []
            when = parse_when(c.get(f"{key}_date_time", ""))
            if when is None:
                bl.die(PROG, f"{path}: {sample} {key}_date_time: unreadable date {c.get(f'{key}_date_time')!r}", 2)
            for i in range(0, len(utts), 2):
                pair = utts[i : i + 2]
                turns.append({
                    "session": f"{sample}/session_{n}",
                    "project": sample,
                    "user": utterance_text(pair[0]),
                    "assistant": utterance_text(pair[1]) if len(pair) > 1 else "",
                    "at": (when + dt.timedelta(minutes=i // 2)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "id": str(pair[0].get("dia_id") or f"{key}:{i}"),
                    "dia_ids": [str(u.get("dia_id")) for u in pair],
                })
        for q in conv.get("qa") or []:
            ev = []
            for e in q.get("evidence") or []:
                ev += [x for x in re.split(r"[;,\s]+", str(e)) if x]
            questions.append({"question": str(q.get("question", "")), "category": q.get("category"),
                              "evidence": ev, "sample": sample})
    if max_turns is not None:
        turns = turns[:max_turns]
    return turns, questions


# --- faithfulness ---------------------------------------------------------------
NUM = r"\d+(?:[.,:/]\d+)*%?"
WORD = r"[A-Za-z][A-Za-z'’-]*"


def terms(text):
    """Names (capitalised words not at a sentence start, minus a stop list)
    and numbers in a text."""
    out = []
    for m in re.finditer(rf"{NUM}|{WORD}", text):
        w = m.group(0)
        if w[0].isdigit():
            out.append(w.rstrip(".,:/"))
            continue
        if not w[0].isupper():
            continue
        before = text[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;\n-•*\"“(" or before.endswith("- "):
            continue  # sentence or item start
        if w.lower().rstrip("'’s") in STOP or w.lower() in STOP:
            continue
        out.append(w)
    return out


def occurs(term, source_lower):
    t = term.lower().rstrip("'’")
    if t.endswith("'s") or t.endswith("’s"):
        t = t[:-2]
    return re.search(r"(?<![a-z0-9])" + re.escape(t), source_lower) is not None


def loops(text, n=4, times=3):
    """A run of n words said `times` times or more. The grounding check rejects
    a model reply, and the extractive fold never writes one, by this same rule
    (src/pipeline/grounding/loops.rs: LOOP_GRAM, LOOP_TIMES; a unit test there
    reads this definition): change both together."""
    words = re.findall(r"\w+", text.lower())
    grams = collections.Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return any(c >= times for c in grams.values())


class Faith:
    def __init__(self):
        self.rows = collections.Counter()
        self.terms = collections.Counter()
        self.invented = collections.Counter()
        self.looping = collections.Counter()
        self.examples = []
        self.extractive = collections.Counter()
        self.copied = collections.Counter()  # a one-turn segment's L3 is its L2

    def add(self, level, text, sources):
        src = sources.lower()
        self.rows[level] += 1
        for t in terms(text):
            self.terms[level] += 1
            if not occurs(t, src):
                self.invented[level] += 1
                if len(self.examples) < 12:
                    self.examples.append(f"L{level}: {t}")
        if loops(text):
            self.looping[level] += 1

    def share(self, level=None):
        levels = [level] if level else list(self.terms)
        t = sum(self.terms[l] for l in levels)
        return (sum(self.invented[l] for l in levels) / t) if t else 0.0


def text_field(v):
    """A text field of `show --json`: a string, or an object with its text."""
    if isinstance(v, dict):
        v = v.get("content") or v.get("text")
    return v if isinstance(v, str) else None


def hit_session(h):
    """The session a search hit points to (also when nested, e.g. a hit
    grouped under its segment)."""
    if not isinstance(h, dict):
        return None
    if isinstance(h.get("session"), str):
        return h["session"]
    for v in h.values():
        if isinstance(v, dict) and isinstance(v.get("session"), str):
            return v["session"]
    return None


def measure_faithfulness(r, sessions, faith):
    """Adds every L2 and L3 of the sessions to faith; returns the shown JSON."""
    shown_all = {}
    for s in sessions:
        shown = json.loads(r.run("show", s, "--json").stdout)
        shown_all[s] = shown
        turns = shown.get("turns") or []
        text_of = {t["id"]: f"{t.get('user', '')}\n{t.get('assistant', '')}" for t in turns}
        for t in turns:
            l2 = text_field(t.get("l2"))
            if l2:
                faith.add(2, l2, text_of[t["id"]])
                if '"extractive"' in json.dumps(t):  # a provenance field, when show gives one
                    faith.extractive[2] += 1
        for row in shown.get("summaries") or []:
            content = text_field(row.get("content"))
            if row.get("level") != 3 or not content:
                continue
            rng = bl.summary_range(row)
            ids = [i for i in text_of if rng and rng[0] <= i <= rng[1]]
            faith.add(3, content, "\n".join(text_of[i] for i in ids))
            if row.get("origin") == "extractive":
                faith.extractive[3] += 1
            elif row.get("origin") == "copy":
                faith.copied[3] += 1
    return shown_all


# --- the pipeline -----------------------------------------------------------------
def capture_and_summarise(r, lines, deadline_s=None):
    out = r.run("capture", "--stdin", stdin="".join(json.dumps(x) + "\n" for x in lines))
    t0 = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rep = json.loads(r.run("summarize", "--once", "--json", timeout=deadline_s).stdout)
    calls = rep.get("model_calls", 0)
    for _ in range(5):
        rep = json.loads(r.run("housekeeping", "--json", timeout=deadline_s).stdout)
        calls += (rep.get("summarized") or {}).get("model_calls", 0)
        st = json.loads(r.run("status", "--json").stdout)
        if not any(st.get(k) for k in ("pending_l2", "pending_l3", "pending_l4", "sessions_open")):
            break
    st = json.loads(r.run("status", "--json").stdout)
    st["model_calls"] = calls
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    st["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    # The largest child so far: the pass with the memory model and the
    # embedder loaded (capture and status are far smaller).
    st["peak_rss_mib"] = after.ru_maxrss / 1024
    return time.time() - t0, st


def search(r, query, limit):
    p = r.run("search", "--json", "--limit", str(limit), "--", query, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"ragger search {query!r}: exit {p.returncode}: {(p.stderr or '').strip()[-200:]}")
    hits = json.loads(p.stdout or "[]")
    if isinstance(hits, dict):  # a future shape {"hits": [...]} or {"results": [...]}
        hits = hits.get("hits") or hits.get("results") or []
    return hits


def distinct_sessions(seq, n=5):
    out = []
    for s in seq:
        if s and s not in out:
            out.append(s)
        if len(out) == n:
            break
    return out


def bm25_rankings(turns, questions, tokenize="unicode61"):
    """BM25 over the raw turns; tokenize="porter unicode61" is the stemmed peer."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, session UNINDEXED, tokenize='{tokenize}')")
    db.executemany("INSERT INTO t(body, session) VALUES (?, ?)", [(f"{t['user']}\n{t['assistant']}", t["session"]) for t in turns])
    out = []
    for q in questions:
        words = sorted(set(w.lower() for w in re.findall(r"[A-Za-z0-9]+", q["question"])))
        if not words:
            out.append([])
            continue
        match = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute("SELECT session FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 200", (match,)).fetchall()
        out.append(distinct_sessions(r[0] for r in rows))
    return out


def embed(r, texts):
    flat = [re.sub(r"\s+", " ", t).strip() or "." for t in texts]
    p = r.run("embed", "--stdin", stdin="\n".join(flat) + "\n", timeout=1800)
    vecs = [json.loads(l)["embedding"] for l in p.stdout.splitlines() if l.strip()]
    if len(vecs) != len(flat):
        raise RuntimeError(f"ragger embed: {len(flat)} texts in, {len(vecs)} vectors out")
    return [normalise(v) for v in vecs]


def normalise(v):
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def cosine_rankings(r, turns, questions):
    tv = embed(r, [f"{t['user']} {t['assistant']}" for t in turns])
    qv = embed(r, [q["question"] for q in questions])
    out = []
    for q in qv:
        scores = sorted(((sum(a * b for a, b in zip(q, v)), i) for i, v in enumerate(tv)), reverse=True)
        out.append(distinct_sessions(turns[i]["session"] for _, i in scores))
    return out


# --- main -----------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(prog="memory.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--local", action="store_true", help="the embedded local memory model (default)")
    mode.add_argument("--fake", action="store_true", help="the extractive stand-in server (fast; for testing the script)")
    ap.add_argument("--data", action="append", help="LoCoMo-format JSON file (repeatable)")
    ap.add_argument("--max-turns", type=int, help="capture only the first N turns (pairs of utterances)")
    ap.add_argument("--search-limit", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="CPU threads of the local model and the embedder (0: all cores)")
    ap.add_argument("--model-path", help="the local backend's GGUF (default: the configured default model)")
    ap.add_argument("--server", metavar="URL", help="an OpenAI-compatible server (e.g. llama-server) as the memory model instead of the local backend")
    ap.add_argument("--server-model", default="", help="the model name to ask the --server for")
    ap.add_argument("--config-extra", default="", metavar="TOML", help="a TOML snippet added to the config (e.g. [summaries] settings)")
    ap.add_argument("--no-demo", action="store_true")
    ap.add_argument("--keep", help="keep the databases in this folder")
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", help="also write the figures to this file as JSON (for scripts/bench/models.py)")
    ap.add_argument("--command", default="scripts/bench/memory.sh")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        bl.die(PROG, f"no ragger binary at {a.bin} (build it: cargo build --release)", 2)
    jobs = max(1, min(2, a.jobs))
    paths = a.data or [os.path.join(os.path.dirname(bl.ROOT), "shared", "data", "locomo", "locomo_conv26.json")]

    work = a.keep or tempfile.mkdtemp(prefix="ragger-membench.")
    os.makedirs(work, exist_ok=True)
    server = None
    results = []
    t_all = time.time()
    try:
        if a.fake:
            server = bl.ExtractiveServer(work)
        cfg = os.path.join(work, "config.toml")
        with open(cfg, "w") as f:
            if a.server:
                base = "\n".join(["[memory_model]", 'backend = "openai"', f'url = "{a.server}"', f'model = "{a.server_model}"',
                                  "timeout_seconds = 600"]) + "\n"
            else:
                base = bl.base_config(server.url if server else None, threads=a.threads, model_path=a.model_path)
            f.write(bl.merge_toml(base, a.config_extra.replace("\\n", "\n")) if a.config_extra else base)
        for path in paths:
            if not os.path.isfile(path):
                bl.die(PROG, f"{path}: no such file (set --data)", 2)
            name = os.path.basename(path).rsplit(".", 1)[0]
            turns, questions = load_locomo(path, a.max_turns)
            db = os.path.join(work, f"{name}.db")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            r = bl.Ragger(a.bin, cfg, db)
            lines = [{k: t[k] for k in ("session", "project", "user", "assistant", "at", "id")} for t in turns]
            sessions = list(dict.fromkeys(t["session"] for t in turns))
            bl.say(PROG, f"{name}: {len(turns)} turns in {len(sessions)} sessions; summarising ({'extractive server' if a.fake else 'local model'})")
            secs, status = capture_and_summarise(r, lines)
            bl.say(PROG, f"{name}: summarised in {secs:.0f} s; status {json.dumps({k: status.get(k) for k in ('failed', 'pending_l2', 'pending_l3', 'sessions_open')})}")
            faith = Faith()
            measure_faithfulness(r, sessions, faith)

            # retrieval
            dia_session = {d: t["session"] for t in turns for d in t["dia_ids"]}
            qs = []
            for q in questions:
                if q["category"] == 5:
                    continue
                gold = {dia_session[e] for e in q["evidence"] if e in dia_session}
                if gold:
                    qs.append({**q, "gold": gold})
            bl.say(PROG, f"{name}: {len(qs)} questions (category 5 and evidence outside the captured turns left out); searching")
            lock = threading.Lock()
            ragger_top = [None] * len(qs)
            errors = []

            def one(i):
                try:
                    hits = search(r, qs[i]["question"], a.search_limit)
                    ragger_top[i] = distinct_sessions(hit_session(h) for h in hits)
                except Exception as e:  # noqa: BLE001
                    with lock:
                        errors.append(str(e))
                    ragger_top[i] = []

            with ThreadPoolExecutor(max_workers=jobs) as ex:
                list(ex.map(one, range(len(qs))))
            bm25_top = bm25_rankings(turns, qs)
            porter_top = bm25_rankings(turns, qs, "porter unicode61")
            cos_top = cosine_rankings(r, turns, qs)

            def recall(tops):
                return sum(1 for q, top in zip(qs, tops) if q["gold"] & set(top)) / len(qs) if qs else float("nan")

            results.append({
                "name": name, "turns": len(turns), "sessions": len(sessions), "seconds": secs, "status": status,
                "faith": faith, "questions": len(qs), "errors": errors,
                "recall": {"ragger search": recall(ragger_top), "BM25 over raw turns (FTS5)": recall(bm25_top),
                           "MiniLM cosine over raw turns": recall(cos_top),
                           "(peer) BM25, Porter stemmer, over raw turns": recall(porter_top)},
            })

        demo = None
        if not a.no_demo:
            db = os.path.join(work, "demo.db")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            r = bl.Ragger(a.bin, cfg, db)
            t0 = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(hours=2)
            lines = [{"session": "demo", "project": "homelab", "user": u, "assistant": x,
                      "at": (t0 + dt.timedelta(minutes=m)).strftime("%Y-%m-%dT%H:%M:%SZ"), "id": f"t{i + 1}"}
                     for i, (m, u, x) in enumerate(DEMO_TURNS)]
            bl.say(PROG, "demo: 6 turns; summarising")
            secs, _ = capture_and_summarise(r, lines)
            dfaith = Faith()
            shown = measure_faithfulness(r, ["demo"], dfaith)["demo"]
            found = {}
            for term in DEMO_TERMS:
                hits = search(r, term, 10)
                found[term] = any(term.lower() in json.dumps(h, ensure_ascii=False).lower() for h in hits)
            n_l3 = sum(1 for s in shown.get("summaries") or [] if s.get("level") == 3)
            demo = {"found": found, "faith": dfaith, "l3": n_l3, "seconds": secs}
    finally:
        calls = server.stop() if server else None
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.time() - t_all

    # --- report ---------------------------------------------------------------------
    rows = []
    for res in results:
        f = res["faith"]
        for lv in (2, 3):
            rows.append([res["name"], f"faithfulness L{lv}", f"{f.invented[lv]} of {f.terms[lv]} names/numbers invented = {f.share(lv):.1%}; "
                         f"{f.looping[lv]} of {f.rows[lv]} summaries loop" + (f"; {f.extractive[lv]} extractive" if f.extractive[lv] else "")])
        rows.append([res["name"], "faithfulness L2+L3", f"{f.share():.1%} invented; {sum(f.looping.values())} looping"])
        calls = res["status"].get("model_calls", 0)
        rows.append([res["name"], "summarised: time, model calls", f"{res['seconds']:.0f} s ({res['turns'] / max(res['seconds'], 1e-9):.2f} turns/s); "
                     f"{calls} calls = {calls / max(res['turns'], 1):.2f} a turn; "
                     f"CPU {res['status'].get('cpu_s', 0):.0f} s; peak RSS {res['status'].get('peak_rss_mib', 0):.0f} MiB"])
        for k, v in res["recall"].items():
            rows.append([res["name"], f"recall@5: {k}", f"{v:.3f} ({res['questions']} questions)"])
        rec = res["recall"]
        best = max(rec["BM25 over raw turns (FTS5)"], rec["MiniLM cosine over raw turns"])
        gain = rec["ragger search"] - best
        rows.append([res["name"], "recall@5 goal: ragger ≥ the better raw-turn baseline + 0.05",
                     f"{gain:+.3f} over {best:.3f}: " + ("met" if gain >= 0.05 - 1e-9 else "MISSED")])
    if demo:
        got = [t for t, ok in demo["found"].items() if ok]
        miss = [t for t, ok in demo["found"].items() if not ok]
        rows.append(["demo", "key terms found by `ragger search TERM`", f"{len(got)} of {len(DEMO_TERMS)} = {len(got) / len(DEMO_TERMS):.0%}"
                     + (f"; missing: {', '.join('`' + t + '`' for t in miss)}" if miss else "")])
        f = demo["faith"]
        rows.append(["demo", "faithfulness L2+L3", f"{f.share():.1%} invented ({sum(f.invented.values())} of {sum(f.terms.values())}); "
                     f"{sum(f.looping.values())} looping; {demo['l3']} L3 row(s)"])
    table = bl.md_table(["data", "figure", "result"], rows)
    print(table)
    examples = [e for res in results for e in res["faith"].examples][:10]
    if examples:
        print("invented, e.g.: " + ", ".join(examples))
    for res in results:
        if res["errors"]:
            bl.say(PROG, f"{res['name']}: {len(res['errors'])} searches failed (first: {res['errors'][0]})")
    bl.say(PROG, f"done in {elapsed:.0f} s" + (f", {calls} model calls" if calls is not None else ""))

    if a.json:
        def faith_json(f):
            return {k: dict(getattr(f, k)) for k in ("rows", "terms", "invented", "looping", "extractive", "copied")} | {"share": f.share()}
        with open(a.json, "w") as out:
            json.dump({
                "sets": [{"name": r_["name"], "turns": r_["turns"], "seconds": r_["seconds"], "questions": r_["questions"],
                          "model_calls": r_["status"].get("model_calls", 0), "cpu_s": r_["status"].get("cpu_s"),
                          "peak_rss_mib": r_["status"].get("peak_rss_mib"), "recall": r_["recall"],
                          "faith": faith_json(r_["faith"])} for r_ in results],
                "demo": demo and {"found": sum(demo["found"].values()), "terms": len(demo["found"]),
                                  "faith": faith_json(demo["faith"])},
            }, out, indent=1)

    if not a.no_write:
        now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        model = ("an extractive stand-in (`scripts/bench/extractive_server.py`, first 30 words of the prompt's "
                 "conversation text; a test of the script, not of a model)") if a.fake else \
            "the embedded defaults (SmolLM2-135M in-process, all-MiniLM-L6-v2)"
        sizes = "; ".join(f"{r_['name']}: {r_['turns']} turns in {r_['sessions']} sessions, summarised in {r_['seconds']:.0f} s" for r_ in results)
        body = f"""_Measured {now} with {bl.ragger_version(a.bin)} (commit {bl.git_describe()}), {elapsed:.0f} s in all:_

```sh
{a.command}
```

LoCoMo (`../shared/data/locomo`, development conversation) captured as ragger sessions (each
`session_N` one session; consecutive utterances paired as user/assistant turns, each prefixed with
its speaker's name, a shared photo as `[shares a photo: caption]`; `at` from `session_N_date_time`,
one minute a turn), summarised with {model}, then `ragger housekeeping` closes the sessions.
{sizes}.

- Faithfulness: names (capitalised words not at a sentence start, minus a small stop list) and
  numbers in each stored L2 (source: its turn) and L3 (source: the turns of its episode range)
  that occur nowhere in the source; a looping summary repeats a 4-word sequence 3+ times.
- Recall@5: questions with category ≠ 5 whose evidence was captured; a hit when a session holding
  an evidence turn is among the first 5 distinct sessions of `ragger search QUESTION --json
  --limit {a.search_limit}`; the baselines rank the raw turns (BM25: SQLite FTS5, question words
  OR-ed; cosine: `ragger embed` vectors of turn text and question).
- Demo: the 6 turns of `scripts/demo.sh`; a key term is found when a hit of
  `ragger search TERM --json` contains it.

{table}
"""
        if examples:
            body += "\nInvented terms, e.g.: " + ", ".join(f"`{e}`" for e in examples) + "\n"
        bl.write_section(a.out, "Memory quality", body)
        bl.say(PROG, f"section 'Memory quality' written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
