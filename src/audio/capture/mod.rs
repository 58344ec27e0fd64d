//! Recording from the microphone, on a thread that owns the input stream (a cpal stream may not
//! leave the thread that built it). Commands go in, recordings come out as 16 kHz mono.
//!
//! First and last words: the stream can be kept open with a pre-roll ring buffer, so audio from
//! just before the key went down is part of the recording (a microphone takes 0.3–0.7 s to start,
//! Bluetooth longer); after the key goes up the recorder keeps listening for [`TAIL`] so the last
//! word is not cut, or only for [`FIRST_TAIL`] when the speaker had already stopped
//! ([`super::pause::tail_can_end_early`]). Each start logs how much audio was already there
//! (pre-roll) and how long the first audio callback took.
//!
//! Nothing said is lost. Given a journal path at the start, the recorder writes the recording
//! there as it is recorded ([`super::wav_journal`]), every [`PAUSE_CHECK`] (50 ms), on its own
//! thread, so a process that dies at any moment leaves all but the last fraction of a second on
//! disk. At key-up the rest is appended, and the journal is replaced by the recording at
//! 16 kHz (what Whisper takes and what is kept), before the audio is handed on.
//!
//! The recording is taken from the input as it arrives, on the same turns: appended to the
//! journal at the microphone's rate and converted to 16 kHz ([`super::resample::Resampler`]),
//! which is all of it that stays in memory (the microphone's 48 kHz samples of a 110 s
//! dictation were 21 MB more, held until key-up). At key-up and for each snapshot of the audio
//! so far only the newest samples are left to convert, so the wait at key-up does not grow
//! with the length of the recording (converting a 110 s recording whole took ~0.1 s there).
//! A snapshot shares the converted samples ([`super::shared_audio::SharedAudio`]) instead of
//! copying them, so a dictation's memory holds its recording once however many snapshots of
//! it are being transcribed or wait to be.
//! The level, the pause checks and the tail's are measured on the 16 kHz audio: what Whisper
//! hears, lagging the input by the converter's half width (under 2 ms).
//!
//! A recording's life here, from [`RecorderCommand::Start`] to the [`RecorderEvent::Audio`]
//! that hands it on (the app's `recordings` store owns it from then until it is deleted):
//! - **Stop** (key-up): the tail is recorded, then the audio and its journal are handed on.
//!   The tail is a state of the recorder's loop, not a wait: a **Start** in it (the key
//!   pressed again at once) ends that recording there, so that what is said from the new
//!   key-down on is the new recording's (it went to the end of the last one before).
//! - **Cancel** (a tap: the person's own choice) is the only end that deletes the audio.
//! - **The microphone fails** (a driver error, unplugged, or no audio for [`STALL`]):
//!   [`RecorderEvent::Failed`] says so, and what was recorded until then is handed on as if
//!   the key had gone up (`audio_follows`), in the tail as well as while the key is held.
//! - **The microphone is changed** ([`RecorderCommand::Configure`], the Microphone menu or the
//!   permission check reopening it) while recording: the change waits until the recording has
//!   ended; the recording goes on on the microphone it started on.
//! - **The app quits** (the command channel closes): the journal is left on disk, unfinished,
//!   and recovered at the next start.

mod source;
#[cfg(test)]
mod tests;

pub use source::{input_device_names, CpalSource, Feed, InputSource, OpenStream};

