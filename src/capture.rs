//! Raw turns (L1) on their way in: parsing, the capture door (exclusions,
//! redaction, validation). Storing them is `store::turns`.

use anyhow::Result;
use serde::Deserialize;

use crate::store::parse_time;
pub use crate::store::turns::{insert, other_project, Turn, TurnKind};

/// One turn as given on the command line or as a JSON line (and as
/// `ragger export --format jsonl` writes it).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TurnInput {
    pub session: String,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub user: String,
    #[serde(default)]
    pub assistant: String,
    #[serde(default)]
    pub at: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
    /// `note` for a note asked to be kept (MCP `remember`); left out for
    /// a conversation turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TurnKind>,
}

impl TurnInput {
    /// Redact the user's and the assistant's text in place, before anything
    /// is stored or hashed from them; returns the number of secrets
    /// replaced. Every door of capture (flags, `--stdin`, import, hooks)
    /// comes through `admit_as`, which calls this.
    pub fn redact(&mut self, r: &crate::redact::Redactor) -> usize {
        let mut n = 0;
        for field in [&mut self.user, &mut self.assistant] {
            let (text, k) = r.redact(field);
            if k > 0 {
                *field = text.into_owned();
                n += k;
            }
        }
        n
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub stored: u64,
    pub duplicates: u64,
    pub rejected: u64,
    /// Turns skipped: an excluded project or a `.ragger-ignore` folder.
    pub excluded: u64,
    /// Secrets replaced by markers in the turns read.
    pub redactions: u64,
}

/// The longest session or project id, in bytes: room for a long path, not
/// for a pasted document.
pub const MAX_ID_BYTES: usize = 1024;

/// How far in the future a turn's time may be (another machine's clock).
pub const MAX_CLOCK_SKEW_MS: i64 = 10 * 60_000;

/// Check a turn; the error says what is wrong (the caller adds where).
/// The one door every turn comes through (`capture` flags and `--stdin`,
/// `import`, hooks): a turn of an excluded project or from a folder marked
/// `.ragger-ignore` is dropped, secrets are redacted, then the turn is
/// validated, all before anything is stored or hashed.
pub struct Door {
    redactor: crate::redact::Redactor,
    exclusions: crate::exclude::Exclusions,
    pub max_field_bytes: usize,
    /// `[import] projects`: folders' configured project names.
    configured: std::collections::BTreeMap<String, String>,
}

/// What the door made of a turn.
pub enum Admitted {
    /// Ready to store (`redactions` counts the secrets replaced).
    Turn(Turn),
    /// Excluded by `[capture] exclude_projects` or a `.ragger-ignore` file.
    Excluded,
}

impl Door {
    pub fn new(config: &crate::config::Config) -> Result<Door> {
        Ok(Door {
            redactor: crate::redact::Redactor::new(&config.privacy)?,
            exclusions: crate::exclude::Exclusions::new(&config.capture)?,
            max_field_bytes: config.capture.max_field_bytes,
            configured: config.import.projects.clone(),
        })
    }

    /// The project a turn's `project` value names: a folder (absolute,
    /// `~/…`, `./…`; an agent's working folder) is the project of its
    /// repository root or configured name (`project::for_folder`), anything
    /// else a name.
    pub fn project_of(&self, value: &str) -> Option<crate::project::Spec> {
        let value = value.trim();
        if value.is_empty() {
            return None;
        }
        if !crate::project::is_path(value) {
            return Some(crate::project::Spec::named(value));
        }
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from);
        let here = std::env::current_dir().unwrap_or_else(|_| "/".into());
        let abs = crate::project::absolute(value, home.as_deref(), &here);
        crate::project::for_folder(&crate::project::path_text(&abs), &self.configured)
    }

    /// A text redacted as the door redacts turns (for what is kept outside
    /// the database for a moment: a hook's spool file).
    pub fn redact_text(&self, text: &str) -> String {
        self.redactor.redact(text).0.into_owned()
    }

    /// Admit one turn; `cwd` is the folder it was said in, when known (an
    /// agent's working folder), for `.ragger-ignore`.
    pub fn admit(&self, input: TurnInput, cwd: Option<&std::path::Path>, now: i64) -> Result<Admitted, String> {
        self.admit_as(input, cwd, now, false)
    }

    /// Admit one JSON line (`capture --stdin`, `import jsonl`): a turn
    /// without an `id` gets [`derived_key`], so reading the same lines
    /// again stores each turn once.
    pub fn admit_line(&self, input: TurnInput, cwd: Option<&std::path::Path>, now: i64) -> Result<Admitted, String> {
        self.admit_as(input, cwd, now, true)
    }

