//! Integration tests: the real `ragger` binary in a temporary folder.

mod support;

mod capture;
mod config;
mod dbfaults;
mod faults;
mod generated;
mod honest;
mod hostile;
mod housekeeping;
mod import;
mod local;
mod mcp;
mod packaging;
mod pipeline;
mod privacy;
mod search;
mod segment;
mod setup;
mod store;
mod terminal;
