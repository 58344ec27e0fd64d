//! How much of a recording is louder than room silence: the energy gate that keeps silence and
//! faint noise away from Whisper (which turns them into "Thank you." or "you").
//!
//! The audio is cut into 30 ms frames; a frame is active when its RMS is above
//! [`GateConfig::frame_rms`]. A recording passes when its active frames add up to at least
//! [`GateConfig::min_active`]. The threshold (0.005 ≈ −46 dBFS) is the one Handy found to
//! reject silence without losing quiet speakers; a real utterance has many frames far above it.

use std::time::Duration;

const FRAME_SECONDS: f32 = 0.030;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateConfig {
    /// RMS (of samples in [-1, 1]) above which a frame counts as sound.
    pub frame_rms: f32,
    /// Sound needed in total for the recording to be worth transcribing.
    pub min_active: Duration,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            frame_rms: 0.005,
            min_active: Duration::from_millis(150),
        }
    }
}

/// What the gate measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Seconds of frames above the threshold.
    pub active_seconds: f32,
    /// RMS of the loudest frame.
    pub peak_frame_rms: f32,
    /// RMS of the whole recording.
    pub rms: f32,
    pub seconds: f32,
}

impl Level {
    /// Measures 16 kHz mono `samples`.
    pub fn measure(samples: &[f32], sample_rate: u32, config: &GateConfig) -> Level {
        let frame = ((sample_rate as f32 * FRAME_SECONDS) as usize).max(1);
        let mut active_frames = 0usize;
        let mut peak = 0.0f32;
        let mut total_sq = 0.0f64;
        for chunk in samples.chunks(frame) {
            let sq: f64 = chunk.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
            total_sq += sq;
            let rms = (sq / chunk.len() as f64).sqrt() as f32;
            peak = peak.max(rms);
            // A short last frame counts for its share only.
            if rms > config.frame_rms && chunk.len() * 2 >= frame {
                active_frames += 1;
            }
        }
        let n = samples.len().max(1) as f64;
        Level {
            active_seconds: active_frames as f32 * frame as f32 / sample_rate as f32,
            peak_frame_rms: peak,
            rms: (total_sq / n).sqrt() as f32,
            seconds: samples.len() as f32 / sample_rate as f32,
        }
    }

    /// Whether there is enough sound to be speech.
    pub fn has_sound(&self, config: &GateConfig) -> bool {
        self.active_seconds >= config.min_active.as_secs_f32()
    }
}

/// RMS of the loudest 30 ms frame of `samples` (0 for no audio); a short last frame counts.
pub fn loudest_frame(samples: &[f32], sample_rate: u32) -> f32 {
    let frame = ((sample_rate as f32 * FRAME_SECONDS) as usize).max(1);
    samples.chunks(frame).map(rms).fold(0.0, f32::max)
}

/// [`loudest_frame`] of a recording that grows: each complete frame is measured once, so a
/// check every few milliseconds costs the new audio, not the whole recording again (the
/// recorder's pause check scanned all of a 110 s recording at 48 kHz twenty times a second).
/// Equal to [`loudest_frame`] of the whole, the same frames with the same short last one.
#[derive(Debug, Clone, Default)]
pub struct RunningPeak {
    sample_rate: u32,
    /// Samples of the recording in complete frames measured so far.
    measured_to: usize,
    /// The loudest of those frames.
    peak: f32,
}

impl RunningPeak {
    /// [`loudest_frame`] of `recording` at `sample_rate`: the same recording as at the last
    /// call, grown (a shorter one or another rate starts the measure again).
    pub fn of(&mut self, recording: &[f32], sample_rate: u32) -> f32 {
        if sample_rate != self.sample_rate || recording.len() < self.measured_to {
            *self = RunningPeak {
                sample_rate,
                ..RunningPeak::default()
            };
        }
        let frame = ((sample_rate as f32 * FRAME_SECONDS) as usize).max(1);
        let complete_to = recording.len() / frame * frame;
        for chunk in recording[self.measured_to..complete_to].chunks(frame) {
            self.peak = self.peak.max(rms(chunk));
        }
        self.measured_to = complete_to.max(self.measured_to);
        self.peak.max(rms(&recording[self.measured_to..]))
    }
}

