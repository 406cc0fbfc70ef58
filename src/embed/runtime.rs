//! Finding and loading the ONNX Runtime shared library, once per process.
//!
//! Order: `[embedder] runtime_path`, `ORT_DYLIB_PATH`, then
//! `libonnxruntime.so*` in the data folder's `lib/`. Paths that do not exist
//! are skipped before ort is asked to load anything: ort falls back to the
//! system's library search (and panics if that fails) when no library has
//! been loaded, so no ort API may be touched until one has.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::environment::Environment;

use super::{EmbedError, EmbedOptions};

/// The hint every "not found" message ends with.
pub fn install_hint() -> String {
    format!("run {} (or set [embedder] runtime_path / ORT_DYLIB_PATH)", crate::paths::fetch_command())
}

/// ort allows one environment per process and loads one library per process.
struct Loaded {
    env: Environment,
    path: PathBuf,
}

static LOADED: Mutex<Option<Loaded>> = Mutex::new(None);

/// The places searched, in order, with the ones that exist marked.
pub fn candidates(opts: &EmbedOptions) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = &opts.runtime_path {
        out.push(p.clone());
    }
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        out.push(PathBuf::from(p));
    }
    out.push(opts.lib_dir.join("libonnxruntime.so"));
    // Versioned names (libonnxruntime.so.1.31.1), newest last so it is tried
    // after the unversioned link; without the link any version will do.
    if let Ok(rd) = std::fs::read_dir(&opts.lib_dir) {
        let mut versioned: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libonnxruntime.so.") && !n.ends_with(".tmp"))
            })
            .collect();
        versioned.sort();
        versioned.reverse();
        out.extend(versioned);
    }
    out
}

/// Load the library (first candidate that loads) and build the process-wide
/// environment; later calls return the same one.
pub fn environment(opts: &EmbedOptions) -> Result<(Environment, PathBuf), EmbedError> {
    let mut guard = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = guard.as_ref() {
        return Ok((l.env.clone(), l.path.clone()));
    }
    let mut tried = Vec::new();
    for path in candidates(opts) {
        if !path.exists() {
            tried.push(format!("{} (not found)", path.display()));
            continue;
        }
        match load(&path) {
            Ok(env) => {
                *guard = Some(Loaded { env: env.clone(), path: path.clone() });
                return Ok((env, path));
            }
            Err(e) => tried.push(format!("{} ({e})", path.display())),
        }
    }
    Err(EmbedError::Unavailable(format!(
        "cannot load the ONNX Runtime library; looked at: {}; {}",
        tried.join(", "),
        install_hint()
    )))
}

fn load(path: &Path) -> Result<Environment, String> {
    let builder = ort::init_from(path).map_err(|e| e.to_string())?;
    builder.with_name("ragger").with_telemetry(false).build().map_err(|e| e.to_string())
}
