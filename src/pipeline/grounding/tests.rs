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
        None,
    );
    assert!(s.starts_with("Should the restic repository be encrypted"), "{s}");
    assert!(s.contains("restic always encrypts"), "{s}");
    assert_eq!(check(&s, &["Should the restic repository be encrypted if the disk stays at home? Good question. restic always encrypts the repository; keep the password in a root-only file. Pass it with --password-file."], &[]), None);
}

#[test]
fn extractive_turn_answers_with_what_the_reply_says_not_its_reaction() {
    // LoCoMo's shape: two people, the second's reply opens with praise.
    let s = extractive_turn(
        "Caroline: I'm keen on counseling or working in mental health.",
        "Melanie: You'd be a great counselor! Your empathy will really help people. By the way, I painted that lake sunrise last year.",
        None,
    );
    assert!(s.contains("I painted that lake sunrise last year"), "{s}");
    assert!(!s.contains("great counselor"), "{s}");
    // A request that opens with a reaction is read from its next sentence.
    let s = extractive_turn("Wow, love that painting! I went camping with the kids last week.", "Sounds fun.", None);
    assert!(s.starts_with("I went camping with the kids last week"), "{s}");
}

#[test]
fn extractive_turn_answers_with_no_question_back_that_asks_only() {
    // LoCoMo's shape: the other person's only sentence of substance asks
    // back; the turn is what the first said.
    let s = extractive_turn(
        "Caroline: I took the first step towards becoming a mom - I applied to adoption agencies!",
        "Melanie: Wow, Caroline! How does it feel?",
        None,
    );
    assert_eq!(s, "Caroline: I took the first step towards becoming a mom - I applied to adoption agencies!");
    // Where the reply answers nothing, the first side's next statement
    // is what the turn came to.
    let s = extractive_turn(
        "Melanie: That roadtrip this past weekend was insane! We were all freaked when my son got into an accident. Any plans?",
        "Caroline: Oops, sorry! How is he now?",
        None,
    );
    assert_eq!(
        s,
        "Melanie: That roadtrip this past weekend was insane! — Melanie: We were all freaked when my son got into an accident."
    );
    // So where the other only remarks on it, taking up no word of it,
    // naming nothing and saying nothing of themselves.
    let s = extractive_turn(
        "Melanie: That roadtrip this past weekend was insane! We were all freaked when my son got into an accident.",
        "Caroline: Oops, sorry! Life sure can be a roller coaster.",
        None,
    );
    assert_eq!(
        s,
        "Melanie: That roadtrip this past weekend was insane! — Melanie: We were all freaked when my son got into an accident."
    );
    // A remark passed over, the reply's own news is the answer; and a
    // comment in the middle of the first side's line ("That sounds like
    // fun!") is no statement of it.
    let s = extractive_turn(
        "Caroline: Melanie, that photo's amazing! I love all the yellow leaves, it looks so cozy. That sounds like fun!",
        "Melanie: Thanks, Caroline! Those moments make being a parent worth it. We roasted marshmallows and shared stories around the campfire.",
        None,
    );
    assert_eq!(
        s,
        "Caroline: I love all the yellow leaves, it looks so cozy — Melanie: We roasted marshmallows and shared stories around the campfire."
    );
    // A sentence that takes up the word a question asked answers it,
    // whichever sentence the request is.
    let s = extractive_turn(
        "Caroline: Melanie, that's a great pic! That must have been awesome. What were they so stoked about?",
        "Melanie: They were stoked for the dinosaur exhibit! They love learning about animals. It reminds me why I love being a mom.",
        None,
    );
    assert_eq!(s, "Melanie: They were stoked for the dinosaur exhibit!");
    // A shared photo's caption shows, it says nothing: where the reply has
    // nothing else, the first side goes on; and it is a request only where
    // nothing else was said.
    let s = extractive_turn(
        "Caroline: That photo is stunning! So glad you bonded over our love of nature. Last Friday I went to a council meeting for adoption.",
        "Melanie: Wow, Caroline, way to go! Your future fam will get a kick out of having you. What do you think of these? [shares a photo: a photo of a blue vase with a bouquet of sunflowers and roses]",
        None,
    );
    // ("So glad you bonded over our love of nature" is talk between the
    // two: the news is the request.)
    assert_eq!(s, "Caroline: Last Friday I went to a council meeting for adoption.");
    let s = extractive_turn(
        "Caroline: Hey Melanie! Long time no talk! Take a look at this. [shares a photo: a photo of a necklace with a cross]",
        "Melanie: Hey, Caroline! Love the necklace, any special meaning to it?",
        None,
    );
    assert_eq!(s, "Caroline: [shares a photo: a photo of a necklace with a cross]");
    // Where both sides only react, the reply's photo is what the turn
    // came to.
    let s = extractive_turn(
        "Melanie: Caroline, awesome news that you two are getting along! Care to fill me in?",
        "Caroline: The pride event was awesome! It was so encouraging to be surrounded by so much love. [shares a photo: a photo of a woman holding a rainbow umbrella in the air]",
        None,
    );
    assert_eq!(s, "Caroline: [shares a photo: a photo of a woman holding a rainbow umbrella in the air]");
    // A chat statement that leaves its "I" out says something of its
    // speaker: no remark, it is the answer.
    let s = extractive_turn(
        "Caroline: Oh man, sorry to hear that, Melanie. I hope you're okay.",
        "Melanie: Thanks, Caroline. It was tough, but I'm doing ok. Been reading that book you recommended a while ago and painting to keep busy.",
        None,
    );
    assert_eq!(s, "Melanie: Been reading that book you recommended a while ago and painting to keep busy.");
    // Advice is the request ("Do your research" is no remark on the
    // listener), and "BTW" no name that makes a teaser the answer.
    let s = extractive_turn(
        "Caroline: Yep! Do your research and find an adoption agency or lawyer.",
        "Melanie: Thanks for the tip, Caroline. BTW, recently I had a setback. Last month I got hurt and had to take a break from pottery, which I use for self-expression and peace.",
        None,
    );
    assert!(s.starts_with("Caroline: Do your research and find an adoption agency or lawyer — Melanie: "), "{s}");
    assert!(!s.contains("BTW"), "{s}");
    // An assistant's answer stays however it is worded.
    let s = extractive_turn(
        "My sourdough bread comes out dense. I feed the starter once a week.",
        "Usually the starter is too weak or the dough is under-proofed.",
        None,
    );
    assert!(s.ends_with("Usually the starter is too weak or the dough is under-proofed."), "{s}");
    // A question that also says something of its speaker, or names what
    // it asks about, is said.
    let s = extractive_turn(
        "Caroline: How're ya doin'?",
        "Melanie: I finished another pottery project - want to see a pic?",
        None,
    );
    assert!(s.contains("I finished another pottery project"), "{s}");
    let s = extractive_turn(
        "The backup job failed again last night after the disk filled up.",
        "Did you run restic forget --prune after the last backup?",
        None,
    );
    assert!(s.contains("restic forget --prune"), "{s}");
}

