//! Importing one transcript file incrementally: read from where the last
//! run stopped (when the bytes before that point are unchanged), parse,
//! store the turns through capture, remember the new starting point.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};

use super::{parser, to_input, Carry, Draft, Format, Line, Refused, Report};
use crate::capture::{Admitted, Door, Turn, MAX_CLOCK_SKEW_MS};
use crate::store::imports::{mark, store_turns, turn_exists, FileMark, NewMark};
use crate::store::turns::SameKey;
use crate::store::{now_ms, parse_time, Store};

/// Turns per write transaction.
const BATCH: usize = 500;
/// Bytes hashed at the head of the file and before the starting point.
const CHECK_WINDOW: u64 = 4096;
/// Lines parsed between two looks at the clock.
const CLOCK_EVERY: u64 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tail {
    /// Store it as it stands (`import`, and the end of a session).
    Store,
    /// Store it once the assistant has said something in words (Stop: the
    /// hook may run before the agent wrote its reply).
    StoreWithWords,
    /// Leave it for a later run (mid-turn events: a subagent finished, the
    /// context is being compacted).
    Hold,
}

/// How much one run may read (a hook's budget); the rest waits for the
/// next run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_bytes: u64,
    /// Turns stored at most (redacting and writing them takes time too).
    pub max_turns: usize,
    pub deadline: Instant,
}

pub struct Options {
    pub dry_run: bool,
    pub max_field_bytes: usize,
    /// What to do with the last turn of the file, which may still grow.
    pub tail: Tail,
    /// Session id when the records carry none (the hook's, or the file name).
    pub fallback_session: Option<String>,
    /// Exclusion, redaction and validation: the same door as `capture`.
    pub door: Door,
    /// The agent's own copy of its last reply (Claude Code's Stop hook),
    /// which completes the last turn when the transcript lags behind.
    pub last_message: Option<String>,
    /// Read at most this much (hooks); `None`: all of it.
    pub limits: Option<Limits>,
    /// Read only the bytes before this offset (the file as a hook saw it).
    pub end: Option<u64>,
}

/// Open a transcript: a regular file only, and without waiting (a FIFO
/// or a device named as a transcript would block or never end).
pub fn open_regular(path: &Path) -> Result<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .with_context(|| format!("opening transcript {}", path.display()))?;
    let kind = file.metadata().with_context(|| format!("transcript {}", path.display()))?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a folder"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_socket() {
            "a socket"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else {
            "not a file"
        };
        anyhow::bail!("transcript {} is {what}, not a regular file", path.display());
    }
    Ok(file)
}

/// What a second read of a key means for a transcript format: an agent's
/// transcript is read while it is written (a longer reply completes the
/// stored turn); Claude Code's record ids can be reused by another prompt;
/// ragger's own lines follow capture's rule.
fn same_key(format: Format) -> SameKey {
    match format {
        Format::ClaudeCode => SameKey::GrowOrFork,
        Format::Codex => SameKey::Grow,
        Format::Jsonl => SameKey::Keep,
    }
}

