//! What the recorder's pause check costs over a dictation, by its length, at a 48 kHz
//! microphone: the check runs every 50 ms (`audio::pause::PAUSE_CHECK`) while the key is held,
//! and needs the recording's loudest frame. Measured over the whole recording at every check
//! (as the recorder did) against kept as the recording grows (`audio::level::RunningPeak`, as
//! it does now). Both decide the same at every check (asserted). The input is speech without
//! a pause the check would take (bursts with gaps under 150 ms), the case where it never
//! rests; prints the sum over all checks of one dictation, median of several runs, and the
//! ratio.
//!
//!     cargo run --release --example pause_check_cost

use std::time::{Duration, Instant};
use whisper_dictation::audio::level::{loudest_frame, RunningPeak};
use whisper_dictation::audio::pause::{paused_after_new_speech, Hearing};

const RATE: u32 = 48_000;
/// The recorder's loop turn.
const CHUNK: usize = RATE as usize / 20;
const RUNS: usize = 3;

/// Bursts of 0.4 s of noise with 0.1 s gaps of room quiet.
fn speech_without_pauses(seconds: usize) -> Vec<f32> {
    let mut state = 0x9e37_79b9_u32;
    (0..seconds * RATE as usize)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let noise = (state as f32 / u32::MAX as f32) * 2.0 - 1.0;
            let in_gap = i % (RATE as usize / 2) >= RATE as usize * 4 / 10;
            noise * if in_gap { 0.001 } else { 0.2 }
        })
        .collect()
}

/// Every check of one dictation of `audio`; the decisions and the time they took.
fn checks(audio: &[f32], running: bool) -> (Vec<bool>, Duration) {
    let mut peak = RunningPeak::default();
    let mut decisions = Vec::new();
    let started = Instant::now();
    for end in (CHUNK..=audio.len()).step_by(CHUNK) {
        let so_far = &audio[..end];
        let loudest = if running {
            peak.of(so_far, RATE)
        } else {
            loudest_frame(so_far, RATE)
        };
        decisions.push(paused_after_new_speech(
            so_far,
            0,
            Hearing::Loudness { peak: loudest },
            RATE,
        ));
    }
    (decisions, started.elapsed())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    println!("| dictation | checks | whole recording at each check | kept as it grows | ratio |");
    println!("|---|---|---|---|---|");
    for seconds in [5, 25, 60, 110] {
        let audio = speech_without_pauses(seconds);
        let mut whole = Vec::new();
        let mut running = Vec::new();
        let mut count = 0;
        for _ in 0..RUNS {
            let (a, t) = checks(&audio, false);
            let (b, u) = checks(&audio, true);
            assert_eq!(a, b, "the same decisions at {seconds} s");
            count = a.len();
            whole.push(t);
            running.push(u);
        }
        let (whole, running) = (median(whole), median(running));
        println!(
            "| {seconds} s | {count} | {:.1} ms | {:.1} ms | {:.0}x |",
            whole.as_secs_f64() * 1e3,
            running.as_secs_f64() * 1e3,
            whole.as_secs_f64() / running.as_secs_f64().max(1e-9)
        );
    }
}
