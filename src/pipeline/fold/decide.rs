//! The fold decision: a plain function of the running summary, the new
//! items, the settings and a model (no SQL, no I/O but the model's calls),
//! unit-tested with a scripted model in `fold/tests.rs`.

use super::super::prompts::{self, Scope};
use super::super::segment::StartReason;
use super::super::{digest, grounding, tidy, verdict, PassOptions};
use crate::llm::{complete, MemoryModel, Message, ModelError, Request, Settled, Vocabulary};
use crate::store::fold::Written;
use crate::store::summaries::{Note, Running};

/// What a fold decided, before it is committed.
#[derive(Debug)]
pub enum Decision {
    /// The running summary absorbs the new material.
    Update { content: String, written: Written },
    /// A new running summary starts (completing the old one if any).
    Start { content: String, written: Written, reason: StartReason, score: Option<f32> },
    /// A bad reply with attempts left: count it, retry next run.
    Retry(String),
}

/// What a fold works from.
pub struct FoldInput<'a> {
    pub scope: Scope,
    pub run: Option<&'a Running>,
    pub items: &'a [&'a str],
    /// The model id of the items (a copy keeps it).
    pub copy_model: &'a str,
    pub attempts: i64,
    /// Set when the segmenter (or the size limit, or a first segment)
    /// already decided that the items start a new summary.
    pub start: Option<(StartReason, Option<f32>)>,
    /// What the items were written from, one per item (an L3 fold's
    /// turns): a reply may use their words too, the budget grows with
    /// them, and an item whose turn is filler is left out. Empty: the
    /// items themselves.
    pub sources: &'a [&'a str],
    /// Whether the model's decoding wrote each item (an L3 fold's L2s;
    /// empty: unknown, taken as not).
    pub by_model: &'a [bool],
    /// The turns the running summary already covers (an L3 fold): with
    /// the new ones, the segment's budget and a digest's notes. Of an L4
    /// fold: the segments the project digest covers.
    pub earlier: &'a [Note],
    /// When the work of each of `earlier` (unless the items start a new
    /// summary), then of each item, was done (an L4 fold): a project
    /// digest puts the newest first however its L3s were batched. Empty:
    /// the order given is oldest first.
    pub recency: &'a [i64],
}

impl FoldInput<'_> {
    /// The most words the summary may have.
    pub fn budget(&self) -> usize {
        match self.scope {
            Scope::Session => {
                let from = if self.sources.is_empty() { self.items } else { self.sources };
                let new: usize = from.iter().map(|t| digest::word_count(t)).sum();
                // A new segment's budget is its own turns', not the one it ends.
                let earlier = if self.start.is_some() { &[][..] } else { self.earlier };
                let covered: usize = earlier.iter().map(|n| digest::word_count(&n.turn)).sum();
                digest::l3_budget(covered + new)
            }
            Scope::Project => digest::L4_MAX_WORDS,
        }
    }

    /// The items that say something: those whose turn is not filler
    /// (thanks, greetings, "ok do it"), all of them if every one is.
    fn useful_items(&self) -> Vec<&str> {
        if self.sources.len() != self.items.len() {
            return self.items.to_vec();
        }
        let useful: Vec<&str> = self
            .items
            .iter()
            .zip(self.sources)
            .filter(|(_, turn)| !digest::is_filler(turn))
            .map(|(item, _)| *item)
            .collect();
        if useful.is_empty() {
            self.items.to_vec()
        } else {
            useful
        }
    }

    /// Whether every new item is filler.
    fn only_filler(&self) -> bool {
        self.sources.len() == self.items.len() && self.sources.iter().all(|t| digest::is_filler(t))
    }
}

