//! What goes in and out of the transcription worker: the commands the app sends it (a model
//! to load, recordings and snapshots of them to transcribe, what the recorder heard after a
//! pause) and the events it sends back (loading, passes' progress, each dictation's outcome).

use crate::app::verdict::Empty;
use crate::app::wording::Wording;
use crate::audio::level::Level;
use crate::audio::shared_audio::SharedAudio;
use crate::device::policy::Reason;
use crate::device::DeviceKind;
use crate::settings::Settings;
use crate::whisper::{TranscribeParams, Transcript};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the worker needs to (re)load the model.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    /// The model folder.
    pub dir: PathBuf,
    /// Its name as the user knows it.
    pub name: String,
    /// Settings the device manager reads (device choice, precision, UI language).
    pub settings: Settings,
    pub state_dir: PathBuf,
}

/// One recording to transcribe.
#[derive(Debug)]
pub struct Job {
    pub id: u64,
    pub audio: JobAudio,
    pub params: TranscribeParams,
    /// What becomes of Whisper's text (verdict, commands, fillers, vocabulary, replacements).
    pub wording: Arc<Wording>,
    /// The recording's journal on disk while it is unfinished (the recorder writes it).
    pub journal: Option<PathBuf>,
}

#[derive(Debug)]
pub enum JobAudio {
    /// Fresh from the microphone (16 kHz mono, shared with the recorder and the other
    /// snapshots of the same recording); saved before transcription unless the job has a
    /// journal.
    Recorded(SharedAudio),
    /// A saved recording, transcribed again.
    Saved(PathBuf),
}

#[derive(Debug)]
pub enum WorkerCommand {
    Load(ModelRequest),
    Transcribe(Job),
    /// The head of a recording whose [`WorkerCommand::Transcribe`] follows with the same id.
    TranscribeEarly(Job),
    /// The audio so far of a recording after a stretch of speech without a pause: transcribed
    /// only when the audio since the last commit is long enough ([`super::stream::STRIDE_FROM`]).
    TranscribeStride(Job),
    /// The speaker went on after the pause that ended recording `id`'s snapshot of
    /// `pause_end` samples, and was heard by sample `heard_at`: a pass over that snapshot that
    /// is only of use if the pause holds stops ([`super::streaming::pause_broken`]).
    SpeechAfterPause {
        id: u64,
        pause_end: usize,
        heard_at: usize,
    },
    /// The pause that ended recording `id`'s last pause snapshot has held
    /// ([`crate::audio::pause::PAUSE_HELD`]) in `samples`, its audio so far (16 kHz): the pass
    /// over that snapshot is committed now, not at the next snapshot.
    PauseHeld {
        id: u64,
        samples: SharedAudio,
    },
    /// "Forget everything": the recent language goes too (memory and file).
    ForgetRecentLanguage,
    /// The app has waited long enough without a dictation: the model leaves memory (its
    /// weights, and the buffers the allocator kept) until the next [`WorkerCommand::Load`].
    Unload,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Text(String),
    Empty(Empty),
    Failed(String),
    /// The transcription panicked (a bug of the app's; the message is for the log): nothing
    /// came of it, and the model is being loaded again.
    Crashed(String),
}

/// What Whisper wrote for a dictation before the wording rewrote it (commands, fillers,
/// vocabulary, replacements), and the language it was heard in: kept in the history beside
/// the delivered text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heard {
    pub raw: String,
    pub language: Option<String>,
}

impl Heard {
    /// `transcript`'s text and language.
    pub fn of(transcript: &Transcript) -> Heard {
        Heard {
            raw: transcript.text.trim().to_string(),
            language: Some(transcript.language.clone()).filter(|l| !l.is_empty()),
        }
    }
}

#[derive(Debug)]
pub enum WorkerEvent {
    Loading {
        model: String,
    },
    Ready {
        model: String,
        device: DeviceKind,
        /// Why this device (the manager's placement).
        why: Reason,
        load: Duration,
        warm_up: Duration,
    },
    LoadFailed {
        model: String,
        message: String,
    },
    /// The model left memory ([`WorkerCommand::Unload`]).
    Unloaded {
        model: String,
        device: DeviceKind,
        /// How long dropping it and handing the memory back took.
        took: Duration,
    },
    /// Device messages for the user (fallback, recovery), already in the UI language.
    Notices(Vec<String>),
    /// A pass over the audio so far of recording `id` (a [`WorkerCommand::TranscribeEarly`])
    /// is done, or was stopped.
    Progress {
        id: u64,
        /// The audio it covered.
        seconds: f32,
        engine: Duration,
        /// The pass was stopped before its end (newer audio made it useless, or its pause did
        /// not hold): it heard nothing, and the texts are what was shown before it.
        stopped: bool,
        /// Everything committed of the dictation so far, as delivered: final, only grows.
        committed: String,
        /// The text of the audio after it, as this pass heard it: may change.
        tentative: String,
    },
    Done {
        id: u64,
        outcome: Outcome,
        /// Where the recording is kept.
        recording: Option<PathBuf>,
        /// When the text was ready.
        at: Instant,
        /// Time in Whisper (mel + encoder + decoder).
        engine: Duration,
        level: Option<Level>,
        /// The text came from the recording's head, transcribed before the tail arrived.
        early: bool,
        /// Whisper's own text and language (empty when it gave none).
        heard: Heard,
    },
}
