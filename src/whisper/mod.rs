//! The Whisper speech-recognition engine on libtorch: model files → weights, audio → log-mel,
//! encoder/decoder forward passes with key-value caches, decoding, and the one entry point that
//! turns audio into segments ([`Engine`]).

pub mod attention;
pub mod ct2;
pub mod decode;
pub mod dims;
mod draft;
pub mod engine;
pub mod gemm;
pub mod hf;
pub mod language;
mod layers;
pub mod loader;
mod mapped;
pub mod mel;
pub mod model;
mod model_error;
pub mod padding;
pub mod params;
pub mod primer;
pub mod quant;
pub mod rules;
pub mod search;
mod segment;
pub mod step_threads;
pub mod tokenizer;
pub mod transcribe;
pub mod weight_source;
pub mod weights;
pub mod words;

pub use attention::MaskedAttention;
pub use engine::{Engine, EngineError};
pub use loader::{Layout, LoadError, LoadOptions};
pub use model::CacheLayout;
pub use params::{FallbackChoice, PaddingEncoding, SuppressTokens, Task, TranscribeParams};
pub use segment::Word;
pub use transcribe::{
    NoObserver, Phase, PhaseObserver, Segment, Timings, TranscribeError, Transcript, Withheld,
    WithheldReason,
};
pub use weights::StepWeights;
