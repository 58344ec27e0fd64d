//! Which language's rules a text is read by. Spoken commands and filler sounds are words of one
//! language ("kropka" is a command only in Polish, "um" a hesitation only in English: in Polish
//! "UM"/"um" is the town hall, Urząd Miejski, and in German "um" is a preposition), so the steps
//! that remove or rewrite words take the transcript's language — the one Whisper was given or
//! detected — and a language they have no list for gets only the sounds every language shares.

/// The languages the wording has its own lists for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    Polish,
    /// Any other language (or none known): no spoken commands, only the hesitation sounds that
    /// are no word anywhere ("hmm", "mmm").
    Other,
}

impl Language {
    /// The language of a Whisper language code ("en", "pl", "en-US", "PL"); anything else is
    /// [`Language::Other`].
    pub fn from_code(code: &str) -> Language {
        let code = code.trim().to_ascii_lowercase();
        match code.split(['-', '_']).next().unwrap_or("") {
            "en" | "english" => Language::English,
            "pl" | "polish" => Language::Polish,
            _ => Language::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_name_their_language() {
        assert_eq!(Language::from_code("en"), Language::English);
        assert_eq!(Language::from_code(" PL "), Language::Polish);
        assert_eq!(Language::from_code("en-US"), Language::English);
        assert_eq!(Language::from_code("de"), Language::Other);
        assert_eq!(Language::from_code(""), Language::Other);
        assert_eq!(Language::from_code("auto:pl,en"), Language::Other);
    }
}
