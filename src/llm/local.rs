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
use std::num::NonZeroU32;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::ChatTemplateError;

use super::{MemoryModel, Message, ModelError, Reply, Request, Role, Usage};

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

impl Engine {
    fn load(opts: &LocalOptions) -> Result<Engine, ModelError> {
        // Also keeps llama.cpp from being handed a missing path, which it
        // asserts on in debug builds.
        check_gguf_file(&opts.model_path)?;
        let started = Instant::now();
        let backend = backend(opts.verbose_log)?;
        let path = &opts.model_path;
        let unavailable = |what: String| ModelError::Unavailable(format!("GGUF model {}: {what}", path.display()));

        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| unavailable(format!("llama.cpp cannot load it, corrupt or unsupported? ({e})")))?;
        let model = Box::new(model);

        // A GGUF without a template gets ChatML, as llama.cpp's server does.
        let template = match model.chat_template(None) {
            Ok(t) => t,
            Err(ChatTemplateError::MissingTemplate) => LlamaChatTemplate::new("chatml").expect("no NUL"),
            Err(e) => return Err(unavailable(format!("unreadable chat template: {e}"))),
        };

        let threads = i32::try_from(opts.threads.max(1)).unwrap_or(i32::MAX);
        let n_ctx = opts.context_tokens.max(16);
        let mut params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let parallel = opts.parallel.clamp(1, MAX_PARALLEL);
        if parallel > 1 {
            // Sequence 0 holds the shared opening, 1..=parallel the calls;
            // one cache for all, so copied cells are shared, not duplicated.
            params = params.with_n_seq_max(parallel as u32 + 1).with_kv_unified(true);
        }
        let ctx = model
            .new_context(backend, params)
            .map_err(|e| unavailable(format!("cannot create a context of {n_ctx} tokens: {e}")))?;
        // SAFETY: the context refers to the model, which lives on the heap in
        // `Engine::model` at a fixed address for as long as the engine, and
        // `ctx` is declared before `model` so it is dropped first. The
        // lifetime is only a marker (the context holds a raw pointer).
        let ctx = unsafe { std::mem::transmute::<LlamaContext<'_>, LlamaContext<'static>>(ctx) };

