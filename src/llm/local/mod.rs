//! The `local` memory model: a GGUF model run in-process with llama.cpp
//! (through `llama-cpp-2`), so summarizing needs no server.
//!
//! Nothing is loaded until the first [`MemoryModel::generate`]; the model and
//! one context are then kept for every later call of the process.
//!
//! Prompts of one kind share their opening (system message, instructions,
//! examples): everything before the last message. The context keeps the
//! previous prompt and a call evaluates only what differs. Logits depend
//! slightly on how a prompt is cut into batches, and plain prefix reuse (as
//! llama.cpp's server does) made the same prompt at temperature 0 answer
//! differently depending on the call before it. So a prompt is cut into
//! batches by its own structure alone (see [`batches`]) and only batches
//! that the cached prompt was cut into identically are reused: a reply
//! depends on its prompt alone.
//!
//! With `parallel` above 1, calls made at the same time (the L2s of one
//! step, the folds of different sessions) are decoded together in one
//! context, as llama.cpp's server does with parallel slots: one sequence id
//! per call, each with its own sampler and stop conditions, new calls
//! joining between decode steps (continuous batching). The shared opening
//! of the prompts is evaluated once into sequence 0, batched as above, and
//! its cache cells are shared with every sequence that starts with it. A
//! call waits while the context cannot hold it beside those in flight, so
//! a context too small for several runs them one after another.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::{LlamaChatTemplate, LlamaModel};
use llama_cpp_2::token::LlamaToken;

mod engine;
mod parallel;
mod words;

use super::{MemoryModel, ModelError, Reply, Request};
use parallel::{Multi, Prefix};

/// Repetition penalty over the last 64 tokens (llama.cpp's default is 1.0,
/// off; its server examples use 1.1).
const REPEAT_PENALTY: f32 = 1.15;

/// Every GGUF file starts with these four bytes.
const GGUF_MAGIC: &[u8; 4] = b"GGUF";

/// llama.cpp's default micro-batch: a batch of this size is one pass.
const BATCH: usize = 512;

/// How a prompt of `n` tokens whose first `context` tokens are the earlier
/// messages is cut into batches: the context, then the rest, each in
/// pieces of at most [`BATCH`]. The context ends a batch so that the next
/// prompt with the same earlier messages can reuse all of it; one batch
/// for the rest is faster than small pieces (12% per token measured with
/// SmolLM2-135M on 2 cores against 64-token pieces).
fn batches(context: usize, n: usize) -> Vec<Range<usize>> {
    let context = context.min(n);
    let mut out = Vec::new();
    for (from, to) in [(0, context), (context, n)] {
        let mut start = from;
        while start < to {
            let end = (start + BATCH).min(to);
            out.push(start..end);
            start = end;
        }
    }
    out
}

/// How many leading tokens of the cache (holding `cached`, cut as
/// `cached_batches`) a prompt of `n` tokens cut as `new_batches` can keep:
/// the batches both were cut into identically, within the `shared` tokens,
/// short of the last batch (its logits are needed).
fn reusable(cached_batches: &[Range<usize>], new_batches: &[Range<usize>], shared: usize, n: usize) -> usize {
    cached_batches
        .iter()
        .zip(new_batches)
        .take_while(|(a, b)| a == b && a.end <= shared && a.end < n)
        .last()
        .map_or(0, |(a, _)| a.end)
}

/// Settings of the local backend, already resolved from the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalOptions {
    /// The GGUF file.
    pub model_path: PathBuf,
    /// Threads for prompt evaluation and generation (at least 1).
    pub threads: usize,
    /// Context size: prompt plus reply must fit in it.
    pub context_tokens: u32,
    /// Seed of the sampler when the temperature is above 0.
    pub seed: u32,
    /// Let llama.cpp log to stderr. The first model loaded in a process
    /// decides, since llama.cpp's logger is process-wide.
    pub verbose_log: bool,
    /// Calls decoded together at most (`[memory_model] parallel`); 1: one
    /// call at a time, each alone in the context.
    pub parallel: usize,
}

/// Most sequences decoded together (llama.cpp allows 256 per context).
pub const MAX_PARALLEL: usize = 64;

/// A GGUF model run in-process; cheap to create, loaded on first use.
pub struct LocalModel {
    opts: LocalOptions,
    engine: Mutex<Option<Engine>>,
    /// Calls waiting to join the decoding (`parallel` above 1).
    queue: Mutex<Queue>,
}

