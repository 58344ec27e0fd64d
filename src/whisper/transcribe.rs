//! Audio of any length → segments, as OpenAI's `whisper/transcribe.py`: log-mel once, then
//! window by window (30 s), seeking by the last timestamp the model emitted; per window a
//! temperature fallback when the text is repetitive or unlikely; silent windows skipped through
//! the no-speech probability; the previous window's text as the next window's prompt.

use super::decode::{decode_window, detect_language, WindowOptions, WindowResult};
use super::language;
use super::loader::GenerationConfig;
use super::mel::{log_mel_spectrogram, LogMel, HOP_LENGTH, N_FRAMES, SAMPLE_RATE};
use super::model::{AudioFeatures, AudioKeys, ModelError, Whisper};
use super::params::{
    FallbackChoice, PaddingEncoding, SuppressTokens, Task, TranscribeParams, TOKEN_BUDGET_MARGIN,
};
use super::primer::{self, PrimeError};
use super::rules::TIME_PRECISION;
use super::tokenizer::{self, Tokenizer};
use super::words::{self, WindowAlignment};
use serde::Serialize;
use std::time::{Duration, Instant};
use tch::Tensor;

/// Mel frames per encoder position (the second convolution has stride 2).
const INPUT_STRIDE: usize = 2;

#[derive(Debug, thiserror::Error)]
pub enum TranscribeError {
    #[error("unknown language '{0}' (use a code such as pl or en, or an English name)")]
    UnknownLanguage(String),
    #[error(
        "the model is English-only; language '{0}' is not available (choose a multilingual model)"
    )]
    EnglishOnlyModel(String),
    #[error("the model is English-only and cannot translate (choose a multilingual model)")]
    TranslateNeedsMultilingual,
    #[error("the model has no token for language '{0}'")]
    LanguageNotInModel(String),
    #[error("the temperature list is empty")]
    NoTemperatures,
    #[error("{phase}: {source}")]
    Model {
        phase: Phase,
        #[source]
        source: ModelError,
    },
    #[error("{phase} stopped by the device manager: {message}")]
    Interrupted { phase: Phase, message: String },
    /// The caller asked to stop ([`PhaseObserver::keep_going`]): the result is no longer wanted.
    #[error("stopped: the transcription is no longer wanted")]
    Stopped,
}

impl TranscribeError {
    /// The phase a device failure happened in (`None` for invalid parameters).
    pub fn phase(&self) -> Option<Phase> {
        match self {
            TranscribeError::Model { phase, .. } | TranscribeError::Interrupted { phase, .. } => {
                Some(*phase)
            }
            _ => None,
        }
    }
}

/// The two device-heavy phases of a transcription.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Encode,
    Decode,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Encode => "encoder",
            Phase::Decode => "decoder",
        })
    }
}

/// Told when each phase of each window starts and ends, so the device manager can mark risky
/// device work in flight (a crash then counts as a failure at the next start) and record
/// outcomes. An error from `start` stops the call with [`TranscribeError::Interrupted`].
pub trait PhaseObserver {
    fn start(&mut self, phase: Phase) -> Result<(), String>;
    fn end(&mut self, phase: Phase);
    /// Asked before every phase, between the encoder's blocks and before each decoder step
    /// (~10 ms each for `base` on a 2-core CPU): `false` ends the
    /// transcription with [`TranscribeError::Stopped`] (an early transcription that newer audio
    /// made useless). Not a device failure.
    fn keep_going(&mut self) -> bool {
        true
    }
    /// `phase` was started and then left unfinished because [`Self::keep_going`] said stop.
    fn abandoned(&mut self, _phase: Phase) {}
}

/// Observes nothing.
pub struct NoObserver;

impl PhaseObserver for NoObserver {
    fn start(&mut self, _: Phase) -> Result<(), String> {
        Ok(())
    }
    fn end(&mut self, _: Phase) {}
}

/// Runs `f` as `phase`, telling the observer and tagging errors with the phase. `f` gets the
/// observer's [`PhaseObserver::keep_going`] to ask between its steps; when it stops with
/// [`ModelError::Stopped`], the phase is abandoned and the transcription is
/// [`TranscribeError::Stopped`].
fn in_phase<T>(
    observer: &mut dyn PhaseObserver,
    phase: Phase,
    f: impl FnOnce(&mut dyn FnMut() -> bool) -> Result<T, ModelError>,
) -> Result<T, TranscribeError> {
    if !observer.keep_going() {
        return Err(TranscribeError::Stopped);
    }
    observer
        .start(phase)
        .map_err(|message| TranscribeError::Interrupted { phase, message })?;
    match f(&mut || observer.keep_going()) {
        Ok(result) => {
            observer.end(phase);
            Ok(result)
        }
        Err(ModelError::Stopped) => {
            observer.abandoned(phase);
            Err(TranscribeError::Stopped)
        }
        Err(source) => Err(TranscribeError::Model { phase, source }),
    }
}

