#!/usr/bin/env python3
"""Summary-quality benchmark (issue 31); run it through summaries.sh.

A LoCoMo conversation is backfilled into ragger (memory.py's capture and
summarise passes) with one or two ragger binaries (--before, --after); then,
per session, ragger's session summaries (the session's L3 texts joined) are
held against the conversation's own references, beside baselines from the
same run:

- the written session summary (`session_summary`, the anchor);
- the session's first words cut to ragger's length (per session);
- the same GGUF asked once per session for a ~100-word summary through
  llama.cpp's own `llama-server` (optional: --server-bin, --no-server).

Columns: words, compression (summary words / session words), fact recall
(the share of the session's annotated `observation` facts with at least 60%
of their content-word Porter stems present in the summary), ROUGE-1/2/L F
against the written summary (`rouge-score`, stemmer on), invented names and
numbers (memory.py's check) and looping texts (memory.py's loop rule, shared
with src/pipeline/grounding/loops.rs), and the share of L3 rows with origin
`model`.

Also the context block: the share of the questions' answers (content stems
at least 60% present) held by `ragger context --limit-tokens 1500`, beside
the same number of words from the newest written session summaries and from
the newest raw turns; and per binary the model-written share of L2, L3 and
L4 rows, model calls a turn and the backfill's turns/s.

Needs rouge-score (and nltk, which it brings); summaries.sh installs them
into a venv.
"""
import argparse
import collections
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import memory  # noqa: E402  (load_locomo, capture_and_summarise, terms, occurs, loops)

try:
    from nltk.stem.porter import PorterStemmer
    from rouge_score import rouge_scorer
except ImportError as e:  # run through summaries.sh, which installs them
    sys.exit(f"summaries: {e.name} is missing (run scripts/bench/summaries.sh, which installs rouge-score into a venv)")

PROG = "summaries"
PRESENT = 0.60  # a fact or an answer is held when this share of its content stems is present
CONTEXT_TOKENS = 1500
DIRECT_WORDS = 100

# Function words left out of "content words" (fact recall, answers held).
# Kept short and plain; a word not listed counts as content.
STOP = set("""
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves also really
s t d ll m re ve don didn doesn isn wasn weren won wouldn couldn shouldn aren hasn haven hadn
""".split())

_stemmer = PorterStemmer()
_stem_cache = {}


def stem(w):
    s = _stem_cache.get(w)
    if s is None:
        s = _stem_cache[w] = _stemmer.stem(w)
    return s


def content_stems(text):
    """Porter stems of the content words of a text (lower case, letters and
    digits; function words left out)."""
    return {stem(w) for w in re.findall(r"[a-z0-9]+", str(text).lower()) if w not in STOP}


def held(stems, summary_stems):
    """True when at least PRESENT of stems occur among summary_stems."""
    return bool(stems) and len(stems & summary_stems) / len(stems) >= PRESENT - 1e-9


def words(text):
    return len(text.split())


def first_words(text, n):
    return " ".join(text.split()[:n])


def last_words(text, n):
    w = text.split()
    return " ".join(w[max(0, len(w) - n):])


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:12]


# --- the reference data ---------------------------------------------------------
def load_refs(path, turns):
    """Per captured session: its text (the turns as captured), date, written
    summary and annotated facts; the questions with answers."""
    data = json.load(open(path))
    conv = data[0] if isinstance(data, list) else data
    if len(data if isinstance(data, list) else [data]) != 1:
        bl.say(PROG, f"{path}: more than one conversation; only the first is scored")
    sample = str(conv.get("sample_id") or "conv-0")
    c = conv["conversation"]
    sessions = collections.OrderedDict()
    for t in turns:
        if t["project"] != sample:
            continue
        s = sessions.setdefault(t["session"], {"turns": [], "n": int(t["session"].rsplit("_", 1)[1])})
        s["turns"].append(t)
    for sid, s in sessions.items():
        n = s["n"]
        s["text"] = "\n".join(f"{t['user']}\n{t['assistant']}".strip() for t in s["turns"])
        s["date"] = c.get(f"session_{n}_date_time", "")
        s["written"] = (conv.get("session_summary") or {}).get(f"session_{n}_summary", "")
        facts = []
        for items in ((conv.get("observation") or {}).get(f"session_{n}_observation") or {}).values():
            for it in items or []:
                fact = it[0] if isinstance(it, list) and it else it
                if isinstance(fact, str) and fact.strip():
                    facts.append(fact)
        s["facts"] = facts
        s["fact_stems"] = [content_stems(f) for f in facts]
        s["partial"] = len(s["turns"]) < (len(c.get(f"session_{n}") or []) + 1) // 2
    captured = {d for t in turns for d in t["dia_ids"]}
    questions = []
    for q in conv.get("qa") or []:
        if q.get("category") == 5 or "answer" not in q:
            continue
        ev = [x for e in q.get("evidence") or [] for x in re.split(r"[;,\s]+", str(e)) if x]
        stems = content_stems(q["answer"])
        if stems and ev and all(e in captured for e in ev):
            questions.append({"question": q["question"], "answer": str(q["answer"]), "stems": stems})
    return sample, sessions, questions


