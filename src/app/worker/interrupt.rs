//! The worker's two interruptions: a panic in the middle of a command (a bug of the app's: the
//! dictation it hit ends as [`Outcome::Crashed`], its recording kept for Retry, and the model
//! is loaded again, so the app never shows "Transcribing" for ever), and quitting (what is not
//! transcribed yet is left on disk as journals for the next start to recover).

use super::{JobAudio, Outcome, WorkerCommand, WorkerEvent, WorkerThread, SAMPLE_RATE};
use crate::recordings::RecordingStore;
use std::any::Any;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// What the worker was doing when it panicked.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Serving {
    Load {
        model: String,
    },
    Transcribe {
        id: u64,
        /// Where its recording is (known before it is read; a recording kept in memory only
        /// gets its place once saved).
        recording: Option<PathBuf>,
    },
    Early {
        id: u64,
    },
    /// Keeping the worker's own state (no dictation, no model call).
    Keeping,
}

impl Serving {
    pub(super) fn of(command: &WorkerCommand) -> Serving {
        match command {
            WorkerCommand::Load(request) => Serving::Load {
                model: request.name.clone(),
            },
            WorkerCommand::Transcribe(job) => Serving::Transcribe {
                id: job.id,
                recording: match &job.audio {
                    JobAudio::Saved(path) => Some(path.clone()),
                    JobAudio::Recorded(_) => job.journal.clone(),
                },
            },
            WorkerCommand::TranscribeEarly(job) | WorkerCommand::TranscribeStride(job) => {
                Serving::Early { id: job.id }
            }
            WorkerCommand::SpeechAfterPause { id, .. } | WorkerCommand::PauseHeld { id, .. } => {
                Serving::Early { id: *id }
            }
            WorkerCommand::ForgetRecentLanguage | WorkerCommand::Unload => Serving::Keeping,
        }
    }
}

/// The message a panic was raised with.
pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

impl WorkerThread {
    /// Goes on after a panic while `serving`: the dictation it hit is done (crashed, its
    /// recording kept), and the model, which may be half-way through a step, is loaded again.
    pub(super) fn after_panic(&mut self, serving: Serving, payload: &(dyn Any + Send)) {
        let message = panic_message(payload);
        tracing::error!(
            message,
            ?serving,
            "the transcription worker panicked; going on"
        );
        self.stream = None;
        // Not the next dictation's language.
        self.sure_language = None;
        let in_progress = self.in_progress.take();
        match serving {
            Serving::Load { model } => {
                self.transcriber = None;
                let message = format!("internal error while loading the model: {message}");
                self.load_error = Some(message.clone());
                (self.emit)(WorkerEvent::LoadFailed { model, message });
                return;
            }
            Serving::Transcribe { id, recording } => {
                let recording = in_progress.and_then(|(_, path)| path).or(recording);
                if let Some(path) = &recording {
                    self.attempted.remove(path);
                }
                self.done(id, Outcome::Crashed(message), recording, None);
            }
            Serving::Early { id } => {
                // Said when its whole recording arrives (the recorder may still be writing
                // its journal now).
                self.crashed.insert(id);
            }
            // The model was not in use: it stays.
            Serving::Keeping => return,
        }
        self.reload();
    }

    /// Drops the model and loads the last one asked for again.
    fn reload(&mut self) {
        if let Some(transcriber) = self.transcriber.as_mut() {
            transcriber.abandon_operation();
        }
        self.transcriber = None;
        let Some(request) = self.last_request.clone() else {
            return;
        };
        let model = request.name.clone();
        let reloaded = catch_unwind(AssertUnwindSafe(|| self.load(request)));
        if let Err(payload) = reloaded {
            self.after_panic(Serving::Load { model }, payload.as_ref());
        }
    }

