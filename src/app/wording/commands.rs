//! Spoken punctuation and layout ("new line", "nowy akapit", "kropka", "question mark") turned
//! into characters — only where the evidence that the words were a command is strong, because a
//! command taken for words costs the person one word to delete, while words taken for a command
//! lose what they said ("Biopsy sites: stomach, duodenum, colon." must keep its colon).
//!
//! A clause of Whisper's text (the words between punctuation marks, line breaks or the ends of
//! the text) is a command when all of these hold:
//! 1. it is a command phrase of the transcript's language ([`Language`]: "kropka" only in
//!    Polish text, "period" only in English; no commands in other languages);
//! 2. it stands on its own — a sentence of its own ("Hello. New line. How are you?", "Kropka.")
//!    — or it follows a comma the way a dictated mark does ("Is it ready, question mark.", "To
//!    jest test, kropka.", "Kupiłem chleb, przecinek, masło"), and then:
//!    - it is not an ordinary word of the language too (English "period", "colon", "comma":
//!      "I said no, period." and "stomach, colon." keep their word; after a comma only the
//!      phrases that are nothing but commands count),
//!    - it does not end a list: the clause before it does not itself follow a comma or a colon
//!      while being a short item (up to three words: "stomach, duodenum, kropka" is a list);
//! 3. it does not follow a colon or a semicolon (what follows "Sites:" is content).
//!
//! Inside a clause the words are always ordinary speech ("a new line of products" stays).

use super::fold::fold;
use super::language::Language;

/// What a command puts into the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    /// A punctuation mark, written right after the previous word.
    Mark(char),
    /// Line breaks: 1 for a new line, 2 for a new paragraph.
    Breaks(usize),
}

/// Whether a phrase is also an ordinary word of its language (then it is a command only as a
/// sentence of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Also {
    Nothing,
    AWord,
}

/// The English phrases (folded: lowercase, no diacritics) and what they mean.
const ENGLISH: &[(&str, Command, Also)] = &[
    ("new line", Command::Breaks(1), Also::Nothing),
    ("newline", Command::Breaks(1), Also::Nothing),
    ("next line", Command::Breaks(1), Also::Nothing),
    ("new paragraph", Command::Breaks(2), Also::Nothing),
    ("next paragraph", Command::Breaks(2), Also::Nothing),
    ("period", Command::Mark('.'), Also::AWord),
    ("full stop", Command::Mark('.'), Also::Nothing),
    ("comma", Command::Mark(','), Also::AWord),
    ("question mark", Command::Mark('?'), Also::Nothing),
    ("exclamation mark", Command::Mark('!'), Also::Nothing),
    ("exclamation point", Command::Mark('!'), Also::Nothing),
    ("colon", Command::Mark(':'), Also::AWord),
    ("semicolon", Command::Mark(';'), Also::Nothing),
];

/// The Polish phrases (folded) and what they mean.
const POLISH: &[(&str, Command, Also)] = &[
    ("nowa linia", Command::Breaks(1), Also::Nothing),
    ("nowa linijka", Command::Breaks(1), Also::Nothing),
    ("nowy wiersz", Command::Breaks(1), Also::Nothing),
    ("nowy akapit", Command::Breaks(2), Also::Nothing),
    ("kropka", Command::Mark('.'), Also::Nothing),
    ("przecinek", Command::Mark(','), Also::Nothing),
    ("znak zapytania", Command::Mark('?'), Also::Nothing),
    ("pytajnik", Command::Mark('?'), Also::Nothing),
    ("wykrzyknik", Command::Mark('!'), Also::Nothing),
    ("znak wykrzyknika", Command::Mark('!'), Also::Nothing),
    ("dwukropek", Command::Mark(':'), Also::Nothing),
    ("srednik", Command::Mark(';'), Also::Nothing),
];

/// The command phrases of `language` (none for a language without a list).
fn phrases(language: Language) -> &'static [(&'static str, Command, Also)] {
    match language {
        Language::English => ENGLISH,
        Language::Polish => POLISH,
        Language::Other => &[],
    }
}

/// Characters that end a clause.
fn is_separator(c: char) -> bool {
    matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | '\n' | '…')
}