/// Decide a fold: a plain function of the running summary, the new items,
/// the settings and a model (no SQL), so it is unit-tested with a scripted
/// model. Every reply passes the grounding check before it is used; a
/// reply that fails it is asked again once (warmer), then the summary is
/// written extractively from its sources. While the model's fold replies
/// of this level do not pay off in this pass ([`super::super::payoff`]),
/// most folds are written extractively without asking. Model errors other than a bad
/// reply stop the pass.
pub fn decide(
    model: Option<&dyn MemoryModel>,
    opts: &PassOptions,
    input: &FoldInput<'_>,
) -> Result<Decision, ModelError> {
    let s = &opts.summaries;
    let last_try = input.attempts + 1 >= opts.max_attempts as i64;
    let extractive = || Written {
        model: input.copy_model.to_string(),
        prompt_version: prompts::EXTRACTIVE_VERSION,
        origin: "extractive",
    };
    if let Some(content) = short_fold(opts, input) {
        return Ok(decided(input, content, extractive()));
    }
    // Filler adds nothing to a running summary: it stays as it was written.
    if let (None, Some(run)) = (input.start, input.run) {
        if input.only_filler() && !opts.segment.model_votes {
            let written = Written {
                model: run.model.clone(),
                prompt_version: run.prompt_version,
                origin: origin_name(&run.origin),
            };
            return Ok(Decision::Update { content: run.content.clone(), written });
        }
    }
    if input.scope == Scope::Session && s.l3_digest && !opts.segment.model_votes {
        return digest_segment(model, opts, input);
    }
    if input.scope == Scope::Project && s.l3_digest {
        return digest_project(model, opts, input);
    }
    let items = input.useful_items();
    let budget = input.budget();
    let examples = prompts::example_texts();
    // Every word a reply may rest on: the running summary, the items, and
    // what they were written from.
    let mut grounds: Vec<&str> = input.run.map(|r| r.content.as_str()).into_iter().collect();
    grounds.extend(items.iter().copied());
    grounds.extend(input.sources.iter().copied());
    let vocabulary = s.restrict_vocabulary.then(|| digest::vocabulary(&grounds));
    let fit = |chars_per_word: usize| (budget * chars_per_word).min(s.max_input_chars);
    // What a reply makes, sentence by sentence: its grounded sentences
    // within the budget, which must still keep something of each part.
    let own_words_only = s.restrict_vocabulary && model.is_some_and(|m| m.keeps_vocabulary());
    // A summary reports what was said, in the third person, and (decoded
    // with its sources' words) relates them as they do.
    let acceptance = std::sync::Arc::new(
        grounding::Acceptance::new(&grounds, input.sources, &examples, None)
            .own_words_only(own_words_only)
            .relations_checked(&grounds, own_words_only)
            .reported(&grounds),
    );
    let accept = |text: &str, running: Option<&str>| -> Result<String, String> {
        let kept = acceptance.keep(text);
        if kept.sentences.is_empty() {
            return Err(kept.dropped.first().cloned().unwrap_or_else(|| "the reply is empty".into()));
        }
        let fitted = digest::fit_sentences(&kept.sentences, budget);
        if let Some(why) = acceptance.fault_of_whole(&fitted) {
            return Err(why);
        }
        match grounding::covers(&fitted, running, &items) {
            Some(why) => Err(why),
            None => Ok(fitted),
        }
    };
    // One model call whose reply must pass the grounding check; Ok(None)
    // after two replies that did not.
    let grounded = |messages: Vec<Message>, running: Option<&str>, settled: Option<Settled>, verdict_ok: bool| {
        let model = model.ok_or_else(|| ModelError::Unavailable("no memory model for a fold that needs one".into()))?;
        let (asking, what) = match input.scope {
            Scope::Session => (&opts.payoffs.l3, "L3 fold"),
            Scope::Project => (&opts.payoffs.l4, "L4 fold"),
        };
        if !asking.ask_first(what, opts.verbose) {
            return Ok(None);
        }
        let mut why = String::new();
        let mut last = String::new();
        for (n, temperature) in [s.temperature, (s.temperature + 0.5).min(1.5)].into_iter().enumerate() {
            let retry = n > 0;
            if retry && !asking.ask_again(what, opts.verbose) {
                break;
            }
            let max_tokens = s.max_tokens.min(prompts::FOLD_REPLY_TOKENS).min(reply_tokens(budget));
            let req = Request {
                messages: messages.clone(),
                temperature,
                max_tokens,
                stop: vec![],
                settled: settled.clone(),
                vocabulary: vocabulary.clone().filter(|_: &Vocabulary| !verdict_ok),
            };
            let text = tidy::tidy(&complete(model, &req)?.text, None);
            if verdict::is_topic_shift(&text) {
                asking.record(retry, verdict_ok);
                if verdict_ok {
                    return Ok(Some((text, model.model_id())));
                }
                why = format!("the reply is the {} verdict, which was not asked for", verdict::TOKEN);
                continue;
            }
            let accepted = accept(&text, running);
            asking.record(retry, accepted.is_ok());
            match accepted {
                Ok(content) => return Ok(Some((content, model.model_id()))),
                Err(w) => (why, last) = (w, text),
            }
        }
        if opts.verbose && !why.is_empty() {
            eprintln!(
                "ragger: fold reply rejected, written extractively: {why}: {:?}",
                crate::llm::truncate_for_message(&last, 300)
            );
        }
        Ok::<_, ModelError>(None)
    };
    let settled = || Some(grounding::settle_kept(acceptance.clone(), usize::MAX, (budget / 20).clamp(1, 6) + 2, None));
    // A new summary from the items alone.
    let start = |reason: StartReason, score: Option<f32>| -> Result<Decision, ModelError> {
        if items.len() == 1 {
            let written =
                Written { model: input.copy_model.to_string(), prompt_version: prompts::COPY_VERSION, origin: "copy" };
            return Ok(Decision::Start { content: items[0].trim().to_string(), written, reason, score });
        }
        let written_from_sources = |reason| Decision::Start {
            content: extractive_within(None, &items, budget, fit(7)),
            written: extractive(),
            reason,
            score,
        };
        match grounded(prompts::fresh(input.scope, &items, s.max_input_chars, budget), None, settled(), false) {
            Ok(Some((content, model))) => {
                let written = Written { model, prompt_version: prompts::FRESH_VERSION, origin: "model" };
                Ok(Decision::Start { content, written, reason, score })
            }
            Ok(None) => Ok(written_from_sources(reason)),
            Err(ModelError::BadReply(_)) if last_try => Ok(written_from_sources(StartReason::FoldFailed)),
            Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
            Err(e) => Err(e),
        }
    };
    if let Some((reason, score)) = input.start {
        return start(reason, score);
    }
    let Some(run) = input.run else { return start(StartReason::First, None) };
    let votes = opts.segment.model_votes;
    // A reply that may be the topic verdict is written to the end.
    let settled = if votes { None } else { settled() };
    let merge = prompts::merge(input.scope, &run.content, &items, s.max_input_chars, votes, budget);
    match grounded(merge, Some(&run.content), settled, votes) {
        Ok(Some((text, _))) if verdict::is_topic_shift(&text) => start(StartReason::ModelNoMerge, None),
        Ok(Some((content, model))) => Ok(Decision::Update {
            content,
            written: Written { model, prompt_version: prompts::MERGE_VERSION, origin: "model" },
        }),
        Ok(None) => Ok(Decision::Update {
            content: extractive_within(Some(&run.content), &items, budget, fit(7)),
            written: extractive(),
        }),
        // Out of attempts: keep the material anyway, as a new segment.
        Err(ModelError::BadReply(_)) if last_try => start(StartReason::FoldFailed, None),
        Err(ModelError::BadReply(why)) => Ok(Decision::Retry(why)),
        Err(e) => Err(e),
    }
}

