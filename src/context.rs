//! The memory block for the start of an agent session: the project's
//! latest L4 summary, its most recent L3 segments, then the completed
//! segments most relevant to what the project is about now (or to a
//! query), with their dates and key terms, within a token budget (about
//! four characters a token).

use anyhow::Result;
// The derive names `schemars`: rmcp's, for the MCP `recent` output schema.
use rmcp::schemars;
use serde::Serialize;

use crate::store::context::{self as rows, Segment};
use crate::store::{fmt_time, Store};

/// L3 segments looked at, newest first, before the budget cuts.
const MAX_SEGMENTS: usize = 50;

/// Recent segments listed before the relevant ones take the budget.
const RECENT_FIRST: usize = 3;
/// The share of the block's budget one segment's entry may take, the
/// newest segment's aside: an older segment is listed by its leading
/// sentences (a digest's topic and first facts come first), so the block
/// covers more sessions. Measured on LoCoMo conv-26 over six databases of
/// five builds: answers held 62–74 → 72–75 of 150, where five words less
/// in one L3 had moved the block by eight (BENCHMARKS.md, stop 67).
const ENTRY_SHARE: usize = 12;
/// Terms of a relevance query (the rest are dropped).
const MAX_TERMS: usize = 24;

#[derive(Debug, Clone, Serialize, PartialEq, schemars::JsonSchema)]
pub struct Entry {
    /// Session id (L3 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// running | complete
    pub status: String,
    /// RFC 3339 time of the last update.
    pub updated: String,
    /// RFC 3339 event time of the segment's last turn (the L4: its last update).
    pub at: String,
    pub content: String,
    /// Identifiers and names of its turns (`; `-separated), when any.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key_terms: String,
}

/// A turn captured but not yet summarised, shown as it was said (cut).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Pending {
    pub session: String,
    /// RFC 3339 event time.
    pub at: String,
    pub user: String,
    pub assistant: String,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Block {
    pub project: String,
    pub project_summary: Option<Entry>,
    /// The newest turns no summary covers yet, newest first.
    pub pending: Vec<Pending>,
    /// The most recent segments, newest first.
    pub segments: Vec<Entry>,
    /// Older completed segments that match `query`, best first.
    pub related: Vec<Entry>,
    /// The terms `related` was matched on: the caller's query, else the
    /// key terms of the project summary and the recent segments.
    pub query: Vec<String>,
    /// Estimated tokens of the Markdown block.
    pub tokens: usize,
}

impl Block {
    pub fn is_empty(&self) -> bool {
        self.project_summary.is_none() && self.segments.is_empty() && self.related.is_empty() && self.pending.is_empty()
    }
}

fn tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

struct Row {
    id: i64,
    entry: Entry,
    /// All its key terms (the entry shows only those its text lacks).
    terms: String,
}

fn row(s: Segment) -> Row {
    let key_terms = new_terms(&s.content, &s.key_terms);
    Row {
        id: s.id,
        terms: s.key_terms.clone(),
        entry: Entry {
            session: s.session,
            status: s.status,
            updated: fmt_time(s.updated_at),
            at: fmt_time(s.at),
            content: s.content,
            key_terms,
        },
    }
}

/// Key terms shown beside a summary: only those that add a word its text
/// lacks, three characters or more and not a bare number or one-letter
/// flag, at most [`MAX_SHOWN_TERMS`].
fn new_terms(content: &str, key_terms: &str) -> String {
    let lower = content.to_lowercase();
    key_terms
        .split("; ")
        .map(str::trim)
        .filter(|t| t.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
        .filter(|t| !t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '%' | 's')))
        .filter(|t| !is_count(t) && !TOOL_NAMES.contains(t) && !crate::pipeline::grounding::is_empty_term(t))
        .filter(|t| !lower.contains(&t.to_lowercase()))
        .take(MAX_SHOWN_TERMS)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Names of agents' tools (`[tool Bash: …]` lines): no subject of their own.
