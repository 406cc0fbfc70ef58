//! Importing one transcript file incrementally: read from where the last
//! run stopped (when the bytes before that point are unchanged), parse,
//! store the turns through capture, remember the new starting point.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::{Context, Result};

use super::{parser, to_input, Carry, Format, Line, Report};
use crate::capture::{Admitted, Door, Turn};
use crate::store::imports::{mark, store_turns, turn_exists, FileMark, NewMark};
use crate::store::{now_ms, Store};

/// Turns per write transaction.
const BATCH: usize = 500;
/// Bytes hashed at the head of the file and before the starting point.
const CHECK_WINDOW: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

pub struct Options {
    pub dry_run: bool,
    pub max_field_bytes: usize,
    /// What to do with the last turn of the file, which may still grow.
    pub tail: Tail,
    /// Session id when the records carry none (the hook's, or the file name).
    pub fallback_session: Option<String>,
    /// `[import] projects`.
    pub projects: std::collections::BTreeMap<String, String>,
    /// Exclusion, redaction and validation: the same door as `capture`.
    pub door: Door,
}

/// Import `path`; malformed lines and refused turns are reported through
/// `warn` (one line each, naming file and line) and counted.
pub fn import_file(
    store: &mut Store,
    path: &Path,
    format: Format,
    opts: &Options,
    warn: &mut dyn FnMut(String),
) -> Result<Report> {
    let abs = std::fs::canonicalize(path).with_context(|| format!("transcript {}", path.display()))?;
    let key = abs.to_string_lossy().into_owned();
    let file = std::fs::File::open(&abs).with_context(|| format!("opening transcript {}", abs.display()))?;
    // A zstd file (Codex's compressed rollouts) is read as its content.
    let unpacked = if is_zstd(&file) { Some(unzstd(&file, &abs)?) } else { None };
    let bytes = match &unpacked {
        Some(d) => Bytes::Memory(d),
        None => Bytes::File(&file),
    };
    let len = match &unpacked {
        Some(d) => d.len() as u64,
        None => file.metadata().with_context(|| format!("transcript {}", abs.display()))?.len(),
    };
    let known = mark(store, &key, format.name())?;
    let (start, first_line, carry) = match known {
        Some(m) if m.byte_offset <= len && check_hash(&bytes, m.byte_offset)? == m.check_hash => {
            (m.byte_offset, m.line_no, Carry { session: m.session, cwd: m.cwd })
        }
        // New, or rewritten since (shorter, or other bytes before the mark):
        // read it all again; the turn keys keep what was stored once.
        _ => (0, 0, Carry::default()),
    };
    let data = match &unpacked {
        Some(d) => d[start as usize..].to_vec(),
        None => {
            let mut data = Vec::with_capacity((len - start) as usize);
            (&file).seek(SeekFrom::Start(start))?;
            (&file).read_to_end(&mut data).with_context(|| format!("reading transcript {}", abs.display()))?;
            data
        }
    };

    let fallback = opts.fallback_session.clone().or_else(|| {
        let name = abs.file_name()?.to_string_lossy().into_owned();
        let stem = name.strip_suffix(".zst").unwrap_or(&name);
        let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
        Some(stem.trim_start_matches("rollout-").to_string())
    });
    let mut p = parser(format, carry, fallback);
    let mut report = Report { files: 1, bytes_read: data.len() as u64, ..Report::default() };
    let shown = path.display().to_string();
    let mut pos = 0usize;
    let mut line_no = first_line;
    // Where everything read so far ends (a complete line's end).
    let mut consumed = start;
    while pos < data.len() {
        let (end, next, terminated) = match data[pos..].iter().position(|&b| b == b'\n') {
            Some(i) => (pos + i, pos + i + 1, true),
            None => (data.len(), data.len(), false),
        };
        let mut bytes = &data[pos..end];
        while let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        if !terminated && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err() {
            // A line the agent is still writing: next time.
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
    let (mut next_offset, mut next_line) = (consumed, line_no);
    if let Some(open) = p.open_turn() {
        // The last turn may still grow: the next run reads it again (its
        // key makes that a duplicate, not a second turn).
        next_offset = open.start;
        next_line = open.start_line - 1;
        let hold = match opts.tail {
            Tail::Store => false,
            Tail::StoreWithWords => !open.has_text,
            Tail::Hold => true,
        };
        if hold {
            report.skipped.insert("unfinished turn (held)".into(), 1);
        } else {
            drafts.push(open);
        }
    }
    report.skipped.extend(std::mem::take(p.skipped()));
    report.turns = drafts.len() as u64;

    let now = now_ms();
    let mut turns: Vec<(u64, Turn)> = Vec::with_capacity(drafts.len());
    for mut d in drafts {
        let line = d.start_line;
        if let Some(cwd) = &d.cwd {
            d.project = super::project_for(cwd, &opts.projects);
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
                warn(format!("{shown}:{line}: turn refused: {why}"));
            }
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
    let new_mark = FileMark {
        byte_offset: next_offset,
        line_no: next_line,
        check_hash: check_hash(&bytes, next_offset)?,
        session: p.carry().session,
        cwd: p.carry().cwd,
    };
    let new_mark = NewMark { path: &key, format: format.name(), mark: &new_mark, now };
    if turns.is_empty() {
        store_turns(store, &[], &shown, Some(&new_mark))?;
    }
    let mut chunks = turns.chunks(BATCH).peekable();
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let (stored, duplicates) = store_turns(store, chunk, &shown, last.then_some(&new_mark))?;
        report.stored += stored;
        report.duplicates += duplicates;
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
    fn read_exact_at(&self, buf: &mut [u8], from: u64) -> std::io::Result<()> {
        match self {
            Bytes::File(f) => f.read_exact_at(buf, from),
            Bytes::Memory(d) => {
                let from = from as usize;
                let part = d.get(from..from + buf.len()).ok_or(std::io::ErrorKind::UnexpectedEof)?;
                buf.copy_from_slice(part);
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

/// FNV-1a over the file's head and the bytes just before `offset`: the
/// same value means the part already read is (very likely) unchanged.
fn check_hash(file: &Bytes<'_>, offset: u64) -> Result<String> {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    let head = offset.min(CHECK_WINDOW);
    let tail_start = offset.saturating_sub(CHECK_WINDOW).max(head);
    for (from, to) in [(0, head), (tail_start, offset)] {
        let mut buf = vec![0u8; (to - from) as usize];
        file.read_exact_at(&mut buf, from).context("reading transcript")?;
        h.write(&buf);
    }
    h.write_u64(offset);
    Ok(format!("{:016x}", h.finish()))
}
