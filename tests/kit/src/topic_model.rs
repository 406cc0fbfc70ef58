//! The topic-scripted fake model. Turns carry a topic tag like
//! `[topic:rust]`; the model writes L2s that keep the tag, merges
//! same-topic material, and answers NO_MERGE when the new material has a
//! topic the running summary lacks, so a backlog with scripted topic
//! changes produces real topic shifts. The tests assert its exact texts;
//! the standalone server's normal replies are the same (faults.rs).

use crate::fake_server::{Action, Recorded};

/// The reply to one request, as an [`Action`] (a handler for
/// `FakeServer::start`).
pub fn topic_reply(r: &Recorded) -> Action {
    Action::Text(reply_text(r))
}

/// The `[topic:X]` tags in a text, in order.
pub fn topics(s: &str) -> Vec<String> {
    s.split("[topic:").skip(1).filter_map(|t| t.split(']').next()).map(str::to_string).collect()
}

/// The text of the reply to one request.
pub fn reply_text(r: &Recorded) -> String {
    let prompt = r.prompt();
    if r.system().contains("one-sentence summaries") {
        let t = topics(&r.user());
        return format!("The user asked about [topic:{}].", t.first().map(String::as_str).unwrap_or("none"));
    }
    if let Some(rest) =
        prompt.contains("Running summary:").then(|| prompt.rsplit("Running summary:").next().unwrap_or(""))
    {
        let (running, new) = rest.split_once("\n\nNew ").unwrap_or((rest, ""));
        let have = topics(running);
        let incoming = topics(new);
        if incoming.iter().any(|t| !have.contains(t)) {
            return "NO_MERGE".to_string();
        }
        return format!(
            "The conversation continued about [topic:{}].",
            have.first().map(String::as_str).unwrap_or("none")
        );
    }
    // A fresh summary of several items, each topic named once (a digest
    // names its topic in its title and again in its notes).
    let mut t = topics(&prompt);
    let mut seen = std::collections::HashSet::new();
    t.retain(|x| seen.insert(x.clone()));
    format!("Summary of [topic:{}].", t.join("] and [topic:"))
}
