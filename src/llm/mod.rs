//! The memory model: one interface for every backend (in-process llama.cpp,
//! OpenAI-compatible HTTP, Ollama HTTP). The summarization code depends only
//! on [`MemoryModel`] and [`complete`].

pub mod clean;
pub mod factory;
pub mod http;
#[cfg(feature = "local")]
pub mod local;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde::Serialize;

/// Who said a message. Prompts are plain text; each backend applies the
/// model's own chat template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into() }
    }
}

#[derive(Clone, Debug)]
pub struct Request {
    pub messages: Vec<Message>,
    pub temperature: f32,
    pub max_tokens: u32,
    pub stop: Vec<String>,
    /// When the reply may end before the model ends it (see [`Settled`]).
    pub settled: Option<Settled>,
    /// The words a reply may be written with (see [`Vocabulary`]); `None`
    /// leaves the model free.
    pub vocabulary: Option<Vocabulary>,
}

/// The words a reply may use: a backend that decodes token by token (the
/// local one) lets the model choose only tokens that spell these words,
/// the punctuation between them and the end of the reply, so a name,
/// number or identifier its sources lack cannot be written whole (pieces
/// of allowed words can still combine: the grounding check stays). An
/// HTTP backend, which sees no token ids, ignores it.
///
/// Some of its words may be *sought*: the facts a reply should keep (the
/// names, numbers and identifiers of its sources). While one of them is
/// not yet written, a token that starts or goes on spelling it is
/// favoured, so a small model writing "the assistant suggested …" names
/// `restic check` rather than "a check" (SmolLM2-135M's grounded sentences
/// kept 4–5 of the 15–18 facts of their turns). The model still chooses
/// where, and whether, a fact goes in.
#[derive(Clone)]
pub struct Vocabulary {
    words: Arc<Vec<String>>,
    sought: Arc<Vec<String>>,
}

impl Vocabulary {
    pub fn new(words: Vec<String>) -> Self {
        Vocabulary { words: Arc::new(words), sought: Arc::new(Vec::new()) }
    }
    /// The same vocabulary, seeking `sought` (words of it; any other is
    /// left out: a reply could not write it).
    pub fn seeking(self, sought: Vec<String>) -> Self {
        let known: std::collections::HashSet<String> = self.words.iter().map(|w| w.to_lowercase()).collect();
        let sought = sought.into_iter().filter(|w| known.contains(&w.to_lowercase())).collect();
        Vocabulary { sought: Arc::new(sought), ..self }
    }
    pub fn words(&self) -> &[String] {
        &self.words
    }
    /// The facts a reply is nudged to write, once each.
    pub fn sought(&self) -> &[String] {
        &self.sought
    }
}

impl fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Vocabulary({} words, {} sought)", self.words.len(), self.sought.len())
    }
}

/// A look at a reply while it is written, for a backend that writes it
/// token by token (the local one; an HTTP backend receives the reply whole
/// and ignores it). It is shown the reply so far up to the end of its last
/// complete sentence ([`sentence_end`]), each time one more sentence is
/// complete, with its [`Strain`] when decoding holds it to a vocabulary,
/// and `Some(why)` ends the reply there: nothing that could
/// follow would change what the caller makes of it (a fault that no
/// continuation undoes, or all the sentences the caller keeps).
#[derive(Clone)]
pub struct Settled(pub Arc<SettledFn>);

/// `Some(why)` when the reply so far is settled.
pub type SettledFn = dyn Fn(&str, Option<&Strain>) -> Option<String> + Send + Sync;

impl fmt::Debug for Settled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Settled(..)")
    }
}

/// Whether byte `i` of `text` ends a sentence: a `.`, `!` or `?` followed
/// by whitespace. The one rule for where a reply's sentences end.
pub fn ends_sentence(text: &[u8], i: usize) -> bool {
    matches!(text.get(i), Some(b'.' | b'!' | b'?')) && text.get(i + 1).is_some_and(|n| n.is_ascii_whitespace())
}

