//! Which recording "Retry last recording" takes. The rule: the one the last notice that
//! mentioned Retry named, or the person's own last dictation, whichever came last; a recording
//! recovered in the background without such a notice (its text went to the clipboard) is taken
//! only when nothing was chosen in this run. At start: the newest recording held for Retry
//! (a notice of an earlier run named it), else the newest one.
//!
//! Before, every recording that ended set it: after two crashes in a row, the notice named the
//! recording not retried while Retry took whichever recovery ended after it.

use std::path::{Path, PathBuf};

#[derive(Debug, Default, Clone, PartialEq)]
pub struct RetryChoice {
    path: Option<PathBuf>,
    /// A notice or the person's dictation chose it (not the newest at start, nor a recovery).
    chosen: bool,
}

impl RetryChoice {
    /// At start: `held_or_newest` from `RecordingStore::retry_at_start`, `held` when it is a
    /// recording held for Retry (named by an earlier run's notice).
    pub fn at_start(held_or_newest: Option<PathBuf>, held: bool) -> RetryChoice {
        RetryChoice {
            path: held_or_newest,
            chosen: held,
        }
    }

    /// The person's own dictation ended, or a notice named `path` for Retry.
    pub fn choose(&mut self, path: PathBuf) {
        self.path = Some(path);
        self.chosen = true;
    }

    /// A recording recovered in the background, said without naming Retry: taken unless
    /// another was chosen.
    pub fn offer(&mut self, path: PathBuf) {
        if !self.chosen {
            self.path = Some(path);
        }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> PathBuf {
        PathBuf::from(name)
    }

    #[test]
    fn after_two_crashes_retry_takes_the_recording_the_notice_named() {
        // Third start: A stopped the app twice (kept for Retry, said so), B and C are
        // recovered afterwards, their texts on the clipboard.
        let mut retry = RetryChoice::at_start(Some(p("old.wav")), false);
        retry.choose(p("A.wav"));
        retry.offer(p("B.wav"));
        retry.offer(p("C.wav"));
        assert_eq!(retry.path(), Some(Path::new("A.wav")));
        // A recovery that failed says "Retry" and names its recording: that one now.
        retry.choose(p("D.wav"));
        assert_eq!(retry.path(), Some(Path::new("D.wav")));
        // The person dictates: Retry is their last dictation.
        retry.choose(p("E.wav"));
        assert_eq!(retry.path(), Some(Path::new("E.wav")));
    }

    #[test]
    fn at_start_a_held_recording_stays_chosen_and_the_newest_gives_way_to_a_recovery() {
        let mut held = RetryChoice::at_start(Some(p("held.wav")), true);
        held.offer(p("recovered.wav"));
        assert_eq!(held.path(), Some(Path::new("held.wav")));
        let mut newest = RetryChoice::at_start(Some(p("newest.wav")), false);
        newest.offer(p("recovered.wav"));
        assert_eq!(newest.path(), Some(Path::new("recovered.wav")));
        let mut none = RetryChoice::at_start(None, false);
        assert_eq!(none.path(), None);
        none.offer(p("recovered.wav"));
        assert_eq!(none.path(), Some(Path::new("recovered.wav")));
    }
}
