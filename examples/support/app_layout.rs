//! The examples' engine as the app loads it on the CPU: `base` (or the directory given) in the
//! app's layout for this CPU (bfloat16 where the CPU computes it natively, int8 decoder steps),
//! with the CPU class printed first.

use std::path::PathBuf;
use tch::Kind;
use whisper_dictation::device::cpu_class::CpuClass;
use whisper_dictation::whisper::{Engine, LoadOptions, StepWeights};

/// Loads the model in `dir` (default: the installed `base`) as the app's CPU worker does.
pub fn load_engine(dir: Option<String>) -> anyhow::Result<Engine> {
    let dir = dir.map(PathBuf::from).unwrap_or_else(|| {
        whisper_dictation::paths::models_dir()
            .map(|d| d.join("base"))
            .unwrap_or_else(|_| PathBuf::from("base"))
    });
    let class = CpuClass::detect();
    println!("CPU: {class} ({})", class.app_layout());
    let kind = if class.native_bf16 {
        Kind::BFloat16
    } else {
        Kind::Float
    };
    Ok(Engine::load(
        &dir,
        &LoadOptions {
            kind,
            steps: StepWeights::Int8,
            ..LoadOptions::default()
        },
    )?)
}
