//! The embedder, called as a library, against the real all-MiniLM-L6-v2
//! files and ONNX Runtime (the kit's `models`: fetched by
//! scripts/fetch-models.sh, or named by `RAGGER_TEST_MODEL_DIR` and
//! `ORT_DYLIB_PATH`). Missing files fail these tests: vectors are only
//! trustworthy if they are checked for real.

use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

use ragger::embed::{EmbedError, EmbedOptions, Embedder};
use serde_json::Value;

use crate::support::{fixtures, models};

/// The real model; ONNX Runtime from the data folder's lib/ (or, as ragger
/// does, `ORT_DYLIB_PATH`), which must exist.
fn options(batch_size: usize) -> EmbedOptions {
    models::onnx_runtime();
    let lib_dir = models::data_dir().join("lib");
    EmbedOptions { runtime_path: None, lib_dir, model_dir: models::embedder_dir(), batch_size, threads: 2 }
}

/// One embedder for the binary (ONNX Runtime is process-wide anyway).
fn shared() -> MutexGuard<'static, Embedder> {
    static E: OnceLock<Mutex<Embedder>> = OnceLock::new();
    E.get_or_init(|| Mutex::new(Embedder::load(&options(4)).unwrap_or_else(|e| panic!("{e}"))))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

fn reference() -> Value {
    serde_json::from_str(&fixtures::data("embed_reference.json")).expect("reference JSON")
}

#[test]
fn vectors_match_the_python_onnxruntime_reference() {
    let reference = reference();
    let cases = reference["texts"].as_array().unwrap();
    let texts: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
    let mut e = shared();
    assert_eq!(e.max_seq_length(), reference["max_seq_length"].as_u64().unwrap() as usize);
    // All at once: several batches of 4, padded, sorted by length.
    let got = e.embed(&texts).unwrap();
    assert_eq!(e.dim(), 384);
    let mut worst = (1.0f64, "");
    for (case, v) in cases.iter().zip(&got) {
        let want: Vec<f32> = case["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        assert_eq!(v.len(), want.len());
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");
        let c = cosine(v, &want);
        if c < worst.0 {
            worst = (c, case["text"].as_str().unwrap());
        }
    }
    let short: String = worst.1.chars().take(40).collect();
    eprintln!("min cosine to the reference: {:.9} ({short:?})", worst.0);
    assert!(worst.0 >= 0.9999, "cosine {} < 0.9999 for {:?}", worst.0, worst.1);
}

#[test]
fn batch_results_equal_single_results() {
    let texts = [
        "short",
        "a somewhat longer sentence about the database migration plan",
        "",
        "Ünïcödé ✓ 🚀",
        "The user and the assistant discussed release notes, changelogs and version numbers at length.",
    ];
    let mut e = shared();
    let batched = e.embed(&texts).unwrap();
    for (t, b) in texts.iter().zip(&batched) {
        let single = e.embed(&[t]).unwrap().pop().unwrap();
        let c = cosine(&single, b);
        let max_diff = single.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        assert!(c > 0.99999 && max_diff < 1e-4, "{t:?}: cosine {c}, max diff {max_diff}");
    }
    assert!(e.embed(&[]).unwrap().is_empty());
}

#[test]
fn long_input_is_truncated_at_the_max_sequence_length() {
    let words: Vec<String> = (0..2000).map(|i| format!("word{} topic{}", i % 97, i % 13)).collect();
    let long = words.join(" ");
    let mut e = shared();
    let max = e.max_seq_length();
    // The prefix the model sees: the text up to the end of the last
    // wordpiece that fits beside [CLS] and [SEP].
    let tok = tokenizers::Tokenizer::from_file(options(4).model_dir.join("tokenizer.json")).unwrap();
    let mut tok = tok;
    tok.with_truncation(None).unwrap();
    tok.with_padding(None);
    let enc = tok.encode(long.as_str(), false).unwrap();
    assert!(enc.get_ids().len() > 4 * max, "the test text must be far past the limit");
    let end = enc.get_offsets()[max - 3].1;
    let prefix = &long[..end];
    let v = e.embed(&[long.as_str(), prefix]).unwrap();
    let c = cosine(&v[0], &v[1]);
    assert!(c > 0.9999, "long text vs its first {max} tokens: cosine {c}");
    // And the cut matters: a different later half changes nothing.
    let other = format!("{prefix} completely different ending about volcanoes");
    let w = e.embed(&[other.as_str()]).unwrap();
    assert!(cosine(&v[1], &w[0]) > 0.9999);
}

#[test]
fn missing_model_files_are_unavailable_with_the_hint() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(4);
    o.model_dir = dir.path().join("no-model");
    let err = Embedder::load(&o).unwrap_err();
    assert!(matches!(err, EmbedError::Unavailable(_)), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("model.onnx") && msg.contains("scripts/fetch-models.sh"), "{msg}");
}

/// The real binary with a scrubbed environment rooted in `dir`.
fn ragger(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ragger"));
    c.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("RAGGER_SYSTEM_CONFIG", dir.join("no-system-config.toml"))
        .env("RAGGER_EMBEDDER__MODEL_DIR", options(4).model_dir);
    c
}

/// In a fresh process (ONNX Runtime, once loaded, stays loaded): nothing at
/// runtime_path, no ORT_DYLIB_PATH, an empty data folder → exit 69, and the
/// message names every place it looked and the fix.
#[test]
fn missing_runtime_exits_69_naming_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere/libonnxruntime.so");
    let out = ragger(dir.path(), &["embed", "hello"]).env("RAGGER_EMBEDDER__RUNTIME_PATH", &missing).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(69), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
    assert!(stderr.contains(&dir.path().join("data/ragger/lib/libonnxruntime.so").display().to_string()), "{stderr}");
    assert!(stderr.contains("scripts/fetch-models.sh"), "{stderr}");
}

#[test]
fn embed_command_prints_json_lines_matching_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = models::onnx_runtime();
    let out = ragger(dir.path(), &["embed", "--stdin", "first text"])
        .env("RAGGER_EMBEDDER__RUNTIME_PATH", &runtime)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all("second ✓\nthird\n".as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let texts: Vec<&str> = lines.iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["first text", "second ✓", "third"]);
    let mut e = shared();
    let want = e.embed(&texts).unwrap();
    for (l, w) in lines.iter().zip(&want) {
        let got: Vec<f32> = l["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        assert!(cosine(&got, w) > 0.99999);
    }
}

#[test]
fn embed_without_texts_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = ragger(dir.path(), &["embed"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
