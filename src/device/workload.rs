//! The work the app really does, for timing settings on it: a short dictation (the sample built
//! into the binary) and a long one (the sample six times with pauses: two 30 s windows and
//! decodes of many lengths). A device whose cost depends on shapes (cuDNN attention planning,
//! MPS graph compilation) pays it on every new decoder length, so one repeated short clip would
//! hide it; the long one shows it. Each is timed cold (first call of a loaded model) and warm.

use crate::audio::resample::resample;
use crate::audio::wav::{read_wav_bytes, AudioError};
use std::path::Path;
use std::time::Duration;

/// The sample the workloads are made of (5.1 s of English speech), built in: the test clip
/// `tests/fixtures/clips/en_slt.wav`.
const SAMPLE: &[u8] = include_bytes!("../../assets/sample.wav");
/// What the sample says (`tests/fixtures/clips/texts.json`, `en_slt.wav`); the GPU warm-up's
/// words are checked against it ([`super::sample_check`]).
pub const SAMPLE_TEXT: &str =
    "The quarterly report is almost finished, but the charts still need more work.";
pub const SAMPLE_RATE: u32 = 16_000;
/// Copies of the sample in the long workload, each followed by a second of silence.
const LONG_REPEATS: usize = 6;

pub struct Workload {
    pub name: String,
    /// 16 kHz mono.
    pub audio: Vec<f32>,
}

impl Workload {
    pub fn seconds(&self) -> f64 {
        self.audio.len() as f64 / f64::from(SAMPLE_RATE)
    }
}

/// The short and the long workload.
pub fn dictation_workloads() -> Result<Vec<Workload>, AudioError> {
    let sample = read_wav_bytes(SAMPLE, Path::new("built-in sample.wav"))?;
    let short = resample(&sample.samples, sample.sample_rate, SAMPLE_RATE);
    let pause = vec![0.0; SAMPLE_RATE as usize];
    let mut long = Vec::with_capacity((short.len() + pause.len()) * LONG_REPEATS);
    for _ in 0..LONG_REPEATS {
        long.extend_from_slice(&short);
        long.extend_from_slice(&pause);
    }
    Ok(vec![
        Workload {
            name: "short".into(),
            audio: short,
        },
        Workload {
            name: "long".into(),
            audio: long,
        },
    ])
}

/// How one setting did on one workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkloadTime {
    /// The first call after loading.
    pub cold: Duration,
    /// A later call.
    pub warm: Duration,
}

/// A setting's score over the workloads: every workload's cold plus warm time. Cold counts
/// because each app start (and each model or device change) pays it before the first text; warm
/// because every dictation after that does.
pub fn score(times: &[WorkloadTime]) -> Duration {
    times.iter().map(|t| t.cold + t.warm).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workloads_are_a_short_and_a_long_dictation() {
        let w = dictation_workloads().unwrap();
        assert_eq!(w[0].name, "short");
        assert!((4.0..8.0).contains(&w[0].seconds()), "{}", w[0].seconds());
        assert_eq!(w[1].name, "long");
        assert!(w[1].seconds() > 30.0, "two windows: {}", w[1].seconds());
    }

    #[test]
    fn the_sample_is_the_en_slt_clip_and_its_text_is_that_clips() {
        let clips = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
        assert!(SAMPLE == std::fs::read(clips.join("en_slt.wav")).unwrap().as_slice());
        let texts: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(clips.join("texts.json")).unwrap())
                .unwrap();
        assert_eq!(texts["en_slt.wav"], SAMPLE_TEXT);
    }

    #[test]
    fn the_score_adds_cold_and_warm_over_the_workloads() {
        let ms = Duration::from_millis;
        let times = [
            WorkloadTime {
                cold: ms(300),
                warm: ms(60),
            },
            WorkloadTime {
                cold: ms(700),
                warm: ms(590),
            },
        ];
        assert_eq!(score(&times), ms(1650));
    }
}
