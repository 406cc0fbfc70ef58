//! Several calls decoded together in one context (`parallel` above 1):
//! the shared opening in sequence 0, one sequence per call, continuous
//! batching.

use std::collections::VecDeque;
use std::ops::Range;
use std::time::{Duration, Instant};

use super::words::Sampling;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::token::LlamaToken;

use super::{batches, find_stop, reusable, Engine, Job, Watch, BATCH};
use crate::llm::{ModelError, Reply, Usage};

/// The shared opening of prompts (the earlier messages), evaluated into
/// sequence 0 in the batches a prompt is cut into alone (see [`batches`]).
pub(super) struct Prefix {
    tokens: Vec<LlamaToken>,
    batches: Vec<Range<usize>>,
    /// Sequences in flight that share its cells: while there are any, it
    /// is not replaced.
    holders: usize,
}

/// A call whose prompt is read, waiting for room in the context.
pub(super) struct Ready {
    job: Job,
    tokens: Vec<LlamaToken>,
    /// Tokens of the earlier messages.
    context: usize,
}

/// One call in flight, in its own sequence.
pub(super) struct Seq {
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
    sampler: Sampling,
    text: Vec<u8>,
    watch: Watch,
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
pub(super) struct Multi<'e> {
    engine: &'e mut Engine,
    slots: Vec<Option<Seq>>,
    prefix: Option<Prefix>,
    seed: u32,
    batch: LlamaBatch<'static>,
    /// Calls whose prompt is read, in arrival order.
    ready: VecDeque<Ready>,
}

impl<'e> Multi<'e> {
    pub(super) fn start(engine: &'e mut Engine, parallel: usize, seed: u32) -> Self {
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

    pub(super) fn idle(&self) -> bool {
        self.slots.iter().all(Option::is_none) && self.ready.is_empty()
    }

    pub(super) fn finish(self) {
        self.engine.prefix = self.prefix;
    }

    /// Cells the prefix and the calls in flight may fill.
    pub(super) fn cells(&self) -> usize {
        self.prefix.as_ref().map_or(0, |p| p.tokens.len()) + self.slots.iter().flatten().map(|s| s.cells).sum::<usize>()
    }

    /// Start as many waiting calls as free sequences and the context's room
    /// allow, in arrival order.
    pub(super) fn admit(&mut self, waiting: &mut VecDeque<Job>) {
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
                self.ready.push_front(*ready);
                return;
            }
        }
    }

    /// Start one call in slot `slot`, sharing or first evaluating the
    /// prefix; gives the call back when the context has no room for it.
    pub(super) fn start_seq(&mut self, slot: usize, ready: Ready) -> Result<(), Box<Ready>> {
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
            return Err(Box::new(Ready { job, tokens, context }));
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
            watch: Watch::new(self.engine.opens_reasoning),
            generated: 0,
            pending: None,
            logits_at: None,
            started,
            prompt_time: None,
        });
        Ok(())
    }

    pub(super) fn drop_prefix(&mut self) {
        if self.prefix.take().is_some() {
            let _ = self.engine.ctx.clear_kv_cache_seq(Some(0), None, None);
        }
    }

    /// Make `head` of `tokens` the prefix, keeping the first `keep` tokens
    /// of the current one (cut alike); returns the tokens evaluated.
    pub(super) fn evaluate_prefix(
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
    pub(super) fn step(&mut self) {
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
                let mut seq = self.slots[i].take().expect("a call in flight");
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
                    strain: seq.sampler.strain(),
                };
                let _ = seq.job.reply.send(Ok(reply));
            }
        }
    }

    /// Sample the next token of slot `i` if its logits were computed;
    /// whether its reply is complete.
    pub(super) fn sample(&mut self, i: usize) -> bool {
        let Some(seq) = self.slots[i].as_mut() else { return false };
        let Some(at) = seq.logits_at.take() else { return false };
        seq.prompt_time.get_or_insert_with(|| seq.started.elapsed());
        let max_tokens = seq.job.req.max_tokens as usize;
        if max_tokens == 0 {
            return true;
        }
        let vocab = self.engine.model.vocab();
        let token = seq.sampler.sample(&self.engine.ctx, at, |t| vocab.is_eog(t));
        if vocab.is_eog(token) {
            return true;
        }
        seq.generated += 1;
        // As in `Engine::evaluate`: special tokens rendered for the cleaner.
        let piece = vocab.token_to_piece(token, true, None);
        seq.sampler.wrote(&String::from_utf8_lossy(&piece));
        seq.text.extend_from_slice(&piece);
        if let Some(at) = find_stop(&seq.text, &seq.job.req.stop)
            .or_else(|| seq.watch.settled(&seq.job.req, &seq.text, seq.sampler.strain_so_far()))
        {
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
