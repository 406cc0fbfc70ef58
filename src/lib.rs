//! ragger: the memory of LLM conversations in one SQLite file.

pub mod capture;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod display;
pub mod embed;
pub mod exclude;
pub mod exit;
pub mod export;
pub mod forget;
pub mod housekeeping;
pub mod inspect;
pub mod llm;
pub mod lock;
pub mod paths;
pub mod perms;
pub mod pipeline;
pub mod redact;
pub mod runs;
pub mod search;
pub mod signals;
pub mod status;
pub mod store;