/// A segment digest (L3): a topic line the model writes, then, in turn
/// order, where the segment ended (and, without a topic line, what it was
/// about) and the clauses that say the most within the segment's budget,
/// chosen on equal terms from the notes of its turns (its L2s, those under
/// the running summary and the new ones, filler left out) and from the
/// turns' own words ([`digest::select_each_new`]); chosen again from all of
/// them at each fold, so the digest is rewritten as the segment grows,
/// never appended to. The row is the model's when the topic line and every
/// kept clause came out of its decoding. Without a topic line (no model,
/// or replies that fail the check) the clauses stand alone: extractive,
/// or a copy when the segment has one note and only its clauses are kept.
fn digest_segment(
    model: Option<&dyn MemoryModel>,
    opts: &PassOptions,
    input: &FoldInput<'_>,
) -> Result<Decision, ModelError> {
    let mut notes = gathered(input);
    let useful: Vec<_> = notes.iter().filter(|n| !digest::is_filler(n.1)).copied().collect();
    if !useful.is_empty() {
        notes = useful;
    }
    // The digest is made of the notes' clauses: "request — answer" and
    // "asked …; explained …" are two, and the filler half of a note
    // ("Melanie: Wow, that's cool!") is left out.
    // A question that names nothing ("Melanie: Care to fill me in?",
    // "What's the best part you remember from it?") asks the other to
    // talk: what they said is the fact, and the question no clause of it.
    let mut units: Vec<(String, usize, bool)> = Vec::new();
    for (i, n) in notes.iter().enumerate() {
        units.extend(digest::clauses(n.0).into_iter().filter(|c| !digest::asks_only(c)).map(|c| (c, i, false)));
    }
    if units.is_empty() {
        units = notes.iter().enumerate().map(|(i, n)| (as_sentence(n.0), i, false)).collect();
    }
    // Each side of a transcript without names told as theirs before the
    // clauses are measured: the words a report adds ("The user asked
    // whether …") count against the budget.
    let mut told = tell_sides(&mut units, &notes);
    let texts: Vec<&str> = units.iter().map(|u| u.0.as_str()).collect();
    let turns: Vec<&str> = notes.iter().map(|n| n.1).collect();
    let note_texts: Vec<&str> = notes.iter().map(|n| n.0).collect();
    let budget = input.budget();
    let topic = topic_line(model, opts, Scope::Session, &note_texts, &turns)?;
    let room = budget.saturating_sub(topic.as_ref().map_or(0, |(t, _)| digest::word_count(t)));
    let said = topic.as_ref().map_or("", |(t, _)| t.as_str());
    // The body's words: what the notes alone would take, and more up to a
    // summary's share of the turns' words, within the room: the digest
    // never becomes the turns again.
    let by_notes: usize = digest::select_notes(&texts, room, said).iter().map(|&k| digest::word_count(texts[k])).sum();
    let turn_words: usize = turns.iter().map(|t| digest::word_count(t)).sum();
    let topic_words = budget - room;
    let limit = room.min(((turn_words as f32 * digest::L3_SHARE) as usize).saturating_sub(topic_words).max(by_notes));
    // Where the segment ended (the fix, the decision: its last useful
    // note's last statement) is kept first; then the notes' clauses and
    // the turns' own clauses are chosen on equal terms by what they add
    // per word, so a note keeps its place where it says as much for its
    // length as what it was written from, and a clause the note lost (the
    // model's L2 of "Run restic check weekly …" kept "/tmp" and "diff -r"
    // but not "restic check") comes in where it says more. A question of
    // a turn is what was asked, not what came of it.
    let last = notes.len().saturating_sub(1);
    let outcome = (0..units.len()).rev().find(|&k| units[k].1 == last && digest::is_statement(&units[k].0));
    // Without a topic line, what the segment was about is its first
    // note's opening (the request, the problem), kept as well.
    // Small talk ("Long time no talk!") is no opening: where the first
    // note is nothing else, the first turn's own first clause of substance
    // is (among the turn's clauses, added below).
    let opens = |unit: &(String, usize, bool)| unit.1 == 0 && !digest::says_nothing(&unit.0);
    let note_opening = units.iter().position(opens);
    // A follow-up ("Do it for the whole codebase.") is no clause of its
    // own: it points back, and its note already reads it with the request
    // it follows; standing alone after its answer it names nothing.
    let own: Vec<(String, usize)> = notes
        .iter()
        .enumerate()
        .flat_map(|(i, n)| {
            let said = match n.1.split_once('\n') {
                Some((asked, rest)) if digest::is_follow_up(asked) => rest,
                _ => n.1,
            };
            digest::turn_clauses(said).into_iter().map(move |c| (c, i))
        })
        .filter(|(c, _)| !c.trim_end().ends_with('?'))
        .collect();
    let from = units.len();
    units.extend(own.into_iter().map(|(c, i)| (c, i, true)));
    told.extend(tell_sides(&mut units[from..], &notes));
    let opening = note_opening.or_else(|| units[from..].iter().position(opens).map(|k| from + k));
    let ends: Vec<usize> =
        if topic.is_some() { outcome.into_iter().collect() } else { opening.into_iter().chain(outcome).collect() };
    let choose = |limit: usize| -> Vec<usize> {
        let mut kept: Vec<usize> = Vec::new();
        let mut used = 0;
        for &k in &ends {
            let words = digest::word_count(&units[k].0);
            if !kept.contains(&k) && used + words <= limit {
                kept.push(k);
                used += words;
            }
        }
        let pool: Vec<usize> = (0..units.len()).filter(|k| !kept.contains(k)).collect();
        let pooled: Vec<&str> = pool.iter().map(|&k| units[k].0.as_str()).collect();
        // A turn's own clause is there for what the notes lost, not to say
        // what they say again in other words: half its weight must be new.
        let shares: Vec<f32> = pool.iter().map(|&k| if units[k].2 { 0.5 } else { 0.25 }).collect();
        let covered =
            std::iter::once(said).chain(kept.iter().map(|&k| units[k].0.as_str())).collect::<Vec<_>>().join(" ");
        kept.extend(digest::select_each_new(&pooled, limit - used, &covered, &shares).into_iter().map(|j| pool[j]));
        if kept.is_empty() && !units.is_empty() {
            kept.push(0);
        }
        // Units in turn order, a note's own clauses before its turn's.
        kept.sort_by_key(|&k| (units[k].1, units[k].2, k));
        kept
    };
    // The body as written: the two pieces of a sentence kept side by side
    // said whole, a frame or a speaker said once.
    let sources = |k: usize| vec![notes[units[k].1].0, notes[units[k].1].1];
    let written = |kept: &[usize], texts: &[&str]| -> Vec<String> {
        let from: Vec<Vec<&str>> = kept.iter().map(|&k| sources(k)).collect();
        let whole = digest::rejoined_pieces(texts, &from);
        let whole: Vec<&str> = whole.iter().map(String::as_str).collect();
        digest::without_repeated_speakers(&digest::without_repeated_frames(&whole))
    };
    let write = |kept: &[usize]| -> Vec<String> {
        let texts: Vec<&str> = kept.iter().map(|&k| units[k].0.as_str()).collect();
        written(kept, &texts)
    };
    let words_of = |body: &[String]| body.iter().map(|c| digest::word_count(c)).sum::<usize>();
    let mut kept = choose(limit);
    let mut body = write(&kept);
    // The words the written form saves go to more clauses: chosen again
    // with the limit raised by them, less what the last try overshot,
    // until the written body fits.
    let mut extra = limit.saturating_sub(words_of(&body));
    while extra > 0 {
        let more = choose(limit + extra);
        let written = write(&more);
        let words = words_of(&written);
        if words <= limit {
            (kept, body) = (more, written);
            break;
        }
        extra = extra.saturating_sub(words - limit);
    }
    // What a speaker said in the first person, in the third person: where
    // only the person changes ("I went" → "Caroline went"), without the
    // model; else, when asked for, where the model's rewrite passes its
    // check (then the model's text). Each is (text, by the model). Only a
    // clause its speaker says alone is told so: beside another of theirs
    // ("Caroline: I went … We meet on Tuesdays.") or before one that goes
    // on without a label ("… It's been a great way to express myself."),
    // the label said once reads better and costs less.
    let by_model = |k: usize| !units[k].2 && notes[units[k].1].2;
    let speaker = |i: usize| digest::named_speaker(&units[kept[i]].0).map(|(who, _)| who);
    let alone = |i: usize| {
        let before_too = i > 0 && speaker(i - 1).is_some() && speaker(i - 1) == speaker(i);
        let goes_on = i + 1 < kept.len() && speaker(i + 1).is_none_or(|next| Some(next) == speaker(i));
        !before_too && !goes_on
    };
    let mut rewritten: Vec<Option<(String, bool)>> = vec![None; kept.len()];
    for (i, &k) in kept.iter().enumerate() {
        if by_model(k) {
            continue;
        }
        // A side without a name was told before the choice.
        if told[k].is_some() {
            continue;
        }
        let Some((who, said)) = digest::named_speaker(&units[k].0).filter(|_| alone(i)) else {
            continue;
        };
        if let Some(text) = grounding::in_third_person(who, said) {
            rewritten[i] = Some((text, false));
        } else if let Some(model) = model.filter(|_| opts.summaries.rewrite_clauses) {
            if grounding::speaks_for_itself(said) {
                rewritten[i] = rewrite_clause(model, opts, who, said)?.map(|text| (text, true));
            }
        }
    }
    let body = if rewritten.iter().any(Option::is_some) {
        let texts: Vec<&str> = kept
            .iter()
            .zip(&rewritten)
            .map(|(&k, r)| r.as_ref().map_or(units[k].0.as_str(), |(text, _)| text.as_str()))
            .collect();
        written(&kept, &texts)
    } else {
        body
    };
    let body = digest::fit_sentences(&body, room);
    let all_model = kept.iter().zip(&rewritten).all(|(&k, r)| r.as_ref().is_some_and(|r| r.1) || by_model(k));
    let single = notes.len() == 1
        && kept.iter().all(|&k| !units[k].2 && told[k] != Some(true))
        && rewritten.iter().all(Option::is_none);
    let (content, mut written) = digest_written(topic, body, all_model, single, input.copy_model);
    if written.prompt_version == prompts::TOPIC_VERSION && rewritten.iter().flatten().any(|r| r.1) {
        written.prompt_version = prompts::REWRITE_VERSION;
    }
    Ok(decided(input, content, written))
}

