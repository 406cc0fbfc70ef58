//! Secret redaction: value-shaped detectors that replace API keys, tokens,
//! private keys and passwords with a marker before a turn is stored,
//! hashed or sent to a model. The marker keeps the kind and, for provider
//! key formats, the format's public prefix and two characters, so the turn
//! stays readable and searchable: `[REDACTED:openai-key sk-proj-AB…]`.
//!
//! Precision over recall: a detector matches the shape of a value (a known
//! prefix, a JWT's three parts, a PEM block, a password in a URL, a
//! `password=` assignment whose value looks random), never a word.
//! Redacting is idempotent: a marker matches no detector.

use std::borrow::Cow;
use std::sync::OnceLock;

use anyhow::Result;
use regex::bytes::{Regex as BytesRegex, RegexBuilder};
use regex::Regex;
use regex_lite::Regex as LiteRegex;

fn builtin_regex(pattern: &str) -> std::result::Result<BytesRegex, regex::Error> {
    RegexBuilder::new(pattern).unicode(false).build()
}

use crate::capture::TurnInput;
use crate::config::Privacy;
use crate::display::one_line;
use crate::exit::{fail, Exit};

/// The text every marker starts with.
pub const MARKER: &str = "[REDACTED:";

/// How much of a matched secret the marker shows.
#[derive(Clone, Copy)]
enum Show {
    /// Nothing but the kind.
    Nothing,
    /// The named group `p` (the format's public prefix) and two more chars.
    PrefixAndTwo,
}

/// An extra test on the secret span, for shapes a regex cannot say.
type Check = fn(&str) -> bool;

struct Detector {
    kind: Cow<'static, str>,
    /// Lower-case strings of which one must be in the text; empty: always run.
    anchors: &'static [&'static str],
    tail: usize,
    run: usize,
    pattern: Cow<'static, str>,
    /// Compiled on first need: regex-lite for short texts (it compiles in
    /// microseconds; a capture is one short turn), the `regex` crate for
    /// long ones (it compiles in a few hundred microseconds but scans a
    /// megabyte in about one millisecond, where regex-lite takes 150).
    lite: OnceLock<LiteRegex>,
    full: OnceLock<BytesRegex>,
    show: Show,
    check: Option<Check>,
}

/// Texts at least this long are scanned with the `regex` crate.
const LONG_TEXT: usize = 16 << 10;

/// Byte ranges of one match and of its named groups.
struct Hit {
    whole: std::ops::Range<usize>,
    s: Option<std::ops::Range<usize>>,
    k: Option<std::ops::Range<usize>>,
    p: Option<std::ops::Range<usize>>,
}

impl Detector {
    /// The patterns are ASCII-only (`\s`, `(?i)`, word boundaries) in both
    /// engines; their classes are ASCII or negated ASCII sets, so a span
    /// holds whole UTF-8 characters (checked anyway before slicing).
    /// A user's pattern (`custom`) always runs on the `regex` crate.
    fn find_at(&self, text: &str, at: usize) -> Option<Hit> {
        if text.len() < LONG_TEXT && self.anchors_known() {
            let re = self.lite.get_or_init(|| LiteRegex::new(&self.pattern).expect("checked by a test"));
            let c = re.captures_at(text, at)?;
            let r = |n: &str| c.name(n).map(|m| m.range());
            return Some(Hit { whole: c.get(0).expect("group 0").range(), s: r("s"), k: r("k"), p: r("p") });
        }
        let re = self.full.get_or_init(|| builtin_regex(&self.pattern).expect("checked by a test"));
        let c = re.captures_at(text.as_bytes(), at)?;
        let r = |n: &str| c.name(n).map(|m| m.range());
        Some(Hit { whole: c.get(0).expect("group 0").range(), s: r("s"), k: r("k"), p: r("p") })
    }

    /// Built-in detectors have anchors; a user's pattern has none.
    fn anchors_known(&self) -> bool {
        !self.anchors.is_empty()
    }
}

/// The compiled rules: built-in detectors, the user's extra patterns and
/// allow-list. Build once per process.
pub struct Redactor {
    detectors: Vec<Detector>,
    allow: Vec<Regex>,
}

