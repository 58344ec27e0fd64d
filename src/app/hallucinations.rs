//! The phrases Whisper invents on silence and noise (from the subtitles it was trained on), and
//! the one normal form texts are compared in: the evidence [`super::heard`] weighs and
//! [`super::verdict`] reports, kept apart so neither has to reach into the other.

/// Phrases Whisper produces for silence and noise (from its training subtitles), compared after
/// [`normalise`]. English and Polish, the app's main languages, plus the subtitle credits.
const HALLUCINATIONS: &[&str] = &[
    "you",
    "thank you",
    "thanks",
    "thank you very much",
    "thanks for watching",
    "thank you for watching",
    "thank you so much for watching",
    "please subscribe",
    "bye",
    "bye bye",
    "so",
    "oh",
    "hmm",
    "the end",
    "blank audio",
    "silence",
    "music",
    "applause",
    "subtitles by the amara org community",
    "subtitles by the amaraorg community",
    "dziękuję",
    "dziękuję bardzo",
    "dziękuję za uwagę",
    "dzięki za obejrzenie",
    "do zobaczenia",
    "napisy stworzone przez społeczność amara org",
    "napisy wykonane przez społeczność amara org",
    "cisza",
];

/// Lowercase letters and digits, words separated by single spaces; brackets, punctuation and
/// music notes dropped ("[BLANK_AUDIO]" → "blank audio", "Thank you." → "thank you").
pub fn normalise(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn is_known_hallucination(text: &str) -> bool {
    let norm = normalise(text);
    HALLUCINATIONS.contains(&norm.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_hallucinations_match_in_any_case_and_punctuation() {
        for text in [
            " you",
            "Thank you.",
            "THANK YOU!",
            "[BLANK_AUDIO]",
            "Subtitles by the Amara.org community",
            "Dziękuję.",
            "♪ Music ♪",
        ] {
            assert!(is_known_hallucination(text), "{text}");
        }
        assert!(!is_known_hallucination("Thank you for the report."));
        assert!(!is_known_hallucination("Youth"));
    }
}
