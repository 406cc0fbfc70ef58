use super::*;

fn on() -> Redactor {
    Redactor::new(&Privacy::default()).unwrap()
}

#[test]
fn the_issue_example_keeps_kind_prefix_and_surrounding_words() {
    let (t, n) =
        on().redact("key sk-proj-ABCDEF1234567890abcdef1234567890 and postgres://admin:hunter2@db:5432/app ok");
    assert_eq!(n, 2, "{t}");
    assert_eq!(t, "key [REDACTED:openai-key sk-proj-AB…] and postgres://admin:[REDACTED:url-password]@db:5432/app ok");
}

#[test]
fn redacting_twice_changes_nothing_more() {
    let r = on();
    let text = "AKIAQ3EGT5MZ7XWPLR4N secret kX9vQ2mW7pL4rT8yB3nZ6cF1hJ5sD0gA2eK7uI9o; token=ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let (once, n) = r.redact(text);
    assert!(n >= 2, "{once}");
    let (twice, m) = r.redact(&once);
    assert_eq!(m, 0, "{twice}");
    assert_eq!(once, twice);
}

#[test]
fn a_harmless_assignment_does_not_hide_a_password_after_it() {
    let (t, n) = on().redact("user: password=Xy7abc123!Qz");
    assert_eq!((t.as_ref(), n), ("user: password=[REDACTED:password]", 1));
}

#[test]
fn unchanged_text_is_borrowed() {
    assert!(matches!(on().redact("nothing secret here, commit 3f2a9c1e").0, Cow::Borrowed(_)));
}

#[test]
fn allow_list_and_extra_patterns_apply_and_bad_regexes_name_the_key() {
    let p = Privacy {
        extra_patterns: vec![r"ACME-[0-9]{6}".into()],
        allow: vec![r"^sk-proj-ABCDEF1234567890abcdef1234567890$".into()],
        ..Privacy::default()
    };
    let (t, n) = Redactor::new(&p).unwrap().redact("sk-proj-ABCDEF1234567890abcdef1234567890 ACME-123456");
    assert_eq!(n, 1);
    assert_eq!(t, "sk-proj-ABCDEF1234567890abcdef1234567890 [REDACTED:custom]");
    let bad = Privacy { extra_patterns: vec!["(".into()], ..Privacy::default() };
    let e = Redactor::new(&bad).err().unwrap().to_string();
    assert!(e.contains("[privacy] extra_patterns[0]"), "{e}");
}

#[test]
fn every_builtin_pattern_compiles_and_its_anchors_are_lower_case() {
    for b in BUILTIN {
        builtin_regex(b.pattern).unwrap_or_else(|e| panic!("{}: {e}", b.kind));
        LiteRegex::new(b.pattern).unwrap_or_else(|e| panic!("{}: {e}", b.kind));
        assert!(!b.anchors.is_empty(), "{} needs anchors", b.kind);
        assert!(b.anchors.iter().all(|a| *a == a.to_ascii_lowercase()), "{}", b.kind);
    }
}

#[test]
fn redact_false_changes_nothing() {
    let r = Redactor::new(&Privacy { redact: false, ..Privacy::default() }).unwrap();
    assert!(!r.enabled());
    assert_eq!(r.redact("sk-proj-ABCDEF1234567890abcdef1234567890").1, 0);
}

#[test]
fn identifiers_and_documentation_examples_are_no_secrets() {
    let r = on();
    for text in [
        "token: MyClass2Handler",
        "secret_handler: RequestValidator2Factory",
        "AKIAIOSFODNN7EXAMPLE",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ] {
        let (t, n) = r.redact(text);
        assert_eq!((t.as_ref(), n), (text, 0));
    }
}

#[test]
fn a_zero_width_space_inside_a_key_does_not_hide_it() {
    let (t, n) = on().redact("token ghp_0123456789abcdef\u{200b}ghijABCDEFGHIJ012345 ok");
    assert_eq!(n, 1, "{t}");
    assert!(!t.contains("ghijABCDEFGHIJ012345"), "{t}");
    let plain = "a word\u{200b}joined";
    assert!(matches!(on().redact(plain).0, Cow::Borrowed(_)), "no secret: the text is kept as it was");
}

#[test]
fn base64_of_a_secret_is_redacted_and_other_base64_is_not() {
    use base64::Engine;
    let env = "DB_PASSWORD=Xy7abc123!Qz\nAPI_KEY=sk-proj-ABCDEF1234567890abcdef1234567890\n";
    let encoded = base64::engine::general_purpose::STANDARD.encode(env);
    let text = format!("echo {encoded} | base64 -d > .env");
    let (t, n) = on().redact(&text);
    assert_eq!(n, 1, "{t}");
    assert_eq!(t, "echo [REDACTED:base64-secret] | base64 -d > .env");
    let harmless = base64::engine::general_purpose::STANDARD.encode("just a plain sentence, nothing secret in it");
    assert_eq!(on().redact(&harmless).1, 0);
}

#[test]
fn the_base64_scan_finds_what_the_pattern_finds() {
    let re = super::builtin_regex(r"[A-Za-z0-9+/]{16,}(?:\r?\n[A-Za-z0-9+/]{4,})*={0,2}").unwrap();
    let texts = [
        "",
        "short abc",
        "/home/dev/src/bench/src/backup/job_40.rs and more",
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY\nWVphYmNk\r\nZWZn==rest",
        "QUJDREVGR0hJSktMTU5P\nabc\nQUJDREVGR0hJSktMTU5P===",
        "x QUJDREVGR0hJSktMTU5P\r\n\r\nQUJD ö QUJDREVGR0hJSktMTU5PUFFS=",
        "0123456789abcde 0123456789abcdef\n0123\n012",
        "ünïcödé/ABCDEFGHIJKLMNOP+/==",
    ];
    for t in texts {
        let want: Vec<_> = re.find_iter(t.as_bytes()).map(|m| m.range()).collect();
        assert_eq!(super::base64_spans(t.as_bytes()), want, "{t:?}");
    }
}

#[test]
fn an_anchor_word_outside_an_assignment_runs_no_assignment_regex() {
    let r = on();
    let assignment = r.detectors.iter().find(|d| d.kind == "assignment").unwrap();
    let runs = |t: &str| super::Runs::of(t);
    let cand = |t: &str| super::candidate(&t.to_ascii_lowercase(), assignment, &runs(t));
    assert!(!cand("The test suite passes. A key idea: tokens are cheap."));
    for t in [
        "password: CorrectHorseBatteryStaple",
        r#"{\"db_password\": \"s3cr3t-Value-9\"}"#,
        "export FOO_TOKEN=abcdefghijklmnop",
        "api.key\t= 'abcdefgh12345678'",
        "SECRET_KEY => x",
    ] {
        assert!(cand(t), "{t}");
    }
    // A path is a long base64 run, but no run of key characters.
    let discord = r.detectors.iter().find(|d| d.kind == "discord-token").unwrap();
    let path = "see /home/dev/src/bench/src/backup/job_40.rs.";
    assert!(!super::candidate(&path.to_ascii_lowercase(), discord, &runs(path)));
}