#[test]
fn a_merge_must_keep_both_parts() {
    let running = "The user set up restic backups of /srv to a USB disk.";
    let new = ["The user asked about sourdough hydration; the assistant suggested 70% water."];
    let both =
        "The user set up restic backups of /srv to a USB disk, then asked about sourdough hydration at 70% water.";
    assert_eq!(check_fold(both, Some(running), &new, &[]), None);
    let dropped = "The user asked about sourdough hydration; the assistant suggested 70% water.";
    assert!(check_fold(dropped, Some(running), &new, &[]).unwrap().contains("running summary"));
}

/// The demo's three bread turns, as their extractive L2s.
const BREAD: [&str; 3] = [
    "The user asked: Different question: my sourdough bread comes out dense. Why? The assistant answered: Usually the starter is too weak or the dough is under-proofed; feed the starter until it doubles in 4-6 hours and let the dough rise until it grows by half.",
    "The user asked: What hydration should I use for a first sourdough loaf? The assistant answered: Start around 70% hydration: 700 g water per kilo of flour is easy to handle; go wetter once shaping feels comfortable.",
    "The user asked: How long should I bake it and at what temperature? The assistant answered: Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown.",
];

#[test]
fn a_fold_that_keeps_one_turn_of_three_drops_the_others() {
    // SmolLM2-135M's L3 of the demo's bread segment, stored before this rule.
    let one = "The user asked: What hydration should I use for a first sourdough loaf? The assistant answered: Start around 70% hydration; go wetter once shaping feels comfortable.";
    assert_eq!(check(one, &BREAD, &[]), None, "every word of it is in the turns");
    let why = check_fold(one, None, &BREAD, &[]).expect("two turns of three are gone");
    assert!(why.contains("drops new item(s) 1, 3 of 3"), "{why}");
    // One of three items may go, but not with most of what they name: the
    // baking turn's times and temperatures are the larger half.
    let two = "The user's sourdough bread came out dense: the starter was too weak and the dough under-proofed, so the assistant suggested feeding the starter until it doubles in 4-6 hours. For a first loaf it suggested 70% hydration, 700 g water per kilo of flour, wetter once shaping feels comfortable.";
    let why = check_fold(two, None, &BREAD, &[]).expect("the baking numbers are gone");
    assert!(why.contains("drops what the new material names: 20, 20-25, 230, 250"), "{why}");
    let all = "The user's sourdough bread came out dense: the starter was too weak and the dough under-proofed, so the assistant suggested feeding the starter until it doubles. For a first loaf it suggested 70% hydration, 700 g water per kilo of flour, then baking in a preheated Dutch oven at 250 C for 20 minutes with the lid on.";
    assert_eq!(check_fold(all, None, &BREAD, &[]), None);
    let running = "The user backs up /srv nightly with restic.";
    let merged = format!("{running} {all}");
    assert_eq!(check_fold(&merged, Some(running), &BREAD, &[]), None);
}

