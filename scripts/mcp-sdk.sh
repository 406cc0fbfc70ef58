#!/usr/bin/env bash
# `ragger mcp` driven by the official MCP Python SDK's client (issue 34):
# every tool listed and called with typed arguments, each result checked
# against its outputSchema by the SDK. The SDK is installed, pinned, into
# a venv beside the build (PyPI).
#
# Usage: scripts/mcp-sdk.sh [RAGGER_BINARY]   (default: the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
bin=${1:-$target/release/ragger}
[[ -x $bin ]] || { echo "mcp-sdk.sh: no ragger binary at $bin (cargo build --release)" >&2; exit 1; }
venv=$target/mcp-sdk-venv
sdk="mcp==2.3.0"
if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != sys.argv[1])' "${sdk#mcp==}" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$sdk"
fi
exec "$venv/bin/python" scripts/mcp-sdk.py "$bin"
