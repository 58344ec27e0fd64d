//! Where a transcription's time goes, stage by stage, on the real model: the encoder's window,
//! the cross-attention keys/values, and one decoder step split into the layers and the
//! vocabulary projection. The figures behind BENCHMARKS.md's per-step numbers.
//!
//! `cargo run --release --example decoder_step -- [f32|f32i8|bf16] [MODEL_DIR]` (default: bf16 and the
//! installed `base`); 2 threads, three rounds of 20 steps on `tests/fixtures/clips/en_kal.wav`.

use std::path::PathBuf;
use std::time::Instant;
use tch::{Kind, Tensor};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{mel, Engine, LoadOptions, StepWeights};

const STEPS: i64 = 20;

fn main() -> anyhow::Result<()> {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    tch::set_num_threads(2);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, steps) = match args.first().map(String::as_str) {
        Some("f32") => (Kind::Float, StepWeights::Float),
        Some("f32i8") => (Kind::Float, StepWeights::Int8),
        _ => (Kind::BFloat16, StepWeights::Int8),
    };
    let dir = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
        whisper_dictation::paths::models_dir()
            .map(|d| d.join("base"))
            .unwrap_or_else(|_| PathBuf::from("base"))
    });
    let started = Instant::now();
    let engine = Engine::load(
        &dir,
        &LoadOptions {
            kind,
            steps,
            ..LoadOptions::default()
        },
    )?;
    println!(
        "{} at {kind:?}: load {:.3} s",
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    let model = engine.model();
    let specials = engine.tokenizer().specials();
    let samples = read_wav_16k("tests/fixtures/clips/en_kal.wav".as_ref())?;
    let n_mels = model.dims().n_mels;
    let window = mel::log_mel_spectrogram(&samples, n_mels).window(0, 3000);
    let mel = Tensor::from_slice(&window).view([1, n_mels as i64, 3000]);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    tch::no_grad(|| -> anyhow::Result<()> {
        let _ = model.encode(&mel)?; // first call: kernel set-up
        for _ in 0..3 {
            let t = Instant::now();
            let features = model.encode(&mel)?;
            let encode = ms(t);
            let t = Instant::now();
            let mut state = model.start_decoding(&features, 1)?;
            let cross = ms(t);
            let sot = Tensor::from_slice(&[i64::from(specials.sot)]).view([1, 1]);
            let mut hidden = model.decode(&sot, &mut state)?;
            let (mut layers, mut projection) = (0.0, 0.0);
            for step in 0..STEPS {
                let t = Instant::now();
                let _logits = Vec::<f32>::try_from(model.logits(&hidden)?.view([-1]))?;
                projection += ms(t);
                let t = Instant::now();
                // Ordinary text tokens; which ones does not change the work.
                let token = Tensor::from_slice(&[440 + step]).view([1, 1]);
                hidden = model.decode(&token, &mut state)?;
                layers += ms(t);
            }
            let steps = STEPS as f64;
            println!(
                "encode {encode:.1} ms | cross-attention keys/values {cross:.1} ms | step: layers {:.2} ms + vocabulary projection {:.2} ms",
                layers / steps,
                projection / steps
            );
        }
        Ok(())
    })
}