use super::level::RunningPeak;
use super::pause::{
    tail_can_end_early, AfterPause, Hearing, Snapshot, SnapshotMarks, FIRST_TAIL, PAUSE_CHECK,
};
use super::resample::Resampler;
use super::shared_audio::SharedAudio;
use super::vad::{SpeechStream, VoiceDetector};
use super::wav_journal::JournalWriter;
use crate::command_thread::CommandThread;
use source::{lock, Shared};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Audio kept after the key goes up.
pub const TAIL: Duration = Duration::from_millis(300);
/// Audio kept from before the key goes down when the stream stays open.
pub const PRE_ROLL: Duration = Duration::from_millis(500);
/// A recording whose stream delivers nothing for this long has lost its microphone.
pub const STALL: Duration = Duration::from_millis(2000);
const TARGET_RATE: u32 = 16_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecorderConfig {
    /// The input device's name as the system lists it; empty = the system default.
    pub device: String,
    /// Keep the stream open between recordings (pre-roll) instead of opening it on each press.
    pub keep_open: bool,
    /// Also send the audio so far every [`super::pause::STRIDE`] of speech without a pause:
    /// only worth its cost (a copy of the whole recording at 16 kHz each time, and a pass
    /// over it) when the transcriber can commit speech without pauses.
    pub strides: bool,
}

#[derive(Debug)]
pub enum RecorderCommand {
    Start {
        id: u64,
        /// Where to write the recording while it is recorded (a new file); `None` keeps it in
        /// memory only.
        journal: Option<PathBuf>,
    },
    /// Stop after [`TAIL`] and deliver the audio.
    Stop { id: u64 },
    /// Stop and throw the audio away.
    Cancel { id: u64 },
    /// Use this microphone from now on; during a recording, from its end on.
    Configure(RecorderConfig),
}

#[derive(Debug)]
pub enum RecorderEvent {
    Started {
        id: u64,
        device: String,
        /// Audio from before the key went down that the recording starts with.
        pre_roll: Duration,
    },
    /// The first audio callback after the start command (how long the microphone took).
    FirstAudio {
        id: u64,
        /// From the start command (the key-down) to the first audio callback.
        after_start: Duration,
        /// From the start command to the capture of the first sample, for a microphone opened
        /// for this recording whose input timestamps its audio (`None` otherwise): the audio
        /// before it is not in the recording. Zero when the input had audio from before.
        first_sample_after_start: Option<Duration>,
        /// The microphone was opened for this recording (not kept open with a pre-roll).
        opened: bool,
    },
    /// The loudness of the last [`PAUSE_CHECK`] of the recording (RMS of its samples, 0–1), sent
    /// every [`PAUSE_CHECK`] while recording and never otherwise (the overlay's level meter).
    Level { id: u64, rms: f32 },
    /// The audio so far while the key is held, so that it is transcribed (and committed) while
    /// the person speaks (see [`super::pause`]): sent once per pause that follows new speech,
    /// and, when [`RecorderConfig::strides`] asks for it, every [`super::pause::STRIDE`] of
    /// speech without a pause.
    Pause {
        id: u64,
        /// 16 kHz mono, shared with the recorder (the converted part: all but the last
        /// milliseconds the converter waits on).
        samples: SharedAudio,
        /// Sent for a stride of speech, not at a pause.
        stride: bool,
    },
    /// The speaker went on after the pause whose audio was the last [`RecorderEvent::Pause`]
    /// (sent once per such pause, never after a stride's): the pass over it can only be
    /// committed if the quiet after it lasted long enough, which the worker judges from the
    /// two positions.
    SpeechAfterPause {
        id: u64,
        /// The pause's snapshot: how many 16 kHz samples it held.
        pause_end: usize,
        /// The recording's length (16 kHz samples) when speech was heard after it: speech
        /// began before here.
        heard_at: usize,
    },
    /// The quiet after the pause whose audio was the last [`RecorderEvent::Pause`] has lasted
    /// [`super::pause::PAUSE_HELD`]: a pause between sentences, whose text can be committed
    /// now rather than at the next snapshot (sent once per such pause, instead of
    /// [`RecorderEvent::SpeechAfterPause`]).
    PauseHeld {
        id: u64,
        /// The audio so far, 16 kHz mono: at least the pause's snapshot and
        /// [`super::pause::PAUSE_HELD`] after it, where the worker judges the pause and cuts.
        samples: SharedAudio,
    },
    /// The audio up to the moment the key went up, sent before the [`TAIL`] is recorded so
    /// transcription can start at once; [`RecorderEvent::Audio`] follows with the tail.
    Head {
        id: u64,
        /// 16 kHz mono, shared as a pause's snapshot is.
        samples: SharedAudio,
    },
    Audio {
        id: u64,
        /// 16 kHz mono.
        samples: SharedAudio,
        /// When the recording really ended (key-up + tail, or the microphone's failure).
        ended: Instant,
        /// The journal holding all of it (at 16 kHz, or the device's rate when it could not be
        /// rewritten), closed; `None` when it could not be written.
        journal: Option<PathBuf>,
    },
    Failed {
        /// The recording it happened to, if one was being made (or started).
        id: Option<u64>,
        problem: MicrophoneProblem,
        /// The technical message (for the log).
        detail: String,
        /// What recording `id` had recorded follows as [`RecorderEvent::Audio`] (the
        /// microphone failed in the middle of it); `false` when there is nothing: the
        /// recording could not start, or no audio had arrived.
        audio_follows: bool,
    },
}

