#!/usr/bin/env python3
"""Topic segmentation benchmark (issue 13); run it through segmentation.sh.

Each dialogue of each set is captured into a fresh database as one session,
summarised with `ragger summarize --once`, and its L3 rows read back with
`ragger show SESSION --json`: the first turn of every L3 but the first is a
predicted boundary. Scores per set and variant: boundary F1 (exact turn,
micro), Pk and WindowDiff (k per dialogue = half its mean true segment
length, errors summed over the windows of the whole set), beside the
trivial baselines (no boundary; a boundary at every turn) and the ceiling of
a segmenter without one-turn segments (the reference's own boundaries that
leave none).
"""
import argparse
import collections
import datetime as dt
import glob
import json
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402

PROG = "segmentation"


# --- data ---------------------------------------------------------------------
def build_turns(dialogue):
    """Turns [(user, assistant)], reference boundaries (sorted turn indices),
    the same boundaries as (late, early) pairs, and each turn's reference
    segments (the number of the segment of its first and of its last
    utterance, counting every boundary), of one dialogue in the Def-DTS
    format; see the README.

    A boundary before a user utterance starts the turn of that utterance. A
    boundary before an agent utterance falls inside a turn, between its
    user's words and the reply: `bounds` puts it at the next turn (late;
    dropped when no turn follows), `refs` keeps both candidates, the next
    turn and the turn that holds it (early; None for a clean boundary or
    inside turn 0), for the scoring that accepts either (see `resolve`)."""
    turns, refs, topics, pending, inside, seg = [], [], [], False, None, 0
    for part in dialogue.split("[NEWLINE]"):
        s = part.strip()
        if not s:
            continue
        if s == "[BOUNDARY]":
            pending, inside, seg = True, None, seg + 1
            continue
        m = re.match(r"(user|agent)\s*:\s?(.*)$", s, re.S | re.I)
        role, text = (m.group(1).lower(), m.group(2).strip()) if m else ("agent", s)
        if role == "user":
            turns.append([text, ""])
            topics.append([seg, seg])
            if pending and len(turns) > 1:
                refs.append((len(turns) - 1, inside or None))
            pending, inside = False, None
        elif not turns:
            turns.append(["", text])
            topics.append([seg, seg])
            pending = False  # a boundary before turn 0 is ignored
        else:
            if pending and inside is None:
                inside = len(turns) - 1
            turns[-1][1] = (turns[-1][1] + "\n" + text).strip()
            topics[-1][1] = seg
    if pending and inside:
        refs.append((None, inside))
    bounds = sorted({late for late, _ in refs if late is not None})
    return [tuple(t) for t in turns], bounds, refs, [tuple(t) for t in topics]


def resolve(refs, hyp):
    """Reference boundaries for one hypothesis when a boundary inside a turn
    may be put at either of its two turns: at the one the hypothesis chose,
    else at the later one (the only one for the last turn)."""
    chosen = set(hyp)
    taken = {late for late, _ in refs if late in chosen}
    out = set()
    for late, early in refs:
        if late is not None and late in chosen:
            out.add(late)
        elif early is not None and early in chosen and early not in taken:
            out.add(early)
            taken.add(early)
        else:
            out.add(late if late is not None else early)
    return sorted(out)


def load_set(path):
    items = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                did, dialogue = str(obj["id"]), obj["dialogue"]
            except (ValueError, KeyError, TypeError) as e:
                bl.die(PROG, f"{path}:{n}: not a {{\"id\",\"dialogue\"}} JSON object ({e})", 2)
            turns, bounds, refs, topics = build_turns(dialogue)
            if turns:
                items.append({"id": did, "turns": turns, "bounds": bounds, "refs": refs, "topics": topics})
    return items


