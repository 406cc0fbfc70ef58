//! The `local` memory model against the real SmolLM2 GGUF (fetched by
//! scripts/fetch-models.sh into the data folder, or named by
//! `RAGGER_TEST_GGUF`). A missing model fails these tests: the local backend
//! is the default and must be exercised for real.
#![cfg(feature = "local")]

use std::path::PathBuf;
use std::sync::OnceLock;

use ragger::llm::local::{LocalModel, LocalOptions};
use ragger::llm::{complete, MemoryModel, Message, ModelError, Request};
use ragger::paths::Paths;
use ragger::pipeline::prompts::turn_summary;

fn gguf() -> PathBuf {
    let path = match std::env::var_os("RAGGER_TEST_GGUF").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => Paths::from_env().expect("data folder").default_gguf(),
    };
    assert!(
        path.is_file(),
        "test model {} is missing: run scripts/fetch-models.sh (or set RAGGER_TEST_GGUF)",
        path.display()
    );
    path
}

fn options(model_path: PathBuf) -> LocalOptions {
    LocalOptions {
        model_path,
        // Tests run in parallel (with other test binaries too); llama.cpp's
        // spinning worker threads crawl when there are more than cores.
        threads: 1,
        context_tokens: 2048,
        seed: 7,
        verbose_log: false,
    }
}

/// One model for the whole test binary, loaded once; calls are serialised
/// by the model itself.
fn shared() -> &'static LocalModel {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    MODEL.get_or_init(|| LocalModel::new(options(gguf())))
}

fn summary_request(temperature: f32, max_tokens: u32) -> Request {
    Request {
        messages: vec![
            Message::system("You write one-sentence summaries of conversation turns."),
            Message::user(
                "Summarize this turn in one sentence, in the third person.\n\n\
                 User: How do I list the files in a folder with Python?\n\n\
                 Assistant: Use os.listdir(path), or pathlib.Path(path).iterdir() for Path \
                 objects.\n\nOne-sentence summary:",
            ),
        ],
        temperature,
        max_tokens,
        stop: Vec::new(),
    }
}

#[test]
fn completion_is_non_empty_and_cleaned() {
    let reply = complete(shared(), &summary_request(0.0, 60)).expect("completion");
    assert!(!reply.text.trim().is_empty());
    assert!(!reply.text.contains("<|im_end|>") && !reply.text.contains("<|im_start|>"), "{:?}", reply.text);
    let usage = reply.usage;
    assert!(usage.prompt_tokens.unwrap() > 20, "{usage:?}");
    assert!(usage.completion_tokens.unwrap() >= 1, "{usage:?}");
}

#[test]
fn temperature_zero_is_deterministic_across_calls_and_loads() {
    let req = summary_request(0.0, 40);
    // Prompts that differ early (nothing reusable) and late (the first
    // batch reusable).
    let mut early = summary_request(0.0, 40);
    early.messages[1].content = early.messages[1].content.replace("Python", "Rust");
    let mut late = summary_request(0.0, 40);
    late.messages[1].content = late.messages[1].content.replace("iterdir()", "glob(\"*\")");
    // A fresh model evaluates the prompt from scratch; later calls reuse the
    // cached prefix of whatever came before. The answer must not change.
    let model = LocalModel::new(options(gguf()));
    let first = model.generate(&req).expect("first");
    let again = model.generate(&req).expect("again");
    model.generate(&early).expect("early");
    let after_early = model.generate(&req).expect("after early");
    let late_reply = model.generate(&late).expect("late");
    assert!(late_reply.usage.prompt_evaluated < late_reply.usage.prompt_tokens, "{:?}", late_reply.usage);
    let after_late = model.generate(&req).expect("after late");
    let shared_model = shared().generate(&req).expect("shared model");
    assert_eq!(first.text, again.text);
    assert_eq!(first.text, after_early.text);
    assert_eq!(first.text, after_late.text);
    assert_eq!(first.text, shared_model.text);
}

#[test]
fn same_seed_gives_the_same_sample() {
    let req = summary_request(0.8, 30);
    let a = shared().generate(&req).expect("a");
    let b = shared().generate(&req).expect("b");
    assert_eq!(a.text, b.text);
}