pub use super::segment::Segment;

/// Where the time went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    pub mel: Duration,
    pub encode: Duration,
    pub decode: Duration,
    /// The word-time passes ([`TranscribeParams::word_times`]; also counted in `decode`).
    pub words: Duration,
    /// 30 s windows decoded, and decoding attempts including temperature fallbacks.
    pub windows: usize,
    pub attempts: usize,
    /// Tokens taken from [`TranscribeParams::draft`] without a decoder step of their own.
    pub drafted: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transcript {
    pub text: String,
    pub segments: Vec<Segment>,
    /// Language code used (given or detected).
    pub language: String,
    /// Detection's probability of the language used (`None` when it was given): the first's,
    /// or that of [`TranscribeParams::language_when_unsure`] when that was taken.
    pub language_probability: Option<f32>,
    /// Audio length in seconds.
    pub duration: f32,
    pub timings: Timings,
    /// Windows that gave no text, with what Whisper made of them: the app's verdict weighs a
    /// short reply the thresholds held back ([`Withheld`]) and says "nothing recognised" when
    /// speech gave no text.
    pub withheld: Vec<Withheld>,
}

/// Why a window gave no text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WithheldReason {
    /// OpenAI's no-speech rule: no-speech probability above the threshold and a log-probability
    /// below the threshold.
    Silence,
    /// [`crate::whisper::FallbackChoice::BestIfReliable`]: even the best attempt was below the
    /// log-probability threshold or too repetitive.
    Unreliable,
    /// Whisper decoded no words (only timestamps, or nothing).
    NoWords,
}

/// A window's text that was not given, and Whisper's figures for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Withheld {
    pub reason: WithheldReason,
    /// The window's span of the audio, in seconds.
    pub start: f32,
    pub end: f32,
    /// What Whisper decoded (empty for [`WithheldReason::NoWords`]).
    pub text: String,
    pub avg_logprob: f32,
    pub no_speech_prob: f32,
    pub temperature: f32,
}

