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

use anyhow::Result;
use regex::Regex;

use crate::capture::TurnInput;
use crate::config::Privacy;
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
    re: Regex,
    show: Show,
    check: Option<Check>,
}

/// The compiled rules: built-in detectors, the user's extra patterns and
/// allow-list. Build once per process.
pub struct Redactor {
    detectors: Vec<Detector>,
    allow: Vec<Regex>,
}

/// (kind, pattern, show, check). The span replaced is the named group `s`
/// when present, else the whole match. Order matters: a more specific
/// format comes before a general one that would also match it.
const BUILTIN: &[(&str, &str, Show, Option<Check>)] = &[
    (
        "private-key",
        r"(?s)-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n[A-Za-z0-9+/=:,\- ]{0,100})*)",
        Show::Nothing,
        None,
    ),
    (
        "anthropic-key",
        r"(?-u:\b)(?P<p>sk-ant-(?:[a-z]{3,8}[0-9]{2}-)?)[A-Za-z0-9_\-]{20,}",
        Show::PrefixAndTwo,
        Some(random_run),
    ),
    ("stripe-key", r"(?-u:\b)(?P<p>(?:sk|rk)_(?:live|test)_)[0-9A-Za-z]{16,}", Show::PrefixAndTwo, Some(random_run)),
    (
        "openai-key",
        r"(?-u:\b)(?P<p>sk-(?:proj-|svcacct-|admin-|None-)?)[A-Za-z0-9_\-]{20,}",
        Show::PrefixAndTwo,
        Some(random_run),
    ),
    ("github-token", r"(?-u:\b)(?P<p>(?:ghp|gho|ghu|ghs|ghr)_)[A-Za-z0-9]{36,255}(?-u:\b)", Show::PrefixAndTwo, None),
    ("github-token", r"(?-u:\b)(?P<p>github_pat_)[A-Za-z0-9_]{40,255}(?-u:\b)", Show::PrefixAndTwo, None),
    ("gitlab-token", r"(?-u:\b)(?P<p>glpat-)[A-Za-z0-9_\-]{20,}", Show::PrefixAndTwo, None),
    ("slack-token", r"(?-u:\b)(?P<p>xox[abposre]-)[A-Za-z0-9\-]{10,}", Show::PrefixAndTwo, Some(has_digit)),
    ("google-api-key", r"(?-u:\b)(?P<p>AIza)[0-9A-Za-z_\-]{35}(?-u:\b)", Show::PrefixAndTwo, None),
    // An AWS secret is 40 characters of base64 with no prefix of its own:
    // found by its label, or on the line of an access key id (CSV export).
    (
        "aws-secret-key",
        r#"(?i)(?:aws.{0,20}?(?:secret|sk)|secret[_ \-]?access[_ \-]?key).{0,20}?[=:"'\s]+(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        Show::Nothing,
        Some(mixed_case_and_digit),
    ),
    (
        "aws-secret-key",
        r#"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}[ \t,;:|"'=]{1,5}(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        Show::Nothing,
        Some(mixed_case_and_digit),
    ),
    ("aws-access-key-id", r"(?-u:\b)(?P<p>(?:AKIA|ASIA|ABIA|ACCA))[A-Z0-9]{16}(?-u:\b)", Show::PrefixAndTwo, None),
    (
        "jwt",
        r"(?-u:\b)(?P<p>eyJ)[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        Show::PrefixAndTwo,
        None,
    ),
    (
        "bearer-token",
        r"(?i)(?:(?-u:\b)bearer|authorization:[ \t]*token)[ \t]+(?P<s>[A-Za-z0-9._~+/\-]{16,}=*)",
        Show::Nothing,
        Some(random_run),
    ),
    ("basic-auth", r"(?i)authorization:[ \t]*basic[ \t]+(?P<s>[A-Za-z0-9+/]{8,}=*)", Show::Nothing, None),
    (
        "url-password",
        r"(?i)(?-u:\b)[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]{0,64}:(?P<s>[^\s@/]{1,128})@[a-z0-9.\-\[\]]",
        Show::Nothing,
        Some(not_placeholder),
    ),
    (
        "password",
        r#"(?i)(?-u:\b)(?P<k>[a-z0-9_.\-]{0,30}(?:password|passwd|pwd|passphrase)[a-z0-9_\-]{0,20})["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?(?P<s>[^\s"'`,;&<>]{8,})"#,
        Show::Nothing,
        Some(high_entropy),
    ),
    (
        "secret",
        r#"(?i)(?-u:\b)(?P<k>[a-z0-9_.\-]{0,30}(?:secret|token|api[_\-]?key|access[_\-]?key|auth[_\-]?key|private[_\-]?key|credentials?)[a-z0-9_\-]{0,20})["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?(?P<s>[^\s"'`,;&<>]{12,})"#,
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

fn not_placeholder(s: &str) -> bool {
    !placeholder(s)
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
            for (kind, pat, show, check) in BUILTIN {
                let re = Regex::new(pat).expect("built-in pattern compiles");
                detectors.push(Detector { kind: Cow::Borrowed(kind), re, show: *show, check: *check });
            }
            for (i, pat) in p.extra_patterns.iter().enumerate() {
                let re = Regex::new(pat).map_err(|e| {
                    fail(Exit::Config, format!("[privacy] extra_patterns[{i}] is not a valid regex: {}", one_line(&e)))
                })?;
                detectors.push(Detector { kind: Cow::Borrowed("custom"), re, show: Show::Nothing, check: None });
            }
        }
        let mut allow = Vec::new();
        for (i, pat) in p.allow.iter().enumerate() {
            allow.push(Regex::new(pat).map_err(|e| {
                fail(Exit::Config, format!("[privacy] allow[{i}] is not a valid regex: {}", one_line(&e)))
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
        for d in &self.detectors {
            if !d.re.is_match(&out) {
                continue;
            }
            let mut n = 0;
            let mut buf = String::with_capacity(out.len());
            let mut last = 0;
            for caps in d.re.captures_iter(&out) {
                let span = caps.name("s").unwrap_or_else(|| caps.get(0).expect("group 0"));
                let secret = span.as_str();
                if secret.contains(MARKER)
                    || d.check.is_some_and(|c| !c(secret))
                    || caps.name("k").is_some_and(|k| non_secret_key(k.as_str()))
                    || self.allowed(secret)
                {
                    continue;
                }
                buf.push_str(&out[last..span.start()]);
                buf.push_str(MARKER);
                buf.push_str(&d.kind);
                if let (Show::PrefixAndTwo, Some(p)) = (d.show, caps.name("p")) {
                    let keep = p.end() - span.start();
                    let shown: String = secret.chars().take(keep + 2).collect();
                    buf.push(' ');
                    buf.push_str(&shown);
                    buf.push('…');
                }
                buf.push(']');
                last = span.end();
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

fn one_line(e: &regex::Error) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
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
    fn redact_false_changes_nothing() {
        let r = Redactor::new(&Privacy { redact: false, ..Privacy::default() }).unwrap();
        assert!(!r.enabled());
        assert_eq!(r.redact("sk-proj-ABCDEF1234567890abcdef1234567890").1, 0);
    }
}
