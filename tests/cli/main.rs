//! Integration tests: the real `ragger` binary in a temporary folder.

mod support;

mod capture;
mod config;
mod housekeeping;
mod pipeline;
mod store;
