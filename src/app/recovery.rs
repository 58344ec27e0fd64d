//! Recovering what a previous run did not finish. A recording is journaled to disk while it is
//! recorded and marked finished when its dictation ends (`crate::recordings`); one still
//! unfinished at start was cut off by the process dying (an MPS abort in an encode, a crash, a
//! kill). Once the model is ready, each is transcribed and its text put on the clipboard — never
//! pasted: the person is in some other place by now — with a notification saying when it was
//! recorded, and it joins Recent transcripts. A recording whose transcription was begun twice
//! already without finishing is not transcribed again by itself (it would take the app down at
//! every start); it is kept for Retry, and the notification says so.

use super::notices::Notice;
use super::worker::{self, Job, JobAudio, Outcome, WorkerCommand};
use super::App;
use crate::audio::level::Level;
use crate::recordings::Unfinished;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// Runs that began transcribing a recording and died, after which it is not retried by itself.
pub const MAX_ATTEMPTS: u32 = 2;

/// Ids of recovery jobs start here, far above the dictations' own.
const FIRST_ID: u64 = 1 << 48;

/// The unfinished recordings of previous runs and the ones being transcribed now.
#[derive(Debug, Default)]
pub struct Recovery {
    waiting: Vec<Unfinished>,
    running: HashMap<u64, Unfinished>,
    /// The texts recovered in this run, in recording order (all of them go on the clipboard).
    texts: Vec<String>,
    next_id: u64,
}

/// What to do with an unfinished recording once the model is ready.
#[derive(Debug, PartialEq)]
pub enum Step {
    Transcribe {
        id: u64,
        recording: Unfinished,
    },
    /// Its transcription stopped the app [`MAX_ATTEMPTS`] times: keep it for Retry.
    KeepForRetry(Unfinished),
}

impl Recovery {
    /// What a previous run left unfinished (call before this run records anything).
    pub fn new(unfinished: Vec<Unfinished>) -> Recovery {
        Recovery {
            waiting: unfinished,
            next_id: FIRST_ID,
            ..Recovery::default()
        }
    }

    /// The steps for every waiting recording, oldest first; each is handed out once.
    pub fn start(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.waiting)
            .into_iter()
            .map(|recording| {
                if recording.attempts >= MAX_ATTEMPTS {
                    return Step::KeepForRetry(recording);
                }
                let id = self.next_id;
                self.next_id += 1;
                self.running.insert(id, recording.clone());
                Step::Transcribe { id, recording }
            })
            .collect()
    }

    /// The recording of recovery job `id`, once; `None` for a dictation's id.
    pub fn finished(&mut self, id: u64) -> Option<Unfinished> {
        self.running.remove(&id)
    }

    /// Adds a recovered text; returns what the clipboard should hold now: every text
    /// recovered in this run, oldest first.
    pub fn add_text(&mut self, text: String) -> String {
        self.texts.push(text);
        self.texts.join("\n\n")
    }

    /// "Forget everything": the recovered texts and the recordings still waiting are dropped
    /// (their files are the store's to delete); returns the recordings being transcribed now,
    /// which are in use until their jobs end.
    pub fn forget(&mut self) -> Vec<PathBuf> {
        self.texts.clear();
        self.waiting.clear();
        self.running.values().map(|r| r.path.clone()).collect()
    }
}

/// When a recording was made, as the person's clock showed it: "14:05" today, "2026-11-23
/// 14:05" on another day. `now` decides what today is.
pub fn recorded_at_text(at: SystemTime, now: SystemTime) -> String {
    let (Some(at), Some(now)) = (
        crate::platform::local_time(at),
        crate::platform::local_time(now),
    ) else {
        return "?".into();
    };
    let clock = format!("{:02}:{:02}", at.hour, at.minute);
    if (at.year, at.month, at.day) == (now.year, now.month, now.day) {
        clock
    } else {
        format!("{}-{:02}-{:02} {clock}", at.year, at.month, at.day)
    }
}

impl App {
    /// Starts recovering the unfinished recordings of previous runs (once the model is ready).
    pub(super) fn recover_unfinished(&mut self) {
        for step in self.recovery.start() {
            match step {
                Step::Transcribe { id, recording } => {
                    tracing::info!(
                        id,
                        recording = %recording.path.display(),
                        attempts = recording.attempts,
                        seconds = recording.duration.as_secs_f32(),
                        "recovering an unfinished recording"
                    );
                    let params = worker::params_from(&self.settings);
                    self.worker.send(WorkerCommand::Transcribe(Job {
                        id,
                        journal: Some(recording.path.clone()),
                        audio: JobAudio::Saved(recording.path),
                        params,
                        wording: self.wording.clone(),
                    }));
                }
                Step::KeepForRetry(recording) => {
                    tracing::warn!(
                        recording = %recording.path.display(),
                        attempts = recording.attempts,
                        "unfinished recording not retried: its transcription stopped the app twice"
                    );
                    let recorded_at = self.recorded_at(&recording);
                    self.keep_for_retry(&recording, false, true);
                    self.notify(&Notice::RecordingNotRetried { recorded_at });
                }
            }
        }
    }