/// One built-in detector. The span replaced is the named group `s` when
/// present, else the whole match. `anchors`: lower-case strings of which
/// one must occur in the text before the regex is compiled or run at all,
/// so a turn without them costs one scan (a process captures one turn:
/// compiling every regex would cost more than the capture).
struct Builtin {
    kind: &'static str,
    anchors: &'static [&'static str],
    /// Key characters (`[A-Za-z0-9_-]`) that must follow an anchor.
    tail: usize,
    /// A run of this many base64 characters must be somewhere in the text.
    run: usize,
    pattern: &'static str,
    show: Show,
    check: Option<Check>,
}

const fn rule(
    kind: &'static str,
    anchors: &'static [&'static str],
    pattern: &'static str,
    show: Show,
    check: Option<Check>,
) -> Builtin {
    Builtin { kind, anchors, tail: 0, run: 0, pattern, show, check }
}

impl Builtin {
    const fn tail(mut self, n: usize) -> Builtin {
        self.tail = n;
        self
    }
    const fn run(mut self, n: usize) -> Builtin {
        self.run = n;
        self
    }
}

fn key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `lower` (the text in lower case) may hold a match: one anchor
/// followed by `tail` key characters, and a base64 run of `run`.
fn candidate(lower: &str, anchors: &[&str], tail: usize, run: usize, longest_run: usize) -> bool {
    if run > longest_run {
        return false;
    }
    if anchors.is_empty() {
        return true;
    }
    let b = lower.as_bytes();
    anchors.iter().any(|a| {
        lower.match_indices(a).any(|(i, _)| {
            let from = i + a.len();
            tail == 0 || (b.len() >= from + tail && b[from..from + tail].iter().all(|&c| key_char(c)))
        })
    })
}

