//! The device options every model-running command shares, and building the device manager
//! from them (flag → environment → setting → auto; simulated GPU from the environment).

use anyhow::Context;
use clap::{Args, ValueEnum};
use whisper_dictation::device::backend::{resolve_choice, DEVICE_ENV};
use whisper_dictation::device::history::BackoffPolicy;
use whisper_dictation::device::manager::{DeviceManager, ManagerConfig};
use whisper_dictation::device::simulated::SimulatedGpu;
use whisper_dictation::device::tuning::OptimizationLevel;
use whisper_dictation::i18n::UiLang;
use whisper_dictation::paths;
use whisper_dictation::settings::Settings;

/// Overrides the GPU retry backoff's first delay in seconds (tests and demos).
const BACKOFF_ENV: &str = "WHISPER_DICTATION_GPU_BACKOFF_SECS";

#[derive(Debug, Args)]
pub struct DeviceArgs {
    /// Where to run: auto (MPS, then CUDA, then CPU), cpu, cuda or mps.
    /// Also WHISPER_DICTATION_DEVICE.
    #[arg(long)]
    device: Option<String>,
    /// Weight precision on the CPU: f32 (reference results) or bf16 (faster on CPUs with
    /// native bfloat16, slightly different numerics). Default: the setting, else by --optimize.
    #[arg(long, value_enum)]
    precision: Option<Precision>,
    /// Optimisation level: 0 safe (reference precision), 1 hardware-specific (bf16 on CPUs
    /// with native bfloat16), 2 benchmark-guided. Default: the setting, else 0.
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
    Bf16,
}

impl DeviceArgs {
    pub fn manager(&self) -> anyhow::Result<DeviceManager> {
        if let Some(threads) = self.threads {
            tch::set_num_threads(i32::from(threads));
        }
        let state_dir = paths::state_dir()?;
        let (settings, warning) = Settings::load(&state_dir);
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
        let env_choice = std::env::var(DEVICE_ENV).ok();
        let (choice, _) = resolve_choice(
            self.device.as_deref(),
            env_choice.as_deref(),
            Settings::non_empty(&settings.device),
        )?;
        let mut config = ManagerConfig::new(state_dir);
        config.choice = choice;
        config.lang = match self
            .ui_lang
            .as_deref()
            .or(Settings::non_empty(&settings.ui_lang))
        {
            Some(lang) => UiLang::parse(lang),
            None => UiLang::detect(),
        };
        config.simulated = SimulatedGpu::from_env()?;
        config.probe_exe = std::env::current_exe().ok();
        config.cpu_precision = match (self.precision, settings.cpu_precision.as_str()) {
            (Some(Precision::F32), _) | (None, "f32") => Some(tch::Kind::Float),
            (Some(Precision::Bf16), _) | (None, "bf16") => Some(tch::Kind::BFloat16),
            _ => None,
        };
        let level = self.optimize.unwrap_or(settings.optimize);
        config.optimization =
            OptimizationLevel::from_number(level).unwrap_or(OptimizationLevel::Safe);
        if let Ok(secs) = std::env::var(BACKOFF_ENV) {
            let base_secs = secs
                .trim()
                .parse()
                .with_context(|| format!("{BACKOFF_ENV}: '{secs}' is not a number of seconds"))?;
            config.backoff = BackoffPolicy {
                base_secs,
                ..BackoffPolicy::default()
            };
        }
        Ok(DeviceManager::open(config))
    }
}

/// Prints device messages for the user on stderr (stdout carries the transcript).
pub fn print_notices(notices: &[String]) {
    for notice in notices {
        eprintln!("{notice}");
    }
}