/// The length of `text` up to the end of its last complete sentence
/// ([`ends_sentence`]), if it has one.
pub fn sentence_end(text: &[u8]) -> Option<usize> {
    (0..text.len()).rev().find(|&i| ends_sentence(text, i)).map(|i| i + 1)
}

/// What a call cost, as far as the backend reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub prompt_tokens: Option<u32>,
    pub completion_tokens: Option<u32>,
    /// Prompt tokens actually evaluated: the rest came from a cached prefix.
    pub prompt_evaluated: Option<u32>,
    /// Time spent evaluating the prompt.
    pub prompt_time: Option<Duration>,
    /// Time spent generating the completion.
    pub generation_time: Option<Duration>,
}

/// A reply. From a backend's `generate` the text is raw; from [`complete`]
/// it is cleaned and never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub usage: Usage,
    /// How far decoding held to the request's vocabulary bent the model
    /// off its own words; None where nothing held it (no vocabulary, or a
    /// server, which receives none).
    pub strain: Option<Strain>,
}

impl Reply {
    /// A reply with nothing known of how it was decoded.
    pub fn plain(text: String, usage: Usage) -> Self {
        Reply { text, usage, strain: None }
    }
}

/// For a reply decoded with a [`Vocabulary`]: at each token, how much of
/// the model's own probability for its next token the vocabulary let
/// through, as a cost in nats (−ln of the share). A word the model writes
/// because the vocabulary allows no other costs much; a word it would have
/// written anyway costs nothing. SmolLM2-135M held to a chat turn's words
/// wrote "Caroline explained that it's been an added adoption to have a
/// family", whose tokens cost 1.2 nats on average, and "They shared a
/// photo: a man with a little girl standing in front of a waterfall.",
/// which said what its turn said, 0.18 (BENCHMARKS.md, stop 62).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strain {
    /// The reply as written, token after token.
    raw: String,
    /// Where each token ends in `raw`, and its cost in thousandths of a nat.
    tokens: Vec<(usize, u32)>,
}

impl Strain {
    /// The next token: its text and its cost in nats.
    pub fn push(&mut self, piece: &str, cost: f32) {
        self.raw.push_str(piece);
        self.tokens.push((self.raw.len(), (cost.clamp(0.0, 1000.0) * 1000.0).round() as u32));
    }

    /// The mean cost in nats of the tokens that wrote `sentence`, found in
    /// the reply as written but for its whitespace (cleaning joins lines;
    /// the first occurrence counts); None where the reply does not have it.
    pub fn of(&self, sentence: &str) -> Option<f32> {
        let (start, end) = find_spaced(&self.raw, sentence)?;
        let mut begin = 0;
        let (mut total, mut n) = (0u64, 0u32);
        for &(token_end, cost) in &self.tokens {
            if token_end > start && begin < end {
                total += u64::from(cost);
                n += 1;
            }
            begin = token_end;
        }
        (n > 0).then(|| total as f32 / n as f32 / 1000.0)
    }
}

/// Where `needle` (trimmed, not empty) first stands in `hay` with any run
/// of whitespace matching any other: its byte range in `hay`.
fn find_spaced(hay: &str, needle: &str) -> Option<(usize, usize)> {
    let squeeze = |text: &str| -> Vec<(char, usize, usize)> {
        let mut out: Vec<(char, usize, usize)> = Vec::new();
        for (i, c) in text.char_indices() {
            let end = i + c.len_utf8();
            match out.last_mut() {
                Some(last) if c.is_whitespace() && last.0 == ' ' => last.2 = end,
                _ => out.push((if c.is_whitespace() { ' ' } else { c }, i, end)),
            }
        }
        out
    };
    let (hay, needle) = (squeeze(hay), squeeze(needle.trim()));
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len())
        .find(|&i| hay[i..i + needle.len()].iter().zip(&needle).all(|(a, b)| a.0 == b.0))
        .map(|i| (hay[i].1, hay[i + needle.len() - 1].2))
}

