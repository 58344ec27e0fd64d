//! Transcription speed, ours against faster-whisper (float32) in the same run on the same clips:
//! `cargo bench --bench transcribe` (or `scripts/bench.sh`, which also installs the peer).
//! Prints per-clip medians and the ratio ours / faster-whisper; asserts nothing about time.
//!
//! Options (after `--`): `--model NAME|DIR` (base), `--threads N` (2), `--repeat N` (5),
//! `--beam N` (1), `--precision f32,bf16` (both), `--no-peer`, and clip paths (default: the
//! English test clips). f32 reproduces the reference's tokens; bf16 is the fast CPU option.
//! The peer is `scripts/fw-bench.py`, run with `$FW_PYTHON` or the project's Python venv.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::paths;
use whisper_dictation::whisper::{Engine, LoadOptions, TranscribeParams, Transcript};

struct Options {
    model: String,
    threads: usize,
    repeat: usize,
    beam: usize,
    precisions: Vec<String>,
    peer: bool,
    clips: Vec<PathBuf>,
}

fn parse_args() -> Options {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut o = Options {
        model: paths::DEFAULT_MODEL.to_string(),
        threads: 2,
        repeat: 5,
        beam: 1,
        precisions: vec!["f32".to_string(), "bf16".to_string()],
        peer: true,
        clips: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| panic!("{name} needs a value"))
        };
        match a.as_str() {
            "--model" => o.model = value("--model"),
            "--threads" => o.threads = value("--threads").parse().expect("--threads N"),
            "--repeat" => o.repeat = value("--repeat").parse().expect("--repeat N"),
            "--beam" => o.beam = value("--beam").parse().expect("--beam N"),
            "--precision" => {
                o.precisions = value("--precision")
                    .split(',')
                    .map(str::to_string)
                    .collect()
            }
            "--no-peer" => o.peer = false,
            "--bench" => {} // added by `cargo bench`
            other if other.starts_with("--") => panic!("unknown option {other}"),
            clip => o.clips.push(PathBuf::from(clip)),
        }
    }
    if o.clips.is_empty() {
        let dir = root.join("tests/fixtures/clips");
        for name in [
            "en_kal",
            "en_slt",
            "en_awb",
            "en_rms",
            "en_fest_slt_hts",
            "en_espeak",
            "en_noisy_pink10db",
            "en_long_50s",
        ] {
            o.clips.push(dir.join(format!("{name}.wav")));
        }
    }
    o
}

struct Measured {
    median: Duration,
    min: Duration,
    last: Transcript,
}

fn measure(engine: &Engine, audio: &[f32], params: &TranscribeParams, repeat: usize) -> Measured {
    let mut times = Vec::with_capacity(repeat);
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let started = Instant::now();
        let t = engine.transcribe(audio, params).expect("transcription");
        times.push(started.elapsed());
        last = Some(t);
    }
    times.sort();
    Measured {
        median: times[times.len() / 2],
        min: times[0],
        last: last.expect("at least one run"),
    }
}

struct PeerResult {
    median: f64,
    text: String,
}

/// Runs faster-whisper on the same clips; `None` (with a note) when it is not installed.
fn run_peer(o: &Options, model_dir: &Path) -> Option<Vec<PeerResult>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var("FW_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let output = Command::new(python)
        .arg(root.join("scripts/fw-bench.py"))
        .args(["--model".as_ref(), model_dir.as_os_str()])
        .args(["--threads", &o.threads.to_string(), "--language", "en"])
        .args([
            "--beam",
            &o.beam.to_string(),
            "--repeat",
            &o.repeat.to_string(),
        ])
        .args(&o.clips)
        .output();
    let output = match output {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            eprintln!(
                "faster-whisper peer unavailable: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            return None;
        }
        Err(e) => {
            eprintln!("faster-whisper peer unavailable: {e}");
            return None;
        }
    };
    let results = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| PeerResult {
            median: v["seconds_median"].as_f64().unwrap_or(f64::NAN),
            text: v["text"].as_str().unwrap_or("").trim().to_string(),
        })
        .collect::<Vec<_>>();
    (results.len() == o.clips.len()).then_some(results)
}

