#!/usr/bin/env bash
# The test command (README "Quick start", and what CI runs): installs what
# the tests need on a fresh Debian machine, fetches the real models, then
# runs formatting, lints and the whole test suite in the release profile
# (llama.cpp compiles once per profile, and the demo uses release too).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v clang >/dev/null || need_apt+=(clang)
[ -e /usr/lib/llvm-14/lib/libclang.so ] || ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1 || need_apt+=(libclang-dev)
command -v sqlite3 >/dev/null || need_apt+=(sqlite3)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "test.sh: installing ${need_apt[*]} (apt)" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

scripts/fetch-models.sh -q

cargo fmt --check
cargo clippy --release --all-targets --locked -- -D warnings
cargo test --release --locked

if [ -x scripts/reliability/quick.sh ]; then
    scripts/reliability/quick.sh
fi
