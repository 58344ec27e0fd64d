//! How much memory one streamed pass takes above the resident size it starts from: the
//! engine in the app's CPU layout for this CPU transcribes stretches of the 50 s clip (3, 9
//! and 20 s, the lengths a pass over speech without pauses has) with the app's dictation
//! parameters, with and without word times, with the fast encoding and with Whisper's whole
//! 30 s window; before each, the peak resident size is reset (`/proc/self/clear_refs`), and
//! after it the peak above the start is printed. Linux only (the peak is `VmHWM`).
//!
//!     cargo run --release --example pass_memory -- [REPEATS (3)] [MODEL_DIR]
//!
//! The CPU class is printed first; `WHISPER_DICTATION_CPU_BF16=0 ONEDNN_MAX_CPU_ISA=AVX2
//! ATEN_CPU_CAPABILITY=avx2` make a bf16 machine compute as one without.

#[path = "support/app_layout.rs"]
mod app_layout;

use std::path::PathBuf;
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{PaddingEncoding, TranscribeParams};

const RATE: usize = 16_000;

/// `VmRSS:` or `VmHWM:` of this process in MB.
fn status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Hands freed memory back as the app's worker does when idle (between a dictation's passes
/// too), then resets `VmHWM` to the resident size now.
fn reset_peak() -> bool {
    whisper_dictation::platform::release_freed_memory();
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn main() -> anyhow::Result<()> {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    whisper_dictation::platform::bound_allocator_arenas();
    whisper_dictation::device::kernel_cache::bound();
    tch::set_num_threads(2);
    let mut args = std::env::args().skip(1);
    let repeats: usize = args.next().map_or(Ok(3), |n| n.parse())?;
    let engine = app_layout::load_engine(args.next())?;
    println!(
        "loaded: resident {:.0} MB, peak {:.0} MB",
        status_mb("VmRSS:"),
        status_mb("VmHWM:")
    );
    let clip =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips/en_long_50s.wav");
    let audio = read_wav_16k(&clip)?;
    let params = |seconds: f32, padding: PaddingEncoding, word_times: bool| {
        TranscribeParams {
            language: Some("en".into()),
            padding,
            word_times,
            ..TranscribeParams::default()
        }
        .for_dictation(seconds)
    };
    let _ = engine.transcribe(
        &audio[..5 * RATE],
        &params(5.0, PaddingEncoding::Primed, true),
    )?;
    println!("warm: resident {:.0} MB", status_mb("VmRSS:"));
    println!(
        "{:<8} {:<7} {:<10} {:>12} {:>22}",
        "audio", "encoder", "word times", "resident MB", "peak above it, MB"
    );
    for seconds in [3.0f32, 9.0, 20.0] {
        for (padding, name) in [
            (PaddingEncoding::Primed, "fast"),
            (PaddingEncoding::Full, "exact"),
        ] {
            for word_times in [false, true] {
                let span = &audio[4 * RATE..4 * RATE + (seconds * RATE as f32) as usize];
                let mut above = Vec::new();
                let mut start = 0.0;
                for _ in 0..repeats {
                    if !reset_peak() {
                        anyhow::bail!("/proc/self/clear_refs cannot be written");
                    }
                    start = status_mb("VmRSS:");
                    engine.transcribe(span, &params(seconds, padding, word_times))?;
                    above.push(status_mb("VmHWM:") - start);
                }
                let shown: Vec<String> = above.iter().map(|a| format!("{a:.0}")).collect();
                println!(
                    "{:<8} {:<7} {:<10} {:>12.0} {:>22}",
                    format!("{seconds} s"),
                    name,
                    word_times,
                    start,
                    shown.join(" / ")
                );
            }
        }
    }
    // As the app's passes: word times, the pass before's tokens as the draft, the language
    // detected among Polish and English.
    println!("as the app's passes (word times, a draft, language detected among pl, en):");
    for (before, now) in [(7.0f32, 9.0f32), (18.0, 20.0)] {
        let params = |seconds: f32| {
            TranscribeParams {
                language: None,
                detect_among: vec!["pl".into(), "en".into()],
                padding: PaddingEncoding::Primed,
                word_times: true,
                ..TranscribeParams::default()
            }
            .for_dictation(seconds)
        };
        let span = |seconds: f32| &audio[4 * RATE..4 * RATE + (seconds * RATE as f32) as usize];
        let mut above = Vec::new();
        let mut start = 0.0;
        for _ in 0..repeats {
            let first = engine.transcribe(span(before), &params(before))?;
            let mut with_draft = params(now);
            with_draft.draft = first
                .segments
                .iter()
                .filter(|s| s.seek == 0)
                .flat_map(|s| s.tokens.iter().copied())
                .collect();
            if !reset_peak() {
                anyhow::bail!("/proc/self/clear_refs cannot be written");
            }
            start = status_mb("VmRSS:");
            engine.transcribe(span(now), &with_draft)?;
            above.push(status_mb("VmHWM:") - start);
        }
        let shown: Vec<String> = above.iter().map(|a| format!("{a:.0}")).collect();
        println!(
            "{:<8} {:<7} {:<10} {:>12.0} {:>22}",
            format!("{now} s"),
            "fast",
            "draft",
            start,
            shown.join(" / ")
        );
    }
    Ok(())
}