/// The classes of failure the pipeline acts on differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The server is down or overloaded: connection refused, DNS, timeout,
    /// 429/502/503/504 after retries, model file missing: stop the run
    /// (exit 69), count no attempt against any item.
    Unavailable(String),
    /// This request failed while the server is up: an unparseable, empty or
    /// oversized reply, a 400/413/422 (a content filter, a prompt too long)
    /// or a 500 after retries. Counts one attempt against that item; the
    /// pass moves on to the next.
    BadReply(String),
    /// 401/403/404/405 (bad model name, bad key, wrong URL): exit 78 with
    /// the server's message.
    Refused(String),
    /// The call was abandoned in flight: a signal or `--max-seconds` asked
    /// the pass to stop. Counts no attempt; the item stays pending.
    Interrupted,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Unavailable(m) => write!(f, "memory model unavailable: {m}"),
            ModelError::BadReply(m) => write!(f, "bad reply from memory model: {m}"),
            ModelError::Refused(m) => write!(f, "memory model refused the request: {m}"),
            ModelError::Interrupted => write!(f, "memory model call interrupted"),
        }
    }
}

impl std::error::Error for ModelError {}

impl crate::exit::ExitStatus for ModelError {
    fn exit(&self) -> crate::exit::Exit {
        use crate::exit::Exit;
        match self {
            ModelError::Unavailable(_) => Exit::Unavailable,
            ModelError::Interrupted => Exit::Interrupted,
            ModelError::Refused(_) => Exit::Config,
            ModelError::BadReply(_) => Exit::Failed,
        }
    }
}

/// One memory model backend.
pub trait MemoryModel: Send + Sync {
    /// Human description for `doctor` and errors: backend plus URL or path.
    fn describe(&self) -> String;
    /// Provenance id stored beside every derived row, e.g.
    /// `openai:qwen2.5-0.5b` or `local:SmolLM2-135M-Instruct.Q4_1.gguf`.
    fn model_id(&self) -> String;
    /// One cheap check that the model can answer (endpoint up and model
    /// listed; for `local`, the file exists and is a GGUF). Loads nothing big.
    fn preflight(&self) -> Result<(), ModelError>;
    /// Run one chat completion; the text is returned raw (uncleaned).
    fn generate(&self, req: &Request) -> Result<Reply, ModelError>;
    /// Whether a request's [`Vocabulary`] binds the reply (a backend that
    /// decodes token by token); a server sees no token ids and ignores it.
    fn keeps_vocabulary(&self) -> bool {
        false
    }
}

/// A cleaned reply longer than this many bytes per token of `max_tokens`
/// was not produced within the limit (a server that ignores it, a runaway
/// model): a bad reply, never a stored summary. English averages about
/// four bytes a token; sixteen leaves room for long words and other scripts.
pub const MAX_REPLY_BYTES_PER_TOKEN: usize = 16;

/// Generate and clean. An empty reply after cleaning is a bad reply, and
/// so is one far longer than `max_tokens` allows (0: no limit).
pub fn complete(model: &dyn MemoryModel, req: &Request) -> Result<Reply, ModelError> {
    let raw = model.generate(req)?;
    let text = clean::clean_reply(&raw.text);
    if text.is_empty() {
        return Err(ModelError::BadReply(format!(
            "empty text after cleaning (raw reply: {:?})",
            truncate_for_message(&raw.text, 80)
        )));
    }
    let limit = req.max_tokens as usize * MAX_REPLY_BYTES_PER_TOKEN;
    if limit > 0 && text.len() > limit {
        return Err(ModelError::BadReply(format!(
            "reply of {} bytes, longer than max_tokens ({}) allows (reply: {:?})",
            text.len(),
            req.max_tokens,
            truncate_for_message(&text, 80)
        )));
    }
    Ok(Reply { text, usage: raw.usage, strain: raw.strain })
}

/// When a pass wants its model calls abandoned: a stop flag (set by
/// SIGINT/SIGTERM) and a deadline (`--max-seconds`).
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    pub stop: Option<Arc<AtomicBool>>,
    pub deadline: Option<Instant>,
}