/// Transcribes 16 kHz mono samples.
pub fn transcribe(
    model: &Whisper,
    tokenizer: &Tokenizer,
    generation: &GenerationConfig,
    samples: &[f32],
    params: &TranscribeParams,
    observer: &mut dyn PhaseObserver,
) -> Result<Transcript, TranscribeError> {
    if params.temperatures.is_empty() {
        return Err(TranscribeError::NoTemperatures);
    }
    let plan = plan_language(tokenizer, params)?;
    let _no_grad = tch::no_grad_guard();
    let mut timings = Timings::default();
    let started = Instant::now();
    let mel = log_mel_spectrogram(samples, model.dims().n_mels);
    timings.mel = started.elapsed();

    let content_frames = mel.n_frames;
    let first_window = encode_window(model, &mel, 0, params.padding, &mut timings, observer)?;
    // The first window's keys/values when language detection computed them: decoding reuses them.
    let mut first_keys: Option<AudioKeys> = None;
    let (language, language_probability) = match plan {
        LanguagePlan::EnglishOnly => (None, None),
        LanguagePlan::Fixed(code) => (Some(code), None),
        LanguagePlan::Detect(allowed) => {
            let detected = match &first_window {
                Some(features) => {
                    let (detected, keys) = in_phase(observer, Phase::Decode, |_| {
                        let keys = model.audio_keys_of(features)?;
                        Ok((detect_language(model, tokenizer, &keys, &allowed)?, keys))
                    })?;
                    first_keys = Some(keys);
                    detected
                }
                None => Vec::new(),
            };
            language::choose(&detected, tokenizer, params, content_frames)
        }
    };
    let language_token = match &language {
        Some(code) => Some(
            tokenizer
                .specials()
                .language(code)
                .ok_or_else(|| TranscribeError::LanguageNotInModel(code.clone()))?,
        ),
        None => None,
    };

    let base = base_window_options(tokenizer, generation, params, language_token);
    let initial_prompt = match &params.initial_prompt {
        Some(p) if !p.trim().is_empty() => tokenizer.encode(&format!(" {}", p.trim())),
        _ => Vec::new(),
    };
    let mut all_tokens: Vec<u32> = initial_prompt.clone();
    let mut prompt_reset_since = 0;
    let mut segments = Vec::new();
    let mut withheld = Vec::new();
    let mut seek = 0;
    let mut cached_first = first_window;
    // Word times: the alignment pass's start-of-transcript tokens, and where speech last ended.
    let sot_sequence = sot_sequence(tokenizer, params.task, language_token);
    let mut last_speech = 0.0f32;
    while seek < content_frames {
        let segment_size = N_FRAMES.min(content_frames - seek);
        let features = match (seek, cached_first.take()) {
            (0, Some(f)) => f,
            _ => encode_window(model, &mel, seek, params.padding, &mut timings, observer)?
                .expect("a window inside the content exists"),
        };
        let mut opts = base.clone();
        opts.prompt = all_tokens[prompt_reset_since..].to_vec();
        if seek > 0 {
            opts.prefix.clear();
        } else {
            opts.draft = params.draft.clone();
            opts.draft_elsewhere = params.draft_elsewhere;
        }
        if let Some(rate) = params.max_tokens_per_second {
            let seconds = (segment_size * HOP_LENGTH) as f32 / SAMPLE_RATE as f32;
            let budget = (seconds * rate).ceil() as usize + TOKEN_BUDGET_MARGIN;
            opts.sample_len = opts.sample_len.min(budget);
        }
        let decode_started = Instant::now();
        let known_keys = if seek == 0 { first_keys.take() } else { None };
        let (result, word_keys) = in_phase(observer, Phase::Decode, |keep_going| {
            let keys = match known_keys {
                Some(keys) => keys,
                None => model.audio_keys_of(&features)?,
            };
            let kept = decode_with_fallback(
                model,
                tokenizer,
                &keys,
                &opts,
                params,
                (started, &mut timings),
                keep_going,
            )?;
            // Word times decode once more against the same keys/values.
            Ok((kept, params.word_times.then_some(keys)))
        })?;
        timings.decode += decode_started.elapsed();
        timings.windows += 1;
        timings.drafted += result.window.drafted;
        let window_span = |window: &WindowResult, reason| {
            let start = seek as f32 * HOP_LENGTH as f32 / SAMPLE_RATE as f32;
            Withheld {
                reason,
                start,
                end: start + (segment_size * HOP_LENGTH) as f32 / SAMPLE_RATE as f32,
                text: window.text.clone(),
                avg_logprob: window.avg_logprob,
                no_speech_prob: window.no_speech_prob,
                temperature: window.temperature,
            }
        };
        if result.unreliable {
            // Even the best attempt failed the thresholds: no text from this window.
            withheld.push(window_span(&result.window, WithheldReason::Unreliable));
            seek += segment_size;
            continue;
        }
        let result = result.window;

        if is_silence(&result, params) {
            withheld.push(window_span(&result, WithheldReason::Silence));
            seek += segment_size;
            continue;
        }
        let (mut window_segments, next_seek) =
            split_segments(tokenizer, &result, seek, segment_size);
        if let Some(keys) = word_keys {
            let words_started = Instant::now();
            let window = WindowAlignment {
                heads: &generation.alignment_heads,
                sot_sequence: &sot_sequence,
                language: language.as_deref().unwrap_or("en"),
                num_frames: segment_size,
                time_offset: seek as f64 * HOP_LENGTH as f64 / SAMPLE_RATE as f64,
                probabilities: params.word_probabilities,
            };
            last_speech = in_phase(observer, Phase::Decode, |keep_going| {
                if !keep_going() {
                    return Err(ModelError::Stopped);
                }
                words::add_word_times(
                    model,
                    tokenizer,
                    &keys,
                    &window,
                    &mut window_segments,
                    last_speech,
                )
            })?;
            timings.words += words_started.elapsed();
            timings.decode += words_started.elapsed();
        }
        for segment in &mut window_segments {
            if segment.start == segment.end || segment.text.trim().is_empty() {
                segment.text.clear();
                segment.tokens.clear();
                segment.words.clear();
            }
        }
        all_tokens.extend(
            window_segments
                .iter()
                .flat_map(|s| s.tokens.iter().copied()),
        );
        let before = segments.len();
        segments.extend(window_segments.into_iter().filter(|s| !s.tokens.is_empty()));
        if segments.len() == before {
            let mut nothing = window_span(&result, WithheldReason::NoWords);
            nothing.text.clear();
            withheld.push(nothing);
        }
        // A window always moves forward, even if its last timestamp was 0.00.
        seek = if next_seek > seek {
            next_seek
        } else {
            seek + segment_size
        };
        if !params.condition_on_previous_text
            || result.temperature > params.prompt_reset_on_temperature
        {
            prompt_reset_since = all_tokens.len();
        }
    }
    let text = tokenizer.decode(&all_tokens[initial_prompt.len()..]);
    Ok(Transcript {
        text,
        segments,
        language: language.unwrap_or_else(|| "en".to_string()),
        language_probability,
        duration: samples.len() as f32 / SAMPLE_RATE as f32,
        timings,
        withheld,
    })
}