/// What went wrong with the microphone, in the terms the user can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicrophoneProblem {
    /// The system lists no input device.
    NotFound,
    /// It is there but could not be opened (busy, no permission, unsupported format).
    CannotOpen,
    /// It stopped delivering audio or failed during a recording (unplugged, driver error).
    Lost,
}

/// The recorder thread; dropping it closes the microphone and ends the thread (a recording in
/// progress stays in its journal).
pub struct Recorder(CommandThread<RecorderCommand>);

impl Recorder {
    /// Starts the recorder thread on the system's microphones; `emit` receives every event
    /// (from that thread).
    pub fn spawn(
        config: RecorderConfig,
        emit: impl Fn(RecorderEvent) + Send + 'static,
    ) -> std::io::Result<Recorder> {
        Recorder::spawn_with(config, CpalSource, super::vad::installed(), emit)
    }

    /// [`Recorder::spawn`] on the inputs of `source`, telling speech from quiet with
    /// `detector` (by loudness without it).
    pub fn spawn_with(
        config: RecorderConfig,
        source: impl InputSource + Send + 'static,
        detector: Option<VoiceDetector>,
        emit: impl Fn(RecorderEvent) + Send + 'static,
    ) -> std::io::Result<Recorder> {
        CommandThread::spawn("recorder", move |rx| {
            RecorderThread::new(config, Box::new(source), detector, Box::new(emit)).run(rx)
        })
        .map(Recorder)
    }

    pub fn send(&self, command: RecorderCommand) {
        self.0.send(command);
    }
}

/// The recording in progress.
#[derive(Debug, Clone, Copy)]
struct Current {
    id: u64,
    /// When the start command was served, before the microphone was opened (the key-down as
    /// the recorder knows it).
    asked: Instant,
    /// The microphone was opened for this recording.
    opened: bool,
    started: Instant,
    /// The rate of the input it is recorded from.
    rate: u32,
}