#[test]
fn a_shared_prompt_prefix_is_evaluated_once_and_timed() {
    let model = LocalModel::new(options(gguf()));
    let req = summary_request(0.0, 8);
    let cold = model.generate(&req).expect("cold").usage;
    let warm = model.generate(&req).expect("warm").usage;
    let n = cold.prompt_tokens.unwrap();
    assert_eq!(cold.prompt_evaluated, Some(n), "a fresh model evaluates the whole prompt");
    // The system message (the earlier messages) is kept; the last message
    // is evaluated again.
    let evaluated = warm.prompt_evaluated.unwrap();
    assert!(evaluated > 0 && evaluated < n - 10, "{warm:?}");
    for usage in [&cold, &warm] {
        assert!(usage.prompt_time.is_some_and(|t| !t.is_zero()), "{usage:?}");
        assert!(usage.generation_time.is_some_and(|t| !t.is_zero()), "{usage:?}");
    }
}

#[test]
fn turn_summary_prompts_share_the_reusable_first_batch() {
    // The pipeline's own L2 prompts for two unrelated turns: everything but
    // the turn itself is reused (instructions and examples come first, in
    // messages of their own; a rewrite could silently lose this).
    let model = LocalModel::new(options(gguf()));
    let ask = |user: &str, assistant: &str| Request {
        messages: turn_summary(user, assistant, 3000),
        temperature: 0.0,
        max_tokens: 4,
        stop: Vec::new(),
    };
    model.generate(&ask("Why does cron not see my PATH?", "Cron starts jobs with a minimal environment.")).unwrap();
    let second = model.generate(&ask("Zip a folder in Python?", "Use shutil.make_archive.")).unwrap().usage;
    let (evaluated, n) = (second.prompt_evaluated.unwrap(), second.prompt_tokens.unwrap());
    assert!(evaluated * 2 < n, "most of an L2 prompt is its shared opening: {second:?}");
}

#[test]
fn max_tokens_is_respected() {
    for max in [1, 5] {
        let reply = shared().generate(&summary_request(0.0, max)).expect("reply");
        let n = reply.usage.completion_tokens.unwrap();
        assert!(n <= max, "{n} tokens for max_tokens {max}");
    }
}

#[test]
fn generation_stops_at_a_stop_string() {
    let mut req = summary_request(0.0, 60);
    req.stop = vec![" ".to_string()];
    let reply = shared().generate(&req).expect("reply");
    assert!(!reply.text.contains(' '), "{:?}", reply.text);
}

#[test]
fn too_long_prompt_is_a_bad_reply_and_the_model_still_works() {
    let mut req = summary_request(0.0, 40);
    req.messages[1].content = "memory ".repeat(3000);
    match shared().generate(&req) {
        Err(ModelError::BadReply(m)) => assert!(m.contains("exceeds the context of 2048"), "{m}"),
        other => panic!("expected a bad reply, got {other:?}"),
    }
    assert!(shared().generate(&summary_request(0.0, 10)).is_ok());
}

#[test]
fn missing_file_is_unavailable_and_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.gguf");
    let model = LocalModel::new(options(path.clone()));
    for result in [model.preflight().map(drop), model.generate(&summary_request(0.0, 5)).map(drop)] {
        match result {
            Err(ModelError::Unavailable(m)) => assert!(m.contains(&path.display().to_string()), "{m}"),
            other => panic!("expected unavailable, got {other:?}"),
        }
    }
}

#[test]
fn corrupt_file_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    // Random bytes, and a file with the right magic but garbage after it
    // (which gets past preflight to llama.cpp's own loader).
    let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut magic = b"GGUF".to_vec();
    magic.extend_from_slice(&random);
    for (name, bytes) in [("random.gguf", random), ("magic.gguf", magic)] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let model = LocalModel::new(options(path.clone()));
        match model.generate(&summary_request(0.0, 5)) {
            Err(ModelError::Unavailable(m)) => assert!(m.contains(name), "{m}"),
            other => panic!("{name}: expected unavailable, got {other:?}"),
        }
    }
}

#[test]
fn nothing_is_loaded_before_the_first_call() {
    let model = LocalModel::new(options(gguf()));
    model.preflight().expect("preflight");
    assert!(model.load_time().is_none());
    let id = model.model_id();
    assert!(id.starts_with("local:") && id.ends_with(".gguf"), "{id}");
}
