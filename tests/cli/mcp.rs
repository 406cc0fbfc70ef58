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
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("(session s1, running)"), "{r}");

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
    assert_eq!(r["result"]["content"][0]["text"], "[]", "{r}");
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
