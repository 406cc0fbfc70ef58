//! `ragger mcp`: a Model Context Protocol server on stdio (the official
//! Rust SDK, rmcp). An agent starts it per session; it is not a daemon.
//! Read-only: every tool call opens the database, sets `query_only`, reads
//! and closes, so it runs beside capture and the passes (WAL).

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Deserialize;

use super::Ctx;
use crate::exit::Exit;
use crate::store::Store;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchParams {
    /// What to look for, in words.
    pub query: String,
    /// Number of hits (default 10).
    pub limit: Option<usize>,
    /// Only this project.
    pub project: Option<String>,
    /// Only this session id.
    pub session: Option<String>,
    /// Only this level: 2 turn summaries (searched only when asked for), 3
    /// session segments, 4 project summaries.
    pub level: Option<u8>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ShowParams {
    /// Session id.
    pub session: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RecentParams {
    /// Project name.
    pub project: String,
    /// Number of segments (default 5).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ContextParams {
    /// Project name.
    pub project: String,
    /// Budget of the block in tokens (default 1500).
    pub limit_tokens: Option<usize>,
    /// What the session is about: earlier sessions matching it are listed
    /// (default: the key terms of the project's recent sessions).
    pub query: Option<String>,
}

#[derive(Clone)]
pub struct Server {
    ctx: Arc<Ctx>,
    tool_router: ToolRouter<Self>,
}

type ToolResult = Result<String, String>;

impl Server {
    pub fn new(ctx: Ctx) -> Server {
        Server { ctx: Arc::new(ctx), tool_router: Self::tool_router() }
    }

    fn store(&self) -> Result<Store, String> {
        let store = self.ctx.open_existing_store().map_err(|e| format!("{e:#}"))?;
        crate::store::inspect::read_only(&store).map_err(|e| e.to_string())?;
        Ok(store)
    }
}

fn json<T: serde::Serialize>(v: &T) -> ToolResult {
    serde_json::to_string_pretty(v).map_err(|e| e.to_string())
}

#[tool_router]
impl Server {
    #[tool(description = "Search the memory of past conversations (turn, session and project summaries) \
by meaning and keywords. Returns hits with score, level, session, project, time and text.")]
    fn search(&self, Parameters(p): Parameters<SearchParams>) -> ToolResult {
        let store = self.store()?;
        let hits = super::search::find(
            &self.ctx,
            &store,
            &p.query,
            &crate::search::Filters { level: p.level, session: p.session, project: p.project, since: None },
            p.limit.unwrap_or(10),
        )
        .map_err(|e| format!("{e:#}"))?;
        json(&hits)
    }

    #[tool(description = "Show one session: its turns (user, assistant, one-line summary) and its summaries.")]
    fn show_session(&self, Parameters(p): Parameters<ShowParams>) -> ToolResult {
        let store = self.store()?;
        match crate::inspect::show(&store, &p.session).map_err(|e| format!("{e:#}"))? {
            Some(view) => json(&view),
            None => Err(format!("no session {:?}", p.session)),
        }
    }

    #[tool(description = "The latest session summaries (segments) of a project, newest first, with dates.")]
    fn recent(&self, Parameters(p): Parameters<RecentParams>) -> ToolResult {
        let store = self.store()?;
        let recent = crate::context::recent(&store, &p.project, p.limit.unwrap_or(5)).map_err(|e| format!("{e:#}"))?;
        json(&recent)
    }

    #[tool(description = "The memory block for the start of a session: the project's summary, its \
recent sessions and the earlier sessions on the same subjects (or matching `query`), within a token budget, as Markdown.")]
    fn context(&self, Parameters(p): Parameters<ContextParams>) -> ToolResult {
        let store = self.store()?;
        let block = crate::context::build(&store, &p.project, p.limit_tokens.unwrap_or(1500), p.query.as_deref())
            .map_err(|e| format!("{e:#}"))?;
        Ok(crate::context::markdown(&block))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ragger", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "ragger keeps the memory of past conversations with coding agents. Use `context` at the start \
                 of work on a project, `search` to recall past decisions, `show_session` for details.",
            )
    }
}

/// Serve on stdin/stdout until the client closes the connection.
pub fn run(ctx: Ctx) -> anyhow::Result<Exit> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let service = Server::new(ctx)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow::anyhow!("MCP initialization failed: {e}"))?;
        service.waiting().await?;
        Ok(Exit::Ok)
    })
}