def one_topic(item, least=2, most=4):
    """The turns of `item` that stand for one conversation in a joined
    session: the first run of at least `least` turns that lie whole inside one
    reference segment (no boundary between any two of its utterances, the
    user's words and the agent's replies of every turn included), cut to its
    first `most` turns; None when the dialogue has no such run."""
    run = []
    for i, (first, last) in enumerate(item["topics"]):
        if run and (first != last or first != item["topics"][run[-1]][0]):
            if len(run) >= least:
                break
            run = []
        if first == last:
            run.append(i)
    return [item["turns"][t] for t in run[:most]] if len(run) >= least else None


def joined_set(pool, count, seed):
    """Sessions joining 2-3 conversations, each from another dialogue of
    `pool` and one topic by that dialogue's own reference (`one_topic`: 2-4
    turns), boundaries at the joins only; seeded. A dialogue without such a
    run is left out of the draw."""
    rng = random.Random(seed)
    pieces = [(d["id"], t) for d in pool for t in [one_topic(d)] if t]
    out = []
    for i in range(count):
        parts = rng.sample(pieces, rng.choice([2, 3]))
        turns, bounds = [], []
        for _, p in parts:
            if turns:
                bounds.append(len(turns))
            turns.extend(p)
        out.append({"id": f"joined_{i}", "turns": turns, "bounds": bounds, "from": [d for d, _ in parts]})
    return out


def whole_set(pool, count, seed):
    """Sessions joining 2-3 whole task dialogues of `pool` (the DialSeg711
    kind, whose segments are whole task dialogues: a dialogue's own shifts
    between the parts of one request are no boundary), boundaries at the
    joins only; seeded."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        parts = rng.sample(pool, rng.choice([2, 3]))
        turns, bounds = [], []
        for d in parts:
            if turns:
                bounds.append(len(turns))
            turns.extend(d["turns"])
        out.append({"id": f"whole_{i}", "turns": turns, "bounds": bounds, "from": [d["id"] for d in parts]})
    return out


# --- metrics ------------------------------------------------------------------
def either_refs(item, hyp):
    """The reference boundaries of `item` for `hyp` when a boundary inside a
    turn counts at either of its turns (joined sets have none inside)."""
    if item["bounds"] is None:
        return None
    return resolve(item["refs"], hyp) if "refs" in item else item["bounds"]


def load_locomo(path):
    """The sessions of a LoCoMo file as unlabelled dialogues: consecutive
    utterances paired as user/assistant turns, each prefixed with its
    speaker's name (as scripts/bench/memory.py captures them)."""
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        bl.die(PROG, f"{path}: not a LoCoMo JSON file ({e})", 2)
    items = []
    for ci, conv in enumerate(data if isinstance(data, list) else [data]):
        c = conv.get("conversation") if isinstance(conv, dict) else None
        if not isinstance(c, dict):
            bl.die(PROG, f"{path}: conversation {ci}: no `conversation` object", 2)
        sample = str(conv.get("sample_id") or f"conv-{ci}")
        keys = sorted((int(m.group(1)), k) for k in c if (m := re.fullmatch(r"session_(\d+)", k)))
        for n, key in keys:
            def said(u):
                text = f"{u.get('speaker', '?')}: {u.get('text', '').strip()}"
                return text + (f" [shares a photo: {u['blip_caption']}]" if u.get("blip_caption") else "")
            utts = c[key] or []
            turns = [(said(utts[i]), said(utts[i + 1]) if i + 1 < len(utts) else "") for i in range(0, len(utts), 2)]
            if turns:
                items.append({"id": f"{sample}_session_{n}", "turns": turns, "bounds": None})
    return items


