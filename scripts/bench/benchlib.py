"""Shared parts of the quality benchmarks (segmentation.py, memory.py):
running the ragger binary, the extractive model server, config files, and
writing one section of BENCHMARKS.md. Standard library only."""
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def say(prog, msg):
    print(f"{prog}: {msg}", file=sys.stderr, flush=True)


def die(prog, msg, code=1):
    say(prog, msg)
    sys.exit(code)


class Ragger:
    """The ragger binary with one config file and one database."""

    def __init__(self, binary, config, db):
        self.binary, self.config, self.db = binary, config, db

    def run(self, *args, stdin=None, check=True, timeout=None):
        cmd = [self.binary, "--config", self.config, "--db", self.db, *args]
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            err = (p.stderr or p.stdout).strip().splitlines()
            raise RuntimeError(f"{' '.join(cmd[3:5])} {' '.join(args)[:80]}: exit {p.returncode}: {err[-1] if err else ''}")
        return p


class ExtractiveServer:
    """scripts/bench/extractive_server.py as a child process."""

    def __init__(self, workdir):
        self.out = os.path.join(workdir, "server.out")
        self.err = os.path.join(workdir, "server.err")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "extractive_server.py")],
            stdout=open(self.out, "w"),
            stderr=open(self.err, "w"),
        )
        self.url = None
        for _ in range(100):
            with open(self.out) as f:
                m = re.search(r"^URL (\S+)", f.read(), re.M)
            if m:
                self.url = m.group(1)
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not self.url:
            self.stop()
            raise RuntimeError(f"the extractive model server did not start: {open(self.err).read().strip()[-300:]}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        try:
            m = re.search(r"CALLS (\d+)", open(self.err).read())
            return int(m.group(1)) if m else None
        except OSError:
            return None


def base_config(url=None, threads=0, model_path=None):
    """TOML for the memory model: the extractive server (url) or the embedded
    local default (url None; model_path: another GGUF than the default).
    threads: CPU threads per process (0: all)."""
    lines = []
    if url:
        lines += ["[memory_model]", 'backend = "openai"', f'url = "{url}"', 'model = "extractive"', "retries = 0"]
    else:
        lines += ["[memory_model]", 'backend = "local"']
        if model_path:
            lines += [f"model_path = {json.dumps(os.path.abspath(model_path))}"]
    if threads:
        lines += [f"threads = {threads}", "", "[embedder]", f"threads = {threads}"]
    return "\n".join(lines) + "\n"


def merge_toml(base, snippet):
    """base + a user's TOML snippet; a table the snippet repeats from base is
    merged by moving the snippet's keys under base's table header."""
    if not snippet.strip():
        return base
    tables = {}
    order = []
    cur = ""
    for text in (base, snippet):
        for line in text.splitlines():
            m = re.match(r"\s*\[([^\[\]]+)\]\s*$", line)
            if m:
                cur = m.group(1).strip()
                if cur not in tables:
                    tables[cur] = []
                    order.append(cur)
                continue
            if line.strip():
                tables.setdefault(cur, [])
                if cur not in order:
                    order.append(cur)
                tables[cur].append(line)
        cur = ""
    out = []
    for t in order:
        if t:
            out.append(f"[{t}]")
        out.extend(tables[t])
        out.append("")
    return "\n".join(out)


def parse_episode_range(s):
    """ "3-7" -> (3, 7); "5" -> (5, 5); None for anything else."""
    if not isinstance(s, str):
        return None
    m = re.match(r"\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*$", s)
    if not m:
        return None
    a = int(m.group(1))
    return a, int(m.group(2) or a)


def summary_range(row):
    """(first_turn_id, last_turn_id) of an L3 row of `show --json`, from the
    explicit fields when present, else from episode_range."""
    f, l = row.get("first_turn_id"), row.get("last_turn_id")
    if isinstance(f, int):
        return f, l if isinstance(l, int) else f
    return parse_episode_range(row.get("episode_range"))


def ragger_version(binary):
    try:
        return subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "ragger ?"


def git_describe():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src"], capture_output=True, text=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except OSError:
        return "?"


def write_section(path, heading, body):
    """Replace the `## heading` section of a Markdown file (up to the next
    `## ` heading) with body, or append it at the end. Sections after
    `## Reliability` are carried over by scripts/bench/run.sh."""
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    section = f"## {heading}\n\n{wrap_prose(body).strip()}\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, l in enumerate(lines) if l.rstrip("\n") == f"## {heading}"), None)
    if start is None:
        new = text.rstrip("\n") + "\n\n" + section
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        rest = "".join(lines[end:])
        new = "".join(lines[:start]) + section + ("\n" + rest if rest else "")
    with open(path + ".new", "w") as f:
        f.write(new)
    os.replace(path + ".new", path)


def wrap_prose(text, width=100):
    """Re-fill the plain prose paragraphs of Markdown (not tables, code,
    lists or emphasis lines) to width columns."""
    import textwrap

    out = []
    for para in text.strip("\n").split("\n\n"):
        first = para.lstrip()[:3]
        if first.startswith(("|", "```", "- ", "_", "#")):
            out.append(para)
        else:
            out.append(textwrap.fill(" ".join(para.split()), width=width, break_on_hyphens=False, break_long_words=False))
    return "\n\n".join(out) + "\n"


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)