    /// Quitting with `queue` not done: every recording in it is left on disk unfinished, for
    /// the next start to recover (those with a journal are there already; one kept in memory
    /// only is written to a journal now).
    pub(super) fn leave_for_next_start(&mut self, queue: VecDeque<WorkerCommand>) {
        // Transcriptions begun and stopped by the quit (a head's included) are not attempts
        // that failed: the next start must not count them against the recording.
        for journal in std::mem::take(&mut self.attempted) {
            RecordingStore::uncount_attempt(&journal);
        }
        // Transcribed but quit before the app delivered the text: recovered, not failed.
        for journal in std::mem::take(&mut self.awaiting_delivery) {
            if journal.exists() {
                RecordingStore::uncount_attempt(&journal);
            }
        }
        let mut left = 0;
        for command in queue {
            let WorkerCommand::Transcribe(job) = command else {
                continue;
            };
            left += 1;
            if let (JobAudio::Recorded(samples), None) = (&job.audio, &job.journal) {
                match self.recordings.save_unfinished(samples, SAMPLE_RATE) {
                    Ok(path) => tracing::info!(
                        id = job.id,
                        path = %path.display(),
                        "quitting: recording written for the next start"
                    ),
                    Err(e) => tracing::error!(id = job.id, "quitting: recording lost: {e}"),
                }
            }
        }
        if left > 0 {
            tracing::info!(
                left,
                "quitting without waiting: recordings not transcribed are recovered at the next start"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Job, TranscribeParams, Wording};
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc::{channel, Receiver};
    use std::sync::{Arc, Mutex};

    fn thread(store: RecordingStore) -> (WorkerThread, Receiver<WorkerEvent>) {
        let (tx, rx) = channel();
        let tx = Mutex::new(tx);
        let emit = Box::new(move |event| {
            let _ = tx.lock().unwrap().send(event);
        });
        let worker = WorkerThread::new(store, emit, Arc::new(AtomicBool::new(false)));
        (worker, rx)
    }

    fn job(id: u64, audio: JobAudio, journal: Option<PathBuf>) -> Job {
        Job {
            id,
            audio,
            params: TranscribeParams::default(),
            wording: Arc::new(Wording::default()),
            journal,
        }
    }

    fn tone() -> Vec<f32> {
        (0..8_000).map(|i| 0.3 * (i as f32 * 0.05).sin()).collect()
    }

    #[test]
    fn panic_messages_are_read_from_either_kind_of_payload() {
        let caught = catch_unwind(|| panic!("simulated panic in encode (run {})", 2)).unwrap_err();
        assert_eq!(
            panic_message(caught.as_ref()),
            "simulated panic in encode (run 2)"
        );
        let caught = catch_unwind(|| std::panic::panic_any("static")).unwrap_err();
        assert_eq!(panic_message(caught.as_ref()), "static");
        let caught = catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(panic_message(caught.as_ref()), "a panic without a message");
    }

    #[test]
    fn a_panicking_transcription_ends_its_dictation_with_the_recording_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 3);
        let (mut worker, events) = thread(store.clone());
        let journal = store.save_unfinished(&tone(), SAMPLE_RATE).unwrap();
        let command = WorkerCommand::Transcribe(job(
            4,
            JobAudio::Recorded(tone().into()),
            Some(journal.clone()),
        ));
        let serving = Serving::of(&command);
        let payload = catch_unwind(|| panic!("index out of bounds")).unwrap_err();
        worker.after_panic(serving, payload.as_ref());
        match events.try_recv().unwrap() {
            WorkerEvent::Done {
                id,
                outcome,
                recording,
                ..
            } => {
                assert_eq!(id, 4);
                assert_eq!(outcome, Outcome::Crashed("index out of bounds".into()));
                assert_eq!(recording, Some(journal.clone()));
            }
            other => panic!("{other:?}"),
        }
        assert!(journal.exists(), "the recording is kept");

        // A panic in the head's transcription: said when the whole recording arrives, which
        // is then not transcribed again.
        let head = WorkerCommand::TranscribeEarly(job(5, JobAudio::Recorded(tone().into()), None));
        let payload = catch_unwind(|| panic!("in the head")).unwrap_err();
        worker.after_panic(Serving::of(&head), payload.as_ref());
        assert!(events.try_recv().is_err(), "nothing said before the audio");
        RecordingStore::count_attempt(&journal);
        worker.attempted.insert(journal.clone());
        worker.transcribe(job(
            5,
            JobAudio::Recorded(tone().into()),
            Some(journal.clone()),
        ));
        match events.try_recv().unwrap() {
            WorkerEvent::Done {
                id: 5,
                outcome: Outcome::Crashed(_),
                recording: Some(kept),
                ..
            } => assert_eq!(kept, journal),
            other => panic!("{other:?}"),
        }
        // The app quits before it kept the recording for Retry: the panic stays counted.
        worker.leave_for_next_start(VecDeque::new());
        let unfinished = store.unfinished();
        assert_eq!(unfinished.len(), 1, "{unfinished:?}");
        assert_eq!(unfinished[0].attempts, 1, "a panic is a failed attempt");
    }

