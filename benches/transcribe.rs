//! Transcription speed, ours against faster-whisper (float32) in the same run on the same clips:
//! `cargo bench --bench transcribe` (or `scripts/bench.sh`, which also installs the peer).
//! Prints per clip: the median time and its stages (mel, encoder, decoder), the word error rate
//! against the clip's text (`tests/fixtures/clips/texts.json`), faster-whisper's time and WER
//! and the ratio; then the median and the slowest clip of each, the resident memory with the
//! model loaded and the time from load to warm. Asserts nothing about time.
//!
//! Options (after `--`): `--model NAME|DIR` (base), `--threads N` (2), `--repeat N` (5),
//! `--beam N` (1), `--precision f32,app` (f32: exact float32, the reference's numbers; f32i8:
//! float32 with int8 decoder step weights, the app's layout on CPUs without native bf16;
//! bf16: the app's layout on CPUs with it; app: whichever of the two the app picks on this
//! CPU, which the first line printed names), `--padding full,primed` (full: the
//! reference's 30 s windows; primed: `PaddingEncoding::Primed`, the app's fast encoding),
//! `--language CODE` (en), `--no-peer`, `--no-timestamps` (text tokens only, the parity tests'
//! mode: long audio then advances by whole 30 s windows and loses words, in both engines), and
//! clip paths (default: the English test clips). Timestamps are on
//! by default, as in the app. f32 reproduces the reference's tokens.
//! The peer is `scripts/fw-bench.py`, run with `$FW_PYTHON` or the project's Python venv.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::device::cpu_class::{CpuClass, ATEN_CAPABILITY_ENV, ONEDNN_ISA_ENV};
use whisper_dictation::paths;
use whisper_dictation::wer::wer_percent;
use whisper_dictation::whisper::{
    Engine, LoadOptions, PaddingEncoding, StepWeights, TranscribeParams, Transcript,
};

struct Options {
    model: String,
    threads: usize,
    repeat: usize,
    beam: usize,
    precisions: Vec<String>,
    paddings: Vec<PaddingEncoding>,
    language: String,
    peer: bool,
    timestamps: bool,
    clips: Vec<PathBuf>,
}

fn parse_args() -> Options {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut o = Options {
        model: paths::DEFAULT_MODEL.to_string(),
        threads: 2,
        repeat: 5,
        beam: 1,
        precisions: vec!["f32".to_string(), "app".to_string()],
        paddings: vec![PaddingEncoding::Full],
        language: "en".to_string(),
        peer: true,
        timestamps: true,
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
            "--padding" => o.paddings = value("--padding").split(',').map(padding_of).collect(),
            "--language" => o.language = value("--language"),
            "--no-peer" => o.peer = false,
            "--no-timestamps" => o.timestamps = false,
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
        .args([
            "--threads",
            &o.threads.to_string(),
            "--language",
            &o.language,
        ])
        .args([
            "--beam",
            &o.beam.to_string(),
            "--repeat",
            &o.repeat.to_string(),
        ])
        .args(o.timestamps.then_some("--timestamps"))
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

fn padding_of(name: &str) -> PaddingEncoding {
    match name {
        "full" => PaddingEncoding::Full,
        "primed" => PaddingEncoding::Primed,
        other => panic!("unknown padding {other} (full or primed)"),
    }
}

/// The layout `app` names on this CPU: `bf16` with native bf16, else `f32i8`.
fn apps_layout(cpu: &CpuClass) -> &'static str {
    if cpu.native_bf16 {
        "bf16"
    } else {
        "f32i8"
    }
}

/// The load options of a `--precision` name: `f32` (exact, the reference's numbers), `f32i8`
/// (the app's layout on CPUs without native bf16: float32 with int8 step weights), `bf16` (the
/// app's layout on CPUs with it).
fn load_options_of(precision: &str) -> LoadOptions {
    let (kind, steps) = match precision {
        "f32" => (tch::Kind::Float, StepWeights::Float),
        "f32i8" => (tch::Kind::Float, StepWeights::Int8),
        "bf16" => (tch::Kind::BFloat16, StepWeights::Int8),
        other => panic!("unknown precision {other} (f32, f32i8, bf16 or app)"),
    };
    LoadOptions {
        kind,
        steps,
        ..LoadOptions::default()
    }
}

/// The CPU's model name (`/proc/cpuinfo`), for the figures' heading.
fn cpu_model_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn main() {
    // As the app runs: idle OpenMP threads sleep, oneDNN's kernel cache is bounded (see the
    // functions).
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    whisper_dictation::device::kernel_cache::bound();
    let o = parse_args();
    tch::set_num_threads(o.threads as i32);
    let model_dir = paths::resolve_model(&o.model).expect("model (run scripts/setup.sh)");
    let params = TranscribeParams {
        language: Some(o.language.clone()),
        temperatures: vec![0.0],
        beam_size: (o.beam > 1).then_some(o.beam),
        without_timestamps: !o.timestamps,
        ..TranscribeParams::default()
    };
    let clips: Vec<(PathBuf, Vec<f32>)> = o
        .clips
        .iter()
        .map(|c| (c.clone(), read_wav_16k(c).expect("clip readable")))
        .collect();
    let texts = reference_texts(&o.clips);
    let peer = if o.peer {
        run_peer(&o, &model_dir)
    } else {
        None
    };
    let cpu = CpuClass::detect();
    println!(
        "CPU: {} ({}), {cpu}{}",
        cpu_model_name(),
        std::env::consts::ARCH,
        [ONEDNN_ISA_ENV, ATEN_CAPABILITY_ENV]
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| format!(", {name}={v}")))
            .collect::<String>()
    );
    println!(
        "resident memory before loading a model: {:.0} MB",
        resident_mb("VmRSS")
    );
    for precision in &o.precisions {
        for &padding in &o.paddings {
            let (layout, named) = match precision.as_str() {
                "app" => (apps_layout(&cpu), format!("app ({})", apps_layout(&cpu))),
                other => (other, other.to_string()),
            };
            let load = load_options_of(layout);
            let started = Instant::now();
            let engine = Engine::load(&model_dir, &load).expect("model loads");
            let params = TranscribeParams {
                padding,
                ..params.clone()
            };
            report(
                &o,
                &named,
                &engine,
                started,
                &params,
                &clips,
                &texts,
                peer.as_deref(),
            );
        }
    }
}

