//! The embedder: all-MiniLM-L6-v2 (or any BERT-style sentence model with a
//! `last_hidden_state` output) on ONNX Runtime, loaded at run time; the
//! model id stored beside every vector; lazy loading; `index` keeps the
//! `embeddings` table filled.

pub mod index;
mod model;
pub mod runtime;

use std::fmt;
use std::hash::Hasher;
use std::io::Read;
use std::path::PathBuf;

pub use model::{max_seq_length, Embedder};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedError {
    /// Runtime library or model files missing / unloadable: exit 69.
    Unavailable(String),
    /// Anything else during inference: exit 1.
    Failed(String),
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmbedError::Unavailable(m) => write!(f, "embedder unavailable: {m}"),
            EmbedError::Failed(m) => write!(f, "embedding failed: {m}"),
        }
    }
}

impl std::error::Error for EmbedError {}

impl crate::exit::ExitStatus for EmbedError {
    fn exit(&self) -> crate::exit::Exit {
        match self {
            EmbedError::Unavailable(_) => crate::exit::Exit::Unavailable,
            EmbedError::Failed(_) => crate::exit::Exit::Failed,
        }
    }
}

/// Resolved options (the caller fills defaults from config and paths).
#[derive(Clone, Debug)]
pub struct EmbedOptions {
    /// `[embedder] runtime_path`, if set.
    pub runtime_path: Option<PathBuf>,
    /// Folder searched for `libonnxruntime.so*` after runtime_path and ORT_DYLIB_PATH.
    pub lib_dir: PathBuf,
    /// Folder with model.onnx + tokenizer.json.
    pub model_dir: PathBuf,
    pub batch_size: usize,
    /// `[embedder] threads`: 0 means one per core, counted when the model
    /// loads (counting reads cgroup files, which a run that embeds nothing
    /// need not).
    pub threads: usize,
}

/// The id stored with every vector: the model folder's name and a hash of
/// model.onnx's size, its first MiB and the max sequence length. Cheap (no
/// runtime, no full read), so `status` can count stale vectors. None when
/// model.onnx cannot be read.
pub fn model_id_for(opts: &EmbedOptions) -> Option<String> {
    let path = opts.model_dir.join("model.onnx");
    let mut file = std::fs::File::open(&path).ok()?;
    let size = file.metadata().ok()?.len();
    let mut head = Vec::with_capacity(1 << 20);
    file.by_ref().take(1 << 20).read_to_end(&mut head).ok()?;
    // FNV-1a: stable across builds and platforms (std's hasher is not),
    // so ids stored by one build match the next.
    let mut h = fnv::FnvHasher::default();
    h.write(&size.to_le_bytes());
    h.write(&(max_seq_length(&opts.model_dir) as u64).to_le_bytes());
    h.write(&head);
    let name = opts.model_dir.file_name().and_then(|n| n.to_str()).unwrap_or("model");
    Some(format!("{name}:{:016x}", h.finish()))
}

/// Loads the embedder on first use and keeps it (or the error) for the rest
/// of the run, so a run loads at most once and one with no work loads nothing.
#[derive(Debug, Default)]
pub struct LazyEmbedder {
    state: Option<Result<Embedder, EmbedError>>,
}

impl LazyEmbedder {
    pub fn new() -> LazyEmbedder {
        LazyEmbedder::default()
    }

    /// The embedder, loading it now if this is the first call.
    pub fn get(&mut self, opts: &EmbedOptions) -> Result<&mut Embedder, EmbedError> {
        let state = self.state.get_or_insert_with(|| Embedder::load(opts));
        match state {
            Ok(e) => Ok(e),
            Err(e) => Err(e.clone()),
        }
    }

    /// Whether a load was attempted (successfully or not).
    pub fn tried(&self) -> bool {
        self.state.is_some()
    }

    /// The loaded embedder, if any, without loading.
    pub fn loaded(&mut self) -> Option<&mut Embedder> {
        self.state.as_mut().and_then(|s| s.as_mut().ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(dir: &std::path::Path) -> EmbedOptions {
        EmbedOptions {
            runtime_path: None,
            lib_dir: dir.join("lib"),
            model_dir: dir.join("m"),
            batch_size: 4,
            threads: 1,
        }
    }

    #[test]
    fn model_id_changes_with_the_model_file_and_needs_no_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let o = opts(dir.path());
        assert_eq!(model_id_for(&o), None);
        std::fs::create_dir_all(&o.model_dir).unwrap();
        std::fs::write(o.model_dir.join("model.onnx"), b"one").unwrap();
        let a = model_id_for(&o).unwrap();
        // FNV-1a 64 of (size 3, max length 512, "one"), as every earlier
        // build stored it: the id must not change with the hasher's code.
        assert_eq!(a, "m:5abe7b0b5b5d7274");
        assert_eq!(model_id_for(&o).unwrap(), a);
        std::fs::write(o.model_dir.join("model.onnx"), b"two").unwrap();
        assert_ne!(model_id_for(&o).unwrap(), a);
    }

    #[test]
    fn max_seq_length_prefers_sentence_bert_config_capped_by_positions() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(max_seq_length(dir.path()), 512);
        std::fs::write(dir.path().join("config.json"), r#"{"max_position_embeddings": 384}"#).unwrap();
        assert_eq!(max_seq_length(dir.path()), 384);
        std::fs::write(dir.path().join("sentence_bert_config.json"), r#"{"max_seq_length": 256}"#).unwrap();
        assert_eq!(max_seq_length(dir.path()), 256);
        std::fs::write(dir.path().join("sentence_bert_config.json"), r#"{"max_seq_length": 1024}"#).unwrap();
        assert_eq!(max_seq_length(dir.path()), 384);
    }

    #[test]
    fn lazy_embedder_remembers_a_failed_load() {
        let dir = tempfile::tempdir().unwrap();
        let o = opts(dir.path());
        let mut slot = LazyEmbedder::new();
        assert!(!slot.tried());
        let err = slot.get(&o).unwrap_err();
        assert!(matches!(err, EmbedError::Unavailable(_)), "{err}");
        assert!(err.to_string().contains("fetch-models.sh"), "{err}");
        assert!(slot.tried());
        assert!(slot.loaded().is_none());
    }
}
