use super::loops::looping;
use super::*;

const TURN: &str = "User: How should I back up my home server's /srv folder every night?\n\nAssistant: Use restic with a cron job: restic backup /srv to a repository on a USB disk, then restic forget --keep-daily 7 to prune old snapshots.";

#[test]
fn a_faithful_paraphrase_passes() {
    let r = "The user asked how to back up /srv nightly; the assistant suggested restic from a cron job to a USB disk, pruning with restic forget --keep-daily 7.";
    assert_eq!(check(r, &[TURN], &[]), None);
}

#[test]
fn an_invented_identifier_or_number_fails() {
    let r = "The user asked about backups; the assistant suggested encrypting the restic repository with AES256.";
    let why = check(r, &[TURN], &[]).unwrap();
    assert!(why.contains("AES256"), "{why}");
    let r = "The user asked about backups; the assistant suggested restic, keeping 30 snapshots.";
    assert!(check(r, &[TURN], &[]).unwrap().contains("30"));
}

#[test]
fn an_invented_name_fails_but_a_sentence_start_does_not() {
    let r = "Restic was suggested for /srv backups to a USB disk, as Melanie recommended.";
    assert!(check(r, &[TURN], &[]).unwrap().contains("Melanie"));
}

#[test]
fn a_loop_fails() {
    let r = "They made a fifth sourdough loaf, then they made a sixth sourdough loaf, then they made a seventh sourdough loaf, then they made an eighth sourdough loaf.";
    let src = "They made sourdough loaf after loaf: fifth, sixth, seventh, eighth.";
    assert!(check(r, &[src], &[]).unwrap().contains("loops"), "{:?}", check(r, &[src], &[]));
}

#[test]
fn a_reply_that_loops_as_the_benchmark_counts_fails() {
    // "her well being matters" three times to the loop rule (\w+ words),
    // never to `words`, which keeps "well-being" whole.
    let src = "Caroline said her well-being matters and her well being matters.";
    let r = "Caroline said her well-being matters; her well being matters; her well-being matters to her.";
    let why = check(r, &[src], &[]).unwrap();
    assert!(why.contains("loops") && why.contains("her well being matters"), "{why}");
}

#[test]
fn an_echo_of_the_prompt_fails() {
    let r = "3 to 5 sentences, in the third person, in your own words: New turns: - restic backup /srv";
    assert!(check(r, &[TURN], &[]).unwrap().contains("echoes"));
}

#[test]
fn a_copied_example_fails() {
    let ex = "The user asked why a script failed under cron; the assistant explained that cron's minimal PATH must be set or absolute paths used.";
    let r =
        "The user asked about restic backups of /srv; the assistant explained that cron's minimal path must be set.";
    let why = check(r, &[TURN], &[ex]).unwrap();
    assert!(why.contains("example") || why.contains("PATH"), "{why}");
}

#[test]
fn an_empty_of_content_reply_fails() {
    assert!(check("Okay, sure.", &[TURN], &[]).unwrap().contains("says nothing"));
    assert!(check("Nothing.", &[TURN], &[]).is_some());
}

#[test]
fn the_form_of_the_examples_is_no_copy() {
    let ex = "The user asked how to list the files in a folder with Python; the assistant suggested os.listdir.";
    let r = "The user asked how to back up /srv every night; the assistant suggested restic with a cron job.";
    assert_eq!(check(r, &[TURN], &[ex]), None);
}

#[test]
fn a_reply_about_something_else_fails() {
    let r = "The conversation covered baking bread with a starter, hydration and oven temperature.";
    assert!(check(r, &[TURN], &[]).unwrap().contains("too little"));
}

#[test]
fn a_reply_in_a_script_without_spaces_is_checked_for_terms_only() {
    let src = "如何启用预写日志？ 使用 PRAGMA journal_mode=WAL。";
    assert_eq!(check("用户询问了如何启用预写日志，助手建议使用 PRAGMA journal_mode=WAL。", &[src], &[]), None);
    assert!(check("用户询问了如何启用预写日志，助手建议使用 PRAGMA journal_mode=OFF。", &[src], &[]).is_some());
}