    fn admit_as(
        &self,
        mut input: TurnInput,
        cwd: Option<&std::path::Path>,
        now: i64,
        derive_key: bool,
    ) -> Result<Admitted, String> {
        let project = input.project.as_deref().and_then(|p| self.project_of(p));
        let excluded = project
            .as_ref()
            .is_some_and(|p| self.exclusions.project(Some(&p.name)) || self.exclusions.project(p.root.as_deref()));
        if excluded || cwd.and_then(crate::exclude::ignore_file).is_some() {
            return Ok(Admitted::Excluded);
        }
        let n = input.redact(&self.redactor);
        if derive_key && input.id.as_deref().is_none_or(str::is_empty) {
            // After redaction: the key is a hash of what is stored, so no
            // secret is hashed and a line redacted alike gets the same key.
            input.id = Some(derived_key(&input));
        }
        let mut turn = validate(input, self.max_field_bytes, now)?;
        turn.redactions = n as i64;
        turn.project = project;
        Ok(Admitted::Turn(turn))
    }
}

/// The idempotency key of a JSON line without `id`: `h:` and the first 16
/// bytes (hex) of SHA-256 over the session, the time as given (an RFC 3339
/// time by its instant, so `Z` and `+00:00` agree; absent stays absent)
/// and the two texts. A line sent again, even among fixed or new lines,
/// is a duplicate; two identical turns of one session at the same time
/// are one turn.
pub fn derived_key(input: &TurnInput) -> String {
    use sha2::{Digest, Sha256};
    let at = match input.at.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => parse_time(s).map(|ms| ms.to_string()).unwrap_or_else(|_| s.to_string()),
        None => String::new(),
    };
    let mut h = Sha256::new();
    for part in [input.session.trim(), &at, &input.user, &input.assistant] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let digest = h.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("h:{hex}")
}

pub fn validate(input: TurnInput, max_field_bytes: usize, now: i64) -> Result<Turn, String> {
    let session = input.session.trim().to_string();
    if session.is_empty() {
        return Err("missing session id".into());
    }
    if input.user.trim().is_empty() && input.assistant.trim().is_empty() {
        return Err("both user and assistant texts are empty".into());
    }
    for (name, value) in [
        ("session", Some(&input.session)),
        ("project", input.project.as_ref()),
        ("user", Some(&input.user)),
        ("assistant", Some(&input.assistant)),
        ("id", input.id.as_ref()),
    ] {
        if let Some(v) = value {
            if v.len() > max_field_bytes {
                return Err(format!(
                    "{name} is {} bytes, larger than [capture] max_field_bytes ({max_field_bytes})",
                    v.len()
                ));
            }
            if v.contains('\0') && (name == "session" || name == "project" || name == "id") {
                return Err(format!("{name} contains a NUL byte"));
            }
            // Ids are shown one per line in `sessions` and `search`.
            if name == "session" || name == "project" {
                if v.len() > MAX_ID_BYTES {
                    return Err(format!("{name} id is {} bytes, longer than {MAX_ID_BYTES}", v.len()));
                }
                if let Some(c) = v.chars().find(|c| c.is_control()) {
                    return Err(format!("{name} id contains the control character {c:?}"));
                }
            }
        }
    }
    let at = match input.at.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => parse_time(s)?,
        None => now,
    };
    // A turn from the future would keep its session open (and first in
    // every listing) until that time comes.
    if at > now + MAX_CLOCK_SKEW_MS {
        return Err(format!(
            "time {} is more than {} minutes in the future",
            input.at.as_deref().unwrap_or_default().trim(),
            MAX_CLOCK_SKEW_MS / 60_000
        ));
    }
    let project = input.project.as_deref().map(str::trim).filter(|p| !p.is_empty()).map(crate::project::Spec::named);
    let id = input.id.filter(|k| !k.is_empty());
    let kind = input.kind.unwrap_or_default();
    Ok(Turn { session, project, user: input.user, assistant: input.assistant, at, id, redactions: 0, kind })
}

/// A note someone asked to keep (MCP `remember`), as a turn of kind
/// `note`: the note is the user's text, with no reply. Without a session,
/// it starts a session of its own (`note-` and the time).
pub fn note(text: &str, project: Option<String>, session: Option<&str>, now: i64) -> TurnInput {
    let session = match session.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => s.to_string(),
        None => format!("note-{}", crate::store::fmt_time(now)),
    };
    TurnInput {
        session,
        project,
        user: text.to_string(),
        assistant: String::new(),
        at: None,
        id: None,
        kind: Some(TurnKind::Note),
    }
}

