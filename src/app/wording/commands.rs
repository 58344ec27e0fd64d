//! Spoken punctuation and layout ("new line", "nowy akapit", "kropka", "question mark") turned
//! into characters. A command counts only when it is a whole clause of Whisper's text — between
//! punctuation marks, line breaks or the ends of the text — because that is how Whisper writes a
//! word said on its own ("Hello. New line. How are you?", "To jest test, kropka."); inside a
//! clause the words are ordinary speech ("a new line of products" stays).

use super::fold::fold;

/// What a command puts into the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    /// A punctuation mark, written right after the previous word.
    Mark(char),
    /// Line breaks: 1 for a new line, 2 for a new paragraph.
    Breaks(usize),
}

/// The phrases (folded: lowercase, no diacritics) and what they mean, English then Polish.
const COMMANDS: &[(&str, Command)] = &[
    ("new line", Command::Breaks(1)),
    ("newline", Command::Breaks(1)),
    ("next line", Command::Breaks(1)),
    ("new paragraph", Command::Breaks(2)),
    ("next paragraph", Command::Breaks(2)),
    ("period", Command::Mark('.')),
    ("full stop", Command::Mark('.')),
    ("comma", Command::Mark(',')),
    ("question mark", Command::Mark('?')),
    ("exclamation mark", Command::Mark('!')),
    ("exclamation point", Command::Mark('!')),
    ("colon", Command::Mark(':')),
    ("semicolon", Command::Mark(';')),
    ("nowa linia", Command::Breaks(1)),
    ("nowa linijka", Command::Breaks(1)),
    ("nowy wiersz", Command::Breaks(1)),
    ("nowy akapit", Command::Breaks(2)),
    ("kropka", Command::Mark('.')),
    ("przecinek", Command::Mark(',')),
    ("znak zapytania", Command::Mark('?')),
    ("pytajnik", Command::Mark('?')),
    ("wykrzyknik", Command::Mark('!')),
    ("znak wykrzyknika", Command::Mark('!')),
    ("dwukropek", Command::Mark(':')),
    ("srednik", Command::Mark(';')),
];

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

fn command(words: &str) -> Option<Command> {
    let folded = fold(words.trim());
    let folded = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    COMMANDS
        .iter()
        .find(|(phrase, _)| *phrase == folded)
        .map(|&(_, command)| command)
}

/// `text` with its spoken commands carried out; unchanged when it has none.
pub fn apply(text: &str) -> String {
    let parts = clauses(text);
    if !parts.iter().any(|c| command(c.words).is_some()) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    // After a command: the next words start without the space Whisper put before them, and
    // with a capital after a sentence's end or a line break.
    let mut after_command: Option<Command> = None;
    for clause in parts {
        match command(clause.words) {
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

    #[test]
    fn commands_said_on_their_own_become_characters() {
        // Whisper's own text (`base`, `transcribe --as-app`) for espeak-ng speech with a pause
        // around each command: it writes them as clauses of their own.
        assert_eq!(
            apply("There Anna. New Line. Thank you for the report."),
            "There Anna.\nThank you for the report."
        );
        assert_eq!(
            apply("first point. new paragraph. second point."),
            "first point.\n\nSecond point."
        );
        assert_eq!(apply("is it ready? Question mark."), "is it ready?");
        assert_eq!(
            apply("szanowni państwu. Nowy akapit. Jękuję mas podkanie."),
            "szanowni państwu.\n\nJękuję mas podkanie."
        );
        // The same shapes as Whisper writes them for natural speech.
        assert_eq!(
            apply("Dear Anna. New line. Thank you for the report."),
            "Dear Anna.\nThank you for the report."
        );
        assert_eq!(
            apply("First point. New paragraph. Second point."),
            "First point.\n\nSecond point."
        );
        assert_eq!(apply("Is it ready, question mark."), "Is it ready?");
        assert_eq!(apply("To jest test, kropka."), "To jest test.");
        assert_eq!(
            apply("Szanowni Państwo, nowy akapit. Dziękuję za spotkanie."),
            "Szanowni Państwo,\n\nDziękuję za spotkanie."
        );
        assert_eq!(
            apply("Kupiłem chleb, przecinek, masło i mleko."),
            "Kupiłem chleb, masło i mleko."
        );
        assert_eq!(
            apply("Czy przyjdziesz jutro? Znak zapytania."),
            "Czy przyjdziesz jutro?"
        );
        assert_eq!(
            apply("Witam. Nowa linia. Przesyłam raport."),
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
            assert_eq!(apply(text), text, "{text:?}");
        }
    }

    #[test]
    fn a_text_that_is_only_a_command_gives_its_character() {
        assert_eq!(apply("New line."), "\n");
        assert_eq!(apply("Kropka."), ".");
    }
}