        let engine = Engine {
            ctx,
            model,
            template,
            cached: Vec::new(),
            cached_batches: Vec::new(),
            prefix: None,
            load_time: Duration::ZERO,
        };
        // Fail at load time, not on every item, when llama.cpp does not know
        // the model's template.
        engine.prompt(&[Message::user("hello")], true)?;
        Ok(Engine { load_time: started.elapsed(), ..engine })
    }

    /// The chat rendered with the model's template, ready for the reply when
    /// `for_reply`.
    fn prompt(&self, messages: &[Message], for_reply: bool) -> Result<String, ModelError> {
        let chat = messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::System => "system",
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                // A NUL byte cannot cross into C; nothing meaningful is lost.
                LlamaChatMessage::new(role.into(), m.content.replace('\0', ""))
                    .map_err(|e| ModelError::BadReply(format!("cannot build the chat: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.model.apply_chat_template(&self.template, &chat, for_reply).map_err(|e| {
            ModelError::Refused(format!("llama.cpp cannot apply this model's chat template ({e}); choose another GGUF"))
        })
    }

    fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
        let vocab = self.model.vocab();
        // `add_special` adds BOS when the model wants one; a template that
        // writes BOS itself would then give two.
        let mut tokens = vocab.tokenize(text.as_bytes(), true, true);
        if tokens.len() >= 2 && tokens[0] == vocab.bos() && tokens[1] == vocab.bos() {
            tokens.remove(0);
        }
        tokens
    }

    /// The prompt's tokens and how many of them are the earlier messages,
    /// checked to fit the context with the reply.
    fn tokens(&self, req: &Request) -> Result<(Vec<LlamaToken>, usize), ModelError> {
        let tokens = self.tokenize(&self.prompt(&req.messages, true)?);
        // The earlier messages as a token prefix of the prompt (as far as
        // the template renders them alike on their own).
        let context = match req.messages.split_last() {
            Some((_, earlier)) if !earlier.is_empty() => {
                let earlier = self.tokenize(&self.prompt(earlier, false)?);
                earlier.iter().zip(&tokens).take_while(|(a, b)| a == b).count()
            }
            _ => 0,
        };
        let n_prompt = tokens.len();
        let n_ctx = self.ctx.n_ctx() as usize;
        let max_tokens = req.max_tokens as usize;
        if n_prompt == 0 {
            return Err(ModelError::BadReply("the prompt is empty".into()));
        }
        if n_prompt + max_tokens > n_ctx {
            return Err(ModelError::BadReply(format!(
                "prompt of {n_prompt} tokens plus max_tokens {max_tokens} exceeds the context of \
                 {n_ctx} tokens (raise [memory_model] context_tokens or lower [summaries] max_input_chars)"
            )));
        }
        Ok((tokens, context))
    }

    /// The sampler of one reply.
    fn sampler(&self, req: &Request, seed: u32) -> LlamaSampler {
        // Small models loop ("The user asked X. The user asked X. ..."); a
        // mild penalty on the last 64 tokens breaks the loop without
        // bending normal text. Still deterministic at temperature 0.
        let penalties = LlamaSampler::penalties(self.model.n_vocab(), 64, REPEAT_PENALTY, 0.0, 0.0);
        if req.temperature <= 0.0 {
            LlamaSampler::chain_simple([penalties, LlamaSampler::greedy()])
        } else {
            LlamaSampler::chain_simple([penalties, LlamaSampler::temp(req.temperature), LlamaSampler::dist(seed)])
        }
    }

    fn run(&mut self, req: &Request, seed: u32) -> Result<Reply, ModelError> {
        let (tokens, context) = self.tokens(req)?;
        let n_prompt = tokens.len();
        let cut = batches(context, n_prompt);
        let shared = self.cached.iter().zip(&tokens).take_while(|(a, b)| a == b).count();
        let mut keep = reusable(&self.cached_batches, &cut, shared, n_prompt);
        // Forgotten until this call succeeds: a failure leaves no stale record.
        self.cached.clear();
        self.cached_batches.clear();
        if self.ctx.kv_cache_seq_rm(0, Some(keep as u32), None).is_err() {
            self.ctx.clear_kv_cache();
            keep = 0;
        }
        let reply = self.evaluate(&tokens, &cut, keep, req, seed)?;
        // Generated tokens are left out: their keys and values were computed
        // one by one, not in the prompt's batches.
        self.cached = tokens;
        self.cached_batches = cut;
        Ok(reply)
    }

    /// Evaluate the batches of `cut` from `from` on (the cache holds
    /// `tokens[..from]`), then sample the reply.
    fn evaluate(
        &mut self,
        tokens: &[LlamaToken],
        cut: &[Range<usize>],
        from: usize,
        req: &Request,
        seed: u32,
    ) -> Result<Reply, ModelError> {
        let decode_error = |e| ModelError::BadReply(format!("llama.cpp failed to evaluate the prompt: {e}"));
        let n_prompt = tokens.len();
        let started = Instant::now();
        let mut batch = LlamaBatch::new(BATCH, 1);
        for range in cut.iter().filter(|r| r.start >= from) {
            batch.clear();
            for pos in range.clone() {
                batch
                    .add(tokens[pos], pos as i32, &[0], pos + 1 == n_prompt)
                    .map_err(|e| ModelError::BadReply(format!("cannot fill a batch: {e}")))?;
            }
            self.ctx.decode(&mut batch).map_err(decode_error)?;
        }

        let prompt_time = started.elapsed();
        let started = Instant::now();

        let mut sampler = self.sampler(req, seed);
        let vocab = self.model.vocab();
        let max_tokens = req.max_tokens as usize;
        let mut text: Vec<u8> = Vec::new();
        let mut generated = 0usize;
        let mut logits_at = batch.n_tokens() - 1;
        let mut pos = n_prompt;
        while generated < max_tokens {
            let token = sampler.sample(&self.ctx, logits_at);
            if vocab.is_eog(token) {
                break;
            }
            generated += 1;
            // Special tokens are rendered so that leaked template tokens
            // reach the reply cleaner rather than vanish mid-text.
            text.extend_from_slice(&vocab.token_to_piece(token, true, None));
            if let Some(at) = find_stop(&text, &req.stop) {
                text.truncate(at);
                break;
            }
            if generated == max_tokens {
                break;
            }
            batch.clear();
            batch
                .add(token, pos as i32, &[0], true)
                .map_err(|e| ModelError::BadReply(format!("cannot fill a batch: {e}")))?;
            self.ctx
                .decode(&mut batch)
                .map_err(|e| ModelError::BadReply(format!("llama.cpp failed during generation: {e}")))?;
            pos += 1;
            logits_at = 0;
        }

        Ok(Reply {
            text: String::from_utf8_lossy(&text).into_owned(),
            usage: Usage {
                prompt_tokens: Some(n_prompt as u32),
                completion_tokens: Some(generated as u32),
                prompt_evaluated: Some((n_prompt - from) as u32),
                prompt_time: Some(prompt_time),
                generation_time: Some(started.elapsed()),
            },
        })
    }
}