/// The longest run of base64 characters (`[A-Za-z0-9+/_-]`) in the text.
fn longest_base64_run(text: &str) -> usize {
    let (mut best, mut cur) = (0, 0);
    for &c in text.as_bytes() {
        if key_char(c) || c == b'+' || c == b'/' {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Order matters: a more specific format comes before a general one that
/// would also match it. Repetition counts stay small or unbounded (a
/// bounded repeat of a Unicode class compiles into a large automaton).
const BUILTIN: &[Builtin] = &[
    rule(
        "private-key",
        &["private key"],
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n[A-Za-z0-9+/=:,\- ]*)*)",
        Show::Nothing,
        None,
    ),
    rule(
        "anthropic-key",
        &["sk-ant-"],
        r"(?-u:\b)(?P<p>sk-ant-(?:[a-z]{3,8}[0-9]{2}-)?)[A-Za-z0-9_\-]{20,}",
        Show::PrefixAndTwo,
        Some(random_run),
    ).tail(20),
    rule(
        "stripe-key",
        &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        r"(?-u:\b)(?P<p>(?:sk|rk)_(?:live|test)_)[0-9A-Za-z]{16,}",
        Show::PrefixAndTwo,
        Some(random_run),
    ).tail(16),
    rule(
        "openai-key",
        &["sk-"],
        r"(?-u:\b)(?P<p>sk-(?:proj-|svcacct-|admin-|None-)?)[A-Za-z0-9_\-]{20,}",
        Show::PrefixAndTwo,
        Some(random_run),
    ).tail(20),
    rule(
        "github-token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"(?-u:\b)(?P<p>(?:ghp|gho|ghu|ghs|ghr)_)[A-Za-z0-9]{36,}(?-u:\b)",
        Show::PrefixAndTwo,
        None,
    ).tail(36),
    rule("github-token", &["github_pat_"], r"(?-u:\b)(?P<p>github_pat_)[A-Za-z0-9_]{40,}(?-u:\b)", Show::PrefixAndTwo, None).tail(40),
    rule("gitlab-token", &["glpat-"], r"(?-u:\b)(?P<p>glpat-)[A-Za-z0-9_\-]{20,}", Show::PrefixAndTwo, None).tail(20),
    rule("slack-token", &["xox"], r"(?-u:\b)(?P<p>xox[abposre]-)[A-Za-z0-9\-]{10,}", Show::PrefixAndTwo, Some(has_digit)).tail(10),
    rule("google-api-key", &["aiza"], r"(?-u:\b)(?P<p>AIza)[0-9A-Za-z_\-]{35}(?-u:\b)", Show::PrefixAndTwo, None).tail(35),
    // An AWS secret is 40 characters of base64 with no prefix of its own:
    // found by its label, or on the line of an access key id (CSV export).
    rule(
        "aws-secret-key",
        &["aws", "secret"],
        r#"(?i)(?:aws[\x20-\x7E]{0,20}?(?:secret|sk)|secret[_ \-]?access[_ \-]?key)[\x20-\x7E]{0,20}?[=:"'\s]+(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        Show::Nothing,
        Some(mixed_case_and_digit),
    ).run(40),
    rule(
        "aws-secret-key",
        &["akia", "asia", "abia", "acca"],
        r#"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}[ \t,;:|"'=]{1,5}(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        Show::Nothing,
        Some(mixed_case_and_digit),
    ).tail(16).run(40),
    rule(
        "aws-access-key-id",
        &["akia", "asia", "abia", "acca"],
        r"(?-u:\b)(?P<p>(?:AKIA|ASIA|ABIA|ACCA))[A-Z0-9]{16}(?-u:\b)",
        Show::PrefixAndTwo,
        None,
    ).tail(16),
    rule(
        "jwt",
        &["eyj"],
        r"(?-u:\b)(?P<p>eyJ)[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        Show::PrefixAndTwo,
        None,
    ).tail(8),
    rule(
        "bearer-token",
        &["bearer", "authorization"],
        r"(?i)(?:(?-u:\b)bearer|authorization:[ \t]*token)[ \t]+(?P<s>[A-Za-z0-9._~+/\-]{16,}=*)",
        Show::Nothing,
        Some(random_run),
    ),
    rule(
        "basic-auth",
        &["authorization"],
        r"(?i)authorization:[ \t]*basic[ \t]+(?P<s>[A-Za-z0-9+/]{8,}=*)",
        Show::Nothing,
        None,
    ),
    rule(
        "url-password",
        &["://"],
        r"(?i)(?-u:\b)[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]*:(?P<s>[^\s@/]+)@[a-z0-9.\-\[\]]",
        Show::Nothing,
        Some(url_password),
    ),
    // `name = value`, `name: value`, `"name": "value"`: the kind comes from
    // the name (see `assignment_kind`), the value must look random.
    rule(
        "assignment",
        &["pass", "pwd", "secret", "token", "key", "credential"],
        r#"(?-u:\b)(?P<k>[A-Za-z0-9_.\-]+)["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?(?P<s>[^\s"'`,;&<>]{8,})"#,
        Show::Nothing,
        Some(high_entropy),
    ),
];

/// A run of at least 16 ASCII letters and digits that holds both: the
/// shape of a random key body, not of a hyphenated word (`sk-learn-…`).
fn random_run(s: &str) -> bool {
    s.split(|c: char| !c.is_ascii_alphanumeric()).any(|run| {
        run.len() >= 16 && run.bytes().any(|b| b.is_ascii_digit()) && run.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

/// AWS secrets are base64 of random bytes: upper, lower and digits; a git
/// SHA (lower-case hex) is not one.
fn mixed_case_and_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts.iter().filter(|&&c| c > 0).map(|&c| c as f64 / n).map(|p| -p * p.log2()).sum()
}

/// Placeholders and references are not secrets: `$DB_PASS`, `${X}`,
/// `<password>`, `{{ token }}`, `****`, `os.environ[...]`, `get_token()`.
fn placeholder(s: &str) -> bool {
    let first = s.chars().next().unwrap_or(' ');
    matches!(first, '$' | '{' | '<' | '%' | '[' | '(' | '*' | '.')
        || s.contains('(')
        || s.contains("${")
        || s.chars().all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || s.starts_with(MARKER)
}

/// A password in a URL, not a placeholder (`${PGPASSWORD}`, `<password>`).
fn url_password(s: &str) -> bool {
    s.len() <= 128 && !placeholder(s)
}

/// A value that looks random: no placeholder, letters and digits, and more
/// than three bits of entropy a character. Words, identifiers
/// (`settings.SECRET_KEY`), numbers and `changeme` stay.
fn high_entropy(s: &str) -> bool {
    !placeholder(s)
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b.is_ascii_alphabetic())
        && entropy(s) >= ((s.len() as f64).log2() * 0.85).min(3.0)
}

/// The kind of secret an assignment's name announces, and the shortest
/// value taken for one; `None`: not a secret's name.
fn assignment_kind(name: &str) -> Option<(&'static str, usize)> {
    let k = name.to_ascii_lowercase();
    if non_secret_key(&k) {
        return None;
    }
    if ["password", "passwd", "pwd", "passphrase"].iter().any(|w| k.contains(w)) {
        return Some(("password", 8));
    }
    let secretish = [
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "accesskey",
        "access_key",
        "access-key",
        "authkey",
        "auth_key",
        "auth-key",
        "privatekey",
        "private_key",
        "private-key",
        "credential",
    ];
    secretish.iter().any(|w| k.contains(w)).then_some(("secret", 12))
}

/// Names of assignments whose value is about a secret, not the secret:
/// `token_count = 12345678a`, `password_hash = …`, `secret_name: prod-db-2`.
fn non_secret_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    ["hash", "count", "_id", "name", "file", "path", "url", "type", "len", "size", "max", "min", "limit", "env", "ref"]
        .iter()
        .any(|w| k.ends_with(w))
}

impl Redactor {
    /// Compile the built-in detectors, then the user's. With `redact =
    /// false` the redactor changes nothing.
    pub fn new(p: &Privacy) -> Result<Redactor> {
        let mut detectors = Vec::new();
        if p.redact {
            for b in BUILTIN {
                detectors.push(Detector {
                    kind: Cow::Borrowed(b.kind),
                    anchors: b.anchors,
                    tail: b.tail,
                    run: b.run,
                    pattern: Cow::Borrowed(b.pattern),
                    lite: OnceLock::new(),
                    full: OnceLock::new(),
                    show: b.show,
                    check: b.check,
                });
            }
            for (i, pat) in p.extra_patterns.iter().enumerate() {
                let re = BytesRegex::new(pat).map_err(|e| {
                    fail(
                        Exit::Config,
                        format!("[privacy] extra_patterns[{i}] is not a valid regex: {}", one_line(&e.to_string())),
                    )
                })?;
                detectors.push(Detector {
                    kind: Cow::Borrowed("custom"),
                    anchors: &[],
                    tail: 0,
                    run: 0,
                    pattern: Cow::Owned(pat.clone()),
                    lite: OnceLock::new(),
                    full: OnceLock::from(re),
                    show: Show::Nothing,
                    check: None,
                });
            }
        }
        let mut allow = Vec::new();
        for (i, pat) in p.allow.iter().enumerate() {
            allow.push(Regex::new(pat).map_err(|e| {
                fail(Exit::Config, format!("[privacy] allow[{i}] is not a valid regex: {}", one_line(&e.to_string())))
            })?);
        }
        Ok(Redactor { detectors, allow })
    }

    /// Whether this redactor changes anything at all.
    pub fn enabled(&self) -> bool {
        !self.detectors.is_empty()
    }

    /// Replace every secret in `text` by a marker; returns the text
    /// (borrowed when unchanged) and the number of secrets replaced.
    pub fn redact<'a>(&self, text: &'a str) -> (Cow<'a, str>, usize) {
        let mut out: Cow<'a, str> = Cow::Borrowed(text);
        let mut total = 0;
        // Anchors are looked up in the original text: a marker that an
        // earlier detector wrote never makes a later one match.
        let lower = text.to_ascii_lowercase();
        let longest_run = longest_base64_run(text);
        for d in &self.detectors {
            if !candidate(&lower, d.anchors, d.tail, d.run, longest_run) {
                continue;
            }
            let mut n = 0;
            let mut buf = String::with_capacity(out.len());
            let mut last = 0;
            let mut at = 0;
            while let Some(hit) = d.find_at(&out, at) {
                let whole = hit.whole.clone();
                // A skipped assignment resumes after its name, so `user:
                // password=…` still finds the password.
                at = hit.k.as_ref().map_or(whole.end, |k| k.end).max(whole.start + 1);
                let span = hit.s.clone().unwrap_or(whole.clone());
                if span.start < last || !out.is_char_boundary(span.start) || !out.is_char_boundary(span.end) {
                    continue;
                }
                let secret = &out[span.clone()];
                let kind = match &hit.k {
                    None => &*d.kind,
                    Some(k) => match out.get(k.clone()).and_then(assignment_kind) {
                        Some((kind, min)) if secret.len() >= min => kind,
                        _ => continue,
                    },
                };
                if secret.contains(MARKER) || d.check.is_some_and(|c| !c(secret)) || self.allowed(secret) {
                    continue;
                }
                buf.push_str(&out[last..span.start]);
                buf.push_str(MARKER);
                buf.push_str(kind);
                if let (Show::PrefixAndTwo, Some(p)) = (d.show, &hit.p) {
                    let keep = p.end - span.start;
                    let shown: String = secret.chars().take(keep + 2).collect();
                    buf.push(' ');
                    buf.push_str(&shown);
                    buf.push('…');
                }
                buf.push(']');
                last = span.end;
                at = at.max(whole.end);
                n += 1;
            }
            if n > 0 {
                buf.push_str(&out[last..]);
                out = Cow::Owned(buf);
                total += n;
            }
        }
        (out, total)
    }

    fn allowed(&self, secret: &str) -> bool {
        self.allow.iter().any(|a| a.is_match(secret))
    }
}