/// Parse one JSON line into a turn input, with a short reason on failure.
pub fn parse_line(line: &[u8]) -> Result<TurnInput, String> {
    let text = std::str::from_utf8(line).map_err(|e| format!("not valid UTF-8 ({e})"))?;
    // serde also fills a struct from an array by position; a line is an object.
    if text.trim_start().starts_with('[') {
        return Err("invalid JSON: a line must be one JSON object, not an array".into());
    }
    serde_json::from_str::<TurnInput>(text).map_err(|e| {
        // Valid JSON of another shape (an unknown field, a number for a
        // text) is not "invalid JSON": serde's own words name the field.
        // serde stops at the first wrong field, so the rest of the line is
        // checked for syntax before saying so.
        let shape = e.classify() == serde_json::error::Category::Data;
        match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) if shape => e.to_string(),
            Err(syntax) if shape => format!("invalid JSON: {syntax}"),
            _ => format!("invalid JSON: {e}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(user: &str, assistant: &str) -> TurnInput {
        TurnInput { session: "s".into(), user: user.into(), assistant: assistant.into(), ..Default::default() }
    }

    #[test]
    fn empty_texts_are_refused() {
        assert!(validate(input(" ", ""), 100, 0).unwrap_err().contains("empty"));
        assert!(validate(input("hi", ""), 100, 0).is_ok());
    }

    #[test]
    fn oversized_field_names_the_field() {
        let e = validate(input("x".repeat(11).as_str(), "y"), 10, 0).unwrap_err();
        assert!(e.starts_with("user is 11 bytes"), "{e}");
    }

    #[test]
    fn at_is_parsed_and_defaults_to_now() {
        let mut i = input("a", "b");
        assert_eq!(validate(i.clone(), 100, 7).unwrap().at, 7);
        i.at = Some("2026-01-01T00:00:00Z".into());
        assert_eq!(validate(i.clone(), 100, 1_800_000_000_000).unwrap().at, 1_767_225_600_000);
        let e = validate(i.clone(), 100, 1_767_225_600_000 - MAX_CLOCK_SKEW_MS - 1).unwrap_err();
        assert!(e.contains("more than 10 minutes in the future"), "{e}");
        assert!(validate(i.clone(), 100, 1_767_225_600_000 - MAX_CLOCK_SKEW_MS).is_ok());
        i.at = Some("yesterday".into());
        assert!(validate(i, 100, 7).unwrap_err().contains("RFC 3339"));
    }

    #[test]
    fn parse_line_reports_unknown_fields_and_bad_utf8() {
        let e = parse_line(br#"{"session":"s","usr":"x"}"#).unwrap_err();
        assert!(e.starts_with("unknown field `usr`"), "{e}");
        assert!(parse_line(br#"{"session":"s""#).unwrap_err().starts_with("invalid JSON"));
        assert!(parse_line(b"{\"session\":\"\xff\"}").unwrap_err().contains("UTF-8"));
        assert!(parse_line(br#"{"session":"s","user":1}"#).is_err());
    }

    #[test]
    fn parse_line_refuses_an_array_that_serde_would_fill_by_position() {
        assert!(parse_line(br#" ["s", null, "u", "a", null, null]"#).unwrap_err().contains("not an array"));
    }

    #[test]
    fn derived_keys_follow_session_time_and_texts() {
        let a = TurnInput { at: Some("2026-01-01T00:00:00Z".into()), ..input("u", "a") };
        let same_instant = TurnInput { at: Some("2026-01-01T01:00:00+01:00".into()), ..a.clone() };
        assert_eq!(derived_key(&a), derived_key(&same_instant));
        assert!(derived_key(&a).starts_with("h:") && derived_key(&a).len() == 34);
        for other in [
            TurnInput { session: "t".into(), ..a.clone() },
            TurnInput { at: None, ..a.clone() },
            TurnInput { user: "u2".into(), ..a.clone() },
            TurnInput { assistant: "a2".into(), ..a.clone() },
            // Field boundaries count: "ua" + "" is not "u" + "a".
            TurnInput { user: "ua".into(), assistant: "".into(), ..a.clone() },
        ] {
            assert_ne!(derived_key(&a), derived_key(&other), "{other:?}");
        }
    }

    #[test]
    fn idempotency_key_stores_once() {
        let mut store = crate::store::Store::memory().unwrap();
        let t = validate(TurnInput { id: Some("k".into()), ..input("a", "b") }, 100, 1).unwrap();
        let r = crate::store::turns::store_batch(&mut store, &[t.clone(), t]).unwrap();
        assert_eq!((r.stored, r.duplicates), (1, 1));
        assert_eq!(crate::store::turns::count(&store).unwrap(), 1);
    }
}