    #[test]
    fn a_text_not_delivered_before_the_quit_is_no_failed_attempt() {
        // Two dictations transcribed to the end: the app delivered the first (its journal
        // finished) and quit before it delivered the second.
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 3);
        let (mut worker, _events) = thread(store.clone());
        let mut journals = Vec::new();
        for _ in 0..2 {
            let journal = store.save_unfinished(&tone(), SAMPLE_RATE).unwrap();
            RecordingStore::count_attempt(&journal);
            worker.awaiting_delivery.insert(journal.clone());
            journals.push(journal);
        }
        let delivered = store.finish(&journals[0], true);
        worker.leave_for_next_start(VecDeque::new());
        assert!(
            delivered.exists(),
            "a delivered recording is kept as it was"
        );
        let unfinished = store.unfinished();
        assert_eq!(unfinished.len(), 1, "{unfinished:?}");
        assert_eq!(unfinished[0].path, journals[1]);
        assert_eq!(unfinished[0].attempts, 0, "a quit is not a failed attempt");
    }

    /// A worker on `store` that has begun transcribing one unfinished recording's journal
    /// (its attempt counted on disk), and that journal.
    fn worker_with_an_attempt(store: &RecordingStore) -> (WorkerThread, PathBuf) {
        let (mut worker, _events) = thread(store.clone());
        let journal = store.save_unfinished(&tone(), SAMPLE_RATE).unwrap();
        RecordingStore::count_attempt(&journal);
        worker.attempted.insert(journal.clone());
        (worker, journal)
    }

    #[test]
    fn a_worker_ended_while_idle_gives_back_the_attempts_of_this_run() {
        // A streamed dictation's passes ran on its journal; the app ended before it was
        // finished, with the worker waiting for the next command.
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 3);
        let (worker, _journal) = worker_with_an_attempt(&store);
        let (commands, received) = channel::<WorkerCommand>();
        drop(commands);
        worker.run(received);
        let unfinished = store.unfinished();
        assert_eq!(unfinished.len(), 1, "{unfinished:?}");
        assert_eq!(
            unfinished[0].attempts, 0,
            "an ended app is not a failed attempt"
        );
    }

    #[test]
    fn quitting_leaves_every_recording_not_transcribed_for_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 3);
        // Its head was being transcribed when the app quit.
        let (mut worker, journal) = worker_with_an_attempt(&store);
        let queue = VecDeque::from(vec![
            WorkerCommand::Transcribe(job(
                1,
                JobAudio::Recorded(tone().into()),
                Some(journal.clone()),
            )),
            // Kept in memory only (its journal could not be written).
            WorkerCommand::Transcribe(job(2, JobAudio::Recorded(tone().into()), None)),
            WorkerCommand::TranscribeEarly(job(3, JobAudio::Recorded(tone().into()), None)),
        ]);
        worker.leave_for_next_start(queue);
        let unfinished = store.unfinished();
        assert_eq!(unfinished.len(), 2, "{unfinished:?}");
        assert_eq!(unfinished[0].path, journal);
        assert_eq!(unfinished[0].attempts, 0, "a quit is not a failed attempt");
        for recording in &unfinished {
            assert_eq!(
                RecordingStore::load(&recording.path).unwrap().len(),
                tone().len()
            );
        }
    }
}