/// The shared opening of prompts (the earlier messages), evaluated into
/// sequence 0 in the batches a prompt is cut into alone (see [`batches`]).
struct Prefix {
    tokens: Vec<LlamaToken>,
    batches: Vec<Range<usize>>,
    /// Sequences in flight that share its cells: while there are any, it
    /// is not replaced.
    holders: usize,
}

/// A call whose prompt is read, waiting for room in the context.
struct Ready {
    job: Job,
    tokens: Vec<LlamaToken>,
    /// Tokens of the earlier messages.
    context: usize,
}

/// One call in flight, in its own sequence.
struct Seq {
    job: Job,
    tokens: Vec<LlamaToken>,
    /// The next prompt position to evaluate (all evaluated at the end).
    next: usize,
    /// Leading tokens whose cells are shared with the prefix.
    shared: usize,
    /// Cells this call may fill: its prompt past the shared part, and the reply.
    cells: usize,
    /// Prompt tokens evaluated for this call.
    evaluated: usize,
    sampler: LlamaSampler,
    text: Vec<u8>,
    generated: usize,
    /// A sampled token whose keys and values are still to compute.
    pending: Option<LlamaToken>,
    /// Where its logits are in the batch just decoded.
    logits_at: Option<i32>,
    started: Instant,
    prompt_time: Option<Duration>,
}

/// Several calls decoded together in one context: slot `i` is sequence
/// `i + 1`, sequence 0 holds the [`Prefix`].
struct Multi<'e> {
    engine: &'e mut Engine,
    slots: Vec<Option<Seq>>,
    prefix: Option<Prefix>,
    seed: u32,
    batch: LlamaBatch<'static>,
    /// Calls whose prompt is read, in arrival order.
    ready: VecDeque<Ready>,
}

impl<'e> Multi<'e> {
    fn start(engine: &'e mut Engine, parallel: usize, seed: u32) -> Self {
        // Only the prefix outlives a loop; without one (or after a panic
        // took it) nothing in the cache is known.
        let prefix = engine.prefix.take();
        if prefix.is_some() {
            engine.ctx.llama_kv_cache_seq_keep(0);
        } else {
            engine.ctx.clear_kv_cache();
        }
        Multi {
            engine,
            slots: (0..parallel).map(|_| None).collect(),
            prefix,
            seed,
            batch: LlamaBatch::new(BATCH, 1),
            ready: VecDeque::new(),
        }
    }

    fn idle(&self) -> bool {
        self.slots.iter().all(Option::is_none) && self.ready.is_empty()
    }

    fn finish(self) {
        self.engine.prefix = self.prefix;
    }

    /// Cells the prefix and the calls in flight may fill.
    fn cells(&self) -> usize {
        self.prefix.as_ref().map_or(0, |p| p.tokens.len()) + self.slots.iter().flatten().map(|s| s.cells).sum::<usize>()
    }

