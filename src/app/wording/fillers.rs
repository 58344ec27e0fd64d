//! Filler sounds taken out: English "um", "uh", "erm", "hmm", Polish "yyy", "eee", "yy", "ee",
//! "mmm" — whole words only, with the comma Whisper puts after them, and the sentence's capital
//! and final mark kept ("Um, I think so." → "I think so."; "Myślę, yyy, że tak." → "Myślę, że
//! tak."). Real words that look alike ("a", "e-mail", "hm" as part of "hmmm…") are not fillers.

use super::commands::capitalise;
use super::token::split;

/// Whether `word` (no punctuation) is a filler sound.
fn is_filler(word: &str) -> bool {
    let w = word.to_lowercase();
    // "um", "umm", "uh", "uhh", "hmm", "hmmm": a first letter, then one repeated.
    let then_repeated = |first: char, rest: char, min: usize| {
        w.len() >= min && w.starts_with(first) && w[first.len_utf8()..].chars().all(|c| c == rest)
    };
    let repeated = |c: char| w.chars().count() >= 2 && w.chars().all(|x| x == c);
    then_repeated('u', 'm', 2)
        || then_repeated('u', 'h', 2)
        || then_repeated('h', 'm', 3)
        || matches!(w.as_str(), "erm" | "mhm")
        || repeated('y')
        || repeated('e')
        || repeated('m')
}

/// Words before which a comma belongs anyway (Polish requires it before these conjunctions and
/// pronouns), so "Myślę, yyy, że" keeps its first comma while "we should, uh, move" loses it.
const COMMA_BEFORE: &[&str] = &[
    "ze", "zeby", "ktory", "ktora", "ktore", "ktorzy", "ktorego", "bo", "ale", "gdy", "gdyz",
    "jesli", "jezeli", "poniewaz", "czy", "a", "but", "which", "who",
];

/// `text` without its filler sounds; unchanged when it has none.
pub fn remove(text: &str) -> String {
    let tokens: Vec<&str> = text.split(' ').collect();
    if !tokens.iter().any(|t| is_filler(split(t).1)) {
        return text.to_string();
    }
    let mut kept: Vec<String> = Vec::with_capacity(tokens.len());
    let mut capital_next = false;
    for (i, token) in tokens.iter().enumerate() {
        let (lead, word, trail) = split(token);
        if !is_filler(word) || word.is_empty() {
            let mut token = token.to_string();
            if capital_next {
                token = format!("{lead}{}{trail}", capitalise(word));
                capital_next = false;
            }
            kept.push(token);
            continue;
        }
        let starts_sentence = kept
            .last()
            .is_none_or(|previous| previous.ends_with(['.', '?', '!', '\n']));
        // A sentence's end the filler carried goes to the word before it.
        if let Some(end) = trail.chars().find(|c| matches!(c, '.' | '?' | '!')) {
            if let Some(previous) = kept.last_mut() {
                while previous.ends_with([',', ';', ':']) {
                    previous.pop();
                }
                if !previous.ends_with(['.', '?', '!']) {
                    previous.push(end);
                }
            }
            capital_next = true;
        } else if starts_sentence && tokens.get(i + 1).is_some() {
            capital_next = word.chars().next().is_some_and(char::is_uppercase);
        } else if trail.contains(',') {
            let next = tokens.get(i + 1).map(|t| super::fold::fold(split(t).1));
            let keeps_comma = next.is_some_and(|n| COMMA_BEFORE.contains(&n.as_str()));
            if let Some(previous) = kept.last_mut() {
                if !keeps_comma && previous.ends_with(',') {
                    previous.pop();
                }
            }
        }
    }
    kept.join(" ").trim_matches(' ').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fillers_go_with_their_commas_and_the_sentence_stays_whole() {
        assert_eq!(
            remove("Um, I think we should, uh, move the meeting to Friday."),
            "I think we should move the meeting to Friday."
        );
        assert_eq!(
            remove("Yyy, myślę, że eee to dobry pomysł."),
            "Myślę, że to dobry pomysł."
        );
        assert_eq!(remove("To jest dobre, yyy."), "To jest dobre.");
        assert_eq!(remove("Umm... okay."), "Okay.");
        assert_eq!(remove("Hmm."), "");
    }

    #[test]
    fn words_that_only_look_like_fillers_stay() {
        for text in [
            "A to jest moje e-mail.",
            "I need an umbrella and a hummus wrap.",
            "Emma said yes.",
            "Ee-commerce is growing.",
            "Mamy 2 e-booki.",
            "The meeting is at noon.",
            // Whisper's own text (`base`) for "I think we should, umm, move the meeting to
            // Friday" (espeak-ng): it left the filler out itself; nothing else goes.
            "I think we should move a meeting to Friday.",
        ] {
            assert_eq!(remove(text), text, "{text:?}");
        }
    }
}