fn kind_of(precision: &str) -> tch::Kind {
    match precision {
        "f32" => tch::Kind::Float,
        "bf16" => tch::Kind::BFloat16,
        other => panic!("unknown precision {other} (f32 or bf16)"),
    }
}

fn main() {
    let o = parse_args();
    tch::set_num_threads(o.threads as i32);
    let model_dir = paths::resolve_model(&o.model).expect("model (run scripts/setup.sh)");
    let params = TranscribeParams {
        language: Some("en".to_string()),
        temperatures: vec![0.0],
        beam_size: (o.beam > 1).then_some(o.beam),
        without_timestamps: true,
        ..TranscribeParams::default()
    };
    let clips: Vec<(PathBuf, Vec<f32>)> = o
        .clips
        .iter()
        .map(|c| (c.clone(), read_wav_16k(c).expect("clip readable")))
        .collect();
    let peer = if o.peer {
        run_peer(&o, &model_dir)
    } else {
        None
    };
    for precision in &o.precisions {
        let load = LoadOptions {
            kind: kind_of(precision),
            ..LoadOptions::default()
        };
        let engine = Engine::load(&model_dir, &load).expect("model loads");
        report(&o, precision, &engine, &params, &clips, peer.as_deref());
    }
}

fn report(
    o: &Options,
    precision: &str,
    engine: &Engine,
    params: &TranscribeParams,
    clips: &[(PathBuf, Vec<f32>)],
    peer: Option<&[PeerResult]>,
) {
    // Warm-up: first-call allocations and libtorch's lazy initialisation.
    engine.transcribe(&clips[0].1, params).expect("warm-up");
    println!(
        "\nours at {precision} | model {} | {} threads | greedy={} | repeat {} | load {:.3} s",
        engine.dir().display(),
        o.threads,
        o.beam <= 1,
        o.repeat,
        engine.load_time().as_secs_f64()
    );
    let ours: Vec<Measured> = clips
        .iter()
        .map(|(_, audio)| measure(engine, audio, params, o.repeat))
        .collect();
    println!(
        "{:<22} {:>6} {:>9} {:>9} {:>7} {:>7} {:>7} {:>9} {:>7}",
        "clip", "audio", "ours med", "ours min", "mel", "encode", "decode", "fw med", "ratio"
    );
    let mut ratios = Vec::new();
    for (i, ((path, audio), m)) in clips.iter().zip(&ours).enumerate() {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let t = &m.last.timings;
        let (fw, ratio) = match peer.map(|p| &p[i]) {
            Some(p) => {
                let r = m.median.as_secs_f64() / p.median;
                ratios.push(r);
                (format!("{:.3}", p.median), format!("{r:.2}"))
            }
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:<22} {:>5.1}s {:>8.3}s {:>8.3}s {:>6.3}s {:>6.3}s {:>6.3}s {:>8}s {:>7}",
            name,
            audio.len() as f64 / 16_000.0,
            m.median.as_secs_f64(),
            m.min.as_secs_f64(),
            t.mel.as_secs_f64(),
            t.encode.as_secs_f64(),
            t.decode.as_secs_f64(),
            fw,
            ratio
        );
        if let Some(p) = peer.map(|p| &p[i]) {
            if p.text != m.last.text.trim() {
                println!(
                    "  texts differ: ours {:?} / fw {:?}",
                    m.last.text.trim(),
                    p.text
                );
            }
        }
    }
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        println!(
            "ours ({precision}) / faster-whisper (f32) time: median ratio {:.2} (min {:.2}, max {:.2}); below 1 means we are faster",
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1]
        );
    }
}
