//! Starting transcription at key-up instead of after the tail.
//!
//! The recorder keeps listening for a short tail after the key goes up so a word still being
//! spoken is not cut; waiting for it before transcribing costs its whole length on every
//! dictation. Most people stop speaking before they let go, so the app transcribes the audio up
//! to key-up (the head) at once when the head ends in quiet, and keeps that result when the tail
//! turned out quiet too. When speech went on into the tail the early result is thrown away and
//! the whole recording is transcribed as before. These are the two pure decisions.

use crate::audio::level::{loudest_frame, GateConfig};
use std::time::Duration;

/// How much quiet must end the head for its words to count as complete.
pub const QUIET_END: Duration = Duration::from_millis(200);

/// A frame is quiet below this share of the recording's loudest frame (−26 dB), and never above
/// the gate's threshold for sound: a room's noise floor is quiet, a new syllable is not.
pub const QUIET_FRACTION: f32 = 0.05;

/// The level below which a frame of a recording whose loudest frame is `peak` counts as quiet.
pub fn quiet_threshold(peak: f32, gate: &GateConfig) -> f32 {
    gate.frame_rms.max(peak * QUIET_FRACTION)
}

/// Whether to transcribe `head` (16 kHz mono up to key-up) before the tail arrives: it holds
/// sound, and its last [`QUIET_END`] is quiet (the speaker had finished the word).
pub fn worth_starting(head: &[f32], sample_rate: u32, gate: &GateConfig) -> bool {
    let end = (QUIET_END.as_secs_f32() * sample_rate as f32) as usize;
    if end == 0 || head.len() < 2 * end {
        return false;
    }
    let peak = loudest_frame(head, sample_rate);
    if peak <= gate.frame_rms {
        return false; // nothing said: no hurry to transcribe silence
    }
    loudest_frame(&head[head.len() - end..], sample_rate) < quiet_threshold(peak, gate)
}

/// Whether the result for the first `head_len` samples stands for all of `recording`: what was
/// recorded after them (the tail) is quiet relative to the head's loudest frame `head_peak`.
pub fn tail_is_quiet(
    recording: &[f32],
    head_len: usize,
    head_peak: f32,
    sample_rate: u32,
    gate: &GateConfig,
) -> bool {
    let tail = &recording[head_len.min(recording.len())..];
    loudest_frame(tail, sample_rate) < quiet_threshold(head_peak, gate)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 16_000;

    fn tone(seconds: f32, amplitude: f32) -> Vec<f32> {
        (0..(seconds * RATE as f32) as usize)
            .map(|i| {
                amplitude * (i as f32 * 2.0 * std::f32::consts::PI * 180.0 / RATE as f32).sin()
            })
            .collect()
    }

    fn quiet(seconds: f32) -> Vec<f32> {
        // Room noise at about -60 dBFS.
        (0..(seconds * RATE as f32) as usize)
            .map(|i| if i % 2 == 0 { 0.001 } else { -0.001 })
            .collect()
    }

    fn join(parts: &[Vec<f32>]) -> Vec<f32> {
        parts.concat()
    }

    #[test]
    fn a_head_ending_in_quiet_is_worth_starting() {
        let gate = GateConfig::default();
        let head = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.3)]);
        assert!(worth_starting(&head, RATE, &gate));
    }

    #[test]
    fn a_head_cut_mid_word_waits_for_the_tail() {
        let gate = GateConfig::default();
        let head = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.1), tone(0.15, 0.1)]);
        assert!(!worth_starting(&head, RATE, &gate));
        // Quiet, but for less than QUIET_END.
        let head = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.1)]);
        assert!(!worth_starting(&head, RATE, &gate));
    }

    #[test]
    fn silence_and_too_little_audio_are_not_started_early() {
        let gate = GateConfig::default();
        assert!(!worth_starting(&quiet(2.0), RATE, &gate));
        assert!(!worth_starting(&[], RATE, &gate));
        assert!(!worth_starting(&tone(0.3, 0.2), RATE, &gate));
    }

    #[test]
    fn a_soft_ending_below_the_speech_level_still_counts_as_speech() {
        // A trailing syllable at -20 dB relative to the loudest is speech, not quiet.
        let gate = GateConfig::default();
        let head = join(&[tone(1.0, 0.3), tone(0.3, 0.03)]);
        assert!(!worth_starting(&head, RATE, &gate));
    }

    #[test]
    fn the_early_result_stands_only_when_the_tail_is_quiet() {
        let gate = GateConfig::default();
        let head = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.3)]);
        let peak = loudest_frame(&head, RATE);

        let quiet_tail = join(&[head.clone(), quiet(0.3)]);
        assert!(tail_is_quiet(&quiet_tail, head.len(), peak, RATE, &gate));

        let spoken_tail = join(&[head.clone(), quiet(0.1), tone(0.2, 0.1)]);
        assert!(!tail_is_quiet(&spoken_tail, head.len(), peak, RATE, &gate));

        // No tail at all (the microphone delivered nothing more), or a shorter recording
        // than the head (resampling rounding): nothing new was said.
        assert!(tail_is_quiet(&head, head.len(), peak, RATE, &gate));
        assert!(tail_is_quiet(
            &head[..head.len() - 3],
            head.len(),
            peak,
            RATE,
            &gate
        ));
    }
}