/// `sot [language task]`: the start of every decoder prompt, without the previous text.
fn sot_sequence(tokenizer: &Tokenizer, task: Task, language_token: Option<u32>) -> Vec<u32> {
    let specials = tokenizer.specials();
    let mut tokens = vec![specials.sot];
    if let Some(language) = language_token {
        tokens.push(language);
        tokens.extend(match task {
            Task::Transcribe => specials.transcribe,
            Task::Translate => specials.translate,
        });
    }
    tokens
}

/// Encodes the window starting at mel frame `seek` (zero-padded to 30 s); `None` past the end.
/// With [`PaddingEncoding::Primed`] and audio that fits in one window, only the audio's part of
/// the window is computed (the model is primed first if it is not yet).
fn encode_window(
    model: &Whisper,
    mel: &LogMel,
    seek: usize,
    padding: PaddingEncoding,
    timings: &mut Timings,
    observer: &mut dyn PhaseObserver,
) -> Result<Option<AudioFeatures>, TranscribeError> {
    let content_frames = mel.n_frames;
    if seek >= content_frames && seek > 0 {
        return Ok(None);
    }
    let started = Instant::now();
    let segment_size = N_FRAMES.min(content_frames - seek);
    let window = mel.window(seek, segment_size);
    let input = Tensor::from_slice(&window).view([1, mel.n_mels as i64, N_FRAMES as i64]);
    let features = in_phase(observer, Phase::Encode, |keep_going| {
        let primed = padding == PaddingEncoding::Primed
            && content_frames <= N_FRAMES
            && primed_or_warn(model)?;
        if primed {
            model.encode_audio_while(&input, segment_size, keep_going)
        } else {
            model
                .encode_while(&input, keep_going)
                .map(AudioFeatures::whole)
        }
    })?;
    // GPU kernels run asynchronously: wait for them, or the time measures only the launch.
    if let tch::Device::Cuda(index) = model.device() {
        tch::Cuda::synchronize(index as i64);
    }
    timings.encode += started.elapsed();
    Ok(Some(features))
}

/// Primes the model for [`PaddingEncoding::Primed`]: `Ok(false)` (full windows, with a
/// warning) if the built-in primer cannot be read, an error if the device failed.
fn primed_or_warn(model: &Whisper) -> Result<bool, ModelError> {
    match primer::prime(model) {
        Ok(()) => Ok(true),
        Err(PrimeError::Model(e)) => Err(e),
        Err(PrimeError::Audio(e)) => {
            tracing::warn!("encoding full windows: {e}");
            Ok(false)
        }
    }
}

/// How the language will be chosen, validated before any audio is processed.
enum LanguagePlan {
    /// English-only model: no language token.
    EnglishOnly,
    Fixed(String),
    /// Detect from the first window, among these language tokens (all when empty).
    Detect(Vec<u32>),
}