/// The root mean square of `samples` (0 for none).
pub fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let sq: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sq / samples.len() as f64).sqrt() as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audio::test_signals::{tone as sine, RATE};

    /// Deterministic white noise with the given RMS.
    fn noise(seconds: f32, rms: f32) -> Vec<f32> {
        let mut state = 0x2545_f491_u32;
        (0..(seconds * RATE as f32) as usize)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                // Uniform in [-1, 1] has RMS 1/sqrt(3).
                (state as f32 / u32::MAX as f32 * 2.0 - 1.0) * rms * 3f32.sqrt()
            })
            .collect()
    }

    #[test]
    fn digital_silence_has_no_sound() {
        let config = GateConfig::default();
        let level = Level::measure(&vec![0.0; 5 * RATE as usize], RATE, &config);
        assert_eq!(level.active_seconds, 0.0);
        assert!(!level.has_sound(&config));
        assert!((level.seconds - 5.0).abs() < 1e-6);
    }

    #[test]
    fn faint_room_noise_at_minus_60_dbfs_has_no_sound() {
        let config = GateConfig::default();
        let level = Level::measure(&noise(5.0, 0.001), RATE, &config);
        assert!(!level.has_sound(&config), "{level:?}");
        assert!((level.rms - 0.001).abs() < 2e-4, "{level:?}");
    }

    #[test]
    fn a_short_spoken_burst_in_silence_passes() {
        let config = GateConfig::default();
        let mut audio = vec![0.0; RATE as usize];
        audio.extend(sine(0.4, 0.1));
        audio.extend(vec![0.0; RATE as usize]);
        let level = Level::measure(&audio, RATE, &config);
        assert!(level.has_sound(&config), "{level:?}");
        assert!((level.active_seconds - 0.4).abs() < 0.07, "{level:?}");
    }

    #[test]
    fn a_click_shorter_than_the_minimum_does_not_pass() {
        let config = GateConfig::default();
        let mut audio = vec![0.0; RATE as usize];
        audio.extend(sine(0.06, 0.5));
        audio.extend(vec![0.0; RATE as usize]);
        let level = Level::measure(&audio, RATE, &config);
        assert!(!level.has_sound(&config), "{level:?}");
        assert!(level.peak_frame_rms > 0.3);
    }

    #[test]
    fn loudest_frame_finds_the_burst() {
        let mut audio = vec![0.0; RATE as usize];
        audio.extend(sine(0.1, 0.2));
        let loudest = loudest_frame(&audio, RATE);
        assert!((loudest - 0.2 / 2f32.sqrt()).abs() < 0.01, "{loudest}");
        assert_eq!(loudest_frame(&[], RATE), 0.0);
        assert_eq!(RunningPeak::default().of(&[], RATE), 0.0);
        assert_eq!(loudest_frame(&vec![0.0; 100], RATE), 0.0);
    }

    #[test]
    fn empty_audio_is_silence() {
        let config = GateConfig::default();
        let level = Level::measure(&[], RATE, &config);
        assert!(!level.has_sound(&config));
    }

    #[test]
    fn a_running_peak_equals_the_whole_recordings_at_every_length() {
        let loud_then_quiet: Vec<f32> = noise(1.3, 0.2)
            .into_iter()
            .chain(noise(0.7, 0.01))
            .chain(noise(0.45, 0.3))
            .collect();
        let mut running = RunningPeak::default();
        let mut len = 0;
        // Uneven growth, as callbacks bring it: frames split across calls, a short last one.
        for (step, grow) in [1, 479, 480, 481, 800, 7, 2_400, 13]
            .iter()
            .cycle()
            .enumerate()
        {
            len = (len + grow).min(loud_then_quiet.len());
            let so_far = &loud_then_quiet[..len];
            assert_eq!(
                running.of(so_far, RATE),
                loudest_frame(so_far, RATE),
                "at {len} samples (step {step})"
            );
            if len == loud_then_quiet.len() {
                break;
            }
        }
        // Another recording (shorter), and another rate, start again.
        let quiet = noise(0.5, 0.01);
        assert_eq!(running.of(&quiet, RATE), loudest_frame(&quiet, RATE));
        assert_eq!(
            running.of(&quiet, RATE * 3),
            loudest_frame(&quiet, RATE * 3)
        );
    }
}
