//! What the overlay says at one moment, as plain data: the phase of the dictation, the elapsed
//! time (and the warning before the maximum length), the microphone level, and the words, in the
//! UI's language. Pure: [`super::render`] draws it, the tests read it.

use crate::i18n::UiLang;
use std::time::Duration;

/// Where a dictation is, as the overlay shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The key is held (or toggled on): the level moves, the time runs.
    Recording,
    /// The key is up: Whisper is working on the recording.
    Transcribing,
    /// The text was delivered; `copied` when it went to the clipboard only (the person pastes).
    Done { copied: bool },
    /// There was speech but it gave no text (the recording is kept for Retry).
    NothingRecognised,
}

impl Phase {
    /// The phase's name in the log.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Recording => "recording",
            Phase::Transcribing => "transcribing",
            Phase::Done { .. } => "done",
            Phase::NothingRecognised => "nothing_recognised",
        }
    }
}

/// Everything drawn in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub lang: UiLang,
    pub phase: Phase,
    /// How long the recording has run (frozen at key-up).
    pub elapsed: Duration,
    /// The longest recording (it stops by itself there).
    pub max_length: Duration,
    /// How long before the maximum the time turns into a warning.
    pub warn_before: Duration,
    /// The microphone level, 0 (silence) to 1 (loud speech), see [`meter_level`].
    pub level: f32,
    /// The words committed so far while recording (final: they only grow), the whole final
    /// text at the end. Empty until Whisper has said something.
    pub committed: String,
    /// The tentative tail after the committed words: it may change or vanish at the next report
    /// (drawn dimmed). Empty at the end.
    pub tentative: String,
    /// The per-app mode the dictation uses ("Terminal", "Chat"); empty: none.
    pub mode: String,
}

impl View {
    /// The state label with the mode after it: "Recording · Chat".
    pub fn heading(&self) -> String {
        match self.mode.trim() {
            "" => self.label().to_string(),
            mode => format!("{} · {mode}", self.label()),
        }
    }

    /// The state label ("Recording", "Nagrywanie", …).
    pub fn label(&self) -> &'static str {
        match (self.lang, self.phase) {
            (UiLang::En, Phase::Recording) => "Recording",
            (UiLang::Pl, Phase::Recording) => "Nagrywanie",
            (UiLang::En, Phase::Transcribing) => "Transcribing…",
            (UiLang::Pl, Phase::Transcribing) => "Rozpoznawanie…",
            (UiLang::En, Phase::Done { copied: false }) => "Done",
            (UiLang::Pl, Phase::Done { copied: false }) => "Gotowe",
            (UiLang::En, Phase::Done { copied: true }) => "Copied: paste with Ctrl+V",
            (UiLang::Pl, Phase::Done { copied: true }) => "Skopiowano: wklej Ctrl+V",
            (UiLang::En, Phase::NothingRecognised) => "Nothing recognised",
            (UiLang::Pl, Phase::NothingRecognised) => "Nic nie rozpoznano",
        }
    }

    /// The time shown on the right: "0:07"; in the last seconds before the maximum length,
    /// what is left ("0:52 · 8 s left"); nothing once the dictation has ended.
    pub fn time(&self) -> String {
        if !matches!(self.phase, Phase::Recording | Phase::Transcribing) {
            return String::new();
        }
        let shown = clock(self.elapsed);
        match self.remaining_warning() {
            Some(left) => match self.lang {
                UiLang::En => format!("{shown} · {left} s left"),
                UiLang::Pl => format!("{shown} · zostało {left} s"),
            },
            None => shown,
        }
    }

    /// Whole seconds left before the recording stops by itself, while recording in the warning
    /// period.
    pub fn remaining_warning(&self) -> Option<u64> {
        let left = self.max_length.checked_sub(self.elapsed)?;
        (self.phase == Phase::Recording && left <= self.warn_before)
            .then(|| left.as_secs_f32().ceil() as u64)
    }

    /// The hint drawn where the words go while there are none yet (`None` once there are words,
    /// or when nothing is said in this phase).
    pub fn hint(&self) -> Option<&'static str> {
        if !self.committed.is_empty() || !self.tentative.is_empty() {
            return None;
        }
        let hint = match (self.lang, self.phase) {
            (UiLang::En, Phase::Recording) => "Speak: the words appear when you pause",
            (UiLang::Pl, Phase::Recording) => "Mów: słowa pojawią się przy pauzie",
            (UiLang::En, Phase::NothingRecognised) => "The recording is kept: Retry in the menu",
            (UiLang::Pl, Phase::NothingRecognised) => "Nagranie zachowane: Ponów w menu",
            _ => return None,
        };
        Some(hint)
    }

    /// Whether the level meter is drawn (only while the microphone is recording).
    pub fn shows_meter(&self) -> bool {
        self.phase == Phase::Recording
    }
}