#[test]
fn a_fold_keeps_at_least_half_of_what_its_items_name() {
    let items = [
        "Backups of /srv run nightly with restic to a USB disk.",
        "The password sits in a root-only file passed with --password-file.",
        "A test restore into /tmp is compared with diff -r each month.",
    ];
    let vague = "Backups run nightly with restic to a USB disk, with the password in a root-only file, and a monthly test restore.";
    let why = check_fold(vague, None, &items, &[]).expect("the named things are gone");
    assert!(why.contains("drops what the new material names"), "{why}");
    let named = "Backups of /srv run nightly with restic, the password passed with --password-file, and a monthly restore test into /tmp.";
    assert_eq!(check_fold(named, None, &items, &[]), None);
}

#[test]
fn a_fold_may_leave_out_half_its_items_not_more() {
    let items = [
        "The user asked about restic backups of /srv.",
        "The assistant said restic encrypts with a password file.",
        "The user asked how to test a restore into /tmp.",
        "The assistant suggested a weekly check with diff.",
    ];
    let three = "The user runs restic backups of /srv, encrypted with a password file, and tests a restore into /tmp.";
    assert_eq!(check_fold(three, None, &items, &[]), None, "one of four may go");
    let two = "The user runs restic backups of /srv and tests a restore into /tmp.";
    assert_eq!(check_fold(two, None, &items, &[]), None, "two of four may go");
    let one = "The user runs restic backups of /srv.";
    assert!(check_fold(one, None, &items, &[]).unwrap().contains("drops new item(s) 2, 3, 4 of 4"));
}

#[test]
fn a_reply_that_only_asks_fails() {
    let q = "How should the user back up the /srv folder every night?";
    assert!(check(q, &[TURN], &[]).unwrap().contains("asks"));
    let told = "The user asked how to back up /srv every night? The assistant suggested restic with a cron job.";
    assert_eq!(check(told, &[TURN], &[]), None);
}

#[test]
fn an_extractive_fold_does_not_repeat_the_turns_labels() {
    let turns = [
        ("How do I back up /srv?", "Use restic backup /srv nightly."),
        ("Is the repository encrypted?", "restic always encrypts it."),
        ("How do I test a restore?", "Run restic check and restore one folder."),
        ("Can cron run it unattended?", "Pass --password-file in the crontab."),
    ];
    let items: Vec<String> = turns.iter().map(|(u, a)| extractive_turn(u, a, None)).collect();
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    let fold = extractive_fold(None, &refs, 3000);
    assert!(fold.starts_with("How do I back up /srv? — Use restic backup /srv nightly."), "{fold}");
    assert!(!fold.contains("The user asked"), "{fold}");
    assert_eq!(looping(&fold), None, "{fold}");
    assert_eq!(check(&fold, &refs, &[]), None);
}

