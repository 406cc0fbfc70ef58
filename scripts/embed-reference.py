#!/usr/bin/env python3
"""Reference sentence embeddings computed with the Python `onnxruntime` and
`tokenizers` packages, independently of ragger's Rust code, on the same
model files.

Two uses:

  generate   write tests/data/embed_reference.json, the vectors
             tests/cli/embedder.rs compares ragger's against (cosine >= 0.9999);
  bench      embed one text per line of a file the way ragger does (sorted
             by length, batches padded to their longest member) and print
             timings as JSON, for scripts/bench/embed.sh.

Setup (once, in a virtual environment):

  python3 -m venv .venv-embed
  .venv-embed/bin/pip install onnxruntime==1.31.1 tokenizers numpy
  scripts/fetch-models.sh --only embedder
  .venv-embed/bin/python scripts/embed-reference.py generate

The model folder defaults to the one scripts/fetch-models.sh fills:
${XDG_DATA_HOME:-~/.local/share}/ragger/models/all-MiniLM-L6-v2.
"""

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# Short, long (past 256 tokens), non-ASCII, emoji, empty-ish, code, and a
# text containing the tokenizer's own special-token strings.
LONG = " ".join(
    f"Step {i}: the user asked why the nightly backup job failed and the assistant "
    f"traced it to a full disk on the database host." for i in range(1, 31)
)
TEXTS = [
    "The user asked how to rotate the SQLite write-ahead log.",
    "a",
    " ",
    "",
    LONG,
    "Der Nutzer möchte wissen, warum die Übersetzung für «Straße» fehlschlägt; café, naïve, Ελληνικά, 日本語のテキスト。",
    "Deploy went fine 🚀🔥 but the tests are flaky 😅 — retry? 👍🏽",
    "fn main() { println!(\"{}\", vec![1, 2, 3].iter().sum::<i32>()); } // Rust code",
    "SHOUTING ABOUT KUBERNETES PODS AND CrashLoopBackOff ERRORS!!!",
    "[CLS] literal special tokens [SEP] inside [PAD] the text [UNK]",
    "The assistant summarised the meeting: budget approved, launch moved to March, hiring freeze lifted.",
]


def default_model_dir() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "ragger" / "models" / "all-MiniLM-L6-v2"


def max_seq_length(model_dir: Path) -> int:
    def read(name, key):
        try:
            return int(json.loads((model_dir / name).read_text())[key])
        except (OSError, KeyError, ValueError, TypeError):
            return None

    positions = read("config.json", "max_position_embeddings")
    wanted = read("sentence_bert_config.json", "max_seq_length") or positions or 512
    return min(wanted, positions) if positions else wanted


class Reference:
    def __init__(self, model_dir: Path, threads: int):
        start = time.perf_counter()
        self.max_len = max_seq_length(model_dir)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The shipped tokenizer.json pads and truncates at a fixed 128.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_len)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]
        outputs = [o.name for o in self.session.get_outputs()]
        self.output = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
        self.load_seconds = time.perf_counter() - start

    def run(self, encodings, dtype=np.float32):
        """Mean-pooled, L2-normalised vectors for encodings padded to the longest."""
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self.session.run([self.output], {k: feeds[k] for k in self.input_names})[0].astype(dtype)
        weights = mask[:, :, None].astype(dtype)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def generate(args):
    ref = Reference(args.model_dir, args.threads)
    model = args.model_dir / "model.onnx"
    entries = []
    for text in TEXTS:
        # One text per run: no padding can influence the reference.
        encoding = ref.tokenizer.encode(text)
        vector = ref.run([encoding], dtype=np.float64)[0]
        entries.append({"text": text, "tokens": len(encoding.ids), "embedding": [round(float(x), 8) for x in vector]})
    out = {
        "generator": "scripts/embed-reference.py",
        "onnxruntime": ort.__version__,
        "model_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
        "max_seq_length": ref.max_len,
        "dim": len(entries[0]["embedding"]),
        "texts": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(entries)} reference vectors to {args.out}", file=sys.stderr)


def bench(args):
    texts = Path(args.texts).read_text().splitlines()
    ref = Reference(args.model_dir, args.threads)
    start = time.perf_counter()
    encodings = ref.tokenizer.encode_batch(texts)
    order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
    vectors = [None] * len(texts)
    for first in range(0, len(order), args.batch_size):
        chunk = order[first : first + args.batch_size]
        for i, v in zip(chunk, ref.run([encodings[i] for i in chunk])):
            vectors[i] = v
    seconds = time.perf_counter() - start
    tokens = sum(len(e.ids) for e in encodings)
    print(json.dumps({"texts": len(texts), "tokens": tokens, "load_ms": ref.load_seconds * 1000, "embed_ms": seconds * 1000}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, default=default_model_dir())
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write the reference vectors")
    g.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "tests/data/embed_reference.json")
    b = sub.add_parser("bench", help="time embedding one text per line of a file")
    b.add_argument("texts")
    b.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    if not (args.model_dir / "model.onnx").is_file():
        sys.exit(f"embed-reference: no model.onnx in {args.model_dir}; run scripts/fetch-models.sh")
    {"generate": generate, "bench": bench}[args.command](args)


if __name__ == "__main__":
    main()