    /// Start as many waiting calls as free sequences and the context's room
    /// allow, in arrival order.
    fn admit(&mut self, waiting: &mut VecDeque<Job>) {
        loop {
            let Some(free) = self.slots.iter().position(Option::is_none) else { return };
            if self.ready.is_empty() {
                let Some(job) = waiting.pop_front() else { return };
                match self.engine.tokens(&job.req) {
                    Ok((tokens, context)) => self.ready.push_back(Ready { job, tokens, context }),
                    Err(e) => {
                        let _ = job.reply.send(Err(e));
                        continue;
                    }
                }
            }
            let ready = self.ready.pop_front().expect("one is ready");
            if let Err(ready) = self.start_seq(free, ready) {
                // No room beside the calls in flight: it waits for them.
                self.ready.push_front(ready);
                return;
            }
        }
    }

    /// Start one call in slot `slot`, sharing or first evaluating the
    /// prefix; gives the call back when the context has no room for it.
    fn start_seq(&mut self, slot: usize, ready: Ready) -> Result<(), Ready> {
        let Ready { job, tokens, context } = ready;
        let started = Instant::now();
        let n = tokens.len();
        let max_tokens = job.req.max_tokens as usize;
        let cut = batches(context, n);
        // The batches of the earlier messages (never the last one: its
        // logits are needed).
        let head: Vec<Range<usize>> = cut.iter().filter(|r| r.end <= context && r.end < n).cloned().collect();
        let head_end = head.last().map_or(0, |r| r.end);
        let offered = self.prefix.as_ref().map_or(0, |p| {
            let shared = p.tokens.iter().zip(&tokens).take_while(|(a, b)| a == b).count();
            reusable(&p.batches, &cut, shared, n)
        });
        let prefix_len = self.prefix.as_ref().map_or(0, |p| p.tokens.len());
        let held = self.prefix.as_ref().is_some_and(|p| p.holders > 0);
        let replace = head_end > offered && !held;
        let keep = if replace { head_end } else { offered };
        let others = self.cells() - prefix_len;
        let idle = others == 0;
        let fits =
            |prefix: usize, keep: usize| others + prefix + (n - keep) + max_tokens <= self.engine.ctx.n_ctx() as usize;
        let (replace, keep, offered) = if fits(if replace { head_end } else { prefix_len }, keep) {
            (replace, keep, offered)
        } else if idle {
            // Alone it always fits (checked when its prompt was read), the
            // prefix dropped if need be.
            self.drop_prefix();
            (head_end > 0, head_end, 0)
        } else {
            return Err(Ready { job, tokens, context });
        };
        let seq_id = slot as i32 + 1;
        let mut evaluated = n - keep;
        if replace {
            match self.evaluate_prefix(&tokens, head, offered) {
                Ok(done) => evaluated += done,
                Err(e) => {
                    let _ = job.reply.send(Err(e));
                    return Ok(());
                }
            }
        }
        if keep > 0 {
            let _ = self.engine.ctx.kv_cache_seq_cp(0, seq_id, Some(0), Some(keep as u32));
            self.prefix.as_mut().expect("a prefix to share").holders += 1;
        }
        let sampler = self.engine.sampler(&job.req, self.seed);
        self.slots[slot] = Some(Seq {
            job,
            tokens,
            next: keep,
            shared: keep,
            cells: n - keep + max_tokens,
            evaluated,
            sampler,
            text: Vec::new(),
            generated: 0,
            pending: None,
            logits_at: None,
            started,
            prompt_time: None,
        });
        Ok(())
    }

    fn drop_prefix(&mut self) {
        if self.prefix.take().is_some() {
            let _ = self.engine.ctx.clear_kv_cache_seq(Some(0), None, None);
        }
    }

