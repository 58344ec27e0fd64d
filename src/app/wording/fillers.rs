//! Filler sounds taken out — only the sounds of hesitation, decided per language, whole words
//! only, with the comma Whisper puts after them, and the sentence's capital and final mark kept
//! ("Um, I think so." → "I think so."; "Myślę, yyy, że tak." → "Myślę, że tak.").
//!
//! What Whisper writes for a hesitation (`base`, `transcribe --json`, checked for issue 25): it
//! often leaves it out (espeak-ng's "I think we should, umm, move the meeting to Friday" gave
//! "I think we should move the meeting to Friday."), and where it writes one it normalises it:
//! espeak-ng's "Hmm. Let me think. Erm, the report is, umm, almost done." gave "Um, let me
//! think. Um, the report is, um, all not done."; flite's "Uh, so, um, the screw is four
//! millimetres long, uh, I guess." gave "So, um, this career is 4,000 years long, uh, I guess."
//! The list also holds the other spellings transcripts use for the same sounds ("Uh", "Hmm",
//! "Mmm") and, for Polish, the written Polish hesitations "Yyy", "Eee" (espeak-ng's Polish
//! hesitations gave `base` no text at all, so that list follows how Polish transcripts write
//! them, not an observation of Whisper). The fillers, per [`Language`]:
//! - English: um/umm…, uh/uhh…, uhm, erm, and the shared ones;
//! - Polish: yy/yyy…, ee/eee…, and the shared ones ("um" is Urząd Miejski, "uh" no Polish sound);
//! - every language (the shared ones): hmm/hmmm… and mmm/mmmm… (three letters or more).
//!
//! Never fillers, whatever the language: a word written in capitals ("UM", "MM", "EEE": an
//! abbreviation), a word next to a number ("4 mm", "5 um", "10 mm": a unit), "mm" of two letters
//! (millimetres: "in mm"), and answers that mean something ("Mhm", "Mm-hmm": yes). Real words
//! that look alike ("a", "e-mail", "umbrella", "Emma") are whole words of their own.

use super::commands::capitalise;
use super::language::Language;
use super::token::split;

/// Whether `word` (no punctuation) is a filler sound of `language`, with `beside_number` true
/// when a number is the word before or after it.
fn is_filler(word: &str, language: Language, beside_number: bool) -> bool {
    let letters = word.chars().count();
    if letters == 0 || beside_number {
        return false;
    }
    // "UM", "MM", "EEE": an abbreviation (a capital first letter alone starts a sentence).
    if letters >= 2 && word.chars().all(char::is_uppercase) {
        return false;
    }
    let w = word.to_lowercase();
    // "um", "umm", "uh", "uhh", "hmm", "hmmm": a first letter, then one repeated.
    let then_repeated = |first: char, rest: char, min: usize| {
        w.chars().count() >= min
            && w.starts_with(first)
            && w[first.len_utf8()..].chars().all(|c| c == rest)
    };
    let repeated = |c: char, min: usize| w.chars().count() >= min && w.chars().all(|x| x == c);
    let shared = then_repeated('h', 'm', 3) || repeated('m', 3);
    shared
        || match language {
            Language::English => {
                then_repeated('u', 'm', 2)
                    || then_repeated('u', 'h', 2)
                    || matches!(w.as_str(), "erm" | "uhm")
            }
            Language::Polish => repeated('y', 2) || repeated('e', 2),
            Language::Other => false,
        }
}

