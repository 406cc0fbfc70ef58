//! Summaries written without the model, from their sources' own words:
//! an L2 from its turn, a fold from the running summary and the new items.

use std::collections::HashSet;

use super::loops::{loop_words, LoopGuard};
use super::rewrite::is_first_person;
use super::{content_words, is_stop_word, stem, terms, words};
use crate::pipeline::digest::{
    asks_only, clip_words, is_aside, is_filler, says_nothing, without_small_talk_lead, L2_MAX_WORDS,
};

/// An L2 written without the model: the user's request and the sentence of
/// the reply that answers it best, in at most [`L2_MAX_WORDS`] words
/// ("request — answer"). Tool-call lines and a photo's caption are never
/// the answer; a follow-up ("That fixed it.") names the request it follows
/// (`before`).
pub fn extractive_turn(user: &str, assistant: &str, before: Option<&str>) -> String {
    let mut ask = request_sentence(user);
    if let Some(before) = before.map(request_sentence).filter(|b| !b.is_empty()) {
        ask = if ask.is_empty() {
            before
        } else {
            // The follow-up is said whole ("Do it for the whole codebase"):
            // the request it follows gives up the words.
            let room = ASK_WORDS.saturating_sub(ask.split_whitespace().count()).clamp(5, 10);
            format!("{} ({})", clip_words(&before, room), ask.trim_end_matches('.'))
        };
    }
    // The speakers' names say who spoke, not what about: "Thanks,
    // Caroline!" shares Caroline's name with her line and answers nothing.
    let speakers: HashSet<String> = user
        .lines()
        .chain(assistant.lines())
        .filter_map(crate::pipeline::digest::named_speaker)
        .flat_map(|(who, _)| words(who))
        .collect();
    let asked: HashSet<String> = words(&ask).iter().filter(|w| !speakers.contains(*w)).map(|w| stem(w)).collect();
    // A reaction ("Wow, love that painting!") or small talk ("Hey
    // Melanie!") answers nothing, nor does a question back that names
    // nothing and says nothing of its speaker ("How does it feel?", "Did
    // you join in?"): a reply of nothing else has no answer.
    let own = |w: &String| !is_stop_word(w) && !speakers.contains(w);
    let shared = |s: &str| words(s).iter().filter(|w| own(w) && asked.contains(&stem(w))).count();
    let named = |s: &str| terms(s).iter().filter(|t| !speakers.contains(&t.to_lowercase())).count();
    // Between two people (named speakers), a remark of the other's that
    // takes up no word of the request, names nothing and says nothing of
    // its speaker ("Life sure can be a roller coaster.") is a reaction to
    // the news, not what the turn came to: where the best sentence of the
    // reply is one and the first side goes on, what it goes on to say is;
    // where it does not go on, the best sentence of the reply that is no
    // remark. An assistant's answer is kept however it is worded.
    // A follow-up is read with the request it follows, never with its own
    // next statement.
    let next = before.is_none().then(|| next_statement(user)).flatten();
    // Taking up a word of the request or of a question the first side
    // asked ("They were stoked for the dinosaur exhibit!" after "What
    // were they so stoked about?") answers. A shared photo's caption
    // ("[shares a photo: …]") shows, it says nothing: never the answer.
    let questions: HashSet<String> = sentences(user)
        .into_iter()
        .filter(|s| s.trim_end().ends_with('?'))
        .flat_map(words)
        .filter(|w| own(w))
        .map(|w| stem(&w))
        .collect();
    let takes_up = |s: &str| shared(s) > 0 || words(s).iter().any(|w| own(w) && questions.contains(&stem(w)));
    let remark = |s: &str| !speakers.is_empty() && !takes_up(s) && named(s) == 0 && !of_its_speaker(s);
    // Between two people, a reply that changes the subject ("BTW,
    // recently I had a setback. Last month I got hurt …") has answered
    // before the change and brings its own news after it: that news is
    // what the turn came to, and the next turn takes it up. An
    // assistant's "By the way, …" is an aside to its answer.
    let replied = if crate::pipeline::digest::is_chat(assistant) {
        from_change_of_subject(assistant)
    } else {
        sentences(assistant)
    };
    let candidates: Vec<&str> = replied
        .into_iter()
        .filter(|s| !is_tool_line(s) && !is_aside(s) && !says_nothing(&said_by(assistant, s)) && !only_asks_back(s))
        .collect();
    let score = |s: &str| {
        // "BTW" opens the news, it is none of it: "BTW, recently I had a
        // setback." says less than the detail after it.
        let s = after_change_of_subject(s).unwrap_or(s);
        shared(s) + 2 * named(s).min(3) + usize::from(content_words(s).len() >= 3)
    };
    let best_of = |keep: &dyn Fn(&str) -> bool| {
        candidates
            .iter()
            .copied()
            .filter(|s| keep(s))
            .enumerate()
            .max_by(|(i, a), (j, b)| score(a).cmp(&score(b)).then(j.cmp(i)))
            .map(|(_, s)| s)
    };
    let best = match best_of(&|_| true) {
        Some(s) if remark(s) && next.is_some() => None,
        Some(s) if remark(s) => best_of(&|s| !remark(s)).or(Some(s)),
        best => best,
    };
    let answer = best.map(|s| said_by(assistant, s)).map(|s| without_small_talk_lead(&s));
    // A request of nothing but small talk or a reaction ("Thanks, Melanie!
    // That's really sweet.") gives way to the answer.
    if answer.is_some() && (is_filler(&ask) || says_nothing(&ask)) {
        ask = String::new();
    }
    // A reply that answers nothing leaves the L2 to what the first side
    // said: its next statement, where its news often is ("That roadtrip
    // this past weekend was insane! We were all freaked when my son got
    // into an accident.").
    let mut answer = answer.or(next);
    // Where both sides only react, what the reply showed ("[shares a
    // photo: …]") is what the turn came to, not the first side's praise.
    if answer.is_none() && (is_filler(&ask) || says_nothing(&ask)) {
        answer = sentences(assistant).into_iter().find(|s| is_aside(s)).map(|s| said_by(assistant, s));
        if answer.is_some() {
            ask = String::new();
        }
    }
    match (ask.trim().is_empty(), answer) {
        (false, Some(a)) => request_and_answer(ask.trim(), &a),
        (false, None) => clip_words(ask.trim(), L2_MAX_WORDS),
        (true, Some(a)) => clip_words(&a, L2_MAX_WORDS),
        (true, None) => String::new(),
    }
}

