//! Integration tests: the real `ragger` binary in a temporary folder.

mod support;

mod capture;
mod config;
mod generated;
mod housekeeping;
mod packaging;
mod pipeline;
mod search;
mod store;
