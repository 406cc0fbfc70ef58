#!/usr/bin/env python3
"""An OpenAI-compatible memory model that answers at once and extractively,
for benchmarks that measure the pipeline, not the model (standard library only).

    python3 scripts/bench/extractive_server.py [--port P] [--words N]

Prints `URL http://127.0.0.1:PORT/v1` as its first line on stdout (the base
URL for `[memory_model] backend = "openai"`), then serves
`GET /v1/models` and `POST /v1/chat/completions` until SIGTERM/SIGINT, and
prints `CALLS N` on stderr when it stops.

Replies: the first N words (default 30) of the material in the last user
message: for a turn prompt ("User: ... Assistant: ..."), the user's and the
assistant's text; for a fold prompt, the running summary and the new items.
It never answers NO_MERGE, so a topic split seen with it comes from ragger's
own segmenter (or a size rollover), not from the model.
"""
import argparse
import json
import re
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALLS = 0
LOCK = threading.Lock()
MODEL = "extractive"


def material(prompt: str) -> str:
    """The parts of a prompt that are conversation, not instructions."""
    parts = []
    running = re.search(r"Running summary:\n(.*?)\n\n", prompt, re.S)
    if running:
        parts.append(running.group(1))
    bullets = [line[2:] for line in prompt.splitlines() if line.startswith("- ")]
    if bullets:
        parts.extend(bullets)
    if not parts:
        m = re.search(r"User:(.*?)(?:\n\nAssistant:(.*))?$", prompt, re.S)
        if m:
            parts.append(m.group(1))
            if m.group(2):
                parts.append(m.group(2))
    if not parts:
        parts.append(prompt)
    return " ".join(p.strip() for p in parts)


def reply_text(body: dict, n_words: int) -> str:
    messages = body.get("messages") or []
    last = ""
    for m in messages:
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):
                c = "".join(p.get("text", "") for p in c if isinstance(p, dict))
            last = c or ""
    words = material(last).split()
    text = " ".join(words[:n_words]) or "Nothing was said."
    if text.strip().upper().startswith("NO_MERGE"):
        text = "Summary: " + text
    return text


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    n_words = 30

    def log_message(self, *args):  # quiet
        pass

    def send_json(self, code: int, obj: dict) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self):
        global CALLS
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self.send_json(400, {"error": {"message": "body is not JSON"}})
            return
        with LOCK:
            CALLS += 1
        text = reply_text(body, self.n_words)
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages") or [])
        self.send_json(
            200,
            {
                "id": "chatcmpl-extractive",
                "object": "chat.completion",
                "model": MODEL,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": len(text.split()),
                    "total_tokens": prompt_tokens + len(text.split()),
                },
            },
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--words", type=int, default=30)
    a = ap.parse_args()
    Handler.n_words = a.words
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.daemon_threads = True

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"URL http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()
    print(f"CALLS {CALLS}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