/// A question of the reply that names nothing and says nothing of its
/// speaker ([`asks_only`], no first-person word): "What motivated you to
/// pursue counseling?", not "I finished another pot - want to see a pic?"
/// nor "Did you run restic check --read-data?". What the turn came to is
/// no question back.
fn only_asks_back(sentence: &str) -> bool {
    asks_only(sentence) && !of_its_speaker(sentence)
}

/// Whether a sentence says something of its speaker: a first-person
/// word, or a statement that leaves its "I" out as chat does ("Been
/// reading that book you recommended.", "Just got some new shoes!").
fn of_its_speaker(sentence: &str) -> bool {
    let said = crate::pipeline::digest::without_label(sentence);
    let ws = words(said);
    let elided = !said.trim_end().ends_with('?') && ws.first().is_some_and(|w| ELIDED_I.contains(&w.as_str()));
    elided || ws.iter().any(|w| is_first_person(w))
}

/// Words that open a chat statement whose "I" is left out.
const ELIDED_I: &[&str] = &["been", "just", "went", "had", "got", "finished", "started", "tried", "spent", "took"];

/// "request — answer" within [`L2_MAX_WORDS`] (the dash counts as a
/// word). The request has at least [`ASK_WORDS`], and whatever a short
/// answer leaves; or, where a clip of the request would cut a phrase
/// ("… camping with my fam —") and the answer can end at a clause of its
/// own in the words left, the request is said whole.
fn request_and_answer(ask: &str, answer: &str) -> String {
    let count = |t: &str| t.split_whitespace().count();
    let pair = |budget: usize| {
        let ask = clip_words(ask, budget);
        let left = L2_MAX_WORDS.saturating_sub(count(&ask) + 1).max(6);
        (clip_words(answer, left), ask)
    };
    let (mut answer_said, mut ask_said) = pair(ASK_WORDS.max(L2_MAX_WORDS.saturating_sub(count(answer) + 1)));
    if ask_said.ends_with('…') && count(ask) + 1 + 6 <= L2_MAX_WORDS {
        let (whole_answer, whole_ask) = pair(count(ask));
        if !whole_answer.ends_with('…') {
            (answer_said, ask_said) = (whole_answer, whole_ask);
        }
    }
    format!("{} — {}", ask_said.trim_end_matches(['.', '…']), answer_said)
}

