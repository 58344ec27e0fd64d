//! The one entry point (in the spirit of whisper.cpp's `whisper_full`): a model directory is
//! loaded once into an immutable [`Engine`] (weights + tokenizer + generation settings, checked
//! against each other), and `Engine::transcribe(audio, params)` returns segments. Per-call state
//! (the decoder caches) lives inside the call, so one engine serves many calls.

use super::attention::MaskedAttention;
use super::loader::{load_weights, GenerationConfig, Layout, LoadError, LoadOptions};
use super::model::{CacheLayout, Whisper};
use super::params::TranscribeParams;
use super::tokenizer::{Tokenizer, TokenizerError};
use super::transcribe::{transcribe, NoObserver, PhaseObserver, TranscribeError, Transcript};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The compute device failed while the model was being placed on it.
    #[error("device failure while loading the model: {0}")]
    Device(String),
    #[error(transparent)]
    Weights(#[from] LoadError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    #[error("{path}: the tokenizer has {tokenizer_vocab} tokens but the model's token embedding has {model_vocab} rows; tokenizer.json does not belong to this model")]
    TokenizerMismatch {
        path: PathBuf,
        tokenizer_vocab: usize,
        model_vocab: usize,
    },
    #[error("{path}: the tokenizer is {tokenizer_kind} but the model is {model_kind}; tokenizer.json does not belong to this model")]
    MultilingualMismatch {
        path: PathBuf,
        tokenizer_kind: &'static str,
        model_kind: &'static str,
    },
}

/// A loaded model, ready to transcribe.
pub struct Engine {
    model: Whisper,
    tokenizer: Tokenizer,
    generation: GenerationConfig,
    layout: Layout,
    dir: PathBuf,
    load_time: Duration,
}

impl Engine {
    /// Loads `dir` (CTranslate2 or Hugging Face layout) with its `tokenizer.json`.
    pub fn load(dir: &Path, opts: &LoadOptions) -> Result<Self, EngineError> {
        let started = Instant::now();
        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer = Tokenizer::from_file(&tokenizer_path)?;
        let loaded = load_weights(dir, opts)?;
        let dims = loaded.weights.dims;
        if tokenizer.vocab_size() != dims.n_vocab {
            return Err(EngineError::TokenizerMismatch {
                path: tokenizer_path,
                tokenizer_vocab: tokenizer.vocab_size(),
                model_vocab: dims.n_vocab,
            });
        }
        if tokenizer.is_multilingual() != dims.is_multilingual() {
            let kind = |m: bool| if m { "multilingual" } else { "English-only" };
            return Err(EngineError::MultilingualMismatch {
                path: tokenizer_path,
                tokenizer_kind: kind(tokenizer.is_multilingual()),
                model_kind: kind(dims.is_multilingual()),
            });
        }
        let model = Whisper::new(loaded.weights, opts.device, opts.kind, opts.steps)
            .map_err(|e| EngineError::Device(e.to_string()))?;
        Ok(Self {
            model,
            tokenizer,
            generation: loaded.generation,
            layout: loaded.layout,
            dir: dir.to_path_buf(),
            load_time: started.elapsed(),
        })
    }

    /// Transcribes 16 kHz mono samples.
    pub fn transcribe(
        &self,
        samples: &[f32],
        params: &TranscribeParams,
    ) -> Result<Transcript, TranscribeError> {
        self.transcribe_observed(samples, params, &mut NoObserver)
    }

    /// [`Engine::transcribe`], telling `observer` when each encoder/decoder phase runs.
    pub fn transcribe_observed(
        &self,
        samples: &[f32],
        params: &TranscribeParams,
        observer: &mut dyn PhaseObserver,
    ) -> Result<Transcript, TranscribeError> {
        transcribe(
            &self.model,
            &self.tokenizer,
            &self.generation,
            samples,
            params,
            observer,
        )
    }

    pub fn model(&self) -> &Whisper {
        &self.model
    }

    /// Overrides the decoder cache layout chosen for the device (tests compare the two; a
    /// simulated GPU takes the GPUs' layout).
    pub fn set_cache_layout(&mut self, layout: CacheLayout) {
        self.model.set_cache_layout(layout);
    }

    /// How the fixed cache's masked attention is computed (the simulated GPU's `wrong=attention`
    /// breaks it).
    pub fn set_masked_attention(&mut self, kernel: MaskedAttention) {
        self.model.set_masked_attention(kernel);
    }

    /// The CPU threads a one-token decoder step runs on (`None`: the caller's); by default
    /// chosen for the model ([`super::step_threads`]), overridden by the benchmark.
    pub fn set_one_token_threads(&mut self, threads: Option<i32>) {
        self.model.set_one_token_threads(threads);
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    pub fn generation(&self) -> &GenerationConfig {
        &self.generation
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How long [`Engine::load`] took.
    pub fn load_time(&self) -> Duration {
        self.load_time
    }
}
