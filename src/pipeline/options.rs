//! Pass settings: the one place where the config becomes what a pass does.

use std::time::{Duration, Instant};

use crate::config::{Backend, Config, Fold, Segmenter, Summaries};

use super::segment;

#[derive(Clone, Debug)]
pub struct PassOptions {
    /// Lease owner of this process.
    pub owner: String,
    pub limit: Option<u64>,
    /// Restrict to one session (external id).
    pub session: Option<String>,
    /// Stop taking new work at this instant.
    pub deadline: Option<Instant>,
    pub summaries: Summaries,
    pub max_attempts: u32,
    pub parallel: usize,
    /// Sessions idle this long are folded regardless of the threshold gate.
    pub pause_ms: i64,
    /// The topic segmenter's settings.
    pub segment: segment::Settings,
    /// Log each boundary decision with its scores, and each rejected
    /// model reply with its reason, on stderr (`-v`).
    pub verbose: bool,
    /// Whether asking the model, or asking again after a rejected reply,
    /// still pays off in this pass, per level (shared by the pass's
    /// threads and clones).
    pub payoffs: std::sync::Arc<super::payoff::Payoffs>,
}

/// `[housekeeping] summary_pause_minutes` in milliseconds: how long a
/// session must be quiet to count as idle (folded regardless of the
/// threshold gate, closed by housekeeping, lagging when three times over).
pub fn pause_ms(config: &Config) -> i64 {
    config.housekeeping.summary_pause_minutes as i64 * 60_000
}

/// When a pass given `--max-seconds` stops taking new work (clap keeps the
/// value finite and non-negative).
pub fn deadline(max_seconds: Option<f64>) -> Option<Instant> {
    max_seconds.map(|s| Instant::now() + Duration::from_secs_f64(s))
}

impl PassOptions {
    /// The settings of a pass by `owner` (see `runs::owner`) over one
    /// session or all, from the config.
    pub fn from_config(config: &Config, owner: String, session: Option<String>, verbose: bool) -> Self {
        let s = &config.summaries;
        let pause_ms = pause_ms(config);
        PassOptions {
            owner,
            limit: None,
            session,
            deadline: None,
            max_attempts: config.memory_model.max_attempts,
            parallel: config.memory_model.parallel,
            pause_ms,
            segment: segment::Settings {
                mode: s.segmenter,
                floor: s.segment_floor,
                strong: s.segment_strong,
                min_turns: s.segment_min_turns,
                lexical_weight: s.lexical_weight,
                pause_weight: s.pause_weight,
                pause_ms,
                cue_weight: s.cue_weight,
                question_weight: s.question_weight,
                model_votes: match s.segmenter {
                    Segmenter::Model => true,
                    // A server-sized model judges topics well enough to be
                    // a vote; the small in-process default does not.
                    Segmenter::Auto => config.memory_model.backend != Backend::Local,
                    Segmenter::Embedding | Segmenter::Off => false,
                },
            },
            verbose,
            summaries: s.clone(),
            payoffs: Default::default(),
        }
    }

    /// The default config's settings with these summaries (unit tests).
    pub fn new(owner: String, summaries: Summaries) -> Self {
        let config = Config { summaries, ..Config::default() };
        PassOptions::from_config(&config, owner, None, false)
    }

    pub(crate) fn threshold(&self) -> bool {
        self.summaries.fold == Fold::Threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_minutes_become_one_pause_for_the_gate_and_the_segmenter() {
        let mut config = Config::default();
        config.housekeeping.summary_pause_minutes = 7;
        let o = PassOptions::from_config(&config, "me".into(), Some("s".into()), true);
        assert_eq!((o.pause_ms, o.segment.pause_ms), (420_000, 420_000));
        assert_eq!(o.session.as_deref(), Some("s"));
        let d = PassOptions::new("me".into(), Summaries::default());
        assert_eq!(d.pause_ms, pause_ms(&Config::default()));
    }

    #[test]
    fn model_votes_follow_the_segmenter_mode_and_backend() {
        let mut config = Config::default();
        let votes = |c: &Config| PassOptions::from_config(c, "me".into(), None, false).segment.model_votes;
        assert!(!votes(&config), "auto with the in-process model");
        config.memory_model.backend = Backend::Openai;
        assert!(votes(&config), "auto with a server");
        config.summaries.segmenter = Segmenter::Embedding;
        assert!(!votes(&config));
    }
}
