//! What a draft saves a streamed dictation's pass ([`whisper_dictation::whisper::TranscribeParams::draft`]):
//! passes over the 50 s clip as the app's worker makes them while a person speaks without
//! pausing (a stride 2 s longer than the pass before; a pass after a commit, starting 4 s
//! later), each transcribed without a draft and with the pass before's tokens as its draft,
//! alternately, in the app's CPU layout for this CPU, with the app's dictation parameters and
//! word times. Prints the median engine time of each, the ratio, the draft tokens kept, and
//! whether the words are the same (they must be).
//!
//!     cargo run --release --example draft_cost -- [RUNS (5)] [MODEL_DIR]
//!
//! The CPU class is printed first; `ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2` make a
//! bf16 machine compute as one without.

#[path = "support/app_layout.rs"]
mod app_layout;

use std::path::PathBuf;
use std::time::{Duration, Instant};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{PaddingEncoding, TranscribeParams};

const RATE: usize = 16_000;

/// A stretch of the clip, from and to, in seconds.
type Span = (f32, f32);

/// (what, the pass before's audio, this pass's audio).
const PASSES: [(&str, Span, Span); 4] = [
    ("stride, 8 → 10 s", (0.0, 8.0), (0.0, 10.0)),
    ("stride, 12 → 14 s", (4.0, 12.0), (4.0, 14.0)),
    ("after a commit, 4 s later", (0.0, 10.0), (4.0, 12.0)),
    ("key-up, 1.3 s after a stride", (20.0, 30.0), (20.0, 31.3)),
];

fn main() -> anyhow::Result<()> {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    tch::set_num_threads(2);
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(Ok(5), |n| n.parse())?;
    let engine = app_layout::load_engine(args.next())?;
    let clip =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips/en_long_50s.wav");
    let audio = read_wav_16k(&clip)?;
    let span =
        |(from, to): (f32, f32)| &audio[(from * RATE as f32) as usize..(to * RATE as f32) as usize];
    let params = |seconds: f32| {
        TranscribeParams {
            language: Some("en".into()),
            padding: PaddingEncoding::Primed,
            word_times: true,
            ..TranscribeParams::default()
        }
        .for_dictation(seconds)
    };
    let _ = engine.transcribe(span((0.0, 5.0)), &params(5.0))?; // kernels' first run
    println!(
        "{:<30} {:>10} {:>11} {:>7} {:>10}  same words",
        "pass", "no draft", "with draft", "ratio", "kept"
    );
    for (what, before, now) in PASSES {
        let seconds = now.1 - now.0;
        let previous = engine.transcribe(span(before), &params(before.1 - before.0))?;
        let draft: Vec<u32> = previous
            .segments
            .iter()
            .filter(|s| s.seek == 0)
            .flat_map(|s| s.tokens.iter().copied())
            .collect();
        let with_draft = TranscribeParams {
            draft: draft.clone(),
            draft_elsewhere: before.0 != now.0,
            ..params(seconds)
        };
        let (mut plain, mut drafted) = (Vec::new(), Vec::new());
        let (mut plain_text, mut drafted_text, mut kept) = (String::new(), String::new(), 0);
        for _ in 0..runs {
            let started = Instant::now();
            plain_text = engine.transcribe(span(now), &params(seconds))?.text;
            plain.push(started.elapsed());
            let started = Instant::now();
            let t = engine.transcribe(span(now), &with_draft)?;
            drafted.push(started.elapsed());
            (drafted_text, kept) = (t.text, t.timings.drafted);
        }
        let (a, b) = (median(&mut plain), median(&mut drafted));
        println!(
            "{what:<30} {:>8.0} ms {:>8.0} ms {:>7.2} {:>5}/{:<4}  {}",
            a * 1e3,
            b * 1e3,
            b / a,
            kept,
            draft.len(),
            if plain_text == drafted_text {
                "yes"
            } else {
                "NO"
            }
        );
    }
    Ok(())
}

fn median(times: &mut [Duration]) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64()
}
