//! The catalogue of built-in detectors: each secret format's shape (anchors,
//! pattern, what the marker shows) and the extra tests a regex cannot say
//! (entropy, placeholders, names of assignments).

use super::{Check, Show, MARKER};

/// One built-in detector. The span replaced is the named group `s` when
/// present, else the whole match. `anchors`: lower-case strings of which
/// one must occur in the text before the regex is compiled or run at all,
/// so a turn without them costs one scan (a process captures one turn:
/// compiling every regex would cost more than the capture).
pub(super) struct Builtin {
    pub(super) kind: &'static str,
    pub(super) anchors: &'static [&'static str],
    /// Key characters (`[A-Za-z0-9_-]`) that must follow an anchor.
    pub(super) tail: usize,
    /// A run of this many base64 characters must be somewhere in the text.
    pub(super) run: usize,
    pub(super) pattern: &'static str,
    pub(super) show: Show,
    pub(super) check: Option<Check>,
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

/// Order matters: a more specific format comes before a general one that
/// would also match it. Repetition counts stay small or unbounded (a
/// bounded repeat of a Unicode class compiles into a large automaton).
pub(super) const BUILTIN: &[Builtin] = &[
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
pub(super) fn assignment_kind(name: &str) -> Option<(&'static str, usize)> {
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