const TOOL_NAMES: &[&str] =
    &["Bash", "Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "Task", "WebFetch", "TodoWrite", "shell"];

/// A count such as "8 passed" or "2 failed": a number and a word.
fn is_count(t: &str) -> bool {
    matches!(t.split_once(' '), Some((n, w)) if n.chars().all(|c| c.is_ascii_digit()) && w.chars().all(char::is_alphabetic))
}

/// Key terms shown at most beside one summary.
const MAX_SHOWN_TERMS: usize = 6;
/// Raw turns shown at most, and how much of each side.
const MAX_PENDING: usize = 3;
const PENDING_USER_CHARS: usize = 200;
const PENDING_REPLY_CHARS: usize = 300;

/// Whether `text` says nothing that `held` does not: nearly all of its
/// content words (stemmed as the grounding check does) are in `held`.
fn already_said(held: &[&str], text: &str) -> bool {
    let stems = |t: &str| -> std::collections::HashSet<String> {
        crate::text::words(t)
            .into_iter()
            .filter(|w| w.chars().count() > 2 && !crate::text::is_stop_word(w))
            .map(|w| w.chars().take(5).collect())
            .collect()
    };
    let mine = stems(text);
    if mine.is_empty() {
        return true;
    }
    let theirs: std::collections::HashSet<String> = held.iter().flat_map(|h| stems(h)).collect();
    mine.iter().filter(|s| theirs.contains(*s)).count() * 10 >= mine.len() * 9
}

/// What of `text` the block has not said yet: its sentences that are not
/// [`already_said`] by `held` (nor by a sentence of its own kept before
/// them), in order, each in the first person with its speaker's label
/// ([`crate::pipeline::digest::with_speakers`]); None when nothing is left. A project summary made of
/// its segments' summaries then does not make the segment list repeat it.
fn unsaid(held: &[&str], text: &str) -> Option<String> {
    use crate::pipeline::digest::{is_question, with_speakers, without_repeated_speakers};
    let mut seen: Vec<&str> = held.to_vec();
    let sentences = crate::pipeline::tidy::sentences(text);
    let mut kept: Vec<Option<String>> = Vec::new();
    // A sentence kept without the one before it keeps its speaker's label.
    for (s, labelled) in sentences.iter().zip(with_speakers(&sentences)) {
        // The project summary may keep an answer without its question's
        // "Two:" (digest::without_answer_lead): said all the same.
        let said = crate::pipeline::digest::without_answer_lead(s);
        let new = !already_said(&seen, s) && !said.is_some_and(|rest| already_said(&seen, &rest));
        kept.push(new.then_some(labelled));
        if new {
            seen.push(s);
        }
    }
    // A question whose answer was said already is no news either ("The
    // user asked whether there are other places …" before the project
    // summary's "billing/invoices.py opens …").
    let answered = |i: usize| is_question(sentences[i]) && i + 1 < kept.len() && kept[i + 1].is_none();
    let kept: Vec<String> =
        kept.iter().enumerate().filter(|&(i, _)| !answered(i)).filter_map(|(_, k)| k.clone()).collect();
    (!kept.is_empty()).then(|| without_repeated_speakers(&kept).join(" "))
}

/// The block for `project`: the L4, up to [`RECENT_FIRST`] recent
/// segments, the completed segments that best match `query` (when none is
/// given: the key terms of what was just listed), then more recent ones,
/// as long as the budget lasts.
pub fn build(store: &Store, project: &str, limit_tokens: usize, query: Option<&str>) -> Result<Block> {
    let l4 = rows::latest_l4(store, project)?.map(row);
    // What the relevance query is built from when none is given.
    let mut own_terms: Vec<String> = l4.iter().map(|r| r.terms.clone()).collect();
    let l4 = l4.map(|r| r.entry);
    let recent = newest(store, project, MAX_SEGMENTS)?;
    // Shown by its label: the key may be a folder path.
    let shown = crate::store::projects::label(store, project)?;
    let mut block = Block {
        project: shown.clone(),
        project_summary: None,
        pending: vec![],
        segments: vec![],
        related: vec![],
        query: vec![],
        tokens: 0,
    };
    let mut budget = Budget { left: (limit_tokens * 4).saturating_sub(header(&shown).len()) };
    if let Some(mut e) = l4 {
        let frame = l4_text(&Entry { content: String::new(), ..e.clone() }).len();
        // The project summary takes at most 2/5 of the budget: the sessions need room too.
        let room = budget.left.min(limit_tokens * 4 * 2 / 5).saturating_sub(frame);
        if room >= 40 {
            if e.content.len() > room {
                e.content = shorten(&e.content, room);
            }
            budget.left -= l4_text(&e).len();
            block.project_summary = Some(e);
        }
    }
    // The newest work no summary covers yet, within a quarter of the budget.
    let mut pending_room = budget.left / 4;
    for t in rows::unfolded_turns(store, project, MAX_PENDING)? {
        let p = Pending {
            session: t.session,
            at: fmt_time(t.at),
            user: shorten_chars(&crate::display::one_line(&t.user), PENDING_USER_CHARS),
            assistant: shorten_chars(&crate::display::one_line(&t.assistant), PENDING_REPLY_CHARS),
        };
        let cost = pending_line(&p).len() + if block.pending.is_empty() { PENDING_HEAD.len() } else { 0 };
        if cost > pending_room {
            break;
        }
        pending_room -= cost;
        budget.left -= cost;
        block.pending.push(p);
    }
    // What the block already says: a segment that adds nothing to it is
    // left out (a project summary copied from its only segment, a segment
    // repeated).
    let mut said: Vec<String> = block.project_summary.iter().map(|e| e.content.clone()).collect();
    let mut listed: Vec<i64> = Vec::new();
    let mut kept: Vec<String> = said.clone();
    let entry_room = limit_tokens * 4 / ENTRY_SHARE;
    let mut recent = recent
        .into_iter()
        .enumerate()
        .filter_map(|(i, mut r)| {
            let held: Vec<&str> = kept.iter().map(String::as_str).collect();
            let Some(new) = unsaid(&held, &r.entry.content) else {
                listed.push(r.id);
                return None;
            };
            // The newest segment is the work a session goes on with: whole.
            r.entry.content = if i == 0 { new } else { at_most(new, entry_room) };
            kept.push(r.entry.content.clone());
            Some(r)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .peekable();
    while block.segments.len() < RECENT_FIRST {
        let Some(r) = recent.next_if(|r| budget.take(&r.entry, block.segments.is_empty(), SEGMENTS_HEAD)) else {
            break;
        };
        listed.push(r.id);
        said.push(r.entry.content.clone());
        own_terms.push(r.terms);
        block.segments.push(r.entry);
    }
    block.query = match query {
        Some(q) => query_terms(q),
        None => {
            let mut terms = Vec::new();
            for t in own_terms.iter().flat_map(|t| t.split("; ")) {
                push_term(&mut terms, t);
            }
            terms
        }
    };
    if !block.query.is_empty() {
        for mut r in matching(store, project, &block.query)? {
            let held: Vec<&str> = said.iter().map(String::as_str).collect();
            if listed.contains(&r.id) {
                continue;
            }
            let Some(new) = unsaid(&held, &r.entry.content) else { continue };
            r.entry.content = at_most(new, entry_room);
            if !budget.take(&r.entry, block.related.is_empty(), RELATED_HEAD) {
                break;
            }
            listed.push(r.id);
            said.push(r.entry.content.clone());
            block.related.push(r.entry);
        }
    }
    for r in recent {
        if listed.contains(&r.id) {
            continue;
        }
        if !budget.take(&r.entry, block.segments.is_empty(), SEGMENTS_HEAD) {
            // The last one that does not fit whole gives the room left its
            // first sentences, instead of leaving it empty.
            let mut e = r.entry;
            let head = if block.segments.is_empty() { SEGMENTS_HEAD.len() } else { 0 };
            let frame = segment_line(&Entry { content: String::new(), key_terms: String::new(), ..e.clone() }).len();
            let room = budget.left.saturating_sub(frame + head);
            if let Some(cut) = leading_sentences(&e.content, room) {
                e.content = cut;
                e.key_terms.clear();
                if budget.take(&e, block.segments.is_empty(), SEGMENTS_HEAD) {
                    block.segments.push(e);
                }
            }
            break;
        }
        block.segments.push(r.entry);
    }
    without_terms_shown_before(&mut block);
    block.tokens = tokens(markdown(&block).len());
    Ok(block)
}

/// Each entry's "(also: …)" without the terms the block has shown before
/// it, in a list or a text: the agent session's project summary listed
/// `smtplib; Gmail; smtp.mailgun.org`, and so did the segment after it.
fn without_terms_shown_before(block: &mut Block) {
    // Lower case, each text and list item between spaces, so a term is
    // found as a whole ("Mel" is not in "Melanie").
    let mut shown = String::from(" ");
    let entries = block.project_summary.iter_mut().chain(block.segments.iter_mut()).chain(block.related.iter_mut());
    for e in entries {
        let said = |t: &str| {
            let t = t.to_lowercase();
            shown.match_indices(&t).any(|(i, _)| {
                let before = shown[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
                let after = shown[i + t.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
                before && after
            })
        };
        let kept = e.key_terms.split("; ").filter(|t| !t.is_empty() && !said(t)).collect::<Vec<_>>().join("; ");
        shown.push_str(&format!("{} {} ", e.content.to_lowercase(), kept.to_lowercase()));
        e.key_terms = kept;
    }
}

/// A segment's summary within `max` bytes by its leading sentences
/// ([`leading_sentences`]), or whole where they would say too little.
fn at_most(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    leading_sentences(&text, max).unwrap_or(text)
}

/// The first whole sentences of a summary within `max` bytes, when there
/// are at least two of them worth the room (80 bytes or more).
fn leading_sentences(text: &str, max: usize) -> Option<String> {
    let mut out = String::new();
    let mut n = 0;
    for s in crate::pipeline::digest::summary_sentences(text) {
        let next = if out.is_empty() { s.to_string() } else { format!("{out} {s}") };
        if next.len() > max {
            break;
        }
        out = next;
        n += 1;
    }
    (n >= 2 && out.len() >= 80).then_some(out)
}

/// `text` cut to at most `max` characters at a word boundary.
fn shorten_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((byte, _)) => shorten(text, byte),
    }
}

/// `text` cut to at most `max` bytes at a word boundary, ending in "…".
fn shorten(text: &str, max: usize) -> String {
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind(char::is_whitespace).filter(|&i| i > end / 2).unwrap_or(end);
    format!("{}…", text[..cut].trim_end())
}

/// The project's `n` latest segments (running or complete), newest first.
pub fn recent(store: &Store, project: &str, n: usize) -> Result<Vec<Entry>> {
    Ok(newest(store, project, n)?.into_iter().map(|r| r.entry).collect())
}

fn newest(store: &Store, project: &str, n: usize) -> Result<Vec<Row>> {
    Ok(rows::newest_segments(store, project, n)?.into_iter().map(row).collect())
}

/// What is left of the budget, in characters.
struct Budget {
    left: usize,
}

impl Budget {
    /// Takes the room for one segment line (and its list's heading when it
    /// is the list's first); false when it does not fit.
    fn take(&mut self, e: &Entry, first: bool, head: &str) -> bool {
        let cost = segment_line(e).len() + if first { head.len() } else { 0 };
        if cost > self.left {
            return false;
        }
        self.left -= cost;
        true
    }
}

/// Completed segments of the project matching any of the terms, best
/// first (FTS5 rank over content and key terms).
fn matching(store: &Store, project: &str, terms: &[String]) -> Result<Vec<Row>> {
    let Some(fts) = crate::store::search::fts_any(terms.iter().map(String::as_str)) else { return Ok(vec![]) };
    Ok(rows::matching_segments(store, project, &fts, MAX_SEGMENTS)?.into_iter().map(row).collect())
}

/// The words of a caller's query worth matching on: three characters or
/// more (identifiers whole), without the most common English words.
fn query_terms(q: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for w in q.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '?' | '!' | '(' | ')' | '"')) {
        let w = w.trim_matches(|c: char| matches!(c, '.' | ':' | '\'' | '`'));
        if w.chars().count() >= 3 && !crate::text::is_stop_word(&w.to_lowercase()) {
            push_term(&mut terms, w);
        }
    }
    terms
}

fn push_term(terms: &mut Vec<String>, t: &str) {
    let t = t.trim();
    // A term made of punctuation alone would match nothing (FTS drops it).
    if t.chars().any(char::is_alphanumeric)
        && terms.len() < MAX_TERMS
        && !terms.iter().any(|x| x.eq_ignore_ascii_case(t))
    {
        terms.push(t.to_string());
    }
}

fn header(project: &str) -> String {
    format!("## Memory of earlier sessions (project {project}, from ragger)\n\n")
}

/// The block as Markdown; empty when there is nothing to say.
pub fn markdown(b: &Block) -> String {
    if b.is_empty() {
        return String::new();
    }
    let mut out = header(&b.project);
    if let Some(e) = &b.project_summary {
        out.push_str(&l4_text(e));
    }
    if !b.pending.is_empty() {
        out.push_str(PENDING_HEAD);
        for p in &b.pending {
            out.push_str(&pending_line(p));
        }
        out.push('\n');
    }
    if !b.segments.is_empty() {
        out.push_str(SEGMENTS_HEAD);
        for e in &b.segments {
            out.push_str(&segment_line(e));
        }
    }
    if !b.related.is_empty() {
        out.push_str(if b.segments.is_empty() { &RELATED_HEAD[1..] } else { RELATED_HEAD });
        for e in &b.related {
            out.push_str(&segment_line(e));
        }
    }
    out
}

const SEGMENTS_HEAD: &str = "Recent sessions, newest first:\n";
const PENDING_HEAD: &str = "Latest turns, not yet summarised:\n";

fn pending_line(p: &Pending) -> String {
    format!("- {} (session {}): {} → {}\n", day(&p.at), p.session, p.user, p.assistant)
}
const RELATED_HEAD: &str = "\nEarlier sessions on the same subjects:\n";

fn l4_text(e: &Entry) -> String {
    let terms = if e.key_terms.is_empty() { String::new() } else { format!(" (also: {})", e.key_terms) };
    format!("Project summary (work up to {}):\n{}{terms}\n\n", day(&e.at), e.content.trim())
}

fn segment_line(e: &Entry) -> String {
    let session = e.session.as_deref().unwrap_or("?");
    let flat = crate::display::one_line(&e.content);
    let terms = if e.key_terms.is_empty() { String::new() } else { format!(" (also: {})", e.key_terms) };
    format!("- {} (session {session}): {flat}{terms}\n", day(&e.at))
}

fn day(rfc3339: &str) -> &str {
    rfc3339.get(..10).unwrap_or(rfc3339)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::context::fixtures;

    fn entry(content: &str, key_terms: &str) -> Entry {
        Entry {
            session: None,
            status: "complete".into(),
            updated: String::new(),
            at: String::new(),
            content: content.into(),
            key_terms: key_terms.into(),
        }
    }

    fn fixture() -> Store {
        fixtures::two_projects()
    }

    #[test]
    fn block_has_the_l4_then_newest_segments_of_the_project_only() {
        let store = fixture();
        let b = build(&store, "app", 1000, None).unwrap();
        assert_eq!(b.project_summary.as_ref().unwrap().content, "A Rust service; build and tests are being fixed.");
        let sessions: Vec<_> = b.segments.iter().map(|e| e.session.clone().unwrap()).collect();
        assert_eq!(sessions, ["s-new", "s-old"]);
        let md = markdown(&b);
        assert!(md.contains("- 1970-01-03 (session s-new): The user is fixing"), "{md}");
        assert!(!md.contains("Unrelated"));
    }

    #[test]
    fn budget_drops_older_segments() {
        let store = fixture();
        let b = build(&store, "app", 70, None).unwrap();
        assert_eq!(b.segments.len(), 1, "{b:?}");
        assert!(b.tokens <= 70, "{}", b.tokens);
        assert!(build(&store, "nothing", 1000, None).unwrap().is_empty());
    }

    /// Project `app`: one old segment about the login form (day 1), five
    /// newer ones about other things (days 2-6), and the running one
    /// (day 7) about the login test again.
    fn history() -> Store {
        let rows = [
            (
                "s1",
                "complete",
                "The user debugged the login form with playwright; the session cookie lacked SameSite.",
                "login; playwright; SameSite",
            ),
            ("s2", "complete", "The user set up the release build with cargo dist.", "cargo; dist"),
            ("s3", "complete", "The user wrote the changelog for version 0.4.", "changelog; 0.4"),
            ("s4", "complete", "The user tuned the database pool size to 32.", "pool; 32"),
            ("s5", "complete", "The user renamed the metrics endpoint.", "metrics"),
            ("s6", "complete", "The user pinned the Rust toolchain to 1.95.", "toolchain; 1.95"),
            ("s7", "running", "The user is fixing the flaky login test.", "login; flaky"),
        ];
        fixtures::history(&rows)
    }

    fn sessions(list: &[Entry]) -> Vec<&str> {
        list.iter().map(|e| e.session.as_deref().unwrap()).collect()
    }

    #[test]
    fn the_last_segment_that_does_not_fit_whole_gives_the_room_its_first_sentences() {
        let long = "The user moved the nightly backups from rsync to restic on the NAS. \
                    The repository lives on /mnt/usb and is checked weekly. \
                    The password is read with --password-file from a root-only file. \
                    Old snapshots are pruned with --keep-daily 7. \
                    A restore of one folder into /tmp is tested each month.";
        let rows = [
            ("s1", "complete", long, "restic; NAS"),
            ("s2", "complete", "The user set up the release build with cargo dist.", "cargo; dist"),
            ("s3", "complete", "The user wrote the changelog for version 0.4.", "changelog; 0.4"),
            ("s4", "complete", "The user tuned the database pool size to 32.", "pool; 32"),
        ];
        let store = fixtures::history(&rows);
        let whole = build(&store, "app", 10_000, None).unwrap();
        assert_eq!(sessions(&whole.segments), ["s4", "s3", "s2", "s1"], "{whole:?}");
        // Room for all but the last two sentences of the oldest segment.
        let limit = whole.tokens - 30;
        let b = build(&store, "app", limit, None).unwrap();
        assert_eq!(sessions(&b.segments), ["s4", "s3", "s2", "s1"], "{b:?}");
        let cut = &b.segments[3].content;
        assert!(long.starts_with(cut.as_str()) && cut.len() < long.len(), "{cut}");
        assert!(cut.ends_with("checked weekly.") || cut.ends_with("root-only file."), "whole sentences: {cut}");
        assert!(b.tokens <= limit, "{} > {limit}", b.tokens);
        // Too little room for two sentences: left out, as before.
        let b = build(&store, "app", whole.tokens - 60, None).unwrap();
        assert_eq!(sessions(&b.segments), ["s4", "s3", "s2"], "{b:?}");
    }

    #[test]
    fn older_segments_are_listed_by_their_leading_sentences_so_more_sessions_fit() {
        // Six sentences a segment, each with words of its own (a sentence
        // whose words the block has said already is left out anyway).
        let texts: Vec<String> = (1..=8)
            .map(|i| {
                (1..=6).map(|j| format!("Step {j} of session {i} used the {i}{j}tool on the {i}{j}disk.")).collect()
            })
            .map(|steps: Vec<String>| steps.join(" "))
            .collect();
        let ids: Vec<String> = (1..=8).map(|i| format!("s{i}")).collect();
        let rows: Vec<(&str, &str, &str, &str)> =
            ids.iter().zip(&texts).map(|(id, t)| (id.as_str(), "complete", t.as_str(), "")).collect();
        let store = fixtures::history(&rows);
        let b = build(&store, "app", 450, None).unwrap();
        // Whole, four or five would fit; by their leading sentences, all.
        assert_eq!(sessions(&b.segments), ["s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1"], "{b:?}");
        assert_eq!(b.segments[0].content, texts[7], "the newest segment is whole");
        for (e, text) in b.segments[1..].iter().zip(texts[..7].iter().rev()) {
            assert!(text.starts_with(e.content.as_str()) && e.content.len() < text.len(), "{}", e.content);
            assert!(e.content.len() <= 450 * 4 / ENTRY_SHARE && e.content.ends_with('.'), "{}", e.content);
        }
        assert!(b.tokens <= 450, "{}", b.tokens);
    }

    #[test]
    fn an_older_segment_on_the_current_subject_is_listed_after_the_recent_ones() {
        let store = history();
        // Room for the three recent segments and about two more lines.
        let b = build(&store, "app", 120, None).unwrap();
        assert!(b.segments.len() < 6, "s1 would be reached by recency alone: {b:?}");
        assert_eq!(sessions(&b.segments[..3]), ["s7", "s6", "s5"], "{b:?}");
        assert_eq!(sessions(&b.related), ["s1"], "{b:?}");
        assert!(b.query.contains(&"login".to_string()), "{:?}", b.query);
        let md = markdown(&b);
        let recent_at = md.find("Recent sessions").unwrap();
        let related_at = md.find("Earlier sessions on the same subjects:\n- 1970-01-02 (session s1)").unwrap();
        assert!(recent_at < related_at, "{md}");
        assert!(b.tokens <= 120, "{}", b.tokens);
    }

    #[test]
    fn a_query_chooses_the_related_segments() {
        let store = history();
        let b = build(&store, "app", 1000, Some("Which pool size did we choose for the database?")).unwrap();
        assert_eq!(sessions(&b.related), ["s4"], "{b:?}");
        assert_eq!(b.query, ["pool", "size", "choose", "database"]);
        // Every segment appears once: s4 is not repeated among the recent ones.
        let all: Vec<&str> = sessions(&b.segments).into_iter().chain(sessions(&b.related)).collect();
        assert_eq!(all.len(), 7, "{all:?}");
    }

    #[test]
    fn a_query_with_fts_syntax_is_matched_as_words() {
        let store = history();
        let b = build(&store, "app", 1000, Some("\"SameSite\" OR NEAR(login* -x")).unwrap();
        assert_eq!(sessions(&b.related), ["s1"], "{b:?}");
    }

    #[test]
    fn a_long_project_summary_leaves_room_for_the_sessions() {
        let store = history();
        let long = "The project is a web shop written in Rust. ".repeat(40);
        fixtures::add_l4(&store, &long);
        let b = build(&store, "app", 200, None).unwrap();
        let l4 = &b.project_summary.as_ref().unwrap().content;
        assert!(l4.len() <= 200 * 4 * 2 / 5, "{l4}");
        let kept = l4.strip_suffix('…').unwrap();
        assert!(long.starts_with(kept) && long[kept.len()..].starts_with(' '), "cut inside a word: {l4}");
        assert!(!b.segments.is_empty(), "{b:?}");
        assert!(b.tokens <= 200, "{}", b.tokens);
    }

    #[test]
    fn an_answer_the_project_summary_keeps_without_its_lead_is_not_said_again_nor_its_question() {
        let l4 = "Both now send through send_mail. billing/invoices.py opens SMTP_SSL on port 465.";
        let segment = "Are there other places that open SMTP connections themselves? \
Two: billing/invoices.py opens SMTP_SSL on port 465. The test suite passes (212 tests).";
        // Nor the question it answered: the block holds the answer.
        let new = unsaid(&[l4], segment).unwrap();
        assert_eq!(new, "The test suite passes (212 tests).");
        let told = "The user asked whether there are other places that open SMTP connections themselves. \
Two: billing/invoices.py opens SMTP_SSL on port 465. The test suite passes (212 tests).";
        assert_eq!(unsaid(&[l4], told).unwrap(), "The test suite passes (212 tests).");
        // A question whose answer is new stays with it.
        let new = unsaid(&["The test suite passes (212 tests)."], segment).unwrap();
        assert!(new.starts_with("Are there other places"), "{new}");
        // A lead that says something is no answer's lead: its sentence is new.
        let new = unsaid(&[l4], "Newsletter: billing/invoices.py opens SMTP_SSL on port 465.").unwrap();
        assert!(new.starts_with("Newsletter:"), "{new}");
    }

    #[test]
    fn no_text_is_said_twice_and_key_terms_only_add_words() {
        let store = history();
        // A project summary that already says what s7 and s6 say.
        fixtures::add_l4(&store, "The user is fixing the flaky login test and pinned the Rust toolchain to 1.95.");
        let b = build(&store, "app", 1000, None).unwrap();
        let shown = sessions(&b.segments);
        assert!(!shown.contains(&"s7") && !shown.contains(&"s6"), "repeated: {shown:?}");
        assert!(shown.contains(&"s5"), "{shown:?}");
        let md = markdown(&b);
        // s1's key terms are all in its text: none is shown.
        assert!(!md.contains("key terms") && !md.contains("(also: login"), "{md}");
        assert_eq!(new_terms("The pool size is 32.", "pool; 32; -l; 14.2s; PgBouncer; Bash; 8 passed"), "PgBouncer");
        // A term listed, or said, before in the block is not listed again.
        let mut b = Block {
            project: "app".into(),
            project_summary: Some(entry("The pool is PgBouncer's.", "smtplib; Gmail")),
            pending: vec![],
            segments: vec![
                entry("Mail goes out again.", "smtplib; pgbouncer; EMAIL_PORT"),
                entry("CI.", "Gmail; ci.yml; Pool"),
            ],
            related: vec![entry("Older.", "EMAIL_PORT; restic")],
            query: vec![],
            tokens: 0,
        };
        without_terms_shown_before(&mut b);
        let lists: Vec<&str> =
            b.project_summary.iter().chain(&b.segments).chain(&b.related).map(|e| e.key_terms.as_str()).collect();
        assert_eq!(lists, ["smtplib; Gmail", "EMAIL_PORT", "ci.yml", "restic"]);
        // Found as a whole word only: "Mel" is not said by "Melanie".
        let mut b = Block { project_summary: Some(entry("Melanie paints.", "")), ..b };
        b.segments = vec![entry("A trip.", "Mel; Paris")];
        without_terms_shown_before(&mut b);
        assert_eq!(b.segments[0].key_terms, "Mel; Paris");
        // Rows written before key terms left praise and contractions out.
        assert_eq!(new_terms("Caroline went to a parade.", "great; I've; Sweden; awesome; what's; BTW"), "Sweden");
    }

    #[test]
    fn a_segment_sentence_shown_without_the_one_before_says_whose_it_is() {
        let rows = [(
            "s1",
            "complete",
            "Caroline: I went to a pride parade last Friday. We marched with the youth group.",
            "",
        )];
        let store = fixtures::history(&rows);
        fixtures::add_l4(&store, "Caroline: I went to a pride parade last Friday.");
        let b = build(&store, "app", 1000, None).unwrap();
        let shown: Vec<&str> = b.segments.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(shown, ["Caroline: We marched with the youth group."], "{b:?}");
    }

    #[test]
    fn a_segment_shows_only_the_sentences_the_project_summary_lacks() {
        let rows = [
            (
                "s1",
                "complete",
                "The user set up restic backups of /srv. The password lives in a root-only file for --password-file.",
                "",
            ),
            ("s2", "complete", "The user baked bread at 250 C. The loaf rose in the Dutch oven.", ""),
        ];
        let store = fixtures::history(&rows);
        // A project digest that holds one sentence of each segment.
        fixtures::add_l4(
            &store,
            "Backups and bread. The user baked bread at 250 C. The user set up restic backups of /srv.",
        );
        let b = build(&store, "app", 1000, None).unwrap();
        let shown: Vec<&str> = b.segments.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(
            shown,
            ["The loaf rose in the Dutch oven.", "The password lives in a root-only file for --password-file."],
            "{b:?}"
        );
        let md = markdown(&b);
        assert_eq!(md.matches("250 C").count(), 1, "{md}");
        assert_eq!(md.matches("restic backups").count(), 1, "{md}");
        // Every sentence of both segments is still in the block.
        for s in ["Dutch oven", "--password-file", "250 C", "/srv"] {
            assert!(md.contains(s), "{s} lost: {md}");
        }
    }

    #[test]
    fn recent_lists_the_newest_segments_only() {
        let store = history();
        assert_eq!(sessions(&recent(&store, "app", 2).unwrap()), ["s7", "s6"]);
    }
}
