//! The person's language, as their recent dictations tell it: the languages of the last
//! [`KEPT`] dictations whose detection was sure ([`crate::whisper::language::is_sure`]), kept
//! across starts in the state folder (`recent-language`, one code a line), and the one they
//! agree on ([`RecentLanguage::get`]): what a dictation too short for detection to be sure takes
//! ([`crate::whisper::TranscribeParams::language_when_unsure`]).
//!
//! Why they must agree: the fallback helps the person who speaks one language and costs the
//! one who switches. Measured with `base` among `pl,en`: after a Polish sentence the six Polish
//! replies of `tests/fixtures/replies_pl` were heard as Polish ("Tak." right; alone all six
//! were typed as English: "Nie." as "Yeah.", "Dobrze." as "dumbass"); but 9 of the 48 English
//! replies of `tests/fixtures/replies`, given Polish, lost their text ("Done." six times) or
//! were translated ("Thank you." as "Dziękuję."). A person whose last dictations were in
//! different languages gets detection alone, as before.
//!
//! Written only when it changes, atomically; a file that cannot be read or written costs only
//! that memory (logged), never a dictation. "Forget everything" removes it: it says what the
//! person speaks.

use crate::whisper::tokenizer::lookup_language;
use std::path::{Path, PathBuf};

/// The file's name in the state folder.
pub const FILE: &str = "recent-language";
/// How many dictations' languages are kept (and must agree).
pub const KEPT: usize = 3;

/// The recent dictations' languages, oldest first, and where they are kept.
#[derive(Debug, Default)]
pub struct RecentLanguage {
    path: Option<PathBuf>,
    languages: Vec<String>,
}

impl RecentLanguage {
    /// The ones kept in `state_dir` (none when there is no file; a line that is no language
    /// code is ignored).
    pub fn kept_in(state_dir: &Path) -> RecentLanguage {
        let path = state_dir.join(FILE);
        let languages = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                let codes: Vec<String> = lines
                    .iter()
                    .filter_map(|line| lookup_language(line.trim()).map(str::to_string))
                    .collect();
                if codes.len() < lines.len() {
                    tracing::warn!(file = %path.display(), "a line with no language code ignored");
                }
                let excess = codes.len().saturating_sub(KEPT);
                codes[excess..].to_vec()
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                tracing::warn!(file = %path.display(), "recent languages not read: {e}");
                Vec::new()
            }
        };
        RecentLanguage {
            path: Some(path),
            languages,
        }
    }

    /// The language the recent dictations agree on; `None` when there are none, or they
    /// differ.
    pub fn get(&self) -> Option<String> {
        let first = self.languages.first()?;
        self.languages
            .iter()
            .all(|l| l == first)
            .then(|| first.clone())
    }

    /// A dictation told `language` surely: kept, the oldest of [`KEPT`] dropped, written when
    /// that changed what is kept.
    pub fn heard(&mut self, language: &str) {
        let mut languages = self.languages.clone();
        languages.push(language.to_string());
        let excess = languages.len().saturating_sub(KEPT);
        languages.drain(..excess);
        if languages == self.languages {
            return;
        }
        self.languages = languages;
        if let Some(path) = &self.path {
            let text: String = self.languages.iter().map(|l| format!("{l}\n")).collect();
            if let Err(e) = crate::atomic_file::write(path, text.as_bytes()) {
                tracing::warn!(file = %path.display(), "recent languages not kept: {e}");
            }
        }
    }

    /// Forgets them, the file too.
    pub fn forget(&mut self) {
        self.languages.clear();
        if let Some(path) = &self.path {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    tracing::warn!(file = %path.display(), "recent languages not deleted: {e}");
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recent_languages_count_when_they_agree_and_are_kept_across_starts() {
        let state = tempfile::tempdir().unwrap();
        let mut recent = RecentLanguage::kept_in(state.path());
        assert_eq!(recent.get(), None);
        recent.heard("pl");
        assert_eq!(recent.get().as_deref(), Some("pl"));
        recent.heard("pl");
        recent.heard("en");
        assert_eq!(
            recent.get(),
            None,
            "a person who switches gets detection alone"
        );
        let again = RecentLanguage::kept_in(state.path());
        assert_eq!(again.languages, ["pl", "pl", "en"]);
        recent.heard("en");
        assert_eq!(recent.get(), None);
        recent.heard("en");
        assert_eq!(recent.get().as_deref(), Some("en"));
        assert_eq!(
            RecentLanguage::kept_in(state.path()).get().as_deref(),
            Some("en")
        );

        recent.forget();
        assert_eq!(recent.get(), None);
        assert!(!state.path().join(FILE).exists());
        recent.forget(); // nothing left to delete: no complaint

        std::fs::write(state.path().join(FILE), "klingon\npl\n").unwrap();
        assert_eq!(
            RecentLanguage::kept_in(state.path()).get().as_deref(),
            Some("pl")
        );
        // A folder that is gone: remembered for this run, nothing written, no panic.
        let mut recent = RecentLanguage::kept_in(&state.path().join("gone"));
        recent.heard("pl");
        assert_eq!(recent.get().as_deref(), Some("pl"));
    }
}