fn plan_language(
    tokenizer: &Tokenizer,
    params: &TranscribeParams,
) -> Result<LanguagePlan, TranscribeError> {
    let normalise = |name: &str| {
        tokenizer::lookup_language(name)
            .map(str::to_string)
            .ok_or_else(|| TranscribeError::UnknownLanguage(name.to_string()))
    };
    let asked = params.language.as_deref().map(normalise).transpose()?;
    let among = params
        .detect_among
        .iter()
        .map(|name| normalise(name))
        .collect::<Result<Vec<_>, _>>()?;
    if !tokenizer.is_multilingual() {
        return match (asked.as_deref(), params.task) {
            (Some(code), _) if code != "en" => Err(TranscribeError::EnglishOnlyModel(code.into())),
            (_, Task::Translate) => Err(TranscribeError::TranslateNeedsMultilingual),
            _ => Ok(LanguagePlan::EnglishOnly),
        };
    }
    if let Some(code) = asked {
        return Ok(LanguagePlan::Fixed(code));
    }
    let allowed = among
        .into_iter()
        .map(|code| {
            tokenizer
                .specials()
                .language(&code)
                .ok_or(TranscribeError::LanguageNotInModel(code))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LanguagePlan::Detect(allowed))
}

/// Window options shared by every window of a call.
fn base_window_options(
    tokenizer: &Tokenizer,
    generation: &GenerationConfig,
    params: &TranscribeParams,
    language_token: Option<u32>,
) -> WindowOptions {
    let specials = tokenizer.specials();
    let suppress_at_begin = if !params.suppress_blank {
        Vec::new()
    } else if generation.suppress_ids_begin.is_empty() {
        let mut ids = tokenizer.encode(" ");
        ids.push(specials.eot);
        ids
    } else {
        generation.suppress_ids_begin.clone()
    };
    WindowOptions {
        task: params.task,
        language_token,
        temperature: 0.0,
        sample_len: params.sample_len.unwrap_or(224),
        beam_size: params.beam_size,
        patience: params.patience.unwrap_or(1.0),
        best_of: params.best_of.unwrap_or(1),
        length_penalty: params.length_penalty,
        prompt: Vec::new(),
        draft: Vec::new(),
        draft_elsewhere: false,
        prefix: params
            .prefix
            .as_deref()
            .map(|p| tokenizer.encode(&format!(" {}", p.trim())))
            .unwrap_or_default(),
        suppress: suppressed_tokens(tokenizer, generation, &params.suppress_tokens),
        suppress_at_begin,
        without_timestamps: params.without_timestamps,
        max_initial_timestamp_index: params
            .max_initial_timestamp
            .map(|s| (s / TIME_PRECISION).round() as u32),
        seed: params.seed,
    }
}

/// OpenAI's `_get_suppress_tokens`: non-speech symbols (the model's list, else computed from
/// the tokenizer) plus the special tokens that must never be sampled.
pub fn suppressed_tokens(
    tokenizer: &Tokenizer,
    generation: &GenerationConfig,
    choice: &SuppressTokens,
) -> Vec<u32> {
    let model_default = || {
        if generation.suppress_ids.is_empty() {
            non_speech_tokens(tokenizer)
        } else {
            generation.suppress_ids.clone()
        }
    };
    let mut ids = match choice {
        SuppressTokens::ModelDefault => model_default(),
        SuppressTokens::Only(ids) => ids.clone(),
        SuppressTokens::DefaultAnd(extra) => {
            let mut ids = model_default();
            ids.extend(extra);
            ids
        }
    };
    let s = tokenizer.specials();
    ids.extend([s.sot, s.sot_prev]);
    ids.extend(
        [s.transcribe, s.translate, s.sot_lm, s.no_speech]
            .into_iter()
            .flatten(),
    );
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// A window's kept attempt, and whether it is to be dropped as unreliable
/// ([`FallbackChoice::BestIfReliable`]).
struct Kept {
    window: WindowResult,
    unreliable: bool,
}

/// Decodes (against the window's `keys`) at the first temperature, and again hotter while the result looks repetitive
/// (compression ratio) or unlikely (average log-probability), unless it looks like silence or
/// the time budget (counted from `started`) is spent. When every attempt fails, keeps the one
/// `params.fallback_choice` says.
fn decode_with_fallback(
    model: &Whisper,
    tokenizer: &Tokenizer,
    keys: &AudioKeys,
    base: &WindowOptions,
    params: &TranscribeParams,
    (started, timings): (Instant, &mut Timings),
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Kept, ModelError> {
    let mut attempts = Vec::new();
    for (attempt, &temperature) in params.temperatures.iter().enumerate() {
        let out_of_time = params
            .fallback_time_budget
            .is_some_and(|budget| started.elapsed() >= budget);
        if attempt > 0 && out_of_time {
            break;
        }
        let mut opts = base.clone();
        opts.temperature = temperature;
        opts.seed = base.seed.wrapping_add(attempt as u64);
        let result = decode_window(model, tokenizer, keys, &opts, keep_going)?;
        timings.attempts += 1;
        if !needs_fallback(&result, params) {
            return Ok(Kept {
                window: result,
                unreliable: false,
            });
        }
        attempts.push(result);
    }
    Ok(keep(attempts, params))
}

/// The attempt kept when all failed (see [`FallbackChoice`]); `attempts` is not empty.
fn keep(mut attempts: Vec<WindowResult>, params: &TranscribeParams) -> Kept {
    let best_index = |candidates: &[(usize, &WindowResult)]| {
        candidates
            .iter()
            .max_by(|a, b| a.1.avg_logprob.total_cmp(&b.1.avg_logprob))
            .map(|(i, _)| *i)
    };
    let index = match params.fallback_choice {
        FallbackChoice::Hottest => attempts.len() - 1,
        FallbackChoice::Best | FallbackChoice::BestIfReliable => {
            let all: Vec<(usize, &WindowResult)> = attempts.iter().enumerate().collect();
            let compressible: Vec<(usize, &WindowResult)> = all
                .iter()
                .copied()
                .filter(|(_, r)| {
                    params
                        .compression_ratio_threshold
                        .is_none_or(|t| r.compression_ratio <= t)
                })
                .collect();
            best_index(&compressible)
                .or_else(|| best_index(&all))
                .unwrap_or(attempts.len() - 1)
        }
    };
    let window = attempts.swap_remove(index);
    let below_logprob = params
        .logprob_threshold
        .is_some_and(|t| window.avg_logprob < t);
    let too_repetitive = params
        .compression_ratio_threshold
        .is_some_and(|t| window.compression_ratio > t);
    let unreliable = params.fallback_choice == FallbackChoice::BestIfReliable
        && (below_logprob || too_repetitive);
    Kept { window, unreliable }
}

fn needs_fallback(result: &WindowResult, params: &TranscribeParams) -> bool {
    let too_repetitive = params
        .compression_ratio_threshold
        .is_some_and(|t| result.compression_ratio > t);
    let too_unlikely = params
        .logprob_threshold
        .is_some_and(|t| result.avg_logprob < t);
    (too_repetitive || too_unlikely) && !is_silence(result, params)
}

/// OpenAI's no-speech rule: likely no speech AND the text is not confidently decoded.
fn is_silence(result: &WindowResult, params: &TranscribeParams) -> bool {
    let Some(threshold) = params.no_speech_threshold else {
        return false;
    };
    let confident = params
        .logprob_threshold
        .is_some_and(|t| result.avg_logprob > t);
    result.no_speech_prob > threshold && !confident
}

/// Splits a window's tokens into segments at consecutive timestamp pairs and says where the
/// next window starts (OpenAI's seek logic).
fn split_segments(
    tokenizer: &Tokenizer,
    result: &WindowResult,
    seek: usize,
    segment_size: usize,
) -> (Vec<Segment>, usize) {
    let ts_begin = tokenizer.specials().timestamp_begin;
    let tokens = &result.tokens;
    let time_offset = seek as f32 * HOP_LENGTH as f32 / SAMPLE_RATE as f32;
    let is_ts: Vec<bool> = tokens.iter().map(|&t| t >= ts_begin).collect();
    let n = tokens.len();
    let single_timestamp_ending = n >= 2 && !is_ts[n - 2] && is_ts[n - 1];
    let consecutive: Vec<usize> = (1..n).filter(|&i| is_ts[i - 1] && is_ts[i]).collect();
    let position = |t: u32| (t - ts_begin) as f32 * TIME_PRECISION;
    let make = |slice: &[u32], start: f32, end: f32| Segment {
        seek,
        start,
        end,
        text: tokenizer.decode(slice),
        tokens: slice.to_vec(),
        temperature: result.temperature,
        avg_logprob: result.avg_logprob,
        compression_ratio: result.compression_ratio,
        no_speech_prob: result.no_speech_prob,
        words: Vec::new(),
    };

    if !consecutive.is_empty() {
        let mut slices = consecutive;
        if single_timestamp_ending {
            slices.push(n);
        }
        let mut segments = Vec::new();
        let mut last_slice = 0;
        for &current in &slices {
            let slice = &tokens[last_slice..current];
            let start = time_offset + position(slice[0]);
            let end = time_offset + position(slice[slice.len() - 1]);
            segments.push(make(slice, start, end));
            last_slice = current;
        }
        let next_seek = if single_timestamp_ending {
            seek + segment_size
        } else {
            let last_pos = (tokens[last_slice - 1] - ts_begin) as usize;
            seek + last_pos * INPUT_STRIDE
        };
        return (segments, next_seek);
    }
    let mut duration = segment_size as f32 * HOP_LENGTH as f32 / SAMPLE_RATE as f32;
    if let Some(&last_ts) = tokens.iter().rev().find(|&&t| t >= ts_begin) {
        if last_ts != ts_begin {
            duration = position(last_ts);
        }
    }
    (
        vec![make(tokens, time_offset, time_offset + duration)],
        seek + segment_size,
    )
}

/// OpenAI's `Tokenizer.non_speech_tokens`: tokens of symbols that mark speaker tags or
/// annotations (`♪`, `[`, `(`, `<<` …) rather than speech; hyphens and apostrophes are only
/// banned at the start of a word.
pub fn non_speech_tokens(tokenizer: &Tokenizer) -> Vec<u32> {
    const SYMBOLS: &str = "\" # ( ) * + / : ; < = > @ [ \\ ] ^ _ ` { | } ~ 「 」 『 』 \
        << >> <<< >>> -- --- -( -[ (' (\" (( )) ((( ))) [[ ]] {{ }} ♪♪ ♪♪♪";
    const MISCELLANEOUS: [&str; 7] = ["♩", "♪", "♫", "♬", "♭", "♮", "♯"];
    let mut result: Vec<u32> = [" -", " '"]
        .iter()
        .filter_map(|s| tokenizer.encode(s).first().copied())
        .collect();
    for symbol in SYMBOLS.split_whitespace() {
        for tokens in [
            tokenizer.encode(symbol),
            tokenizer.encode(&format!(" {symbol}")),
        ] {
            if tokens.len() == 1 {
                result.push(tokens[0]);
            }
        }
    }
    for symbol in MISCELLANEOUS {
        for tokens in [
            tokenizer.encode(symbol),
            tokenizer.encode(&format!(" {symbol}")),
        ] {
            result.extend(tokens.first());
        }
    }
    result.sort_unstable();
    result.dedup();
    result
}

#[cfg(test)]
mod fallback_tests {
    use super::{keep, FallbackChoice, TranscribeParams, WindowResult};

    fn attempt(avg_logprob: f32, compression_ratio: f32, temperature: f32) -> WindowResult {
        WindowResult {
            tokens: vec![1, 2, 3],
            text: format!("t{temperature}"),
            avg_logprob,
            no_speech_prob: 0.1,
            temperature,
            compression_ratio,
            drafted: 0,
        }
    }

    fn attempts() -> Vec<WindowResult> {
        vec![
            attempt(-1.5, 1.2, 0.0),
            attempt(-1.1, 1.3, 0.2),
            attempt(-0.9, 3.0, 0.4), // most likely, but repetitive
            attempt(-2.5, 1.1, 0.6),
        ]
    }

    fn params(choice: FallbackChoice) -> TranscribeParams {
        TranscribeParams {
            fallback_choice: choice,
            ..TranscribeParams::default()
        }
    }

    #[test]
    fn openai_keeps_the_hottest_attempt() {
        let kept = keep(attempts(), &params(FallbackChoice::Hottest));
        assert_eq!(kept.window.temperature, 0.6);
        assert!(!kept.unreliable);
    }

    #[test]
    fn best_keeps_the_likeliest_attempt_under_the_compression_threshold() {
        let kept = keep(attempts(), &params(FallbackChoice::Best));
        assert_eq!(kept.window.temperature, 0.2);
        assert!(!kept.unreliable);
        // All repetitive: the likeliest overall.
        let repetitive = vec![attempt(-1.5, 3.0, 0.0), attempt(-1.2, 2.9, 0.2)];
        let kept = keep(repetitive, &params(FallbackChoice::Best));
        assert_eq!(kept.window.temperature, 0.2);
    }

    #[test]
    fn best_if_reliable_drops_a_best_attempt_below_the_thresholds() {
        let kept = keep(attempts(), &params(FallbackChoice::BestIfReliable));
        assert_eq!(kept.window.temperature, 0.2);
        assert!(kept.unreliable, "avg log-probability -1.1 is below -1.0");
        let fine = vec![attempt(-1.5, 1.2, 0.0), attempt(-0.8, 1.2, 0.2)];
        assert!(!keep(fine, &params(FallbackChoice::BestIfReliable)).unreliable);
    }
}