impl Cancel {
    pub fn requested(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// How often a waiting caller looks at its [`Cancel`].
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// Model calls running on their threads, in the whole process.
static CALLS_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Model calls still running on their threads: after a pass, the ones it
/// abandoned. The process must then end without its exit-time destructors
/// (`main`): they tear down llama.cpp's global state while an abandoned
/// local decode still uses it, and the process died of a segmentation
/// fault after printing its report (2 runs in 30 of `summarize --once
/// --max-seconds 3` with `parallel = 4` on a loaded machine).
pub fn calls_running() -> usize {
    CALLS_RUNNING.load(Ordering::SeqCst)
}

/// Counts one running call in the process until dropped (also when the
/// call panics).
struct Running;

impl Running {
    fn start() -> Running {
        CALLS_RUNNING.fetch_add(1, Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        CALLS_RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A model whose calls can be abandoned in flight: each call runs on its
/// own thread while the caller waits for the answer or the [`Cancel`],
/// whichever comes first. An abandoned call finishes (or times out) on its
/// thread and its answer is dropped; the item it was for stays pending.
pub struct Interruptible {
    inner: Arc<dyn MemoryModel>,
    cancel: Cancel,
    /// Completions asked for (the preflight aside).
    calls: std::sync::atomic::AtomicU64,
}

impl Interruptible {
    pub fn new(inner: Box<dyn MemoryModel>, cancel: Cancel) -> Self {
        Interruptible { inner: Arc::from(inner), cancel, calls: Default::default() }
    }

    /// This model's calls still running on their threads (each holds a
    /// handle on the model); the process-wide count is [`calls_running`].
    #[cfg(test)]
    fn running(&self) -> usize {
        Arc::strong_count(&self.inner) - 1
    }

    /// How many completions were asked for so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn run<R: Send + 'static>(
        &self,
        call: impl FnOnce(&dyn MemoryModel) -> Result<R, ModelError> + Send + 'static,
    ) -> Result<R, ModelError> {
        if self.cancel.requested() {
            return Err(ModelError::Interrupted);
        }
        let (tx, rx) = mpsc::channel();
        let inner = Arc::clone(&self.inner);
        let running = Running::start();
        std::thread::Builder::new()
            .name("model-call".into())
            .spawn(move || {
                let _running = running;
                let _ = tx.send(call(inner.as_ref()));
                drop(inner);
            })
            .map_err(|e| ModelError::Unavailable(format!("cannot start a thread for the model call: {e}")))?;
        loop {
            match rx.recv_timeout(CANCEL_POLL) {
                Ok(result) => return result,
                Err(mpsc::RecvTimeoutError::Timeout) if self.cancel.requested() => return Err(ModelError::Interrupted),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(ModelError::BadReply("model call panicked".into()))
                }
            }
        }
    }
}

impl MemoryModel for Interruptible {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn model_id(&self) -> String {
        self.inner.model_id()
    }
    fn preflight(&self) -> Result<(), ModelError> {
        self.run(|m| m.preflight())
    }
    fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let req = req.clone();
        self.run(move |m| m.generate(&req))
    }
    fn keeps_vocabulary(&self) -> bool {
        self.inner.keeps_vocabulary()
    }
}

/// Shorten a string for an error message, on a char boundary.
pub fn truncate_for_message(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max_chars).collect();
        t.push('…');
        t
    }
}

/// A test double: answers the calls with its texts in turn (over again
/// when they run out), each after its delay, and counts the calls.
#[cfg(test)]
pub(crate) struct Fixed(pub Vec<String>, pub std::sync::atomic::AtomicUsize, pub Duration);

