//! Who said it: a turn summary that puts one side's words in the other's
//! mouth. SmolLM2-135M, held to a turn's words, wrote "The user asked how
//! to sendtestemail now reports 1 message sent" of a turn whose user said
//! "That fixed it." and whose assistant reported the test mail, and, of a
//! LoCoMo turn where Melanie shared a photo, "The user asked how to show
//! Oliver, a black dog with a frisbee". Every word is the turn's and the
//! words are close together in it, so the word and relation checks pass;
//! what is false is who said them.
//!
//! The check reads each reporting frame of a sentence ("the user asked",
//! "the assistant explained") and the words after it, up to the next
//! frame or a ";": of the content words there that only one side of the
//! turn has, at most half may be the other side's.

use std::collections::HashSet;

use super::{content_words, stem};

/// The two sides of a turn as their content-word stems.
pub struct Sides {
    user: HashSet<String>,
    assistant: HashSet<String>,
    /// Every word the user said, stop words too ("how", "why").
    user_words: HashSet<String>,
    /// Whether the user asked anything (a "?").
    user_asks: bool,
    /// The two people's names, lower case, in a turn between named
    /// speakers ([`named_people`]): "Melanie explained …" is a frame too.
    names: Option<(String, String)>,
}

/// What "the user asked …" may say was asked: each needs the user's own
/// word ("The user asked how to cherish moments" of "Cherish the moments -
/// they're the best!" is false); "if" and "whether" need a question.
const ASKED: &[&str] = &["how", "why", "where", "when", "who", "what", "which", "if", "whether"];

/// Words after which a name starts a clause as its subject.
const SUBJECT_AFTER: &[&str] = &["and", "but", "then", "while", "so", "when", "after", "as", "because"];

/// Which side a frame gives the words after it to.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    User,
    Assistant,
}

impl Sides {
    /// `user`: what the user said (for a follow-up, with the request it
    /// follows); `assistant`: the reply.
    pub fn new(user: &[&str], assistant: &str) -> Self {
        let stems = |t: &str| content_words(t).iter().map(|w| stem(w)).collect::<HashSet<_>>();
        Sides {
            user: user.iter().flat_map(|u| stems(u)).collect(),
            assistant: stems(assistant),
            user_words: user.iter().flat_map(|u| crate::text::words(u)).collect(),
            user_asks: user.iter().any(|u| u.contains('?')),
            names: user
                .first()
                .and_then(|u| named_people(u, assistant))
                .map(|(u, a)| (u.to_lowercase(), a.to_lowercase())),
        }
    }

    /// The side a sentence tells of, where its words say: of the content
    /// words only one side has, at least two are that side's and none the
    /// other's. "She shared her cat with its head on the floor" of a turn
    /// whose reply shares that photo tells of the reply's speaker.
    fn told_of(&self, sentence: &str) -> Option<Side> {
        let said: HashSet<String> = content_words(sentence).iter().map(|w| stem(w)).collect();
        let user = said.iter().filter(|s| self.user.contains(*s) && !self.assistant.contains(*s)).count();
        let assistant = said.iter().filter(|s| self.assistant.contains(*s) && !self.user.contains(*s)).count();
        match (user, assistant) {
            (u, 0) if u >= 2 => Some(Side::User),
            (0, a) if a >= 2 => Some(Side::Assistant),
            _ => None,
        }
    }

    /// A sentence that opens with "She" or "He" with that person named,
    /// where its words say which side it tells of ([`Sides::told_of`]):
    /// an L2 is read alone, in search results and in digests, where "She"
    /// names no one. Otherwise the sentence as it is.
    pub fn with_subject_named(&self, sentence: &str, user: &str, assistant: &str) -> String {
        let Some((first, rest)) = sentence.split_once(' ') else { return sentence.to_string() };
        if !matches!(first, "She" | "He") {
            return sentence.to_string();
        }
        match self.told_of(rest) {
            Some(Side::User) => format!("{user} {rest}"),
            Some(Side::Assistant) => format!("{assistant} {rest}"),
            None => sentence.to_string(),
        }
    }

