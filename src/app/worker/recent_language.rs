//! The language of the person's last transcription that told it surely
//! ([`crate::whisper::language::is_sure`]), kept across starts in the state folder
//! (`recent-language`, one code): what a dictation too short for detection to be sure takes
//! ([`crate::whisper::TranscribeParams::language_when_unsure`]). Without the file the first
//! short dictation after a start would be detected alone, a Polish "Nie." typed as "Yeah.".
//! Written only when it changes, atomically; a file that cannot be read or written costs only
//! that memory (logged), never a dictation. "Forget everything" removes it: it says what the
//! person speaks.

use crate::whisper::tokenizer::lookup_language;
use std::path::{Path, PathBuf};

/// The file's name in the state folder.
pub const FILE: &str = "recent-language";

/// The recent language and where it is kept.
#[derive(Debug, Default)]
pub struct RecentLanguage {
    path: Option<PathBuf>,
    language: Option<String>,
}

impl RecentLanguage {
    /// The one kept in `state_dir` (none when there is no file, or it holds no language code).
    pub fn kept_in(state_dir: &Path) -> RecentLanguage {
        let path = state_dir.join(FILE);
        let language = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let code = lookup_language(text.trim()).map(str::to_string);
                if code.is_none() {
                    tracing::warn!(file = %path.display(), "no language code in it; ignored");
                }
                code
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                tracing::warn!(file = %path.display(), "recent language not read: {e}");
                None
            }
        };
        RecentLanguage {
            path: Some(path),
            language,
        }
    }

    pub fn get(&self) -> Option<String> {
        self.language.clone()
    }

    /// A transcription told `language` surely: it is the recent one, written when it changed.
    pub fn heard(&mut self, language: &str) {
        if self.language.as_deref() == Some(language) {
            return;
        }
        self.language = Some(language.to_string());
        if let Some(path) = &self.path {
            if let Err(e) = crate::atomic_file::write(path, language.as_bytes()) {
                tracing::warn!(file = %path.display(), "recent language not kept: {e}");
            }
        }
    }

    /// Forgets it, the file too.
    pub fn forget(&mut self) {
        self.language = None;
        if let Some(path) = &self.path {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    tracing::warn!(file = %path.display(), "recent language not deleted: {e}");
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
    fn the_recent_language_is_kept_across_starts_and_a_bad_file_is_ignored() {
        let state = tempfile::tempdir().unwrap();
        assert_eq!(RecentLanguage::kept_in(state.path()).get(), None);
        let mut recent = RecentLanguage::kept_in(state.path());
        recent.heard("pl");
        assert_eq!(recent.get().as_deref(), Some("pl"));
        assert_eq!(
            RecentLanguage::kept_in(state.path()).get().as_deref(),
            Some("pl")
        );
        recent.heard("en");
        assert_eq!(
            RecentLanguage::kept_in(state.path()).get().as_deref(),
            Some("en")
        );

        std::fs::write(state.path().join(FILE), "klingon\n").unwrap();
        assert_eq!(RecentLanguage::kept_in(state.path()).get(), None);
        // A folder that is gone: remembered for this run, nothing written, no panic.
        let gone = state.path().join("gone");
        let mut recent = RecentLanguage::kept_in(&gone);
        recent.heard("pl");
        assert_eq!(recent.get().as_deref(), Some("pl"));
    }
}
