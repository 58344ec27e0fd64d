//! `whisper-dictation bench`: every device × precision × decoding mode on one fixed Whisper
//! workload (a real clip), timed in the same run, with a recommendation: the fastest setting
//! whose text equals the CPU float32 greedy reference. A setting that fails on its device is
//! shown with the failure's category instead of a time.

use super::device_args::DeviceArgs;
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tch::Kind;
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::device::errors::classify;
use whisper_dictation::device::DeviceKind;
use whisper_dictation::paths;
use whisper_dictation::whisper::{Engine, LoadOptions, TranscribeParams};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Model directory, or the name of an installed model.
    #[arg(long, default_value = paths::DEFAULT_MODEL)]
    model: String,
    /// The workload (default: the bundled English sample).
    #[arg(long)]
    clip: Option<PathBuf>,
    /// Language of the clip.
    #[arg(long, default_value = "en")]
    language: String,
    /// Timed runs per setting (the median is reported).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Serialize)]
struct Row {
    device: DeviceKind,
    device_name: String,
    precision: &'static str,
    beam: usize,
    load_seconds: Option<f64>,
    median_seconds: Option<f64>,
    real_time_factor: Option<f64>,
    text: Option<String>,
    same_text_as_reference: bool,
    failure: Option<String>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let clip = args
        .clip
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.wav"));
    let audio = read_wav_16k(&clip)?;
    let seconds = audio.len() as f64 / 16_000.0;
    let model_dir = paths::resolve_model(&args.model)?;
    let manager = args.device.manager()?;
    let mut rows = Vec::new();
    for backend in manager.backends() {
        for precision in precisions(backend.kind, backend.simulated.is_some()) {
            for beam in [1, 5] {
                let mut row = measure(&args, &model_dir, &audio, backend.device, precision, beam)
                    .with_context(|| format!("benchmarking {}", backend.kind))?;
                row.device = backend.kind;
                row.device_name = backend.name.clone();
                row.real_time_factor = row.median_seconds.map(|s| seconds / s);
                rows.push(row);
            }
        }
    }
    let reference = rows
        .iter()
        .find(|r| r.device == DeviceKind::Cpu && r.precision == "f32" && r.beam == 1)
        .and_then(|r| r.text.clone());
    for row in &mut rows {
        row.same_text_as_reference = row.text.is_some() && row.text == reference;
    }
    let best = rows
        .iter()
        .filter(|r| r.same_text_as_reference)
        .min_by(|a, b| {
            a.median_seconds
                .unwrap_or(f64::MAX)
                .total_cmp(&b.median_seconds.unwrap_or(f64::MAX))
        });
    if args.json {
        let report = serde_json::json!({ "clip": clip, "audio_seconds": seconds, "rows": rows, "recommended": best });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "workload: {} ({seconds:.1} s of audio), model {}",
        clip.display(),
        model_dir.display()
    );
    println!(
        "{:<6} {:<14} {:<5} {:>4} {:>7} {:>8} {:>7}  same text",
        "device", "name", "prec", "beam", "load s", "median s", "× real"
    );
    for r in &rows {
        match (&r.failure, r.median_seconds) {
            (None, Some(median)) => println!(
                "{:<6} {:<14} {:<5} {:>4} {:>7.3} {:>8.3} {:>7.1}  {}",
                r.device.name(),
                r.device_name,
                r.precision,
                r.beam,
                r.load_seconds.unwrap_or(0.0),
                median,
                r.real_time_factor.unwrap_or(0.0),
                if r.same_text_as_reference {
                    "yes"
                } else {
                    "no"
                }
            ),
            (failure, _) => println!(
                "{:<6} {:<14} {:<5} {:>4}  failed: {}",
                r.device.name(),
                r.device_name,
                r.precision,
                r.beam,
                failure.as_deref().unwrap_or("unknown")
            ),
        }
    }
    match best {
        Some(b) => {
            println!(
            "recommended: {} {} {} ({:.3} s, {:.1}× real time, same text as the CPU f32 reference)",
            b.device.name(),
            b.precision,
            if b.beam > 1 { format!("beam {}", b.beam) } else { "greedy".into() },
            b.median_seconds.unwrap_or(0.0),
            b.real_time_factor.unwrap_or(0.0)
        )
        }
        None => println!("recommended: cpu f32 greedy (no faster setting reproduced its text)"),
    }
    Ok(())
}

/// Precisions worth timing on a device: float32 everywhere, bfloat16 on the CPU, float16 on
/// real GPUs (a simulated GPU computes on the CPU, where float16 is ~150x slower).
fn precisions(kind: DeviceKind, simulated: bool) -> Vec<(&'static str, Kind)> {
    match kind {
        DeviceKind::Cpu => vec![("f32", Kind::Float), ("bf16", Kind::BFloat16)],
        _ if simulated => vec![("f32", Kind::Float)],
        _ => vec![("f32", Kind::Float), ("f16", Kind::Half)],
    }
}

fn measure(
    args: &BenchArgs,
    model_dir: &std::path::Path,
    audio: &[f32],
    device: tch::Device,
    (name, precision): (&'static str, Kind),
    beam: usize,
) -> anyhow::Result<Row> {
    let mut row = Row {
        device: DeviceKind::Cpu,
        device_name: String::new(),
        precision: name,
        beam,
        load_seconds: None,
        median_seconds: None,
        real_time_factor: None,
        text: None,
        same_text_as_reference: false,
        failure: None,
    };
    let started = Instant::now();
    let engine = match Engine::load(
        model_dir,
        &LoadOptions {
            device,
            kind: precision,
        },
    ) {
        Ok(engine) => engine,
        Err(e) => {
            row.failure = Some(format!("{} ({e})", classify(&e.to_string()).name()));
            return Ok(row);
        }
    };
    row.load_seconds = Some(started.elapsed().as_secs_f64());
    let params = TranscribeParams {
        language: Some(args.language.clone()),
        temperatures: vec![0.0],
        beam_size: (beam > 1).then_some(beam),
        without_timestamps: true,
        ..TranscribeParams::default()
    };
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..=args.repeat.max(1) {
        let started = Instant::now();
        match engine.transcribe(audio, &params) {
            Ok(t) => row.text = Some(t.text.trim().to_string()),
            Err(e) => {
                row.failure = Some(format!("{} ({e})", classify(&e.to_string()).name()));
                return Ok(row);
            }
        }
        times.push(started.elapsed());
    }
    // The first run warms up; the median is over the rest.
    let mut timed = times.split_off(1);
    timed.sort();
    row.median_seconds = Some(timed[timed.len() / 2].as_secs_f64());
    Ok(row)
}