/// Import `path`; malformed lines and refused turns are reported through
/// `warn` (one line each, naming file and line) and counted. A refused
/// turn is read again by the next run (the mark stays before it).
pub fn import_file(
    store: &mut Store,
    path: &Path,
    format: Format,
    opts: &Options,
    warn: &mut dyn FnMut(String),
) -> Result<Report> {
    let abs = std::fs::canonicalize(path).with_context(|| format!("transcript {}", path.display()))?;
    let key = abs.to_string_lossy().into_owned();
    let file = open_regular(&abs)?;
    // A zstd file (Codex's compressed rollouts) is read as its content.
    let unpacked = if is_zstd(&file) { Some(unzstd(&file, &abs)?) } else { None };
    let bytes = match &unpacked {
        Some(d) => Bytes::Memory(d),
        None => Bytes::File(&file),
    };
    let full_len = match &unpacked {
        Some(d) => d.len() as u64,
        None => file.metadata().with_context(|| format!("transcript {}", abs.display()))?.len(),
    };
    let len = opts.end.map_or(full_len, |end| end.min(full_len));
    let known = mark(store, &key, format.name())?;
    let mut head = None;
    if known.as_ref().is_some_and(|m| m.byte_offset > len && m.byte_offset <= full_len) {
        // Asked to read up to `end` (a spooled hook), but a later run
        // already read past it.
        return Ok(Report { files: 1, ..Report::default() });
    }
    let (mut start, mut first_line, carry, open_json) = match known {
        Some(m) if m.byte_offset <= len && check_hash(&bytes, m.byte_offset, &mut head)? == m.check_hash => {
            (m.byte_offset, m.line_no, Carry { session: m.session, cwd: m.cwd }, m.open_turn)
        }
        // New, or rewritten since (shorter, or other bytes before the mark):
        // read it all again; the turn keys keep what was stored once.
        _ => (0, 0, Carry::default(), None),
    };
    let fallback = opts.fallback_session.clone().or_else(|| {
        let name = abs.file_name()?.to_string_lossy().into_owned();
        let stem = name.strip_suffix(".zst").unwrap_or(&name);
        let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
        Some(stem.trim_start_matches("rollout-").to_string())
    });
    let mut p = parser(format, carry, fallback.clone());
    // The turn the last read left open goes on from here; a saved turn this
    // version cannot read is read again from the file's start (the turn
    // keys keep what was stored once).
    let resumed = match open_json.map(|j| serde_json::from_str::<OpenTurn>(&j)) {
        Some(Ok(open)) if p.resumable() => {
            p.resume(open.draft.clone());
            Some(open)
        }
        Some(_) => {
            (start, first_line) = (0, 0);
            p = parser(format, Carry::default(), fallback);
            None
        }
        None => None,
    };
    let mut want = len - start;
    // Cut short: the end of what was read is not the end of the file.
    let mut cut = false;
    if let Some(l) = opts.limits.filter(|l| want > l.max_bytes) {
        want = l.max_bytes;
        cut = true;
    }
    let data = match &unpacked {
        Some(d) => d[start as usize..(start + want) as usize].to_vec(),
        None => read_at(&file, start, want).with_context(|| format!("reading transcript {}", abs.display()))?,
    };
    if (data.len() as u64) < want {
        cut = false; // the file shrank while we read: what we have is its end
    }

    let mut report = Report { files: 1, bytes_read: data.len() as u64, ..Report::default() };
    let shown = path.display().to_string();
    let mut pos = 0usize;
    let mut line_no = first_line;
    // Where everything read so far ends (a complete line's end).
    let mut consumed = start;
    while pos < data.len() {
        if let Some(l) = &opts.limits {
            if (line_no - first_line) % CLOCK_EVERY == 0 && Instant::now() >= l.deadline {
                cut = true;
                break;
            }
        }
        let (end, next, terminated) = match memchr::memchr(b'\n', &data[pos..]) {
            Some(i) => (pos + i, pos + i + 1, true),
            None => (data.len(), data.len(), false),
        };
        let mut bytes = &data[pos..end];
        while let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        if !terminated && (cut || serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err()) {
            // A line the agent is still writing (or past what we may read): next time.
            break;
        }
        line_no += 1;
        let offset = start + pos as u64;
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            if let Err(why) = p.feed(&Line { no: line_no, offset, bytes }) {
                report.malformed += 1;
                warn(format!("{shown}:{line_no}: {why}"));
            }
        }
        pos = next;
        consumed = start + next as u64;
    }
    let mut drafts = p.take_done();
    // The turn the last read left open, finished now as it was stored:
    // nothing to store again.
    let unchanged = |raw: &Draft, admitted: &Draft| {
        resumed.as_ref().is_some_and(|o| o.draft == *raw && o.stored == Some(stored_hash(admitted)))
    };
    drafts.retain(|d| !unchanged(d, d));
    // Where the next run starts: after everything read, or before the
    // first thing it must read again (a line whose meaning the next turn
    // needs; a refused turn; the last turn, which may still grow, when the
    // parser cannot go on with it).
    let mut next = (consumed, line_no);
    let rewind = |next: &mut (u64, u64), offset: u64, line: u64| {
        if offset < next.0 {
            *next = (offset, line.saturating_sub(1));
        }
    };
    if let Some((offset, line)) = p.resume_at() {
        rewind(&mut next, offset, line);
    }
    let key_final = p.open_key_final();
    // The open turn as parsed, with the hash of what is stored of it (saved
    // with the mark), and its index among the turns to store.
    let mut open_turn: Option<OpenTurn> = None;
    let mut open_index: Option<usize> = None;
    if let Some(mut open) = p.open_turn() {
        let raw = open.clone();
        if let Some(m) = opts.last_message.as_deref().filter(|_| !cut) {
            open.complete_with(m);
        }
        let hold = cut
            || !key_final
            || match opts.tail {
                Tail::Store => false,
                Tail::StoreWithWords => !open.has_text,
                Tail::Hold => true,
            };
        if hold {
            report.skipped.insert("unfinished turn (held)".into(), 1);
            open_turn = Some(OpenTurn { draft: raw, stored: None });
        } else if unchanged(&raw, &open) {
            open_turn = Some(OpenTurn { draft: raw, stored: Some(stored_hash(&open)) });
        } else {
            open_turn = Some(OpenTurn { draft: raw, stored: None });
            open_index = Some(drafts.len());
            drafts.push(open);
        }
    }
    report.skipped.extend(std::mem::take(p.skipped()));
    report.turns = drafts.len() as u64;
    if cut {
        report.unread_bytes = len - consumed;
    }

    let now = now_ms();
    let mut turns: Vec<(u64, Turn)> = Vec::with_capacity(drafts.len());
    let mut last_time: Option<String> = None;
    for (i, mut d) in drafts.into_iter().enumerate() {
        let (line, offset) = (d.start_line, d.start);
        if opts.limits.is_some_and(|l| i >= l.max_turns || Instant::now() >= l.deadline) {
            // Out of budget: this turn and the rest are read again next time.
            rewind(&mut next, offset, line);
            report.unread_bytes = report.unread_bytes.max(len - offset);
            break;
        }
        let hash = stored_hash(&d);
        if format != Format::Jsonl {
            if let Some(why) = fix_time(&mut d, &mut last_time, now) {
                warn(format!("{shown}:{line}: {why}"));
            }
        }
        if let Some(cwd) = &d.cwd {
            // The door finds the folder's project (repository root, configured name).
            d.project = Some(cwd.clone());
        }
        let cwd = d.cwd.clone().map(std::path::PathBuf::from);
        match opts.door.admit_line(to_input(d, opts.max_field_bytes), cwd.as_deref(), now) {
            Ok(Admitted::Turn(t)) => {
                report.redactions += t.redactions as u64;
                turns.push((line, t))
            }
            Ok(Admitted::Excluded) => report.excluded += 1,
            Err(why) => {
                report.rejected += 1;
                rewind(&mut next, offset, line);
                warn(format!("{shown}:{line}: turn refused: {why} (read again on the next run)"));
                report.refused.push(Refused { file: shown.clone(), line, reason: why });
                continue;
            }
        }
        if let Some(o) = open_turn.as_mut().filter(|_| open_index == Some(i)) {
            o.stored = Some(hash);
        }
    }
    // The next run goes on after everything read, with the open turn saved
    // (when the parser can take it back and nothing before it is read
    // again), or starts over at the open turn.
    let mut saved = None;
    if let Some(open) = open_turn {
        if p.resumable() && !cut && next.0 == consumed {
            saved = Some(serde_json::to_string(&open)?);
        } else {
            rewind(&mut next, open.draft.start, open.draft.start_line);
        }
    }
    if opts.dry_run {
        for (_, t) in &turns {
            let seen = turn_exists(store, &t.session, t.id.as_deref().unwrap_or(""))?;
            if seen {
                report.duplicates += 1;
            } else {
                report.stored += 1;
            }
        }
        return Ok(report);
    }
    let (next_offset, next_line) = next;
    let new_mark = FileMark {
        byte_offset: next_offset,
        line_no: next_line,
        check_hash: check_hash(&bytes, next_offset, &mut head)?,
        session: p.carry().session,
        cwd: p.carry().cwd,
        open_turn: saved,
    };
    let new_mark = NewMark { path: &key, format: format.name(), mark: &new_mark, now };
    let same = same_key(format);
    if turns.is_empty() {
        store_turns(store, &[], same, &shown, Some(&new_mark))?;
    }
    let mut chunks = turns.chunks(BATCH).peekable();
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let s = store_turns(store, chunk, same, &shown, last.then_some(&new_mark))?;
        report.stored += s.stored;
        report.duplicates += s.duplicates;
        report.updated += s.updated;
        report.forgotten += s.forgotten;
    }
    Ok(report)
}