/// The words of an extractive L2 that go to the request beside a long
/// answer; beside a short one it has the rest of [`L2_MAX_WORDS`].
const ASK_WORDS: usize = 14;

/// A line that records a tool call or its output rather than saying
/// something: `[tool Bash: …]`, a fence, a shell prompt.
pub fn is_tool_line(s: &str) -> bool {
    let s = s.trim_start();
    s.starts_with("[tool") || s.starts_with("```") || s.starts_with("$ ") || s.starts_with("[result")
}

/// The sentence of a message that carries its request: the first with two
/// content words that is neither small talk (greetings, thanks, "Long time
/// no chat!": [`is_small_talk`]) nor a reaction to the other's words, else
/// its first aside ([`is_aside`]), else its first.
fn request_sentence(text: &str) -> String {
    let all = sentences(text);
    from_change_of_subject(text)
        .iter()
        .find(|s| says_something(text, s))
        // What was shown, where nothing else was said ("Hey Melanie! Take a
        // look at this. [shares a photo: a necklace with a cross]").
        .or(all.iter().find(|s| is_aside(s)))
        .or(all.first())
        .map(|s| match crate::pipeline::digest::without_announcement(s) {
            // What followed "Different question:" now starts the sentence.
            rest if rest.len() < s.trim_start().len() => crate::pipeline::digest::capitalised(rest),
            _ => s.to_string(),
        })
        .map(|s| without_small_talk_lead(&said_by(text, &s)))
        .unwrap_or_default()
}

/// The sentences of a message from the one that changes the subject
/// ("BTW, …", "By the way, …", "Anyway, …", "On another note, …") on,
/// when they say something: what the speaker brings up is their news or
/// their next request, what came before answered or reacted ("Thanks for
/// the tip. Doing research makes sense. BTW, recently I had a setback.",
/// "Thanks a lot! Btw, can my friend get it too?"). Otherwise all its
/// sentences.
fn from_change_of_subject(text: &str) -> Vec<&str> {
    let all = sentences(text);
    match all.iter().position(|s| after_change_of_subject(s).is_some()) {
        Some(i) if all[i..].iter().any(|s| says_something(text, s)) => all[i..].to_vec(),
        _ => all,
    }
}

/// What a sentence says after the words that open it by changing the
/// subject ("recently I had a setback." of "BTW, recently I had a
/// setback."), when it opens so and goes on: those words say nothing of
/// the news.
fn after_change_of_subject(sentence: &str) -> Option<&str> {
    let said = crate::pipeline::digest::without_label(sentence).trim_start();
    CHANGING_SUBJECT
        .iter()
        .find_map(|opening| {
            let rest = said.get(opening.len()..)?;
            let opens =
                said[..opening.len()].eq_ignore_ascii_case(opening) && rest.starts_with(|c: char| !c.is_alphanumeric());
            opens.then(|| rest.trim_start_matches(|c: char| !c.is_alphanumeric()))
        })
        .filter(|rest| !rest.is_empty())
}

/// Openings that change the subject of a message.
const CHANGING_SUBJECT: &[&str] =
    &["btw", "by the way", "anyway", "anyways", "on another note", "on a different note", "in other news"];

/// Whether a sentence of a message (`text`) says something: two content
/// words, neither a tool line, an aside ([`is_aside`]), small talk nor a
/// reaction. It is judged with its speaker's label ([`said_by`]): "That
/// sounds like fun!" in the middle of "Caroline: …" is a reaction between
/// two people.
fn says_something(text: &str, s: &str) -> bool {
    !is_tool_line(s) && !is_aside(s) && content_words(s).len() >= 2 && !is_filler(s) && !says_nothing(&said_by(text, s))
}

/// The statement of a message after its request sentence
/// ([`request_sentence`]): the next that says something and is no
/// question that asks only, with its speaker's label ([`said_by`]): a
/// digest may keep it apart from the request, and without the label it
/// would read as said by whoever was named before it.
fn next_statement(text: &str) -> Option<String> {
    let all = from_change_of_subject(text);
    let first = all.iter().position(|s| says_something(text, s))?;
    all[first + 1..]
        .iter()
        .find(|s| says_something(text, s) && !asks_only(s))
        .map(|s| without_small_talk_lead(&said_by(text, s)))
}

