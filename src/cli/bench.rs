//! `whisper-dictation bench`: every device × precision × decoding mode on the work the app really
//! does, timed in the same run, with a recommendation: the fastest setting whose texts equal the
//! CPU float32 greedy reference. The default workloads are the app's (`device::workload`: a short
//! and a long dictation from the sample built into the binary, so an installed app can run it).
//! Each is timed cold (the first call of the loaded model) and warm (median of the repeats). A setting that
//! fails on its device is shown with the failure's category instead of a time.

use super::device_args::DeviceArgs;
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tch::Kind;
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::device::errors::classify;
use whisper_dictation::device::workload::{dictation_workloads, Workload};
use whisper_dictation::device::DeviceKind;
use whisper_dictation::paths;
use whisper_dictation::whisper::{Engine, LoadOptions, StepWeights, TranscribeParams};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Model directory, or the name of an installed model.
    #[arg(long, default_value = paths::DEFAULT_MODEL)]
    model: String,
    /// Workload clips (repeatable; default: the built-in sample, short and long).
    #[arg(long)]
    clip: Vec<PathBuf>,
    /// Language of the clip.
    #[arg(long, default_value = "en")]
    language: String,
    /// Timed runs per setting (the median is reported).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    #[arg(long)]
    json: bool,
}

const SAMPLE_RATE: usize = 16_000;

#[derive(Debug, Clone, Serialize)]
struct Timing {
    workload: String,
    audio_seconds: f64,
    /// The first call after loading (lazy initialisation, kernel selection, graph builds).
    cold_seconds: f64,
    /// Median of the repeats after it.
    warm_seconds: f64,
    text: String,
}