# --- scoring ------------------------------------------------------------------------
class Row:
    """One kind of summary, scored over the sessions."""

    def __init__(self, label):
        self.label = label
        self.words, self.compression, self.recall = [], [], []
        self.r1, self.r2, self.rl = [], [], []
        self.terms = self.invented = 0
        self.texts = self.looping = 0
        self.model_l3 = self.l3 = 0
        self.examples = []

    def add(self, s, text, scorer, loop_texts=None, anchor=False):
        """text: the session's summary of this kind; loop_texts: the stored
        texts it is made of (each checked for loops on its own)."""
        self.words.append(words(text))
        self.compression.append(words(text) / max(words(s["text"]), 1))
        stems = content_stems(text)
        self.recall.append(sum(held(f, stems) for f in s["fact_stems"]) / len(s["fact_stems"]) if s["fact_stems"] else 0.0)
        if not anchor:
            sc = scorer.score(s["written"], text)
            self.r1.append(sc["rouge1"].fmeasure)
            self.r2.append(sc["rouge2"].fmeasure)
            self.rl.append(sc["rougeL"].fmeasure)
        source = (s["date"] + "\n" + s["text"]).lower()
        for t in memory.terms(text):
            self.terms += 1
            if not memory.occurs(t, source):
                self.invented += 1
                if len(self.examples) < 6:
                    self.examples.append(f"{t} (session {s['n']})")
        for lt in loop_texts if loop_texts is not None else [text]:
            self.texts += 1
            self.looping += memory.loops(lt)

    def cells(self):
        def mean(xs):
            return sum(xs) / len(xs) if xs else float("nan")

        def f(xs):
            return f"{mean(xs):.3f}" if xs else "—"

        inv = f"{self.invented / self.terms:.1%} ({self.invented} of {self.terms})" if self.terms else "0 of 0"
        model = f"{self.model_l3 / self.l3:.0%} ({self.model_l3} of {self.l3})" if self.l3 else "—"
        return [self.label, f"{mean(self.words):.0f}", f"{mean(self.compression):.3f}", f(self.recall), f(self.r1), f(self.r2), f(self.rl),
                inv, f"{self.looping} of {self.texts}", model]

    def as_json(self):
        def mean(xs):
            return sum(xs) / len(xs) if xs else None

        return {"label": self.label, "words": mean(self.words), "compression": mean(self.compression), "fact_recall": mean(self.recall),
                "rouge1": mean(self.r1), "rouge2": mean(self.r2), "rougeL": mean(self.rl), "terms": self.terms, "invented": self.invented,
                "texts": self.texts, "looping": self.looping, "l3": self.l3, "model_l3": self.model_l3}


