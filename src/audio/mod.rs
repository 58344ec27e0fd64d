//! Audio input: reading WAV files of any common format, converting audio to what Whisper takes
//! (16 kHz mono f32), recording from the microphone (journaled to disk as it is recorded), the
//! energy gate, the voice-activity detector, and where the speaker paused.

pub mod capture;
pub mod level;
pub mod pause;
pub mod playback;
pub mod resample;
pub mod shared_audio;
#[cfg(test)]
mod test_signals;
pub mod vad;
pub mod wav;
pub mod wav_journal;
