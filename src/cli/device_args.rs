//! The device options every model-running command shares, and building the device manager
//! from them (flag → environment → setting → auto; simulated GPU from the environment).

use clap::{Args, ValueEnum};
use whisper_dictation::device::manager::DeviceManager;
use whisper_dictation::device::setup::{manager_config, Overrides};
use whisper_dictation::paths;
use whisper_dictation::settings::Settings;

#[derive(Debug, Args)]
pub struct DeviceArgs {
    /// Where to run: auto (MPS, then CUDA, then CPU), cpu, cuda or mps.
    /// Also WHISPER_DICTATION_DEVICE.
    #[arg(long)]
    device: Option<String>,
    /// Weight precision on the device the model goes to: f32 (reference results), f16 (GPUs;
    /// refused on the CPU, where it is ~150x slower) or bf16 (CPUs with native bfloat16, recent
    /// GPUs). Default: the cpu_precision / gpu_precision setting, else by --optimize.
    #[arg(long, value_enum)]
    precision: Option<Precision>,
    /// Optimisation level: 0 safe (reference precision), 1 hardware-specific (the app's CPU
    /// layout: int8 decoder weights, and bf16 on CPUs with native bfloat16), 2
    /// benchmark-guided. Default: the setting, else 0 (at least 1 with transcribe --as-app).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=2))]
    optimize: Option<u8>,
    /// CPU threads for libtorch (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Language of device messages: pl or en (default: from the system locale).
    #[arg(long)]
    ui_lang: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Precision {
    F32,
    F16,
    Bf16,
}

impl DeviceArgs {
    /// The manager for these options.
    pub fn manager(&self) -> anyhow::Result<DeviceManager> {
        self.manager_at_least(0)
    }

    /// The manager for these options, at optimisation level `min_optimize` or more (the
    /// app's level for `transcribe --as-app`).
    pub fn manager_at_least(&self, min_optimize: u8) -> anyhow::Result<DeviceManager> {
        if let Some(threads) = self.threads {
            tch::set_num_threads(i32::from(threads));
        }
        let state_dir = paths::state_dir()?;
        let (settings, warning) = Settings::load(&state_dir);
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
        let overrides = Overrides {
            device: self.device.clone(),
            precision: self.precision.map(|p| match p {
                Precision::F32 => tch::Kind::Float,
                Precision::F16 => tch::Kind::Half,
                Precision::Bf16 => tch::Kind::BFloat16,
            }),
            optimize: Some(self.optimize.unwrap_or(settings.optimize).max(min_optimize)),
            ui_lang: self.ui_lang.clone(),
        };
        let config = manager_config(
            state_dir,
            &settings,
            &overrides,
            std::env::current_exe().ok(),
        )?;
        Ok(DeviceManager::open(config))
    }
}

/// Prints device messages for the user on stderr (stdout carries the transcript).
pub fn print_notices(notices: &[String]) {
    for notice in notices {
        eprintln!("{notice}");
    }
}
