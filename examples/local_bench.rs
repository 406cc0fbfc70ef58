//! Benchmark of the memory model on turn summaries (L2): model load time and
//! latency per call, for the in-process `local` backend and, optionally, the
//! same GGUF behind an OpenAI-compatible server. Driven by
//! `scripts/bench/local-model.sh`, which starts the server.
//!
//! Prints one table row per backend on stdout; `--header` prints the header
//! first.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ragger::llm::http::{HttpOptions, OpenAiModel};
use ragger::llm::local::{LocalModel, LocalOptions};
use ragger::llm::{complete, MemoryModel, Request};
use ragger::pipeline::prompts::turn_summary;

const USAGE: &str = "usage: local_bench [--model GGUF] [--threads N] [--turns N] [--max-tokens N]
                   [--temperature T] [--ctx N] [--server URL] [--server-load-ms MS]
                   [--label NAME] [--no-local] [--header] [--show]";

struct Args {
    model: PathBuf,
    threads: usize,
    turns: usize,
    max_tokens: u32,
    temperature: f32,
    ctx: u32,
    server: Option<String>,
    /// How long the server took to start (measured by the script).
    server_load_ms: Option<f64>,
    /// Name of the local row, e.g. to tell thread settings apart.
    label: String,
    local: bool,
    header: bool,
    show: bool,
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
    let requests: Vec<Request> = turns(args.turns)
        .into_iter()
        .map(|(user, assistant)| Request {
            messages: turn_summary(&user, &assistant, 3000),
            temperature: args.temperature,
            max_tokens: args.max_tokens,
            stop: Vec::new(),
        })
        .collect();
    if args.header {
        println!(
            "{:<14} {:>7} {:>8} {:>9} {:>9} {:>9} {:>8} {:>7}",
            "backend", "threads", "load_ms", "median_ms", "p90_ms", "mean_ms", "out_tok", "tok/s"
        );
    }
    if args.local {
        let model = LocalModel::new(LocalOptions {
            model_path: args.model.clone(),
            threads: args.threads,
            context_tokens: args.ctx,
            seed: 42,
            verbose_log: false,
        });
        let started = Instant::now();
        model.load().map_err(|e| e.to_string())?;
        let load = started.elapsed();
        let stats = measure(&model, &requests, args.show)?;
        print_row(&args.label, args.threads, Some(load), &stats);
    }
    if let Some(url) = &args.server {
        let model = OpenAiModel::new(HttpOptions {
            url: url.clone(),
            model: String::new(),
            api_key: None,
            timeout: Duration::from_secs(300),
            retries: 0,
        });
        model.preflight().map_err(|e| e.to_string())?;
        let stats = measure(&model, &requests, args.show)?;
        let load = args.server_load_ms.map(|ms| Duration::from_secs_f64(ms / 1000.0));
        print_row("server", args.threads, load, &stats);
    }
    Ok(())
}

struct Stats {
    latencies: Vec<Duration>,
    completion_tokens: u64,
}

fn measure(model: &dyn MemoryModel, requests: &[Request], show: bool) -> Result<Stats, String> {
    let mut latencies = Vec::with_capacity(requests.len());
    let mut completion_tokens = 0u64;
    for req in requests {
        let started = Instant::now();
        let reply = complete(model, req).map_err(|e| format!("{}: {e}", model.describe()))?;
        latencies.push(started.elapsed());
        completion_tokens += u64::from(reply.usage.completion_tokens.unwrap_or(0));
        if show {
            eprintln!("[{}] {}", model.model_id(), reply.text);
        }
    }
    Ok(Stats { latencies, completion_tokens })
}

fn print_row(backend: &str, threads: usize, load: Option<Duration>, stats: &Stats) {
    let mut sorted = stats.latencies.clone();
    sorted.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pick = |q: f64| sorted.get(((sorted.len() as f64 - 1.0) * q).round() as usize).copied();
    let total: Duration = sorted.iter().sum();
    let n = sorted.len().max(1) as f64;
    let load = load.map_or("-".to_string(), |d| format!("{:.0}", ms(d)));
    println!(
        "{:<14} {:>7} {:>8} {:>9.0} {:>9.0} {:>9.0} {:>8.1} {:>7.1}",
        backend,
        threads,
        load,
        pick(0.5).map_or(0.0, ms),
        pick(0.9).map_or(0.0, ms),
        ms(total) / n,
        stats.completion_tokens as f64 / n,
        stats.completion_tokens as f64 / total.as_secs_f64().max(1e-9),
    );
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
        .map(PathBuf::from)
        .or_else(|| directories::ProjectDirs::from("", "", "ragger").map(|d| d.data_dir().to_path_buf()))
        .ok_or("cannot find the data folder; pass --model")?;
    let mut args = Args {
        model: data.join("models/SmolLM2-135M-Instruct.Q4_1.gguf"),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        turns: 50,
        max_tokens: 120,
        temperature: 0.0,
        ctx: 4096,
        server: None,
        server_load_ms: None,
        label: "local".into(),
        local: true,
        header: false,
        show: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => args.model = PathBuf::from(value()?),
            "--threads" => args.threads = number(&flag, &value()?)?,
            "--turns" => args.turns = number(&flag, &value()?)?,
            "--max-tokens" => args.max_tokens = number(&flag, &value()?)?,
            "--temperature" => args.temperature = number(&flag, &value()?)?,
            "--ctx" => args.ctx = number(&flag, &value()?)?,
            "--server" => args.server = Some(value()?),
            "--server-load-ms" => args.server_load_ms = Some(number(&flag, &value()?)?),
            "--label" => args.label = value()?,
            "--no-local" => args.local = false,
            "--header" => args.header = true,
            "--show" => args.show = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.threads == 0 || args.turns == 0 {
        return Err("--threads and --turns must be at least 1".into());
    }
    Ok(args)
}

fn number<T: std::str::FromStr>(flag: &str, s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("{flag}: not a number: {s}"))
}
