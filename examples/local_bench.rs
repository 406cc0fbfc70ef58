//! Benchmark of the memory model on turn summaries (L2): model load time and
//! latency per call, for the in-process `local` backend (at one or more
//! thread counts) and, optionally, the same GGUF behind an OpenAI-compatible
//! server. Driven by `scripts/bench/local-model.sh`, which starts the server.
//!
//! The backends take turns call by call (turn 1 on every backend, then turn
//! 2, ...), so a busy machine slows them alike and the comparison holds.
//! Prints one table row per backend on stdout: load time, latency per call,
//! and where the backend reports them (the local backend and llama.cpp's
//! server do) the split into prompt evaluation and generation, so replies
//! of different lengths can still be compared.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ragger::llm::http::{HttpOptions, OpenAiModel};
use ragger::llm::local::{LocalModel, LocalOptions};
use ragger::llm::{complete, MemoryModel, Request};
use ragger::pipeline::prompts::turn_summary;

const USAGE: &str = "usage: local_bench [--model GGUF] [--threads N[,N...]] [--turns N] [--max-tokens N]
                   [--temperature T] [--ctx N] [--server URL] [--server-threads N]
                   [--server-load-ms MS] [--no-local] [--show]
       local_bench --batch N[,N...] [--rounds R] [--model GGUF] [--threads N] [--turns N] [--max-tokens N]
         (batched decoding: the same turns as N calls decoded together against one at a time)";

struct Args {
    model: PathBuf,
    threads: Vec<usize>,
    turns: usize,
    max_tokens: u32,
    temperature: f32,
    ctx: u32,
    server: Option<String>,
    server_threads: Option<usize>,
    /// How long the server took to start (measured by the script).
    server_load_ms: Option<f64>,
    local: bool,
    show: bool,
    /// Batch sizes to compare with one call at a time (empty: the latency
    /// benchmark).
    batch: Vec<usize>,
    rounds: usize,
}

struct Backend {
    label: String,
    threads: String,
    model: Box<dyn MemoryModel>,
    load: Option<Duration>,
    latencies: Vec<Duration>,
    completion_tokens: u64,
    /// Per call, where reported: prompt tokens evaluated (not cached) and
    /// the time they took.
    prompt: Vec<(u32, Duration)>,
    /// Total generation time, over calls that reported it, and their tokens.
    generation: (Duration, u64),
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("local_bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("local_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if !args.batch.is_empty() {
        return run_batches(args);
    }
    let mut backends = Vec::new();
    if args.local {
        for &threads in &args.threads {
            let model = LocalModel::new(LocalOptions {
                model_path: args.model.clone(),
                threads,
                context_tokens: args.ctx,
                seed: 42,
                verbose_log: false,
                parallel: 1,
            });
            let started = Instant::now();
            model.load().map_err(|e| e.to_string())?;
            let load = started.elapsed();
            backends.push(Backend::new("local", threads.to_string(), Box::new(model), Some(load)));
        }
    }
    if let Some(url) = &args.server {
        let model = OpenAiModel::new(HttpOptions {
            url: url.clone(),
            model: String::new(),
            api_key: None,
            timeout: Duration::from_secs(600),
            tls: None,
            retries: 0,
        });
        model.preflight().map_err(|e| e.to_string())?;
        let load = args.server_load_ms.map(|ms| Duration::from_secs_f64(ms / 1000.0));
        let threads = args.server_threads.map_or("-".into(), |t| t.to_string());
        backends.push(Backend::new("server", threads, Box::new(model), load));
    }

    for (user, assistant) in turns(args.turns) {
        let req = Request {
            messages: turn_summary(&user, &assistant, 3000, None),
            temperature: args.temperature,
            max_tokens: args.max_tokens,
            stop: Vec::new(),
            settled: None,
            vocabulary: None,
        };
        for b in &mut backends {
            let started = Instant::now();
            let reply = complete(b.model.as_ref(), &req).map_err(|e| format!("{}: {e}", b.model.describe()))?;
            b.latencies.push(started.elapsed());
            let usage = &reply.usage;
            let completion = u64::from(usage.completion_tokens.unwrap_or(0));
            b.completion_tokens += completion;
            if let (Some(n), Some(t)) = (usage.prompt_evaluated, usage.prompt_time) {
                b.prompt.push((n, t));
            }
            if let Some(t) = usage.generation_time {
                b.generation.0 += t;
                b.generation.1 += completion;
            }
            if args.show {
                eprintln!("[{} {}] {}", b.label, b.threads, reply.text);
            }
        }
    }

    println!(
        "{:<8} {:>7} {:>8} {:>9} {:>9} {:>9} {:>8} {:>7} {:>8} {:>10} {:>10}",
        "backend",
        "threads",
        "load_ms",
        "median_ms",
        "p90_ms",
        "mean_ms",
        "out_tok",
        "tok/s",
        "eval_tok",
        "prompt_ms",
        "ms/out_tok"
    );
    for b in &backends {
        b.print_row();
    }
    Ok(())
}

impl Backend {
    fn new(label: &str, threads: String, model: Box<dyn MemoryModel>, load: Option<Duration>) -> Self {
        Backend {
            label: label.into(),
            threads,
            model,
            load,
            latencies: Vec::new(),
            completion_tokens: 0,
            prompt: Vec::new(),
            generation: (Duration::ZERO, 0),
        }
    }