/// The spoken text of each clip, from `texts.json` beside it (`None` where it has none).
fn reference_texts(clips: &[PathBuf]) -> Vec<Option<String>> {
    clips
        .iter()
        .map(|clip| {
            let texts = clip.parent()?.join("texts.json");
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(texts).ok()?).ok()?;
            let name = clip.file_name()?.to_str()?;
            json[name].as_str().map(str::to_string)
        })
        .collect()
}

/// A field of `/proc/self/status` in MB (`VmRSS` now, `VmHWM` the peak); NaN off Linux.
fn resident_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn median_and_max(values: &mut [f64]) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    match values {
        [] => (f64::NAN, f64::NAN),
        v => (v[v.len() / 2], v[v.len() - 1]),
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    o: &Options,
    precision: &str,
    engine: &Engine,
    load_started: Instant,
    params: &TranscribeParams,
    clips: &[(PathBuf, Vec<f32>)],
    texts: &[Option<String>],
    peer: Option<&[PeerResult]>,
) {
    // Warm-up: first-call allocations and libtorch's lazy initialisation.
    engine.transcribe(&clips[0].1, params).expect("warm-up");
    let ready = load_started.elapsed();
    println!(
        "\nours at {precision} | padding {:?} | model {} | {} threads | greedy={} | timestamps={} | repeat {} | \
         load {:.3} s, \
         load + first transcription {:.3} s | resident {:.0} MB",
        params.padding,
        engine.dir().display(),
        o.threads,
        o.beam <= 1,
        o.timestamps,
        o.repeat,
        engine.load_time().as_secs_f64(),
        ready.as_secs_f64(),
        resident_mb("VmRSS"),
    );
    let ours: Vec<Measured> = clips
        .iter()
        .map(|(_, audio)| measure(engine, audio, params, o.repeat))
        .collect();
    println!(
        "{:<22} {:>6} {:>9} {:>9} {:>7} {:>7} {:>7} {:>6} {:>9} {:>6} {:>7}",
        "clip",
        "audio",
        "ours med",
        "ours min",
        "mel",
        "encode",
        "decode",
        "WER%",
        "fw med",
        "fw WER",
        "ratio"
    );
    let mut ratios = Vec::new();
    let mut ours_times = Vec::new();
    let mut fw_times = Vec::new();
    let (mut ours_wer, mut fw_wer) = (Vec::new(), Vec::new());
    for (i, ((path, audio), m)) in clips.iter().zip(&ours).enumerate() {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let t = &m.last.timings;
        ours_times.push(m.median.as_secs_f64());
        let wer = |text: &str| texts[i].as_deref().map(|r| wer_percent(r, text));
        let our_wer = wer(&m.last.text);
        ours_wer.extend(our_wer);
        let (fw, fw_w, ratio) = match peer.map(|p| &p[i]) {
            Some(p) => {
                let r = m.median.as_secs_f64() / p.median;
                ratios.push(r);
                fw_times.push(p.median);
                let w = wer(&p.text);
                fw_wer.extend(w);
                (
                    format!("{:.3}", p.median),
                    w.map_or("-".into(), |w| format!("{w:.1}")),
                    format!("{r:.2}"),
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "{:<22} {:>5.1}s {:>8.3}s {:>8.3}s {:>6.3}s {:>6.3}s {:>6.3}s {:>6} {:>8}s {:>6} {:>7}",
            name,
            audio.len() as f64 / 16_000.0,
            m.median.as_secs_f64(),
            m.min.as_secs_f64(),
            t.mel.as_secs_f64(),
            t.encode.as_secs_f64(),
            t.decode.as_secs_f64(),
            our_wer.map_or("-".into(), |w| format!("{w:.1}")),
            fw,
            fw_w,
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
    let (ours_median, ours_max) = median_and_max(&mut ours_times);
    let (fw_median, fw_max) = median_and_max(&mut fw_times);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let peer_summary = if fw_times.is_empty() {
        "no faster-whisper run".to_string()
    } else {
        format!(
            "faster-whisper median {fw_median:.3} s, slowest {fw_max:.3} s, mean WER {:.1} %",
            mean(&fw_wer)
        )
    };
    println!(
        "over the clips: ours median {ours_median:.3} s, slowest {ours_max:.3} s, mean WER \
         {:.1} % | {peer_summary} | resident {:.0} MB (peak {:.0} MB)",
        mean(&ours_wer),
        resident_mb("VmRSS"),
        resident_mb("VmHWM"),
    );
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
