//! One call at a time in the context: load, template, tokens, the
//! batched prompt evaluation with cache reuse, sampling.

use std::num::NonZeroU32;
use std::ops::Range;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::ChatTemplateError;

use super::words::{Sampling, Words};
use super::{
    backend, batches, check_gguf_file, find_stop, reusable, Engine, LocalOptions, Watch, BATCH, MAX_PARALLEL,
    REPEAT_PENALTY,
};
use crate::llm::{Message, ModelError, Reply, Request, Role, Usage};

/// What a reply restricted to a vocabulary may write between its words.
const VOCABULARY_MARKS: &[&str] = &[".", ". ", ",", ", ", ";", "; ", ":", ": ", "'s", "-", " (", ")", "\n", " "];

impl Engine {
    pub(super) fn load(opts: &LocalOptions) -> Result<Engine, ModelError> {
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
            opens_reasoning: false,
        };
        // Fail at load time, not on every item, when llama.cpp does not know
        // the model's template.
        let probe = engine.prompt(&[Message::user("hello")], true)?;
        let opens_reasoning = probe.rsplit("hello").next().is_some_and(crate::llm::clean::opens_reasoning);
        Ok(Engine { load_time: started.elapsed(), opens_reasoning, ..engine })
    }

    /// The chat rendered with the model's template, ready for the reply when
    /// `for_reply`.
    pub(super) fn prompt(&self, messages: &[Message], for_reply: bool) -> Result<String, ModelError> {
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

    pub(super) fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
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
    pub(super) fn tokens(&self, req: &Request) -> Result<(Vec<LlamaToken>, usize), ModelError> {
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

    /// The sampler of one reply: with a vocabulary, its words are held to
    /// it ([`Words`]).
    pub(super) fn sampler(&self, req: &Request, seed: u32) -> Sampling {
        // Small models loop ("The user asked X. The user asked X. ..."); a
        // mild penalty on the last 64 tokens breaks the loop without
        // bending normal text. Still deterministic at temperature 0.
        let penalties = LlamaSampler::penalties(self.model.n_vocab(), 64, REPEAT_PENALTY, 0.0, 0.0);
        let mut chain = vec![penalties];
        if req.temperature <= 0.0 {
            chain.push(LlamaSampler::greedy());
        } else {
            chain.extend([LlamaSampler::temp(req.temperature), LlamaSampler::dist(seed)]);
        }
        let words =
            req.vocabulary.as_ref().map(|v| Words::new(v.words(), v.sought(), self.vocabulary_pieces(v.words())));
        Sampling::new(LlamaSampler::chain_simple(chain), words)
    }

    /// The tokens that spell `words` (as written, capitalised, after a
    /// space or not) and the punctuation between words, with their text,
    /// by token id; every other token but the end of the reply is barred.
    fn vocabulary_pieces(&self, words: &[String]) -> Vec<Option<Box<str>>> {
        let vocab = self.model.vocab();
        let mut allowed = std::collections::HashSet::new();
        let mut add = |text: &str| allowed.extend(vocab.tokenize(text.as_bytes(), false, false));
        for word in words {
            let capital = crate::text::capitalized(word);
            for form in [word.as_str(), capital.as_str()] {
                add(form);
                add(&format!(" {form}"));
            }
        }
        for mark in VOCABULARY_MARKS {
            add(mark);
        }
        let mut pieces = vec![None; self.model.n_vocab().max(0) as usize];
        for t in allowed {
            if let Some(slot) = pieces.get_mut(t.0 as usize) {
                *slot = Some(String::from_utf8_lossy(&vocab.token_to_piece(t, false, None)).into());
            }
        }
        pieces
    }

    pub(super) fn run(&mut self, req: &Request, seed: u32) -> Result<Reply, ModelError> {
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
    pub(super) fn evaluate(
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
        let mut watch = Watch::new(self.opens_reasoning);
        while generated < max_tokens {
            let token = sampler.sample(&self.ctx, logits_at, |t| vocab.is_eog(t));
            if vocab.is_eog(token) {
                break;
            }
            generated += 1;
            // Special tokens are rendered so that leaked template tokens
            // reach the reply cleaner rather than vanish mid-text.
            let piece = vocab.token_to_piece(token, true, None);
            sampler.wrote(&String::from_utf8_lossy(&piece));
            text.extend_from_slice(&piece);
            if let Some(at) = find_stop(&text, &req.stop).or_else(|| watch.settled(req, &text, sampler.strain_so_far()))
            {
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
            strain: sampler.strain(),
        })
    }
}