#[test]
fn an_extractive_fold_keeps_a_colon_inside_a_word() {
    let items = ["The user asked about key:value pairs in std::io.", "The user asked about [topic:db] tags."];
    let fold = extractive_fold(None, &items, 3000);
    for want in ["key:value", "std::io", "[topic:db]"] {
        assert!(fold.contains(want), "{want} missing from {fold}");
    }
    // A colon before a space still ends a lead-in said once.
    let items = ["The user asked this: how to test a restore.", "The user asked this: how to encrypt."];
    let fold = extractive_fold(None, &items, 3000);
    assert_eq!(fold.matches("The user asked this:").count(), 1, "{fold}");
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
    // Praise said three times and a stop word's contraction are no key terms.
    let t = key_terms(
        [
            "Caroline: Awesome! I've been to the Pride parade.",
            "Melanie: Awesome, Here's my photo from Sweden.",
            "Caroline: Awesome photo, Mel! BTW, I've got more.",
        ],
        40,
    );
    for noise in ["awesome", "I've", "Here's", "BTW"] {
        assert!(!t.iter().any(|x| x.eq_ignore_ascii_case(noise)), "{noise} in {t:?}");
    }
    for want in ["Pride", "Sweden", "Mel"] {
        assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
    }
}

#[test]
fn the_markers_of_an_agents_tool_lines_are_no_key_terms_but_what_they_ran_is() {
    let t = key_terms(
        [
            "Why is CI slow?\n[tool Bash: gh run view 8812 --log]\n[result: Cache not found for pip-Linux-3f2a9c]\nThe key changed.",
            "Fix it.\n[tool Edit: .github/workflows/ci.yml]\n[result: updated]\n[tool Bash: gh run watch]\n[result: ok]",
            "Pin Python.\n[tool Bash: gh run watch]\n[result: ok 3m40s]\nDone.",
        ],
        40,
    );
    for noise in ["tool", "bash", "result", "edit"] {
        assert!(!t.iter().any(|x| x.eq_ignore_ascii_case(noise)), "{noise} in {t:?}");
    }
    for want in ["--log", "pip-Linux-3f2a9c", "3m40s", ".github/workflows/ci.yml"] {
        assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
    }
}

#[test]
fn a_line_number_before_a_name_is_where_it_was_found_not_its_name() {
    // `grep -n` in an agent's tool result, as the agent session has it.
    let t = key_terms(
        ["Where is the port set?\n[result: 31:EMAIL_HOST = 'smtp.mailgun.org'\n32:EMAIL_PORT = 465]\nLine 32."],
        40,
    );
    for want in ["EMAIL_HOST", "EMAIL_PORT", "smtp.mailgun.org"] {
        assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
    }
    assert!(!t.iter().any(|x| x.contains("31:") || x.contains("32:")), "{t:?}");
    // A time keeps its digits.
    assert!(terms("The job runs at 10:30 daily.").iter().any(|x| x == "10:30"));
}

#[test]
fn the_speakers_i_is_no_name_however_it_is_contracted() {
    // "…the progress I've made." named "I've", and a project summary kept
    // it for that name over "Brave" by Sara Bareilles.
    for t in ["…the progress I've made.", "Yes, and I'd go if I'll have time; I'm sure."] {
        assert_eq!(terms(t), Vec::<String>::new(), "{t}");
    }
    assert_eq!(terms("It was Caroline's idea, and O'Brien agreed."), vec!["Caroline's", "O'Brien"]);
}