/// One clause of the text and the separators (punctuation and spaces) after it.
struct Clause<'a> {
    words: &'a str,
    after: &'a str,
}

fn clauses(text: &str) -> Vec<Clause<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !is_separator(c) {
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, next)) = chars.peek() {
            if is_separator(next) || next.is_whitespace() {
                end = j + next.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        out.push(Clause {
            words: &text[start..i],
            after: &text[i..end],
        });
        start = end;
    }
    if start < text.len() {
        out.push(Clause {
            words: &text[start..],
            after: "",
        });
    }
    out
}

/// The command phrase of `language` that `words` are, if any.
fn phrase(words: &str, language: Language) -> Option<(Command, Also)> {
    let folded = fold(words.trim());
    let folded = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    phrases(language)
        .iter()
        .find(|(phrase, _, _)| *phrase == folded)
        .map(|&(_, command, also)| (command, also))
}

/// The kind of mark a clause's separators start with (`None`: the start of the text).
fn mark_kind(after: Option<&str>) -> Option<char> {
    after.map(|a| a.trim_start_matches(' ').chars().next().unwrap_or(' '))
}

/// Which clauses of `parts` are commands, by the rules in the module doc.
fn commands(parts: &[Clause<'_>], language: Language) -> Vec<Option<Command>> {
    let sentence_end =
        |c: Option<char>| c.is_none_or(|c| matches!(c, '.' | '?' | '!' | '…' | '\n'));
    (0..parts.len())
        .map(|i| {
            let (command, also) = phrase(parts[i].words, language)?;
            let before = mark_kind(i.checked_sub(1).map(|j| parts[j].after));
            let after = parts[i].after.trim_start_matches(' ').chars().next();
            // A sentence of its own: a sentence's end (or the text's) on both sides.
            if sentence_end(before) && sentence_end(after) {
                return Some(command);
            }
            if before != Some(',') || also == Also::AWord {
                return None;
            }
            // The clause before this one: an item of a list when it follows a comma or a colon
            // and is short.
            let list_item = i >= 2
                && matches!(mark_kind(Some(parts[i - 2].after)), Some(',' | ':' | ';'))
                && parts[i - 1].words.split_whitespace().count() <= 3;
            (!list_item).then_some(command)
        })
        .collect()
}

/// `text` with its spoken commands of `language` carried out; unchanged when it has none.
pub fn apply(text: &str, language: Language) -> String {
    let parts = clauses(text);
    let found = commands(&parts, language);
    if found.iter().all(Option::is_none) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    // After a command: the next words start without the space Whisper put before them, and
    // with a capital after a sentence's end or a line break.
    let mut after_command: Option<Command> = None;
    for (clause, command) in parts.iter().zip(found) {
        match command {
            Some(Command::Mark(mark)) => {
                trim_end_spaces(&mut out);
                while out.ends_with([',', ';', ':', '.']) {
                    out.pop();
                }
                // "Czy przyjdziesz jutro? Znak zapytania." has its mark already.
                let ends_sentence = |m: char| matches!(m, '.' | '?' | '!');
                if !(ends_sentence(mark) && out.ends_with(['?', '!'])) {
                    out.push(mark);
                }
                after_command = Some(Command::Mark(mark));
            }
            Some(Command::Breaks(n)) => {
                trim_end_spaces(&mut out);
                for _ in 0..n {
                    out.push('\n');
                }
                after_command = Some(Command::Breaks(n));
            }
            None => {
                let mut words = clause.words.to_string();
                if let Some(previous) = after_command.take() {
                    words = words.trim_start().to_string();
                    let capital = match previous {
                        Command::Breaks(_) => true,
                        Command::Mark(mark) => matches!(mark, '.' | '?' | '!'),
                    };
                    if capital {
                        words = capitalise(&words);
                    }
                    if matches!(previous, Command::Mark(_)) && !out.is_empty() {
                        out.push(' ');
                    }
                }
                out.push_str(&words);
                out.push_str(clause.after);
            }
        }
    }
    trim_end_spaces(&mut out);
    out.trim_start_matches(' ').to_string()
}

fn trim_end_spaces(text: &mut String) {
    while text.ends_with(' ') {
        text.pop();
    }
}

/// `text` with its first letter in upper case.
pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Language::{English, Polish};

    #[test]
    fn commands_said_on_their_own_become_characters() {
        // Whisper's own text (`base`, `transcribe --as-app`) for espeak-ng speech with a pause
        // around each command: it writes them as clauses of their own.
        assert_eq!(
            apply("There Anna. New Line. Thank you for the report.", English),
            "There Anna.\nThank you for the report."
        );
        assert_eq!(
            apply("first point. new paragraph. second point.", English),
            "first point.\n\nSecond point."
        );
        assert_eq!(
            apply("is it ready? Question mark.", English),
            "is it ready?"
        );
        assert_eq!(
            apply(
                "szanowni państwu. Nowy akapit. Jękuję mas podkanie.",
                Polish
            ),
            "szanowni państwu.\n\nJękuję mas podkanie."
        );
        // The same shapes as Whisper writes them for natural speech.
        assert_eq!(
            apply("Dear Anna. New line. Thank you for the report.", English),
            "Dear Anna.\nThank you for the report."
        );
        assert_eq!(
            apply("First point. New paragraph. Second point.", English),
            "First point.\n\nSecond point."
        );
        assert_eq!(
            apply("Is it ready, question mark.", English),
            "Is it ready?"
        );
        assert_eq!(apply("To jest test, kropka.", Polish), "To jest test.");
        assert_eq!(
            apply(
                "Szanowni Państwo, nowy akapit. Dziękuję za spotkanie.",
                Polish
            ),
            "Szanowni Państwo,\n\nDziękuję za spotkanie."
        );
        assert_eq!(
            apply("Kupiłem chleb, przecinek, masło i mleko.", Polish),
            "Kupiłem chleb, masło i mleko."
        );
        assert_eq!(
            apply("Czy przyjdziesz jutro? Znak zapytania.", Polish),
            "Czy przyjdziesz jutro?"
        );
        assert_eq!(
            apply("Witam. Nowa linia. Przesyłam raport.", Polish),
            "Witam.\nPrzesyłam raport."
        );
    }

    #[test]
    fn the_same_words_inside_a_sentence_stay_words() {
        for text in [
            "We are launching a new line of products next year.",
            "The period of the contract is two years.",
            "Put a comma after the greeting.",
            "Na końcu zdania stawiamy kropka, a nie przecinek.",
            "Nowa linia kolejowa połączy Łódź z Warszawą.",
            "Kropka nad i.",
            "Pay 3.50 for it, then 4,20 for the rest.",
            "",
        ] {
            assert_eq!(apply(text, English), text, "{text:?}");
            assert_eq!(apply(text, Polish), text, "{text:?}");
        }
    }

    #[test]
    fn a_text_that_is_only_a_command_gives_its_character() {
        assert_eq!(apply("New line.", English), "\n");
        assert_eq!(apply("Kropka.", Polish), ".");
    }

    /// Issue 25: "Biopsy sites: stomach, duodenum, colon." lost its colon.
    #[test]
    fn a_word_ending_a_list_or_said_in_another_language_stays_a_word() {
        for (text, language) in [
            ("Biopsy sites: stomach, duodenum, colon.", English),
            ("Biopsy sites: stomach, colon.", English),
            ("Sites: colon, stomach.", English),
            ("The samples came from the stomach, colon.", English),
            ("I said no, period.", English),
            ("We need three things: a comma, a colon, a period.", English),
            ("Znaki: kreska, kropka, przecinek.", Polish),
            ("Kupiłem jabłka, gruszki, kropka.", Polish),
            ("Lista: chleb, masło, nowa linia.", Polish),
            ("Uwaga: kropka.", Polish),
            ("Is it ready, question mark.", Polish),
            ("To jest test, kropka.", English),
            ("New line.", Polish),
            ("Kropka.", English),
            ("Kropka.", Language::Other),
            ("New line, then the address.", English),
            ("Kropka, to znaczy koniec.", Polish),
        ] {
            assert_eq!(apply(text, language), text, "{text:?} ({language:?})");
        }
    }
}
