//! `ragger mcp`: a real client exchange over stdio (JSON-RPC 2.0 lines).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::support::{Env, FakeServer};

struct Client {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Client {
    fn start(env: &Env) -> Client {
        let mut c = env.command(&["mcp"]);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = c.spawn().expect("spawn ragger mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client { child, stdin, stdout }
    }

    fn send(&mut self, msg: Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The response to request `id` (notifications in between are passed over).
    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "ragger mcp closed stdout");
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }
}

#[test]
fn mcp_client_exchange_lists_tools_and_returns_search_hits() {
    let server = FakeServer::fixed("The user fixed the flaky login test by waiting for the session cookie.");
    let env = Env::new().with_server(&server);
    env.capture(
        "s1",
        "The login test is flaky; fix it",
        "Waiting for the session cookie fixed it.",
        &["--project", "shop"],
    )
    .ok();
    env.run(&["summarize", "--once"]).ok();

    let mut c = Client::start(&env);
    let init = c.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "ragger", "{init}");
    assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = c.call(2, "tools/list", json!({}));
    let mut names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["context", "recent", "search", "show_session"]);

    let r = c.call(3, "tools/call", json!({"name": "search", "arguments": {"query": "flaky login", "limit": 5}}));
    assert_ne!(r["result"]["isError"], json!(true), "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    let hits: Value = serde_json::from_str(text).unwrap();
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty(), "{text}");
    assert!(hits.iter().all(|h| h["session"] == "s1"), "{text}");
    assert!(hits[0]["content"].as_str().unwrap().contains("login"), "{text}");

    let r = c.call(4, "tools/call", json!({"name": "show_session", "arguments": {"session": "nope"}}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");

    let r = c.call(5, "tools/call", json!({"name": "context", "arguments": {"project": "shop"}}));
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("(session s1): "), "{r}");

    drop(c.stdin);
    let status = c.child.wait().unwrap();
    assert!(status.success(), "ragger mcp exits 0 when the client closes stdin");
}

#[test]
fn mcp_does_not_write_the_database() {
    let env = Env::new();
    env.capture("s1", "a", "b", &[]).ok();
    let wal = env.path("data/ragger/ragger.db-wal");
    let before = (std::fs::read(env.db()).unwrap(), std::fs::read(&wal).unwrap_or_default());
    let mut c = Client::start(&env);
    c.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let r = c.call(2, "tools/call", json!({"name": "recent", "arguments": {"project": "none"}}));
    assert_eq!(r["result"]["isError"], json!(true), "an unknown project is the tool's error: {r}");
    // A folder no project has: an error too, and the lookup writes nothing.
    let r = c.call(3, "tools/call", json!({"name": "context", "arguments": {"project": "/nowhere/x"}}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    drop(c.stdin);
    c.child.wait().unwrap();
    assert_eq!((std::fs::read(env.db()).unwrap(), std::fs::read(&wal).unwrap_or_default()), before);
}

#[test]
fn mcp_on_a_missing_database_names_it_and_creates_nothing() {
    let env = Env::new();
    let mut c = Client::start(&env);
    c.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let r = c.call(2, "tools/call", json!({"name": "recent", "arguments": {"project": "p"}}));
    let text = r.to_string();
    assert!(text.contains(&format!("no database at {}", env.db().display())), "{r}");
    drop(c.stdin);
    c.child.wait().unwrap();
    assert!(!env.path("data/ragger").exists(), "ragger mcp created the data folder");
}

/// Write `input` to `ragger mcp`, close its stdin, and read every line it
/// answers until it exits (killed after 120 s: a hang fails the test).
fn exchange(env: &Env, input: Vec<u8>) -> Vec<Value> {
    let mut c = env.command(&["mcp"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn ragger mcp");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(120));
        let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
    });
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| l.unwrap())
        .map(|l| serde_json::from_str(&l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "ragger mcp exited with {status}");
    drop(watchdog);
    lines
}

fn line(v: Value) -> Vec<u8> {
    let mut l = v.to_string().into_bytes();
    l.push(b'\n');
    l
}

fn handshake() -> Vec<u8> {
    let mut input = line(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params":
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    input.extend(line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})));
    input
}

#[test]
fn mcp_answers_every_request_sent_before_stdin_closes() {
    let env = Env::new();
    env.capture("s1", "the flaky login test", "wait for the cookie", &["--project", "shop"]).ok();
    let mut input = handshake();
    for id in 1..=100 {
        input.extend(line(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "flaky login", "limit": 3}}})));
    }
    let answers = exchange(&env, input);
    let mut ids: Vec<i64> = answers.iter().filter_map(|a| a["id"].as_i64()).collect();
    ids.sort();
    assert_eq!(ids, (0..=100).collect::<Vec<_>>(), "every request answered once");
    assert!(answers.iter().all(|a| a.get("result").is_some()), "{answers:?}");
}

#[test]
fn mcp_answers_bad_lines_with_parse_errors_and_runs_same_id_requests_in_turn() {
    let env = Env::new();
    env.capture("s1", "a", "b", &["--project", "shop"]).ok();
    let mut input = handshake();
    input.extend(b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \n");
    input.extend(b"{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"tools/list\", \"x\": \"\xff\xfe\"}\n");
    // Longer than any message ragger reads whole (16 MiB).
    let mut long = b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/list\", \"params\": {\"pad\": \"".to_vec();
    long.extend(std::iter::repeat_n(b'x', 17 << 20));
    long.extend(b"\"}}\n");
    input.extend(long);
    // Two requests with one id, both in flight at once.
    for _ in 0..2 {
        input.extend(line(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "recent", "arguments": {"project": "shop"}}})));
    }
    input.extend(line(json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"})));
    let answers = exchange(&env, input);
    let parse_errors = answers.iter().filter(|a| a["error"]["code"] == -32700 && a["id"].is_null()).count();
    assert_eq!(parse_errors, 3, "malformed JSON, invalid UTF-8 and an over-long line: {answers:?}");
    let nines = answers.iter().filter(|a| a["id"] == 9 && a.get("result").is_some()).count();
    assert_eq!(nines, 2, "both requests with id 9 answered: {answers:?}");
    assert!(answers.iter().any(|a| a["id"] == 10 && a["result"]["tools"].is_array()), "{answers:?}");
}
