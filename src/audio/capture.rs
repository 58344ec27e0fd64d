//! Recording from the microphone with `cpal`, on a thread that owns the stream (a cpal stream
//! may not leave the thread that built it). Commands go in, recordings come out as 16 kHz mono.
//!
//! First and last words: the stream can be kept open with a pre-roll ring buffer, so audio from
//! just before the key went down is part of the recording (a microphone takes 0.3–0.7 s to start,
//! Bluetooth longer); after the key goes up the recorder keeps listening for [`TAIL`] so the last
//! word is not cut, or only for [`FIRST_TAIL`] when the speaker had already stopped
//! ([`super::pause::tail_can_end_early`]). Each start logs how much audio was already there (pre-roll) and how long the
//! first audio callback took. A microphone that disappears or stops delivering audio ends the
//! recording with [`RecorderEvent::Failed`] instead of hanging.
//!
//! Nothing said is lost: given a journal path at the start, the recorder writes the recording
//! there as it is recorded ([`super::wav_journal`]), every [`PAUSE_CHECK`] (50 ms), on its own
//! thread, so a process that dies at any moment leaves all but the last fraction of a second on
//! disk. At key-up the rest is appended, and the journal is replaced by the recording at
//! 16 kHz (what Whisper takes and what is kept), before the audio is handed on.

use super::level::GateConfig;
use super::pause::{tail_can_end_early, FIRST_TAIL, PAUSE_CHECK};
use super::resample::resample;
use super::wav_journal::JournalWriter;
use crate::command_thread::CommandThread;
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Audio kept after the key goes up.
pub const TAIL: Duration = Duration::from_millis(300);
/// Audio kept from before the key goes down when the stream stays open.
pub const PRE_ROLL: Duration = Duration::from_millis(500);
/// A recording whose stream delivers nothing for this long has lost its microphone.
const STALL: Duration = Duration::from_millis(2000);
const TARGET_RATE: u32 = 16_000;
/// Pauses in recordings longer than this (one Whisper window) are not snapshotted: transcribing
/// them again and again while the speaker goes on would cost more than it saves.
pub const PAUSE_SNAPSHOT_LIMIT: Duration = Duration::from_secs(30);

