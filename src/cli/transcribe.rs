//! `whisper-dictation transcribe FILE...`: loads a model once and prints what each file says,
//! as text or as JSON lines with segments, language and timings.

use super::device_args::{print_notices, DeviceArgs};
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;
use whisper_dictation::app::verdict;
use whisper_dictation::app::wording::{self, Wording};
use whisper_dictation::audio::level::{GateConfig, Level};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::device::tuning::default_beam_size;
use whisper_dictation::paths;
use whisper_dictation::settings::Settings;
use whisper_dictation::transcriber::{padding_on, Transcriber};
use whisper_dictation::whisper::tokenizer::lookup_language;
use whisper_dictation::whisper::{
    PaddingEncoding, Segment, Task, TranscribeParams, Transcript, Withheld,
};

#[derive(Debug, Args)]
pub struct TranscribeArgs {
    /// WAV files (any sample rate, bit depth and channel count).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Model directory, or the name of an installed model.
    #[arg(long, default_value = paths::DEFAULT_MODEL)]
    model: String,
    /// Spoken language (pl, en, …), or auto to detect it.
    #[arg(long, default_value = "auto")]
    language: String,
    /// With --language auto: choose only among these, e.g. pl,en.
    #[arg(long, value_delimiter = ',')]
    detect_among: Vec<String>,
    #[arg(long, value_enum, default_value_t = TaskArg::Transcribe)]
    task: TaskArg,
    /// Beam search width (1 = greedy; default: the device's decoding default).
    #[arg(long)]
    beam: Option<usize>,
    /// Initial prompt: names, jargon, spelling the text should follow.
    #[arg(long)]
    prompt: Option<String>,
    /// Text only, no timestamp tokens (windows then advance by whole 30 s).
    #[arg(long)]
    no_timestamps: bool,
    /// Decode at temperature 0 only (no fallback to higher temperatures).
    #[arg(long)]
    no_fallback: bool,
    /// Decode as the dictation app does: keep a window's best attempt or nothing, at most 8
    /// tokens per second of audio, fallback attempts time-limited (OpenAI's rules otherwise),
    /// in the app's CPU layout (--optimize 1 at least).
    #[arg(long)]
    as_app: bool,
    /// How audio of up to 30 s is encoded: exact (Whisper's whole 30 s window, the reference)
    /// or fast (only the audio's part; the app's default on the CPU). Default: exact; with
    /// --as-app, as the app does.
    #[arg(long, value_enum)]
    encoder: Option<EncoderArg>,
    /// With --as-app: the person's words, comma-separated (given to Whisper with the prompt,
    /// near misses written their way), as the `vocabulary` setting.
    #[arg(long, value_delimiter = ',', requires = "as_app")]
    vocabulary: Vec<String>,
    /// With --as-app: a JSON file of replacements, `{"cube control": "kubectl"}`, as the
    /// `replacements` setting.
    #[arg(long, requires = "as_app")]
    replacements: Option<PathBuf>,
    #[command(flatten)]
    device: DeviceArgs,
    /// Print one JSON object per file.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EncoderArg {
    Exact,
    Fast,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TaskArg {
    Transcribe,
    Translate,
}

#[derive(Serialize)]
struct JsonTimings {
    load: f64,
    audio: f64,
    mel: f64,
    encoder: f64,
    decoder: f64,
    total: f64,
    windows: usize,
    attempts: usize,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    file: &'a std::path::Path,
    model: &'a std::path::Path,
    device: &'a str,
    notices: &'a [String],
    text: &'a str,
    language: &'a str,
    language_probability: Option<f32>,
    duration: f32,
    segments: &'a [Segment],
    /// Windows that gave no text, with Whisper's figures.
    withheld: &'a [Withheld],
    timings: JsonTimings,
}

pub fn run(args: TranscribeArgs) -> anyhow::Result<()> {
    if args.beam == Some(0) {
        bail!("--beam must be at least 1 (1 = greedy)");
    }
    for name in std::iter::once(&args.language)
        .filter(|l| *l != "auto")
        .chain(&args.detect_among)
    {
        if lookup_language(name).is_none() {
            bail!("unknown language '{name}' (use a code such as pl or en, or an English name)");
        }
    }
    let mut params = params_from(&args);
    // `--as-app`: the text goes through the app's wording (verdict, spoken commands, fillers,
    // vocabulary, replacements) with the app's default settings and these words.
    let wording = args.as_app.then(|| app_wording(&args)).transpose()?;
    if args.as_app {
        params.initial_prompt =
            wording::prompt(args.prompt.as_deref().unwrap_or(""), &args.vocabulary);
    }
    // Read every file first, so a missing or unsupported file fails before the model loads.
    let mut inputs = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let started = Instant::now();
        let samples = read_wav_16k(file)?;
        inputs.push((file, samples, started.elapsed()));
    }
    let model_dir = paths::resolve_model(&args.model)?;
    // `--as-app` computes in the app's CPU layout too.
    let min_optimize = if args.as_app {
        whisper_dictation::app::worker::APP_MIN_OPTIMIZATION
    } else {
        0
    };
    let manager = args.device.manager_at_least(min_optimize)?;
    let loaded = Transcriber::load(&model_dir, manager);
    let mut transcriber =
        loaded.with_context(|| format!("cannot load the model in {}", model_dir.display()))?;
    // Load-time messages are printed now and, in JSON, reported with the first file.
    let mut pending = transcriber.take_notices();
    print_notices(&pending);
    if args.beam.is_none() {
        params.beam_size = default_beam_size(transcriber.device());
    }
    if args.as_app && args.encoder.is_none() {
        params.padding = padding_on(transcriber.device(), PaddingEncoding::Primed);
    }
    for (file, samples, audio_time) in inputs {
        let started = Instant::now();
        let seconds = samples.len() as f32 / 16_000.0;
        let params = if args.as_app {
            params.clone().for_dictation(seconds)
        } else {
            params.clone()
        };
        let result = transcriber.transcribe(&samples, &params);
        let fresh = transcriber.take_notices();
        print_notices(&fresh);
        let mut notices = std::mem::take(&mut pending);
        notices.extend(fresh);
        let mut transcript =
            result.with_context(|| format!("{}: transcription failed", file.display()))?;
        if let Some(wording) = &wording {
            let gate = GateConfig::default();
            let level = Level::measure(&samples, 16_000, &gate);
            let words =
                verdict::gate(&level, &gate).and_then(|()| wording.words(&transcript, &level));
            transcript.text = match words {
                Ok(text) => text,
                Err(empty) => {
                    eprintln!("{}: no text ({})", file.display(), empty.reason());
                    String::new()
                }
            };
        }
        let total = started.elapsed() + audio_time;
        if args.json {
            let times = (audio_time.as_secs_f64(), total.as_secs_f64());
            print_json(file, &transcriber, &transcript, &notices, times)?;
        } else {
            println!("{}", transcript.text.trim());
        }
    }
    Ok(())
}