/// A sentence of `text` with the label of the line it was said on
/// ("Melanie: Yesterday I took the kids to the museum."), when that line
/// names a speaker and the sentence, taken from its middle, does not: a
/// sentence without a label reads as said by whoever was named before it
/// (in "Caroline: … — Yesterday I took the kids …", Caroline).
fn said_by(text: &str, sentence: &str) -> String {
    use crate::pipeline::digest::named_speaker;
    let line = text.lines().find(|l| l.contains(sentence.trim_end_matches(['.', '!', '?'])));
    match line.and_then(named_speaker) {
        Some((who, _)) if named_speaker(sentence).is_none_or(|(w, _)| w != who) => format!("{who}: {sentence}"),
        _ => sentence.to_string(),
    }
}

fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace()) || c == '\n';
        if end {
            let s = text[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + c.len_utf8();
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// An extractive turn summary without its labels.
fn compact(item: &str) -> String {
    let Some(rest) = item.strip_prefix(ASKED) else {
        return item.to_string();
    };
    match rest.split_once(ANSWERED) {
        Some((ask, answer)) => format!("{} — {}", ask.trim(), answer.trim()),
        None => rest.trim().to_string(),
    }
}

const ASKED: &str = "The user asked: ";
const ANSWERED: &str = " The assistant answered: ";

/// At most `max` characters of a text, cut at a word and marked with "…"
/// (no word is added).
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let keep: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match keep.rfind(char::is_whitespace) {
        Some(i) if i > 0 => &keep[..i],
        _ => &keep,
    };
    format!("{}…", cut.trim_end())
}

/// A fold written without the model, from the running summary's and the
/// new items' own sentences, in order, within `max_chars`, never looping
/// (see `loops`). Extractive turn summaries are joined in a compact form
/// ("request — answer"), so their scaffolding is not repeated turn after
/// turn. Sentences that share a lead-in ("Caroline told Melanie that",
/// "The user asked how") become one sentence, the lead-in said once and
/// the rests joined with "; "; a sentence whose words and terms another
/// already has is left out; over the budget, the pieces that carry the
/// fewest terms found nowhere else go first, from the middle out; the last
/// guard drops any word that would complete a loop. Every word comes from
/// the sources, and only repeats or the budget lose a name or identifier.
pub fn extractive_fold(running: Option<&str>, items: &[&str], max_chars: usize) -> String {
    let compacted: Vec<String> = items.iter().map(|s| compact(s.trim())).collect();
    let all: Vec<&str> = running.into_iter().chain(compacted.iter().map(String::as_str)).flat_map(sentences).collect();
    let mut units = merge_lead_ins(&all);
    fit(&mut units, max_chars);
    let mut guard = LoopGuard::default();
    let mut out = Vec::new();
    for unit in &units {
        let mut kept = Vec::new();
        for (i, part) in unit.parts.iter().enumerate() {
            let piece = match &unit.lead {
                Some(lead) if i == 0 => format!("{lead} {}", part.text),
                _ => part.text.clone(),
            };
            kept.extend(guard.admit(&piece).map(|p| p.trim().to_string()));
        }
        if !kept.is_empty() {
            out.push(render(unit.lead.is_some(), &kept));
        }
    }
    out.join(" ")
}

/// One sentence of a fold: an optional lead-in and the pieces said after it.
struct Unit {
    key: Option<String>,
    lead: Option<String>,
    parts: Vec<Part>,
}

struct Part {
    text: String,
    /// The position of its sentence among all the sources' sentences.
    order: usize,
}

/// Words that end a lead-in: "Caroline told Melanie that", "The user asked how".
const LINKS: &[&str] = &["that", "how", "whether", "why", "what", "if"];

/// A sentence's lead-in (three to six words, up to a link word or a colon
/// and a space)
/// as its lowercased words, and the byte where the rest starts.
fn lead_in(sentence: &str) -> Option<(String, usize)> {
    let spans = super::loops::word_spans(sentence);
    for r in spans.iter().take(6).skip(2).cloned() {
        // A colon ends a lead-in only before a space: "key:value",
        // "std::io" and "[topic:db]" are words of their own.
        let after = &sentence[r.end..];
        let colon = after.starts_with(':') && after[1..].starts_with(char::is_whitespace);
        if !colon && !LINKS.contains(&sentence[r.clone()].to_lowercase().as_str()) {
            continue;
        }
        let end = if colon { r.end + 1 } else { r.end };
        if loop_words(&sentence[end..]).is_empty() {
            return None;
        }
        return Some((loop_words(&sentence[..r.end]).join(" "), end));
    }
    None
}

/// The sentences as units: one per lead-in (the first sentence's place,
/// the later rests appended) and one per other sentence, without the
/// pieces that repeat a kept one.
fn merge_lead_ins(sentences: &[&str]) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    let mut kept: Vec<(HashSet<String>, String)> = Vec::new();
    for (order, s) in sentences.iter().enumerate() {
        let (key, lead, rest) = match lead_in(s) {
            Some((key, end)) => (Some(key), Some(s[..end].trim()), s[end..].trim()),
            None => (None, None, s.trim()),
        };
        let pieces: Vec<&str> = match key {
            Some(_) => rest.split("; ").map(str::trim).filter(|p| !p.is_empty()).collect(),
            None => vec![rest],
        };
        for piece in pieces {
            let mine = key_words(piece);
            let lower = piece.to_lowercase();
            let piece_terms: Vec<String> = terms(piece).iter().map(|t| t.to_lowercase()).collect();
            let repeat = kept
                .iter()
                .any(|(theirs, text)| mine.is_subset(theirs) && piece_terms.iter().all(|t| text.contains(t.as_str())));
            if repeat {
                continue;
            }
            kept.push((mine, lower));
            let part = Part { text: piece.to_string(), order };
            match units.iter_mut().find(|u| key.is_some() && u.key == key) {
                Some(unit) => unit.parts.push(part),
                None => units.push(Unit { key: key.clone(), lead: lead.map(str::to_string), parts: vec![part] }),
            }
        }
    }
    units
}

