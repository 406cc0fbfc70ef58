//! A fake model server for tests. It speaks the OpenAI-compatible API
//! (`/v1/chat/completions`, `/v1/models`) and Ollama's (`/api/chat`,
//! `/api/tags`) on `127.0.0.1:0`, answers from a script the test gives, and
//! records every request for assertions.
//!
//! ```ignore
//! let server = FakeServer::start(|r| Action::text(format!("The user asked about {}.", r.user())));
//! // point ragger at server.openai_url() or server.ollama_url()
//! assert_eq!(server.count(), 1);
//! assert!(server.chat_requests()[0].system().contains("one sentence"));
//! ```
//!
//! Replies to chat requests report fake token usage: prompt tokens are the
//! words of all messages, completion tokens the words of the reply.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// What the server does with one request.
#[derive(Clone, Debug)]
pub enum Action {
    /// 200 with this reply text in the right API's JSON. On a model-list
    /// path (`/v1/models`, `/api/tags`) the text is ignored and the
    /// configured model list is sent.
    Text(String),
    /// Wait, then do the inner action.
    Delayed(Duration, Box<Action>),
    /// An error status with this message in the API's error JSON
    /// (`{"error":{"message":…}}` for openai, `{"error":…}` for ollama).
    Status(u16, String),
    /// Read the request, then close the connection without answering.
    Drop,
    /// 200 with a body that is not valid JSON.
    Malformed,
    /// This status and exactly this body (`Content-Type: application/json`).
    Raw(u16, String),
    /// Never answer; the connection is closed when the server stops.
    Hang,
    /// Send a 200 head announcing a long body, then one byte of it every
    /// interval until the server stops: defeats any per-read timeout.
    Drip(Duration),
}

impl Action {
    pub fn text(text: impl Into<String>) -> Action {
        Action::Text(text.into())
    }
    pub fn status(code: u16, message: impl Into<String>) -> Action {
        Action::Status(code, message.into())
    }
    pub fn delayed(delay: Duration, then: Action) -> Action {
        Action::Delayed(delay, Box::new(then))
    }
    pub fn raw(code: u16, body: impl Into<String>) -> Action {
        Action::Raw(code, body.into())
    }
}

/// Which API a path belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    OpenAi,
    Ollama,
}

/// One request as the server received it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    /// Path without the query string, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The parsed JSON body; `Null` when there is none or it is not JSON.
    pub body: Value,
    pub raw_body: String,
}

impl Recorded {
    /// A header's value, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    pub fn api(&self) -> Api {
        if self.path.starts_with("/api/") {
            Api::Ollama
        } else {
            Api::OpenAi
        }
    }

    /// A chat completion (not a model-list check).
    pub fn is_chat(&self) -> bool {
        self.path == "/v1/chat/completions" || self.path == "/api/chat"
    }

    /// The `model` field of the body.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// `(role, content)` of every message, in order.
    pub fn messages(&self) -> Vec<(String, String)> {
        let Some(messages) = self.body.get("messages").and_then(Value::as_array) else {
            return Vec::new();
        };
        messages
            .iter()
            .map(|m| {
                let field = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                (field("role"), field("content"))
            })
            .collect()
    }

    /// All message contents joined with "\n".
    pub fn prompt(&self) -> String {
        self.messages().into_iter().map(|(_, c)| c).collect::<Vec<_>>().join("\n")
    }

    /// The system messages' contents joined with "\n".
    pub fn system(&self) -> String {
        self.contents_of("system")
    }

    /// The last user message: the one the model is asked to answer (the
    /// earlier ones are a prompt's worked examples).
    pub fn user(&self) -> String {
        self.messages().into_iter().rev().find(|(r, _)| r == "user").map(|(_, c)| c).unwrap_or_default()
    }

    fn contents_of(&self, role: &str) -> String {
        let parts: Vec<String> = self.messages().into_iter().filter(|(r, _)| r == role).map(|(_, c)| c).collect();
        parts.join("\n")
    }
}

type Handler = Box<dyn Fn(&Recorded) -> Action + Send + Sync>;

