//! The check of a clause rewritten in the third person: what a speaker
//! said in the first person ("Caroline: I went to a LGBTQ support group
//! yesterday.") as one sentence that names them ("Caroline went to a LGBTQ
//! support group yesterday."). A rewrite may only turn the first person
//! into the speaker (a name, a pronoun, a form of "be" or "have"); any
//! other word dropped, moved or added changes what was said. Measured with
//! `examples/rewrite_probe.rs` before it was built: SmolLM2-135M turned
//! "I went … yesterday" into "Caroline's going … tomorrow", and
//! Qwen2.5-Coder-0.5B "A friend made it for my 18th birthday" into
//! "Caroline made it for her 18th birthday"; both are refused here.

use super::words;

/// The first person singular: the speaker alone.
#[rustfmt::skip]
const SINGULAR: &[&str] = &["i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"];

/// The plural first person: "we" is more than the speaker, so a clause
/// that says it is not asked to be rewritten ("We can make a real impact
/// together!" is not "Melanie can make a real impact together").
const PLURAL: &[&str] = &["we", "us", "our", "ours", "ourselves", "we're", "we've", "we'd", "we'll"];

/// The second person: "you" in a sentence about a speaker no longer says
/// whom it meant.
const SECOND_PERSON: &[&str] = &["you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll"];

/// Pronouns a rewrite may use for the speaker.
#[rustfmt::skip]
const PRONOUNS: &[&str] = &[
    "he", "she", "they", "his", "her", "hers", "their", "theirs", "him", "them", "himself", "herself", "themselves",
];

/// Forms of "be" and "have" a first-person word stood beside ("I'm" →
/// "is", "I've" → "has"): left out of both the clause and its rewrite.
const BE_HAVE: &[&str] = &["is", "are", "am", "was", "were", "has", "have", "had", "been", "be"];

/// The words a rewrite may add for the speaker: a pronoun, a form of "be"
/// or "have" (what a decoding held to the clause's words may write beside
/// them).
pub fn speaker_words() -> impl Iterator<Item = &'static str> {
    PRONOUNS.iter().chain(BE_HAVE).copied()
}

/// Whether a (lower-case) word is the first person, singular or plural:
/// the speaker's own words.
pub fn is_first_person(w: &str) -> bool {
    is_first_person_singular(w) || PLURAL.contains(&w)
}

/// Whether a (lower-case) word is the first person singular ("I'll",
/// "myself"): a speaker's own voice, never a summary's.
pub fn is_first_person_singular(w: &str) -> bool {
    SINGULAR.contains(&w)
}

/// Whether a (lower-case) word is the second person.
pub fn is_second_person(w: &str) -> bool {
    SECOND_PERSON.contains(&w)
}

/// Whether a (lower-case) word is the first or second person, which a
/// rewrite may not keep.
pub fn is_first_or_second_person(w: &str) -> bool {
    is_first_person(w) || is_second_person(w)
}

/// Why the model's `reply` may not stand for what `who` said in `clause`:
/// the grounding check of any reply over the labelled clause (its relations
/// too, for a reply decoded with the clause's words only: `held`), then
/// [`rewrite_fault`]. None: the rewrite replaces the clause.
pub fn rewrite_refused(who: &str, clause: &str, reply: &str, examples: &[&str], held: bool) -> Option<String> {
    let labelled = format!("{who}: {clause}");
    super::Acceptance::new(&[&labelled], &[], examples, None)
        .relations_checked(&[&labelled], held)
        .fault(reply)
        .or_else(|| rewrite_fault(who, clause, reply))
}

/// Words a clause may open with that its rewrite leaves out.
const OPENERS: &[&str] =
    &["yeah", "yes", "well", "oh", "wow", "hey", "so", "and", "but", "ok", "okay", "ah", "um", "haha"];

/// Whether a clause says something in the first person singular, and
/// nothing in the plural or the second person ("your words" would become
/// the speaker's): what a rewrite is asked for.
pub fn speaks_for_itself(clause: &str) -> bool {
    let ws = words(clause);
    let is = |list: &[&str]| ws.iter().any(|w| list.contains(&w.as_str()));
    is(SINGULAR) && !is(PLURAL) && !is(SECOND_PERSON)
}