    fn print_row(&self) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let total: Duration = self.latencies.iter().sum();
        let n = self.latencies.len().max(1) as f64;
        let dash = || "-".to_string();
        // Prompt: mean tokens evaluated per call, median time per call.
        let (eval_tok, prompt_ms) = if self.prompt.is_empty() {
            (dash(), dash())
        } else {
            let tokens: u64 = self.prompt.iter().map(|&(t, _)| u64::from(t)).sum();
            let times: Vec<Duration> = self.prompt.iter().map(|&(_, d)| d).collect();
            (
                format!("{:.1}", tokens as f64 / self.prompt.len() as f64),
                format!("{:.0}", quantile(&times, 0.5).map_or(0.0, ms)),
            )
        };
        let (gen_time, gen_tokens) = self.generation;
        let per_token = if gen_tokens == 0 { dash() } else { format!("{:.1}", ms(gen_time) / gen_tokens as f64) };
        println!(
            "{:<8} {:>7} {:>8} {:>9.0} {:>9.0} {:>9.0} {:>8.1} {:>7.1} {:>8} {:>10} {:>10}",
            self.label,
            self.threads,
            self.load.map_or_else(dash, |d| format!("{:.0}", ms(d))),
            quantile(&self.latencies, 0.5).map_or(0.0, ms),
            quantile(&self.latencies, 0.9).map_or(0.0, ms),
            ms(total) / n,
            self.completion_tokens as f64 / n,
            self.completion_tokens as f64 / total.as_secs_f64().max(1e-9),
            eval_tok,
            prompt_ms,
            per_token,
        );
    }
}

/// Batched decoding against one call at a time: the same `--turns` L2
/// requests through a model with `parallel` 1 (one call after another) and
/// through one with `parallel` N (`generate_batch`, N in flight at once),
/// round after round in turn so that a busy machine slows both alike.
/// Prints per setting the median wall time of a round, calls/s and output
/// tokens/s, with the range over rounds.
fn run_batches(args: &Args) -> Result<(), String> {
    let threads = args.threads[0];
    let reqs: Vec<Request> = turns(args.turns)
        .into_iter()
        .map(|(user, assistant)| Request {
            messages: turn_summary(&user, &assistant, 3000, None),
            temperature: args.temperature,
            max_tokens: args.max_tokens,
            stop: Vec::new(),
            settled: None,
            vocabulary: None,
        })
        .collect();
    let mut settings = vec![1];
    settings.extend(args.batch.iter().copied().filter(|&b| b > 1));
    let models: Vec<LocalModel> = settings
        .iter()
        .map(|&parallel| {
            let m = LocalModel::new(LocalOptions {
                model_path: args.model.clone(),
                threads,
                context_tokens: args.ctx,
                seed: 42,
                verbose_log: false,
                parallel,
            });
            m.load().map(|()| m).map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    // (wall, output tokens) per round and setting.
    let mut results: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); settings.len()];
    for round in 0..args.rounds {
        for k in 0..settings.len() {
            let i = (k + round) % settings.len();
            let started = Instant::now();
            let replies = models[i].generate_batch(&reqs);
            let wall = started.elapsed();
            let mut tokens = 0;
            for r in replies {
                let r = r.map_err(|e| e.to_string())?;
                tokens += u64::from(r.usage.completion_tokens.unwrap_or(0));
            }
            eprintln!("round {} parallel {}: {:.1} s, {tokens} tokens", round + 1, settings[i], wall.as_secs_f64());
            results[i].push((wall, tokens));
        }
    }
    println!(
        "{:>8} {:>7} {:>10} {:>22} {:>10} {:>8}",
        "parallel", "threads", "round_s", "calls/s (range)", "out_tok/s", "speedup"
    );
    let base = quantile(&results[0].iter().map(|r| r.0).collect::<Vec<_>>(), 0.5).unwrap_or_default();
    for (i, rs) in results.iter().enumerate() {
        let walls: Vec<Duration> = rs.iter().map(|r| r.0).collect();
        let median = quantile(&walls, 0.5).unwrap_or_default().as_secs_f64().max(1e-9);
        let (lo, hi) = (walls.iter().max().unwrap().as_secs_f64(), walls.iter().min().unwrap().as_secs_f64());
        let n = reqs.len() as f64;
        let tokens: u64 = rs.iter().map(|r| r.1).sum();
        let secs: f64 = walls.iter().map(Duration::as_secs_f64).sum();
        println!(
            "{:>8} {:>7} {:>10.2} {:>22} {:>10.1} {:>7.2}x",
            settings[i],
            threads,
            median,
            format!("{:.2} ({:.2}-{:.2})", n / median, n / lo, n / hi),
            tokens as f64 / secs,
            base.as_secs_f64() / median,
        );
    }
    Ok(())
}