struct State {
    handler: Handler,
    models: Mutex<Vec<String>>,
    close_connections: AtomicBool,
    requests: Mutex<Vec<Recorded>>,
    /// Open connections by number, so stopping can shut down hung ones;
    /// each is removed when its handler ends (no descriptor leak).
    conns: Mutex<std::collections::HashMap<usize, TcpStream>>,
    next_conn: AtomicUsize,
    stopping: Mutex<bool>,
    wake: Condvar,
    next_id: AtomicUsize,
}

impl State {
    /// Sleep up to `d`; returns false when the server is stopping.
    fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut stopping = self.stopping.lock().unwrap();
        while !*stopping {
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            stopping = self.wake.wait_timeout(stopping, deadline - now).unwrap().0;
        }
        false
    }

    fn wait_for_stop(&self) {
        let mut stopping = self.stopping.lock().unwrap();
        while !*stopping {
            stopping = self.wake.wait(stopping).unwrap();
        }
    }
}

/// The server; it stops when dropped.
pub struct FakeServer {
    addr: SocketAddr,
    state: Arc<State>,
    acceptor: Option<JoinHandle<()>>,
}

impl FakeServer {
    /// Serve with a script: `handler` decides each request's answer.
    pub fn start(handler: impl Fn(&Recorded) -> Action + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State {
            handler: Box::new(handler),
            models: Mutex::new(vec!["fake-model".to_string()]),
            close_connections: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            conns: Mutex::new(std::collections::HashMap::new()),
            next_conn: AtomicUsize::new(0),
            stopping: Mutex::new(false),
            wake: Condvar::new(),
            next_id: AtomicUsize::new(1),
        });
        let st = Arc::clone(&state);
        let acceptor = thread::spawn(move || {
            for stream in listener.incoming() {
                if *st.stopping.lock().unwrap() {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let n = st.next_conn.fetch_add(1, Ordering::SeqCst);
                if let Ok(clone) = stream.try_clone() {
                    st.conns.lock().unwrap().insert(n, clone);
                }
                let st = Arc::clone(&st);
                thread::spawn(move || {
                    serve_connection(stream, &st);
                    st.conns.lock().unwrap().remove(&n);
                });
            }
        });
        FakeServer { addr, state, acceptor: Some(acceptor) }
    }

    /// Answer every chat request with this text.
    pub fn fixed(text: impl Into<String>) -> FakeServer {
        let text = text.into();
        FakeServer::start(move |_| Action::Text(text.clone()))
    }

    /// The n-th chat request gets the n-th action; the last one repeats.
    /// Model-list checks are answered normally and do not advance.
    pub fn sequence(actions: Vec<Action>) -> FakeServer {
        assert!(!actions.is_empty(), "FakeServer::sequence needs at least one action");
        let next = AtomicUsize::new(0);
        FakeServer::start(move |r| {
            if !r.is_chat() {
                return Action::Text(String::new());
            }
            let i = next.fetch_add(1, Ordering::SeqCst).min(actions.len() - 1);
            actions[i].clone()
        })
    }

    /// The models listed by `/v1/models` and `/api/tags`
    /// (default `["fake-model"]`).
    pub fn with_models(self, models: &[&str]) -> FakeServer {
        *self.state.models.lock().unwrap() = models.iter().map(|m| m.to_string()).collect();
        self
    }

