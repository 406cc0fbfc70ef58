//! Configuration: TOML, layered defaults < /etc/ragger/config.toml < user
//! file < RAGGER_* environment < flags. Unknown keys are errors that name
//! the file and the key.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::display::one_line;
use crate::exit::{fail, Exit};
use crate::paths::Paths;

/// The commented example config; `ragger config default` prints it and
/// `packaging/config.example.toml` is the same text (a test checks).
pub const EXAMPLE: &str = include_str!("../packaging/config.example.toml");

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub database: Database,
    pub memory_model: MemoryModelConfig,
    pub embedder: EmbedderConfig,
    pub summaries: Summaries,
    pub housekeeping: Housekeeping,
    pub capture: Capture,
    pub search: Search,
    pub privacy: Privacy,
    pub import: Import,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Database {
    /// Empty: `ragger.db` in the data folder.
    pub path: Option<PathBuf>,
}

/// Which signals split a session into topic segments (`[summaries] segmenter`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Segmenter {
    /// The embedding, lexical and pause signals; the model's NO_MERGE
    /// verdict counts too when the backend is a server (not the small
    /// in-process default).
    #[default]
    Auto,
    /// The embedding, lexical and pause signals only.
    Embedding,
    /// The model's NO_MERGE verdict only (what ragger did before it had a
    /// segmenter; useless with a small model).
    Model,
    /// Never split by topic (a segment still rolls over at its size limit).
    Off,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    #[default]
    Local,
    Openai,
    Ollama,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Local => "local",
            Backend::Openai => "openai",
            Backend::Ollama => "ollama",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryModelConfig {
    pub backend: Backend,
    /// Base URL of an HTTP backend: `http://127.0.0.1:8080/v1` (openai) or
    /// `http://127.0.0.1:11434` (ollama).
    pub url: String,
    /// Model name sent to an HTTP backend.
    pub model: String,
    /// GGUF file for the local backend; empty: the default in the data folder.
    pub model_path: Option<PathBuf>,
    /// Name of the environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// PEM file of a private CA to trust for an https `url`, besides the
    /// usual web roots.
    pub ca_file: Option<PathBuf>,
    pub timeout_seconds: u64,
    pub retries: u32,
    /// Concurrent model calls: L2s, and folds of different sessions (the
    /// local backend decodes them together in one context; 1 stays its
    /// fastest setting on 2 cores, see BENCHMARKS.md).
    pub parallel: usize,
    /// Local backend threads; 0: the number of cores.
    pub threads: usize,
    pub context_tokens: u32,
    pub seed: u32,
    /// Failed calls per item before it is marked failed.
    pub max_attempts: u32,
}

