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

mod detectors;

use detectors::{assigned_secret, assignment_kind, documentation_example, BUILTIN};

use crate::config::Privacy;
use crate::display::one_line;
use crate::exit::{fail, Exit};

/// The text every marker starts with.
pub const MARKER: &str = "[REDACTED:";

/// How much of a matched secret the marker shows.
#[derive(Clone, Copy)]
pub(crate) enum Show {
    /// Nothing but the kind.
    Nothing,
    /// The named group `p` (the format's public prefix) and two more chars.
    PrefixAndTwo,
}

/// An extra test on the secret span, for shapes a regex cannot say.
pub(crate) type Check = fn(&str) -> bool;

struct Detector {
    kind: Cow<'static, str>,
    /// Lower-case strings of which one must be in the text; empty: always run.
    anchors: &'static [&'static str],
    tail: usize,
    run: usize,
    key_run: usize,
    assigned: bool,
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

/// Characters that show nothing, and break a secret's shape when pasted
/// inside it: zero-width space, joiners, word joiner, BOM, soft hyphen.
const INVISIBLE: &[char] = &['\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{ad}'];

/// The shortest base64 run decoded to look for a secret inside.
const MIN_ENCODED: usize = 24;

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
                    key_run: b.key_run,
                    assigned: b.assigned,
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
                    key_run: 0,
                    assigned: false,
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
    /// Besides the detectors' shapes: a secret with invisible characters
    /// inside (a zero-width space breaks every shape), and base64 that
    /// decodes to text holding a secret (`base64 .env`).
    pub fn redact<'a>(&self, text: &'a str) -> (Cow<'a, str>, usize) {
        let (mut out, mut n) = self.redact_shapes(text);
        if text.contains(INVISIBLE) {
            // The secret as it would read without them; the text keeps
            // them when that finds nothing more.
            let visible: String = text.chars().filter(|c| !INVISIBLE.contains(c)).collect();
            let (again, m) = self.redact_shapes(&visible);
            if m > 0 && m >= n {
                out = Cow::Owned(again.into_owned());
                n = m;
            }
        }
        if self.enabled() && longest_base64_run(&out) >= MIN_ENCODED {
            if let Some((again, m)) = self.redact_encoded(&out) {
                out = Cow::Owned(again);
                n += m;
            }
        }
        (out, n)
    }

    /// Base64 runs (wrapped over lines or not) that decode to UTF-8 text in
    /// which a detector finds a secret: the whole run becomes one marker.
    fn redact_encoded(&self, text: &str) -> Option<(String, usize)> {
        use base64::Engine;
        let mut out = String::new();
        let mut last = 0;
        let mut n = 0;
        for m in base64_spans(text.as_bytes()) {
            if m.len() < MIN_ENCODED {
                continue;
            }
            let run: Vec<u8> =
                text.as_bytes()[m.clone()].iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
            let trimmed = run.strip_suffix(b"==").or_else(|| run.strip_suffix(b"=")).unwrap_or(&run);
            let Ok(bytes) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(trimmed) else { continue };
            let Ok(decoded) = String::from_utf8(bytes) else { continue };
            if decoded.chars().any(|c| c.is_control() && !c.is_whitespace()) {
                continue;
            }
            if self.redact_shapes(&decoded).1 == 0 {
                continue;
            }
            out.push_str(&text[last..m.start]);
            out.push_str(MARKER);
            out.push_str("base64-secret]");
            last = m.end;
            n += 1;
        }
        (n > 0).then(|| {
            out.push_str(&text[last..]);
            (out, n)
        })
    }

    fn redact_shapes<'a>(&self, text: &'a str) -> (Cow<'a, str>, usize) {
        let mut out: Cow<'a, str> = Cow::Borrowed(text);
        let mut total = 0;
        // Anchors are looked up in the original text: a marker that an
        // earlier detector wrote never makes a later one match.
        let lower = text.to_ascii_lowercase();
        let runs = Runs::of(text);
        for d in &self.detectors {
            if !candidate(&lower, d, &runs) {
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
                        Some((kind, min)) if secret.len() >= min && assigned_secret(kind, secret) => kind,
                        _ => continue,
                    },
                };
                if secret.contains(MARKER)
                    || d.check.is_some_and(|c| !c(secret))
                    || (d.anchors_known() && documentation_example(secret))
                    || self.allowed(secret)
                {
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

fn key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The longest runs of characters in a text that detectors ask for.
struct Runs {
    /// Of base64 characters, `[A-Za-z0-9+/_-]`.
    base64: usize,
    /// Of key characters, `[A-Za-z0-9_-]`.
    key: usize,
}

impl Runs {
    fn of(text: &str) -> Runs {
        let (mut base64, mut key, mut b, mut k) = (0, 0, 0, 0);
        for &c in text.as_bytes() {
            let is_key = key_char(c);
            b = if is_key || c == b'+' || c == b'/' { b + 1 } else { 0 };
            k = if is_key { k + 1 } else { 0 };
            base64 = base64.max(b);
            key = key.max(k);
        }
        Runs { base64, key }
    }
}

/// Whether `lower` (the text in lower case) may hold a match of `d`: one
/// anchor followed by `tail` key characters (or by the rest of a name and
/// `:` or `=`, for an assignment), and the runs it needs. Only a necessary
/// condition: the regex decides.
fn candidate(lower: &str, d: &Detector, runs: &Runs) -> bool {
    if d.run > runs.base64 || d.key_run > runs.key {
        return false;
    }
    if d.anchors.is_empty() {
        return true;
    }
    let b = lower.as_bytes();
    d.anchors.iter().any(|a| {
        memchr::memmem::find_iter(b, a.as_bytes()).any(|i| {
            let from = i + a.len();
            if d.assigned {
                return assignment_follows(&b[from..]);
            }
            d.tail == 0 || (b.len() >= from + d.tail && b[from..from + d.tail].iter().all(|&c| key_char(c)))
        })
    })
}

/// Whether `rest` (what follows an anchor inside a name) continues as the
/// assignment pattern's name does, then reaches its operator: more name
/// characters (`[a-z0-9_.-]`), an optional backslash and quote, blanks,
/// then `:` or `=`.
fn assignment_follows(rest: &[u8]) -> bool {
    let mut i = rest.iter().take_while(|&&c| key_char(c) || c == b'.').count();
    if rest.get(i) == Some(&b'\\') {
        i += 1;
    }
    if matches!(rest.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    while matches!(rest.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    matches!(rest.get(i), Some(b':' | b'='))
}

/// Where base64 may be in `text`, left to right: what the pattern
/// `[A-Za-z0-9+/]{16,}(?:\r?\n[A-Za-z0-9+/]{4,})*={0,2}` finds, by a scan
/// (compiling the pattern cost more than redacting a turn; paths and
/// identifiers make such runs common).
fn base64_spans(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let is = |c: &u8| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/';
    let run = |from: usize| text[from..].iter().take_while(|c| is(c)).count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let n = run(i);
        if n < 16 {
            i += n.max(1);
            continue;
        }
        let start = i;
        let mut end = i + n;
        loop {
            let newline = match &text[end..] {
                [b'\r', b'\n', ..] => 2,
                [b'\n', ..] => 1,
                _ => break,
            };
            let more = run(end + newline);
            if more < 4 {
                break;
            }
            end += newline + more;
        }
        end += text[end..].iter().take(2).take_while(|&&c| c == b'=').count();
        spans.push(start..end);
        i = end;
    }
    spans
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

#[cfg(test)]
mod tests;

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