struct RecorderThread {
    config: RecorderConfig,
    source: Box<dyn InputSource>,
    emit: Box<dyn Fn(RecorderEvent) + Send>,
    shared: Arc<Mutex<Shared>>,
    stream: Option<OpenStream>,
    stream_errors: (Sender<String>, Receiver<String>),
    current: Option<Current>,
    /// Where the current recording's last snapshots ended (samples at 16 kHz).
    marks: SnapshotMarks,
    /// The last snapshot was a pause's, of this many 16 kHz samples, and neither speech nor
    /// [`super::pause::PAUSE_HELD`] of quiet has been heard after it yet
    /// ([`RecorderEvent::SpeechAfterPause`], [`RecorderEvent::PauseHeld`]).
    pause_watched: Option<usize>,
    /// The current recording's loudest frame, measured as it arrives (the pause check's
    /// reference level).
    peak: RunningPeak,
    /// The current recording's journal (at the device's rate).
    journal: Option<JournalWriter>,
    /// Microphone changes asked for during the current recording, applied in order once it
    /// has ended.
    deferred: Vec<RecorderConfig>,
    /// The current recording at Whisper's rate, converted as it arrives: a snapshot and the
    /// end of a long recording then convert only the newest samples (converting all of a
    /// 110 s recording at key-up took ~0.1 s, growing with the length).
    converted: Option<Resampler>,
    /// The voice-activity detector; `None` without its model (pauses are then judged by
    /// loudness alone).
    detector: Option<VoiceDetector>,
    /// The detector on the current recording at 16 kHz, as it is converted.
    speech: Option<SpeechStream>,
    /// An empty buffer with room, swapped with the input's for the audio that arrived since
    /// the last turn ([`RecorderThread::take_new_audio`]).
    spare: Vec<f32>,
    /// The current recording's key went up: its tail is being recorded.
    ending: Option<Ending>,
}

/// A recording after its key-up, while its [`TAIL`] is recorded.
#[derive(Debug, Clone, Copy)]
struct Ending {
    /// The head's length at 16 kHz (what [`RecorderThread::tail_can_end`] judges).
    head_len: usize,
    /// When the tail may end early ([`FIRST_TAIL`], asked once), and when it ends ([`TAIL`]).
    first_tail_at: Instant,
    tail_at: Instant,
    /// Whether the early end was asked about (and declined).
    asked_early: bool,
}

impl RecorderThread {
    fn new(
        config: RecorderConfig,
        source: Box<dyn InputSource>,
        detector: Option<VoiceDetector>,
        emit: Box<dyn Fn(RecorderEvent) + Send>,
    ) -> Self {
        RecorderThread {
            config,
            source,
            emit,
            shared: Arc::new(Mutex::new(Shared::default())),
            stream: None,
            stream_errors: mpsc::channel(),
            current: None,
            marks: SnapshotMarks::default(),
            pause_watched: None,
            peak: RunningPeak::default(),
            journal: None,
            deferred: Vec::new(),
            converted: None,
            detector,
            speech: None,
            spare: Vec::new(),
            ending: None,
        }
    }