    /// The outcome of recovering `recording`: its text goes on the clipboard, into Recent
    /// transcripts and into the history (when it is kept), never pasted; whatever the outcome it is then kept for Retry like any
    /// finished recording.
    pub(super) fn recovered(
        &mut self,
        recording: Unfinished,
        outcome: Outcome,
        level: Option<Level>,
        heard: worker::Heard,
    ) {
        let recorded_at = self.recorded_at(&recording);
        match outcome {
            Outcome::Text(text) => {
                let kept = self.keep_for_retry(&recording, true, false);
                self.delivered_recording(kept.clone());
                // Into the history too (it went to the clipboard: no app, no mode, no key-up).
                self.remember_in_history(
                    &text,
                    (heard, None, None),
                    None,
                    kept.exists().then_some(kept),
                );
                tracing::info!(
                    recording = %recording.path.display(),
                    recorded_at,
                    text = ?crate::logging::dictated(&text),
                    "recording recovered"
                );
                let clipboard = self.recovery.add_text(text.clone());
                self.output
                    .send(super::output::OutputCommand::Copy(clipboard));
                self.remember_recent(text);
                self.notify(&Notice::RecordingRecovered {
                    recorded_at,
                    seconds: recording.duration.as_secs_f32(),
                });
            }
            Outcome::Empty(empty) => {
                tracing::info!(
                    recording = %recording.path.display(),
                    reason = empty.reason(),
                    "recovered recording empty"
                );
                let spoke = level.is_some_and(|l| super::verdict::spoke(&empty, &l));
                // Said (with Retry named) only when there was speech.
                self.keep_for_retry(&recording, true, spoke);
                if spoke {
                    self.notify(&Notice::RecoveredNothing { recorded_at });
                }
            }
            Outcome::Failed(detail) | Outcome::Crashed(detail) => {
                self.keep_for_retry(&recording, false, true);
                tracing::error!(
                    recording = %recording.path.display(),
                    detail,
                    "recovering a recording failed"
                );
                self.notify(&Notice::RecoveryFailed {
                    recorded_at,
                    detail,
                });
            }
        }
    }

    fn recorded_at(&self, recording: &Unfinished) -> String {
        recorded_at_text(recording.recorded_at, SystemTime::now())
    }

    /// Marks `recording` finished: kept among the recordings (held from pruning when it was
    /// not `transcribed`); the one "Retry" takes when a notice `named` it, or when no other
    /// was chosen ([`super::retry`]). Returns where it is kept.
    fn keep_for_retry(
        &mut self,
        recording: &Unfinished,
        transcribed: bool,
        named: bool,
    ) -> PathBuf {
        let kept = self.recordings.finish(&recording.path, transcribed);
        if named {
            self.retry.choose(kept.clone());
        } else {
            self.retry.offer(kept.clone());
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn unfinished(name: &str, attempts: u32) -> Unfinished {
        Unfinished {
            path: PathBuf::from(name),
            recorded_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            attempts,
            duration: Duration::from_secs(20),
        }
    }

    #[test]
    fn a_recording_that_stopped_the_app_twice_is_kept_not_retried() {
        let mut recovery = Recovery::new(vec![
            unfinished("a", 0),
            unfinished("b", 1),
            unfinished("c", 2),
            unfinished("d", 7),
        ]);
        let steps = recovery.start();
        assert_eq!(
            steps,
            vec![
                Step::Transcribe {
                    id: FIRST_ID,
                    recording: unfinished("a", 0)
                },
                Step::Transcribe {
                    id: FIRST_ID + 1,
                    recording: unfinished("b", 1)
                },
                Step::KeepForRetry(unfinished("c", 2)),
                Step::KeepForRetry(unfinished("d", 7)),
            ]
        );
        // Handed out once.
        assert!(recovery.start().is_empty());
        assert_eq!(recovery.finished(FIRST_ID + 1), Some(unfinished("b", 1)));
        assert_eq!(recovery.finished(FIRST_ID + 1), None);
        // A dictation's id is not a recovery.
        assert_eq!(recovery.finished(1), None);
    }

    #[test]
    fn forgetting_drops_the_texts_and_the_waiting_and_names_the_running() {
        let mut recovery = Recovery::new(vec![unfinished("a", 0), unfinished("b", 2)]);
        recovery.start();
        recovery.add_text("Odzyskane.".into());
        let mut later = Recovery::new(vec![unfinished("c", 0)]);
        assert!(later.forget().is_empty());
        assert!(
            later.start().is_empty(),
            "a waiting recording is not transcribed after all"
        );
        assert_eq!(recovery.forget(), vec![PathBuf::from("a")]);
        assert_eq!(recovery.add_text("Nowe.".into()), "Nowe.");
    }

    #[test]
    fn every_recovered_text_stays_on_the_clipboard() {
        let mut recovery = Recovery::new(Vec::new());
        assert_eq!(recovery.add_text("Pierwsze.".into()), "Pierwsze.");
        assert_eq!(recovery.add_text("Drugie.".into()), "Pierwsze.\n\nDrugie.");
    }

    #[test]
    fn the_time_of_a_recording_is_the_clock_today_and_the_date_before() {
        let now = SystemTime::now();
        let today = recorded_at_text(now, now);
        assert_eq!(today.len(), 5, "{today}");
        assert_eq!(today.as_bytes()[2], b':', "{today}");
        let long_ago = recorded_at_text(now - Duration::from_secs(3 * 86_400), now);
        assert_eq!(long_ago.len(), 16, "{long_ago}");
        assert_eq!(&long_ago[4..5], "-", "{long_ago}");
    }
}
