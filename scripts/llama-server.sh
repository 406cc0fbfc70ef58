#!/usr/bin/env bash
# Print the path of llama.cpp's own `llama-server`, building it first if it
# is not there yet. Used by scripts/bench/local-model.sh and
# scripts/e2e-llama-server.sh.
#
# It is built once from the llama.cpp source that the PyPI sdist of
# llama-cpp-python vendors (pinned, sha256-checked; about 3 minutes on 2
# cores; needs cmake and a C++ compiler), with the same CPU flags as
# ragger's own llama.cpp (GGML_NATIVE off: AVX2, FMA, F16C), without the
# web UI, statically linked, into ${XDG_CACHE_HOME:-~/.cache}/ragger/llama-server.
#
# Usage: scripts/llama-server.sh        # prints the binary's path on stdout
set -euo pipefail

prog=llama-server.sh
die() { echo "$prog: $*" >&2; exit 1; }

cache_home=${XDG_CACHE_HOME:-}
[[ -n $cache_home ]] || cache_home=$HOME/.cache
dir=$cache_home/ragger/llama-server
bin=$dir/bin/llama-server
# Pinned so that what is compared and tested is repeatable.
sdist_pkg='llama-cpp-python==0.3.36'
sdist_file='llama_cpp_python-0.3.36.tar.gz'
sdist_sha256='832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e'

if [[ ! -x $bin ]]; then
  mkdir -p "$dir"
  # One build at a time, however many scripts ask.
  exec 9>"$dir/build.lock"
  flock 9
  if [[ ! -x $bin ]]; then
    command -v cmake >/dev/null || die "cmake is needed to build llama-server (apt install cmake)"
    work=$dir/src
    rm -rf "$work" && mkdir -p "$work"
    echo "$prog: building llama-server from the llama.cpp in $sdist_pkg (once; minutes)" >&2
    pip download -q --no-deps --no-binary :all: "$sdist_pkg" -d "$work" || die "cannot download $sdist_pkg"
    echo "$sdist_sha256  $work/$sdist_file" | sha256sum -c --quiet - || die "checksum mismatch: $work/$sdist_file"
    tar xzf "$work/$sdist_file" -C "$work"
    src=$work/${sdist_file%.tar.gz}/vendor/llama.cpp
    # No web UI and nothing from the network: the UI would be fetched at build time.
    cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF >"$dir/build.log" 2>&1 ||
      die "cmake configure failed (log: $dir/build.log)"
    cmake --build "$work/build" --target llama-server -j "$(nproc)" >>"$dir/build.log" 2>&1 ||
      die "llama-server build failed (log: $dir/build.log)"
    mkdir -p "$dir/bin"
    cp "$work/build/bin/llama-server" "$bin.tmp" && mv "$bin.tmp" "$bin"
    rm -rf "$work"
  fi
  flock -u 9
fi
echo "$bin"