    /// Why a sentence cannot be kept: a frame of one side says mostly
    /// what only the other side said.
    pub fn fault(&self, sentence: &str) -> Option<String> {
        for piece in sentence.split([';', '—']) {
            let ws = crate::text::words(piece);
            // Where each frame starts, where its verb is and whose it is:
            // "the user <verb>", or between named people "<name> <verb>"
            // where the name is a clause's subject (first, or after "and":
            // not "Caroline told Melanie of …").
            let subject = |i: usize| i == 0 || SUBJECT_AFTER.contains(&ws[i - 1].as_str());
            let frames: Vec<(usize, usize, Side)> = (0..ws.len().saturating_sub(1))
                .filter_map(|i| match (ws[i].as_str(), ws[i + 1].as_str()) {
                    ("the", "user") if i + 2 < ws.len() => Some((i, i + 2, Side::User)),
                    ("the", "assistant") if i + 2 < ws.len() => Some((i, i + 2, Side::Assistant)),
                    (name, _) if subject(i) => match &self.names {
                        Some((user, _)) if name == user => Some((i, i + 1, Side::User)),
                        Some((_, assistant)) if name == assistant => Some((i, i + 1, Side::Assistant)),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            for (k, &(_, verb, side)) in frames.iter().enumerate() {
                let end = frames.get(k + 1).map_or(ws.len(), |f| f.0);
                let said: HashSet<String> =
                    ws[verb + 1..end].iter().flat_map(|w| content_words(w)).map(|w| stem(&w)).collect();
                let (own, other) = match side {
                    Side::User => (&self.user, &self.assistant),
                    Side::Assistant => (&self.assistant, &self.user),
                };
                let sided: Vec<&String> = said.iter().filter(|s| own.contains(*s) != other.contains(*s)).collect();
                let theirs: Vec<&str> =
                    sided.iter().filter(|s| other.contains(**s)).map(|s| s.as_str()).collect::<Vec<_>>();
                if sided.len() >= 2 && theirs.len() * 2 > sided.len() {
                    let (user, assistant) = match &self.names {
                        Some((u, a)) => (crate::text::capitalized(u), crate::text::capitalized(a)),
                        None => ("the user".to_string(), "the assistant".to_string()),
                    };
                    let (who, whom) = match side {
                        Side::User => (user, assistant),
                        Side::Assistant => (assistant, user),
                    };
                    let mut shown = theirs;
                    shown.sort_unstable();
                    return Some(format!("the sentence gives {who} what {whom} said ({})", shown.join(", ")));
                }
                if side == Side::User && ws[verb] == "asked" {
                    if let Some(w) = ws.get(verb + 1).filter(|w| ASKED.contains(&w.as_str())) {
                        let asked = if matches!(w.as_str(), "if" | "whether") {
                            self.user_asks
                        } else {
                            self.user_words.contains(w)
                        };
                        if !asked {
                            return Some(format!("the sentence says the user asked {w}, which the user never asks"));
                        }
                    }
                }
            }
        }
        None
    }
}

/// The two people of a turn between named speakers: the one name that
/// labels every labelled line the user side has, and the other one that
/// labels the reply's ("Melanie: …" / "Caroline: …"); `None` for a turn
/// with a user and an assistant.
pub fn named_people(user: &str, assistant: &str) -> Option<(String, String)> {
    let one = |text: &str| {
        let mut names = text.lines().filter_map(crate::pipeline::digest::named_speaker).map(|(who, _)| who);
        let first = names.next()?;
        names.all(|n| n == first).then(|| first.to_string())
    };
    let (u, a) = (one(user)?, one(assistant)?);
    (u != a).then_some((u, a))
}

/// A turn summary of two named people with its frames naming them: the
/// model is shown turns of a user and an assistant, and SmolLM2-135M
/// reports a chat between Caroline and Melanie in that frame ("The user
/// asked how it was, and Melanie explained …; the assistant added …").
/// "The user" becomes the user side's name and "the assistant" the
/// reply's; a sentence that calls one of them "the other person", or has
/// a person ask or tell themselves once named ("The user asked Caroline
/// …" where Caroline is the user), is refused: it has the sides wrong.
pub fn with_people_named(sentence: &str, user: &str, assistant: &str) -> Result<String, String> {
    let lower = sentence.to_ascii_lowercase();
    for other in ["the other person", "the other speaker"] {
        if lower.contains(other) {
            return Err(format!("the sentence calls a speaker {other:?}, not by name"));
        }
    }
    let at_word = |i: usize, len: usize| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + len..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    };
    let mut out = String::with_capacity(sentence.len());
    let mut i = 0;
    while i < sentence.len() {
        let frame = [("the user", user), ("the assistant", assistant)]
            .into_iter()
            .find(|(f, _)| lower[i..].starts_with(f) && at_word(i, f.len()));
        match frame {
            Some((f, name)) => {
                out.push_str(name);
                i += f.len();
            }
            None => {
                let c = sentence[i..].chars().next().expect("inside the sentence");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    let ws: Vec<&str> =
        out.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')).collect();
    for name in [user, assistant] {
        if ws.windows(3).any(|w| w[0] == name && w[2] == name) {
            return Err(format!("the sentence has {name} speak to {name}"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_between_named_people_is_told_of_them_by_name() {
        let (user, assistant) = named_people(
            "Caroline: Hey Mel! I went to a pride parade last Friday.\nCaroline: It was amazing.",
            "Melanie: Wow, that sounds great!",
        )
        .unwrap();
        assert_eq!((user.as_str(), assistant.as_str()), ("Caroline", "Melanie"));
        // A user and an assistant, or one person on both sides, are not two named people.
        assert_eq!(named_people("How do I back up /srv?", "Use restic."), None);
        assert_eq!(named_people("Caroline: Hi!", "Caroline: Hello again."), None);
        assert_eq!(named_people("Caroline: Hi!\nJon: Hey.", "Melanie: Hello."), None);
        // SmolLM2-135M's L2s of LoCoMo turns, as stored before this rule.
        assert_eq!(
            with_people_named(
                "The user asked how it was, and Melanie explained that she had a great day; the assistant added: \
                 Family moments make life awesome.",
                "Caroline",
                "Melanie"
            )
            .unwrap(),
            "Caroline asked how it was, and Melanie explained that she had a great day; Melanie added: Family \
             moments make life awesome."
        );
        assert_eq!(
            with_people_named("The user's painting, the assistant's bowl; the username stays.", "Jon", "Gina").unwrap(),
            "Jon's painting, Gina's bowl; the username stays."
        );
        let why = with_people_named(
            "The user asked Caroline about a bowl, and the assistant explained that it took some work to make.",
            "Caroline",
            "Melanie",
        )
        .unwrap_err();
        assert!(why.contains("Caroline speak to Caroline"), "{why}");
        let why = with_people_named(
            "The assistant explained that it is a photo of a horse; the other person has been described as a horse.",
            "Caroline",
            "Melanie",
        )
        .unwrap_err();
        assert!(why.contains("the other person"), "{why}");
    }

    #[test]
    fn a_sentence_that_opens_with_she_names_the_side_its_words_are_from() {
        // LoCoMo's turn: SmolLM2-135M's L2 began "She shared …".
        let sides = Sides::new(
            &["Caroline: That's so sweet! What a great bond you two have."],
            "Melanie: Thanks! Here's Oliver, our cat. [shares a photo: a cat lying with its head on the floor]",
        );
        assert_eq!(
            sides.with_subject_named(
                "She shared a photo of Oliver, their cat, lying on the floor.",
                "Caroline",
                "Melanie"
            ),
            "Melanie shared a photo of Oliver, their cat, lying on the floor."
        );
        // Words of both sides, or of neither, name no one; nor "They".
        for kept in
            ["She shared a great bond with the cat.", "She was happy.", "They shared a photo of Oliver the cat."]
        {
            assert_eq!(sides.with_subject_named(kept, "Caroline", "Melanie"), kept);
        }
    }

    #[test]
    fn the_user_asked_how_needs_a_user_who_asks_how() {
        // What SmolLM2-135M wrote of a LoCoMo turn that asks nothing.
        let sides = Sides::new(
            &["Caroline: Sounds great, Mel! Glad you had a great time. Cherish the moments - they're the best!"],
            "Melanie: Absolutely! It's when I really feel alive and happy.",
        );
        let why = sides
            .fault("The user asked how to cherish moments; the assistant explained that it's when you feel alive.");
        assert!(why.is_some_and(|w| w.contains("asked how")));
        assert!(sides.fault("The user asked about cherishing the moments.").is_none());
        assert!(sides.fault("The user asked if the moments are the best.").is_some());
        // A user who asks how, or asks at all, may be said to.
        let asks = Sides::new(&["How long have you been married?"], "5 years already!");
        assert!(asks.fault("The user asked how long they had been married; the assistant said 5 years.").is_none());
        assert!(asks.fault("The user asked whether they had been married long.").is_none());
    }

    #[test]
    fn a_frame_that_gives_one_side_the_others_words_is_refused() {
        let sides = Sides::new(
            &["That fixed it.", "Password reset emails from the shop never arrive."],
            "Good: sendtestemail now reports 1 message sent, and the reset mail reached a Gmail inbox in 4 seconds.",
        );
        let why = sides
            .fault("The user asked how to sendtestemail now reports 1 message sent, and the reset mail reached a Gmail inbox.")
            .unwrap();
        assert!(why.contains("gives the user what the assistant said"), "{why}");
        // The same facts told as the assistant's are kept.
        assert_eq!(
            sides.fault("The user confirmed the fix; the assistant said sendtestemail reports 1 message sent."),
            None
        );
    }

    #[test]
    fn a_named_frame_that_gives_one_person_the_others_words_is_refused() {
        // LoCoMo: Caroline told of the reading; Melanie only asked.
        let sides = Sides::new(
            &["Caroline: It was a transgender poetry reading where transgender people shared their stories \
               through poetry. [shares a photo: a photography of a sign that says trans lives matter]"],
            "Melanie: Wow, sounds amazing! What was the event like? Those posters are great!",
        );
        // SmolLM2-135M's reply, in the names' frames: every word the turn's.
        let why = sides
            .fault(
                "Caroline asked about the event; Melanie explained that it was a transgender poetry reading, and \
                 she shared a photo of a sign with trans lives matter.",
            )
            .unwrap();
        assert!(why.contains("gives Melanie what Caroline said"), "{why}");
        // Told the other way round, it is kept; a name that is not a
        // frame's ("Caroline's") is no frame.
        assert_eq!(
            sides.fault("Caroline told Melanie of a transgender poetry reading; Melanie liked the posters."),
            None
        );
        assert_eq!(sides.fault("Melanie liked the posters; Caroline's reading was of transgender poetry."), None);
        // Without names, "Melanie" frames nothing.
        let unnamed = Sides::new(
            &["It was a transgender poetry reading where transgender people shared their stories."],
            "Wow, sounds amazing! What was the event like? Those posters are great!",
        );
        assert_eq!(unnamed.fault("Melanie explained that it was a transgender poetry reading."), None);
    }

    #[test]
    fn each_side_may_say_its_own_words_and_the_words_both_sides_share() {
        let sides = Sides::new(
            &["How do I back up /srv every night?"],
            "Use restic with a cron job: restic backup /srv to a repository on a USB disk.",
        );
        // "restic" is the assistant's, but the user's part is mostly the
        // user's own: one of three.
        assert_eq!(
            sides.fault(
                "The user asked how to back up /srv every night with restic; the assistant suggested a cron job."
            ),
            None
        );
        let why = sides.fault("The assistant explained how to back up /srv every night.").unwrap();
        assert!(why.contains("gives the assistant what the user said"), "{why}");
        // A sentence without a frame is not this check's to judge.
        assert_eq!(sides.fault("Restic backs up /srv nightly from cron."), None);
    }
}