    /// Answer with `Connection: close` and close after each response
    /// (default: keep-alive, as real servers do).
    pub fn with_connection_close(self) -> FakeServer {
        self.state.close_connections.store(true, Ordering::SeqCst);
        self
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`, the base URL for the openai backend.
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT`, the base URL for the ollama backend.
    pub fn ollama_url(&self) -> String {
        self.url()
    }

    /// Every request so far, model-list checks included.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Only the chat completions.
    pub fn chat_requests(&self) -> Vec<Recorded> {
        self.requests().into_iter().filter(Recorded::is_chat).collect()
    }

    /// How many chat completions were asked for (model calls; model-list
    /// checks are not counted).
    pub fn count(&self) -> usize {
        self.chat_requests().len()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        *self.state.stopping.lock().unwrap() = true;
        self.state.wake.notify_all();
        // Wake the acceptor blocked in accept().
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        for (_, conn) in self.state.conns.lock().unwrap().drain() {
            let _ = conn.shutdown(Shutdown::Both);
        }
    }
}

fn serve_connection(stream: TcpStream, state: &State) {
    // A reply goes out as several writes; without this, Nagle's algorithm
    // and the client's delayed ACK add ~40 ms to every kept-alive call.
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while let Some(req) = read_request(&mut reader) {
        state.requests.lock().unwrap().push(req.clone());
        let known = matches!(req.path.as_str(), "/v1/chat/completions" | "/v1/models" | "/api/chat" | "/api/tags");
        let action = if known {
            (state.handler)(&req)
        } else {
            Action::Status(404, format!("no route for {} {}", req.method, req.path))
        };
        let close = state.close_connections.load(Ordering::SeqCst)
            || req.header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        if !respond(&mut writer, &req, action, state, close) || close {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
    }
}

/// Returns false when the connection must be closed.
fn respond(w: &mut TcpStream, req: &Recorded, action: Action, state: &State, close: bool) -> bool {
    let (code, body) = match action {
        Action::Delayed(d, then) => {
            return state.sleep(d) && respond(w, req, *then, state, close);
        }
        Action::Drop => return false,
        Action::Hang => {
            state.wait_for_stop();
            return false;
        }
        Action::Drip(every) => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n";
            if w.write_all(head.as_bytes()).is_err() {
                return false;
            }
            while state.sleep(every) {
                if w.write_all(b" ").and_then(|_| w.flush()).is_err() {
                    break;
                }
            }
            return false;
        }
        Action::Malformed => (200, r#"{"choices": [{"message": {"content": "cut"#.to_string()),
        Action::Raw(code, body) => (code, body),
        Action::Status(code, message) => (code, error_body(req.api(), code, &message)),
        Action::Text(text) => (200, success_body(req, &text, state)),
    };
    let head = format!(
        "HTTP/1.1 {code} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n",
        reason(code),
        body.len(),
        if close { "close" } else { "keep-alive" }
    );
    w.write_all(head.as_bytes()).and_then(|_| w.write_all(body.as_bytes())).and_then(|_| w.flush()).is_ok()
}

fn success_body(req: &Recorded, text: &str, state: &State) -> String {
    let models = state.models.lock().unwrap().clone();
    let model = req.model().map(str::to_string).or_else(|| models.first().cloned()).unwrap_or_default();
    let prompt_tokens = req.prompt().split_whitespace().count();
    let completion_tokens = text.split_whitespace().count();
    let id = state.next_id.fetch_add(1, Ordering::SeqCst);
    let body = match req.path.as_str() {
        "/v1/models" => json!({
            "object": "list",
            "data": models.iter().map(|m| json!({"id": m, "object": "model", "owned_by": "fake"})).collect::<Vec<_>>(),
        }),
        "/api/tags" => json!({
            "models": models.iter().map(|m| json!({"name": m, "model": m, "size": 0})).collect::<Vec<_>>(),
        }),
        "/api/chat" => json!({
            "model": model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": true,
            "done_reason": "stop",
            "prompt_eval_count": prompt_tokens,
            "eval_count": completion_tokens,
            "prompt_eval_duration": 2_000_000,
            "eval_duration": 3_500_000,
        }),
        _ => json!({
            "id": format!("chatcmpl-fake-{id}"),
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
            // As llama.cpp's server sends them: all but 4 prompt tokens cached.
            "timings": {
                "cache_n": prompt_tokens.saturating_sub(4),
                "prompt_n": prompt_tokens.min(4),
                "prompt_ms": 2.5,
                "predicted_n": completion_tokens,
                "predicted_ms": 10.25,
            },
        }),
    };
    body.to_string()
}

fn error_body(api: Api, code: u16, message: &str) -> String {
    match api {
        Api::OpenAi => json!({"error": {"message": message, "type": "fake_error", "code": code}}),
        Api::Ollama => json!({"error": message}),
    }
    .to_string()
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Read one HTTP/1.1 request; None at end of stream or on garbage.
fn read_request(r: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?;
    let path = target.split('?').next().unwrap_or(target).to_string();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (name, value) = l.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let find = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            line.clear();
            r.read_line(&mut line).ok()?;
            let size = usize::from_str_radix(line.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            r.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        r.read_exact(&mut body).ok()?;
    }
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Some(Recorded { method, path, headers, body, raw_body })
}
