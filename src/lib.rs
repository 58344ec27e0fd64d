//! whisper-dictation: push-to-talk dictation with OpenAI Whisper running locally on libtorch.
//!
//! The library holds everything the binary (`src/main.rs`) drives: audio input, the Whisper
//! engine (`whisper`), and where files live (`paths`).

pub mod atomic_file;
pub mod audio;
pub mod device;
pub mod i18n;
pub mod paths;
pub mod platform;
pub mod settings;
pub mod transcriber;
pub mod whisper;
