//! The transcription worker: a thread that owns the [`Transcriber`] (the model on the device the
//! manager chose), loads and warms it at start and after every model or device change, and turns
//! recordings into text one at a time, in the order they were made. Each recording is on disk
//! before it is transcribed (the recorder's journal, or saved here when there is none), so a
//! failure leaves it for "Retry last recording". The first time a run begins transcribing a
//! journal it says so on disk ([`RecordingStore::count_attempt`]): a recording whose
//! transcription kills the process is then not retried at every start.
//!
//! While the key is held, the audio so far arrives at every pause and every stride of speech
//! as [`WorkerCommand::TranscribeEarly`]: a pass transcribes it from the last commit on
//! ([`stream`]), and [`commit`]'s rule decides what of its text is final; that audio is never
//! transcribed again. At key-up ([`WorkerCommand::Transcribe`]) only the audio after the last
//! commit is transcribed, or nothing when the last pass covered it and the rest is quiet: the
//! work of a dictation is about one pass over its audio, and what is left at key-up is one
//! stretch of speech whatever the dictation's length. A recording nothing was committed of is
//! transcribed whole as before (a pass that gave no text never stands for it: a short reply
//! cut at the speaker's pause sits at Whisper's thresholds). A queued pass that newer audio of
//! the same recording made useless is skipped; a running one is stopped between encoder blocks
//! or decoder steps by newer audio with more speech after it (key-up's, or a pause's), unless
//! it ends in a pause (it commits if the pause holds). A pass over a short stretch that ends
//! in a pause is of use only if the pause holds: when the recorder hears the speaker go on too
//! soon ([`WorkerCommand::SpeechAfterPause`]), it stops too. Without that, a pause at a comma
//! cost a whole pass over audio that the next pause's pass hears again (43 % of all passes'
//! engine time on the project's 50 s clip). When the recorder hears the pause hold
//! ([`WorkerCommand::PauseHeld`]), the pass's text is committed at once (it used to wait for
//! the next snapshot, a sentence later: the words stayed dimmed on the overlay meanwhile).
//!
//! What can go wrong inside ([`interrupt`]): a panic while a recording is transcribed (a bug)
//! ends that dictation with [`Outcome::Crashed`] (the app says so and keeps the recording for
//! Retry), and the model is loaded again; the worker goes on with the next recording. At quit
//! ([`Worker::stop_now`]) it stops at once, between encoder blocks or decoder steps: what is
//! not transcribed yet stays in its journal, and the next start recovers it.