/// A project digest (L4): a topic line the model writes over the
/// project's segments, then each segment's own summary cut to what it was
/// about, where it ended and the sentences between that name the most
/// facts ([`digest::select_named`]), newest first, each held
/// to three fifths of its words ([`digest::l4_part_budget`]) and to half of the
/// words still left (at least 25), chosen again from every segment the
/// project covers at each fold: what is current comes first, the whole
/// stays within [`digest::L4_MAX_WORDS`] however long the history, and it
/// is shorter than the segments' summaries it is made from: rewritten,
/// never their concatenation. The row is the model's when the topic line
/// and every segment text it keeps came out of the model's decoding.
fn digest_project(
    model: Option<&dyn MemoryModel>,
    opts: &PassOptions,
    input: &FoldInput<'_>,
) -> Result<Decision, ModelError> {
    let segments: Vec<(&str, bool)> =
        newest_first(input).into_iter().map(|(text, _, by_model)| (text, by_model)).collect();
    let texts: Vec<&str> = segments.iter().map(|s| s.0).collect();
    // The topic is asked of the newest segments' openings (their own
    // topic lines, for digests), as much as the prompt holds.
    let openings: Vec<String> = texts.iter().take(12).map(|t| digest::clip_words(t, 24)).collect();
    let openings: Vec<&str> = openings.iter().map(String::as_str).collect();
    let mut topic = topic_line(model, opts, Scope::Project, &openings, &texts)?;
    // A project topic that one segment's summary already says word for
    // word (SmolLM2 copies the newest segment's topic line) would be said
    // twice; and one whose words only one segment has names one subject
    // of several ("The user asked how to set up a new server's /srv
    // folder" over the demo's backups and bread).
    if topic.as_ref().is_some_and(|(t, _)| segments.len() > 1 && names_one_of(t, &texts)) {
        topic = None;
    }
    let mut room = input.budget().saturating_sub(topic.as_ref().map_or(0, |(t, _)| digest::word_count(t)));
    let mut parts: Vec<String> = Vec::new();
    let mut all_model = true;
    for (text, by_model) in &segments {
        if room < 8 {
            break;
        }
        let share = (room / 2).max(25).min(room).min(digest::l4_part_budget(digest::word_count(text)));
        // A sentence keeps its speaker's label when taken alone ("Since I
        // was 17 or so." is Caroline's).
        let sentences: Vec<String> =
            digest::with_speakers(&digest::summary_sentences(text)).iter().map(|s| as_sentence(s)).collect();
        let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
        // Its first sentence says what it was about (its topic line, for a
        // digest) and its last statement where it ended (the fix, the
        // decision; not a question, a goodbye or praise); then, in the
        // words left, the facts between.
        if refs.is_empty() {
            continue;
        }
        // Where the segment opens on a remark or on the piece of a
        // sentence ("…the progress I've made."), its first statement that
        // stands on its own says what it was about.
        let first = (0..refs.len()).find(|&k| opens_a_part(refs[k])).unwrap_or(0);
        let last = (first + 1..refs.len()).rev().find(|&k| digest::is_statement(refs[k])).unwrap_or(first);
        let ends: Vec<usize> = if last == first { vec![first] } else { vec![first, last] };
        let said = ends.iter().map(|&k| refs[k]).collect::<Vec<_>>().join(" ");
        let left = share.saturating_sub(digest::word_count(&said));
        // A question between is what was asked, not what came of it.
        let middle: Vec<usize> = (first + 1..last).filter(|&k| !digest::is_question(refs[k])).collect();
        let candidates: Vec<&str> = middle.iter().map(|&k| refs[k]).collect();
        let mut kept = vec![first];
        kept.extend(digest::select_named(&candidates, left, &said).into_iter().map(|k| middle[k]));
        kept.extend(ends.get(1));
        // An answer kept without the question before it loses what only
        // answered that ("Two: billing/invoices.py opens …").
        let asked = |k: usize| k > 0 && digest::is_question(refs[k - 1]) && !kept.contains(&(k - 1));
        let chosen: Vec<String> = kept
            .iter()
            .map(|&k| match digest::without_answer_lead(&sentences[k]).filter(|_| asked(k)) {
                Some(rest) => rest,
                None => sentences[k].clone(),
            })
            .collect();
        let part = digest::fit_sentences(&digest::without_repeated_speakers(&chosen), share);
        room = room.saturating_sub(digest::word_count(&part));
        all_model &= *by_model;
        parts.push(part);
    }
    // One segment kept whole is a copy of it; cut, it is extractive.
    let single = segments.len() == 1 && parts.first().is_some_and(|p| p.as_str() == segments[0].0.trim());
    let (content, written) = digest_written(topic, parts.join(" "), all_model, single, input.copy_model);
    Ok(decided(input, content, written))
}

