//! The voice-activity detector: which 32 ms frames of a recording hold speech, heard through
//! noise, music and other voices where a loudness rule hears only "sound". The recorder runs
//! it as the audio arrives ([`SpeechStream`]), and what it found travels with the recording's
//! snapshots ([`SpeechFrames`], in `SharedAudio`), so the recorder and the worker tell a pause
//! from speech by the same frames (`audio::pause::Quiet`).
//!
//! The model is Silero VAD's (MIT), the field's usual choice, ported to plain Rust
//! ([`silero`]); its weights, `silero_vad_16k.safetensors` (1.2 MB), are installed by
//! `scripts/setup.sh` from the `silero-vad` PyPI package ([`model_path`]). Without them the app
//! judges pauses by loudness as before, and says so once in the log ([`installed`]).
//!
//! A frame is speech by Silero's own hysteresis: from a probability of [`SPEECH_FROM`] on, and
//! while it stays at or above [`SPEECH_UNTIL`].

pub mod silero;

use silero::{SileroState, SileroWeights, CHUNK};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Samples per frame (16 kHz): the detector's chunk, 32 ms.
pub const FRAME: usize = CHUNK;
/// A frame becomes speech at this probability (Silero's default threshold)...
pub const SPEECH_FROM: f32 = 0.5;
/// ...and speech goes on while the probability stays at or above this (Silero's default
/// `threshold − 0.15`): a syllable's weaker frames do not cut a word in two.
pub const SPEECH_UNTIL: f32 = 0.35;
/// The weights' file name, as the `silero-vad` package ships it.
pub const MODEL_FILE: &str = "silero_vad_16k.safetensors";
/// Overrides where the weights are read from (tests of the fallback, a copy elsewhere).
pub const MODEL_ENV: &str = "WHISPER_DICTATION_VAD_MODEL";

/// Why the detector's weights cannot be used; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum VadError {
    #[error("{}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", .path.display())]
    Weights {
        path: PathBuf,
        source: silero::WeightsError,
    },
    #[error("no folder for the voice-activity model: {0}")]
    NoFolder(#[from] crate::paths::PathError),
}

/// The loaded detector; clones share the weights.
#[derive(Debug, Clone)]
pub struct VoiceDetector {
    weights: Arc<SileroWeights>,
}