# --- one binary -------------------------------------------------------------------------
def backfill(label, binary, cfg, work, turns, sample):
    """Capture and summarise the turns with one binary; read back every
    session's rows, the project summary and the context block."""
    db = os.path.join(work, f"{label}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    r = bl.Ragger(binary, cfg, db)
    lines = [{k: t[k] for k in ("session", "project", "user", "assistant", "at", "id")} for t in turns]
    bl.say(PROG, f"{label}: backfilling {len(turns)} turns with {binary}")
    secs, status = memory.capture_and_summarise(r, lines)
    bl.say(PROG, f"{label}: summarised in {secs:.0f} s ({len(turns) / max(secs, 1e-9):.2f} turns/s), {status.get('model_calls', 0)} model calls; "
           f"status {json.dumps({k: status.get(k) for k in ('failed', 'pending_l2', 'pending_l3', 'pending_l4', 'sessions_open')})}")
    shown = {}
    for sid in dict.fromkeys(t["session"] for t in turns):
        shown[sid] = json.loads(r.run("show", sid, "--json").stdout)
    projects = json.loads(r.run("projects", "--json").stdout)
    l4_now = next((p.get("summary") or "" for p in projects if p.get("project") == sample), "")
    ctx = r.run("context", "--project", sample, "--limit-tokens", str(CONTEXT_TOKENS)).stdout
    return {"label": label, "binary": binary, "seconds": secs, "status": status, "shown": shown, "l4": l4_now, "context": ctx,
            "version": bl.ragger_version(binary), "sha": sha(binary)}


def origins(run):
    """Counters of origin per level: L2 (turns), L3, L4 (distinct rows)."""
    out = {2: collections.Counter(), 3: collections.Counter(), 4: collections.Counter()}
    seen4 = set()
    for v in run["shown"].values():
        for t in v.get("turns") or []:
            out[2][t.get("l2_origin") or "pending"] += 1
        for s in v.get("summaries") or []:
            if s.get("level") == 3:
                out[3][s.get("origin") or "?"] += 1
            elif s.get("level") == 4 and s.get("id") not in seen4:
                seen4.add(s.get("id"))
                out[4][s.get("origin") or "?"] += 1
    return out


def l3_texts(run, sid):
    rows = [s for s in (run["shown"].get(sid) or {}).get("summaries") or [] if s.get("level") == 3]
    rows.sort(key=lambda s: s.get("id", 0))
    return rows


# --- the direct-model row -------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def direct_summaries(server_bin, gguf, sessions, threads, work):
    """The GGUF asked once per session through llama-server for a ~100-word
    summary. Returns ({session: text}, seconds) or (None, reason)."""
    port = free_port()
    log = os.path.join(work, "llama-server.log")
    threads = threads or os.cpu_count() or 2
    proc = subprocess.Popen([server_bin, "--model", gguf, "--host", "127.0.0.1", "--port", str(port), "--threads", str(threads),
                             "--threads-batch", str(threads), "--ctx-size", "4096", "--parallel", "1"],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                return None, f"llama-server exited ({open(log).read().strip()[-200:]})"
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            return None, "llama-server did not answer /health in 120 s"
        out = {}
        t0 = time.time()
        for sid, s in sessions.items():
            prompt = (f"Summarise this conversation in about {DIRECT_WORDS} words: third person, paraphrase only, keep the names, "
                      f"numbers, dates, plans and decisions, no greetings or filler.\n\nConversation ({s['date']}):\n{s['text']}")
            body = json.dumps({"messages": [{"role": "user", "content": prompt}], "temperature": 0, "max_tokens": 2 * DIRECT_WORDS,
                               "seed": 1}).encode()
            req = urllib.request.Request(base + "/v1/chat/completions", data=body, headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=600) as resp:
                reply = json.load(resp)
            out[sid] = (reply["choices"][0]["message"].get("content") or "").strip()
        return out, time.time() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def default_gguf(binary, cfg):
    """The GGUF the binary's local backend uses (from `config show`)."""
    p = subprocess.run([binary, "--config", cfg, "config", "show"], capture_output=True, text=True)
    m = re.search(r'^\s*model_path\s*=\s*"([^"]+)"', p.stdout, re.M)
    return m.group(1) if m else None


# --- main ---------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(prog="summaries.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="the ragger binary before a change")
    ap.add_argument("--after", help="the ragger binary after it (alone: --bin)")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(bl.ROOT), "shared", "data", "locomo", "locomo_conv26.json"))
    ap.add_argument("--max-turns", type=int, help="capture only the first N turns (a quick run)")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads of the local model, the embedder and llama-server (0: all cores)")
    ap.add_argument("--model-path", help="the GGUF of both the local backend and llama-server (default: the binary's default model)")
    ap.add_argument("--config-extra", default="", metavar="TOML", help="a TOML snippet added to the config")
    ap.add_argument("--server-bin", help="llama.cpp's llama-server (absent: the direct-model row is left out)")
    ap.add_argument("--server-script", help="a script printing llama-server's path (scripts/llama-server.sh, which builds it once), "
                    "run after the backfills when --server-bin is absent")
    ap.add_argument("--server-note", default="", help="why there is no --server-bin (printed with the table)")
    ap.add_argument("--keep", help="keep the databases in this folder")
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--command", default="scripts/bench/summaries.sh")
    a = ap.parse_args()
    bins = [(label, b) for label, b in (("before", a.before), ("after", a.after)) if b]
    if not bins:
        bl.die(PROG, "no binary: pass --bin, or --before and --after", 2)
    if len(bins) == 1:
        bins = [("ragger", bins[0][1])]
    for _, b in bins:
        if not os.access(b, os.X_OK):
            bl.die(PROG, f"no ragger binary at {b} (build it: cargo build --release)", 2)
    if not os.path.isfile(a.data):
        bl.die(PROG, f"{a.data}: no such file (set --data)", 2)
    if a.model_path and not os.path.isfile(a.model_path):
        bl.die(PROG, f"--model-path {a.model_path}: no such file", 2)

    t_all = time.time()
    work = a.keep or tempfile.mkdtemp(prefix="ragger-sumbench.")
    os.makedirs(work, exist_ok=True)
    try:
        cfg = os.path.join(work, "config.toml")
        base = bl.base_config(None, threads=a.threads, model_path=a.model_path)
        with open(cfg, "w") as f:
            f.write(bl.merge_toml(base, a.config_extra.replace("\\n", "\n")) if a.config_extra else base)
        turns, _ = memory.load_locomo(a.data, a.max_turns)
        sample, sessions, questions = load_refs(a.data, turns)
        gguf = a.model_path or default_gguf(bins[0][1], cfg)
        bl.say(PROG, f"{sample}: {len(turns)} turns in {len(sessions)} sessions, {sum(len(s['facts']) for s in sessions.values())} facts, "
               f"{len(questions)} questions with answers; model {gguf}")
        runs = [backfill(label, b, cfg, work, turns, sample) for label, b in bins]

        direct, direct_note = None, a.server_note or "no llama-server (--no-server)"
        if not a.server_bin and a.server_script:
            bl.say(PROG, f"direct model: {a.server_script} (builds llama-server once; minutes)")
            p = subprocess.run([a.server_script], stdout=subprocess.PIPE, text=True)
            if p.returncode == 0 and os.access(p.stdout.strip(), os.X_OK):
                a.server_bin = p.stdout.strip()
            else:
                direct_note = f"{os.path.relpath(a.server_script, bl.ROOT)} could not build llama-server (exit {p.returncode})"
        if a.server_bin:
            if not gguf or not os.path.isfile(gguf):
                direct_note = f"no GGUF for llama-server ({gguf})"
            else:
                bl.say(PROG, f"direct model: {len(sessions)} sessions through {a.server_bin}")
                direct, info = direct_summaries(a.server_bin, gguf, sessions, a.threads, work)
                direct_note = f"{info:.0f} s for {len(sessions)} sessions" if direct is not None else info
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.time() - t_all

    # --- scores -------------------------------------------------------------------------
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    written = Row("written session summary (anchor)")
    rows = [written]
    for s in sessions.values():
        written.add(s, s["written"], scorer, anchor=True)
    per_run = {}
    for run in runs:
        tag = "" if run["label"] == "ragger" else f" — {run['label']}"
        mine, first = Row(f"ragger: the session's L3s joined{tag}"), Row(f"first words at ragger's length{tag}")
        for sid, s in sessions.items():
            l3 = l3_texts(run, sid)
            text = "\n".join(r_.get("content") or "" for r_ in l3)
            mine.add(s, text, scorer, loop_texts=[r_.get("content") or "" for r_ in l3])
            mine.l3 += len(l3)
            mine.model_l3 += sum(1 for r_ in l3 if r_.get("origin") == "model")
            first.add(s, first_words(s["text"], words(text)), scorer)
        rows += [mine, first]
        per_run[run["label"]] = {"mine": mine, "first": first}
    if direct is not None:
        d = Row(f"the GGUF asked for ~{DIRECT_WORDS} words (llama-server)")
        for sid, s in sessions.items():
            d.add(s, direct.get(sid, ""), scorer)
        rows.append(d)
    header = ["summary", "words", "compression", "fact recall", "ROUGE-1 F", "ROUGE-2 F", "ROUGE-L F", "invented names/numbers", "loops",
              "L3 rows by the model"]
    table = bl.md_table(header, [r_.cells() for r_ in rows])

    # --- the context block ----------------------------------------------------------------
    newest_written = "\n".join(s["written"] for s in reversed(sessions.values()))
    raw = "\n".join(f"[{s['date']}]\n{s['text']}" for s in sessions.values())  # turns with their dates, as a raw-turn block would show them

    def answers(text):
        st = content_stems(text)
        return sum(held(q["stems"], st) for q in questions)

    ctx_rows, ctx_json = [], []
    for run in runs:
        tag = "" if run["label"] == "ragger" else f" — {run['label']}"
        n = words(run["context"])
        nw = " ".join(newest_written.split()[:n])  # newest sessions first, cut to n words
        nr = last_words(raw, n)
        q = max(len(questions), 1)
        got = {"context": answers(run["context"]), "written": answers(nw), "raw": answers(nr)}
        ctx_rows += [[f"`ragger context --limit-tokens {CONTEXT_TOKENS}`{tag}", n, f"{got['context'] / q:.3f} ({got['context']} of {len(questions)})"],
                     [f"newest written session summaries, same words{tag}", words(nw), f"{got['written'] / q:.3f} ({got['written']} of {len(questions)})"],
                     [f"newest raw turns, same words{tag}", words(nr), f"{got['raw'] / q:.3f} ({got['raw']} of {len(questions)})"]]
        ctx_json.append({"label": run["label"], "words": n, **{k: v / q for k, v in got.items()}})
    ctx_table = bl.md_table(["context", "words", "answers held"], ctx_rows)

    # --- model share and speed --------------------------------------------------------------
    def share(c):
        n = sum(c.values())
        detail = ", ".join(f"{k} {v}" for k, v in sorted(c.items(), key=lambda kv: -kv[1]))
        return f"{c.get('model', 0) / n:.0%} ({detail})" if n else "— (none)"

    orig = {run["label"]: origins(run) for run in runs}
    labels = [run["label"] for run in runs]
    speed_rows = [
        ["L2 rows written by the model", *(share(orig[l][2]) for l in labels)],
        ["L3 rows written by the model", *(share(orig[l][3]) for l in labels)],
        ["L4 rows written by the model", *(share(orig[l][4]) for l in labels)],
        ["project summary (L4) now: words", *(str(words(run["l4"])) for run in runs)],
        ["model calls a turn", *(f"{run['status'].get('model_calls', 0) / max(len(turns), 1):.2f} ({run['status'].get('model_calls', 0)})" for run in runs)],
        ["backfill: turns/s (seconds)", *(f"{len(turns) / max(run['seconds'], 1e-9):.2f} ({run['seconds']:.0f} s)" for run in runs)],
        ["backfill: CPU seconds, peak RSS", *(f"{run['status'].get('cpu_s', 0):.0f} s, {run['status'].get('peak_rss_mib', 0):.0f} MiB" for run in runs)],
    ]
    speed_table = bl.md_table(["figure", *labels], speed_rows)

    # --- the goals of issue 31, for the last binary ------------------------------------------
    last = runs[-1]["label"]
    m, fw = per_run[last]["mine"].as_json(), per_run[last]["first"].as_json()
    wj = written.as_json()
    dj = rows[-1].as_json() if direct is not None else None
    cj = ctx_json[-1]
    o = orig[last]

    def pct(c):
        n = sum(c.values())
        return c.get("model", 0) / n if n else 0.0

    def goal(text, ok, value):
        return [text, value, "met" if ok else "MISSED"]

    goals = [
        goal("L3 and L4 rows written by the model ≥ 80%", pct(o[3] + o[4]) >= 0.8 - 1e-9, f"{pct(o[3] + o[4]):.0%}"),
        goal("session summaries: compression ≤ 0.30", m["compression"] <= 0.30 + 1e-9, f"{m['compression']:.3f}"),
        goal("fact recall ≥ the written summary's", m["fact_recall"] >= wj["fact_recall"] - 1e-9, f"{m['fact_recall']:.3f} vs {wj['fact_recall']:.3f}"),
        goal("fact recall ≥ first words at the same length + 0.10", m["fact_recall"] >= fw["fact_recall"] + 0.10 - 1e-9,
             f"{m['fact_recall']:.3f} vs {fw['fact_recall']:.3f} + 0.10"),
        (goal("ROUGE-1 ≥ the direct-model row", m["rouge1"] >= dj["rouge1"] - 1e-9, f"{m['rouge1']:.3f} vs {dj['rouge1']:.3f}")
         if dj else ["ROUGE-1 ≥ the direct-model row", f"{m['rouge1']:.3f}", "not measured (no llama-server)"]),
        goal("invented names/numbers ≤ 2%", (m["invented"] / m["terms"] if m["terms"] else 0) <= 0.02 + 1e-9,
             f"{(m['invented'] / m['terms'] if m['terms'] else 0):.1%}"),
        goal("0 looping L3 rows", m["looping"] == 0, str(m["looping"])),
        goal("L4 ≤ 250 words", words(runs[-1]["l4"]) <= 250, str(words(runs[-1]["l4"]))),
        goal("context block holds ≥ the newest written summaries' answers", cj["context"] >= cj["written"] - 1e-9,
             f"{cj['context']:.3f} vs {cj['written']:.3f}"),
        goal("context block holds ≥ the newest raw turns' answers + 0.10", cj["context"] >= cj["raw"] + 0.10 - 1e-9,
             f"{cj['context']:.3f} vs {cj['raw']:.3f} + 0.10"),
        goal("backfill ≥ 0.5 turns/s", len(turns) / max(runs[-1]["seconds"], 1e-9) >= 0.5, f"{len(turns) / max(runs[-1]['seconds'], 1e-9):.2f}"),
    ]
    goal_table = bl.md_table([f"goal (issue 31), {last}", "value", "verdict"], goals)

    notes = []
    if direct is None:
        notes.append(f"The direct-model row is left out: {direct_note}.")
    partial = [s["n"] for s in sessions.values() if s["partial"]]
    if partial:
        notes.append(f"Session(s) {', '.join(map(str, partial))} only partly captured (--max-turns): scored against the whole session's references.")
    examples = list(dict.fromkeys(e for r_ in rows for e in r_.examples[:3]))
    for t in (table, ctx_table, speed_table, goal_table):
        print(t + "\n")
    for n_ in notes:
        print(n_)
    if examples:
        print("invented, e.g.: " + "; ".join(examples))
    bl.say(PROG, f"done in {elapsed:.0f} s")

    if a.json:
        with open(a.json, "w") as out:
            json.dump({"rows": [r_.as_json() for r_ in rows], "context": ctx_json,
                       "origins": {l: {str(k): dict(v) for k, v in orig[l].items()} for l in labels},
                       "runs": [{k: run[k] for k in ("label", "binary", "seconds", "version", "sha")} | {"model_calls": run["status"].get("model_calls", 0)}
                                for run in runs], "turns": len(turns), "direct": direct}, out, indent=1)

    if not a.no_write:
        now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        load = os.getloadavg()
        binaries = "; ".join(f"{run['label']}: `{run['binary']}` ({run['version']}, sha256 {run['sha']})" for run in runs)
        same = len(runs) == 2 and runs[0]["sha"] == runs[1]["sha"]
        body = f"""_Produced by `scripts/bench/summaries.sh` (do not edit by hand); measured {now} (commit {bl.git_describe()}),
{elapsed:.0f} s in all, {os.cpu_count()} cores, load average {load[0]:.2f} at the end:_

```sh
{a.command}
```

Binaries: {binaries}.{' The two are the same file: the before/after difference is run-to-run noise.' if same else ''}
Model: `{os.path.basename(gguf or '?')}` for ragger's local backend and for the llama-server row.

LoCoMo `{os.path.basename(a.data)}` (development conversation, {len(turns)} turns in {len(sessions)} sessions, captured as
`scripts/bench/memory.sh` does) is backfilled by each binary (capture, `summarize --once`, `housekeeping` until
nothing is pending). Per session, averaged over the sessions: words; compression = summary words / session words;
fact recall = share of the session's annotated `observation` facts with ≥ 60% of their content-word Porter stems
(nltk) present in the summary; ROUGE-1/2/L F against the written `session_summary` (`rouge-score`, stemmer on).
Invented names/numbers: memory.py's check against the session's turns and date (pooled over the sessions); loops:
texts repeating a 4-word run 3+ times (the rule src/pipeline/grounding/loops.rs shares), each stored L3 checked
on its own. The first-words row takes each session's first words up to ragger's summary of it in length. The
llama-server row asks the same GGUF once per session, at temperature 0, for ~{DIRECT_WORDS} words.

{table}

Context block: the share of the {len(questions)} questions' answers (category ≠ 5; content stems ≥ 60% present)
held by `ragger context --project {sample} --limit-tokens {CONTEXT_TOKENS}`, beside the same number of words of
the newest written session summaries (newest first) and of the newest raw turns (each session headed by its date).

{ctx_table}

Rows by origin (`show --json`: `l2_origin`, `origin`; L4 rows are those the sessions' L3s were folded into)
and the backfill's cost:

{speed_table}

{goal_table}
"""
        if notes:
            body += "\n" + " ".join(notes) + "\n"
        if examples:
            body += "\nInvented, e.g.: " + "; ".join(f"`{e}`" for e in examples) + "\n"
        bl.write_section(a.out, "Summary quality (issue 31)", body)
        bl.say(PROG, f"section 'Summary quality (issue 31)' written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
