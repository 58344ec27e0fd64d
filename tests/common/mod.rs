//! Shared by the integration tests: the real models (installed by `scripts/setup.sh --test`),
//! loaded once per test binary, and the committed fixture folders.
#![allow(dead_code)]

pub mod cuts;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};
use whisper_dictation::whisper::{Engine, LoadOptions};

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A clip of `tests/fixtures/clips`, at 16 kHz mono.
pub fn clip(name: &str) -> Vec<f32> {
    let path = fixtures().join("clips").join(name);
    whisper_dictation::audio::wav::read_wav_16k(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `audio` transcribed by the shared engine of `model` (see [`engine`]); panics on an error.
pub fn transcribe(
    model: &'static str,
    audio: &[f32],
    params: &whisper_dictation::whisper::TranscribeParams,
) -> whisper_dictation::whisper::Transcript {
    engine(model)
        .transcribe(audio, params)
        .unwrap_or_else(|e| panic!("{model}: transcribe failed: {e}"))
}

/// What `pl_espeak.wav` says (tests/fixtures/clips/README.md).
pub const POLISH_SENTENCE: &str =
    "Jutro o dziesiątej mamy ważne spotkanie z zarządem w sali konferencyjnej.";

pub fn model_dir(name: &str) -> PathBuf {
    let dir = whisper_dictation::paths::models_dir()
        .expect("a home directory")
        .join(name);
    assert!(
        dir.join("model.bin").is_file(),
        "the test model '{name}' is not installed in {}: run scripts/setup.sh --test",
        dir.display()
    );
    dir
}

/// One engine per model for the whole test binary; tests take turns (libtorch tensors are not
/// `Sync`, and two tests decoding at once would only fight over the two cores).
type Loaded = Vec<(&'static str, &'static Mutex<Engine>)>;

pub fn engine(name: &'static str) -> MutexGuard<'static, Engine> {
    static ENGINES: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let registry = ENGINES.get_or_init(|| Mutex::new(Vec::new()));
    let engine = {
        let mut list = registry.lock().unwrap_or_else(|e| e.into_inner());
        match list.iter().find(|(n, _)| *n == name) {
            Some((_, e)) => *e,
            None => {
                let loaded = Engine::load(&model_dir(name), &LoadOptions::default())
                    .unwrap_or_else(|e| panic!("loading {name}: {e}"));
                let leaked: &'static Mutex<Engine> = Box::leak(Box::new(Mutex::new(loaded)));
                list.push((name, leaked));
                leaked
            }
        }
    };
    engine.lock().unwrap_or_else(|e| e.into_inner())
}

/// Builds `scripts/make-long-clips.sh`'s clips (idempotent: a second run only checks them)
/// into `<target>/long-clips/` and returns that folder.
pub fn long_clips_in(target: &std::path::Path) -> PathBuf {
    clips_built_by("make-long-clips.sh", &target.join("long-clips"))
}

/// Runs `scripts/<script>` (a clip builder that takes its output folder, idempotent) into
/// `dir` and returns `dir`.
pub fn clips_built_by(script: &str, dir: &std::path::Path) -> PathBuf {
    let dir = dir.to_path_buf();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(script);
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} failed:\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// The value at fraction `p` (0–1) of `sorted` (nearest rank); NaN when it is empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}
