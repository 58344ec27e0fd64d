//! What the committed text as Whisper's previous text costs a streamed dictation's pass: the
//! app's own worker (its settings, the model's CPU layout for this CPU, the fast encoding)
//! transcribes the project's short clips with no previous text and with the last N characters
//! of the 50 s clip's text as previous text (a pass after a pause commit gets up to
//! `stream::PROMPT_CHARS` of it), and prints the engine's time by prompt length, median of
//! several runs, with the ratio to no prompt and the words each gave.
//!
//!     cargo run --release --example prompt_cost -- [RUNS (5)] [MODEL (base)]
//!
//! The CPU class is printed first; `ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2` make a
//! bf16 machine compute as one without.

#[path = "support/app_worker.rs"]
mod app_worker;

use app_worker::WAIT;
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;
use whisper_dictation::app::wording::Wording;
use whisper_dictation::app::worker::{
    params_from, Job, JobAudio, Outcome, WorkerCommand, WorkerEvent,
};
use whisper_dictation::audio::wav::read_wav_16k;
const CLIPS: [&str; 4] = ["en_kal", "en_slt", "en_rms", "pl_espeak"];
const PROMPTS: [usize; 4] = [0, 200, 400, 800];

fn main() -> anyhow::Result<()> {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(Ok(5), |n| n.parse())?;
    let model = args.next().unwrap_or_else(|| "base".to_string());
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    let texts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("texts.json"))?)?;
    let committed = texts["en_long_50s.wav"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let app_worker::Ready {
        worker,
        events: rx,
        settings,
        state: _state,
    } = app_worker::start(&model)?;
    let wording = Arc::new(Wording::from_settings(&settings));
    println!(
        "{:<10} {:>7} {:>10} {:>7}  text",
        "clip", "prompt", "engine", "ratio"
    );
    let mut id = 0;
    for clip in CLIPS {
        let audio = read_wav_16k(&dir.join(format!("{clip}.wav")))?;
        let mut base = None;
        for chars in PROMPTS {
            let mut params = params_from(&settings);
            params.initial_prompt = (chars > 0).then(|| last_chars(&committed, chars));
            let mut times = Vec::new();
            let mut text = String::new();
            // One run more than asked: the first of each shape warms its kernels.
            for run in 0..=runs {
                id += 1;
                worker.send(WorkerCommand::Transcribe(Job {
                    id,
                    audio: JobAudio::Recorded(audio.clone().into()),
                    params: params.clone(),
                    wording: wording.clone(),
                    journal: None,
                }));
                let (outcome, engine) = done(&rx, id)?;
                if run > 0 {
                    times.push(engine);
                }
                if let Outcome::Text(t) = outcome {
                    text = t;
                }
            }
            times.sort();
            let median = times[times.len() / 2].as_secs_f64();
            let base = *base.get_or_insert(median);
            println!(
                "{clip:<10} {chars:>7} {:>9.0}ms {:>7.2}  {text}",
                median * 1000.0,
                median / base
            );
        }
    }
    drop(worker);
    Ok(())
}

/// The last `chars` characters of `text`, from a word's start.
fn last_chars(text: &str, chars: usize) -> String {
    let skip = text.chars().count().saturating_sub(chars);
    let tail: String = text.chars().skip(skip).collect();
    match tail.split_once(' ') {
        Some((_, rest)) if skip > 0 => rest.to_string(),
        _ => tail,
    }
}

fn done(rx: &mpsc::Receiver<WorkerEvent>, id: u64) -> anyhow::Result<(Outcome, Duration)> {
    loop {
        if let WorkerEvent::Done {
            id: done,
            outcome,
            engine,
            ..
        } = rx.recv_timeout(WAIT)?
        {
            if done == id {
                return Ok((outcome, engine));
            }
        }
    }
}