/// Calls waiting for the decoding loop, and whether a caller runs it.
#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// A caller's thread runs the loop; it ends when nothing is left.
    driving: bool,
}

/// One call waiting for its reply.
struct Job {
    req: Request,
    reply: mpsc::Sender<Result<Reply, ModelError>>,
}

/// The loaded model, its context and what the context's cache holds.
struct Engine {
    // Declared before `model` so that it is dropped first: the context points
    // into the model.
    ctx: LlamaContext<'static>,
    model: Box<LlamaModel>,
    template: LlamaChatTemplate,
    /// The last prompt, whose keys and values (sequence 0, positions from 0)
    /// are in the cache, and the batches it was evaluated in.
    cached: Vec<LlamaToken>,
    cached_batches: Vec<Range<usize>>,
    /// With `parallel` above 1: the shared opening held by sequence 0.
    prefix: Option<Prefix>,
    load_time: Duration,
    /// The template starts every reply inside a reasoning block, whose
    /// closing tag drops what came before it: no reply is settled early.
    opens_reasoning: bool,
}

/// Where a reply being written may end early: [`Request::settled`] is asked
/// each time one more sentence of the reply is complete.
struct Watch {
    /// Not for a reply that starts inside a reasoning block.
    on: bool,
    /// The length of the reply already judged.
    judged: usize,
}

impl Watch {
    fn new(opens_reasoning: bool) -> Self {
        Watch { on: !opens_reasoning, judged: 0 }
    }

    /// The length the reply of `req` ends at, when what is written of it
    /// (`text`) settles it.
    fn settled(&mut self, req: &Request, text: &[u8], strain: Option<&crate::llm::Strain>) -> Option<usize> {
        let settled = req.settled.as_ref().filter(|_| self.on)?;
        let end = crate::llm::sentence_end(text)?;
        if end <= self.judged {
            return None;
        }
        self.judged = end;
        (settled.0)(&String::from_utf8_lossy(&text[..end]), strain).map(|_| end)
    }
}

impl LocalModel {
    /// Store the options; nothing is read or loaded.
    pub fn new(opts: LocalOptions) -> Self {
        LocalModel { opts, engine: Mutex::new(None), queue: Mutex::new(Queue::default()) }
    }

    /// How many calls are decoded together at most.
    pub fn parallel(&self) -> usize {
        self.opts.parallel.clamp(1, MAX_PARALLEL)
    }

    /// Several calls decoded together (as far as the context holds them),
    /// replies in the order of `reqs`. With `parallel` 1, one after another.
    pub fn generate_batch(&self, reqs: &[Request]) -> Vec<Result<Reply, ModelError>> {
        if self.parallel() == 1 {
            return reqs.iter().map(|r| self.generate(r)).collect();
        }
        let receivers: Vec<_> = {
            let mut queue = self.queue_lock();
            reqs.iter()
                .map(|req| {
                    let (tx, rx) = mpsc::channel();
                    queue.jobs.push_back(Job { req: req.clone(), reply: tx });
                    rx
                })
                .collect()
        };
        self.drive_unless_driven();
        receivers.into_iter().map(wait).collect()
    }

    fn queue_lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Run the decoding loop on this thread unless another caller does.
    fn drive_unless_driven(&self) {
        let drive = !std::mem::replace(&mut self.queue_lock().driving, true);
        if drive {
            self.drive();
        }
    }

    /// The decoding loop: admit waiting calls, decode one step for every
    /// sequence in flight, answer the finished ones; until no call is left.
    fn drive(&self) {
        let _driving = Driving(self);
        let mut guard = match self.engine() {
            Ok(g) => g,
            Err(e) => {
                let mut queue = self.queue_lock();
                for job in queue.jobs.drain(..) {
                    let _ = job.reply.send(Err(e.clone()));
                }
                queue.driving = false;
                return;
            }
        };
        let engine = guard.as_mut().expect("engine() leaves a loaded engine");
        let mut multi = Multi::start(engine, self.parallel(), self.opts.seed);
        let mut waiting = VecDeque::new();
        loop {
            {
                let mut queue = self.queue_lock();
                waiting.extend(queue.jobs.drain(..));
                if waiting.is_empty() && multi.idle() {
                    queue.driving = false;
                    break;
                }
            }
            multi.admit(&mut waiting);
            multi.step();
        }
        multi.finish();
    }
}