/// Why `rewrite` is not what `speaker` said in `clause` put in the third
/// person, or None. The rewrite is one sentence that names the speaker;
/// read word by word against the clause (its opening "Yeah", "Well" … and
/// its first person left out), it says the clause's words in the clause's
/// order, adding only the speaker's name, a pronoun, and a form of "be" or
/// "have" where the clause had one beside its first person ("I'm thrilled"
/// → "Caroline is thrilled", not "I shared" → "Caroline is shared"):
/// nothing dropped, moved or added. So "Caroline's going … tomorrow" of "I
/// went … yesterday", "Caroline made it for her 18th birthday" of "A friend
/// made it for my 18th birthday", "Melanie is awesome having …" of "It's
/// awesome having …" and "Caroline's inclusivity … spoke to her" of "Their
/// inclusivity … spoke to me" are refused.
pub fn rewrite_fault(speaker: &str, clause: &str, rewrite: &str) -> Option<String> {
    if crate::pipeline::tidy::sentences(rewrite).len() != 1 {
        return Some("the rewrite is not one sentence".into());
    }
    let told = words(rewrite);
    if let Some(w) = told.iter().find(|w| is_first_or_second_person(w)) {
        return Some(format!("the rewrite keeps {w:?}"));
    }
    let names = words(speaker);
    let named = |w: &str| names.iter().any(|n| w == n || w.strip_suffix("'s") == Some(n.as_str()));
    if !told.iter().any(|w| named(w)) {
        return Some(format!("the rewrite does not name {speaker}"));
    }
    // The clause's words a rewrite must say, each with whether a form of
    // "be" or "have" (or a contracted one, "I'm") stood right before it.
    let all = words(clause);
    let opened = all.iter().take_while(|w| OPENERS.contains(&w.as_str())).count();
    let mut said: Vec<(&str, bool)> = Vec::new();
    // The verbs said right after "I" (adverbs between), whose form after a
    // name may differ ("I love" → "Caroline loves").
    let mut after_i: Vec<usize> = Vec::new();
    for (k, w) in all.iter().enumerate().skip(opened) {
        if w == "i" {
            after_i.extend((k + 1..all.len()).find(|&j| !BETWEEN.contains(&all[j].as_str())));
        }
        if is_first_person(w) || BE_HAVE.contains(&w.as_str()) {
            continue;
        }
        let prev = k.checked_sub(1).map(|p| all[p].as_str()).unwrap_or("");
        let after_be = BE_HAVE.contains(&prev) || matches!(prev, "i'm" | "i've" | "i'd" | "i'll");
        said.push((w.as_str(), after_be));
    }
    let verbs_after_i: Vec<&str> = after_i.iter().map(|&j| all[j].as_str()).collect();
    let as_said = |told: &str, s: &str| {
        told == s || verbs_after_i.contains(&s) && third_singular(s).is_some_and(|form| form == told)
    };
    let mut next = 0;
    let mut added_be: Option<&str> = None;
    for w in &told {
        if said.get(next).is_some_and(|(s, _)| as_said(w, s)) {
            if let (Some(be), Some((s, false))) = (added_be, said.get(next)) {
                return Some(format!("the rewrite says {be:?} before {s:?}, which the clause does not"));
            }
            next += 1;
            added_be = None;
        } else if named(w) || PRONOUNS.contains(&w.as_str()) {
            continue;
        } else if BE_HAVE.contains(&w.as_str()) {
            added_be = Some(w.as_str());
        } else {
            return Some(match said.get(next) {
                Some((s, _)) => format!("the rewrite says {w:?} where the clause says {s:?}"),
                None => format!("the rewrite adds {w:?}"),
            });
        }
    }
    if let Some((s, _)) = said.get(next) {
        return Some(format!("the rewrite leaves out {s:?}"));
    }
    // A clause's first word keeps its capital only at a sentence's start:
    // "Melanie Helps her stay present" of "Helps me stay present" left the
    // clause's subject out.
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let first = clause.split_whitespace().find(|w| !OPENERS.contains(&bare(w).as_str()));
    if let Some(first) = first.filter(|f| f.starts_with(char::is_uppercase)) {
        let mid = |text: &str| {
            text.split_whitespace().skip(1).any(|w| bare(w) == bare(first) && w.starts_with(char::is_uppercase))
        };
        if mid(rewrite) && !mid(clause) {
            return Some(format!("the rewrite keeps the capital of {first:?} mid-sentence"));
        }
    }
    None
}