/// The words a piece says something with: content words and numbers.
fn key_words(text: &str) -> HashSet<String> {
    let numbers = words(text).into_iter().filter(|w| w.chars().any(|c| c.is_ascii_digit()));
    content_words(text).into_iter().chain(numbers).collect()
}

/// A unit as text: a lead-in's pieces joined with "; ", ending a sentence.
fn render(lead: bool, pieces: &[String]) -> String {
    if !lead {
        return pieces.join(" ");
    }
    let joined = pieces.iter().map(|p| p.trim_end_matches('.')).collect::<Vec<_>>().join("; ");
    if joined.ends_with(['.', '!', '?', '…']) {
        joined
    } else {
        format!("{joined}.")
    }
}

fn rendered_len(units: &[Unit]) -> usize {
    let lens: Vec<usize> = units
        .iter()
        .filter(|u| u.parts.iter().any(|p| !p.text.is_empty()))
        .map(|u| {
            let pieces: Vec<String> = u.parts.iter().filter(|p| !p.text.is_empty()).map(|p| p.text.clone()).collect();
            let first = u.lead.as_ref().map_or(0, |l| l.chars().count() + 1);
            first + render(u.lead.is_some(), &pieces).chars().count()
        })
        .collect();
    lens.iter().sum::<usize>() + lens.len().saturating_sub(1)
}