impl VoiceDetector {
    /// Reads the weights from `path` (a `silero_vad_16k.safetensors`).
    pub fn load(path: &Path) -> Result<VoiceDetector, VadError> {
        let bytes = std::fs::read(path).map_err(|source| VadError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let weights =
            SileroWeights::from_safetensors(&bytes).map_err(|source| VadError::Weights {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(VoiceDetector {
            weights: Arc::new(weights),
        })
    }

    /// A new stream of audio to label, from its first sample.
    pub fn stream(&self) -> SpeechStream {
        SpeechStream {
            weights: Arc::clone(&self.weights),
            state: SileroState::default(),
            pending: Vec::with_capacity(FRAME),
            frames: SpeechFrames::default(),
            speaking: false,
        }
    }

    /// The speech probability of each whole [`FRAME`] of `samples` (16 kHz), from a fresh
    /// state.
    pub fn probabilities(&self, samples: &[f32]) -> Vec<f32> {
        let mut state = SileroState::default();
        samples
            .chunks_exact(FRAME)
            .map(|chunk| {
                let chunk: &[f32; FRAME] = chunk.try_into().expect("chunks_exact gives FRAME");
                self.weights.speech_probability(&mut state, chunk)
            })
            .collect()
    }
}

/// Where the weights are: `$WHISPER_DICTATION_VAD_MODEL`, else the data folder's
/// `vad/silero_vad_16k.safetensors` (where `scripts/setup.sh` puts them).
pub fn model_path() -> Result<PathBuf, VadError> {
    match std::env::var_os(MODEL_ENV) {
        Some(path) if !path.is_empty() => Ok(PathBuf::from(path)),
        _ => Ok(crate::paths::data_dir()?.join("vad").join(MODEL_FILE)),
    }
}

/// The installed detector, loaded once per process; `None` (said once, in the log) when its
/// weights are missing or unreadable: pauses are then judged by loudness.
pub fn installed() -> Option<VoiceDetector> {
    static DETECTOR: OnceLock<Option<VoiceDetector>> = OnceLock::new();
    DETECTOR
        .get_or_init(
            || match model_path().and_then(|path| VoiceDetector::load(&path)) {
                Ok(detector) => Some(detector),
                Err(e) => {
                    tracing::warn!(
                        "voice-activity detector unavailable, pauses are judged by loudness \
                         (scripts/setup.sh installs it): {e}"
                    );
                    None
                }
            },
        )
        .clone()
}

/// Which frames of a recording hold speech: frame `i` covers samples `i * FRAME ..
/// (i + 1) * FRAME` at 16 kHz. The last partial frame of a recording that is still growing is
/// not judged yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpeechFrames {
    speech: Vec<bool>,
}

impl SpeechFrames {
    /// Frames judged from per-frame labels (tests, and streams).
    pub fn from_labels(speech: Vec<bool>) -> SpeechFrames {
        SpeechFrames { speech }
    }

    /// How many samples the frames cover.
    pub fn covered(&self) -> usize {
        self.speech.len() * FRAME
    }

    /// The frames judged that overlap `range` (samples).
    fn overlapping(&self, range: std::ops::Range<usize>) -> &[bool] {
        if range.start >= range.end {
            return &[];
        }
        let first = (range.start / FRAME).min(self.speech.len());
        let last = range.end.div_ceil(FRAME).min(self.speech.len());
        &self.speech[first..last]
    }

    /// Whether speech was heard in any judged frame that overlaps `range` (samples).
    pub fn speech_in(&self, range: std::ops::Range<usize>) -> bool {
        self.overlapping(range).iter().any(|&s| s)
    }

    /// Whether frames were judged in `range` and none of them is speech.
    pub fn quiet_in(&self, range: std::ops::Range<usize>) -> bool {
        let frames = self.overlapping(range);
        !frames.is_empty() && !frames.iter().any(|&s| s)
    }

    /// Seconds of speech in `range` (samples at 16 kHz): its speech frames, and all of the
    /// part not judged yet (the detector cannot say it was not speech).
    pub fn speech_seconds_in(&self, range: std::ops::Range<usize>) -> f32 {
        let speech = self
            .overlapping(range.clone())
            .iter()
            .filter(|&&s| s)
            .count()
            * FRAME;
        let unjudged = range.end.saturating_sub(range.start.max(self.covered()));
        (speech + unjudged) as f32 / 16_000.0
    }

    /// How many frames hold speech.
    pub fn speech_frames(&self) -> usize {
        self.speech.iter().filter(|&&s| s).count()
    }
}

/// One recording being labelled as it arrives.
#[derive(Debug)]
pub struct SpeechStream {
    weights: Arc<SileroWeights>,
    state: SileroState,
    /// Samples of the next frame, not yet a whole one.
    pending: Vec<f32>,
    frames: SpeechFrames,
    /// The last frame was speech (the hysteresis).
    speaking: bool,
}

impl SpeechStream {
    /// Labels the whole frames that `samples` (the next 16 kHz samples) complete.
    pub fn push(&mut self, mut samples: &[f32]) {
        while !samples.is_empty() {
            let take = (FRAME - self.pending.len()).min(samples.len());
            self.pending.extend_from_slice(&samples[..take]);
            samples = &samples[take..];
            if self.pending.len() == FRAME {
                self.label_pending();
            }
        }
    }

    /// Labels the last partial frame too, padded with silence: the recording has ended.
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            self.pending.resize(FRAME, 0.0);
            self.label_pending();
        }
    }

    fn label_pending(&mut self) {
        let chunk: &[f32; FRAME] = self.pending[..]
            .try_into()
            .expect("a pending frame is FRAME long");
        let p = self.weights.speech_probability(&mut self.state, chunk);
        self.speaking = p >= SPEECH_FROM || (self.speaking && p >= SPEECH_UNTIL);
        self.frames.speech.push(self.speaking);
        self.pending.clear();
    }

    /// What it has judged so far.
    pub fn frames(&self) -> &SpeechFrames {
        &self.frames
    }
}

#[cfg(test)]
mod tests;