def ceiling(n, bounds, one_turn=0):
    """The most of a dialogue's reference boundaries that a segmenter can
    put with at most `one_turn` segments of one turn: every one it puts is
    right (precision 1), so with one_turn=0 these boundaries are the
    ceiling of recall and F1 for a segmenter that keeps issue 32's rule of
    no one-turn segment (their Pk is what they give, not a bound: a wrong
    boundary near one that cannot be put may lower Pk). A dynamic programme over the reference's own
    cuts: best[(j, k)] is the most boundaries before cut j, a segment
    ending there, with k one-turn segments so far."""
    cuts = [0] + sorted(b for b in bounds if 0 < b < n) + [n]
    last = len(cuts) - 1
    best = {(0, 0): []}
    for j in range(1, last + 1):
        for (i, k), before in [item for item in best.items() if item[0][0] < j]:
            k2 = k + (cuts[j] - cuts[i] == 1)
            if k2 > one_turn:
                continue
            path = before + ([] if j == last else [cuts[j]])
            if (j, k2) not in best or len(path) > len(best[(j, k2)]):
                best[(j, k2)] = path
    return max((p for (j, _), p in best.items() if j == last), key=len, default=[])


def seg_ids(n, bounds):
    """Segment number of each of n turns."""
    b, s, out = set(bounds), 0, []
    for i in range(n):
        if i in b:
            s += 1
        out.append(s)
    return out


class Score:
    """F1, Pk and WindowDiff pooled over the windows of all dialogues (issue
    32: each dialogue's k is half its mean true segment length, at least 2),
    and, labelled or not, segments per 10 turns and the share of one-turn
    segments."""

    def __init__(self):
        self.dialogues = self.turns = self.tp = self.n_hyp = self.n_ref = 0
        self.pk_err = self.pk_n = self.wd_err = self.wd_n = 0
        self.segments = self.one_turn = 0
        self.failed = 0
        self.reasons = collections.Counter()

    def add(self, n, ref, hyp):
        hyp = sorted(set(hyp))
        self.dialogues += 1
        self.turns += n
        edges = [0] + hyp + [n]
        self.segments += len(hyp) + 1
        self.one_turn += sum(1 for a, b in zip(edges, edges[1:]) if b - a == 1)
        if ref is None:
            return
        ref = sorted(set(ref))
        self.tp += len(set(ref) & set(hyp))
        self.n_hyp += len(hyp)
        self.n_ref += len(ref)
        k = max(2, int(n / (len(ref) + 1) / 2 + 0.5))
        rs, hs = seg_ids(n, ref), seg_ids(n, hyp)
        rb = [1 if i in set(ref) else 0 for i in range(n)]
        hb = [1 if i in set(hyp) else 0 for i in range(n)]
        for i in range(n - k):
            self.pk_n += 1
            self.pk_err += (rs[i] == rs[i + k]) != (hs[i] == hs[i + k])
            self.wd_n += 1
            self.wd_err += sum(rb[i + 1 : i + k + 1]) != sum(hb[i + 1 : i + k + 1])

    def row(self):
        p = self.tp / self.n_hyp if self.n_hyp else 0.0
        r = self.tp / self.n_ref if self.n_ref else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        pk = self.pk_err / self.pk_n if self.pk_n else float("nan")
        wd = self.wd_err / self.wd_n if self.wd_n else float("nan")
        return f1, p, r, pk, wd

    def density(self):
        """Segments per 10 turns, and the share of segments of one turn."""
        return 10 * self.segments / max(1, self.turns), self.one_turn / max(1, self.segments)


