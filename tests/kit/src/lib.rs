//! ragger's test kit: one home for what the tests and the examples share.
//!
//! - [`fake_server`]: a fake OpenAI- and Ollama-compatible model server on
//!   127.0.0.1 that answers from a script and records every request.
//! - [`topic_model`]: the scripted model that follows `[topic:x]` tags
//!   (merges same-topic material, answers NO_MERGE on a new topic).
//! - [`faults`]: seeded random faults and delays for the standalone server
//!   (`examples/fake_server.rs --faults SEED`).
//! - [`models`]: where the real model files are (scripts/fetch-models.sh).
//! - [`fixtures`]: the repository's files and the tests' fixture files.
//!
//! The harness that runs the real binary (`Env`) stays in
//! `tests/cli/support/`: it needs the binary's path, which only an
//! integration test knows.

pub mod fake_server;
pub mod faults;
pub mod fixtures;
pub mod models;
pub mod topic_model;

pub use fake_server::{Action, Api, FakeServer, Recorded};
pub use topic_model::topic_reply;