/// The largest content of a compressed transcript.
const MAX_UNPACKED: u64 = 1 << 30;

/// A transcript's bytes: the file, or a compressed file's content.
enum Bytes<'a> {
    File(&'a std::fs::File),
    Memory(&'a [u8]),
}

impl Bytes<'_> {
    /// Append `n` bytes from `from` to `buf`; fewer is an error.
    fn append_exact_at(&self, buf: &mut Vec<u8>, from: u64, n: usize) -> std::io::Result<()> {
        match self {
            Bytes::File(f) => {
                let had = buf.len();
                append_at(f, buf, from, n)?;
                if buf.len() - had < n {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                Ok(())
            }
            Bytes::Memory(d) => {
                let from = from as usize;
                let part = d.get(from..from + n).ok_or(std::io::ErrorKind::UnexpectedEof)?;
                buf.extend_from_slice(part);
                Ok(())
            }
        }
    }
}

/// Whether a file starts with the zstd frame magic (RFC 8878, 3.1.1).
fn is_zstd(file: &std::fs::File) -> bool {
    let mut magic = [0u8; 4];
    file.read_exact_at(&mut magic, 0).is_ok() && magic == [0x28, 0xB5, 0x2F, 0xFD]
}

/// The content of a zstd file (every frame of it).
fn unzstd(file: &std::fs::File, path: &Path) -> Result<Vec<u8>> {
    let mut reader = std::io::BufReader::new(file);
    reader.seek(SeekFrom::Start(0))?;
    let mut out = Vec::new();
    // Frames one after the other are one content (as `zstd -d` reads them).
    while !std::io::BufRead::fill_buf(&mut reader)?.is_empty() {
        let mut decoder = ruzstd::decoding::StreamingDecoder::new(&mut reader)
            .map_err(|e| anyhow::anyhow!("transcript {}: not a readable zstd file: {e}", path.display()))?;
        let room = MAX_UNPACKED + 1 - out.len() as u64;
        (&mut decoder)
            .take(room)
            .read_to_end(&mut out)
            .with_context(|| format!("transcript {}: decompressing zstd", path.display()))?;
        if out.len() as u64 > MAX_UNPACKED {
            anyhow::bail!("transcript {}: decompresses to more than {} MiB", path.display(), MAX_UNPACKED >> 20);
        }
    }
    Ok(out)
}

/// The turn a read left open, saved with the file's mark: the parser's
/// draft of it, and a hash of what was stored of it (`None`: not stored,
/// it was held).
#[derive(serde::Serialize, serde::Deserialize)]
struct OpenTurn {
    draft: Draft,
    stored: Option<u64>,
}

/// What storing a turn stores of its draft, hashed: the same hash, the
/// same turn stored again.
fn stored_hash(d: &Draft) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    for part in [
        d.session.as_str(),
        &d.key,
        d.at.as_deref().unwrap_or(""),
        d.cwd.as_deref().unwrap_or(""),
        &d.user,
        &d.assistant,
    ] {
        h.write(part.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

/// Up to `want` bytes of `file` from `start` (fewer if it is shorter now).
fn read_at(file: &std::fs::File, start: u64, want: u64) -> std::io::Result<Vec<u8>> {
    let mut data = Vec::new();
    append_at(file, &mut data, start, want as usize)?;
    Ok(data)
}

/// Append up to `want` bytes of `file` from `start` to `buf` (fewer at its
/// end), read into the vector's spare room: a hook reads tens of
/// kilobytes, which need not be zeroed first.
fn append_at(file: &std::fs::File, buf: &mut Vec<u8>, start: u64, want: usize) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    buf.reserve_exact(want);
    let mut got = 0usize;
    while got < want {
        let room = buf.spare_capacity_mut();
        let offset = libc::off_t::try_from(start + got as u64).map_err(|_| std::io::ErrorKind::InvalidInput)?;
        // SAFETY: `room` is valid for writes of `want - got` bytes (reserved
        // above); pread writes at most that many and says how many.
        let n = unsafe { libc::pread(file.as_raw_fd(), room.as_mut_ptr().cast(), want - got, offset) };
        match n {
            0 => break,
            n if n > 0 => {
                // SAFETY: pread initialised the first `n` bytes of the spare room.
                unsafe { buf.set_len(buf.len() + n as usize) };
                got += n as usize;
            }
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// An agent's turn with a time that is not RFC 3339, or far in the future
/// (a wrong clock), is kept: it takes the time of the turn before it in
/// this read (else the time of import) and the reason is returned for a
/// warning. Good times are remembered in `last`.
fn fix_time(d: &mut Draft, last: &mut Option<String>, now: i64) -> Option<String> {
    let at = d.at.as_deref().map(str::trim).filter(|s| !s.is_empty())?.to_string();
    let why = match parse_time(&at) {
        Ok(ms) if ms <= now + MAX_CLOCK_SKEW_MS => {
            *last = Some(at);
            return None;
        }
        Ok(_) => format!("is more than {} minutes in the future", MAX_CLOCK_SKEW_MS / 60_000),
        Err(_) => "is not an RFC 3339 time".to_string(),
    };
    d.at = last.clone();
    let instead = match last {
        Some(t) => format!("the time of the turn before it ({t})"),
        None => "the time of import".to_string(),
    };
    Some(format!("time {:?} {why}; the turn is stored with {instead}", super::short(&at, 40)))
}

/// FNV-1a over the file's head and the bytes just before `offset`: the
/// same value means the part already read is (very likely) unchanged.
/// `head` keeps the hash of the head between two calls on one file (the
/// mark checked, the new mark made): the head of both is read once.
fn check_hash(file: &Bytes<'_>, offset: u64, head: &mut Option<(u64, u64)>) -> Result<String> {
    use std::hash::Hasher;
    let head_len = offset.min(CHECK_WINDOW);
    let mut buf = Vec::new();
    let state = match *head {
        Some((len, state)) if len == head_len => state,
        _ => {
            file.append_exact_at(&mut buf, 0, head_len as usize).context("reading transcript")?;
            let mut h = fnv::FnvHasher::default();
            h.write(&buf);
            *head = Some((head_len, h.finish()));
            h.finish()
        }
    };
    let mut h = fnv::FnvHasher::with_key(state);
    let tail_start = offset.saturating_sub(CHECK_WINDOW).max(head_len);
    buf.clear();
    file.append_exact_at(&mut buf, tail_start, (offset - tail_start) as usize).context("reading transcript")?;
    h.write(&buf);
    h.write_u64(offset);
    Ok(format!("{:016x}", h.finish()))
}