/// The `q` quantile (nearest rank) of some durations.
fn quantile(values: &[Duration], q: f64) -> Option<Duration> {
    let mut sorted = values.to_vec();
    sorted.sort();
    sorted.get(((sorted.len() as f64 - 1.0) * q).round() as usize).copied()
}

/// `n` short, distinct conversation turns.
fn turns(n: usize) -> Vec<(String, String)> {
    const SUBJECTS: [&str; 10] = [
        "a Rust CLI that stores notes in SQLite",
        "a Python script that renames photos by date",
        "a cron job that backs up a Postgres database",
        "a systemd service for a small web app",
        "a bash script that rotates log files",
        "a Git repository with a huge history",
        "a React form that validates email addresses",
        "a Dockerfile for a Go binary",
        "a Makefile for a C library",
        "an nginx reverse proxy with TLS",
    ];
    const ASKS: [(&str, &str); 5] = [
        (
            "Why does {} fail only on the server and not on my laptop?",
            "The difference is most likely the environment: {} runs with another user and PATH \
             on the server. Print the environment at start-up, compare the two, and set the \
             variables explicitly in the unit or crontab instead of relying on a login shell.",
        ),
        (
            "How can I make {} faster? It takes almost a minute now.",
            "Measure first: time each step of {} and look at the slowest one. Usually the cost \
             is repeated work, so cache the result of the expensive step, batch the writes in \
             one transaction, and avoid starting a new process per item.",
        ),
        (
            "What is the simplest way to test {}?",
            "Write one end-to-end test that runs {} in a temporary directory with a fixed \
             input and checks the output, then add small unit tests for the parsing code. \
             Run them in CI on every push so a regression shows up at once.",
        ),
        (
            "Is it safe to run {} twice at the same time?",
            "Not as written: two copies of {} can write the same files at once. Take a lock \
             file with flock at the start and exit early when it is held, so the second run \
             skips instead of corrupting the first one's work.",
        ),
        (
            "How should I configure {} for production?",
            "Keep the configuration of {} in one file under version control, read secrets \
             from the environment, log to stderr so the service manager collects it, and \
             document the settings that must change between staging and production.",
        ),
    ];
    (0..n)
        .map(|i| {
            let subject = SUBJECTS[i % SUBJECTS.len()];
            let (q, a) = ASKS[(i / SUBJECTS.len()) % ASKS.len()];
            (q.replace("{}", subject), a.replace("{}", subject))
        })
        .collect()
}

fn parse_args() -> Result<Args, String> {
    let data = std::env::var_os("RAGGER_DATA_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::ProjectDirs::from("", "", "ragger").map(|d| d.data_dir().to_path_buf()))
        .ok_or("cannot find the data folder; pass --model")?;
    let mut args = Args {
        model: data.join("models/SmolLM2-135M-Instruct.Q4_1.gguf"),
        threads: vec![std::thread::available_parallelism().map_or(1, |n| n.get())],
        turns: 50,
        max_tokens: 120,
        temperature: 0.0,
        ctx: 4096,
        server: None,
        server_threads: None,
        server_load_ms: None,
        local: true,
        show: false,
        batch: Vec::new(),
        rounds: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => args.model = PathBuf::from(value()?),
            "--threads" => {
                args.threads = value()?.split(',').map(|t| number(&flag, t)).collect::<Result<_, _>>()?;
            }
            "--turns" => args.turns = number(&flag, &value()?)?,
            "--max-tokens" => args.max_tokens = number(&flag, &value()?)?,
            "--temperature" => args.temperature = number(&flag, &value()?)?,
            "--ctx" => args.ctx = number(&flag, &value()?)?,
            "--server" => args.server = Some(value()?),
            "--server-threads" => args.server_threads = Some(number(&flag, &value()?)?),
            "--server-load-ms" => args.server_load_ms = Some(number(&flag, &value()?)?),
            "--no-local" => args.local = false,
            "--show" => args.show = true,
            "--batch" => args.batch = value()?.split(',').map(|t| number(&flag, t)).collect::<Result<_, _>>()?,
            "--rounds" => args.rounds = number(&flag, &value()?)?,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.threads.contains(&0) || args.turns == 0 {
        return Err("--threads and --turns must be at least 1".into());
    }
    Ok(args)
}

fn number<T: std::str::FromStr>(flag: &str, s: &str) -> Result<T, String> {
    s.trim().parse().map_err(|_| format!("{flag}: not a number: {s}"))
}