/// Redact the texts of one turn in place, before anything is stored or
/// hashed from them; returns the number of secrets replaced. Every door
/// of capture (flags, `--stdin`, import, hooks) calls this.
pub fn redact_turn(r: &Redactor, input: &mut TurnInput) -> usize {
    let mut n = 0;
    for field in [&mut input.user, &mut input.assistant] {
        let (text, k) = r.redact(field);
        if k > 0 {
            *field = text.into_owned();
            n += k;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on() -> Redactor {
        Redactor::new(&Privacy::default()).unwrap()
    }

    #[test]
    fn the_issue_example_keeps_kind_prefix_and_surrounding_words() {
        let (t, n) =
            on().redact("key sk-proj-ABCDEF1234567890abcdef1234567890 and postgres://admin:hunter2@db:5432/app ok");
        assert_eq!(n, 2, "{t}");
        assert_eq!(
            t,
            "key [REDACTED:openai-key sk-proj-AB…] and postgres://admin:[REDACTED:url-password]@db:5432/app ok"
        );
    }

    #[test]
    fn redacting_twice_changes_nothing_more() {
        let r = on();
        let text = "AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; token=ghp_0123456789abcdefghijABCDEFGHIJ012345";
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
}
/// Run by scripts/bench/redaction.sh: the cost of the first redaction in
/// a process (patterns compiled on demand) and of a long text.
#[cfg(test)]
mod cost {
    use std::time::{Duration, Instant};

    #[test]
    #[ignore = "timing, printed for BENCHMARKS.md by scripts/bench/redaction.sh"]
    fn first_call_and_long_text() {
        let t = Instant::now();
        let r = super::Redactor::new(&crate::config::Privacy::default()).unwrap();
        let (_, a) = r.redact("My key is sk-proj-ABCDEF1234567890abcdef1234567890 and the database is postgres://admin:hunter2@db:5432/app; why does the deploy fail with 401?");
        let (_, b) = r.redact("The key was revoked: create a new one, store it in the secret manager, and rotate the database password too.");
        let first = t.elapsed();
        assert_eq!(a + b, 2);
        let t = Instant::now();
        let (_, plain) =
            r.redact("How do I rotate the logs every night, and keep a week of them compressed? Use logrotate.");
        let plain_t = t.elapsed();
        assert_eq!(plain, 0);
        let chunk = "the token key: value and secret password sk-learn https://host/x?a=b eyJ aws AKIA authorization bearer xox ";
        let text = chunk.repeat((1 << 20) / chunk.len());
        let t = Instant::now();
        r.redact(&text);
        let long = t.elapsed();
        eprintln!("redaction in-process: first turn with secrets {first:?} (compiling included), plain turn {plain_t:?}, 1 MiB of trigger words {long:?}");
        assert!(first < Duration::from_millis(50) && long < Duration::from_secs(2));
    }
}