    fn run(mut self, commands: Receiver<RecorderCommand>) {
        if self.config.keep_open {
            if let Err((_, detail)) = self.open() {
                tracing::warn!("microphone not ready: {detail}");
            }
        }
        loop {
            let command = match self.next_wait() {
                Some(wait) => commands.recv_timeout(wait),
                // Nothing being recorded: asleep until the next command (no periodic wake-up
                // while the app waits; a stream kept open fills its pre-roll ring by itself).
                None => commands.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match command {
                Err(RecvTimeoutError::Disconnected) => {
                    // The key went up just before the app quit: its tail, then its audio.
                    while let Some(wait) = self.next_wait().filter(|_| self.ending.is_some()) {
                        std::thread::sleep(wait);
                        self.end_tail_when_due();
                    }
                    break;
                }
                Ok(command) => self.handle(command),
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.take_new_audio();
            self.watch();
            self.end_tail_when_due();
            if self.ending.is_none() {
                self.report_level();
                self.notice_pause();
            }
        }
        // Quitting: whatever is still recording stays in its journal (recovered at the next
        // start); the writer closes with the thread.
        if let Some(current) = self.current {
            self.take_new_audio();
            tracing::info!(
                id = current.id,
                "quit while recording: the recording stays in its journal"
            );
        }
    }

    fn handle(&mut self, command: RecorderCommand) {
        match command {
            RecorderCommand::Start { id, journal } => self.start(id, journal.as_deref()),
            RecorderCommand::Stop { id } => self.stop(id, true),
            RecorderCommand::Cancel { id } => self.stop(id, false),
            RecorderCommand::Configure(config) => {
                if let Some(current) = self.current {
                    tracing::info!(
                        id = current.id,
                        device = %config.device,
                        "microphone change: applies once this recording ends"
                    );
                    self.deferred.push(config);
                } else {
                    self.configure(config);
                }
            }
        }
    }

    fn configure(&mut self, config: RecorderConfig) {
        if config != self.config {
            self.config = config;
            self.stream = None;
            if self.config.keep_open {
                if let Err((_, detail)) = self.open() {
                    tracing::warn!("microphone not ready: {detail}");
                }
            }
        }
    }

    fn start(&mut self, id: u64, journal: Option<&Path>) {
        if let Some(earlier) = self.current {
            if self.ending.is_some() {
                // The key went down again in the last recording's tail: it ends here.
                tracing::info!(
                    earlier = earlier.id,
                    id,
                    "a recording started in the last one's tail: the tail ends here"
                );
            } else {
                // Not sent by the app (it stops one recording before it starts the next):
                // kept all the same, never dropped.
                tracing::warn!(
                    earlier = earlier.id,
                    id,
                    "a recording started while another was going on: the earlier one ends here"
                );
            }
            self.end_recording(true);
        }
        let asked = Instant::now();
        if self.stream.is_some() && !self.kept_stream_alive() {
            self.stream = None;
        }
        let opened = self.stream.is_none();
        if opened {
            if let Err((problem, detail)) = self.open() {
                (self.emit)(RecorderEvent::Failed {
                    id: Some(id),
                    problem,
                    detail,
                    audio_follows: false,
                });
                return;
            }
        }
        let (rate, name) = match &self.stream {
            Some(s) => (s.rate, s.name.clone()),
            None => return,
        };
        let pre_roll = {
            let mut shared = lock(&self.shared);
            let pre: Vec<f32> = shared.ring.drain(..).collect();
            let pre_roll = Duration::from_secs_f64(pre.len() as f64 / f64::from(rate));
            shared.recording = Some(pre);
            shared.waiting_first_audio = true;
            shared.first_audio = None;
            pre_roll
        };
        self.current = Some(Current {
            id,
            asked,
            opened,
            started: Instant::now(),
            rate,
        });
        self.marks = SnapshotMarks::default();
        self.pause_watched = None;
        self.peak = RunningPeak::default();
        self.converted = Some(Resampler::new(rate, TARGET_RATE));
        self.speech = self.detector.as_ref().map(VoiceDetector::stream);
        self.journal = journal.and_then(|path| match JournalWriter::create(path, rate) {
            Ok(writer) => Some(writer),
            Err(e) => {
                tracing::warn!("recording kept in memory only: {e}");
                None
            }
        });
        self.take_new_audio();
        (self.emit)(RecorderEvent::Started {
            id,
            device: name,
            pre_roll,
        });
    }

    fn stop(&mut self, id: u64, deliver: bool) {
        if self.current.is_none_or(|c| c.id != id) || self.ending.is_some() {
            return;
        }
        if deliver {
            let head_len = self.emit_head(id);
            let now = Instant::now();
            self.ending = Some(Ending {
                head_len,
                first_tail_at: now + FIRST_TAIL,
                tail_at: now + TAIL,
                asked_early: false,
            });
            return;
        }
        self.end_recording(deliver);
    }

    /// How long the loop waits for a command while recording: [`PAUSE_CHECK`], or less when
    /// the tail being recorded is due sooner; `None` (until the next command) when nothing is
    /// being recorded.
    fn next_wait(&self) -> Option<Duration> {
        self.current?;
        let Some(ending) = self.ending else {
            return Some(PAUSE_CHECK);
        };
        let due = if ending.asked_early {
            ending.tail_at
        } else {
            ending.first_tail_at
        };
        Some(
            due.saturating_duration_since(Instant::now())
                .min(PAUSE_CHECK),
        )
    }

    /// Ends the recording whose tail is recorded once the tail is done: at [`FIRST_TAIL`] when
    /// [`Self::tail_can_end`] says so then, else at [`TAIL`].
    fn end_tail_when_due(&mut self) {
        let Some(ending) = self.ending.as_mut() else {
            return;
        };
        let now = Instant::now();
        if now < ending.first_tail_at {
            return;
        }
        if !ending.asked_early {
            ending.asked_early = true;
            let head_len = ending.head_len;
            if self.tail_can_end(head_len) {
                return self.end_recording(true);
            }
        }
        if self.ending.is_some_and(|e| now >= e.tail_at) {
            self.end_recording(true);
        }
    }

    /// Ends the current recording: its audio and journal are handed on as
    /// [`RecorderEvent::Audio`] (`deliver`), or thrown away (a cancel). Then the microphone
    /// changes asked for meanwhile apply.
    fn end_recording(&mut self, deliver: bool) {
        self.ending = None;
        let Some(current) = self.current.take() else {
            return;
        };
        let converted = self.converted.take();
        let ended = Instant::now();
        let rest = {
            let mut shared = lock(&self.shared);
            shared.waiting_first_audio = false;
            shared.recording.take().unwrap_or_default()
        };
        if !self.config.keep_open {
            self.stream = None;
        }
        if deliver {
            self.append_journal(&rest);
            let journal = self
                .journal
                .take()
                .map(|writer| writer.path().to_path_buf());
            let mut speech = self.speech.take();
            let samples = converted.map_or_else(SharedAudio::default, |mut converted| {
                converted.push(&rest);
                let labelled = speech.as_ref().map_or(0, |s| s.frames().covered());
                let samples = converted.finish();
                match speech.as_mut() {
                    Some(stream) => {
                        stream.push(samples.get(labelled..).unwrap_or_default());
                        stream.finish();
                        samples.with_speech(stream.frames().clone())
                    }
                    None => samples,
                }
            });
            if let Some(path) = journal.as_deref().filter(|_| current.rate != TARGET_RATE) {
                // Kept at Whisper's rate: a third of the disk for a 48 kHz microphone. Some
                // milliseconds at most (a page-cache write); on failure the device-rate journal
                // stays, complete.
                if let Err(e) = super::wav_journal::replace(path, &samples, TARGET_RATE) {
                    tracing::warn!("recording kept at the microphone's rate: {e}");
                }
            }
            (self.emit)(RecorderEvent::Audio {
                id: current.id,
                samples,
                ended,
                journal,
            });
        } else {
            self.discard_journal();
        }
        for config in std::mem::take(&mut self.deferred) {
            self.configure(config);
        }
    }

    /// Takes the audio that arrived since the last turn: appended to the journal and converted
    /// to 16 kHz. A journal that cannot be written is given up (the recording stays in memory
    /// and is saved whole when it ends).
    fn take_new_audio(&mut self) {
        if self.current.is_none() {
            return;
        }
        let mut new = std::mem::take(&mut self.spare);
        if let Some(recording) = lock(&self.shared).recording.as_mut() {
            std::mem::swap(recording, &mut new);
        }
        if !new.is_empty() {
            self.append_journal(&new);
            if let Some(converted) = self.converted.as_mut() {
                let before = converted.converted().len();
                converted.push(&new);
                if let Some(speech) = self.speech.as_mut() {
                    speech.push(&converted.converted()[before..]);
                }
            }
        }
        new.clear();
        self.spare = new;
    }

    fn append_journal(&mut self, new: &[f32]) {
        let Some(writer) = &mut self.journal else {
            return;
        };
        if let Err(e) = writer.append(new) {
            tracing::warn!("recording kept in memory only: {e}");
            self.discard_journal();
        }
    }

    /// Closes and deletes the current journal: a cancelled recording (the person's choice), or
    /// one that could not be written (the recording is in memory and handed on from there).
    fn discard_journal(&mut self) {
        if let Some(writer) = self.journal.take() {
            let path = writer.path().to_path_buf();
            drop(writer);
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!("{}: {e}", path.display());
            }
        }
    }

    /// Sends what was recorded so far, as [`RecorderEvent::Head`]; returns how much of it is
    /// converted for good (16 kHz samples), where [`Self::tail_can_end`] judges the tail from.
    fn emit_head(&mut self, id: u64) -> usize {
        let samples = self.recorded_so_far();
        (self.emit)(RecorderEvent::Head { id, samples });
        self.converted.as_ref().map_or(0, |c| c.converted().len())
    }

    /// Whether the recording may end now, [`FIRST_TAIL`] after key-up (see
    /// [`tail_can_end_early`]); `head_len` is the head's length at 16 kHz.
    fn tail_can_end(&self, head_len: usize) -> bool {
        self.converted.as_ref().is_some_and(|converted| {
            tail_can_end_early(
                converted.converted(),
                head_len,
                self.speech.as_ref().map(SpeechStream::frames),
                TARGET_RATE,
            )
        })
    }

    /// The current recording so far at 16 kHz, shared.
    fn recorded_so_far(&self) -> SharedAudio {
        let samples = self
            .converted
            .as_ref()
            .map_or_else(SharedAudio::default, Resampler::converted_shared);
        match &self.speech {
            Some(speech) => samples.with_speech(speech.frames().clone()),
            None => samples,
        }
    }

    /// Sends [`RecorderEvent::Level`] for the newest [`PAUSE_CHECK`] of the recording.
    fn report_level(&mut self) {
        let (Some(Current { id, .. }), Some(converted)) = (self.current, self.converted.as_ref())
        else {
            return;
        };
        let recording = converted.converted();
        let block = (PAUSE_CHECK.as_secs_f64() * f64::from(TARGET_RATE)) as usize;
        let rms = super::level::rms(&recording[recording.len().saturating_sub(block)..]);
        (self.emit)(RecorderEvent::Level { id, rms });
    }

    /// Sends [`RecorderEvent::Pause`] when the speaker has just paused after new speech, or
    /// has spoken a stride without pausing; and after a pause's snapshot, once,
    /// [`RecorderEvent::SpeechAfterPause`] when the speaker goes on or
    /// [`RecorderEvent::PauseHeld`] when the pause has held.
    fn notice_pause(&mut self) {
        let (Some(Current { id, .. }), Some(converted)) = (self.current, self.converted.as_ref())
        else {
            return;
        };
        let recording = converted.converted();
        let peak = self.peak.of(recording, TARGET_RATE);
        let hearing = match &self.speech {
            Some(speech) => Hearing::Voice {
                speech: speech.frames(),
                peak,
            },
            None => Hearing::Loudness { peak },
        };
        let due = self
            .marks
            .due(recording, hearing, TARGET_RATE, self.config.strides);
        let after_pause = self
            .pause_watched
            .map(|_| super::pause::after_pause(recording, self.marks.pause, hearing, TARGET_RATE));
        let len = recording.len();
        if let (Some(after_pause), Some(pause_end)) = (after_pause, self.pause_watched) {
            self.report_after_pause(id, after_pause, pause_end, len);
        }
        if let Some(snapshot) = due {
            let samples = self.recorded_so_far();
            self.marks.sent(snapshot, len);
            let stride = snapshot == Snapshot::Stride;
            self.pause_watched = (!stride).then_some(samples.len());
            (self.emit)(RecorderEvent::Pause {
                id,
                samples,
                stride,
            });
        }
    }

    /// Reports what became of the pause whose snapshot held `pause_end` samples at 16 kHz, the
    /// recording being `len` samples now.
    fn report_after_pause(
        &mut self,
        id: u64,
        after_pause: AfterPause,
        pause_end: usize,
        len: usize,
    ) {
        match after_pause {
            AfterPause::Waiting => {}
            AfterPause::Spoke => {
                self.pause_watched = None;
                (self.emit)(RecorderEvent::SpeechAfterPause {
                    id,
                    pause_end,
                    heard_at: len.max(pause_end),
                });
            }
            AfterPause::Held => {
                let samples = self.recorded_so_far();
                let held =
                    (super::pause::PAUSE_HELD.as_secs_f64() * f64::from(TARGET_RATE)) as usize;
                // The conversion to 16 kHz may hold back a few samples: the next check has them.
                if samples.len() >= pause_end + held {
                    self.pause_watched = None;
                    (self.emit)(RecorderEvent::PauseHeld { id, samples });
                }
            }
        }
    }

    /// Reports the first audio of a recording, stream errors, and a microphone gone silent.
    fn watch(&mut self) {
        let mut failure = None;
        while let Ok(message) = self.stream_errors.1.try_recv() {
            failure = Some(message);
        }
        let (first_audio, stalled) = {
            let shared = lock(&self.shared);
            let last = shared.last_callback;
            let stalled = self.current.is_some()
                && self.stream.is_some()
                && last.map_or_else(
                    || self.current.is_some_and(|c| c.started.elapsed() > STALL),
                    |t| t.elapsed() > STALL,
                );
            (shared.first_audio, stalled)
        };
        if let (Some(current), Some((at, first_sample))) = (self.current, first_audio) {
            let mut shared = lock(&self.shared);
            if shared.first_audio.take().is_some() {
                drop(shared);
                (self.emit)(RecorderEvent::FirstAudio {
                    id: current.id,
                    after_start: at.saturating_duration_since(current.asked),
                    first_sample_after_start: first_sample
                        .filter(|_| current.opened)
                        .map(|t| t.saturating_duration_since(current.asked)),
                    opened: current.opened,
                });
            }
        }
        if stalled && failure.is_none() {
            failure = Some(format!(
                "the microphone stopped sending audio for {} s",
                STALL.as_secs()
            ));
        }
        if let Some(message) = failure {
            if self.stream.is_none() {
                // More errors from a stream already given up on: said once is enough.
                tracing::debug!("microphone (closed): {message}");
                return;
            }
            self.stream = None;
            tracing::warn!("microphone failed: {message}");
            let id = self.current.map(|c| c.id);
            self.take_new_audio();
            let recorded = self.converted.as_ref().is_some_and(|c| c.pushed() > 0);
            (self.emit)(RecorderEvent::Failed {
                id,
                problem: MicrophoneProblem::Lost,
                detail: message,
                audio_follows: id.is_some() && recorded,
            });
            // What it recorded goes on as if the key had gone up; with nothing recorded there
            // is nothing to keep.
            self.end_recording(recorded);
        }
    }

    /// Whether the stream kept open between recordings still delivers: nothing watches it
    /// while the recorder sleeps, so at a key-down a stream that failed or went silent
    /// meanwhile (unplugged, the system's audio restarted) is said in the log and reopened.
    fn kept_stream_alive(&mut self) -> bool {
        let mut failure = None;
        while let Ok(message) = self.stream_errors.1.try_recv() {
            failure = Some(message);
        }
        let silent = lock(&self.shared)
            .last_callback
            .is_some_and(|t| t.elapsed() > STALL);
        match failure {
            Some(message) => tracing::warn!("microphone failed while idle: {message}; reopening"),
            None if silent => tracing::warn!(
                "microphone sent nothing for {} s while idle; reopening",
                STALL.as_secs()
            ),
            None => return true,
        }
        false
    }

    fn open(&mut self) -> Result<(), (MicrophoneProblem, String)> {
        let feed = Feed {
            shared: Arc::clone(&self.shared),
            errors: self.stream_errors.0.clone(),
        };
        // Errors of an input given up on are not this one's.
        while self.stream_errors.1.try_recv().is_ok() {}
        let stream = self.source.open(&self.config, feed)?;
        lock(&self.shared).reset_for(stream.rate);
        self.stream = Some(stream);
        Ok(())
    }
}
