//! The sentence-embedding model: tokenizer + ONNX session, mean pooling,
//! L2 normalisation.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ort::session::{builder::GraphOptimizationLevel, Session, SessionInputValue};
use ort::value::Tensor;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::{model_id_for, runtime, EmbedError, EmbedOptions};

/// Used when the model folder has no `sentence_bert_config.json`: BERT's
/// position limit.
const FALLBACK_MAX_SEQ: usize = 512;

/// The tensors a BERT-style model may declare as inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    Ids,
    Mask,
    TypeIds,
}

pub struct Embedder {
    session: Session,
    tokenizer: Tokenizer,
    inputs: Vec<(String, Input)>,
    output: String,
    pad_id: i64,
    max_seq_length: usize,
    batch_size: usize,
    dim: usize,
    model_id: String,
    runtime: PathBuf,
    load_time: Duration,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("model_id", &self.model_id).field("runtime", &self.runtime).finish()
    }
}

/// Model files missing or unusable.
fn unavailable(what: &str, path: &Path, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Unavailable(format!("{what} {}: {e}; {}", path.display(), model_hint()))
}

fn model_hint() -> String {
    format!("run {} (or set [embedder] model_dir)", crate::paths::fetch_command())
}

fn failed(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Failed(e.to_string())
}

impl Embedder {
    /// Load the runtime library, the tokenizer and the model. Missing or
    /// unreadable files are `Unavailable`; the message names them.
    pub fn load(opts: &EmbedOptions) -> Result<Embedder, EmbedError> {
        let start = Instant::now();
        let model_path = opts.model_dir.join("model.onnx");
        let tok_path = opts.model_dir.join("tokenizer.json");
        for p in [&model_path, &tok_path] {
            if !p.is_file() {
                return Err(EmbedError::Unavailable(format!("model file {} not found; {}", p.display(), model_hint())));
            }
        }
        let model_id = model_id_for(opts).ok_or_else(|| unavailable("cannot read", &model_path, "unreadable"))?;
        let max_seq_length = max_seq_length(&opts.model_dir);

        let mut tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| unavailable("cannot read tokenizer", &tok_path, e))?;
        // The shipped tokenizer.json pads and truncates at a fixed 128; we
        // truncate at the model's limit and pad each batch ourselves.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_seq_length,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| unavailable("bad tokenizer", &tok_path, e))?;
        let pad_id =
            tokenizer.get_padding().map(|p| p.pad_id).or_else(|| tokenizer.token_to_id("[PAD]")).unwrap_or(0) as i64;
        tokenizer.with_padding(None);

        let (env, runtime) = runtime::environment(opts)?;
        let threads = crate::config::Config::threads(opts.threads);
        // Graph optimisation roughly doubled session creation (~250 ms) and
        // bought no measurable throughput on the quantised MiniLM; every
        // `ragger search` pays the load, so skip it.
        let session = Session::builder(&env)
            .and_then(|b| b.with_optimization_level(GraphOptimizationLevel::Disable).map_err(Into::into))
            .and_then(|b| b.with_intra_threads(threads).map_err(Into::into))
            .and_then(|b| b.with_inter_threads(1).map_err(Into::into))
            // A memory pattern is planned and kept for every input shape;
            // texts come in every length, so it only grew the process (64
            // texts of 256 tokens, batches of 4: peak RSS 288 → 192 MiB,
            // no slower; BENCHMARKS.md "Embedder memory by batch size").
            .and_then(|b| b.with_memory_pattern(false).map_err(Into::into))
            .and_then(|mut b| b.commit_from_file(&model_path))
            .map_err(|e| unavailable("cannot load model", &model_path, e))?;

        let mut inputs = Vec::new();
        for i in session.inputs() {
            let kind = match i.name() {
                "input_ids" => Input::Ids,
                "attention_mask" => Input::Mask,
                "token_type_ids" => Input::TypeIds,
                other => {
                    return Err(unavailable(
                        "unsupported model",
                        &model_path,
                        format!("unknown input {other:?} (want input_ids, attention_mask, token_type_ids)"),
                    ))
                }
            };
            inputs.push((i.name().to_string(), kind));
        }
        if !inputs.iter().any(|(_, k)| *k == Input::Ids) {
            return Err(unavailable("unsupported model", &model_path, "no input_ids input"));
        }
        let out = session
            .outputs()
            .iter()
            .find(|o| o.name() == "last_hidden_state")
            .or_else(|| session.outputs().first())
            .ok_or_else(|| unavailable("unsupported model", &model_path, "no outputs"))?;
        let dim = match out.dtype() {
            ort::value::ValueType::Tensor { shape, .. } => {
                shape.last().copied().filter(|d| *d > 0).unwrap_or(0) as usize
            }
            _ => 0,
        };
        let output = out.name().to_string();

