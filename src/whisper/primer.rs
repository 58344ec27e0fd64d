//! The speech that primes the encoder's padding states for [`PaddingEncoding::Primed`]
//! ([`Whisper::prime_padding`]): 4.5 s of synthesized Polish, built into the binary.
//!
//! `assets/encoder-primer.wav` was made with
//! `espeak-ng -v pl "Proszę zapisz to dla mnie i przeczytaj, kiedy skończę mówić."`, converted
//! to 16 kHz mono 16-bit, normalised to -3 dBFS, with 0.25 s of silence at both ends. It is no
//! test clip. A speech primer, and not silence, because the padding's states carry what the
//! encoder heard before them (BENCHMARKS.md has the words each choice changed).
//!
//! [`PaddingEncoding::Primed`]: super::params::PaddingEncoding::Primed

use super::mel::{log_mel_spectrogram, N_FRAMES, SAMPLE_RATE};
use super::model::{ModelError, Whisper};
use crate::audio::resample::resample;
use crate::audio::wav::{read_wav_bytes, AudioError};
use std::path::Path;
use tch::Tensor;

const PRIMER_WAV: &[u8] = include_bytes!("../../assets/encoder-primer.wav");

#[derive(Debug, thiserror::Error)]
pub enum PrimeError {
    #[error(transparent)]
    Audio(#[from] AudioError),
    #[error("priming the encoder's padding: {0}")]
    Model(#[from] ModelError),
}

/// The primer as Whisper's input: 16 kHz mono samples.
pub fn primer_samples() -> Result<Vec<f32>, AudioError> {
    let audio = read_wav_bytes(PRIMER_WAV, Path::new("built-in encoder-primer.wav"))?;
    Ok(resample(&audio.samples, audio.sample_rate, SAMPLE_RATE))
}

/// Primes `model`'s padding states (one full encoder pass, ~0.4 s for `base` on a 2-core CPU);
/// nothing to do when it is already primed.
pub fn prime(model: &Whisper) -> Result<(), PrimeError> {
    if model.is_primed() {
        return Ok(());
    }
    let n_mels = model.dims().n_mels;
    let mel = log_mel_spectrogram(&primer_samples()?, n_mels);
    let window = mel.window(0, mel.n_frames);
    let input = Tensor::from_slice(&window).view([1, n_mels as i64, N_FRAMES as i64]);
    model.prime_padding(&input, mel.n_frames.min(N_FRAMES))?;
    Ok(())
}
