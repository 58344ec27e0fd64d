//! What a one-token decoder step on one CPU thread saves ([`whisper_dictation::whisper::step_threads`]):
//! the project's 50 s clip transcribed whole, and passes as the app's worker makes them while
//! a person speaks without pausing (6 s of audio with word times and the pass before's tokens
//! as draft), each with one-token steps on one thread and on all (2), alternately, in the
//! app's CPU layout for this CPU. Prints the median wall time and the median CPU time of the
//! process (user + system, every thread) of each, the ratios, and whether the words are the
//! same (they must be).
//!
//!     cargo run --release --example step_threads -- [RUNS (5)] [MODEL_DIR]
//!
//! The CPU class is printed first; `WHISPER_DICTATION_CPU_BF16=0 ONEDNN_MAX_CPU_ISA=AVX2
//! ATEN_CPU_CAPABILITY=avx2` make a bf16 machine compute as one without.

#[path = "support/app_layout.rs"]
mod app_layout;

use std::path::PathBuf;
use std::time::{Duration, Instant};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{Engine, PaddingEncoding, TranscribeParams};

const RATE: usize = 16_000;

/// The process's CPU time so far (user + system, all threads).
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes the struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// One transcription's wall and CPU time, and its text.
fn timed(
    engine: &Engine,
    audio: &[f32],
    params: &TranscribeParams,
) -> anyhow::Result<(Duration, Duration, String)> {
    let (started, cpu) = (Instant::now(), cpu_time());
    let text = engine.transcribe(audio, params)?.text;
    Ok((started.elapsed(), cpu_time() - cpu, text))
}

fn main() -> anyhow::Result<()> {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    tch::set_num_threads(2);
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(Ok(5), |n| n.parse())?;
    let mut engine = app_layout::load_engine(args.next())?;
    let chosen = engine.model().one_token_threads();
    println!("one-token steps for this model: {chosen:?} thread(s) (None: all)");
    let clip =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips/en_long_50s.wav");
    let audio = read_wav_16k(&clip)?;
    let span =
        |from: f32, to: f32| &audio[(from * RATE as f32) as usize..(to * RATE as f32) as usize];
    let params = |seconds: f32, word_times: bool| {
        TranscribeParams {
            language: Some("en".into()),
            padding: PaddingEncoding::Primed,
            word_times,
            word_probabilities: false,
            ..TranscribeParams::default()
        }
        .for_dictation(seconds)
    };
    let _ = engine.transcribe(span(0.0, 5.0), &params(5.0, true))?; // kernels' first run
                                                                    // The passes: 6 s each, 2 s apart, each with the one before's tokens as its draft.
    let mut passes = Vec::new();
    let mut draft: Vec<u32> = Vec::new();
    let mut from = 0.0;
    while from + 6.0 <= 40.0 {
        let pass = TranscribeParams {
            draft: draft.clone(),
            draft_elsewhere: from > 0.0,
            ..params(6.0, true)
        };
        draft = engine
            .transcribe(span(from, from + 6.0), &pass)?
            .segments
            .iter()
            .filter(|s| s.seek == 0)
            .flat_map(|s| s.tokens.iter().copied())
            .collect();
        passes.push((from, pass));
        from += 2.0;
    }
    println!(
        "{:<28} {:>13} {:>13} {:>7} {:>13} {:>13} {:>7}  same words",
        "work", "wall, 1 thr", "wall, all", "ratio", "CPU, 1 thr", "CPU, all", "ratio"
    );
    type Work<'a> = Vec<(&'a [f32], TranscribeParams)>;
    let whole: Work = vec![(&audio[..], params(audio.len() as f32 / RATE as f32, false))];
    let streamed: Work = passes
        .iter()
        .map(|(from, p)| (span(*from, from + 6.0), p.clone()))
        .collect();
    let works = [
        ("the 50 s clip, whole", whole),
        (&*format!("{} passes of 6 s", streamed.len()), streamed),
    ];
    for (what, work) in works {
        let (mut one, mut all) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
        let (mut one_text, mut all_text) = (String::new(), String::new());
        for _ in 0..runs {
            for (threads, (walls, cpus), text) in [
                (Some(1), &mut one, &mut one_text),
                (None, &mut all, &mut all_text),
            ] {
                engine.set_one_token_threads(threads);
                let (mut wall, mut cpu) = (Duration::ZERO, Duration::ZERO);
                text.clear();
                for (audio, params) in &work {
                    let (w, c, t) = timed(&engine, audio, params)?;
                    wall += w;
                    cpu += c;
                    text.push_str(&t);
                }
                walls.push(wall);
                cpus.push(cpu);
            }
        }
        let (w1, wa) = (median(one.0), median(all.0));
        let (c1, ca) = (median(one.1), median(all.1));
        println!(
            "{what:<28} {:>10.0} ms {:>10.0} ms {:>6.2}x {:>10.0} ms {:>10.0} ms {:>6.2}x  {}",
            w1.as_secs_f64() * 1e3,
            wa.as_secs_f64() * 1e3,
            w1.as_secs_f64() / wa.as_secs_f64(),
            c1.as_secs_f64() * 1e3,
            ca.as_secs_f64() * 1e3,
            c1.as_secs_f64() / ca.as_secs_f64(),
            one_text == all_text
        );
    }
    engine.set_one_token_threads(chosen);
    Ok(())
}
