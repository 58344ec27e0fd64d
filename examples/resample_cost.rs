//! What converting a recording to Whisper's 16 kHz costs the recorder, by the recording's
//! length, at a 48 kHz microphone: converted whole at once (how the recorder converted it at
//! key-up and for every snapshot of a streamed dictation before) against converted as it
//! arrives (`audio::resample::Resampler`: 50 ms at a time as the recorder's loop does, then
//! only the rest at key-up). Both give the same samples (asserted). Prints the median of
//! several runs of each and their ratio; the input is a mix of tones, as speech-like as
//! matters for a filter (its cost does not depend on the signal).
//!
//!     cargo run --release --example resample_cost

use std::time::{Duration, Instant};
use whisper_dictation::audio::resample::{resample, Resampler};

const FROM: u32 = 48_000;
const TO: u32 = 16_000;
/// The recorder's loop turn (`audio::pause::PAUSE_CHECK`).
const CHUNK: usize = FROM as usize / 20;
const RUNS: usize = 5;

fn signal(seconds: usize) -> Vec<f32> {
    (0..seconds * FROM as usize)
        .map(|i| {
            let t = i as f32 / FROM as f32;
            0.3 * (2.0 * std::f32::consts::PI * 220.0 * t).sin()
                + 0.2 * (2.0 * std::f32::consts::PI * 3_100.0 * t).sin()
        })
        .collect()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    println!("| recording | whole at key-up | as it arrives: at key-up | as it arrives: all of its turns | key-up ratio |");
    println!("|---|---|---|---|---|");
    for seconds in [5, 25, 60, 110] {
        let input = signal(seconds);
        let mut whole = Vec::new();
        let mut at_end = Vec::new();
        let mut turns = Vec::new();
        for _ in 0..RUNS {
            let started = Instant::now();
            let reference = resample(&input, FROM, TO);
            whole.push(started.elapsed());

            let mut resampler = Resampler::new(FROM, TO);
            let mut spent = Duration::ZERO;
            for chunk in input.chunks(CHUNK) {
                let started = Instant::now();
                resampler.push(chunk);
                spent += started.elapsed();
            }
            let started = Instant::now();
            let converted = resampler.finish();
            at_end.push(started.elapsed());
            turns.push(spent);
            assert_eq!(converted, reference, "{seconds} s: not the same samples");
        }
        let (whole, at_end, turns) = (median(whole), median(at_end), median(turns));
        println!(
            "| {seconds} s | {:.1} ms | {:.3} ms | {:.1} ms | {:.0}x |",
            whole.as_secs_f64() * 1e3,
            at_end.as_secs_f64() * 1e3,
            turns.as_secs_f64() * 1e3,
            whole.as_secs_f64() / at_end.as_secs_f64().max(1e-9)
        );
    }
}
