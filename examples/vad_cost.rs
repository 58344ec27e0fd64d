//! What the voice-activity detector (`audio::vad`, Silero VAD in plain Rust) costs while
//! recording: its CPU time on the recorder's thread, fed as the recorder feeds it (the
//! newest 50 ms of 16 kHz audio per turn), as a share of one core, next to the loudness pause
//! check it works beside (`audio::pause`, kept as the recording grows) in the same run; and
//! the resident memory it adds (its weights, loaded once per process, and one recording's
//! frames). The audio: the project's 50 s clip of speech with pauses, then a sentence in pink
//! noise. Medians of several runs.
//!
//!     cargo run --release --example vad_cost

#[path = "support/resident.rs"]
mod resident;

use std::path::Path;
use std::time::Duration;
use whisper_dictation::audio::level::RunningPeak;
use whisper_dictation::audio::pause::{Hearing, SnapshotMarks};
use whisper_dictation::audio::vad::{self, VoiceDetector, FRAME};
use whisper_dictation::audio::wav::read_wav_16k;

const RATE: u32 = 16_000;
/// The recorder's turn: 50 ms.
const TURN: usize = RATE as usize / 20;
const RUNS: usize = 5;

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `now` is.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The detector over `audio` as the recorder runs it; its CPU time and speech frames.
fn detector_run(detector: &VoiceDetector, audio: &[f32]) -> (Duration, usize) {
    let started = thread_cpu();
    let mut stream = detector.stream();
    for turn in audio.chunks(TURN) {
        stream.push(turn);
    }
    stream.finish();
    (thread_cpu() - started, stream.frames().speech_frames())
}

/// The loudness pause and stride checks over `audio` at every turn, as the recorder runs
/// them (from the last snapshot on).
fn loudness_run(audio: &[f32]) -> (Duration, usize) {
    let started = thread_cpu();
    let mut peak = RunningPeak::default();
    let mut marks = SnapshotMarks::default();
    let mut pauses = 0;
    for end in (TURN..=audio.len()).step_by(TURN) {
        let so_far = &audio[..end];
        let hearing = Hearing::Loudness {
            peak: peak.of(so_far, RATE),
        };
        if let Some(snapshot) = marks.due(so_far, hearing, RATE, true) {
            marks.sent(snapshot, end);
            pauses += 1;
        }
    }
    (thread_cpu() - started, pauses)
}

fn main() {
    let clips = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    let audio: Vec<f32> = ["en_long_50s.wav", "en_noisy_pink10db.wav"]
        .iter()
        .flat_map(|name| read_wav_16k(&clips.join(name)).expect("fixture clip"))
        .collect();
    let seconds = audio.len() as f64 / f64::from(RATE);

    let before = resident::rss();
    let path = vad::model_path().expect("a data folder");
    let detector = VoiceDetector::load(&path)
        .unwrap_or_else(|e| panic!("{e} (scripts/setup.sh installs the model)"));
    let loaded = resident::rss();

    let (mut by_detector, mut by_loudness) = (Vec::new(), Vec::new());
    let mut speech = 0;
    for _ in 0..RUNS {
        let (time, frames) = detector_run(&detector, &audio);
        by_detector.push(time);
        speech = frames;
        by_loudness.push(loudness_run(&audio).0);
    }
    let after = resident::rss();
    let (detector_cpu, loudness_cpu) = (median(by_detector), median(by_loudness));
    let frames = audio.len().div_ceil(FRAME);
    let share = |cpu: Duration| 100.0 * cpu.as_secs_f64() / seconds;

    println!("audio: {seconds:.1} s, {frames} frames of 32 ms, {speech} of them speech");
    println!("| pause judgement | CPU over the recording | share of one core | per 32 ms frame |");
    println!("|---|---|---|---|");
    for (name, cpu) in [
        ("voice-activity detector", detector_cpu),
        ("loudness checks (pause, stride)", loudness_cpu),
    ] {
        println!(
            "| {name} | {:.1} ms | {:.3} % | {:.1} µs |",
            cpu.as_secs_f64() * 1e3,
            share(cpu),
            cpu.as_secs_f64() * 1e6 / frames as f64
        );
    }
    println!(
        "detector / loudness check: {:.1}x",
        detector_cpu.as_secs_f64() / loudness_cpu.as_secs_f64().max(1e-9)
    );
    println!(
        "resident: {before} before the detector, {loaded} with its weights loaded, {after} \
         after {RUNS} recordings"
    );
}
