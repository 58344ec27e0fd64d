//! The Whisper speech-recognition engine on libtorch: model files → weights, audio → log-mel,
//! encoder/decoder forward passes with key-value caches, decoding, and the one entry point that
//! turns audio into segments.

pub mod ct2;
pub mod dims;
pub mod hf;
pub mod loader;
pub mod mel;
pub mod tokenizer;
pub mod weights;