#[test]
fn chat_shorthand_in_capitals_is_no_term_but_an_acronym_is() {
    // "BTW" made "BTW, recently I had a setback." the answer of its turn
    // for the name it seemed to hold.
    for t in ["Thanks! BTW, recently I had a setback.", "Ha, OMG that is wild. TBH I never went. OK then."] {
        assert_eq!(terms(t), Vec::<String>::new(), "{t}");
    }
    assert_eq!(terms("Then BTW we went to the LGBTQ center and the NHS clinic."), vec!["LGBTQ", "NHS"]);
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

#[test]
fn a_possessive_of_a_word_the_turn_has_is_that_word() {
    // Decoding held to the turn's words may write a word with "'s"
    // (`llm::local::words`); the check must not refuse what the decoding
    // allows by construction.
    let turn = "Caroline: I went to a LGBTQ support group yesterday.\nMelanie: Wow, that's cool, Mel is proud of you!";
    let a = Acceptance::new(&[turn], &[], &[], None).own_words_only(true);
    assert_eq!(a.fault("Melanie said that Caroline's support group was cool."), None);
    assert_eq!(a.fault("Caroline went to a support group; Melanie said she's proud."), None);
    assert_eq!(a.fault("Melanie said Mel's proud."), None);
    // A possessive of a name the turn lacks is still invented, and so is a
    // word it lacks with "'s".
    let why = a.fault("Melanie said that Gina's support group was cool.").expect("refused");
    assert!(why.contains("Gina's"), "{why}");
    let why = a.fault("Melanie said the parade's support group was cool.").expect("refused");
    assert!(why.contains("parade's"), "{why}");
}

#[test]
fn an_l2_that_leaves_out_the_answers_lead_fact_fails() {
    let (ask, answer) = (
        "How long should I bake it and at what temperature?",
        "Bake in a preheated Dutch oven at 250 C for 20 minutes with the lid on, then 20-25 minutes at 230 C with the lid off until deep brown.",
    );
    let turn = format!("{ask}\n{answer}");
    let a = Acceptance::new(&[turn.as_str()], &[], &[], Some((ask, answer)));
    // What SmolLM2-135M wrote: every word the turn's, the answer's numbers
    // of its second clause, not of its first.
    let why = a
        .fault("The user asked how long a Dutch oven can bake, and the assistant replied that it is 20-25 minutes at 230 C to the lid.")
        .expect("refused");
    assert!(why.contains("lead fact \"250\""), "{why}");
    assert_eq!(
        a.fault("The assistant said to bake it in a preheated Dutch oven at 250 C with the lid on for 20 minutes."),
        None
    );
    // Only the first two facts of the lead clause are asked for ("Dutch", "250").
    assert_eq!(a.fault("The assistant said to bake the loaf in a Dutch oven at 250 C, lid on."), None);
}

#[test]
fn a_lead_fact_the_request_or_a_speaker_already_has_is_not_asked_again() {
    // The request names /srv; the lead clause's other fact is USB.
    let (ask, answer) = (
        "How should I back up my home server's /srv folder every night?",
        "Use restic backup /srv to a repository on a USB disk, then prune old snapshots.",
    );
    let turn = format!("{ask}\n{answer}");
    let a = Acceptance::new(&[turn.as_str()], &[], &[], Some((ask, answer)));
    assert_eq!(
        a.fault("The assistant suggested restic backup to a repository on a USB disk, pruning old snapshots."),
        None
    );
    let why = a
        .fault("The assistant suggested restic backup of /srv to a repository, pruning old snapshots.")
        .expect("refused");
    assert!(why.contains("lead fact \"USB\""), "{why}");
    // A speaker's name, or its short form, is whom the line is said to,
    // not a fact of the answer.
    let (ask, answer) = ("Melanie: How was the trip?", "Caroline: The trip to Paris was great, Mel, and Melanie too.");
    let turn = format!("{ask}\n{answer}");
    let a = Acceptance::new(&[turn.as_str()], &[], &[], Some((ask, answer)));
    assert_eq!(a.fault("Caroline said her trip to Paris was great."), None);
    let why = a.fault("Caroline said her trip was great.").expect("refused");
    assert!(why.contains("lead fact \"Paris\""), "{why}");
}

#[test]
fn a_lead_clause_without_a_fact_asks_for_the_answers_first_code_identifier() {
    // The demo's second turn: its lead clause ("restic always encrypts")
    // names nothing the request lacks; its flag is what the turn taught.
    let (ask, answer) = (
        "Should the restic repository be encrypted if the disk stays at home?",
        "restic always encrypts; keep the password in a root-only file and pass it with --password-file so cron can run unattended.",
    );
    let turn = format!("{ask}\n{answer}");
    let a = Acceptance::new(&[turn.as_str()], &[], &[], Some((ask, answer)));
    // What SmolLM2-135M wrote with one thread.
    let why = a
        .fault("The user asked if the restic repository should be encrypted; the assistant explained that cron is a file, and it can also run unattended.")
        .expect("refused");
    assert!(why.contains("lead fact \"--password-file\""), "{why}");
    assert_eq!(
        a.fault("The assistant said restic always encrypts and the password goes in a root-only file passed with --password-file."),
        None
    );
    // Prose has no code identifier to ask for: a name or a number later in
    // the answer is not asked for (stop 46 measured that rule: it cost
    // LoCoMo's fact recall).
    let (ask, answer) = ("Melanie: Did you like it?", "Caroline: I loved it, honestly. We went to Paris in 2022.");
    let turn = format!("{ask}\n{answer}");
    let a = Acceptance::new(&[turn.as_str()], &[], &[], Some((ask, answer)));
    assert_eq!(a.fault("Caroline said she loved it."), None);
}

#[test]
fn an_l2_that_says_it_for_what_the_turn_names_fails() {
    let (ask, answer) = (
        "How do I check that the backups can actually be restored?",
        "Run restic check weekly and do a test restore of one folder into /tmp each month, comparing it with diff -r.",
    );
    let turn = format!("{ask}\n{answer}");
    let a = Acceptance::new(&[turn.as_str()], &[], &[], Some((ask, answer)));
    // What SmolLM2-135M wrote of the demo's third turn.
    let why = a
        .fault("The user wants to run it weekly and do a test on one folder into /tmp each month, comparing them with diff -r.")
        .expect("refused");
    assert!(why.contains("\"restic check\""), "{why}");
    assert_eq!(
        a.fault("The assistant said to run restic check weekly and test a restore of one folder into /tmp each month."),
        None
    );
    // A fold's sentences are not L2s: no turn, no such check.
    let fold = Acceptance::new(&[turn.as_str()], &[], &[], None);
    assert_eq!(
        fold.fault("The user wants to run it weekly and do a test on one folder into /tmp each month, comparing them with diff -r."),
        None
    );
}

#[test]
fn a_word_said_twice_in_a_row_fails_unless_the_sources_say_it_so() {
    let turn = "User: Commit the fix.\nAssistant: [tool Bash: git commit -am 'fix'] Committed as 4e5f6a7 from the Bash session.";
    // What SmolLM2-135M wrote of the agent fixture's second turn.
    let why =
        check("The assistant committed the fix from the Bash Bash session as 4e5f6a7.", &[turn], &[]).expect("refused");
    assert!(why.contains("\"bash\" twice in a row"), "{why}");
    // A possessive of the word is the word: "the starter's starter".
    let bread =
        "User: Why is my bread dense?\nAssistant: Usually the starter is too weak; feed the starter until it doubles.";
    let why = check("The assistant explained that the starter's starter is too weak.", &[bread], &[]).expect("refused");
    assert!(why.contains("\"starter\" twice in a row"), "{why}");
    assert_eq!(
        check("The assistant explained that the starter is too weak and to feed the starter.", &[bread], &[]),
        None
    );
    // Sources that say it so themselves allow it.
    let bye = "Jon: Bye bye, Gina!\nGina: Bye bye, see you at the bakery.";
    assert_eq!(check("Jon and Gina said bye bye; they will meet at the bakery.", &[bye], &[]), None);
}

#[test]
fn a_word_of_substance_said_again_within_four_words_fails_unless_the_sources_say_it_so() {
    // What SmolLM2-135M wrote of a LoCoMo turn: every word the turn's.
    let pottery = "Melanie: I used a special clay for my first pot, and I carved a dog face on it.";
    let why = check("She had been using a special clay for her first clay with a dog face on it.", &[pottery], &[])
        .expect("refused");
    assert!(why.contains("\"clay\" twice within 4 words"), "{why}");
    // Further apart, or a stop word, is no stutter.
    assert_eq!(
        check("She used a special clay for her first pot, a dog face carved in the clay.", &[pottery], &[]),
        None
    );
    assert_eq!(check("She used a special clay for her first pot and a dog face on it.", &[pottery], &[]), None);
    // Sources that repeat the word as closely allow it.
    let steps = "User: How do I learn it?\nAssistant: Go step by step through the tutorial.";
    assert_eq!(check("The assistant said to go step by step through the tutorial.", &[steps], &[]), None);
}

#[test]
fn a_summary_sentence_reports_what_was_said_instead_of_saying_it_again() {
    let chat =
        "Gina: I passed the adoption agency interviews last Friday!\nJon: Congrats, Gina! You will be a great mom.";
    let summary = Acceptance::new(&[chat], &[], &[], None).reported(&[chat]);
    // The shapes SmolLM2-135M's prose folds of a chat took (stop 55):
    // spoken to a speaker, spoken as the two of them, a line with its label.
    let to = "Gina is a great adoption agency to have on your end of the process.";
    let why = summary.fault(to).expect("refused");
    assert!(why.contains("(\"your\")"), "{why}");
    let why = summary.fault("We passed the adoption agency interviews last Friday.").expect("refused");
    assert!(why.contains("(\"we\")"), "{why}");
    let why = summary.fault("Jon: Congrats, Gina, the interviews were last Friday.").expect("refused");
    assert!(why.contains("label (\"jon:\")"), "{why}");
    assert_eq!(summary.fault("Gina passed the adoption agency interviews last Friday; Jon congratulated her."), None);
    // "US" the country is no "us"; a label that is no speaker's is no quote.
    let trip = "Jon: My flight to the US leaves Monday.\nGina: Note: pack light.";
    let summary = Acceptance::new(&[trip], &[], &[], None).reported(&[trip]);
    assert_eq!(summary.fault("Jon's flight to the US leaves Monday."), None);
    assert_eq!(summary.fault("Gina's advice to Jon, note: pack light."), None);
    // Without `reported` (an L2, whose frame is the user's and the
    // assistant's) the sentence is not held to it.
    assert_eq!(Acceptance::new(&[chat], &[], &[], None).fault(to), None);
}

#[test]
fn a_summary_sentence_in_the_speakers_first_person_fails_in_every_form() {
    let turn = "User: I'll run restic check myself after the backup.\nAssistant: Good, then prune weekly.";
    let a = Acceptance::new(&[turn], &[], &[], None);
    for first in [
        "I'll run restic check after the backup.",
        "The user will run restic check myself after the backup.",
        "I run restic check after the backup.",
        "My backup is checked with restic check.",
    ] {
        let why = a.fault(first).unwrap_or_else(|| panic!("kept: {first}"));
        assert!(why.contains("not in the third person"), "{first}: {why}");
    }
    assert_eq!(a.fault("The user will run restic check after the backup; the assistant says to prune weekly."), None);
}

#[test]
fn a_chat_reply_that_changes_the_subject_brings_its_news() {
    // The reply takes up the advice, then changes the subject: its news
    // is what the turn came to, not the agreement.
    let s = extractive_turn(
        "Jon: Call the landlord first and ask for the repair in writing.",
        "Gina: Thanks, Jon. Asking in writing makes sense, I'll call him. BTW, I lost my job at the bakery. They closed the shop last week after twelve years.",
        None,
    );
    assert_eq!(
        s,
        "Jon: Call the landlord first and ask for the repair in writing — Gina: I lost my job at the bakery."
    );
    // "BTW" says none of the news: the detail beats the teaser.
    let s = extractive_turn(
        "Jon: Call the landlord first and ask for the repair in writing.",
        "Gina: Good idea, I'll do that. BTW, lately I had a setback. Last month I sprained my wrist and had to stop climbing.",
        None,
    );
    assert_eq!(
        s,
        "Jon: Call the landlord first and ask for the repair in writing — Gina: Last month I sprained my wrist and had to stop climbing."
    );
    // The first side's news after "By the way" is its request.
    let s = extractive_turn(
        "Gina: Yeah, it's really soothing. By the way, I ran a half marathon in Denver on Sunday!",
        "Jon: No way! What was your time?",
        None,
    );
    assert_eq!(s, "Gina: I ran a half marathon in Denver on Sunday!");
    // Without a change of subject, the answer is as before.
    let s = extractive_turn(
        "Jon: Call the landlord first and ask for the repair in writing.",
        "Gina: Thanks, Jon. Asking in writing makes sense, I'll call him.",
        None,
    );
    assert_eq!(s, "Jon: Call the landlord first and ask for the repair in writing — Gina: Asking in writing makes sense, I'll call him.");
    // An assistant's "By the way" is an aside to its answer: the fix stays.
    let s = extractive_turn(
        "The nightly backup fails with exit code 3.",
        "Exit code 3 means restic could not read some files; add --exclude-caches to the cron line. By the way, restic 0.17 is out.",
        None,
    );
    assert!(s.contains("--exclude-caches"), "{s}");
    // An opening with nothing after it, or inside a word, changes nothing.
    assert_eq!(extractive_turn("Gina: By the way.", "Jon: BTW", None), "Gina: By the way.");
    let s = extractive_turn("Jon: Anywayyy I moved to Lisbon in May.", "Gina: Btwxt the two of us, I loved it.", None);
    assert!(s.starts_with("Jon: Anywayyy I moved to Lisbon in May"), "{s}");
}

#[test]
fn a_request_after_a_change_of_subject_is_the_request() {
    // What the last answer did, then a new request after "By the way".
    let s = extractive_turn(
        "That fixed the login error on staging. By the way, can you also add the --dry-run flag to the deploy script?",
        "Added --dry-run to deploy.sh; it prints each rsync command without running it.",
        None,
    );
    assert!(s.starts_with("Can you also add the --dry-run flag"), "{s}");
}