/// Whether `word` is a number as Whisper writes one ("4", "10,5", "3.50", "2nd").
fn is_number(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Words before which a comma belongs anyway (Polish requires it before these conjunctions and
/// pronouns), so "Myślę, yyy, że" keeps its first comma while "we should, uh, move" loses it.
const COMMA_BEFORE: &[&str] = &[
    "ze", "zeby", "ktory", "ktora", "ktore", "ktorzy", "ktorego", "bo", "ale", "gdy", "gdyz",
    "jesli", "jezeli", "poniewaz", "czy", "a", "but", "which", "who",
];

/// `text` without the filler sounds of `language`; unchanged when it has none.
pub fn remove(text: &str, language: Language) -> String {
    let tokens: Vec<&str> = text.split(' ').collect();
    // A number with no punctuation between it and the word ("4 mm", "5 um"): a unit. "3, eee,
    // 4" has commas between, so the "eee" is a hesitation.
    let beside_number = |i: usize| {
        let (lead, _, trail) = split(tokens[i]);
        let before = i.checked_sub(1).map(|j| split(tokens[j]));
        let after = tokens.get(i + 1).map(|t| split(t));
        before.is_some_and(|(_, word, t)| is_number(word) && t.is_empty() && lead.is_empty())
            || after.is_some_and(|(l, word, _)| is_number(word) && l.is_empty() && trail.is_empty())
    };
    let fillers: Vec<bool> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| is_filler(split(t).1, language, beside_number(i)))
        .collect();
    if !fillers.contains(&true) {
        return text.to_string();
    }
    let mut kept: Vec<String> = Vec::with_capacity(tokens.len());
    let mut capital_next = false;
    for (i, token) in tokens.iter().enumerate() {
        let (lead, word, trail) = split(token);
        if !fillers[i] {
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
            capital_next |= word.chars().next().is_some_and(char::is_uppercase);
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
    use Language::{English, Other, Polish};

    #[test]
    fn fillers_go_with_their_commas_and_the_sentence_stays_whole() {
        assert_eq!(
            remove(
                "Um, I think we should, uh, move the meeting to Friday.",
                English
            ),
            "I think we should move the meeting to Friday."
        );
        assert_eq!(
            remove("Yyy, myślę, że eee to dobry pomysł.", Polish),
            "Myślę, że to dobry pomysł."
        );
        assert_eq!(remove("To jest dobre, yyy.", Polish), "To jest dobre.");
        assert_eq!(remove("Umm... okay.", English), "Okay.");
        assert_eq!(remove("Hmm.", English), "");
        assert_eq!(remove("Hmm, no nie wiem.", Polish), "No nie wiem.");
        assert_eq!(remove("Mmm, das ist gut.", Other), "Das ist gut.");
        assert_eq!(remove("Uhm, erm, yes.", English), "Yes.");
        // Whisper's own text (`base`) for espeak-ng's and flite's hesitations.
        assert_eq!(
            remove(
                "Um, let me think. Um, the report is, um, all not done.",
                English
            ),
            "Let me think. The report is all not done."
        );
        assert_eq!(
            remove(
                "So, um, this career is 4,000 years long, uh, I guess.",
                English
            ),
            "So this career is 4,000 years long I guess."
        );
        // A hesitation before a number, set off by a comma, is still one.
        assert_eq!(remove("Mam, eee, 4 jabłka.", Polish), "Mam 4 jabłka.");
    }

    #[test]
    fn words_that_only_look_like_fillers_stay() {
        for (text, language) in [
            ("A to jest moje e-mail.", Polish),
            ("I need an umbrella and a hummus wrap.", English),
            ("Emma said yes.", English),
            ("Ee-commerce is growing.", English),
            ("Mamy 2 e-booki.", Polish),
            ("The meeting is at noon.", English),
            // Whisper's own text (`base`) for "I think we should, umm, move the meeting to
            // Friday" (espeak-ng): it left the filler out itself; nothing else goes.
            ("I think we should move a meeting to Friday.", English),
        ] {
            assert_eq!(remove(text, language), text, "{text:?}");
        }
    }

    /// Issue 25: units and abbreviations were removed as fillers.
    #[test]
    fn units_abbreviations_and_other_languages_words_are_never_fillers() {
        for (text, language) in [
            ("The screw is 4 mm long.", English),
            ("Średnica wynosi 10 mm.", Polish),
            ("Złożyłem wniosek w UM.", Polish),
            ("Złożyłem wniosek w um.", Polish),
            ("The pore size is 5 um.", English),
            ("The wavelength is 5 um, not 50.", English),
            ("UM Wrocław wydał decyzję.", Polish),
            ("Give the sizes in mm, please.", English),
            ("Wymiary podaj w mm.", Polish),
            ("MM is short for millimetre.", English),
            ("EEE stands for the bus standard.", English),
            ("The UH clinic is open.", English),
            ("Mhm.", English),
            ("Mhm, zgadzam się.", Polish),
            ("Mm-hmm, that works.", English),
            ("Mm.", English),
            ("Wir treffen uns um 5 Uhr.", Other),
            ("Er kommt um halb acht.", Other),
            ("Eee to nie jest angielski.", English),
            ("Yyy w angielskim tekście zostaje.", English),
            ("Uh, um in polskim tekście zostają.", Polish),
            ("He said 10 mm, then 12 mm.", English),
            ("A 3 mmm-wide gap.", English),
        ] {
            assert_eq!(remove(text, language), text, "{text:?} ({language:?})");
        }
    }
}