    /// Make `head` of `tokens` the prefix, keeping the first `keep` tokens
    /// of the current one (cut alike); returns the tokens evaluated.
    fn evaluate_prefix(
        &mut self,
        tokens: &[LlamaToken],
        head: Vec<Range<usize>>,
        keep: usize,
    ) -> Result<usize, ModelError> {
        self.prefix = None;
        if keep == 0 || self.engine.ctx.kv_cache_seq_rm(0, Some(keep as u32), None).is_err() {
            let _ = self.engine.ctx.clear_kv_cache_seq(Some(0), None, None);
        }
        let keep = if keep > 0 && self.engine.ctx.kv_cache_seq_pos_max(0) + 1 == keep as i32 { keep } else { 0 };
        let mut done = 0;
        for range in head.iter().filter(|r| r.start >= keep) {
            self.batch.clear();
            for pos in range.clone() {
                self.batch
                    .add(tokens[pos], pos as i32, &[0], false)
                    .map_err(|e| ModelError::BadReply(format!("cannot fill a batch: {e}")))?;
            }
            if let Err(e) = self.engine.ctx.decode(&mut self.batch) {
                let _ = self.engine.ctx.clear_kv_cache_seq(Some(0), None, None);
                return Err(ModelError::BadReply(format!("llama.cpp failed to evaluate the prompt: {e}")));
            }
            done += range.len();
        }
        let end = head.last().map_or(0, |r| r.end);
        self.prefix = Some(Prefix { tokens: tokens[..end].to_vec(), batches: head, holders: 0 });
        Ok(done)
    }

    /// One decode for every call in flight: the next token of those
    /// generating, then prompt tokens as far as the batch holds them.
    fn step(&mut self) {
        self.batch.clear();
        let mut n: i32 = 0;
        let mut full = false;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(seq) = slot else { continue };
            seq.logits_at = None;
            if let Some(token) = seq.pending {
                let pos = (seq.tokens.len() + seq.generated - 1) as i32;
                full |= self.batch.add(token, pos, &[i as i32 + 1], true).is_err();
                seq.logits_at = Some(n);
                n += 1;
            }
        }
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(seq) = slot else { continue };
            let room = BATCH.saturating_sub(n as usize);
            let take = (seq.tokens.len() - seq.next).min(room);
            for pos in seq.next..seq.next + take {
                let last = pos + 1 == seq.tokens.len();
                full |= self.batch.add(seq.tokens[pos], pos as i32, &[i as i32 + 1], last).is_err();
                if last {
                    seq.logits_at = Some(n);
                }
                n += 1;
            }
            seq.next += take;
        }
        if n == 0 {
            return;
        }
        let decoded = if full {
            Err("the batch overflowed".to_string())
        } else {
            self.engine.ctx.decode(&mut self.batch).map_err(|e| e.to_string())
        };
        if let Err(e) = decoded {
            // The cache may be half written: start afresh.
            for slot in &mut self.slots {
                if let Some(seq) = slot.take() {
                    let _ = seq.job.reply.send(Err(ModelError::BadReply(format!("llama.cpp failed to decode: {e}"))));
                }
            }
            self.prefix = None;
            self.engine.ctx.clear_kv_cache();
            return;
        }
        for i in 0..self.slots.len() {
            if self.sample(i) {
                let seq = self.slots[i].take().expect("a call in flight");
                let _ = self.engine.ctx.clear_kv_cache_seq(Some(i as u32 + 1), None, None);
                if seq.shared > 0 {
                    if let Some(p) = self.prefix.as_mut() {
                        p.holders -= 1;
                    }
                }
                let generation_time = seq.prompt_time.map(|p| seq.started.elapsed().saturating_sub(p));
                let reply = Reply {
                    text: String::from_utf8_lossy(&seq.text).into_owned(),
                    usage: Usage {
                        prompt_tokens: Some(seq.tokens.len() as u32),
                        completion_tokens: Some(seq.generated as u32),
                        prompt_evaluated: Some(seq.evaluated as u32),
                        prompt_time: seq.prompt_time,
                        generation_time,
                    },
                };
                let _ = seq.job.reply.send(Ok(reply));
            }
        }
    }

    /// Sample the next token of slot `i` if its logits were computed;
    /// whether its reply is complete.
    fn sample(&mut self, i: usize) -> bool {
        let Some(seq) = self.slots[i].as_mut() else { return false };
        let Some(at) = seq.logits_at.take() else { return false };
        seq.prompt_time.get_or_insert_with(|| seq.started.elapsed());
        let max_tokens = seq.job.req.max_tokens as usize;
        if max_tokens == 0 {
            return true;
        }
        let token = seq.sampler.sample(&self.engine.ctx, at);
        let vocab = self.engine.model.vocab();
        if vocab.is_eog(token) {
            return true;
        }
        seq.generated += 1;
        // As in `Engine::evaluate`: special tokens rendered for the cleaner.
        seq.text.extend_from_slice(&vocab.token_to_piece(token, true, None));
        if let Some(at) = find_stop(&seq.text, &seq.job.req.stop) {
            seq.text.truncate(at);
            return true;
        }
        if seq.generated == max_tokens {
            return true;
        }
        seq.pending = Some(token);
        false
    }
}