# --- one dialogue through ragger ----------------------------------------------
def run_dialogue(binary, config, item, workroot, keep=None):  # noqa: PLR0913
    d = tempfile.mkdtemp(prefix="seg.", dir=workroot)
    try:
        r = bl.Ragger(binary, config, os.path.join(d, "seg.db"))
        session = re.sub(r"[^A-Za-z0-9_.:-]", "_", item["id"]) or "s"
        t0 = dt.datetime(2024, 1, 1, 9, 0, tzinfo=dt.timezone.utc)
        lines = []
        for i, (u, a) in enumerate(item["turns"]):
            at = (t0 + dt.timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            lines.append(json.dumps({"session": session, "user": u, "assistant": a, "at": at, "id": f"t{i}"}))
        r.run("capture", "--stdin", stdin="\n".join(lines) + "\n")
        for _ in range(3):
            r.run("summarize", "--once", check=False)
            shown = json.loads(r.run("show", session, "--json").stdout)
            turns = shown.get("turns") or []
            if all(t.get("state") in (None, "folded") for t in turns):
                break
        ids = [t["id"] for t in turns]
        if len(ids) != len(item["turns"]):
            raise RuntimeError(f"{item['id']}: {len(item['turns'])} turns captured, show lists {len(ids)}")
        index = {tid: i for i, tid in enumerate(ids)}
        hyp, reasons, unfolded = set(), collections.Counter(), 0
        for row in shown.get("summaries") or []:
            if row.get("level") != 3:
                continue
            rng = bl.summary_range(row)
            if not rng or rng[0] not in index:
                continue
            start = index[rng[0]]
            if start > 0:
                hyp.add(start)
            reasons[str(row.get("start_reason", "n/a"))] += 1
        unfolded = sum(1 for t in turns if t.get("state") not in (None, "folded"))
        if keep:
            for suffix in ("", "-wal"):
                if os.path.exists(r.db + suffix):
                    shutil.copyfile(r.db + suffix, keep + suffix)
        return sorted(hyp), reasons, unfolded
    finally:
        shutil.rmtree(d, ignore_errors=True)


# --- main ---------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(prog="segmentation.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, help="first N dialogues per set (default: all; 200 joined)")
    ap.add_argument("--data", action="append", help="folder of *.jsonl sets or one .jsonl file (repeatable)")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--local", action="store_true", help="the embedded local memory model instead of the extractive server")
    ap.add_argument("--variant", action="append", default=[], help="TOML snippet (or @FILE) added to the config; repeatable; '' is the config default")
    ap.add_argument("--joined", type=int, help="joined sessions to build (default: --limit, else 200; 0: none); each joins 2-3 pieces of other dialogues, a piece being a dialogue's first run of 2-4 turns inside one reference segment")
    ap.add_argument("--whole", type=int, help="sessions joining 2-3 whole task dialogues (the DialSeg711 kind: boundaries at the joins only) to build from the first set (default: --limit, else 200; 0: none)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="CPU threads per process for the local model and the embedder (0: all cores)")
    ap.add_argument("--out", default=os.path.join(bl.ROOT, "BENCHMARKS.md"))
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--json", help="also write each set's F1, P, R, Pk, WD per variant to this file (for scripts/bench/models.py)")
    ap.add_argument("--keep", metavar="DIR", help="keep each dialogue's database as DIR/VARIANT/SET/ID.db and the sets as DIR/SET.json (gold turns and boundaries), for offline study")
    ap.add_argument("--before", metavar="PATH", help="also run this ragger binary (main's code) as the BEFORE variant, in the same run")
    ap.add_argument("--agents", default=os.path.join(bl.HERE, "data", "agents.jsonl"), help="coding-agent sessions ({id, dialogue} a line; '' for none)")
    ap.add_argument("--locomo", default=os.path.join(os.path.dirname(bl.ROOT), "shared", "data", "locomo", "locomo_conv26.json"), help="LoCoMo file whose sessions are measured without labels ('' for none)")
    ap.add_argument("--section", default="Segmentation across kinds", help="heading of the BENCHMARKS.md section written")
    ap.add_argument("--command", default="scripts/bench/segmentation.sh")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        bl.die(PROG, f"no ragger binary at {a.bin} (build it: cargo build --release)", 2)
    jobs = max(1, min(2, a.jobs))

    paths = []
    for src in a.data or [os.path.join(os.path.dirname(bl.ROOT), "shared", "data", "segmentation")]:
        if os.path.isdir(src):
            found = sorted(glob.glob(os.path.join(src, "*.jsonl")))
            if not found:
                bl.die(PROG, f"{src}: no *.jsonl files", 2)
            paths += found
        elif os.path.isfile(src):
            paths.append(src)
        else:
            bl.die(PROG, f"{src}: no such file or folder (set --data)", 2)
    sets = collections.OrderedDict()
    for p in paths:
        name = os.path.basename(p)[: -len(".jsonl")] if p.endswith(".jsonl") else os.path.basename(p)
        sets[name] = load_set(p)
    pool = [d for items in sets.values() for d in items]
    task = next(iter(sets.values()), [])  # the first set (task dialogue) before --limit
    n_joined = a.joined if a.joined is not None else (a.limit if a.limit is not None else 200)
    if a.limit is not None:
        for name in list(sets):
            sets[name] = sets[name][: a.limit]
    if n_joined > 0:
        sets["joined"] = joined_set(pool, n_joined, a.seed)
    n_whole = a.whole if a.whole is not None else (a.limit if a.limit is not None else 200)
    if n_whole > 0 and task:
        sets["whole"] = whole_set(task, n_whole, a.seed)
    if a.agents:
        if not os.path.isfile(a.agents):
            bl.die(PROG, f"{a.agents}: no such file (set --agents, or '' for none)", 2)
        sets["agents"] = load_set(a.agents)
    if a.locomo:
        if not os.path.isfile(a.locomo):
            bl.die(PROG, f"{a.locomo}: no such file (set --locomo, or '' for none)", 2)
        sets["locomo"] = load_locomo(a.locomo)
    if a.before and not os.access(a.before, os.X_OK):
        bl.die(PROG, f"no ragger binary at {a.before} (--before)", 2)

    variants = []  # (label, binary, TOML snippet)
    if a.before:
        variants.append(("BEFORE (main)", a.before, ""))
    for v in a.variant or [""]:
        if v.startswith("@"):
            v = open(v[1:]).read()
        v = v.replace("\\n", "\n")
        label = "default" if not v.strip() else " ".join(l.strip() for l in v.splitlines() if l.strip())
        if a.before:
            label = "AFTER" if label == "default" else f"AFTER, {label}"
        variants.append((label, a.bin, v))

    work = tempfile.mkdtemp(prefix="ragger-segbench.")
    server = None
    try:
        if not a.local:
            server = bl.ExtractiveServer(work)
        base = bl.base_config(server.url if server else None, threads=a.threads)
        configs = []
        for i, (label, binary, snippet) in enumerate(variants):
            path = os.path.join(work, f"variant{i}.toml")
            with open(path, "w") as f:
                f.write(bl.merge_toml(base, snippet))
            r = bl.Ragger(binary, path, os.path.join(work, "probe.db"))
            p = r.run("config", "show", check=False)
            if p.returncode != 0:
                bl.die(PROG, f"variant {label!r}: ragger refuses the config: {((p.stderr or p.stdout).strip().splitlines() or ['?'])[-1]}", 2)
            configs.append(path)

        if a.keep:
            for vi in range(len(variants)):
                for name in sets:
                    os.makedirs(os.path.join(a.keep, f"variant{vi}", name), exist_ok=True)
            for name, items in sets.items():
                with open(os.path.join(a.keep, f"{name}.json"), "w") as f:
                    json.dump(items, f)
        tasks = [(vi, name, (k, item)) for vi in range(len(variants)) for name, items in sets.items() for k, item in enumerate(items)]
        # Beside the whole set, its even- and odd-numbered dialogues: the two
        # halves of a 2-fold cross-validation (tune on one, report the other).
        # "either": a boundary inside a turn counts at either of its turns.
        scores = {(vi, name, h): Score() for vi in range(len(variants)) for name in sets for h in (None, 0, 1, "either")}
        lock = threading.Lock()
        done = [0]
        t_start = time.time()
        errors = []

        def work_one(task):
            vi, name, (k, item) = task
            keep = None
            if a.keep:
                keep = os.path.join(a.keep, f"variant{vi}", name, re.sub(r"[^A-Za-z0-9_.:-]", "_", item["id"]) + ".db")
            try:
                hyp, reasons, unfolded = run_dialogue(variants[vi][1], configs[vi], item, work, keep)
            except Exception as e:  # noqa: BLE001 - report and go on
                with lock:
                    scores[(vi, name, None)].failed += 1
                    errors.append(str(e))
                    if len(errors) <= 3:
                        bl.say(PROG, f"{name}/{item['id']}: {e}")
                return
            with lock:
                s = scores[(vi, name, None)]
                s.add(len(item["turns"]), item["bounds"], hyp)
                s.reasons.update(reasons)
                s.failed += 1 if unfolded else 0
                scores[(vi, name, k % 2)].add(len(item["turns"]), item["bounds"], hyp)
                scores[(vi, name, "either")].add(len(item["turns"]), either_refs(item, hyp), hyp)
                done[0] += 1
                if done[0] % 50 == 0:
                    bl.say(PROG, f"{done[0]}/{len(tasks)} dialogues, {time.time() - t_start:.0f} s")

        bl.say(PROG, f"{len(tasks)} dialogue runs ({', '.join(f'{k}: {len(v)}' for k, v in sets.items())}; {len(variants)} variant(s)), {jobs} at a time, memory model: {'local (embedded default)' if a.local else 'extractive server'}")
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            list(ex.map(work_one, tasks))
        elapsed = time.time() - t_start
    finally:
        calls = server.stop() if server else None
        shutil.rmtree(work, ignore_errors=True)

    # --- report ---------------------------------------------------------------
    header = ["set", "variant", "dialogues", "turns", "F1", "P", "R", "Pk", "WD", "segments / 10 turns", "one-turn segments", "F1 · Pk, either turn"]
    rows = []

    def cells(s, e=None):
        density = s.density()
        dens = [f"{density[0]:.2f}", f"{100 * density[1]:.0f}%"]
        if not s.n_ref and not s.pk_n:  # unlabelled
            return ["–"] * 5 + dens + ["–"]
        f1, _, _, pk, _ = (e or s).row()
        return [f"{x:.3f}" for x in s.row()] + dens + [f"{f1:.3f} · {pk:.3f}"]

    for name, items in sets.items():
        labelled = all(it["bounds"] is not None for it in items)
        baselines = (("baseline: no boundary", lambda it: []), ("baseline: every turn", lambda it: list(range(1, len(it["turns"])))),
                     ("ceiling: the reference's boundaries, no one-turn segment", lambda it: ceiling(len(it["turns"]), it["bounds"])))
        for label, ref_hyp in baselines if labelled else ():
            s, e = Score(), Score()
            for it in items:
                s.add(len(it["turns"]), it["bounds"], ref_hyp(it))
                e.add(len(it["turns"]), either_refs(it, ref_hyp(it)), ref_hyp(it))
            rows.append([name, label, s.dialogues, s.turns, *cells(s, e)])
        for vi, (label, _, _) in enumerate(variants):
            s = scores[(vi, name, None)]
            bold = label == "AFTER" or len(variants) == 1
            rows.append([name, f"**{label}**" if bold else label, s.dialogues, s.turns, *cells(s, scores[(vi, name, "either")])])
    table = bl.md_table(header, rows)
    print(table)
    notes = []
    for vi, (label, _, _) in enumerate(variants):
        for name in sets:
            s = scores[(vi, name, None)]
            if s.failed:
                notes.append(f"- {name}, {label}: {s.failed} dialogue(s) failed or left turns unfolded")
            if s.reasons and set(s.reasons) != {"n/a"}:
                notes.append(f"- {name}, {label}: L3 start reasons " + ", ".join(f"{k} {v}" for k, v in s.reasons.most_common()))
    for n in notes:
        print(n)
    if a.json:
        keys = ("F1", "P", "R", "Pk", "WD")
        with open(a.json, "w") as out:
            json.dump([{"variant": label, "set": name, "dialogues": scores[(vi, name, None)].dialogues,
                        "turns": scores[(vi, name, None)].turns, **dict(zip(keys, scores[(vi, name, None)].row()))}
                       for vi, (label, _, _) in enumerate(variants) for name in sets], out, indent=1)
    bl.say(PROG, f"{len(tasks)} dialogue runs in {elapsed:.0f} s" + (f", {calls} model calls" if calls is not None else ""))
    if errors:
        bl.say(PROG, f"{len(errors)} dialogue runs failed (first: {errors[0]})")

    if not a.no_write:
        now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        model = "the embedded local model (SmolLM2-135M in-process)" if a.local else (
            "an extractive stand-in (`scripts/bench/extractive_server.py`: it replies with the first 30 words of "
            "the prompt's conversation text at once and never says NO_MERGE), so what is measured is ragger's "
            "own segmenter, not the memory model")
        before_note = (f" BEFORE: the binary `{a.before}` ({bl.ragger_version(a.before)}), run in the same run on the same"
                       " dialogues; AFTER: this build." if a.before else "")
        body = f"""_Measured {now} with {bl.ragger_version(a.bin)} (commit {bl.git_describe()}), {elapsed:.0f} s:_

```sh
{a.command}
```

Each dialogue is captured into a fresh database as one session (one turn per user utterance with
the agent's replies, one minute apart), summarised with `ragger summarize --once`, and read back
with `ragger show SESSION --json`: every L3 but the first starts at a predicted boundary. Memory
model: {model}; the real embedder (all-MiniLM-L6-v2).{before_note} Sets, one a kind:
`superseg_validation` and `tiage_validation` (`../shared/data/segmentation`: SuperDialseg, document-grounded
task dialogue with frequent shifts, and TIAGE, open-domain chit-chat; development splits); `joined`:
{n_joined} sessions joining 2–3 conversations, each from another dialogue of those sets (seed {a.seed}) and one
topic by that dialogue's own reference: its first run of 2–4 turns that lie whole inside one reference
segment (a dialogue without one is left out), boundaries at the joins only; `whole`: {n_whole} sessions
joining 2–3 whole dialogues of the first set (seed {a.seed}; the DialSeg711 kind, whose segments are whole
task dialogues: a dialogue's own shifts are no boundary), boundaries at the joins only; `agents`: coding-agent
sessions written for this benchmark (`scripts/bench/data/agents.jsonl`: a 16-turn session on one bug
and its fix, one feature, two and three unrelated tasks in one session, with the acknowledgements and
follow-ups of real sessions); `locomo`: the sessions of LoCoMo conv-26 (`../shared/data/locomo`),
captured as `scripts/bench/memory.sh` does, without labels.
F1, P, R: boundaries at the exact turn, summed over the set. Pk and WindowDiff (lower is better):
window k = half the dialogue's mean true segment length, at least 2, errors summed over all windows
of the set. Segments per 10 turns and the share of one-turn segments are measured on every set, with
labels or without. "either turn": F1 and Pk when a boundary that the data puts between a user
utterance and the agent's reply (inside one turn: most TIAGE boundaries) counts at either of the two
turns it lies between. "ceiling": not a segmenter but the most of the reference's own boundaries
that can be put without a segment of one turn (every one right; a dynamic programme over the
reference's cuts): the best recall and F1 any segmenter that keeps issue 32's rule against one-turn
segments can reach on that set (its Pk is what those boundaries give, not a bound).

{table}
"""
        if notes:
            body += "\n" + "\n".join(notes) + "\n"
        bl.write_section(a.out, a.section, body)
        bl.say(PROG, f"section '{a.section}' written to {a.out}")
    return 1 if errors and len(errors) == len(tasks) else 0


if __name__ == "__main__":
    sys.exit(main())
