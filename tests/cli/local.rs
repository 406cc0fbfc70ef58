//! End to end on the embedded defaults: the local llama.cpp memory model and
//! the real embedder, no server anywhere.

use crate::support::{minutes_ago, real_data_dir, require_real_file, Env};

fn local_env() -> Env {
    let gguf = require_real_file(&real_data_dir().join("models/SmolLM2-135M-Instruct.Q4_1.gguf"));
    Env::new().real_embedder().with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\nthreads = 2\n\
         [summaries]\nmax_tokens = 60\ntemperature = 0.0",
        gguf.display()
    ))
}

#[test]
fn local_model_summarizes_every_turn_and_the_session_and_every_summary_gets_a_vector() {
    let env = local_env();
    let at = minutes_ago(30);
    env.capture(
        "s",
        "How do I list files in a folder with Python?",
        "Use os.listdir(path).",
        &["--project", "p", "--at", &at],
    )
    .ok();
    env.capture(
        "s",
        "And how do I sort them by size?",
        "Use sorted(paths, key=os.path.getsize).",
        &["--project", "p", "--at", &at],
    )
    .ok();
    let r = env.run(&["housekeeping", "--json"]).ok().json();
    assert_eq!(r["summarized"]["l2"], 2, "{r}");
    assert_eq!(r["closed_sessions"], 1);
    let show = env.show("s");
    for t in show["turns"].as_array().unwrap() {
        let l2 = t["l2"].as_str().unwrap();
        assert!(!l2.trim().is_empty());
        assert!(!l2.contains("<|"), "template tokens leaked: {l2}");
        assert_eq!(t["state"], "folded");
    }
    let l3: Vec<_> = show["summaries"].as_array().unwrap().iter().filter(|s| s["level"] == 3).collect();
    assert!(!l3.is_empty());
    let st = env.status();
    assert_eq!(st["unembedded"], 0, "every L2, L3 and L4 has a vector: {st}");
    assert_eq!(st["pending_l4"], 0);
    let model: String = env.sql().query_row("SELECT l2_model FROM turns LIMIT 1", [], |r| r.get(0)).unwrap();
    assert_eq!(model, "local:SmolLM2-135M-Instruct.Q4_1.gguf");
    // The summaries are found again by meaning.
    let hits = env.run(&["search", "listing files in python", "--json"]).ok().json();
    assert_eq!(hits[0]["project"], "p", "{hits}");
    assert!(hits.as_array().unwrap().iter().take(2).any(|h| h["session"] == "s"), "{hits}");
    env.assert_check();
}

#[test]
fn a_missing_gguf_is_exit_69_naming_the_path_and_touches_nothing() {
    let env = Env::new().with_config("[memory_model]\nbackend = \"local\"\nmodel_path = \"/nonexistent/model.gguf\"");
    env.capture("s", "a", "b", &[]).ok();
    let r = env.run(&["summarize", "--once"]).code(69);
    assert!(r.stderr.contains("/nonexistent/model.gguf"), "{}", r.stderr);
    let attempts: i64 = env.sql().query_row("SELECT attempts FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(attempts, 0);
}

#[test]
fn a_corrupt_gguf_is_exit_69() {
    let env = Env::new();
    let bad = env.path("bad.gguf");
    std::fs::write(&bad, b"GGUF this is not really a model").unwrap();
    let env = env.with_config(&format!("[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"", bad.display()));
    env.capture("s", "a", "b", &[]).ok();
    let r = env.run(&["summarize", "--once"]).code(69);
    assert!(r.stderr.contains("bad.gguf"), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn a_run_with_no_work_loads_no_model() {
    // A model file that is not a GGUF would fail any load: the run
    // succeeds because nothing is loaded.
    let env = Env::new();
    let bad = env.path("bad.gguf");
    std::fs::write(&bad, b"not a model").unwrap();
    let env = env.with_config(&format!(
        "[memory_model]\nbackend = \"local\"\nmodel_path = \"{}\"\n[embedder]\nenabled = true\nruntime_path = \"/nonexistent/libonnxruntime.so\"",
        bad.display()
    ));
    let env = Env { config: env.config.replace("[embedder]\nenabled = false\n", ""), ..env };
    env.run(&["summarize", "--once"]).ok();
    env.run(&["housekeeping"]).ok();
}