/// Byte offset of the earliest stop string in `text`, if any occurs.
fn find_stop(text: &[u8], stops: &[String]) -> Option<usize> {
    stops.iter().filter(|s| !s.is_empty()).filter_map(|s| text.windows(s.len()).position(|w| w == s.as_bytes())).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_end_at_the_context_and_cover_the_prompt() {
        assert_eq!(batches(0, 5), vec![0..5]);
        assert_eq!(batches(3, 5), vec![0..3, 3..5]);
        assert_eq!(batches(9, 5), vec![0..5]);
        assert_eq!(batches(600, 1200), vec![0..512, 512..600, 600..1112, 1112..1200]);
        assert_eq!(batches(0, 0), Vec::<Range<usize>>::new());
    }

    #[test]
    fn only_identically_cut_batches_are_reused() {
        let a = batches(100, 150);
        // Same earlier messages, other last message: the context is kept.
        assert_eq!(reusable(&a, &batches(100, 180), 120, 180), 100);
        // Fewer shared tokens than the context: nothing is reusable.
        assert_eq!(reusable(&a, &batches(100, 180), 99, 180), 0);
        // Another context length: the batches differ from the first.
        assert_eq!(reusable(&a, &batches(90, 180), 150, 180), 0);
        // The same prompt again: all but the batch with the last token.
        assert_eq!(reusable(&a, &a, 150, 150), 100);
        // A prompt that is exactly the cached context: its last batch is
        // evaluated again, for the logits.
        assert_eq!(reusable(&a, &batches(100, 100), 100, 100), 0);
        // Long contexts share their whole 512-token pieces.
        assert_eq!(reusable(&batches(1100, 1200), &batches(700, 800), 900, 800), 512);
        assert_eq!(reusable(&[], &a, 0, 150), 0);
    }

    #[test]
    fn find_stop_returns_the_earliest_match() {
        let stops = vec!["\n\n".to_string(), "END".to_string(), String::new()];
        assert_eq!(find_stop(b"one END two\n\n", &stops), Some(4));
        assert_eq!(find_stop(b"nothing here", &stops), None);
        assert_eq!(find_stop(b"", &stops), None);
    }

    #[test]
    fn model_id_and_describe_name_the_file() {
        let m = LocalModel::new(LocalOptions {
            model_path: PathBuf::from("/data/models/Small.Q4.gguf"),
            threads: 2,
            context_tokens: 4096,
            seed: 1,
            verbose_log: false,
            parallel: 1,
        });
        assert_eq!(m.model_id(), "local:Small.Q4.gguf");
        assert_eq!(m.describe(), "local /data/models/Small.Q4.gguf (threads 2)");
        assert!(m.load_time().is_none());
    }

    #[test]
    fn preflight_rejects_missing_and_non_gguf_files() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("absent.gguf");
        let err = check_gguf_file(&missing).unwrap_err();
        assert!(matches!(&err, ModelError::Unavailable(m) if m.contains("absent.gguf")), "{err}");

        let junk = dir.path().join("junk.gguf");
        std::fs::write(&junk, b"not a model at all").unwrap();
        assert!(matches!(check_gguf_file(&junk), Err(ModelError::Unavailable(_))));

        let short = dir.path().join("short.gguf");
        std::fs::write(&short, b"GG").unwrap();
        assert!(matches!(check_gguf_file(&short), Err(ModelError::Unavailable(_))));

        let good = dir.path().join("header.gguf");
        std::fs::write(&good, b"GGUF\x03\0\0\0").unwrap();
        assert_eq!(check_gguf_file(&good), Ok(()));
    }
}