impl Default for MemoryModelConfig {
    fn default() -> Self {
        MemoryModelConfig {
            backend: Backend::Local,
            url: "http://127.0.0.1:8080/v1".into(),
            model: String::new(),
            model_path: None,
            api_key_env: None,
            ca_file: None,
            timeout_seconds: 120,
            retries: 2,
            parallel: 1,
            threads: 0,
            context_tokens: 4096,
            seed: 42,
            max_attempts: 3,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EmbedderConfig {
    /// false: summaries stay unembedded and search is keyword-only.
    pub enabled: bool,
    /// libonnxruntime shared library; empty: ORT_DYLIB_PATH, then the data folder.
    pub runtime_path: Option<PathBuf>,
    /// Folder with model.onnx and tokenizer.json; empty: the data folder's.
    pub model_dir: Option<PathBuf>,
    pub batch_size: usize,
    /// Intra-op threads; 0: the number of cores.
    pub threads: usize,
}

impl Default for EmbedderConfig {
    fn default() -> Self {
        EmbedderConfig { enabled: true, runtime_path: None, model_dir: None, batch_size: 4, threads: 0 }
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Fold {
    #[default]
    EveryTurn,
    Threshold,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Summaries {
    pub fold: Fold,
    pub threshold_tokens: u64,
    pub min_episodes: u64,
    pub max_summary_tokens: u64,
    pub max_input_chars: usize,
    #[serde(serialize_with = "as_typed")]
    pub temperature: f32,
    pub max_tokens: u32,
    /// A fold whose sources, in their own words, are at most this many
    /// words long is written from them without the model: a summary of 3 to
    /// 5 sentences could not shorten them (0: every fold asks).
    pub short_fold_words: u64,
    /// A local model writes summaries only with the words of what it
    /// summarises and a closed list of linking words (a name or number its
    /// sources lack cannot be written whole). Servers ignore it.
    pub restrict_vocabulary: bool,
    /// A segment's summary (L3) is a digest: a topic line the model writes
    /// over the turns' notes (their L2s), then the notes that say the most
    /// within the segment's word budget, chosen again as it grows; a
    /// project's summary (L4) likewise, from its segments, newest first.
    /// False: the model rewrites both in its own prose at each fold.
    pub l3_digest: bool,
    /// In a digest (L3), the model rewrites each kept clause a speaker said
    /// in the first person singular ("Caroline: I went to …") as one
    /// third-person sentence ("Caroline went to …"), kept only when it
    /// passes the rewrite check (the person changed and nothing else);
    /// else the clause stays as said. Off by default: with SmolLM2-135M
    /// one rewrite in five passes, and the asks took backfill below 0.5
    /// turns a second (BENCHMARKS.md, stop 54).
    pub rewrite_clauses: bool,
    /// Which signals split a session into topic segments.
    pub segmenter: Segmenter,
    /// The topic signal a gap must reach to start a new segment (higher:
    /// fewer segments); it must also reach 0.75 of the strongest signal
    /// around the gap.
    #[serde(serialize_with = "as_typed")]
    pub segment_floor: f32,
    /// The topic signal at which a shift is overwhelming: it may end a
    /// segment shorter than `segment_min_turns`.
    #[serde(serialize_with = "as_typed")]
    pub segment_strong: f32,
    /// The fewest turns of a segment that a shift below `segment_strong`
    /// may end.
    pub segment_min_turns: usize,
    /// Weight of lexical novelty (shared words) beside semantic novelty.
    #[serde(serialize_with = "as_typed")]
    pub lexical_weight: f32,
    /// Added to the topic signal after a pause of summary_pause_minutes (less for shorter ones).
    #[serde(serialize_with = "as_typed")]
    pub pause_weight: f32,
    /// Added to the topic signal when the user announces a new topic
    /// ("different question") or opens with a greeting.
    #[serde(serialize_with = "as_typed")]
    pub cue_weight: f32,
    /// Added to the topic signal when the user asks a question of their
    /// own (a new request; an answer to the assistant never opens a segment).
    #[serde(serialize_with = "as_typed")]
    pub question_weight: f32,
}

impl Default for Summaries {
    fn default() -> Self {
        Summaries {
            fold: Fold::EveryTurn,
            threshold_tokens: 200,
            min_episodes: 5,
            max_summary_tokens: 800,
            max_input_chars: 3000,
            temperature: 0.2,
            max_tokens: 500,
            short_fold_words: 0,
            restrict_vocabulary: true,
            l3_digest: true,
            rewrite_clauses: false,
            segmenter: Segmenter::Auto,
            segment_floor: 3.4,
            segment_strong: 4.6,
            segment_min_turns: 3,
            lexical_weight: 0.4,
            pause_weight: 0.15,
            cue_weight: 1.0,
            question_weight: 3.0,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Housekeeping {
    pub summary_pause_minutes: u64,
}

impl Default for Housekeeping {
    fn default() -> Self {
        Housekeeping { summary_pause_minutes: 20 }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Capture {
    pub max_field_bytes: usize,
    /// Projects never captured (globs: `*`, `?`, `[...]`).
    pub exclude_projects: Vec<String>,
}

impl Default for Capture {
    fn default() -> Self {
        Capture { max_field_bytes: 1 << 20, exclude_projects: Vec::new() }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Privacy {
    /// Replace secrets by markers before a turn is stored (see `redact.rs`).
    pub redact: bool,
    /// More regexes to redact (the named group `s`, if any, is the secret).
    pub extra_patterns: Vec<String>,
    /// Regexes for values that look like secrets but are not.
    pub allow: Vec<String>,
}

impl Default for Privacy {
    fn default() -> Self {
        Privacy { redact: true, extra_patterns: Vec::new(), allow: Vec::new() }
    }
}

/// Agents' transcripts (`import`, `hook`, `context --cwd`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Import {
    /// Project names for working folders: a folder and everything under it
    /// gets the name (folders given one name are one project); other
    /// folders belong to their repository root.
    pub projects: std::collections::BTreeMap<String, String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Search {
    pub vector_weight: f64,
    pub keyword_weight: f64,
    /// Hits scoring below this are not shown; a query with none left
    /// answers "no match".
    pub min_score: f64,
}

impl Default for Search {
    fn default() -> Self {
        Search { vector_weight: 0.7, keyword_weight: 0.3, min_score: DEFAULT_MIN_SCORE }
    }
}

/// Between on-topic (0.35 and up) and off-topic (0.27 at most) best
/// scores measured on the demo session and the search fixture with the
/// real embedder: see docs/reference.md, "Search scores".
pub const DEFAULT_MIN_SCORE: f64 = 0.3;

/// Where a config layer came from, for `ragger config path`.
#[derive(Clone, Debug, Serialize)]
pub struct Source {
    pub path: PathBuf,
    pub exists: bool,
}

/// The merged config and the files that were consulted.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub config: Config,
    pub sources: Vec<Source>,
    /// Which layer set which key, for messages that say where a value came from.
    pub origins: Origins,
}

/// The layers that set keys, in order (later wins): a file path or
/// `environment variable RAGGER_…`, with the keys it set.
#[derive(Clone, Debug, Default)]
pub struct Origins(Vec<(String, toml::Table)>);

impl Origins {
    /// Where `[section] key` was set last, if any layer set it.
    pub fn of(&self, section: &str, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(_, t)| t.get(section).and_then(toml::Value::as_table).is_some_and(|s| s.contains_key(key)))
            .map(|(label, _)| label.as_str())
    }
}

pub const SYSTEM_FILE: &str = "/etc/ragger/config.toml";

/// The sections `capture` and the hooks need to store a turn in the right
/// database: where it is, what is excluded, what is redacted, how folders
/// map to projects.
pub const CAPTURE_SECTIONS: &[&str] = &["database", "capture", "privacy", "import"];

/// Load the layers. `explicit` is `--config`/`RAGGER_CONFIG`; when given it
/// replaces the user file and must exist.
pub fn load(paths: &Paths, explicit: Option<&Path>) -> Result<Loaded> {
    load_sections(paths, explicit, explicit.is_some(), None)
}

/// As [`load`], but an explicit file that does not exist yet is no error
/// (`ragger init` is about to write it).
pub fn load_maybe_absent(paths: &Paths, explicit: Option<&Path>) -> Result<Loaded> {
    load_sections(paths, explicit, false, None)
}

/// For `capture` and the hooks: a config mistake must not drop a turn. The
/// full config if it is valid; otherwise only [`CAPTURE_SECTIONS`] are read
/// (the rest stays at the defaults) and the full error comes back beside
/// them as a warning. A mistake inside those sections, or a file that is
/// not TOML at all, is still an error: the turn might go to the wrong
/// database or keep a secret.
pub fn load_for_capture(paths: &Paths, explicit: Option<&Path>) -> Result<(Loaded, Option<anyhow::Error>)> {
    match load(paths, explicit) {
        Ok(l) => Ok((l, None)),
        Err(e) if crate::exit::code_of(&e, &[]) == Exit::Config => {
            let partial = load_sections(paths, explicit, explicit.is_some(), Some(CAPTURE_SECTIONS))?;
            Ok((partial, Some(e)))
        }
        Err(e) => Err(e),
    }
}

fn load_sections(paths: &Paths, explicit: Option<&Path>, user_required: bool, only: Option<&[&str]>) -> Result<Loaded> {
    let keep = |section: &str| only.is_none_or(|o| o.contains(&section));
    let mut merged = toml::Table::new();
    let mut sources = Vec::new();
    let mut origins = Vec::new();
    let system = std::env::var_os("RAGGER_SYSTEM_CONFIG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(SYSTEM_FILE));
    let user = match explicit {
        Some(p) => p.to_path_buf(),
        None => paths.config_file(),
    };
    for (path, required) in [(system, false), (user, user_required)] {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let mut table: toml::Table = toml::from_str(&text)
                    .map_err(|e| fail(Exit::Config, format!("{}: {}", path.display(), one_line(&e.to_string()))))?;
                table.retain(|k, _| keep(k));
                // Validate the layer on its own so an unknown key names its file.
                validate(&table, &path)?;
                origins.push((path.display().to_string(), table.clone()));
                merge(&mut merged, table);
                sources.push(Source { path, exists: true });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
                sources.push(Source { path, exists: false });
            }
            Err(e) => return Err(fail(Exit::Config, format!("cannot read config file {}: {e}", path.display()))),
        }
    }
    apply_env(&mut merged, &keep, &mut origins)?;
    let config: Config = Config::deserialize(toml::Value::Table(merged))
        .map_err(|e| fail(Exit::Config, format!("environment: {}", one_line(&e.to_string()))))?;
    let origins = Origins(origins);
    check(&config, &origins)?;
    Ok(Loaded { config, sources, origins })
}

/// Parse a config text on its own (used by tests and `config show`).
pub fn parse(text: &str, origin: &Path) -> Result<Config> {
    let table: toml::Table = toml::from_str(text)
        .map_err(|e| fail(Exit::Config, format!("{}: {}", origin.display(), one_line(&e.to_string()))))?;
    validate(&table, origin)?;
    Ok(Config::deserialize(toml::Value::Table(table)).expect("validated"))
}

/// Settings that were replaced: (section, key, what to write instead).
const RETIRED: &[(&str, &str, &str)] = &[
    (
        "summaries",
        "segment_relative",
        "the segmenter no longer weighs a gap against the highest around: remove it, or set segment_floor (default 3.4; lower: more segments)",
    ),
    (
        "summaries",
        "segment_cut",
        "the segmenter no longer combines its signals into a probability: remove it, or set segment_floor (default 3.4; lower: more segments)",
    ),
    (
        "summaries",
        "segment_threshold",
        "the floor of the topic signal is now segment_floor, on a new scale: remove it, or set segment_floor (default 3.4; lower: more segments)",
    ),
    (
        "summaries",
        "answer_weight",
        "an answer to the assistant's question never starts a segment now: remove it",
    ),
];

fn validate(table: &toml::Table, path: &Path) -> Result<()> {
    for (section, key, instead) in RETIRED {
        if table.get(*section).and_then(|t| t.get(*key)).is_some() {
            return Err(fail(
                Exit::Config,
                format!("{}: [{section}] {key} is no longer a setting; {instead}", path.display()),
            ));
        }
    }
    Config::deserialize(toml::Value::Table(table.clone()))
        .map_err(|e| fail(Exit::Config, format!("{}: {}", path.display(), one_line(&e.to_string()))))?;
    Ok(())
}

/// An `f32` setting serialised as written (`temperature = 0.2`, not the
/// `0.20000000298023224` of its plain widening to `f64`).
fn as_typed<S: serde::Serializer>(x: &f32, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_f64(crate::display::plain_f64(*x))
}

fn merge(into: &mut toml::Table, from: toml::Table) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// `RAGGER_<SECTION>__<KEY>=value` sets any key (e.g.
/// `RAGGER_MEMORY_MODEL__BACKEND=openai`); values parse as TOML scalars,
/// falling back to a string. Empty variables count as unset.
fn apply_env(
    table: &mut toml::Table,
    keep: &dyn Fn(&str) -> bool,
    origins: &mut Vec<(String, toml::Table)>,
) -> Result<()> {
    for (name, value) in std::env::vars() {
        let Some(rest) = name.strip_prefix("RAGGER_") else { continue };
        let Some((section, key)) = rest.split_once("__") else { continue };
        if value.is_empty() {
            continue;
        }
        let section = section.to_ascii_lowercase();
        let key = key.to_ascii_lowercase();
        if !keep(&section) {
            continue;
        }
        let parsed = toml::from_str::<toml::Table>(&format!("v = {value}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or(toml::Value::String(value.clone()));
        let entry = table.entry(section.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match entry {
            toml::Value::Table(t) => {
                t.insert(key.clone(), parsed);
            }
            _ => return Err(fail(Exit::Config, format!("{name}: [{section}] is not a section"))),
        }
        let probe: toml::Table = [(section.clone(), table[&section].clone())].into_iter().collect();
        Config::deserialize(toml::Value::Table(probe))
            .map_err(|e| fail(Exit::Config, format!("environment variable {name}: {}", one_line(&e.to_string()))))?;
        let mut set = toml::Table::new();
        set.insert(section.clone(), toml::Value::Table([(key, toml::Value::Boolean(true))].into_iter().collect()));
        origins.push((format!("environment variable {name}"), set));
    }
    Ok(())
}

/// Values out of range are errors (exit 78) naming the key, the layer that
/// set it and the range.
fn check(c: &Config, origins: &Origins) -> Result<()> {
    let bad = |section: &str, key: &str, what: String| {
        let from = origins.of(section, key).map(|o| format!("{o}: ")).unwrap_or_default();
        Err(fail(Exit::Config, format!("{from}[{section}] {key} {what}")))
    };
    macro_rules! range {
        ($section:literal, $key:literal, $value:expr, $lo:expr, $hi:expr) => {{
            let v = $value;
            #[allow(unused_comparisons, clippy::manual_range_contains)]
            let inside = v >= $lo && v <= $hi;
            if !inside {
                return bad($section, $key, format!("must be between {} and {} (got {v})", $lo, $hi));
            }
        }};
    }
    let m = &c.memory_model;
    range!("memory_model", "parallel", m.parallel, 1, 64);
    range!("memory_model", "max_attempts", m.max_attempts, 1, 100);
    range!("memory_model", "threads", m.threads, 0, 1024);
    range!("memory_model", "timeout_seconds", m.timeout_seconds, 1, 86_400);
    range!("memory_model", "retries", m.retries, 0, 100);
    range!("memory_model", "context_tokens", m.context_tokens, 256, 1 << 20);
    let e = &c.embedder;
    range!("embedder", "batch_size", e.batch_size, 1, 4096);
    range!("embedder", "threads", e.threads, 0, 1024);
    let s = &c.summaries;
    range!("summaries", "max_input_chars", s.max_input_chars, 200, 1 << 24);
    range!("summaries", "temperature", s.temperature, 0.0, 2.0);
    range!("summaries", "max_tokens", s.max_tokens, 1, 1 << 20);
    range!("summaries", "max_summary_tokens", s.max_summary_tokens, 1, 1 << 20);
    range!("summaries", "short_fold_words", s.short_fold_words, 0, 1 << 20);
    range!("summaries", "min_episodes", s.min_episodes, 1, 100_000);
    range!("summaries", "segment_floor", s.segment_floor, 0.0, 20.0);
    range!("summaries", "segment_strong", s.segment_strong, 0.0, 20.0);
    range!("summaries", "segment_min_turns", s.segment_min_turns, 1, 1000);
    range!("summaries", "lexical_weight", s.lexical_weight, 0.0, 10.0);
    range!("summaries", "pause_weight", s.pause_weight, 0.0, 10.0);
    range!("summaries", "cue_weight", s.cue_weight, 0.0, 10.0);
    range!("summaries", "question_weight", s.question_weight, 0.0, 10.0);
    range!("housekeeping", "summary_pause_minutes", c.housekeeping.summary_pause_minutes, 0, 10_080);
    range!("capture", "max_field_bytes", c.capture.max_field_bytes, 16, 1 << 28);
    range!("search", "vector_weight", c.search.vector_weight, 0.0, 1.0);
    range!("search", "keyword_weight", c.search.keyword_weight, 0.0, 1.0);
    if c.search.vector_weight + c.search.keyword_weight <= 0.0 {
        return bad("search", "vector_weight", "and keyword_weight cannot both be 0".into());
    }
    if m.backend != Backend::Local && m.url.is_empty() {
        return bad("memory_model", "url", "is required for the openai and ollama backends".into());
    }
    Ok(())
}

impl Config {
    /// Threads for a component: 0 means the number of cores.
    pub fn threads(n: usize) -> usize {
        if n > 0 {
            n
        } else {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        }
    }
}

/// Read a config file for `config show` with context.
pub fn read_file(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retired_setting_says_what_replaced_it() {
        let e = parse("[summaries]\nsegment_relative = 0.7\n", Path::new("c.toml")).unwrap_err().to_string();
        assert!(
            e.starts_with("c.toml: [summaries] segment_relative is no longer a setting;")
                && e.contains("segment_floor"),
            "{e}"
        );
        // The keys of the fitted combination (issue 32) name what replaced them.
        for key in ["segment_cut", "segment_threshold"] {
            let e = parse(&format!("[summaries]\n{key} = 0.37\n"), Path::new("c.toml")).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("c.toml: [summaries] {key} is no longer a setting;"))
                    && e.contains("set segment_floor (default 3.4"),
                "{e}"
            );
        }
        let e = parse("[summaries]\nanswer_weight = 0.8\n", Path::new("c.toml")).unwrap_err().to_string();
        assert!(e.contains("answer_weight is no longer a setting; an answer"), "{e}");
    }

    #[test]
    fn config_show_prints_f32_settings_as_written() {
        let shown = toml::to_string_pretty(&Config::default()).unwrap();
        for line in [
            "temperature = 0.2\n",
            "segment_floor = 3.4\n",
            "segment_strong = 4.6\n",
            "segment_min_turns = 3\n",
            "lexical_weight = 0.4\n",
            "pause_weight = 0.15\n",
            "cue_weight = 1.0\n",
            "question_weight = 3.0\n",
        ] {
            assert!(shown.contains(line), "{line:?} missing from:\n{shown}");
        }
        let json = serde_json::to_value(Config::default()).unwrap();
        assert_eq!(json["summaries"]["temperature"].to_string(), "0.2");
        // And what is printed reads back to the same setting.
        let back: Config = toml::from_str(&shown).unwrap();
        assert_eq!(back.summaries, Config::default().summaries);
    }
}