/// Past forms of irregular verbs: after "I" they stay as they are in the
/// third person ("I went" → "Caroline went"). A present form would not
/// ("I love" → "Caroline love"), and a form that is both ("read", "put")
/// is not here.
#[rustfmt::skip]
const IRREGULAR_PAST: &[&str] = &[
    "arose", "awoke", "was", "bore", "beat", "became", "began", "bent", "bit", "blew", "broke", "brought", "built",
    "burnt", "bought", "caught", "chose", "came", "crept", "dealt", "dug", "did", "didn't", "drew", "dreamt", "drank",
    "drove", "ate", "fell", "fed", "felt", "fought", "found", "fled", "flew", "forgot", "forgave", "froze", "got",
    "gave", "went", "grew", "hung", "had", "hadn't", "heard", "hid", "held", "kept", "knelt", "knew", "laid", "led",
    "leapt", "learnt", "left", "lent", "lay", "lit", "lost", "made", "meant", "met", "paid", "rode", "rang", "rose",
    "ran", "said", "saw", "sought", "sold", "sent", "shook", "shone", "shot", "shrank", "sang", "sank", "sat", "slept",
    "slid", "spoke", "spent", "spun", "stood", "stole", "stuck", "struck", "swore", "swept", "swam", "swung", "took",
    "taught", "tore", "told", "thought", "threw", "understood", "woke", "wore", "wept", "won", "wrote", "wasn't",
];

/// Verbs whose form is the same after "I" as after a name: modals.
#[rustfmt::skip]
const SAME_FORM: &[&str] = &[
    "can", "could", "would", "should", "might", "must", "will", "can't", "couldn't", "wouldn't", "shouldn't", "won't",
];

/// Verbs whose present and past are written alike ("I read it last
/// week"): after "I" it cannot be told which was meant, so neither "reads"
/// nor "read" is written for them.
#[rustfmt::skip]
const PRESENT_OR_PAST: &[&str] = &[
    "read", "put", "cut", "set", "hit", "let", "hurt", "cost", "quit", "shut", "spread", "bet", "split", "fit",
    "beat", "cast", "burst", "upset", "broadcast", "forecast", "bid", "rid", "thrust", "wed",
];

/// Words that follow "I" without being its verb ("I too …", "I kinda …"),
/// or a verb that only marks talk ("I mean, …"). An adverb in "-ly" is
/// none either ("I usually …"); so "I apply" is not rewritten.
#[rustfmt::skip]
const NO_VERB: &[&str] = &[
    "too", "kinda", "sorta", "wanna", "gotta", "gonna", "sometimes", "now", "then", "here", "there", "so", "and",
    "but", "or", "mean", "guess", "suppose", "am", "is", "are", "be", "been", "being",
];