/// Whether a segment summary's sentence may open its part of a project
/// summary: a statement ([`digest::is_statement`]) that is no piece of a
/// sentence cut at "…" (after its speaker's label, if any).
fn opens_a_part(sentence: &str) -> bool {
    let said = digest::without_label(sentence);
    digest::is_statement(sentence) && !said.trim_start().starts_with('…')
}

/// Whether a project topic is one segment's: one summary says it word for
/// word, or its content words are in one summary only.
fn names_one_of(topic: &str, segments: &[&str]) -> bool {
    let words = grounding::content_stems(topic);
    segments.iter().any(|s| s.contains(topic))
        || segments.iter().filter(|s| !grounding::content_stems(s).is_disjoint(&words)).count() <= 1
}

/// What a digest is chosen from, in order: the parts the running summary
/// covers (unless the items start a new one) and the new items, each with
/// what it was written from and whether the model's decoding wrote it;
/// empty ones left out.
fn gathered<'a>(input: &'a FoldInput<'a>) -> Vec<(&'a str, &'a str, bool)> {
    let mut parts = gathered_all(input);
    parts.retain(|p| !p.0.is_empty());
    parts
}

/// Each clause of a transcript without names (an agent's session) told as
/// its side's, where the side can be told ([`digest::unlabelled_speaker`]):
/// "My sourdough bread comes out dense." is the user's, "I set EMAIL_PORT
/// …" the assistant's; the user's "Commit it …" and "Are there other
/// places …?" as what they asked for. A clause the model wrote is left as
/// it is. Per clause: None where no side was told, else whether its words
/// changed (a clause whose voice cannot be told otherwise stays as said).
fn tell_sides(units: &mut [(String, usize, bool)], notes: &[(&str, &str, bool)]) -> Vec<Option<bool>> {
    units
        .iter_mut()
        .map(|(clause, i, of_turn)| {
            let (note, turn, by_model) = notes[*i];
            if by_model && !*of_turn {
                return None;
            }
            let who = digest::unlabelled_speaker(clause, note, turn, *of_turn)?;
            let user = who == "the user";
            let text = grounding::in_third_person(who, clause)
                .or_else(|| grounding::as_request(who, clause).filter(|_| user))
                .or_else(|| grounding::as_question(who, clause).filter(|_| user));
            Some(text.map(|text| *clause = text).is_some())
        })
        .collect()
}