/// Mono `samples` at the device's `rate` → 16 kHz, Whisper's rate.
fn at_target_rate(samples: Vec<f32>, rate: u32) -> Vec<f32> {
    if rate == TARGET_RATE {
        samples
    } else {
        resample(&samples, rate, TARGET_RATE)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecorderConfig {
    /// The input device's name as the system lists it; empty = the system default.
    pub device: String,
    /// Keep the stream open between recordings (pre-roll) instead of opening it on each press.
    pub keep_open: bool,
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
    Stop {
        id: u64,
    },
    /// Stop and throw the audio away.
    Cancel {
        id: u64,
    },
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
    FirstAudio { id: u64, after_start: Duration },
    /// The loudness of the last [`PAUSE_CHECK`] of the recording (RMS of its samples, 0–1), sent
    /// every [`PAUSE_CHECK`] while recording and never otherwise (the overlay's level meter).
    Level { id: u64, rms: f32 },
    /// The speaker paused while still holding the key: the audio so far, so a transcription can
    /// start before the key goes up (see [`super::pause`]). Sent once per pause that follows new
    /// speech, while the recording is at most [`PAUSE_SNAPSHOT_LIMIT`] long.
    Pause {
        id: u64,
        /// 16 kHz mono.
        samples: Vec<f32>,
    },
    /// The audio up to the moment the key went up, sent before the [`TAIL`] is recorded so
    /// transcription can start at once; [`RecorderEvent::Audio`] follows with the tail.
    Head {
        id: u64,
        /// 16 kHz mono.
        samples: Vec<f32>,
    },
    Audio {
        id: u64,
        /// 16 kHz mono.
        samples: Vec<f32>,
        /// When the recording really ended (key-up + tail).
        ended: Instant,
        /// The journal holding all of it (at the device's rate), closed; `None` when it could
        /// not be written.
        journal: Option<PathBuf>,
    },
    Failed {
        id: Option<u64>,
        problem: MicrophoneProblem,
        /// The technical message (for the log).
        detail: String,
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

/// Audio shared between the stream's callback and the recorder thread.
#[derive(Default)]
struct Shared {
    ring: VecDeque<f32>,
    ring_capacity: usize,
    recording: Option<Vec<f32>>,
    last_callback: Option<Instant>,
    waiting_first_audio: bool,
    first_audio: Option<Instant>,
}

impl Shared {
    fn push(&mut self, mono: impl Iterator<Item = f32>) {
        let now = Instant::now();
        self.last_callback = Some(now);
        if self.waiting_first_audio {
            self.waiting_first_audio = false;
            self.first_audio = Some(now);
        }
        match &mut self.recording {
            Some(buffer) => buffer.extend(mono),
            None => {
                self.ring.extend(mono);
                let excess = self.ring.len().saturating_sub(self.ring_capacity);
                self.ring.drain(..excess);
            }
        }
    }
}

struct OpenStream {
    _stream: cpal::Stream,
    rate: u32,
    name: String,
}

/// The recorder thread; dropping it closes the microphone and ends the thread.
pub struct Recorder(CommandThread<RecorderCommand>);

impl Recorder {
    /// Starts the recorder thread; `emit` receives every event (from that thread).
    pub fn spawn(
        config: RecorderConfig,
        emit: impl Fn(RecorderEvent) + Send + 'static,
    ) -> std::io::Result<Recorder> {
        CommandThread::spawn("recorder", move |rx| {
            RecorderThread::new(config, Box::new(emit)).run(rx)
        })
        .map(Recorder)
    }

    pub fn send(&self, command: RecorderCommand) {
        self.0.send(command);
    }
}

struct RecorderThread {
    config: RecorderConfig,
    emit: Box<dyn Fn(RecorderEvent) + Send>,
    shared: Arc<Mutex<Shared>>,
    stream: Option<OpenStream>,
    stream_errors: (Sender<String>, Receiver<String>),
    current: Option<(u64, Instant)>,
    /// Samples (at the device's rate) of the current recording already sent as a pause.
    paused_at: usize,
    /// The current recording's journal and how many of its samples are in it.
    journal: Option<(JournalWriter, usize)>,
}

impl RecorderThread {
    fn new(config: RecorderConfig, emit: Box<dyn Fn(RecorderEvent) + Send>) -> Self {
        RecorderThread {
            config,
            emit,
            shared: Arc::new(Mutex::new(Shared::default())),
            stream: None,
            stream_errors: mpsc::channel(),
            current: None,
            paused_at: 0,
            journal: None,
        }
    }

    fn run(mut self, commands: Receiver<RecorderCommand>) {
        if self.config.keep_open {
            if let Err((_, detail)) = self.open() {
                tracing::warn!("microphone not ready: {detail}");
            }
        }
        loop {
            match commands.recv_timeout(PAUSE_CHECK) {
                Err(RecvTimeoutError::Disconnected) => break,
                Ok(command) => self.handle(command),
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.watch();
            self.report_level();
            self.notice_pause();
            self.write_journal();
        }
    }

    fn handle(&mut self, command: RecorderCommand) {
        match command {
            RecorderCommand::Start { id, journal } => self.start(id, journal.as_deref()),
            RecorderCommand::Stop { id } => self.stop(id, true),
            RecorderCommand::Cancel { id } => self.stop(id, false),
            RecorderCommand::Configure(config) => {
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
        }
    }

    fn start(&mut self, id: u64, journal: Option<&Path>) {
        if self.stream.is_none() {
            if let Err((problem, detail)) = self.open() {
                (self.emit)(RecorderEvent::Failed {
                    id: Some(id),
                    problem,
                    detail,
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
        self.current = Some((id, Instant::now()));
        self.paused_at = 0;
        self.discard_journal();
        self.journal = journal.and_then(|path| match JournalWriter::create(path, rate) {
            Ok(writer) => Some((writer, 0)),
            Err(e) => {
                tracing::warn!("recording kept in memory only: {e}");
                None
            }
        });
        self.write_journal();
        (self.emit)(RecorderEvent::Started {
            id,
            device: name,
            pre_roll,
        });
    }

    fn stop(&mut self, id: u64, deliver: bool) {
        let Some((current, _)) = self.current else {
            return;
        };
        if current != id {
            return;
        }
        if deliver {
            let head_len = self.emit_head(id);
            std::thread::sleep(FIRST_TAIL);
            if !self.tail_can_end(head_len) {
                std::thread::sleep(TAIL.saturating_sub(FIRST_TAIL));
            }
            self.watch();
        }
        let Some((_, _)) = self.current.take() else {
            return; // the watchdog found the microphone gone during the tail
        };
        let ended = Instant::now();
        let (samples, rate) = {
            let mut shared = lock(&self.shared);
            shared.waiting_first_audio = false;
            let samples = shared.recording.take().unwrap_or_default();
            (
                samples,
                self.stream.as_ref().map_or(TARGET_RATE, |s| s.rate),
            )
        };
        if !self.config.keep_open {
            self.stream = None;
        }
        if !deliver {
            self.discard_journal();
            return;
        }
        let journal = self.close_journal(&samples);
        let samples = at_target_rate(samples, rate);
        if let Some(path) = journal.as_deref().filter(|_| rate != TARGET_RATE) {
            // Kept at Whisper's rate: a third of the disk for a 48 kHz microphone. Some
            // milliseconds at most (a page-cache write); on failure the device-rate journal
            // stays, complete.
            if let Err(e) = super::wav_journal::replace(path, &samples, TARGET_RATE) {
                tracing::warn!("recording kept at the microphone's rate: {e}");
            }
        }
        (self.emit)(RecorderEvent::Audio {
            id,
            samples,
            ended,
            journal,
        });
    }

    /// Appends what was recorded since the last call to the current recording's journal. A
    /// journal that cannot be written is given up (the recording stays in memory and is saved
    /// whole when it ends).
    fn write_journal(&mut self) {
        let Some((_, written)) = &self.journal else {
            return;
        };
        let new: Vec<f32> = {
            let shared = lock(&self.shared);
            match shared.recording.as_ref() {
                Some(recording) if recording.len() > *written => recording[*written..].to_vec(),
                _ => return,
            }
        };
        self.append_journal(&new);
    }

    fn append_journal(&mut self, new: &[f32]) {
        let Some((writer, written)) = &mut self.journal else {
            return;
        };
        match writer.append(new) {
            Ok(()) => *written += new.len(),
            Err(e) => {
                tracing::warn!("recording kept in memory only: {e}");
                self.discard_journal();
            }
        }
    }

    /// Appends the rest of `recording` (all of it, at the device's rate) and closes the
    /// journal; its path when it holds the whole recording.
    fn close_journal(&mut self, recording: &[f32]) -> Option<PathBuf> {
        let written = self.journal.as_ref()?.1;
        if recording.len() > written {
            self.append_journal(&recording[written..]);
        }
        let (writer, _) = self.journal.take()?;
        Some(writer.path().to_path_buf())
    }

    /// Closes and deletes the current journal (a cancelled or failed recording).
    fn discard_journal(&mut self) {
        if let Some((writer, _)) = self.journal.take() {
            let path = writer.path().to_path_buf();
            drop(writer);
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!("{}: {e}", path.display());
            }
        }
    }

    /// Sends what was recorded so far, as [`RecorderEvent::Head`]; returns its length at the
    /// device's rate.
    fn emit_head(&self, id: u64) -> usize {
        let (samples, len) = self.recorded_so_far();
        (self.emit)(RecorderEvent::Head { id, samples });
        len
    }

    /// Whether the recording may end now, [`FIRST_TAIL`] after key-up (see
    /// [`tail_can_end_early`]); `head_len` is the head's length at the device's rate.
    fn tail_can_end(&self, head_len: usize) -> bool {
        let Some(rate) = self.stream.as_ref().map(|s| s.rate) else {
            return false;
        };
        let shared = lock(&self.shared);
        shared.recording.as_ref().is_some_and(|recording| {
            tail_can_end_early(recording, head_len, rate, &GateConfig::default())
        })
    }

    /// The current recording so far at 16 kHz, and its length at the device's rate.
    fn recorded_so_far(&self) -> (Vec<f32>, usize) {
        let (samples, rate) = {
            let shared = lock(&self.shared);
            (
                shared.recording.clone().unwrap_or_default(),
                self.stream.as_ref().map_or(TARGET_RATE, |s| s.rate),
            )
        };
        let len = samples.len();
        (at_target_rate(samples, rate), len)
    }

    /// Sends [`RecorderEvent::Level`] for the newest [`PAUSE_CHECK`] of the recording.
    fn report_level(&mut self) {
        let Some((id, _)) = self.current else {
            return;
        };
        let Some(rate) = self.stream.as_ref().map(|s| s.rate) else {
            return;
        };
        let rms = {
            let shared = lock(&self.shared);
            let Some(recording) = shared.recording.as_ref() else {
                return;
            };
            let block = (PAUSE_CHECK.as_secs_f64() * f64::from(rate)) as usize;
            super::level::rms(&recording[recording.len().saturating_sub(block)..])
        };
        (self.emit)(RecorderEvent::Level { id, rms });
    }

    /// Sends [`RecorderEvent::Pause`] when the speaker has just paused after new speech.
    fn notice_pause(&mut self) {
        let Some((id, _)) = self.current else {
            return;
        };
        let Some(rate) = self.stream.as_ref().map(|s| s.rate) else {
            return;
        };
        let paused = {
            let shared = lock(&self.shared);
            let Some(recording) = shared.recording.as_ref() else {
                return;
            };
            let limit = (PAUSE_SNAPSHOT_LIMIT.as_secs_f64() * f64::from(rate)) as usize;
            recording.len() <= limit
                && super::pause::paused_after_new_speech(recording, self.paused_at, rate)
        };
        if paused {
            let (samples, len) = self.recorded_so_far();
            self.paused_at = len;
            (self.emit)(RecorderEvent::Pause { id, samples });
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
                    || self.current.is_some_and(|(_, at)| at.elapsed() > STALL),
                    |t| t.elapsed() > STALL,
                );
            (shared.first_audio, stalled)
        };
        if let (Some((id, started)), Some(at)) = (self.current, first_audio) {
            let mut shared = lock(&self.shared);
            if shared.first_audio.take().is_some() {
                drop(shared);
                (self.emit)(RecorderEvent::FirstAudio {
                    id,
                    after_start: at.saturating_duration_since(started),
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
            let id = self.current.take().map(|(id, _)| id);
            lock(&self.shared).recording = None;
            self.discard_journal();
            self.stream = None;
            tracing::warn!("microphone failed: {message}");
            (self.emit)(RecorderEvent::Failed {
                id,
                problem: MicrophoneProblem::Lost,
                detail: message,
            });
        }
    }

    fn open(&mut self) -> Result<(), (MicrophoneProblem, String)> {
        let host = cpal::default_host();
        let device = pick_device(&host, &self.config.device)
            .map_err(|detail| (MicrophoneProblem::NotFound, detail))?;
        let cannot = |detail: String| (MicrophoneProblem::CannotOpen, detail);
        let name = device
            .description()
            .map(|d| d.name().to_string())
            .unwrap_or_else(|_| "microphone".into());
        let supported = device
            .default_input_config()
            .map_err(|e| cannot(format!("microphone '{name}': no usable input format ({e})")))?;
        let format = supported.sample_format();
        let buffer = callback_frames(supported.buffer_size(), supported.sample_rate());
        let mut config: StreamConfig = supported.into();
        config.buffer_size = buffer;
        {
            let mut shared = lock(&self.shared);
            *shared = Shared {
                ring_capacity: (PRE_ROLL.as_secs_f64() * f64::from(config.sample_rate)) as usize,
                ..Shared::default()
            };
        }
        let errors = self.stream_errors.0.clone();
        let shared = Arc::clone(&self.shared);
        let stream = match format {
            SampleFormat::F32 => build::<f32>(&device, &config, shared, errors),
            SampleFormat::I16 => build::<i16>(&device, &config, shared, errors),
            SampleFormat::I32 => build::<i32>(&device, &config, shared, errors),
            SampleFormat::U16 => build::<u16>(&device, &config, shared, errors),
            SampleFormat::I8 => build::<i8>(&device, &config, shared, errors),
            SampleFormat::U8 => build::<u8>(&device, &config, shared, errors),
            SampleFormat::F64 => build::<f64>(&device, &config, shared, errors),
            other => {
                return Err(cannot(format!(
                    "microphone '{name}': unsupported format {other}"
                )))
            }
        }
        .map_err(|e| cannot(format!("microphone '{name}': {e}")))?;
        stream
            .play()
            .map_err(|e| cannot(format!("microphone '{name}': cannot start ({e})")))?;
        tracing::info!(
            device = %name,
            rate = config.sample_rate,
            channels = config.channels,
            format = %format,
            "microphone open"
        );
        self.stream = Some(OpenStream {
            _stream: stream,
            rate: config.sample_rate,
            name,
        });
        Ok(())
    }
}

/// The named input device, or the system default when the name is empty or not found.
fn pick_device(host: &cpal::Host, wanted: &str) -> Result<cpal::Device, String> {
    if !wanted.trim().is_empty() {
        let found = host.input_devices().ok().and_then(|mut devices| {
            devices.find(|d| d.description().is_ok_and(|desc| desc.name() == wanted))
        });
        match found {
            Some(device) => return Ok(device),
            None => tracing::warn!("microphone '{wanted}' not found; using the system default"),
        }
    }
    host.default_input_device()
        .ok_or_else(|| "no microphone found (no default input device)".to_string())
}

/// Audio is handed over in blocks of about this length. The driver's own choice can be tiny
/// periods: through ALSA's PulseAudio plugin the capture thread then spun at half a core while
/// the app sat idle with the stream open (measured on the test desktop).
const CALLBACK_PERIOD: Duration = Duration::from_millis(20);

/// The buffer size asking for [`CALLBACK_PERIOD`]-long callbacks, within what the device allows.
fn callback_frames(supported: &cpal::SupportedBufferSize, rate: u32) -> cpal::BufferSize {
    let wanted = (CALLBACK_PERIOD.as_secs_f64() * f64::from(rate)) as u32;
    match supported {
        cpal::SupportedBufferSize::Range { min, max } if min <= max => {
            cpal::BufferSize::Fixed(wanted.clamp(*min, *max))
        }
        _ => cpal::BufferSize::Default,
    }
}

/// Names of the input devices, for the menu.
pub fn input_device_names() -> Vec<String> {
    let host = cpal::default_host();
    let mut names: Vec<String> = host
        .input_devices()
        .map(|devices| {
            devices
                .filter_map(|d| d.description().ok().map(|desc| desc.name().to_string()))
                .collect()
        })
        .unwrap_or_default();
    names.dedup();
    names
}

fn build<T>(
    device: &cpal::Device,
    config: &StreamConfig,
    shared: Arc<Mutex<Shared>>,
    errors: Sender<String>,
) -> Result<cpal::Stream, cpal::Error>
where
    T: SizedSample,
    f32: FromSample<T>,
{
    let channels = usize::from(config.channels).max(1);
    device.build_input_stream::<T, _, _>(
        *config,
        move |data: &[T], _: &cpal::InputCallbackInfo| {
            let mono = data.chunks(channels).map(|frame| {
                frame.iter().map(|&s| s.to_sample::<f32>()).sum::<f32>() / frame.len() as f32
            });
            lock(&shared).push(mono);
        },
        move |err: cpal::Error| {
            // Xruns and reroutes are recoverable; anything else ends the recording.
            let fatal = !matches!(
                err.kind(),
                cpal::ErrorKind::Xrun | cpal::ErrorKind::DeviceChanged
            );
            if fatal {
                let _ = errors.send(err.to_string());
            } else {
                tracing::debug!("microphone: {err}");
            }
        },
        None,
    )
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    // A panic inside the audio callback poisons the lock; the audio itself is still usable.
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_ask_for_20_ms_within_the_devices_range() {
        use cpal::{BufferSize, SupportedBufferSize};
        let range = |min, max| SupportedBufferSize::Range { min, max };
        assert_eq!(
            callback_frames(&range(64, 8192), 48_000),
            BufferSize::Fixed(960)
        );
        assert_eq!(
            callback_frames(&range(2048, 8192), 48_000),
            BufferSize::Fixed(2048)
        );
        assert_eq!(
            callback_frames(&range(16, 256), 16_000),
            BufferSize::Fixed(256)
        );
        assert_eq!(
            callback_frames(&SupportedBufferSize::Unknown, 48_000),
            BufferSize::Default
        );
    }

    #[test]
    fn the_ring_keeps_only_the_pre_roll_and_a_recording_keeps_everything() {
        let mut shared = Shared {
            ring_capacity: 4,
            ..Shared::default()
        };
        shared.push((0..10).map(|i| i as f32));
        assert_eq!(shared.ring, VecDeque::from(vec![6.0, 7.0, 8.0, 9.0]));
        let pre: Vec<f32> = shared.ring.drain(..).collect();
        shared.recording = Some(pre);
        shared.waiting_first_audio = true;
        shared.push([10.0, 11.0].into_iter());
        assert_eq!(
            shared.recording.as_deref(),
            Some(&[6.0, 7.0, 8.0, 9.0, 10.0, 11.0][..])
        );
        assert!(shared.first_audio.is_some());
        assert!(shared.ring.is_empty());
    }
}
