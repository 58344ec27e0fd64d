//! Synthetic signals for the audio module's unit tests, at 16 kHz: a steady tone whose level is
//! known, for the gate and the pause decisions.

pub const RATE: u32 = 16_000;

/// A 220 Hz sine of `amplitude` (its RMS is `amplitude / √2`).
pub fn tone(seconds: f32, amplitude: f32) -> Vec<f32> {
    (0..(seconds * RATE as f32) as usize)
        .map(|i| amplitude * (i as f32 * 2.0 * std::f32::consts::PI * 220.0 / RATE as f32).sin())
        .collect()
}