/// [`gathered`] with the empty ones too.
fn gathered_all<'a>(input: &'a FoldInput<'a>) -> Vec<(&'a str, &'a str, bool)> {
    let earlier = if input.start.is_some() { &[][..] } else { input.earlier };
    let mut parts: Vec<(&str, &str, bool)> =
        earlier.iter().map(|n| (n.l2.trim(), n.turn.as_str(), n.by_model)).collect();
    for (i, item) in input.items.iter().enumerate() {
        let source = input.sources.get(i).copied().unwrap_or(item);
        parts.push((item.trim(), source, input.by_model.get(i).copied().unwrap_or(false)));
    }
    parts
}

/// [`gathered`] newest first: by `recency` where it is given (an L3
/// completed later can have been folded before one whose work is newer),
/// else in reverse of the order given.
fn newest_first<'a>(input: &'a FoldInput<'a>) -> Vec<(&'a str, &'a str, bool)> {
    let earlier = if input.start.is_some() { 0 } else { input.earlier.len() };
    let recency = if input.recency.len() == input.earlier.len() + input.items.len() {
        &input.recency[input.earlier.len() - earlier..]
    } else {
        &[][..]
    };
    let mut parts: Vec<(i64, usize, (&str, &str, bool))> = gathered_all(input)
        .into_iter()
        .enumerate()
        .map(|(k, p)| (recency.get(k).copied().unwrap_or(0), k, p))
        .collect();
    parts.retain(|p| !p.2 .0.is_empty());
    parts.sort_by_key(|p| std::cmp::Reverse((p.0, p.1)));
    parts.into_iter().map(|p| p.2).collect()
}