        Ok(Embedder {
            session,
            tokenizer,
            inputs,
            output,
            pad_id,
            max_seq_length,
            batch_size: opts.batch_size.max(1),
            dim,
            model_id,
            runtime,
            load_time: start.elapsed(),
        })
    }

    /// Stored beside every vector; see `model_id_for`.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Vector length (0 until known when the model's output shape is dynamic).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Tokens kept per text, counting [CLS] and [SEP].
    pub fn max_seq_length(&self) -> usize {
        self.max_seq_length
    }

    /// The ONNX Runtime library in use.
    pub fn runtime_path(&self) -> &Path {
        &self.runtime
    }

    /// How long `load` took.
    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    /// One unit vector per text, in order. Texts are grouped by token count
    /// into batches of `batch_size`, so a batch pads little.
    pub fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings =
            self.tokenizer.encode_batch(texts.to_vec(), true).map_err(|e| failed(format!("tokenizing: {e}")))?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(self.batch_size) {
            let batch: Vec<&tokenizers::Encoding> = chunk.iter().map(|&i| &encodings[i]).collect();
            let vectors = self.run_batch(&batch)?;
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn run_batch(&mut self, batch: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let rows = batch.len();
        let len = batch.iter().map(|e| e.get_ids().len()).max().unwrap_or(0).max(1);
        let mut ids = vec![self.pad_id; rows * len];
        let mut mask = vec![0i64; rows * len];
        let mut types = vec![0i64; rows * len];
        for (r, e) in batch.iter().enumerate() {
            let base = r * len;
            for (j, (&id, &ty)) in e.get_ids().iter().zip(e.get_type_ids()).enumerate() {
                ids[base + j] = id as i64;
                types[base + j] = ty as i64;
                mask[base + j] = 1;
            }
        }
        let shape = [rows as i64, len as i64];
        let mut values: Vec<(Cow<'_, str>, SessionInputValue<'_>)> = Vec::with_capacity(self.inputs.len());
        for (name, kind) in &self.inputs {
            let data = match kind {
                Input::Ids => ids.clone(),
                Input::Mask => mask.clone(),
                Input::TypeIds => types.clone(),
            };
            let t = Tensor::from_array((shape, data)).map_err(failed)?;
            values.push((Cow::Owned(name.clone()), t.into()));
        }
        let outputs = self.session.run(values).map_err(failed)?;
        let (oshape, hidden) = outputs[self.output.as_str()].try_extract_tensor::<f32>().map_err(failed)?;
        if oshape.len() != 3 || oshape[0] as usize != rows || oshape[1] as usize != len {
            return Err(failed(format!(
                "output {:?} has shape {:?}, want [batch {rows}, sequence {len}, dim]",
                self.output,
                &oshape[..]
            )));
        }
        let dim = oshape[2] as usize;
        self.dim = dim;
        let mut result = Vec::with_capacity(rows);
        for r in 0..rows {
            let mut v = vec![0f32; dim];
            let mut count = 0f32;
            for j in 0..len {
                if mask[r * len + j] == 0 {
                    continue;
                }
                count += 1.0;
                let row = &hidden[(r * len + j) * dim..(r * len + j + 1) * dim];
                for (a, b) in v.iter_mut().zip(row) {
                    *a += b;
                }
            }
            let count = count.max(1e-9);
            v.iter_mut().for_each(|a| *a /= count);
            let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|a| *a /= norm);
            result.push(v);
        }
        Ok(result)
    }
}

/// `max_seq_length` from sentence_bert_config.json, capped by the model's
/// position limit from config.json; 512 when neither says.
pub fn max_seq_length(model_dir: &Path) -> usize {
    let read = |name: &str, key: &str| -> Option<usize> {
        let text = std::fs::read_to_string(model_dir.join(name)).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v.get(key)?.as_u64().map(|n| n as usize).filter(|n| *n > 0)
    };
    let positions = read("config.json", "max_position_embeddings");
    let wanted = read("sentence_bert_config.json", "max_seq_length").or(positions).unwrap_or(FALLBACK_MAX_SEQ);
    positions.map_or(wanted, |p| wanted.min(p))
}