/// Clears the driving mark when the loop ends, also by a panic: then the
/// waiting calls are dropped, and their callers see a bad reply.
struct Driving<'m>(&'m LocalModel);

impl Drop for Driving<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut queue = self.0.queue_lock();
            queue.jobs.clear();
            queue.driving = false;
        }
    }
}

/// A reply from the decoding loop; a loop that panicked gave none.
fn wait(rx: mpsc::Receiver<Result<Reply, ModelError>>) -> Result<Reply, ModelError> {
    rx.recv().unwrap_or_else(|_| Err(ModelError::BadReply("model call panicked".into())))
}

impl LocalModel {
    /// Load the model now unless it is loaded already (otherwise the first
    /// `generate` does it). For benchmarks and `doctor`.
    pub fn load(&self) -> Result<(), ModelError> {
        self.engine().map(drop)
    }

    /// How long loading the model and creating its context took, once loaded.
    pub fn load_time(&self) -> Option<Duration> {
        self.lock().as_ref().map(|e| e.load_time)
    }

    fn lock(&self) -> MutexGuard<'_, Option<Engine>> {
        // After a panic mid-call the cache record is already cleared (see
        // `Engine::run`), so the engine is safe to use again.
        self.engine.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn engine(&self) -> Result<MutexGuard<'_, Option<Engine>>, ModelError> {
        let mut guard = self.lock();
        if guard.is_none() {
            *guard = Some(Engine::load(&self.opts)?);
        }
        Ok(guard)
    }
}

impl MemoryModel for LocalModel {
    fn describe(&self) -> String {
        format!("local {} (threads {})", self.opts.model_path.display(), self.opts.threads)
    }

    fn model_id(&self) -> String {
        let name = self.opts.model_path.file_name().unwrap_or(self.opts.model_path.as_os_str());
        format!("local:{}", name.to_string_lossy())
    }

    fn preflight(&self) -> Result<(), ModelError> {
        check_gguf_file(&self.opts.model_path)
    }

    fn generate(&self, req: &Request) -> Result<Reply, ModelError> {
        if self.parallel() == 1 {
            let mut guard = self.engine()?;
            let engine = guard.as_mut().expect("engine() leaves a loaded engine");
            return engine.run(req, self.opts.seed);
        }
        let (tx, rx) = mpsc::channel();
        self.queue_lock().jobs.push_back(Job { req: req.clone(), reply: tx });
        self.drive_unless_driven();
        wait(rx)
    }

    fn keeps_vocabulary(&self) -> bool {
        true
    }
}

/// The file exists, is readable and starts with the GGUF magic.
fn check_gguf_file(path: &Path) -> Result<(), ModelError> {
    let unavailable = |what: String| ModelError::Unavailable(format!("GGUF model {}: {what}", path.display()));
    let mut file = File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => unavailable(format!(
            "file not found ({} fetches the default model; [memory_model] model_path chooses another)",
            crate::paths::fetch_command()
        )),
        _ => unavailable(format!("cannot open: {e}")),
    })?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(unavailable("is a directory, not a GGUF file".into()));
    }
    let mut magic = [0u8; 4];
    match file.read_exact(&mut magic) {
        Ok(()) if &magic == GGUF_MAGIC => Ok(()),
        Ok(()) => Err(unavailable("not a GGUF file (wrong magic bytes)".into())),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Err(unavailable("not a GGUF file (too short)".into()))
        }
        Err(e) => Err(unavailable(format!("cannot read: {e}"))),
    }
}

/// llama.cpp's global state: initialised once per process, never freed.
fn backend(verbose_log: bool) -> Result<&'static LlamaBackend, ModelError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let mut backend = LlamaBackend::init().map_err(|e| e.to_string())?;
            if !verbose_log {
                backend.void_logs();
            }
            Ok(backend)
        })
        .as_ref()
        .map_err(|e| ModelError::Unavailable(format!("cannot initialise llama.cpp: {e}")))
}

/// Byte offset of the earliest stop string in `text`, if any occurs.
fn find_stop(text: &[u8], stops: &[String]) -> Option<usize> {
    stops.iter().filter(|s| !s.is_empty()).filter_map(|s| text.windows(s.len()).position(|w| w == s.as_bytes())).min()
}

#[cfg(test)]
mod tests;