/// "m:ss" (or "h:mm:ss" from an hour on).
pub fn clock(elapsed: Duration) -> String {
    let s = elapsed.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The meter's fill for a 50 ms block's RMS: decibels from −60 dBFS (empty) to −10 dBFS (full),
/// so quiet speech still moves it and a muted microphone (digital zero) shows nothing at all.
pub fn meter_level(rms: f32) -> f32 {
    if rms.is_nan() || rms <= 0.0 {
        return 0.0;
    }
    let db = 20.0 * rms.log10();
    ((db + 60.0) / 50.0).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(phase: Phase, elapsed: u64) -> View {
        View {
            lang: UiLang::En,
            phase,
            elapsed: Duration::from_secs(elapsed),
            max_length: Duration::from_secs(120),
            warn_before: Duration::from_secs(10),
            level: 0.0,
            committed: String::new(),
            tentative: String::new(),
            mode: String::new(),
        }
    }

    #[test]
    fn the_time_warns_in_the_last_seconds_before_the_maximum() {
        assert_eq!(view(Phase::Recording, 7).time(), "0:07");
        assert_eq!(view(Phase::Recording, 109).time(), "1:49");
        assert_eq!(view(Phase::Recording, 112).time(), "1:52 · 8 s left");
        let mut pl = view(Phase::Recording, 112);
        pl.lang = UiLang::Pl;
        assert_eq!(pl.time(), "1:52 · zostało 8 s");
        // After key-up nothing is left to warn about.
        assert_eq!(view(Phase::Transcribing, 112).time(), "1:52");
        assert_eq!(view(Phase::Done { copied: false }, 12).time(), "");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }

    #[test]
    fn every_phase_has_a_label_in_both_languages() {
        for phase in [
            Phase::Recording,
            Phase::Transcribing,
            Phase::Done { copied: false },
            Phase::Done { copied: true },
            Phase::NothingRecognised,
        ] {
            let mut v = view(phase, 1);
            let en = v.label();
            v.lang = UiLang::Pl;
            assert_ne!(en, v.label(), "{phase:?}");
        }
        let mut v = view(Phase::NothingRecognised, 3);
        v.lang = UiLang::Pl;
        assert_eq!(v.label(), "Nic nie rozpoznano");
    }

    #[test]
    fn a_hint_shows_only_while_there_are_no_words() {
        let mut v = view(Phase::Recording, 2);
        assert_eq!(v.hint(), Some("Speak: the words appear when you pause"));
        v.tentative = "Umówmy się".into();
        assert_eq!(v.hint(), None);
        v.tentative.clear();
        v.committed = "Umówmy się na środę.".into();
        assert_eq!(v.hint(), None);
        assert_eq!(view(Phase::Transcribing, 2).hint(), None);
        let mut v = view(Phase::NothingRecognised, 2);
        v.lang = UiLang::Pl;
        assert_eq!(v.hint(), Some("Nagranie zachowane: Ponów w menu"));
    }

    #[test]
    fn the_meter_spans_quiet_speech_to_loud_and_shows_nothing_for_digital_zero() {
        assert_eq!(meter_level(0.0), 0.0);
        assert_eq!(meter_level(f32::NAN), 0.0);
        assert_eq!(meter_level(0.001), 0.0); // −60 dBFS
        assert!((meter_level(0.01) - 0.4).abs() < 1e-3); // −40 dBFS: quiet speech moves it
        assert_eq!(meter_level(0.5), 1.0);
    }
}
