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
    /// A run of this many key characters (`[A-Za-z0-9_-]`, no `/` or `+`:
    /// a path is no candidate) must be somewhere in the text.
    pub(super) key_run: usize,
    /// The anchor is part of a name that a `:` or `=` follows (after the
    /// rest of the name, an optional backslash and quote, and blanks): the
    /// shape of an assignment, which the word alone ("passes") is not.
    pub(super) assigned: bool,
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
    Builtin { kind, anchors, tail: 0, run: 0, key_run: 0, assigned: false, pattern, show, check }
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
    const fn key_run(mut self, n: usize) -> Builtin {
        self.key_run = n;
        self
    }
    const fn assigned(mut self) -> Builtin {
        self.assigned = true;
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
    // A key pasted without its BEGIN line: base64 lines up to the END line.
    rule(
        "private-key",
        &["private key"],
        r"(?:[A-Za-z0-9+/=]{16,}\r?\n)+[A-Za-z0-9+/=]*\r?\n?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
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
    // A secret a few lines after its key id (`aws configure` output, a
    // pasted credentials file with other keys between).
    rule(
        "aws-secret-key",
        &["akia", "asia", "abia", "acca"],
        r#"(?s)(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}.{0,300}?[^A-Za-z0-9/+=](?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
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
    rule("vault-token", &["hvs.", "hvb.", "hvr."], r"(?-u:\b)(?P<p>hv[sbr]\.)[A-Za-z0-9_\-]{24,}", Show::PrefixAndTwo, Some(random_run)).tail(24),
    rule("npm-token", &["npm_"], r"(?-u:\b)(?P<p>npm_)[A-Za-z0-9]{36}(?-u:\b)", Show::PrefixAndTwo, Some(has_digit)).tail(36),
    rule(
        "pypi-token",
        &["pypi-ageichlwas5vcmc"],
        r"(?-u:\b)(?P<p>pypi-)AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}",
        Show::PrefixAndTwo,
        None,
    ),
    rule("huggingface-token", &["hf_"], r"(?-u:\b)(?P<p>hf_)[A-Za-z]{34,}(?-u:\b)", Show::PrefixAndTwo, Some(mixed_case)).tail(34),
    rule("twilio-key", &["sk"], r"(?-u:\b)(?P<p>SK)[0-9a-f]{32}(?-u:\b)", Show::PrefixAndTwo, Some(random_run)).tail(32),
    rule(
        "sendgrid-key",
        &["sg."],
        r"(?-u:\b)(?P<p>SG\.)[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?-u:\b)",
        Show::PrefixAndTwo,
        None,
    ).tail(22),
    rule(
        "slack-webhook",
        &["hooks.slack.com/"],
        r"(?i)hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_\-]+)+)",
        Show::Nothing,
        Some(random_run),
    ),
    rule(
        "discord-webhook",
        &["/api/webhooks/"],
        r"(?i)discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/(?P<s>[A-Za-z0-9_\-]{60,})",
        Show::Nothing,
        None,
    ),
    rule(
        "discord-token",
        &["."],
        r"(?-u:\b)[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}(?-u:\b)",
        Show::Nothing,
        Some(mixed_case_and_digit),
    ).tail(6).key_run(27),
    rule("telegram-bot-token", &[":aa"], r"(?:(?-u:\b)|bot)(?P<s>[0-9]{8,10}:AA[A-Za-z0-9_\-]{33})(?-u:\b)", Show::Nothing, None).tail(33),
    rule("webhook-secret", &["whsec_"], r"(?-u:\b)(?P<p>whsec_)[A-Za-z0-9+/=]{24,}", Show::PrefixAndTwo, Some(random_run)).tail(24),
    rule(
        "digitalocean-token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"(?-u:\b)(?P<p>do[opr]_v1_)[a-f0-9]{64}(?-u:\b)",
        Show::PrefixAndTwo,
        None,
    ).tail(64),
    // Other vendors' prefixed tokens (the formats secret scanners know):
    // Shopify, PlanetScale, Doppler, Postman, Linear, Grafana, Databricks,
    // Groq, Replicate, xAI, Perplexity, Atlassian, Sentry, 1Password,
    // Artifactory, Alibaba, Age.
    rule(
        "api-token",
        &[
            "shpat_", "shpss_", "shpca_", "shppa_", "pscale_", "dp.pt.", "dp.st.", "pmak-", "lin_api_", "glc_",
            "glsa_", "dapi", "gsk_", "r8_", "xai-", "pplx-", "atatt3", "sntrys_", "ops_eyj", "akcp", "ltai",
            "age-secret-key-1",
        ],
        r"(?-u:\b)(?P<p>shp(?:at|ss|ca|pa)_|pscale_(?:tkn|pw|oauth)_|dp\.(?:pt|st)\.|PMAK-|lin_api_|gl(?:c|sa)_|dapi|gsk_|r8_|xai-|pplx-|ATATT3|sntrys_|ops_eyJ|AKCp|LTAI|AGE-SECRET-KEY-1)[A-Za-z0-9_\-+/=]{20,}",
        Show::PrefixAndTwo,
        Some(random_run),
    ),
    rule(
        "azure-storage-key",
        &["accountkey=", "sharedaccesskey="],
        r"(?i)(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        Show::Nothing,
        Some(random_run),
    ),
    rule(
        "azure-sas",
        &["sig="],
        r"(?i)(?:^|[?&;\s])sig=(?P<s>[A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})",
        Show::Nothing,
        Some(random_run),
    ),
    rule(
        "azure-client-secret",
        &["q~"],
        r"(?:^|[^A-Za-z0-9_~.])(?P<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|$)",
        Show::Nothing,
        None,
    ),
    // Passwords on command lines: `mysql -pSECRET`, `curl -u user:pass`,
    // `docker login -p`, `sshpass -p`, `az login -p` (a login command where
    // a command starts, so that prose about `-p` stays).
    rule(
        "password",
        &["mysql"],
        r#"(?-u:\b)mysql(?:dump|admin|sh|import|check)?(?-u:\b)[^\n]*?[ \t]-p['"]?(?P<s>[^\s'"]+)"#,
        Show::Nothing,
        Some(cli_password),
    ),
    rule(
        "password",
        &["curl"],
        r#"(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-u|--user)(?:[ \t]+|=)?['"]?[^\s:'"]+:(?P<s>[^\s'"]+)"#,
        Show::Nothing,
        Some(cli_password),
    ),
    rule(
        "password",
        &["login"],
        r#"(?m)(?:^|[;&|`(][ \t]*|\$[ \t]+)(?:sudo[ \t]+)?(?:docker|podman|nerdctl|helm|oras|az|buildah|skopeo)[ \t]+(?:registry[ \t]+)?login(?-u:\b)[^\n]*?[ \t](?:-p|--password)(?:[ \t]+|=)['"]?(?P<s>[^\s'"]+)"#,
        Show::Nothing,
        Some(cli_password),
    ),
    rule("password", &["sshpass"], r#"(?-u:\b)sshpass[ \t]+-p[ \t]*['"]?(?P<s>[^\s'"]+)"#, Show::Nothing, Some(cli_password)),
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
        r#"(?-u:\b)(?P<k>[A-Za-z0-9_.\-]+)\\?["']?[ \t]*(?::|=|:=|=>)[ \t]*\\?["']?(?P<s>[^\s"'`,;&<>\\]{8,})"#,
        Show::Nothing,
        None,
    ).assigned(),
];

/// A run of at least 16 ASCII letters and digits that holds both: the
/// shape of a random key body, not of a hyphenated word (`sk-learn-…`).
fn random_run(s: &str) -> bool {
    s.split(|c: char| !c.is_ascii_alphanumeric()).any(|run| {
        run.len() >= 16 && run.bytes().any(|b| b.is_ascii_digit()) && run.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

fn mixed_case(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_uppercase()) && s.bytes().any(|b| b.is_ascii_lowercase())
}

/// A password given on a command line, not a reference to one
/// (`-p"$PASS"`, `-p$(cat f)`) nor the next option.
fn cli_password(s: &str) -> bool {
    !placeholder(s) && !s.starts_with('-') && !s.starts_with('`')
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
pub(super) fn placeholder(s: &str) -> bool {
    let first = s.chars().next().unwrap_or(' ');
    matches!(first, '$' | '{' | '<' | '%' | '[' | '(' | '*' | '.')
        || s.contains('(')
        || s.contains("${")
        || s.chars().all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || s.starts_with(MARKER)
        || documentation_example(s)
}

/// The example keys of vendors' documentation (AWS's
/// `AKIAIOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`):
/// published, so not a secret, and mangling them makes docs unreadable.
pub(super) fn documentation_example(s: &str) -> bool {
    s.contains("EXAMPLE")
}

/// A password in a URL, not a placeholder (`${PGPASSWORD}`, `<password>`).
fn url_password(s: &str) -> bool {
    s.len() <= 128 && !placeholder(s)
}

/// Whether the value of an assignment whose name announces `kind` is a
/// secret: it looks random (letters and digits, or a long run of letters
/// in mixed case), is no placeholder and no identifier (`MyClass2Handler`);
/// a password may also be a passphrase of capitalised words
/// (`CorrectHorseBatteryStaple`). Words, names (`settings.SECRET_KEY`),
/// numbers and `changeme` stay.
pub(super) fn assigned_secret(kind: &str, s: &str) -> bool {
    if placeholder(s) {
        return false;
    }
    let random = high_entropy(s) || random_letters(s);
    match kind {
        "password" => random || passphrase(s),
        _ => random && !identifier(s),
    }
}

/// Letter runs of an identifier: split at case changes (`HTTPServer`:
/// `HTTP`, `Server`), digits and punctuation.
fn word_pieces(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = None;
    for i in 0..=b.len() {
        let c = b.get(i).copied();
        let letter = c.is_some_and(|c| c.is_ascii_alphabetic());
        let boundary = match (start, c) {
            (Some(st), Some(c)) if letter && i > st => {
                let prev = b[i - 1];
                // aB, or the B of ABc (HTTPServer -> HTTP + Server)
                (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (prev.is_ascii_uppercase()
                        && c.is_ascii_uppercase()
                        && b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()))
            }
            _ => false,
        };
        if let Some(st) = start {
            if !letter || boundary {
                out.push(&s[st..i]);
                start = None;
            }
        }
        if letter && start.is_none() {
            start = Some(i);
        }
    }
    out
}

fn vowels(w: &str) -> usize {
    w.bytes().filter(|b| matches!(b.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u' | b'y')).count()
}

/// Shaped like a name in code: word-like letter runs (three letters or
/// more on average, each longer one with vowels), at most one digit run.
fn identifier(s: &str) -> bool {
    if !s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')) {
        return false;
    }
    let pieces = word_pieces(s);
    let letters: usize = pieces.iter().map(|p| p.len()).sum();
    let digit_runs = s.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()).count();
    !pieces.is_empty()
        && digit_runs <= 1
        && letters * 10 >= pieces.len() * 30
        && pieces.iter().all(|p| p.len() < 4 || vowels(p) * 5 >= p.len())
}

/// A run of letters in mixed case that is no run of words: the shape of a
/// random key without digits (`export FOO_TOKEN=qWxKpLmZ…`).
fn random_letters(s: &str) -> bool {
    s.len() >= 16 && s.bytes().all(|b| b.is_ascii_alphabetic()) && mixed_case(s) && !identifier(s) && entropy(s) >= 3.5
}

/// Three or more capitalised words run together, twelve letters or more.
fn passphrase(s: &str) -> bool {
    let pieces = word_pieces(s);
    s.len() >= 12
        && s.bytes().all(|b| b.is_ascii_alphanumeric())
        && pieces.len() >= 3
        && pieces.iter().all(|p| p.as_bytes()[0].is_ascii_uppercase() && p.len() >= 3 && vowels(p) > 0)
}

/// A value that looks random: no placeholder, letters and digits, and more
/// than three bits of entropy a character.
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