#[derive(Debug, Clone, Serialize)]
struct Row {
    device: DeviceKind,
    device_name: String,
    precision: &'static str,
    beam: usize,
    load_seconds: Option<f64>,
    timings: Vec<Timing>,
    /// Warm seconds over all workloads.
    warm_total_seconds: Option<f64>,
    same_text_as_reference: bool,
    failure: Option<String>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let workloads = workloads(&args.clip)?;
    let model_dir = paths::resolve_model(&args.model)?;
    let manager = args.device.manager()?;
    let mut rows = Vec::new();
    for backend in manager.backends() {
        for precision in precisions(backend.kind, backend.simulated.is_some()) {
            for beam in [1, 5] {
                let mut row = measure(
                    &args,
                    &model_dir,
                    &workloads,
                    backend.device,
                    precision,
                    beam,
                )
                .with_context(|| format!("benchmarking {}", backend.kind))?;
                row.device = backend.kind;
                row.device_name = backend.name.clone();
                rows.push(row);
            }
        }
    }
    let texts = |r: &Row| -> Option<Vec<String>> {
        r.failure
            .is_none()
            .then(|| r.timings.iter().map(|t| t.text.clone()).collect())
    };
    let reference = rows
        .iter()
        .find(|r| r.device == DeviceKind::Cpu && r.precision == "f32" && r.beam == 1)
        .and_then(texts);
    for row in &mut rows {
        row.same_text_as_reference = reference.is_some() && texts(row) == reference;
    }
    let best = rows
        .iter()
        .filter(|r| r.same_text_as_reference)
        .min_by(|a, b| {
            a.warm_total_seconds
                .unwrap_or(f64::MAX)
                .total_cmp(&b.warm_total_seconds.unwrap_or(f64::MAX))
        });
    if args.json {
        let names: Vec<(&str, f64)> = workloads
            .iter()
            .map(|w| (w.name.as_str(), w.audio.len() as f64 / SAMPLE_RATE as f64))
            .collect();
        let report = serde_json::json!({ "workloads": names, "rows": rows, "recommended": best });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("model {}", model_dir.display());
    for w in &workloads {
        println!(
            "workload {}: {:.1} s of audio",
            w.name,
            w.audio.len() as f64 / SAMPLE_RATE as f64
        );
    }
    println!(
        "{:<6} {:<14} {:<5} {:>4} {:>7}  {:<10} {:>7} {:>7} {:>7}  same text",
        "device", "name", "prec", "beam", "load s", "workload", "cold s", "warm s", "× real"
    );
    for r in &rows {
        if let Some(failure) = &r.failure {
            println!(
                "{:<6} {:<14} {:<5} {:>4}  failed: {failure}",
                r.device.name(),
                r.device_name,
                r.precision,
                r.beam,
            );
            continue;
        }
        for (i, t) in r.timings.iter().enumerate() {
            let head = if i == 0 {
                format!(
                    "{:<6} {:<14} {:<5} {:>4} {:>7.3}",
                    r.device.name(),
                    r.device_name,
                    r.precision,
                    r.beam,
                    r.load_seconds.unwrap_or(0.0)
                )
            } else {
                format!("{:<6} {:<14} {:<5} {:>4} {:>7}", "", "", "", "", "")
            };
            println!(
                "{head}  {:<10} {:>7.3} {:>7.3} {:>7.1}  {}",
                t.workload,
                t.cold_seconds,
                t.warm_seconds,
                t.audio_seconds / t.warm_seconds.max(1e-9),
                if r.same_text_as_reference {
                    "yes"
                } else {
                    "no"
                }
            );
        }
    }
    match best {
        Some(b) => println!(
            "recommended: {} {} {} ({:.3} s warm over all workloads, same texts as the CPU f32 reference)",
            b.device.name(),
            b.precision,
            if b.beam > 1 { format!("beam {}", b.beam) } else { "greedy".into() },
            b.warm_total_seconds.unwrap_or(0.0),
        ),
        None => println!("recommended: cpu f32 greedy (no faster setting reproduced its text)"),
    }
    Ok(())
}

/// The clips given, or the app's short and long dictation workloads.
fn workloads(clips: &[PathBuf]) -> anyhow::Result<Vec<Workload>> {
    if clips.is_empty() {
        return Ok(dictation_workloads()?);
    }
    clips
        .iter()
        .map(|clip| {
            Ok(Workload {
                name: clip
                    .file_stem()
                    .map_or_else(|| "clip".into(), |s| s.to_string_lossy().into_owned()),
                audio: read_wav_16k(clip)?,
            })
        })
        .collect()
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
    model_dir: &Path,
    workloads: &[Workload],
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
        timings: Vec::new(),
        warm_total_seconds: None,
        same_text_as_reference: false,
        failure: None,
    };
    let started = Instant::now();
    let engine = match Engine::load(
        model_dir,
        &LoadOptions {
            device,
            kind: precision,
            // The app's layout (it runs at level 1 or more); other devices ignore it.
            steps: StepWeights::Int8,
        },
    ) {
        Ok(engine) => engine,
        Err(e) => {
            row.failure = Some(format!("{} ({e})", classify(&e.to_string()).name()));
            return Ok(row);
        }
    };
    row.load_seconds = Some(started.elapsed().as_secs_f64());
    // Timestamps on, as the app decodes: long audio then seeks window by window.
    let params = TranscribeParams {
        language: Some(args.language.clone()),
        temperatures: vec![0.0],
        beam_size: (beam > 1).then_some(beam),
        ..TranscribeParams::default()
    };
    for workload in workloads {
        let mut times: Vec<Duration> = Vec::new();
        let mut text = String::new();
        for _ in 0..=args.repeat.max(1) {
            let started = Instant::now();
            match engine.transcribe(&workload.audio, &params) {
                Ok(t) => text = t.text.trim().to_string(),
                Err(e) => {
                    row.failure = Some(format!("{} ({e})", classify(&e.to_string()).name()));
                    return Ok(row);
                }
            }
            times.push(started.elapsed());
        }
        let cold = times.remove(0);
        times.sort();
        row.timings.push(Timing {
            workload: workload.name.clone(),
            audio_seconds: workload.audio.len() as f64 / SAMPLE_RATE as f64,
            cold_seconds: cold.as_secs_f64(),
            warm_seconds: times[times.len() / 2].as_secs_f64(),
            text,
        });
    }
    row.warm_total_seconds = Some(row.timings.iter().map(|t| t.warm_seconds).sum());
    Ok(row)
}