/// A digest's text and who wrote it: the model's when it wrote the topic
/// line and every kept part; without a topic line the parts stand alone,
/// extractive, or a copy of a single source.
fn digest_written(
    topic: Option<(String, String)>,
    body: String,
    all_model: bool,
    single: bool,
    copy_model: &str,
) -> (String, Written) {
    match topic {
        Some((topic, model_id)) => {
            let origin = if all_model { "model" } else { "extractive" };
            (format!("{topic}: {body}"), Written { model: model_id, prompt_version: prompts::TOPIC_VERSION, origin })
        }
        None => {
            let (prompt_version, origin) =
                if single { (prompts::COPY_VERSION, "copy") } else { (prompts::EXTRACTIVE_VERSION, "extractive") };
            (body, Written { model: copy_model.to_string(), prompt_version, origin })
        }
    }
}

/// What a fold decided with its content: a new summary when the items
/// start one, else the running one updated.
fn decided(input: &FoldInput<'_>, content: String, written: Written) -> Decision {
    match (input.start, input.run) {
        (Some((reason, score)), _) => Decision::Start { content, written, reason, score },
        (None, None) => Decision::Start { content, written, reason: StartReason::First, score: None },
        (None, Some(_)) => Decision::Update { content, written },
    }
}

/// A note as a sentence of the digest: ending with its stop.
fn as_sentence(note: &str) -> String {
    let note = note.trim();
    if note.ends_with(['.', '!', '?', '…']) {
        note.to_string()
    } else {
        format!("{note}.")
    }
}

/// The topic line of a digest and the model that wrote it: a short title
/// of the kept notes, decoded with their words (and the turns') only, that
/// passes the grounding check; asked again once, warmer. None without a
/// model, while the L3 replies do not pay off in this pass, or when both
/// replies fail. Model errors other than a bad reply stop the pass.
fn topic_line(
    model: Option<&dyn MemoryModel>,
    opts: &PassOptions,
    scope: Scope,
    notes: &[&str],
    turns: &[&str],
) -> Result<Option<(String, String)>, ModelError> {
    let Some(model) = model else { return Ok(None) };
    let s = &opts.summaries;
    let (asking, what) = match scope {
        Scope::Session => (&opts.payoffs.l3, "L3 topic"),
        Scope::Project => (&opts.payoffs.l4, "L4 topic"),
    };
    if notes.is_empty() || !asking.ask_first(what, opts.verbose) {
        return Ok(None);
    }
    let grounds: Vec<&str> = notes.iter().chain(turns).copied().collect();
    let examples = prompts::example_texts();
    let own_words_only = s.restrict_vocabulary && model.keeps_vocabulary();
    // Held to the segment's words, a line can still join them as the
    // segment does not ("What a night's long, but in the last 20-25
    // minutes"): the relation check of an L2, over the notes and turns.
    let acceptance = grounding::Acceptance::new(&grounds, &[], &examples, None)
        .own_words_only(own_words_only)
        .relations_checked(&grounds, own_words_only);
    let vocabulary = s.restrict_vocabulary.then(|| digest::vocabulary(&grounds));
    let mut why = String::new();
    for (n, temperature) in [s.temperature, (s.temperature + 0.5).min(1.5)].into_iter().enumerate() {
        let retry = n > 0;
        if retry && !asking.ask_again(what, opts.verbose) {
            break;
        }
        let req = Request {
            messages: prompts::topic(notes, s.max_input_chars),
            temperature,
            max_tokens: s.max_tokens.min(prompts::TOPIC_REPLY_TOKENS),
            stop: vec!["\n".into()],
            settled: None,
            vocabulary: vocabulary.clone(),
        };
        // A reply the transport could not read (cut, not JSON) is a bad
        // reply like one that fails the check, not a reason to stop the pass.
        let reply = match complete(model, &req) {
            Ok(r) => r.text,
            Err(ModelError::BadReply(w)) => {
                asking.record(retry, false);
                why = w;
                continue;
            }
            Err(e) => return Err(e),
        };
        let topic = digest::topic_of(&reply)
            .and_then(|t| match acceptance.fault(&t) {
                Some(why) => Err(why),
                None => Ok(t),
            })
            .and_then(|t| match scope {
                Scope::Session if !names_the_opening(&t, notes[0]) => {
                    Err("the topic line names nothing the segment opened with".to_string())
                }
                _ => Ok(t),
            });
        asking.record(retry, topic.is_ok());
        match topic {
            Ok(t) => return Ok(Some((t, model.model_id()))),
            Err(w) => why = format!("{w}: {reply:?}"),
        }
    }
    if opts.verbose {
        eprintln!("ragger: topic line rejected, the digest has none: {}", crate::llm::truncate_for_message(&why, 300));
    }
    Ok(None)
}

