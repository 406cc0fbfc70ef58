//! Where the real model files are: the one lookup of the data folder that
//! scripts/fetch-models.sh fills. A missing file fails the test that needs
//! it (never a skip): the real models are only trusted if checked for real.
//!
//! Overrides, for scripts and odd setups: `RAGGER_TEST_DATA_DIR` (the whole
//! folder), `RAGGER_TEST_GGUF` (the memory model), `RAGGER_TEST_MODEL_DIR`
//! (the embedder's folder), `ORT_DYLIB_PATH` (ONNX Runtime).

use std::path::{Path, PathBuf};

/// The memory model's file, under the data folder.
pub const GGUF: &str = "models/SmolLM2-135M-Instruct.Q4_1.gguf";
/// The embedder's folder, under the data folder.
pub const EMBEDDER_DIR: &str = "models/all-MiniLM-L6-v2";
/// ONNX Runtime, under the data folder.
pub const ONNX_RUNTIME: &str = "lib/libonnxruntime.so";

/// The real data folder of the machine, resolved as ragger does
/// (`$XDG_DATA_HOME/ragger`, else `~/.local/share/ragger`). Read it before a
/// test scrubs the environment of the binary it runs.
pub fn data_dir() -> PathBuf {
    if let Some(d) = env_path("RAGGER_TEST_DATA_DIR") {
        return d;
    }
    if let Some(d) = env_path("XDG_DATA_HOME") {
        return d.join("ragger");
    }
    PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".local/share/ragger")
}

/// Fail (never skip) when a real model file is missing.
#[track_caller]
pub fn require(p: &Path) -> PathBuf {
    assert!(p.exists(), "{} is missing: run scripts/fetch-models.sh first", p.display());
    p.to_path_buf()
}

/// The memory model (SmolLM2), or `RAGGER_TEST_GGUF`; must exist.
#[track_caller]
pub fn gguf() -> PathBuf {
    require(&env_path("RAGGER_TEST_GGUF").unwrap_or_else(|| data_dir().join(GGUF)))
}

/// The embedder's folder, or `RAGGER_TEST_MODEL_DIR`; its model and
/// tokenizer must exist.
#[track_caller]
pub fn embedder_dir() -> PathBuf {
    let dir = env_path("RAGGER_TEST_MODEL_DIR").unwrap_or_else(|| data_dir().join(EMBEDDER_DIR));
    for f in ["model.onnx", "tokenizer.json"] {
        require(&dir.join(f));
    }
    dir
}

/// ONNX Runtime, or `ORT_DYLIB_PATH`; must exist.
#[track_caller]
pub fn onnx_runtime() -> PathBuf {
    require(&env_path("ORT_DYLIB_PATH").unwrap_or_else(|| data_dir().join(ONNX_RUNTIME)))
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}
