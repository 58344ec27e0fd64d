//! Building the device manager's configuration from the layers a user can set: command-line
//! overrides, then environment variables, then the settings file, then defaults. Shared by the
//! CLI commands and the menu-bar app so both choose devices the same way.

use super::backend::{resolve_choice, ChoiceError, DEVICE_ENV};
use super::history::BackoffPolicy;
use super::manager::ManagerConfig;
use super::simulated::{SimulatedGpu, SpecError};
use super::tuning::OptimizationLevel;
use crate::i18n::UiLang;
use crate::settings::Settings;
use std::path::PathBuf;
use tch::Kind;

/// Overrides the GPU retry backoff's first delay in seconds (tests and demos).
pub const BACKOFF_ENV: &str = "WHISPER_DICTATION_GPU_BACKOFF_SECS";

/// What a command line may override; `None` = not given.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub device: Option<String>,
    /// The precision for whichever device the model goes to (`--precision`).
    pub precision: Option<Kind>,
    pub optimize: Option<u8>,
    pub ui_lang: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Choice(#[from] ChoiceError),
    #[error(transparent)]
    Simulated(#[from] SpecError),
    #[error("{BACKOFF_ENV}: '{0}' is not a number of seconds")]
    Backoff(String),
}

/// `f32`, `f16` or `bf16` as written in the settings; anything else leaves it to the level.
fn precision_setting(text: &str) -> Option<Kind> {
    match text.trim().to_ascii_lowercase().as_str() {
        "f32" => Some(Kind::Float),
        "f16" => Some(Kind::Half),
        "bf16" => Some(Kind::BFloat16),
        _ => None,
    }
}

/// The UI language: an override, else the setting, else the system locale.
pub fn ui_lang(overridden: Option<&str>, settings: &Settings) -> UiLang {
    match overridden.or(Settings::non_empty(&settings.ui_lang)) {
        Some(lang) => UiLang::parse(lang),
        None => UiLang::detect(),
    }
}

/// The manager's configuration for `state_dir` from the overrides, the environment and the
/// settings. `probe_exe` is this app's binary (GPU probes run in a child process).
pub fn manager_config(
    state_dir: PathBuf,
    settings: &Settings,
    overrides: &Overrides,
    probe_exe: Option<PathBuf>,
) -> Result<ManagerConfig, SetupError> {
    let env_choice = std::env::var(DEVICE_ENV).ok();
    let (choice, _) = resolve_choice(
        overrides.device.as_deref(),
        env_choice.as_deref(),
        Settings::non_empty(&settings.device),
    )?;
    let mut config = ManagerConfig::new(state_dir);
    config.choice = choice;
    config.lang = ui_lang(overrides.ui_lang.as_deref(), settings);
    config.simulated = SimulatedGpu::from_env()?;
    config.probe_exe = probe_exe;
    config.cpu_precision = overrides
        .precision
        .or_else(|| precision_setting(&settings.cpu_precision));
    config.gpu_precision = overrides
        .precision
        .or_else(|| precision_setting(&settings.gpu_precision));
    let level = overrides.optimize.unwrap_or(settings.optimize);
    config.optimization = OptimizationLevel::from_number(level).unwrap_or(OptimizationLevel::Safe);
    if let Ok(secs) = std::env::var(BACKOFF_ENV) {
        let base_secs = secs
            .trim()
            .parse()
            .map_err(|_| SetupError::Backoff(secs.clone()))?;
        config.backoff = BackoffPolicy {
            base_secs,
            ..BackoffPolicy::default()
        };
    }
    Ok(config)
}
