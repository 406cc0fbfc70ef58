//! `ragger mcp`: a Model Context Protocol server on stdio (the official
//! Rust SDK, rmcp). An agent starts it per session; it is not a daemon.
//! Every tool but `remember` only reads: it opens the database, sets
//! `query_only`, reads and closes, so it runs beside capture and the
//! passes (WAL). `remember` stores a note through the capture door.
//!
//! Every tool has an `outputSchema`; its result carries `structuredContent`
//! that conforms to it, and the same JSON (compact) as a text block for
//! clients that read only text (MCP 2025-06-18, "Structured Content").
//! `context`'s text block is its Markdown, what an agent reads.

mod lenient;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::{Deserialize, Serialize};

use super::Ctx;
use crate::exit::Exit;
use crate::store::Store;

// Optional numbers are typed `integer` and left out of `required` (no
// `["integer", "null"]`, which clients fill badly); see `lenient`.

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchParams {
    /// What to look for, in words.
    pub query: String,
    /// Number of hits (default 10).
    #[serde(default, deserialize_with = "lenient::limit")]
    #[schemars(with = "u32", range(min = 1))]
    pub limit: Option<usize>,
    /// Only this project: its name (as `list_projects` lists it) or its folder.
    #[serde(default)]
    #[schemars(with = "String")]
    pub project: Option<String>,
    /// Only this session id.
    #[serde(default)]
    #[schemars(with = "String")]
    pub session: Option<String>,
    /// Only this level: 2 turn summaries (searched only when asked for), 3
    /// session segments, 4 project summaries.
    #[serde(default, deserialize_with = "lenient::level")]
    #[schemars(with = "u8", range(min = 2, max = 4))]
    pub level: Option<u8>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ShowParams {
    /// Session id.
    pub session: String,
    /// Turns to skip (default 0): the `next_offset` of the page before.
    #[serde(default, deserialize_with = "lenient::offset")]
    #[schemars(with = "u32")]
    pub offset: Option<usize>,
    /// Turns to show (default 10).
    #[serde(default, deserialize_with = "lenient::limit")]
    #[schemars(with = "u32", range(min = 1))]
    pub limit: Option<usize>,
    /// Characters kept of each text (turn, summary; default 1000, at
    /// least 100); a longer one is cut in the middle, marked.
    #[serde(default, deserialize_with = "lenient::max_chars")]
    #[schemars(with = "u32", range(min = 100))]
    pub max_chars: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RecentParams {
    /// The project: its name (as `ragger projects` lists it) or its folder
    /// (a sub-folder finds its repository's project).
    pub project: String,
    /// Number of segments (default 5).
    #[serde(default, deserialize_with = "lenient::limit")]
    #[schemars(with = "u32", range(min = 1))]
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ContextParams {
    /// The project: its name (as `ragger projects` lists it) or its folder
    /// (a sub-folder finds its repository's project).
    pub project: String,
    /// Budget of the block in tokens (default 1500).
    #[serde(default, deserialize_with = "lenient::limit_tokens")]
    #[schemars(with = "u32", range(min = 1))]
    pub limit_tokens: Option<usize>,
    /// What the session is about: earlier sessions matching it are listed
    /// (default: the key terms of the project's recent sessions).
    #[serde(default)]
    #[schemars(with = "String")]
    pub query: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RememberParams {
    /// What to keep, in words (a decision, a fact, a preference).
    pub text: String,
    /// Its project: a stored one's name (as `list_projects` lists it) or
    /// folder (default: the project of the folder ragger mcp runs in, its
    /// repository root).
    #[serde(default)]
    #[schemars(with = "String")]
    pub project: Option<String>,
    /// Add it to this session (default: a session of its own).
    #[serde(default)]
    #[schemars(with = "String")]
    pub session: Option<String>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SearchOutput {
    /// Best first.
    pub hits: Vec<crate::search::Hit>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RecentOutput {
    /// Newest first.
    pub segments: Vec<crate::context::Entry>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ContextOutput {
    pub project: String,
    /// The memory block (empty when the project has no memory yet).
    pub markdown: String,
    /// Estimated tokens of the block.
    pub tokens: usize,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ProjectsOutput {
    /// Most recent activity first.
    pub projects: Vec<ProjectSummary>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ProjectSummary {
    /// Its name, as the tools' `project` takes it: unambiguous among all
    /// projects ("backend (clientA)" where two are called "backend").
    pub project: String,
    /// Its folder name, or the configured or given name.
    pub name: String,
    /// Its repository root (absolute), when known.
    pub root: Option<String>,
    pub sessions: i64,
    pub turns: i64,
    /// Time of its last turn, RFC 3339 UTC.
    pub last: String,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RememberOutput {
    /// The session the note was stored in.
    pub session: String,
    pub project: Option<String>,
    /// False when the same note was already stored there.
    pub stored: bool,
    /// Secrets replaced by markers before it was stored.
    pub redactions: i64,
}

// Tools return `Result<Json<T>, String>` spelled out: rmcp's macro finds
// the output schema in that written form, not through a type alias.
#[derive(Clone)]
pub struct Server {
    ctx: Arc<Ctx>,
    tool_router: ToolRouter<Self>,
}

impl Server {
    pub fn new(ctx: Ctx) -> Server {
        Server { ctx: Arc::new(ctx), tool_router: Self::tool_router() }
    }

    fn store(&self) -> Result<Store, String> {
        let store = self.ctx.open_existing_store().map_err(|e| format!("{e:#}"))?;
        crate::store::inspect::read_only(&store).map_err(|e| e.to_string())?;
        Ok(store)
    }

    /// The key of the project a tool's `project` argument means: a name
    /// (as `list_projects` lists it) or a folder, read as `--project` is
    /// (`Ctx::project`), an unknown one the tool's error. Without one (or
    /// an empty one), the stored project of the folder the server runs in
    /// (`store::projects::of_folder`), if it has one. The one place a read
    /// tool's project argument is read.
    fn project(&self, store: &Store, given: Option<&str>) -> Result<Option<String>, String> {
        if let Some(arg) = given.map(str::trim).filter(|p| !p.is_empty()) {
            return self.ctx.project(store, arg).map(Some).map_err(err);
        }
        let Ok(dir) = std::env::current_dir() else { return Ok(None) };
        crate::store::projects::of_folder(store, &dir, &self.ctx.config.import.projects).map_err(err)
    }
}

fn err(e: anyhow::Error) -> String {
    format!("{e:#}")
}

#[tool_router]
impl Server {
    #[tool(description = "Search the memory of past conversations (turn, session and project summaries) \
by meaning and keywords. Returns hits with score, level, session, project, the time of the work (`at`) and text.")]
    fn search(&self, Parameters(p): Parameters<SearchParams>) -> Result<Json<SearchOutput>, String> {
        let store = self.store()?;
        // Absent: every project; given (even empty), see `Server::project`.
        let project = match p.project.as_deref() {
            Some(given) => self.project(&store, Some(given))?,
            None => None,
        };
        let hits = super::search::find(
            &self.ctx,
            &store,
            &p.query,
            &crate::search::Filters { level: p.level, session: p.session, project, since: None },
            p.limit.unwrap_or(10),
        )
        .map_err(err)?;
        Ok(Json(SearchOutput { hits }))
    }

    #[tool(description = "Show one session: its turns (user, assistant, one-line summary) and its summaries, \
a page of `limit` turns from `offset` on, texts cut to `max_chars`; `truncated` says whether anything was left out \
and `next_offset` where the next page starts.")]
    fn show_session(&self, Parameters(p): Parameters<ShowParams>) -> Result<Json<crate::inspect::SessionPage>, String> {
        let store = self.store()?;
        let view = crate::inspect::show(&store, &p.session).map_err(err)?;
        let view = view.ok_or_else(|| format!("no session {:?}", p.session))?;
        let max_chars = p.max_chars.unwrap_or(1000).max(100);
        Ok(Json(crate::inspect::page(view, p.offset.unwrap_or(0), p.limit.unwrap_or(10).max(1), max_chars)))
    }

    #[tool(
        description = "The latest session summaries (segments) of a project, newest first, with the time of their last turn."
    )]
    fn recent(&self, Parameters(p): Parameters<RecentParams>) -> Result<Json<RecentOutput>, String> {
        let store = self.store()?;
        let project = self.project(&store, Some(&p.project))?.unwrap_or_default();
        let segments = crate::context::recent(&store, &project, p.limit.unwrap_or(5)).map_err(err)?;
        Ok(Json(RecentOutput { segments }))
    }

    #[tool(
        description = "The memory block for the start of a session: the project's summary, its \
recent sessions and the earlier sessions on the same subjects (or matching `query`), within a token budget, as Markdown.",
        output_schema = rmcp::handler::server::tool::schema_for_output::<ContextOutput>()
    )]
    fn context(&self, Parameters(p): Parameters<ContextParams>) -> Result<CallToolResult, String> {
        let store = self.store()?;
        let project = self.project(&store, Some(&p.project))?.unwrap_or_default();
        let block =
            crate::context::build(&store, &project, p.limit_tokens.unwrap_or(1500), p.query.as_deref()).map_err(err)?;
        let markdown = crate::context::markdown(&block);
        let project = crate::store::projects::label(&store, &project).map_err(err)?;
        let out = ContextOutput { project, tokens: block.tokens, markdown };
        let value = serde_json::to_value(&out).map_err(|e| e.to_string())?;
        // The Markdown itself as the text: what an agent reads.
        let mut result = CallToolResult::structured(value);
        result.content = vec![ContentBlock::text(out.markdown)];
        Ok(result)
    }

    #[tool(description = "Every project in the memory: the name the tools' `project` takes, its folder name and \
repository root, sessions, turns and the time of its last turn, most recent first.")]
    fn list_projects(&self) -> Result<Json<ProjectsOutput>, String> {
        let store = self.store()?;
        let projects = crate::inspect::projects(&store)
            .map_err(err)?
            .into_iter()
            .map(|p| ProjectSummary {
                project: p.project,
                name: p.name,
                root: p.root,
                sessions: p.sessions,
                turns: p.turns,
                last: crate::store::fmt_time(p.last),
            })
            .collect();
        Ok(Json(ProjectsOutput { projects }))
    }

    #[tool(description = "Keep a note in the memory (a decision, a fact, a preference the user wants kept): \
stored as a turn of kind `note` in the project (default: the current folder's), in a session of its own or the one \
given; searched and summarised like the conversations. Secrets in it are redacted as in every capture.")]
    fn remember(&self, Parameters(p): Parameters<RememberParams>) -> Result<Json<RememberOutput>, String> {
        let ctx = &self.ctx;
        let now = crate::store::now_ms();
        let mut store = ctx.open_store().map_err(err)?;
        let cwd = std::env::current_dir().ok();
        // A given project must be a stored one (a name or a folder, as the
        // read tools take it); without one, the server's working folder,
        // whose repository root the capture door finds (a repository with
        // no memory yet gets its project so).
        let given = match p.project.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            Some(arg) => {
                let key = ctx.project(&store, arg).map_err(err)?;
                Some(crate::store::projects::get(&store, &key).map_err(err)?.unwrap_or_else(|| {
                    crate::store::projects::Project { name: key.clone(), label: key.clone(), root: None, key }
                }))
            }
            None => None,
        };
        let value = match &given {
            Some(g) => Some(g.key.clone()),
            None => cwd.as_deref().map(crate::project::path_text),
        };
        let input = crate::capture::note(&p.text, value, p.session.as_deref(), now);
        let door = crate::capture::Door::new(&ctx.config).map_err(err)?;
        let mut turn = match door.admit(input, cwd.as_deref(), now).map_err(|why| format!("note refused: {why}"))? {
            crate::capture::Admitted::Turn(t) => t,
            crate::capture::Admitted::Excluded => {
                return Err("note refused: its project is excluded from capture ([capture] exclude_projects \
or a .ragger-ignore file)"
                    .into())
            }
        };
        if let Some(g) = given {
            // The stored project itself, not what its key reads as a folder.
            turn.project = Some(crate::project::Spec { name: g.name, root: g.root });
        }
        let r = crate::store::turns::store_batch(&mut store, std::slice::from_ref(&turn)).map_err(err)?;
        // A session keeps its first project: say which one the note went to.
        let project = crate::store::projects::of_session(&store, &turn.session).map_err(err)?;
        Ok(Json(RememberOutput { session: turn.session, project, stored: r.stored > 0, redactions: turn.redactions }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ragger", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "ragger keeps the memory of past conversations with coding agents. Use `context` at the start \
                 of work on a project, `search` to recall past decisions, `show_session` for details, \
                 `list_projects` to see the projects, `remember` to keep a note.",
            )
    }
}

/// Serve on stdin/stdout until the client closes the connection, and
/// answer every request read before that (see [`LineTransport`]).
pub fn run(ctx: Ctx) -> anyhow::Result<Exit> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let service = Server::new(ctx)
            .serve(LineTransport::start())
            .await
            .map_err(|e| anyhow::anyhow!("MCP initialization failed: {e}"))?;
        service.waiting().await?;
        Ok(Exit::Ok)
    })
}

/// The longest line (one JSON-RPC message) read whole; a longer one is
/// skipped to its newline and answered with a parse error.
const MAX_LINE: usize = 16 << 20;

type ClientMessage = rmcp::service::RxJsonRpcMessage<rmcp::RoleServer>;
type ServerMessage = rmcp::service::TxJsonRpcMessage<rmcp::RoleServer>;

/// JSON-RPC over stdio lines, in front of rmcp's service loop, which on
/// its own stops at end of input with requests still running, answers no
/// line it cannot parse, and drops the first of two running requests that
/// share an id. Here:
/// - a line that is not UTF-8 JSON, or longer than [`MAX_LINE`], gets a
///   -32700 parse error; a JSON value that is no message gets -32600;
/// - a request whose id is in flight waits until the first is answered;
/// - at end of input, the service sees the end only once every request
///   read has been answered.
struct LineTransport {
    incoming: tokio::sync::mpsc::UnboundedReceiver<(Option<String>, ClientMessage)>,
    input_done: bool,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: std::sync::Mutex<Flight>,
    wake: tokio::sync::Notify,
    out: std::sync::Mutex<()>,
}

/// Requests read and not answered yet, by id (its JSON text).
#[derive(Default)]
struct Flight {
    running: std::collections::HashSet<String>,
    /// Requests whose id was running when they came, in arrival order.
    waiting: Vec<(String, ClientMessage)>,
    /// Requests let through, to hand to the service.
    ready: std::collections::VecDeque<ClientMessage>,
}

impl Flight {
    /// The request `key` is answered (or cancelled): let the next one with
    /// the same id through.
    fn finish(&mut self, key: &str) {
        self.running.remove(key);
        if let Some(i) = self.waiting.iter().position(|(k, _)| k == key) {
            let (k, m) = self.waiting.remove(i);
            self.running.insert(k);
            self.ready.push_back(m);
        }
    }
}

impl Shared {
    /// One whole line on stdout.
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        use std::io::Write;
        let _one_writer = self.out.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out = std::io::stdout().lock();
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        out.flush()
    }

    fn error_reply(&self, id: serde_json::Value, code: i64, message: &str) {
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        let _ = self.write_line(&reply.to_string());
    }
}

impl LineTransport {
    fn start() -> LineTransport {
        let (tx, incoming) = tokio::sync::mpsc::unbounded_channel();
        let shared = Arc::new(Shared::default());
        let reader = shared.clone();
        // A blocking reader on its own thread: a read of stdin cannot be
        // cancelled, and the process ends without waiting for it.
        std::thread::spawn(move || read_lines(&mut std::io::stdin().lock(), &reader, &tx));
        LineTransport { incoming, input_done: false, shared }
    }

    /// A request whose id is running waits; a cancellation lets the next
    /// request with that id through.
    fn admit(&mut self, key: Option<String>, m: ClientMessage) -> Option<ClientMessage> {
        let mut flight = self.shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let rmcp::model::JsonRpcMessage::Notification(n) = &m {
            if let rmcp::model::ClientNotification::CancelledNotification(c) = &n.notification {
                if let Some(id) = &c.params.request_id {
                    flight.finish(&id_key(&id.clone().into_json_value()));
                    self.shared.wake.notify_one();
                }
            }
        }
        match key {
            Some(k) if flight.running.contains(&k) => {
                flight.waiting.push((k, m));
                None
            }
            Some(k) => {
                flight.running.insert(k);
                Some(m)
            }
            None => Some(m),
        }
    }
}

/// The key of a request id: its JSON text (`1`, `"a"`).
fn id_key(id: &serde_json::Value) -> String {
    id.to_string()
}

/// Read stdin line by line (bounded), answer what cannot be a message,
/// and pass the rest on with the key of their id when they are requests.
fn read_lines(
    input: &mut impl std::io::BufRead,
    shared: &Shared,
    tx: &tokio::sync::mpsc::UnboundedSender<(Option<String>, ClientMessage)>,
) {
    let mut line = Vec::new();
    while let Ok(Some(whole)) = read_bounded_line(input, MAX_LINE, &mut line) {
        if !whole {
            shared.error_reply(
                serde_json::Value::Null,
                -32700,
                &format!("Parse error: line longer than {} MiB", MAX_LINE >> 20),
            );
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value: serde_json::Value = match std::str::from_utf8(&line) {
            Err(_) => {
                shared.error_reply(serde_json::Value::Null, -32700, "Parse error: the line is not UTF-8");
                continue;
            }
            Ok(text) => match serde_json::from_str(text) {
                Ok(v) => v,
                Err(e) => {
                    shared.error_reply(serde_json::Value::Null, -32700, &format!("Parse error: {e}"));
                    continue;
                }
            },
        };
        let id = value.get("id").filter(|id| !id.is_null()).cloned();
        let is_request = value.get("method").is_some() && id.is_some();
        match serde_json::from_value::<ClientMessage>(value) {
            Ok(m) => {
                let key = if is_request { id.as_ref().map(id_key) } else { None };
                if tx.send((key, m)).is_err() {
                    break; // the service has stopped
                }
            }
            // A notification gets no answer, not even an error.
            Err(_) if !is_request && id.is_none() && !line.starts_with(b"[") => {}
            Err(e) => shared.error_reply(id.unwrap_or_default(), -32600, &format!("Invalid Request: {e}")),
        }
    }
}

/// The next line of `input` without its newline, into `line`: `Some(true)`
/// a whole line, `Some(false)` a line longer than `max` (skipped to its
/// end), `None` the end of input.
fn read_bounded_line(
    input: &mut impl std::io::BufRead,
    max: usize,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    line.clear();
    let (mut any, mut too_long) = (false, false);
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any.then_some(!too_long));
        }
        any = true;
        let (chunk, used, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        if !too_long {
            if line.len() + chunk.len() > max {
                too_long = true;
                line.clear();
                line.shrink_to(0);
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if end {
            return Ok(Some(!too_long));
        }
    }
}

impl rmcp::transport::Transport<rmcp::RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        use rmcp::model::JsonRpcMessage;
        let answered = match &item {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let written =
            serde_json::to_string(&item).map_err(std::io::Error::other).and_then(|l| self.shared.write_line(&l));
        if let Some(id) = answered {
            let mut flight = self.shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            flight.finish(&id_key(&id.into_json_value()));
            drop(flight);
            self.shared.wake.notify_one();
        }
        std::future::ready(written)
    }

    async fn receive(&mut self) -> Option<ClientMessage> {
        {
            loop {
                {
                    let mut flight = self.shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if let Some(m) = flight.ready.pop_front() {
                        return Some(m);
                    }
                    if self.input_done && flight.running.is_empty() && flight.waiting.is_empty() {
                        return None;
                    }
                }
                if self.input_done {
                    self.shared.wake.notified().await;
                    continue;
                }
                let shared = self.shared.clone();
                tokio::select! {
                    m = self.incoming.recv() => match m {
                        None => self.input_done = true,
                        Some((key, m)) => {
                            if let Some(m) = self.admit(key, m) {
                                return Some(m);
                            }
                        }
                    },
                    _ = shared.wake.notified() => {}
                }
            }
        }
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        std::future::ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::read_bounded_line;

    #[test]
    fn lines_are_read_whole_up_to_the_bound_and_longer_ones_skipped() {
        let mut input = std::io::BufReader::with_capacity(4, &b"ab\n0123456789\nlast"[..]);
        let mut line = Vec::new();
        assert_eq!(read_bounded_line(&mut input, 8, &mut line).unwrap(), Some(true));
        assert_eq!(line, b"ab");
        assert_eq!(read_bounded_line(&mut input, 8, &mut line).unwrap(), Some(false));
        assert_eq!(read_bounded_line(&mut input, 8, &mut line).unwrap(), Some(true));
        assert_eq!(line, b"last");
        assert_eq!(read_bounded_line(&mut input, 8, &mut line).unwrap(), None);
    }
}