/// Leaves out pieces until the units fit `max_chars`: first those whose
/// terms (names, numbers, identifiers) all occur in other pieces, then
/// those with the fewest such terms; among equals, the middle first (the
/// start of a segment and its latest turns are kept longest).
fn fit(units: &mut Vec<Unit>, max_chars: usize) {
    if rendered_len(units) <= max_chars {
        return;
    }
    let texts: Vec<(usize, usize, String)> = units
        .iter()
        .enumerate()
        .flat_map(|(u, unit)| unit.parts.iter().enumerate().map(move |(p, part)| (u, p, part.text.to_lowercase())))
        .collect();
    let last = units.iter().flat_map(|u| u.parts.iter().map(|p| p.order)).max().unwrap_or(0);
    let mut order: Vec<(usize, usize, usize, usize)> = texts
        .iter()
        .map(|(u, p, text)| {
            let unique = terms(text)
                .iter()
                .filter(|t| !texts.iter().any(|(u2, p2, other)| (u2, p2) != (u, p) && other.contains(t.as_str())))
                .count();
            let part_order = units[*u].parts[*p].order;
            (unique, (2 * part_order).abs_diff(last), *u, *p)
        })
        .collect();
    order.sort();
    let mut left = texts.len();
    for (_, _, u, p) in order {
        if left <= 1 || rendered_len(units) <= max_chars {
            break;
        }
        units[u].parts[p].text.clear();
        left -= 1;
    }
    for unit in units.iter_mut() {
        unit.parts.retain(|p| !p.text.is_empty());
    }
    units.retain(|u| !u.parts.is_empty());
    // One piece left and still too long: its beginning.
    let over = rendered_len(units).saturating_sub(max_chars);
    if over > 0 {
        if let Some(part) = units.last_mut().and_then(|u| u.parts.last_mut()) {
            let n = part.text.chars().count();
            part.text = clip(&part.text, n.saturating_sub(over));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::loops::repeated_run;
    use super::*;

    /// Every word of `text` occurs in `sources` (the loop rule's words).
    fn only_source_words(text: &str, sources: &[&str]) {
        let have: HashSet<String> = sources.iter().flat_map(|s| loop_words(s)).collect();
        for w in loop_words(text) {
            assert!(have.contains(&w), "{w:?} is not in the sources: {text}");
        }
    }

    const TOLD: [&str; 6] = [
        "Caroline told Melanie that she went to an LGBTQ support group on 7 May.",
        "Melanie told Caroline that she painted a lake sunrise last year.",
        "Caroline told Melanie that she is researching adoption agencies.",
        "Melanie told Caroline that she ran a charity race for mental health.",
        "Caroline told Melanie that she wants to work in counseling.",
        "Caroline told Melanie that she has known her friends for 4 years.",
    ];

    #[test]
    fn a_shared_lead_in_is_said_once_and_the_rests_are_kept() {
        let fold = extractive_fold(None, &TOLD, 3000);
        assert_eq!(fold.matches("Caroline told Melanie that").count(), 1, "{fold}");
        assert!(fold.starts_with(
            "Caroline told Melanie that she went to an LGBTQ support group on 7 May; she is researching adoption agencies; \
             she wants to work in counseling; she has known her friends for 4 years."
        ), "{fold}");
        assert!(
            fold.contains("Melanie told Caroline that she painted a lake sunrise last year; she ran a charity race"),
            "{fold}"
        );
        assert_eq!(repeated_run(&fold), None, "{fold}");
        only_source_words(&fold, &TOLD);
    }

    #[test]
    fn folding_again_merges_into_the_running_summary_without_looping() {
        let mut running: Option<String> = None;
        let items = [
            "The user asked how to back up /srv; the assistant suggested restic backup /srv to a USB disk.",
            "The user asked how to prune snapshots; the assistant suggested restic forget --keep-daily 7.",
            "The user asked how to run it unattended; the assistant suggested --password-file in the crontab.",
            "The user asked how to test a restore; the assistant suggested restic check and a restore into /tmp.",
            "The user asked how to prune snapshots; the assistant suggested restic forget --keep-daily 7.",
        ];
        for item in items {
            let fold = extractive_fold(running.as_deref(), &[item], 3000);
            assert_eq!(repeated_run(&fold), None, "{fold}");
            running = Some(fold);
        }
        let fold = running.unwrap();
        assert_eq!(fold.matches("The user asked how").count(), 1, "{fold}");
        for term in ["/srv", "USB", "--keep-daily 7", "--password-file", "/tmp"] {
            assert!(fold.contains(term), "{term} lost: {fold}");
        }
        assert_eq!(fold.matches("--keep-daily").count(), 1, "the repeated item is said once: {fold}");
        only_source_words(&fold, &items);
    }

    #[test]
    fn a_repeated_or_contained_sentence_is_left_out_but_not_a_new_number() {
        let items = [
            "Caroline: I went to a support group yesterday.",
            "Caroline: I went to a support group yesterday.",
            "Caroline: A support group, yesterday!",
            "Caroline: I went to a support group on 20 May.",
        ];
        let fold = extractive_fold(None, &items, 3000);
        assert_eq!(
            fold,
            "Caroline: I went to a support group yesterday. Caroline: I went to a support group on 20 May."
        );
    }

    #[test]
    fn repeated_phrases_inside_sentences_never_loop() {
        let items: Vec<String> = ["a dog on a couch", "a lake at sunrise", "a cake", "a pottery bowl"]
            .iter()
            .map(|c| format!("Melanie: Look at this! [shares a photo: a photo of {c}]"))
            .collect();
        let refs: Vec<&str> = items.iter().map(String::as_str).collect();
        let fold = extractive_fold(None, &refs, 3000);
        assert_eq!(repeated_run(&fold), None, "{fold}");
        for c in ["couch", "sunrise", "cake", "pottery"] {
            assert!(fold.contains(c), "{c} lost: {fold}");
        }
        only_source_words(&fold, &refs);
    }

    #[test]
    fn over_the_budget_the_pieces_without_their_own_terms_go_first() {
        let items = [
            "The backup of /srv runs nightly with restic.",
            "That sounds good to me.",
            "Great, thanks a lot for that.",
            "It really works well now.",
            "The restore test uses /tmp and diff -r.",
        ];
        let fold = extractive_fold(None, &items, 100);
        assert!(fold.chars().count() <= 100, "{} chars: {fold}", fold.chars().count());
        assert_eq!(fold, "The backup of /srv runs nightly with restic. The restore test uses /tmp and diff -r.");
        let long = "word ".repeat(100);
        let fold = extractive_fold(None, &[long.as_str()], 50);
        assert!(fold.chars().count() <= 50 && fold.ends_with('…'), "{fold}");
    }

    #[test]
    fn extractive_turn_cuts_at_a_word_without_a_count() {
        let s = extractive_turn(&format!("Why {} now?", "really ".repeat(60)), "Because.", None);
        assert!(!s.contains("omitted") && s.contains("really"), "{s}");
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
    }

    #[test]
    fn an_extractive_turn_is_request_and_outcome_within_the_budget_never_a_tool_line() {
        let user = "Hi! The contact form fails with SMTPServerDisconnected on the server. Any idea?";
        let assistant = "[tool Bash: grep -rn EMAIL_ settings.py]\nThe server closes port 25. \
                         Set EMAIL_PORT = 587 and EMAIL_USE_TLS = True in settings.py, then restart.";
        let s = extractive_turn(user, assistant, None);
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
        assert!(s.contains("SMTPServerDisconnected") && s.contains("EMAIL_PORT = 587"), "{s}");
        assert!(!s.contains("[tool") && !s.starts_with("Hi"), "{s}");
        // A follow-up names what it follows.
        let s = extractive_turn("That fixed it.", "Great, glad it works.", Some(user));
        assert!(s.contains("SMTPServerDisconnected") && s.contains("That fixed it"), "{s}");
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
    }

    #[test]
    fn an_extractive_turn_says_who_said_a_sentence_taken_from_the_middle_of_a_line() {
        // LoCoMo session 6: the museum was Melanie's, not Caroline's.
        let s = extractive_turn(
            "Caroline: Hey Mel! Since our last chat, I've been looking into counseling or mental health work.",
            "Melanie: That's awesome, Caroline! Congrats on following your dreams. \
             Yesterday I took the kids to the museum - it was so cool!",
            None,
        );
        // ("Hey Mel!" and "Since our last chat" are small talk.)
        assert!(s.starts_with("Caroline: I've been looking into counseling"), "{s}");
        assert!(s.contains(" — Melanie: Yesterday I took the kids to the museum"), "{s}");
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
        // A line's first sentence keeps its own label, said once.
        let s = extractive_turn(
            "Jon: I lost my job at the bank today.",
            "Gina: My uncle runs the bakery on Main Street.",
            None,
        );
        assert_eq!(s.matches("Jon:").count() + s.matches("Gina:").count(), 2, "{s}");
    }

    #[test]
    fn an_extractive_turn_passes_over_small_talk_and_the_speakers_names() {
        // Each side opens with greetings; what happened comes after them,
        // and the answer that only names the other speaker answers nothing.
        let s = extractive_turn(
            "Jon: Hey Gina, hope all's good! Since we last talked, a lot has happened. \
             I lost my job at the bank on Monday.",
            "Gina: Hey Jon! Oh no, Jon! I'm opening my own clothing store next month in Brooklyn.",
            None,
        );
        assert!(s.starts_with("Jon: I lost my job at the bank on Monday"), "{s}");
        assert!(s.contains(" — Gina: I'm opening my own clothing store next month in Brooklyn"), "{s}");
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
        // A reply of thanks and the other's name is no answer beside a fact.
        let s = extractive_turn(
            "Gina: My store opened on Friday.",
            "Jon: Thanks, Gina! Congrats, Gina! I start at the bakery on Monday.",
            None,
        );
        assert!(s.ends_with("Jon: I start at the bakery on Monday."), "{s}");
        // A reply of nothing but reactions has no answer: the request is
        // the turn's one sentence.
        let s = extractive_turn("Gina: My store opened on Friday in Brooklyn.", "Jon: Wow, Gina! Congrats!", None);
        assert_eq!(s, "Gina: My store opened on Friday in Brooklyn.");
        // A request of nothing but thanks and praise gives way to the answer.
        let s = extractive_turn(
            "Jon: Thanks, Gina! That's really sweet.",
            "Gina: Yeah, I painted it last year in Lisbon.",
            None,
        );
        assert_eq!(s, "Gina: I painted it last year in Lisbon.");
        // Small talk before a dash is left out of the sentence it opens.
        let s = extractive_turn(
            "Jon: Hey Gina! So much has happened since we last spoke - I started at the bakery two days ago.",
            "Gina: That's great news, Jon! My store opened on Friday.",
            None,
        );
        assert!(s.starts_with("Jon: I started at the bakery two days ago — Gina: My store opened on Friday"), "{s}");
    }

    #[test]
    fn an_extractive_turn_says_a_request_whole_beside_a_short_answer() {
        // LoCoMo's turn 90: 16 words of request beside 11 of answer fit in
        // one L2; the request was clipped to "… with my fam two —".
        let s = extractive_turn(
            "Melanie: Hey Caroline, hope all's good! I had a quiet weekend after we went camping with my fam \
             two weekends ago. It was great to unplug and hang with the kids.",
            "Caroline: Hey Melanie! Last weekend I joined a mentorship program for LGBTQ youth.",
            None,
        );
        assert_eq!(
            s,
            "Melanie: I had a quiet weekend after we went camping with my fam two weekends ago — \
             Caroline: Last weekend I joined a mentorship program for LGBTQ youth."
        );
        // The turn as LoCoMo has it: the answer goes on after a dash, and
        // ends there to leave the request whole.
        let s = extractive_turn(
            "Melanie: Hey Caroline, hope all's good! I had a quiet weekend after we went camping with my fam \
             two weekends ago.",
            "Caroline: Hey Melanie! That sounds great! Last weekend I joined a mentorship program for LGBTQ youth - \
             it's really rewarding to help the community.",
            None,
        );
        assert_eq!(
            s,
            "Melanie: I had a quiet weekend after we went camping with my fam two weekends ago — \
             Caroline: Last weekend I joined a mentorship program for LGBTQ youth."
        );
        // Beside a long answer the request keeps its share, clipped where a
        // phrase ends, and the whole stays within the L2's words.
        let s = extractive_turn(
            "Caroline: When you see it in person you can feel the sense of how neglected some people are.",
            "Melanie: The shelter on Fifth Street needs volunteers on Saturdays to sort donations, cook meals \
             for forty people and drive the van to the food bank.",
            None,
        );
        assert!(
            s.starts_with("Caroline: When you see it in person you can feel the sense — Melanie: The shelter"),
            "{s}"
        );
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
    }

    #[test]
    fn an_extractive_turn_says_a_follow_up_whole_and_leaves_an_announcement_out() {
        // The agent session's fourth turn: "(Do it for the whole" was cut.
        let s = extractive_turn(
            "Do it for the whole codebase.",
            "Both now send through django.core.mail.send_mail with the EMAIL_* settings.",
            Some("Are there other places that open SMTP connections themselves?"),
        );
        assert!(s.contains("(Do it for the whole codebase)"), "{s}");
        assert!(s.contains("SMTP") && s.contains("django.core.mail.send_mail"), "{s}");
        assert!(s.split_whitespace().count() <= L2_MAX_WORDS, "{s}");
        let s = extractive_turn(
            "Different question: my sourdough bread comes out dense. Why?",
            "Usually the starter is too weak or the dough is under-proofed.",
            None,
        );
        assert!(s.starts_with("My sourdough bread comes out dense — Usually"), "{s}");
    }
}
