//! ragger: the memory of LLM conversations in one SQLite file.

pub mod capture;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod context;
pub mod embed;
pub mod exit;
pub mod housekeeping;
pub mod import;
pub mod inspect;
pub mod llm;
pub mod lock;
pub mod mcp;
pub mod paths;
pub mod pipeline;
pub mod runs;
pub mod search;
pub mod signals;
pub mod status;
pub mod store;
