//! Audio input: reading WAV files of any common format, converting audio to what Whisper takes
//! (16 kHz mono f32), recording from the microphone, and the energy gate.

pub mod capture;
pub mod level;
pub mod resample;
pub mod wav;