/// The form a verb said after "I" in the present takes after a name: "I
/// love" → "loves", "I watch" → "watches", "I try" → "tries", "I have" →
/// "has", "I don't" → "doesn't". None for a word that is no plain verb of
/// letters, one of [`PRESENT_OR_PAST`] or [`NO_VERB`], or an adverb in
/// "-ly".
pub fn third_singular(verb: &str) -> Option<String> {
    let special = match verb {
        "have" => Some("has"),
        "haven't" => Some("hasn't"),
        "do" => Some("does"),
        "don't" => Some("doesn't"),
        "go" => Some("goes"),
        _ => None,
    };
    if let Some(form) = special {
        return Some(form.to_string());
    }
    if verb.len() < 2
        || !verb.chars().all(|c| c.is_ascii_lowercase())
        || PRESENT_OR_PAST.contains(&verb)
        || NO_VERB.contains(&verb)
        || verb.ends_with("ly")
    {
        return None;
    }
    let consonant_y = verb.ends_with('y') && !verb[..verb.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    Some(if consonant_y {
        format!("{}ies", &verb[..verb.len() - 1])
    } else if verb.ends_with(['s', 'x', 'z', 'o']) || verb.ends_with("sh") || verb.ends_with("ch") {
        format!("{verb}es")
    } else {
        format!("{verb}s")
    })
}

/// Adverbs that may stand between "I" and its verb ("I finally took").
#[rustfmt::skip]
const BETWEEN: &[&str] = &[
    "really", "also", "just", "still", "finally", "always", "never", "totally", "definitely", "actually", "recently",
    "even", "already", "only", "truly", "once", "ever", "probably",
];

/// What `speaker` said in `clause` in the third person without the model,
/// where that needs no word but the ones [`rewrite_fault`] allows: the
/// first person singular becomes the speaker ("I went" → "Caroline went",
/// "I'm thrilled" → "Caroline is thrilled", "I've been" → "Caroline has
/// been", "my kids" → "Caroline's kids", "made me feel" → "made Caroline
/// feel"), a verb in the present given its form after a name ("I love" →
/// "Caroline loves", [`third_singular`]), a clause's opening "Yeah," or
/// "Wow," left out. None where that form cannot be told ("I read it":
/// present or past), where "I'd" or "I'll" would need a word the clause
/// does not say, where
/// the speaker would be named twice ("Caroline took Caroline's kids"),
/// in a question ("How do I check …?"), and wherever the result fails
/// [`rewrite_fault`]. A verb whose present and past are alike is past
/// where a past verb is joined to it ("I set X and kept Y" → "the
/// assistant set X and kept Y"). `speaker` may be a name or a side ("the
/// user"), which a sentence's start capitalises.
pub fn in_third_person(speaker: &str, clause: &str) -> Option<String> {
    // A question's "I" follows its verb ("How do I check …?"), which a
    // name after it would leave in the wrong form.
    if !speaks_for_itself(clause) || clause.trim_end().ends_with('?') {
        return None;
    }
    let bare = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase().replace('’', "'");
    let tokens: Vec<&str> = clause.split_whitespace().collect();
    let opened = tokens.iter().take_while(|t| OPENERS.contains(&bare(t).as_str())).count();
    let tokens = &tokens[opened..];
    let mut out: Vec<String> = Vec::new();
    let mut named = 0;
    // The present verb after "I" and the form it takes after the name.
    let mut present: Option<(usize, String)> = None;
    for (k, token) in tokens.iter().enumerate() {
        let w = bare(token);
        if let Some((_, form)) = present.as_ref().filter(|(at, _)| *at == k) {
            let tail = &token[token.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..];
            out.push(format!("{form}{tail}"));
            continue;
        }
        // "I am" → "<name> is": the name stood for "I" already.
        if w == "am" && k > 0 && bare(tokens[k - 1]) == "i" {
            out.push("is".into());
            continue;
        }
        if !is_first_person_singular(&w) {
            if is_first_or_second_person(&w) {
                return None;
            }
            out.push(token.to_string());
            continue;
        }
        // What stands before and after the word: its punctuation.
        let tail = &token[token.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..];
        let lead = &token[..token.len() - token.trim_start_matches(|c: char| !c.is_alphanumeric()).len()];
        named += 1;
        if named > 1 || !tail.is_empty() && w != "me" && w != "my" {
            return None;
        }
        match w.as_str() {
            "i" => {
                let at = (k + 1..tokens.len()).find(|&j| !BETWEEN.contains(&bare(tokens[j]).as_str()))?;
                let verb = bare(tokens[at]);
                let am = tokens.get(k + 1).is_some_and(|t| bare(t) == "am");
                let is_past =
                    |v: &str| IRREGULAR_PAST.contains(&v) || v.len() > 3 && v.ends_with("ed") && !v.ends_with("eed");
                // "I set EMAIL_PORT … and kept EMAIL_USE_TLS …": a verb
                // whose present and past are alike is past beside the past
                // verb joined to it.
                let joined_past = PRESENT_OR_PAST.contains(&verb.as_str())
                    && tokens[at + 1..].windows(2).any(|p| bare(p[0]) == "and" && is_past(&bare(p[1])));
                let past = is_past(&verb) || joined_past;
                if !am && !past && !SAME_FORM.contains(&verb.as_str()) {
                    // "I love" → "Caroline loves": the present verb, its
                    // form after a name, in lower case as it was said.
                    let form = third_singular(&verb).filter(|_| tokens[at].starts_with(|c: char| c.is_lowercase()))?;
                    present = Some((at, form));
                }
                out.push(format!("{lead}{speaker}"));
            }
            "i'm" => out.extend([format!("{lead}{speaker}"), "is".into()]),
            "i've" => out.extend([format!("{lead}{speaker}"), "has".into()]),
            "my" => out.push(format!("{lead}{speaker}'s{tail}")),
            "me" => out.push(format!("{lead}{speaker}{tail}")),
            _ => return None,
        }
    }
    let mut text = crate::text::capitalized(&out.join(" "));
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    rewrite_fault(speaker, clause, &text).is_none().then_some(text)
}

/// Verbs a request to an assistant opens with ("Commit it …", "Add the
/// fallback …").
#[rustfmt::skip]
const REQUEST_VERBS: &[&str] = &[
    "add", "fix", "commit", "run", "remove", "update", "rename", "write", "make", "create", "delete", "use", "pin",
    "move", "change", "refactor", "implement", "test", "check", "try", "show", "explain", "push", "revert",
    "install", "deploy", "build", "merge", "open", "debug", "find", "replace", "split", "clean", "bump", "list",
    "print", "convert", "format", "document", "migrate", "upgrade", "enable", "disable", "configure", "generate",
    "review", "drop", "keep", "send", "restore", "rewrite", "retry", "skip", "stop", "start", "restart", "compare",
    "summarize", "summarise", "translate", "tell", "give", "help", "set", "do", "undo", "squash", "rebase", "tag",
    "release", "publish", "measure", "benchmark", "profile", "port", "wire", "hook", "cache", "lock", "sort",
];

/// Words that may follow a request's verb as what it acts on ("Commit
/// it", "Add the fallback", "Clean up"): a noun after the first word
/// ("Test coverage dropped.") makes that word no verb.
#[rustfmt::skip]
const OBJECT_OPENERS: &[&str] = &[
    "it", "the", "a", "an", "this", "that", "these", "those", "all", "my", "our", "them", "me", "us", "up", "out",
    "everything", "both", "each", "every", "its", "their", "some", "any", "in", "on", "off", "back", "away",
];

/// What `speaker` asked for in `clause` when it is a request that opens
/// with its verb ("Commit it with a message that explains the race."):
/// "The user asked to commit it with a message that explains the race.",
/// so that a memory read at the start of a session is not taken for an
/// instruction to its reader; a "Please" before it is left out. None for
/// anything else: a statement, a question, a first word that is not one
/// of [`REQUEST_VERBS`] followed by what it acts on ([`OBJECT_OPENERS`])
/// or by a path or identifier.
pub fn as_request(speaker: &str, clause: &str) -> Option<String> {
    let clause = clause.trim();
    if clause.ends_with('?') || clause.starts_with('…') {
        return None;
    }
    // "Please commit it": the request is what follows.
    let clause = match clause.split_once(' ') {
        Some((please, rest)) if please.trim_end_matches(',').eq_ignore_ascii_case("please") => rest.trim_start(),
        _ => clause,
    };
    let mut tokens = clause.split_whitespace();
    let (verb, next) = (tokens.next()?, tokens.next()?);
    let verb_bare = verb.to_lowercase();
    let next_bare = next.trim_end_matches([',', '.', ';', ':']).to_lowercase();
    let acts_on = OBJECT_OPENERS.contains(&next_bare.as_str())
        || next.contains(['/', '_', '.', '`']) && next.trim_end_matches(['.', ',']).len() > 1;
    if !REQUEST_VERBS.contains(&verb_bare.as_str()) || !acts_on || !verb.chars().all(|c| c.is_alphabetic()) {
        return None;
    }
    let rest = &clause[verb.len()..];
    let mut text = crate::text::capitalized(&format!("{speaker} asked to {verb_bare}{rest}"));
    if !text.ends_with(['.', '!']) {
        text.push('.');
    }
    Some(text)
}

/// Words that ask what to do and may stand for it after "asked" ("How do I
/// check …?" → "asked how to check …"); not "why": "why to …" is not said.
const ASKS_WHAT_TO_DO: &[&str] = &["how", "what", "which", "where", "when"];

/// Helpers of a question asked in the first person ("How do I …?", "What
/// hydration should I use …?").
const ASKING_HELPERS: &[&str] = &["do", "should", "can", "could", "shall", "would"];

/// Verbs that say what the asker needs, wants or knows, not what to do:
/// "What do I need to change?" is not "asked what to need to change".
const NOT_TO_DO: &[&str] = &["need", "have", "want", "wish", "know", "think", "mean", "feel", "like", "am"];

/// Whether a sentence is a question told as asked by [`as_question`] ("The
/// user asked whether there are …", "The user asked how to check …"): still
/// a question, what was asked and not what came of it. Only the user's are
/// told so: "The kids asked what to do" is what someone said happened.
pub fn is_told_question(sentence: &str) -> bool {
    let ws: Vec<String> = sentence.split_whitespace().take(4).map(str::to_lowercase).collect();
    ws.len() == 4
        && ws[..3] == ["the", "user", "asked"]
        && (ws[3] == "whether" || ASKS_WHAT_TO_DO.contains(&ws[3].as_str()))
}

/// What `speaker` asked in `clause`, told as asked, where the question has
/// one of three shapes whose report moves no word but the helper:
/// - "Are there other places that open SMTP connections themselves?" →
///   "The user asked whether there are other places that open SMTP
///   connections themselves." (is, are, was, were there);
/// - "How do I check that the backups can be restored?" → "The user asked
///   how to check that the backups can be restored." (how, what, which,
///   where, when, with up to two words between, then do, should, can …
///   I; "What hydration should I use …?" → "asked what hydration to use …");
/// - "Can you add the fallback?" → "The user asked to add the fallback."
///   (can, could or would you, then a request of [`as_request`]'s shape).
///
/// None for any other question, and where what is asked about says "I",
/// "my", "you" … (whose would they be in a report?) or "we".
pub fn as_question(speaker: &str, clause: &str) -> Option<String> {
    let body = clause.trim().strip_suffix('?')?.trim_end();
    if body.contains(['?', '!', '"', '“']) || body.split(". ").nth(1).is_some() {
        return None;
    }
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let lower: Vec<String> = tokens.iter().map(|t| t.trim_end_matches(',').to_lowercase()).collect();
    let told = |head: String, rest: &[&str]| -> Option<String> {
        let personal =
            rest.iter().flat_map(|t| words(t)).any(|w| is_first_or_second_person(&w) || PLURAL.contains(&w.as_str()));
        (!rest.is_empty() && !personal)
            .then(|| crate::text::capitalized(&format!("{speaker} asked {head} {}.", rest.join(" "))))
    };
    match lower.as_slice() {
        [be, there, ..] if matches!(be.as_str(), "is" | "are" | "was" | "were") && there == "there" => {
            told(format!("whether there {be}"), &tokens[2..])
        }
        [can, you, ..] if matches!(can.as_str(), "can" | "could" | "would") && you == "you" => {
            as_request(speaker, &format!("{}.", tokens[2..].join(" ")))
        }
        [wh, ..] if ASKS_WHAT_TO_DO.contains(&wh.as_str()) => {
            let at = (1..lower.len().min(4)).find(|&i| ASKING_HELPERS.contains(&lower[i].as_str()))?;
            let between = &lower[1..at];
            let verb = lower.get(at + 2).map(String::as_str).unwrap_or_default();
            if lower.get(at + 1).map(String::as_str) != Some("i")
                || between.iter().any(|w| is_first_or_second_person(w))
                || NOT_TO_DO.contains(&verb)
            {
                return None;
            }
            let head: Vec<&str> = std::iter::once(wh.as_str()).chain(tokens[1..at].iter().copied()).collect();
            told(format!("{} to", head.join(" ")), &tokens[at + 2..])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_that_only_puts_the_clause_in_the_third_person_passes() {
        let clause = "I went to a LGBTQ support group yesterday.";
        assert_eq!(rewrite_fault("Caroline", clause, "Caroline went to a LGBTQ support group yesterday."), None);
        let cases = [
            ("Yeah, I painted that lake sunrise last year!", "Melanie painted that lake sunrise last year."),
            ("My kids are so excited about summer break!", "Melanie's kids are so excited about summer break."),
            ("I've been blessed with loads of love.", "Melanie has been blessed with loads of love."),
            ("The support group has made me feel accepted.", "The support group has made Melanie feel accepted."),
        ];
        for (said, rewrite) in cases {
            assert_eq!(rewrite_fault("Melanie", said, rewrite), None, "{said} → {rewrite}");
        }
    }

    #[test]
    fn a_rewrite_that_drops_moves_or_adds_a_word_fails() {
        let clause = "I went to a LGBTQ support group yesterday.";
        // SmolLM2-135M's: the time turned around.
        let why = rewrite_fault("Caroline", clause, "Caroline's going to a LGBTQ support group tomorrow.").unwrap();
        assert!(why.contains("going"), "{why}");
        let why = rewrite_fault("Caroline", clause, "Caroline went to a support group yesterday.").unwrap();
        assert!(why.contains("lgbtq"), "a name dropped: {why}");
        // Qwen2.5-Coder-0.5B's: who made it, and what was awesome, changed.
        let why = rewrite_fault(
            "Caroline",
            "A friend made it for my 18th birthday.",
            "Caroline made it for her 18th birthday.",
        );
        assert!(why.is_some_and(|w| w.contains("\"a\"")));
        let why =
            rewrite_fault("Melanie", "It's awesome having stuff around.", "Melanie is awesome having stuff around.");
        assert!(why.is_some_and(|w| w.contains("it's")));
        // SmolLM2's "is a": every word the clause's, one added.
        assert!(rewrite_fault("Melanie", "I got guts.", "Melanie is a guts.").is_some_and(|w| w.contains("says \"a\"")));
        let why = rewrite_fault(
            "Caroline",
            "I talked to the group about my journey.",
            "Caroline's journey talked to the group.",
        );
        assert!(why.is_some(), "a word moved changes who did what");
        // SmolLM2's "is" where the clause had none, and a clause's own
        // "their" given to the speaker.
        let why = rewrite_fault("Caroline", "I shared my own journey.", "Caroline is shared her own journey.");
        assert!(why.is_some_and(|w| w.contains("\"is\" before \"shared\"")));
        assert_eq!(rewrite_fault("Caroline", "I'm thrilled to help.", "Caroline is thrilled to help."), None);
        let their = "Their inclusivity and support really spoke to me.";
        let why = rewrite_fault("Caroline", their, "Caroline's inclusivity and support really spoke to her.");
        assert!(why.is_some_and(|w| w.contains("their")));
        assert_eq!(rewrite_fault("Caroline", their, "Their inclusivity and support really spoke to Caroline."), None);
        // Only the verb said after "I" may change its form.
        assert_eq!(rewrite_fault("Melanie", "I love pottery.", "Melanie loves pottery."), None);
        let why = rewrite_fault("Melanie", "My kids love pottery.", "Melanie's kids loves pottery.");
        assert!(why.is_some_and(|w| w.contains("\"loves\"")));
        let why = rewrite_fault("Melanie", "I want to paint.", "Melanie wants to paints.");
        assert!(why.is_some_and(|w| w.contains("\"paints\"")));
        // Each "I" of the clause: both its verbs.
        let two = "I love pottery and I play clarinet.";
        assert_eq!(rewrite_fault("Melanie", two, "Melanie loves pottery and she plays clarinet."), None);
    }

    #[test]
    fn a_clause_whose_verb_keeps_its_form_is_put_in_the_third_person_without_the_model() {
        let cases = [
            (
                "Caroline",
                "I went to a LGBTQ support group yesterday.",
                "Caroline went to a LGBTQ support group yesterday.",
            ),
            ("Melanie", "Yeah, I painted that lake sunrise last year!", "Melanie painted that lake sunrise last year!"),
            ("Melanie", "I'm swamped with the kids & work.", "Melanie is swamped with the kids & work."),
            ("Caroline", "I've been blessed with loads of love.", "Caroline has been blessed with loads of love."),
            (
                "Melanie",
                "My kids are so excited about summer break!",
                "Melanie's kids are so excited about summer break!",
            ),
            (
                "Caroline",
                "Last Friday, I finally took the kids there.",
                "Last Friday, Caroline finally took the kids there.",
            ),
            (
                "Caroline",
                "The support group has made me feel accepted.",
                "The support group has made Caroline feel accepted.",
            ),
            ("Melanie", "I am keen on pottery.", "Melanie is keen on pottery."),
            ("Melanie", "I can't wait for the show.", "Melanie can't wait for the show."),
            // A verb in the present takes its form after a name.
            ("Melanie", "I love painting.", "Melanie loves painting."),
            ("Melanie", "I really think so.", "Melanie really thinks so."),
            ("Melanie", "Yeah, I play clarinet!", "Melanie plays clarinet!"),
            ("Jon", "I watch the sunrise every morning.", "Jon watches the sunrise every morning."),
            ("Gina", "I try to dance daily.", "Gina tries to dance daily."),
            ("Gina", "I have two studios downtown.", "Gina has two studios downtown."),
            ("Jon", "I don't eat meat.", "Jon doesn't eat meat."),
            ("Jon", "I enjoy the ride.", "Jon enjoys the ride."),
            // A side of a transcript without names, and a verb whose
            // present and past are alike, past beside the past joined to it.
            ("the user", "My sourdough bread comes out dense.", "The user's sourdough bread comes out dense."),
            (
                "the assistant",
                "I set EMAIL_PORT = 587 in settings.py and kept EMAIL_USE_TLS = True.",
                "The assistant set EMAIL_PORT = 587 in settings.py and kept EMAIL_USE_TLS = True.",
            ),
        ];
        for (who, said, want) in cases {
            assert_eq!(in_third_person(who, said).as_deref(), Some(want), "{said}");
            assert_eq!(rewrite_fault(who, said, want), None, "{want}");
        }
        // A verb that would change its form, a word the clause lacks, "we"
        // or "you", the speaker twice, nothing in the first person.
        for said in [
            "I mean, it was fine.",
            "I usually paint at night.",
            "I too love it.",
            "I'll be there.",
            "I'd say so.",
            "I really am keen on pottery.",
            "I read it last week.",
            "I set the alarm and it rang.",
            "How do I check that the backups can be restored?",
            "We went camping.",
            "I told you so.",
            "I took my kids there.",
            "The colors are great.",
        ] {
            assert_eq!(in_third_person("Melanie", said), None, "{said}");
        }
    }

    #[test]
    fn a_request_that_opens_with_its_verb_is_told_as_asked() {
        let cases = [
            (
                "Commit it with a message that explains the race.",
                "The user asked to commit it with a message that explains the race.",
            ),
            (
                "Add the fallback and pin the Python version too.",
                "The user asked to add the fallback and pin the Python version too.",
            ),
            ("Clean up the old snapshots", "The user asked to clean up the old snapshots."),
            ("Please, pin the Rust toolchain to 1.95.", "The user asked to pin the Rust toolchain to 1.95."),
            ("Run ci/test.sh with --verbose.", "The user asked to run ci/test.sh with --verbose."),
        ];
        for (said, want) in cases {
            assert_eq!(as_request("the user", said).as_deref(), Some(want), "{said}");
        }
        for said in [
            "Test coverage dropped to 80%.",
            "Password reset emails from the shop never arrive.",
            "How do I check that the backups can be restored?",
            "Build times doubled since Monday.",
            "Fix.",
            "…commit it now.",
        ] {
            assert_eq!(as_request("the user", said), None, "{said}");
        }
    }

    #[test]
    fn a_rewrite_must_name_the_speaker_leave_no_first_or_second_person_and_be_one_sentence() {
        let clause = "The support group has made me feel accepted.";
        let why = rewrite_fault("Caroline", clause, "Caroline's support group has made me feel accepted.");
        assert!(why.is_some_and(|w| w.contains("\"me\"")));
        let why = rewrite_fault("Caroline", "I went there yesterday.", "She went there yesterday.");
        assert!(why.is_some_and(|w| w.contains("does not name")));
        let why = rewrite_fault("Melanie", "My kids are excited!", "Melanie's kids are excited. They are.");
        assert!(why.is_some_and(|w| w.contains("one sentence")));
        let why = rewrite_fault(
            "Melanie",
            "Helps me stay present for my fam!",
            "Melanie Helps her stay present for her fam.",
        );
        assert!(why.is_some_and(|w| w.contains("capital")), "the clause's subject was left out");
        assert!(speaks_for_itself(clause));
        assert!(!speaks_for_itself("The black and white design looks so fancy."));
        assert!(!speaks_for_itself("I love your kind words."), "'your' would become the speaker's");
        assert!(!speaks_for_itself("We can make a real impact together!"), "'we' is more than the speaker");
    }

    #[test]
    fn a_user_s_question_of_a_known_shape_is_told_as_asked() {
        let cases = [
            (
                "Are there other places that open SMTP connections themselves?",
                "The user asked whether there are other places that open SMTP connections themselves.",
            ),
            (
                "How do I check that the backups can actually be restored?",
                "The user asked how to check that the backups can actually be restored.",
            ),
            (
                "What hydration should I use for a first sourdough loaf?",
                "The user asked what hydration to use for a first sourdough loaf.",
            ),
            (
                "How long should I bake it and at what temperature?",
                "The user asked how long to bake it and at what temperature.",
            ),
            (
                "Can you add the fallback and pin the Python version too?",
                "The user asked to add the fallback and pin the Python version too.",
            ),
            ("Is there a flag for dry runs?", "The user asked whether there is a flag for dry runs."),
        ];
        for (asked, told) in cases {
            assert_eq!(as_question("the user", asked).as_deref(), Some(told), "{asked}");
            assert_eq!(is_told_question(told), !told.contains("asked to"), "{told}");
        }
        assert!(!is_told_question("The user asked to commit it."));
        assert!(!is_told_question("The kids asked what to do about the puppy."));
        // Not a statement, another shape, or words whose owner a report loses.
        for kept in [
            "There are other places that open SMTP connections.",
            "Why do I get a timeout?",
            "Should the restic repository be encrypted if the disk stays at home?",
            "How should I back up my home server's /srv folder every night?",
            "What do you think of restic?",
            "Can you believe it?",
            "How does it work?",
            "Is there more? Tell me.",
            "What do I need to change?",
            "What do I have to do first?",
        ] {
            assert_eq!(as_question("the user", kept), None, "{kept}");
        }
    }
}
