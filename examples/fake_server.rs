//! The tests' fake model server as a standalone process, for scripts
//! (`scripts/bench/run.sh`): an OpenAI- and Ollama-compatible server whose
//! replies cost a known, fixed time, so a benchmark can subtract model time.
//!
//!     cargo run --release --example fake_server -- [--delay-ms N] [--port P]
//!         [--faults SEED] [--jitter-ms N] [--seed S]
//!
//! The first line on stdout is `URL http://127.0.0.1:PORT/v1` (the base URL
//! for `[memory_model] backend = "openai"`). It serves until SIGTERM or
//! SIGINT, then prints `CALLS N` (chat completions answered or attempted)
//! and `DELAYED_MS T` (the time actually spent in `--delay-ms` delays,
//! summed over calls; a sleep overshoots a little) on stderr and exits 0.
//!
//! Every response closes its connection (see `main`).
//!
//! Replies: a one-sentence turn summary for L2 prompts, a short summary for
//! fold (L3/L4) prompts. The reply logic is [`reply`]. With `--faults` or
//! `--jitter-ms`, replies come from the test kit's `faults` module instead:
//! random faults and delays, and the topic-scripted model's replies (see
//! tests/kit/src/faults.rs). The server itself is the tests' fake server
//! (tests/kit/src/fake_server.rs).

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ragger_testkit::faults;
use ragger_testkit::{Action, FakeServer, Recorded};

const USAGE: &str = "usage: fake_server [--delay-ms N] [--port P] [--faults SEED] [--jitter-ms N] [--seed S]";

#[derive(Clone, Debug, Default)]
struct Options {
    /// Fixed delay before every chat reply.
    delay: Duration,
    /// 0: any free port.
    port: u16,
    /// Inject random faults, seeded (faults.rs).
    faults: Option<u64>,
    /// Random extra delay of 0..=N ms per chat reply (faults.rs).
    jitter_ms: u64,
    /// Seed of the jitter when there is no `--faults`.
    seed: u64,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--delay-ms" => {
                let v = value("--delay-ms")?;
                o.delay = Duration::from_millis(v.parse().map_err(|_| format!("--delay-ms: not a number: {v}"))?);
            }
            "--port" => {
                let v = value("--port")?;
                o.port = v.parse().map_err(|_| format!("--port: not a port: {v}"))?;
            }
            "--faults" => {
                let v = value("--faults")?;
                o.faults = Some(v.parse().map_err(|_| format!("--faults: not a seed (a number): {v}"))?);
            }
            "--jitter-ms" => {
                let v = value("--jitter-ms")?;
                o.jitter_ms = v.parse().map_err(|_| format!("--jitter-ms: not a number: {v}"))?;
            }
            "--seed" => {
                let v = value("--seed")?;
                o.seed = v.parse().map_err(|_| format!("--seed: not a number: {v}"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument: {a}")),
        }
    }
    Ok(o)
}

/// The answer to one request. Model-list checks are answered at once; chat
/// completions after the fixed delay.
fn reply(r: &Recorded, o: &Options) -> Action {
    if !r.is_chat() {
        return Action::text("");
    }
    let text = if r.system().contains("one-sentence") {
        format!("The user asked about {}; the assistant answered.", topic(&r.user()))
    } else {
        "The conversation is about a benchmark run; the user asks questions and the assistant answers them.".to_string()
    };
    // Sleep here, in the connection's thread, rather than with
    // `Action::Delayed`, so the time really slept can be summed.
    if !o.delay.is_zero() {
        let started = Instant::now();
        std::thread::sleep(o.delay);
        DELAYED_US.fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
    }
    Action::Text(text)
}

/// Microseconds spent in `--delay-ms` delays, over all calls.
static DELAYED_US: AtomicU64 = AtomicU64::new(0);

/// A few words of the turn's user text, so L2 rows differ.
fn topic(prompt: &str) -> String {
    let user = prompt.split("User: ").nth(1).unwrap_or("something");
    let words: Vec<&str> = user.split_whitespace().take(5).collect();
    if words.is_empty() {
        "something".to_string()
    } else {
        words.join(" ")
    }
}

fn main() {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fake_server: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let calls = Arc::new(AtomicU64::new(0));
    let chaos = (opts.faults.is_some() || opts.jitter_ms > 0)
        .then(|| Arc::new(faults::Chaos::new(opts.faults, opts.seed, opts.jitter_ms)));
    let server = {
        let (calls, opts, chaos) = (Arc::clone(&calls), opts.clone(), chaos.clone());
        FakeServer::start(move |r| {
            if r.is_chat() {
                calls.fetch_add(1, Ordering::Relaxed);
            }
            match &chaos {
                Some(c) => c.reply(r),
                None => reply(r, &opts),
            }
        })
        // One connection per request: the shared server writes a response's
        // head and body separately without TCP_NODELAY, so on a kept-alive
        // connection Nagle's algorithm and the client's delayed ACK add
        // about 40 ms to every call after the first, which would swamp the
        // fixed delay a benchmark subtracts. A fresh connection is ACKed at once.
        .with_connection_close()
    };
    // The shared server always binds port 0; a fixed port is a forwarder.
    let url = if opts.port == 0 {
        server.openai_url()
    } else {
        let inner = server.url().trim_start_matches("http://").to_string();
        let listener = TcpListener::bind(("127.0.0.1", opts.port)).unwrap_or_else(|e| {
            eprintln!("fake_server: cannot bind 127.0.0.1:{}: {e}", opts.port);
            std::process::exit(1);
        });
        std::thread::spawn(move || forward(listener, inner));
        format!("http://127.0.0.1:{}/v1", opts.port)
    };
    println!("URL {url}");
    let _ = std::io::stdout().flush();

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).expect("install signal handler");
    }
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("CALLS {}", calls.load(Ordering::Relaxed));
    eprintln!("DELAYED_MS {:.3}", DELAYED_US.load(Ordering::Relaxed) as f64 / 1000.0);
    if let Some(c) = &chaos {
        eprintln!("{}", c.tally_line());
    }
    // Exit without dropping the server: hanging connections need no join.
    std::process::exit(0);
}

/// Copy bytes both ways between each accepted connection and the server.
fn forward(listener: TcpListener, inner: String) {
    for client in listener.incoming().flatten() {
        let Ok(upstream) = TcpStream::connect(&inner) else { continue };
        let (Ok(mut c2), Ok(mut u2)) = (client.try_clone(), upstream.try_clone()) else { continue };
        let (mut client, mut upstream) = (client, upstream);
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut client, &mut u2);
            let _ = u2.shutdown(std::net::Shutdown::Write);
        });
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut upstream, &mut c2);
            let _ = c2.shutdown(std::net::Shutdown::Write);
        });
    }
}