#[cfg(test)]
impl Fixed {
    pub fn new(text: &str) -> Self {
        Self::cycle(&[text])
    }
    pub fn cycle(texts: &[&str]) -> Self {
        Fixed(texts.iter().map(|t| t.to_string()).collect(), Default::default(), Duration::ZERO)
    }
    /// Answers `text` after `delay`.
    pub fn slow(text: &str, delay: Duration) -> Self {
        Fixed(vec![text.to_string()], Default::default(), delay)
    }
    pub fn calls(&self) -> usize {
        self.1.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(test)]
impl MemoryModel for Fixed {
    fn describe(&self) -> String {
        "fixed".into()
    }
    fn model_id(&self) -> String {
        "fixed".into()
    }
    fn preflight(&self) -> Result<(), ModelError> {
        Ok(())
    }
    fn generate(&self, _: &Request) -> Result<Reply, ModelError> {
        std::thread::sleep(self.2);
        let n = self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Reply::plain(self.0[n % self.0.len()].clone(), Usage::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentences_strain_is_the_mean_cost_of_the_tokens_that_wrote_it() {
        let mut strain = Strain::default();
        for (piece, cost) in [("Mel", 0.5), ("anie", 0.1), (" swam", 0.3), (".", 0.0), (" She", 2.0), (" left.", 1.0)] {
            strain.push(piece, cost);
        }
        let near = |a: Option<f32>, b: f32| a.is_some_and(|a| (a - b).abs() < 1e-3);
        assert!(near(strain.of("Melanie swam."), 0.9 / 4.0), "{:?}", strain.of("Melanie swam."));
        assert!(near(strain.of(" She left. "), 1.5), "{:?}", strain.of("She left."));
        // A token that writes part of the sentence counts whole.
        assert!(near(strain.of("anie swam"), 0.2));
        assert_eq!(strain.of("Melanie left."), None, "not written as such");
        let mut lines = Strain::default();
        for (piece, cost) in [("It", 0.2), (" ran\n", 0.4), ("\n fine", 0.6), (".", 0.0)] {
            lines.push(piece, cost);
        }
        assert!(near(lines.of("It ran fine."), 0.3), "cleaning joined its lines: {:?}", lines.of("It ran fine."));
        assert_eq!(strain.of(""), None);
        assert_eq!(Strain::default().of("Melanie swam."), None);
    }

    fn request(max_tokens: u32) -> Request {
        Request {
            messages: vec![Message::user("x")],
            temperature: 0.0,
            max_tokens,
            stop: vec![],
            settled: None,
            vocabulary: None,
        }
    }

    #[test]
    fn an_abandoned_call_counts_as_running_until_its_thread_ends() {
        let cancel = Cancel { stop: None, deadline: Some(Instant::now() + Duration::from_millis(50)) };
        let m = Interruptible::new(Box::new(Fixed::slow("done", Duration::from_millis(300))), cancel);
        assert!(matches!(m.generate(&request(10)), Err(ModelError::Interrupted)));
        assert_eq!(m.running(), 1, "abandoned, still running");
        assert!(calls_running() >= 1);
        let waited = Instant::now();
        while m.running() > 0 && waited.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(m.running(), 0, "the thread ended and was counted out");
    }

    #[test]
    fn each_model_error_class_has_its_exit_code() {
        use crate::exit::{code_of, Exit, ExitStatus};
        assert_eq!(ModelError::Unavailable("x".into()).exit(), Exit::Unavailable);
        assert_eq!(ModelError::Interrupted.exit(), Exit::Interrupted);
        assert_eq!(ModelError::Refused("x".into()).exit(), Exit::Config);
        assert_eq!(ModelError::BadReply("x".into()).exit(), Exit::Failed);
        let err = anyhow::Error::new(ModelError::Refused("401".into())).context("preflight");
        assert_eq!(code_of(&err, &[crate::exit::class::<ModelError>]), Exit::Config);
    }

    #[test]
    fn a_reply_far_longer_than_max_tokens_allows_is_a_bad_reply() {
        let long = Fixed::new(&"word ".repeat(1000));
        assert!(
            matches!(complete(&long, &request(200)), Err(ModelError::BadReply(m)) if m.contains("max_tokens (200)"))
        );
        assert!(complete(&long, &request(400)).is_ok(), "5000 bytes fit 400 tokens");
        assert!(complete(&long, &request(0)).is_ok(), "0: no limit");
    }
}
