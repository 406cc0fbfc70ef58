//! The test suite: one binary. Most modules run the real `ragger` binary in
//! a temporary folder (`support::Env`); `embedder`, `http_backends`,
//! `local_model` and `redaction_corpus` call the library directly. Shared
//! pieces (fake model server, topic-scripted model, model files, fixtures)
//! are the kit's (tests/kit).

mod support;

mod agents;
mod capture;
mod config;
mod dbfaults;
mod docs;
mod embedder;
mod faults;
mod generated;
mod honest;
mod hostile;
mod housekeeping;
mod http_backends;
mod import;
mod import_faults;
mod local;
#[cfg(feature = "local")]
mod local_model;
mod mcp;
mod packaging;
mod pipeline;
mod privacy;
mod projects;
mod redaction_corpus;
mod search;
mod segment;
mod setup;
mod store;
mod terminal;
