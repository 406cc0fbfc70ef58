use super::*;

#[test]
fn batches_end_at_the_context_and_cover_the_prompt() {
    assert_eq!(batches(0, 5), vec![0..5]);
    assert_eq!(batches(3, 5), vec![0..3, 3..5]);
    assert_eq!(batches(9, 5), vec![0..5]);
    assert_eq!(batches(600, 1200), vec![0..512, 512..600, 600..1112, 1112..1200]);
    assert_eq!(batches(0, 0), Vec::<Range<usize>>::new());
}

#[test]
fn only_identically_cut_batches_are_reused() {
    let a = batches(100, 150);
    // Same earlier messages, other last message: the context is kept.
    assert_eq!(reusable(&a, &batches(100, 180), 120, 180), 100);
    // Fewer shared tokens than the context: nothing is reusable.
    assert_eq!(reusable(&a, &batches(100, 180), 99, 180), 0);
    // Another context length: the batches differ from the first.
    assert_eq!(reusable(&a, &batches(90, 180), 150, 180), 0);
    // The same prompt again: all but the batch with the last token.
    assert_eq!(reusable(&a, &a, 150, 150), 100);
    // A prompt that is exactly the cached context: its last batch is
    // evaluated again, for the logits.
    assert_eq!(reusable(&a, &batches(100, 100), 100, 100), 0);
    // Long contexts share their whole 512-token pieces.
    assert_eq!(reusable(&batches(1100, 1200), &batches(700, 800), 900, 800), 512);
    assert_eq!(reusable(&[], &a, 0, 150), 0);
}

#[test]
fn find_stop_returns_the_earliest_match() {
    let stops = vec!["\n\n".to_string(), "END".to_string(), String::new()];
    assert_eq!(find_stop(b"one END two\n\n", &stops), Some(4));
    assert_eq!(find_stop(b"nothing here", &stops), None);
    assert_eq!(find_stop(b"", &stops), None);
}

#[test]
fn model_id_and_describe_name_the_file() {
    let m = LocalModel::new(LocalOptions {
        model_path: PathBuf::from("/data/models/Small.Q4.gguf"),
        threads: 2,
        context_tokens: 4096,
        seed: 1,
        verbose_log: false,
        parallel: 1,
    });
    assert_eq!(m.model_id(), "local:Small.Q4.gguf");
    assert_eq!(m.describe(), "local /data/models/Small.Q4.gguf (threads 2)");
    assert!(m.load_time().is_none());
}

#[test]
fn preflight_rejects_missing_and_non_gguf_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.gguf");
    let err = check_gguf_file(&missing).unwrap_err();
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains("absent.gguf")), "{err}");

    let junk = dir.path().join("junk.gguf");
    std::fs::write(&junk, b"not a model at all").unwrap();
    assert!(matches!(check_gguf_file(&junk), Err(ModelError::Unavailable(_))));

    let short = dir.path().join("short.gguf");
    std::fs::write(&short, b"GG").unwrap();
    assert!(matches!(check_gguf_file(&short), Err(ModelError::Unavailable(_))));

    let good = dir.path().join("header.gguf");
    std::fs::write(&good, b"GGUF\x03\0\0\0").unwrap();
    assert_eq!(check_gguf_file(&good), Ok(()));
}
