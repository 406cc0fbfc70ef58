//! `ragger mcp`: the MCP server on stdio (see `crate::mcp`).

use anyhow::Result;

use crate::cmd::Ctx;
use crate::exit::Exit;

pub fn run(ctx: Ctx) -> Result<Exit> {
    crate::mcp::serve(ctx)?;
    Ok(Exit::Ok)
}