#[test]
fn numbers_match_their_digits() {
    let src = "Start around 70% hydration: 700 g water per kilo; bake at 250 C. It costs 1,000 dollars.";
    assert_eq!(
        check(
            "The assistant suggested 70 hydration, 700 g water per kilo, bake at 250 C; it costs 1000 dollars.",
            &[src],
            &[]
        ),
        None
    );
}

#[test]
fn extractive_turn_keeps_the_request_and_the_answering_sentence() {
    let s = extractive_turn(
        "Should the restic repository be encrypted if the disk stays at home?",
        "Good question. restic always encrypts the repository; keep the password in a root-only file. Pass it with --password-file.",
    );
    assert!(s.starts_with("The user asked: Should the restic repository be encrypted"), "{s}");
    assert!(s.contains("restic always encrypts"), "{s}");
    assert_eq!(check(&s, &["Should the restic repository be encrypted if the disk stays at home? Good question. restic always encrypts the repository; keep the password in a root-only file. Pass it with --password-file."], &[]), None);
}

#[test]
fn a_merge_must_keep_both_parts() {
    let running = "The user set up restic backups of /srv to a USB disk.";
    let new = ["The user asked about sourdough hydration; the assistant suggested 70% water."];
    let both =
        "The user set up restic backups of /srv to a USB disk, then asked about sourdough hydration at 70% water.";
    assert_eq!(check_merge(both, running, &new, &[]), None);
    let dropped = "The user asked about sourdough hydration; the assistant suggested 70% water.";
    assert!(check_merge(dropped, running, &new, &[]).unwrap().contains("running summary"));
}

#[test]
fn an_extractive_fold_does_not_repeat_the_turns_labels() {
    let turns = [
        ("How do I back up /srv?", "Use restic backup /srv nightly."),
        ("Is the repository encrypted?", "restic always encrypts it."),
        ("How do I test a restore?", "Run restic check and restore one folder."),
        ("Can cron run it unattended?", "Pass --password-file in the crontab."),
    ];
    let items: Vec<String> = turns.iter().map(|(u, a)| extractive_turn(u, a)).collect();
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    let fold = extractive_fold(None, &refs, 3000);
    assert!(fold.starts_with("How do I back up /srv? — Use restic backup /srv nightly."), "{fold}");
    assert!(!fold.contains("The user asked"), "{fold}");
    assert_eq!(looping(&fold), None, "{fold}");
    assert_eq!(check(&fold, &refs, &[]), None);
}

#[test]
fn key_terms_keep_identifiers_names_and_measures() {
    let t = key_terms(
        [
            "restic always encrypts; pass it with --password-file so cron can back up /srv unattended.",
            "Start around 70% hydration, then bake in a Dutch oven at 250 C for 20 minutes.",
        ],
        40,
    );
    for want in ["--password-file", "/srv", "70%", "250 C", "Dutch"] {
        assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
    }
    assert!(!t.iter().any(|x| x == "20"), "a bare small number is no key term: {t:?}");
    let t = key_terms(["restic backup /srv", "restic check", "restic forget --keep-daily 7"], 40);
    assert_eq!(t[0], "restic", "{t:?}");
}

#[test]
fn a_reply_that_turns_the_recommendation_around_fails() {
    // SmolLM2-135M's L2 of the demo's first turn, stored before this check.
    let r = "The user asked how to back up a home server's /srv folder every night; the assistant explained that using restic backup with a cron job would be impractical.";
    let why = check(r, &[TURN], &[]).expect("a made-up judgement");
    assert!(why.contains("judges") && why.contains("impractical"), "{why}");
    let r = "The user asked how to back up /srv every night; the assistant said restic should not run from a cron job.";
    let why = check(r, &[TURN], &[]).expect("a made-up negation");
    assert!(why.contains("negates"), "{why}");
}

#[test]
fn a_negation_or_judgement_the_sources_make_may_be_kept() {
    let turn = "User: Should I run restic as root?\n\nAssistant: Avoid running it as root; it is risky. Do not give the backup user a login shell.";
    let r = "The user asked whether to run restic as root; the assistant said to avoid it as risky and not to give the backup user a login shell.";
    assert_eq!(check(r, &[turn], &[]), None);
}