/// Whether a segment's topic line names something its first note does.
/// The line stands in for that note's request in the digest (which then
/// opens with the title, not with what was asked), so a title made of
/// later turns' words alone ("Add a fallback to the Python version, and
/// it now works" over a segment that opened with "The CI job takes 11
/// minutes") would lose what the segment was about.
fn names_the_opening(topic: &str, opening: &str) -> bool {
    !grounding::content_stems(topic).is_disjoint(&grounding::content_stems(opening))
}

/// A rewrite is worth less than a note (the clause as said stays in the
/// digest either way), so asking for rewrites goes on only while one in
/// this many passes: SmolLM2-135M's pass for about one LoCoMo clause in
/// five, Qwen2.5-Coder-0.5B's for about half (BENCHMARKS.md, stop 54).
const REWRITE_PAYOFF: u32 = 3;

/// A clause `who` said in the first person, rewritten by the model as one
/// third-person sentence that names them, when the rewrite passes the
/// grounding check and the rewrite check ([`grounding::rewrite_fault`]);
/// None when it does not (the clause stays as said), or while rewrites do
/// not pay off in this pass. Asked once: a clause that stays as said loses
/// nothing. Model errors other than a bad reply stop the pass.
fn rewrite_clause(
    model: &dyn MemoryModel,
    opts: &PassOptions,
    who: &str,
    said: &str,
) -> Result<Option<String>, ModelError> {
    let s = &opts.summaries;
    let asking = &opts.payoffs.rewrite;
    if !asking.ask_first_while("L3 rewrite", opts.verbose, REWRITE_PAYOFF) {
        return Ok(None);
    }
    let req = Request {
        messages: prompts::rewrite(who, said, s.max_input_chars),
        temperature: s.temperature,
        max_tokens: s.max_tokens.min(prompts::REWRITE_REPLY_TOKENS),
        stop: vec!["\n".into()],
        settled: None,
        vocabulary: s.restrict_vocabulary.then(|| digest::rewrite_vocabulary(who, said)),
    };
    let reply = match complete(model, &req) {
        Ok(r) => tidy::tidy(&r.text, None),
        Err(ModelError::BadReply(why)) => {
            asking.record(false, false);
            if opts.verbose {
                eprintln!("ragger: rewrite not read, the clause stays as said: {why}");
            }
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let held = s.restrict_vocabulary && model.keeps_vocabulary();
    let fault = grounding::rewrite_refused(who, said, &reply, &prompts::example_texts(), held);
    asking.record(false, fault.is_none());
    match fault {
        None => Ok(Some(as_sentence(&reply))),
        Some(why) => {
            if opts.verbose {
                eprintln!(
                    "ragger: rewrite rejected, the clause stays as said: {why}: {:?}",
                    crate::llm::truncate_for_message(&reply, 300)
                );
            }
            Ok(None)
        }
    }
}

/// The extractive fold of the running summary and the items within
/// `budget` words: each part cut to its share first, so every item keeps
/// its lead rather than the first ones keeping everything.
fn extractive_within(running: Option<&str>, items: &[&str], budget: usize, max_chars: usize) -> String {
    let parts: Vec<&str> = running.into_iter().chain(items.iter().copied()).collect();
    let cut = digest::share_budget(&parts, budget);
    let (running, items) = match running {
        Some(_) => (Some(cut[0].as_str()), &cut[1..]),
        None => (None, &cut[..]),
    };
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let text = grounding::extractive_fold(running, &items, max_chars);
    digest::fit_sentences(
        &crate::pipeline::tidy::sentences(&text).iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        budget,
    )
}

/// Reply tokens for a summary of `budget` words: about 1.5 tokens a word
/// with room for the sentence that crosses the budget.
pub(super) fn reply_tokens(budget: usize) -> u32 {
    (budget * 3 / 2 + 40) as u32
}

/// A stored origin as the name a new write uses.
fn origin_name(origin: &str) -> &'static str {
    match origin {
        "extractive" => "extractive",
        "copy" => "copy",
        _ => "model",
    }
}

/// The fold written from its sources' own words, without the model, when
/// they are already as short as the summary of 3 to 5 sentences a fold asks
/// for: the extractive fold of the running summary (for a merge) and the
/// new items has at most `[summaries] short_fold_words` words (0: never).
/// None for a single item that starts a summary (it is copied) and for a
/// merge whose reply would also carry the model's topic vote.
pub fn short_fold(opts: &PassOptions, input: &FoldInput<'_>) -> Option<String> {
    let limit = opts.summaries.short_fold_words as usize;
    let running = match (input.start, input.run) {
        _ if limit == 0 => return None,
        (Some(_), _) | (None, None) if input.items.len() == 1 => return None,
        (Some(_), _) | (None, None) => None,
        (None, Some(_)) if opts.segment.model_votes => return None,
        (None, Some(run)) => Some(run.content.as_str()),
    };
    let text = grounding::extractive_fold(running, input.items, opts.summaries.max_input_chars);
    (text.split_whitespace().count() <= limit.min(input.budget())).then_some(text)
}
