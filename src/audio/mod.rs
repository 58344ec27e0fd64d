//! Audio input: reading WAV files of any common format and converting audio to what Whisper
//! takes (16 kHz mono f32).

pub mod resample;
pub mod wav;
