#!/usr/bin/env bash
# End-to-end check of the HTTP memory-model path against llama.cpp's own
# OpenAI-compatible server (`llama-server`) serving SmolLM2-135M.
#
#   scripts/e2e-llama-server.sh            # build the server once (minutes), serve, check
#   scripts/e2e-llama-server.sh --setup    # only build the server
#
# The server comes from scripts/llama-server.sh (cached under
# ${XDG_CACHE_HOME:-~/.cache}/ragger). The model comes from
# scripts/fetch-models.sh.
# Environment: RAGGER_E2E_MODEL (a .gguf path), RAGGER_E2E_TIMEOUT (seconds
# to wait for the server, default 120).
set -euo pipefail

data_dir="${XDG_DATA_HOME:-$HOME/.local/share}/ragger"
model="${RAGGER_E2E_MODEL:-$data_dir/models/SmolLM2-135M-Instruct.Q4_1.gguf}"
wait_secs="${RAGGER_E2E_TIMEOUT:-120}"
root="$(cd "$(dirname "$0")/.." && pwd)"

say() { printf 'e2e: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

server="$("$root/scripts/llama-server.sh")" || die "no llama-server"
[ "${1:-}" = "--setup" ] && exit 0

[ -f "$model" ] || die "model not found: $model (run scripts/fetch-models.sh)"

# Build before serving, so the server is not kept waiting on the compiler.
say "building examples/http_roundtrip.rs"
(cd "$root" && cargo build --quiet --no-default-features --example http_roundtrip)

port="$(free_port)"
url="http://127.0.0.1:$port/v1"
log="$(mktemp -t ragger-e2e-server.XXXXXX.log)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -f "$log"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "serving $(basename "$model") on $url"
"$server" --model "$model" --host 127.0.0.1 --port "$port" --ctx-size 2048 --parallel 1 \
    >"$log" 2>&1 &
server_pid=$!

deadline=$((SECONDS + wait_secs))
until curl -fsS "$url/models" >/dev/null 2>&1; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
        tail -n 30 "$log" >&2
        die "server exited before answering"
    fi
    [ "$SECONDS" -lt "$deadline" ] || { tail -n 30 "$log" >&2; die "server did not answer within ${wait_secs}s"; }
    sleep 0.5
done
say "GET /v1/models: $(curl -fsS "$url/models")"

# First with an empty model name (the first listed model is used), then
# with the file name: llama.cpp servers list the model's full path as its id.
cargo_example() {
    (cd "$root" && cargo run --quiet --no-default-features --example http_roundtrip -- "$url" "$1")
}
for name in "" "$(basename "$model")"; do
    out="$(cargo_example "$name")" || die "round trip failed (model ${name:-<first listed>})"
    printf '%s\n' "$out"
    text="$(printf '%s\n' "$out" | sed -n 's/^text: //p')"
    [ -n "$text" ] || die "empty reply text (model ${name:-<first listed>})"
done
say "ok"