/// The app's wording with its default settings, the `--vocabulary` words and the
/// `--replacements` file.
fn app_wording(args: &TranscribeArgs) -> anyhow::Result<Wording> {
    let mut settings = Settings {
        vocabulary: args.vocabulary.clone(),
        ..Settings::default()
    };
    if let Some(file) = &args.replacements {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the replacements file {}", file.display()))?;
        settings.replacements = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a JSON object of phrases and their replacements \
                 ({{\"cube control\": \"kubectl\"}})",
                file.display()
            )
        })?;
    }
    Ok(Wording::from_settings(&settings))
}

fn params_from(args: &TranscribeArgs) -> TranscribeParams {
    let mut params = TranscribeParams {
        language: (args.language != "auto").then(|| args.language.clone()),
        detect_among: args.detect_among.clone(),
        task: match args.task {
            TaskArg::Transcribe => Task::Transcribe,
            TaskArg::Translate => Task::Translate,
        },
        beam_size: args.beam.filter(|&b| b > 1),
        initial_prompt: args.prompt.clone(),
        without_timestamps: args.no_timestamps,
        // `--as-app` without `--encoder` is settled once the device is known.
        padding: match args.encoder {
            Some(EncoderArg::Fast) => PaddingEncoding::Primed,
            Some(EncoderArg::Exact) | None => PaddingEncoding::Full,
        },
        ..TranscribeParams::default()
    };
    if args.no_fallback {
        params.temperatures = vec![0.0];
    }
    params
}

fn print_json(
    file: &std::path::Path,
    transcriber: &Transcriber,
    t: &Transcript,
    notices: &[String],
    (audio, total): (f64, f64),
) -> anyhow::Result<()> {
    let engine = transcriber.engine();
    let report = JsonReport {
        file,
        model: engine.dir(),
        device: transcriber.device().name(),
        notices,
        text: t.text.trim(),
        language: &t.language,
        language_probability: t.language_probability,
        duration: t.duration,
        segments: &t.segments,
        withheld: &t.withheld,
        timings: JsonTimings {
            load: engine.load_time().as_secs_f64(),
            audio,
            mel: t.timings.mel.as_secs_f64(),
            encoder: t.timings.encode.as_secs_f64(),
            decoder: t.timings.decode.as_secs_f64(),
            total,
            windows: t.timings.windows,
            attempts: t.timings.attempts,
        },
    };
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