use super::verdict::{gate, Empty};
use super::wording::Wording;
use crate::audio::level::{loudest_frame, GateConfig, Level};
use crate::audio::pause;
use crate::audio::shared_audio::SharedAudio;
use crate::audio::wav::read_wav_16k;
use crate::command_thread::CommandThread;
use crate::device::manager::DeviceManager;
use crate::device::policy::{Placement, Reason};
use crate::device::setup::{manager_config, Overrides};
use crate::device::tuning::default_beam_size;
use crate::device::{DeviceKind, Operation};
use crate::recordings::RecordingStore;
use crate::settings::Settings;
use crate::transcriber::TranscriberError;
use crate::transcriber::{padding_on, Transcriber};
use crate::whisper::{primer, PaddingEncoding, TranscribeError, TranscribeParams, Transcript};
use std::collections::{HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod commit;
mod interrupt;
mod messages;
mod recent_language;
pub mod stream;
mod streaming;

use commit::Rule;
use recent_language::RecentLanguage;
use stream::{tells_the_language, Stream};

pub use messages::{Heard, Job, JobAudio, ModelRequest, Outcome, WorkerCommand, WorkerEvent};

/// Whether a stretch of speech without a pause can be committed while it is spoken, so that
/// the recorder's strides (the audio so far every few seconds of speech) are worth sending.
pub fn commits_without_pauses() -> bool {
    commit::RULES_IN_USE
        .iter()
        .any(|rule| matches!(rule, Rule::Agreement | Rule::Words))
}

const SAMPLE_RATE: u32 = 16_000;

/// The worker thread; dropping it waits for the dictation in progress (or, after
/// [`Worker::stop_now`], for the encoder block or decoder step in progress), then ends it.
pub struct Worker {
    /// Declared first: dropped (joined) while `stop` is still shared.
    thread: CommandThread<WorkerCommand>,
    stop: Arc<AtomicBool>,
}

impl Worker {
    pub fn spawn(
        recordings: RecordingStore,
        emit: impl Fn(WorkerEvent) + Send + 'static,
    ) -> std::io::Result<Worker> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        CommandThread::spawn("transcriber", move |rx| {
            WorkerThread::new(recordings, Box::new(emit), stopping).run(rx)
        })
        .map(|thread| Worker { thread, stop })
    }

    pub fn send(&self, command: WorkerCommand) {
        self.thread.send(command);
    }

    /// The app is quitting: stop the transcription in progress at the next encoder block or
    /// decoder step, and start no other. Every recording not transcribed stays a journal on
    /// disk (one kept in memory only is written to one), recovered at the next start.
    pub fn stop_now(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

struct WorkerThread {
    transcriber: Option<Transcriber>,
    load_error: Option<String>,
    /// The dictation being transcribed while it is spoken.
    stream: Option<Stream>,
    recordings: RecordingStore,
    /// Journals this run has begun transcribing (each attempt is counted once per run).
    attempted: HashSet<PathBuf>,
    /// Journals whose transcription this run finished, still counted as attempted until the
    /// app delivers the text and marks them finished. A quit before that (the text was ready
    /// but never pasted) is no failed attempt either: those still journals are uncounted then.
    awaiting_delivery: HashSet<PathBuf>,
    emit: Box<dyn Fn(WorkerEvent) + Send>,
    /// Set by [`Worker::stop_now`].
    stop: Arc<AtomicBool>,
    /// The model last asked for (loaded again after a panic).
    last_request: Option<ModelRequest>,
    /// The recording being transcribed now, and where it is kept.
    in_progress: Option<(u64, Option<PathBuf>)>,
    /// Recordings whose early transcription panicked: their whole transcription ends as
    /// [`Outcome::Crashed`] without being tried again.
    crashed: HashSet<u64>,
    /// The languages of the recent dictations that told it surely: the one they agree on is
    /// taken when a short one's detection is unsure.
    recent_language: RecentLanguage,
    /// The language a transcription of the dictation now being transcribed (a pass, the
    /// whole) told surely: one of the recent languages once the dictation is done.
    sure_language: Option<String>,
}

impl WorkerThread {
    /// A worker with no model yet, keeping recordings in `recordings`, telling `emit` what
    /// happens, stopped by `stop`.
    fn new(
        recordings: RecordingStore,
        emit: Box<dyn Fn(WorkerEvent) + Send>,
        stop: Arc<AtomicBool>,
    ) -> WorkerThread {
        WorkerThread {
            transcriber: None,
            load_error: None,
            stream: None,
            recordings,
            attempted: HashSet::new(),
            awaiting_delivery: HashSet::new(),
            emit,
            stop,
            last_request: None,
            in_progress: None,
            crashed: HashSet::new(),
            recent_language: RecentLanguage::default(),
            sure_language: None,
        }
    }

    fn run(mut self, commands: Receiver<WorkerCommand>) {
        let mut queue = VecDeque::new();
        loop {
            if self.stopping() {
                queue.extend(commands.try_iter());
                self.leave_for_next_start(queue);
                break;
            }
            if queue.is_empty() {
                // Idle: hand the transcription's freed buffers back to the system (glibc keeps
                // them; over dictations the app grew ~70 MB past its idle size otherwise).
                crate::platform::release_freed_memory();
                match commands.recv() {
                    Ok(command) => queue.push_back(command),
                    Err(_) => {
                        // The app is ending while the worker is idle (after a quit, between
                        // the passes of a dictation still being spoken or finished): its
                        // passes were no failed attempts either.
                        self.leave_for_next_start(queue);
                        break;
                    }
                }
            }
            queue.extend(commands.try_iter());
            if self.stopping() {
                continue;
            }
            let Some(command) = queue.pop_front() else {
                continue;
            };
            let serving = interrupt::Serving::of(&command);
            let served = catch_unwind(AssertUnwindSafe(|| {
                self.serve(command, &mut queue, &commands);
            }));
            if let Err(payload) = served {
                self.after_panic(serving, payload.as_ref());
            }
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn serve(
        &mut self,
        command: WorkerCommand,
        queue: &mut VecDeque<WorkerCommand>,
        commands: &Receiver<WorkerCommand>,
    ) {
        match command {
            WorkerCommand::Load(request) => self.load(request),
            WorkerCommand::Transcribe(job) => self.transcribe(job),
            // Read by a pass over that pause while it runs; nothing to do after it.
            WorkerCommand::SpeechAfterPause { .. } => {}
            WorkerCommand::PauseHeld { id, samples } => self.commit_pause_that_held(id, &samples),
            WorkerCommand::TranscribeEarly(job) => self.serve_pass(job, false, queue, commands),
            WorkerCommand::TranscribeStride(job) => self.serve_pass(job, true, queue, commands),
            WorkerCommand::ForgetRecentLanguage => self.recent_language.forget(),
            WorkerCommand::Unload => self.unload(),
        }
    }

    /// Drops the model and hands the freed memory back to the system; the next
    /// [`WorkerCommand::Load`] (the app sends one at the next key-down) brings it back.
    fn unload(&mut self) {
        let Some(transcriber) = self.transcriber.take() else {
            return;
        };
        let started = Instant::now();
        let device = transcriber.device();
        drop(transcriber);
        crate::platform::release_freed_memory();
        (self.emit)(WorkerEvent::Unloaded {
            model: self
                .last_request
                .as_ref()
                .map(|r| r.name.clone())
                .unwrap_or_default(),
            device,
            took: started.elapsed(),
        });
    }

    fn load(&mut self, request: ModelRequest) {
        self.last_request = Some(request.clone());
        self.recent_language = RecentLanguage::kept_in(&request.state_dir);
        (self.emit)(WorkerEvent::Loading {
            model: request.name.clone(),
        });
        // Free the old model before loading the new one (GPU memory especially).
        self.transcriber = None;
        let started = Instant::now();
        let result = open_manager(&request).and_then(|mut manager| {
            let planned = manager.placement();
            Transcriber::load(&request.dir, manager)
                .map(|t| {
                    let why = reason_after_load(planned, &t);
                    (t, why)
                })
                .map_err(|e| format!("{}: {e}", request.dir.display()))
        });
        match result {
            Ok((mut transcriber, why)) => {
                let load = started.elapsed();
                let warm_started = Instant::now();
                let warmed_on = transcriber.device();
                let why = if warm_up(&mut transcriber) {
                    // The GPU failed its self-test: the sample's words.
                    Reason::ProbeFailed { gpu: warmed_on }
                } else {
                    why
                };
                let warm_up = warm_started.elapsed();
                crate::platform::release_freed_memory();
                emit_notices(&self.emit, &mut transcriber);
                let device = transcriber.device();
                let transcriber = self.transcriber.insert(transcriber);
                self.load_error = None;
                (self.emit)(WorkerEvent::Ready {
                    model: request.name,
                    device,
                    why,
                    load,
                    warm_up,
                });
                let padding = padding_on(device, padding_from(&request.settings.encoder));
                if padding == PaddingEncoding::Primed {
                    prime(transcriber);
                }
            }
            Err(message) => {
                self.load_error = Some(message.clone());
                (self.emit)(WorkerEvent::LoadFailed {
                    model: request.name,
                    message,
                });
            }
        }
    }

    fn transcribe(&mut self, job: Job) {
        let (samples, recording) = match job.audio {
            JobAudio::Recorded(samples) if job.journal.is_some() => (samples, job.journal),
            JobAudio::Recorded(samples) => {
                // Unfinished until its dictation ends, like any recording.
                let saved = match self.recordings.save_unfinished(&samples, SAMPLE_RATE) {
                    Ok(path) => Some(path),
                    Err(e) => {
                        tracing::warn!("recording not saved: {e}");
                        None
                    }
                };
                (samples, saved)
            }
            JobAudio::Saved(path) => match read_wav_16k(&path) {
                Ok(samples) => (SharedAudio::from(samples), Some(path)),
                Err(e) => {
                    return self.done(job.id, Outcome::Failed(e.to_string()), Some(path), None)
                }
            },
        };
        if self.crashed.remove(&job.id) {
            // Its head's transcription panicked: the dictation ends here, kept for Retry, and
            // the panic stays counted against the recording.
            if let Some(path) = &recording {
                self.attempted.remove(path);
            }
            let outcome = Outcome::Crashed("the transcription of its first part panicked".into());
            return self.done(job.id, outcome, recording, None);
        }
        self.in_progress = Some((job.id, recording.clone()));
        let stream = self
            .stream
            .take()
            .filter(|stream| stream.id == job.id)
            .map(|mut stream| {
                stream.hear(&samples);
                stream
            });
        let used_stream = stream.as_ref().is_some_and(|s| {
            s.has_committed()
                || s.tentative_stands_for(&samples).is_some()
                || s.settled_by_last_pass(&samples, &job.wording).is_some()
        });
        // Transcribed whole: the last pass over its start is the draft.
        let mut whole_params = job.params.clone();
        if let Some(stream) = &stream {
            (whole_params.draft, whole_params.draft_elsewhere) = stream.draft_from(0);
        }
        let recognised = match stream.filter(|_| used_stream) {
            Some(stream) => self.finish_stream(
                stream,
                &samples,
                (&job.params, &job.wording),
                recording.as_deref(),
            ),
            None if samples.speech().is_some_and(|s| s.speech_frames() == 0) => {
                // Noise, music, a cough: the voice-activity detector heard no speech in any of
                // it, so Whisper is not asked (it writes "Thank you." on such audio). Retry
                // transcribes the kept recording without the detector.
                tracing::info!(id = job.id, "no speech heard: nothing to transcribe");
                Some(Recognised {
                    outcome: Outcome::Empty(Empty::NoSpeech),
                    engine: Duration::ZERO,
                    level: Some(Level::measure(
                        &samples,
                        SAMPLE_RATE,
                        &GateConfig::default(),
                    )),
                    heard: Heard::default(),
                })
            }
            None => self.recognise(
                &samples,
                (&whole_params, &job.wording),
                Part::Whole,
                recording.as_deref(),
            ),
        };
        self.in_progress = None;
        let Some(Recognised {
            outcome,
            engine,
            level,
            heard,
        }) = recognised
        else {
            // Stopped for quit: not an attempt that failed; the next start recovers it.
            if let Some(path) = &recording {
                if self.attempted.remove(path) {
                    RecordingStore::uncount_attempt(path);
                }
            }
            tracing::info!(id = job.id, "quitting: transcription stopped");
            return;
        };
        if let Some(path) = &recording {
            if self.attempted.remove(path) {
                self.awaiting_delivery.retain(|journal| journal.exists());
                self.awaiting_delivery.insert(path.clone());
            }
        }
        if let Some(language) = self.sure_language.take() {
            self.recent_language.heard(&language);
        }
        (self.emit)(WorkerEvent::Done {
            id: job.id,
            outcome,
            recording,
            at: Instant::now(),
            engine,
            level,
            early: used_stream,
            heard,
        });
    }

    /// Gate, Whisper and the wording (verdict first) on 16 kHz mono `samples` (the recording's
    /// `part`), kept at `recording`; `None` when the app quit meanwhile ([`Worker::stop_now`]).
    fn recognise(
        &mut self,
        samples: &[f32],
        (params, wording): (&TranscribeParams, &Wording),
        part: Part,
        recording: Option<&Path>,
    ) -> Option<Recognised> {
        let gate_config = GateConfig::default();
        let level = Level::measure(samples, SAMPLE_RATE, &gate_config);
        if let Err(empty) = gate(&level, &gate_config) {
            return Some(Recognised {
                outcome: Outcome::Empty(empty),
                engine: Duration::ZERO,
                level: Some(level),
                heard: Heard::default(),
            });
        }
        let stop = Arc::clone(&self.stop);
        let keep_going = &mut || !stop.load(Ordering::Relaxed);
        let (result, engine) = self.whisper(samples, params, part, recording, keep_going)?;
        let (outcome, heard) = match result {
            Ok(transcript) => {
                let heard = Heard::of(&transcript);
                // A sentence Whisper wrote again over noise after it ("X. X'."), dropped.
                let (transcript, repeated) = commit::repeat::without_repeated_sentence(&transcript);
                if repeated > 0 {
                    tracing::info!(words = repeated, "a sentence said again was dropped");
                }
                match wording.words(&transcript, &level) {
                    Ok(text) => (Outcome::Text(text), heard),
                    Err(empty) => (Outcome::Empty(empty), heard),
                }
            }
            Err(message) => (Outcome::Failed(message), Heard::default()),
        };
        Some(Recognised {
            outcome,
            engine,
            level: Some(level),
            heard,
        })
    }

    /// Whisper on `samples` with the dictation's parameters: the transcript, or the error's
    /// message, and the time it took; `None` when `keep_going` stopped it.
    fn whisper(
        &mut self,
        samples: &[f32],
        params: &TranscribeParams,
        part: Part,
        recording: Option<&Path>,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Option<(Result<Transcript, String>, Duration)> {
        let Some(transcriber) = self.transcriber.as_mut() else {
            let reason = self
                .load_error
                .clone()
                .unwrap_or_else(|| "the model is not loaded".into());
            return Some((Err(reason), Duration::ZERO));
        };
        if let Some(journal) = recording.filter(|p| RecordingStore::is_journal(p)) {
            if self.attempted.insert(journal.to_path_buf()) {
                let attempts = RecordingStore::count_attempt(journal);
                tracing::debug!(attempts, journal = %journal.display(), "transcription attempt");
            }
        }
        let seconds = samples.len() as f32 / SAMPLE_RATE as f32;
        tracing::info!(
            part = part.name(),
            seconds,
            device = transcriber.device().name(),
            "transcribing"
        );
        let mut params = params.clone().for_dictation(seconds);
        params.language_when_unsure = self.recent_language.get();
        if params.beam_size.is_none() {
            params.beam_size = default_beam_size(transcriber.device());
        }
        params.padding = padding_on(transcriber.device(), params.padding);
        if transcriber.device().is_gpu() {
            // A draft is checked in decoder calls of lengths a step does not have; the GPUs'
            // fixed-shape decoder is planned per shape, and what that costs there is not
            // measured: drafts are the CPU's, where they were.
            params.draft.clear();
        }
        let started = Instant::now();
        let result = transcriber.transcribe_while(samples, &params, keep_going);
        let engine = started.elapsed();
        emit_notices(&self.emit, transcriber);
        if let Ok(transcript) = &result {
            let timings = &transcript.timings;
            let ms = |d: Duration| d.as_millis() as u64;
            tracing::debug!(
                part = part.name(),
                engine_ms = ms(engine),
                encode_ms = ms(timings.encode),
                decode_ms = ms(timings.decode),
                words_ms = ms(timings.words),
                tokens = transcript
                    .segments
                    .iter()
                    .map(|segment| segment.tokens.len())
                    .sum::<usize>(),
                drafted = timings.drafted,
                draft = params.draft.len(),
                attempts = timings.attempts,
                prompt_chars = params
                    .initial_prompt
                    .as_deref()
                    .map_or(0, |p| p.chars().count()),
                "transcribed"
            );
            if transcript.language_probability.is_some() && tells_the_language(transcript) {
                self.sure_language = Some(transcript.language.clone());
            }
        }
        match result {
            Ok(transcript) => Some((Ok(transcript), engine)),
            Err(TranscriberError::Transcribe(TranscribeError::Stopped)) => None,
            Err(e) => Some((Err(e.to_string()), engine)),
        }
    }

    fn done(&self, id: u64, outcome: Outcome, recording: Option<PathBuf>, level: Option<Level>) {
        (self.emit)(WorkerEvent::Done {
            id,
            outcome,
            recording,
            at: Instant::now(),
            engine: Duration::ZERO,
            level,
            early: false,
            heard: Heard::default(),
        });
    }
}

/// Which audio of a recording is transcribed (for the log).
#[derive(Debug, Clone, Copy)]
enum Part {
    /// The audio so far from the last commit, while the key is held or just after key-up.
    Head,
    /// The audio after the last commit, at the end of a streamed dictation.
    Tail,
    /// The whole recording.
    Whole,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Head => "head",
            Part::Tail => "tail",
            Part::Whole => "whole",
        }
    }
}

/// What the gate, Whisper and the verdict made of some audio.
struct Recognised {
    outcome: Outcome,
    engine: Duration,
    level: Option<Level>,
    heard: Heard,
}

/// Sends the device manager's messages since the last call, if any.
fn emit_notices(emit: &dyn Fn(WorkerEvent), transcriber: &mut Transcriber) {
    let notices = transcriber.take_notices();
    if !notices.is_empty() {
        emit(WorkerEvent::Notices(notices));
    }
}

/// Why the model is on the device it ended up on: the placement's reason, unless the load fell
/// back from that GPU to the CPU; then that GPU's failure at load (the status line said "the
/// fastest device here" of the CPU after an M1 failed to load the model).
fn reason_after_load(planned: Placement, transcriber: &Transcriber) -> Reason {
    let gpu = planned.kind;
    if transcriber.device() == gpu || !gpu.is_gpu() {
        return planned.reason;
    }
    let success_rate = transcriber
        .manager()
        .history()
        .success_rate(gpu, Operation::Load)
        .unwrap_or(0.0);
    Reason::Unhealthy {
        gpu,
        op: Operation::Load,
        success_rate,
    }
}

/// The optimisation level the app runs at, at least: level 1 is the CPU's fast layout for its
/// class (`whisper::model`): on CPUs with native bf16 (AVX-512 BF16, AMX, Arm BF16) the encoder
/// in bf16, the token table and decoder MLPs int8 rows, the rest of the decoder float32; on the
/// others (an M1, AVX2) float32 with the decoder's step weights int8 rows and the encoder's
/// weights stored as float16 where exact. Measured on the project's clips: the English words of
/// float32, about a third of faster-whisper's time, ~130 MB less resident memory with `base`
/// (BENCHMARKS.md). The command line keeps level 0 (the reference's float32 numbers) unless
/// asked; `cpu_precision: "f32"` in the settings keeps the app on exact float32.
pub const APP_MIN_OPTIMIZATION: u8 = 1;

fn open_manager(request: &ModelRequest) -> Result<DeviceManager, String> {
    let overrides = Overrides {
        optimize: Some(request.settings.optimize.max(APP_MIN_OPTIMIZATION)),
        ..Overrides::default()
    };
    let config = manager_config(
        request.state_dir.clone(),
        &request.settings,
        &overrides,
        std::env::current_exe().ok(),
    )
    .map_err(|e| e.to_string())?;
    Ok(DeviceManager::open(config))
}

/// Makes the first dictation as fast as the next ones by paying now for lazy initialisation:
/// kernel selection and compilation, cuDNN plans, MPS graph builds.
///
/// On a GPU the model runs once on a real dictation (the built-in sample), which also shows the
/// device manager that the device really works: the encoder's one full window, and the decoder
/// until [`TOKEN_BUDGET_MARGIN`](crate::whisper::params::TOKEN_BUDGET_MARGIN) tokens (every later
/// step has the shapes of the first ones), whose words must be the sample's
/// ([`Transcriber::warm_up_on_sample`]): a GPU that hears something else computes wrong numbers,
/// and the model moves to the CPU. On the CPU, where nothing is judged, one encoder block
/// and a few decoder steps set up every kernel ([`Whisper::warm_up`](crate::whisper::model::Whisper::warm_up)):
/// the other blocks have the same shapes. BENCHMARKS.md has what each costs. Returns whether
/// the GPU's words were wrong (the model is on the CPU now).
fn warm_up(transcriber: &mut Transcriber) -> bool {
    let mut wrong = false;
    if transcriber.device().is_gpu() {
        match transcriber.warm_up_on_sample() {
            Ok(Some(words)) => {
                wrong = words.is_wrong();
                tracing::info!(?words, "GPU warm-up words");
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("warm-up failed: {e}"),
        }
    }
    if transcriber.device() == DeviceKind::Cpu {
        let _no_grad = tch::no_grad_guard();
        if let Err(e) = transcriber
            .engine()
            .model()
            .warm_up(WARM_UP_PROMPT, WARM_UP_STEPS)
        {
            tracing::warn!("warm-up failed: {e}");
        }
    }
    wrong
}

/// Primes the model for [`PaddingEncoding::Primed`] right after "ready": one full encoder pass
/// (~0.4 s for `base` on a 2-core CPU), which a dictation started meanwhile waits for (it is
/// still being spoken); otherwise the first dictation would pay for it.
fn prime(transcriber: &Transcriber) {
    let _no_grad = tch::no_grad_guard();
    let started = Instant::now();
    match primer::prime(transcriber.engine().model()) {
        Ok(()) => tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            "encoder padding primed"
        ),
        Err(e) => tracing::warn!("encoding full windows until a dictation primes the model: {e}"),
    }
}

/// The CPU warm-up's first decoder call: start of transcript, language, task, no timestamps.
const WARM_UP_PROMPT: usize = 4;
/// Single-token steps after it.
const WARM_UP_STEPS: usize = 3;

/// The transcription parameters from the settings' language, prompt and encoder.
pub fn params_from(settings: &Settings) -> TranscribeParams {
    let (language, detect_among) = parse_language(&settings.language);
    TranscribeParams {
        language,
        detect_among,
        initial_prompt: super::wording::prompt(&settings.prompt, &settings.vocabulary),
        padding: padding_from(&settings.encoder),
        ..TranscribeParams::default()
    }
}

/// `exact` → whole windows; anything else (`fast`, the default) → [`PaddingEncoding::Primed`].
pub fn padding_from(encoder: &str) -> PaddingEncoding {
    if encoder.trim().eq_ignore_ascii_case("exact") {
        PaddingEncoding::Full
    } else {
        PaddingEncoding::Primed
    }
}

/// `auto` → detect; `auto:pl,en` → detect among those; a code → that language. Unknown codes
/// are dropped (detection then runs over the rest, or over all languages).
pub fn parse_language(text: &str) -> (Option<String>, Vec<String>) {
    use crate::whisper::tokenizer::lookup_language;
    let text = text.trim();
    if let Some(list) = text.strip_prefix("auto:") {
        let among = list
            .split(',')
            .filter_map(|l| lookup_language(l.trim()))
            .map(str::to_string)
            .collect();
        return (None, among);
    }
    if text.is_empty() || text.eq_ignore_ascii_case("auto") {
        return (None, Vec::new());
    }
    (lookup_language(text).map(str::to_string), Vec::new())
}

/// The folder of a model name or path (see `paths::resolve_model`).
pub fn model_request(settings: &Settings, state_dir: &Path) -> Result<ModelRequest, String> {
    let dir = crate::paths::resolve_model(&settings.model).map_err(|e| e.to_string())?;
    Ok(ModelRequest {
        dir,
        name: settings.model.clone(),
        settings: settings.clone(),
        state_dir: state_dir.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_settings_become_parameters() {
        assert_eq!(parse_language("auto"), (None, vec![]));
        assert_eq!(parse_language(""), (None, vec![]));
        assert_eq!(parse_language("pl"), (Some("pl".into()), vec![]));
        assert_eq!(parse_language("Polish"), (Some("pl".into()), vec![]));
        assert_eq!(
            parse_language("auto:pl, en"),
            (None, vec!["pl".to_string(), "en".to_string()])
        );
        assert_eq!(parse_language("auto:pl,xx"), (None, vec!["pl".to_string()]));
        assert_eq!(parse_language("klingon"), (None, vec![]));
    }

    #[test]
    fn the_prompt_setting_primes_the_first_window() {
        let settings = Settings {
            prompt: "Kubernetes, Wrocław".into(),
            language: "auto:pl,en".into(),
            ..Settings::default()
        };
        let params = params_from(&settings);
        assert_eq!(
            params.initial_prompt.as_deref(),
            Some("Kubernetes, Wrocław")
        );
        assert_eq!(params.detect_among, vec!["pl", "en"]);
        assert_eq!(params.language, None);
    }

    #[test]
    fn the_encoder_setting_chooses_fast_unless_exact() {
        assert_eq!(
            params_from(&Settings::default()).padding,
            PaddingEncoding::Primed
        );
        let exact = Settings {
            encoder: " Exact ".into(),
            ..Settings::default()
        };
        assert_eq!(params_from(&exact).padding, PaddingEncoding::Full);
        assert_eq!(padding_from("fast"), PaddingEncoding::Primed);
        // A value the app does not know keeps the default.
        assert_eq!(padding_from("turbo"), PaddingEncoding::Primed);
        // Fast on the CPU only.
        assert_eq!(
            padding_on(DeviceKind::Cpu, PaddingEncoding::Primed),
            PaddingEncoding::Primed
        );
        for gpu in [DeviceKind::Mps, DeviceKind::Cuda] {
            assert_eq!(
                padding_on(gpu, PaddingEncoding::Primed),
                PaddingEncoding::Full
            );
        }
    }
}
