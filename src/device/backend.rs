//! Which compute backends this process has, in the order `auto` prefers them (MPS, CUDA, CPU),
//! and which one the user asked for (flag, environment variable, setting). A simulated GPU
//! (see [`super::simulated`]) stands in for a real one of its kind.

use super::simulated::SimulatedGpu;
use super::DeviceKind;
use tch::Device;

/// Environment variable that overrides the device setting (`auto`, `cpu`, `cuda`, `mps`).
pub const DEVICE_ENV: &str = "WHISPER_DICTATION_DEVICE";

/// One usable backend.
#[derive(Debug, Clone, PartialEq)]
pub struct Backend {
    pub kind: DeviceKind,
    /// Where tensors go (the CPU for a simulated GPU).
    pub device: Device,
    /// What users are told, e.g. "M1", "CUDA (NVIDIA)", "ROCm (AMD)", "CPU".
    pub name: String,
    pub simulated: Option<SimulatedGpu>,
}

impl Backend {
    pub fn cpu() -> Self {
        Backend {
            kind: DeviceKind::Cpu,
            device: Device::Cpu,
            name: "CPU".to_string(),
            simulated: None,
        }
    }

    fn simulated(gpu: SimulatedGpu) -> Self {
        Backend {
            kind: gpu.kind,
            device: Device::Cpu,
            name: gpu.name.clone(),
            simulated: Some(gpu),
        }
    }
}

/// The backends of this process, preferred first; the CPU is always last.
pub fn detect(simulated: Option<SimulatedGpu>) -> Vec<Backend> {
    let mut found = Vec::new();
    if tch::utils::has_mps() {
        found.push(Backend {
            kind: DeviceKind::Mps,
            device: Device::Mps,
            name: crate::platform::apple_chip_name().unwrap_or_else(|| "Apple".to_string()),
            simulated: None,
        });
    }
    if tch::Cuda::is_available() {
        found.push(Backend {
            kind: DeviceKind::Cuda,
            device: Device::Cuda(0),
            name: cuda_name(&libtorch_version()).to_string(),
            simulated: None,
        });
    }
    if let Some(gpu) = simulated {
        found.retain(|b| b.kind != gpu.kind);
        found.push(Backend::simulated(gpu));
    }
    found.sort_by_key(|b| preference(b.kind));
    found.push(Backend::cpu());
    found
}

/// `auto` order: MPS first (Apple Silicon is the main platform), then CUDA, then the CPU.
pub fn preference(kind: DeviceKind) -> u8 {
    match kind {
        DeviceKind::Mps => 0,
        DeviceKind::Cuda => 1,
        DeviceKind::Cpu => 2,
    }
}

/// A ROCm build of libtorch answers to the CUDA API; its version string says which it is.
pub fn cuda_name(libtorch_version: &str) -> &'static str {
    if libtorch_version.contains("rocm") || libtorch_version.contains("hip") {
        "ROCm (AMD)"
    } else {
        "CUDA (NVIDIA)"
    }
}

/// The libtorch version this binary was built against (its `build-version` file, e.g.
/// "2.13.0" or "2.13.0+rocm6.3"), read at run time when the build folder still exists.
pub fn libtorch_version() -> String {
    option_env!("WHISPER_DICTATION_LIBTORCH_DIR")
        .map(|dir| std::path::Path::new(dir).join("build-version"))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| TORCH_SYS_LIBTORCH_VERSION.to_string())
}

/// The libtorch version torch-sys 0.26 requires (its build checks it), used when the build
/// folder is gone (an installed app).
pub const TORCH_SYS_LIBTORCH_VERSION: &str = "2.13.0";

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceChoice {
    Auto,
    Only(DeviceKind),
}

impl DeviceChoice {
    pub fn parse(text: &str) -> Option<Self> {
        if text.trim().eq_ignore_ascii_case("auto") {
            return Some(DeviceChoice::Auto);
        }
        DeviceKind::parse(text).map(DeviceChoice::Only)
    }
}

/// Where the effective choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChoiceSource {
    Flag,
    Environment,
    Setting,
    Default,
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{source_name}: unknown device '{value}' (use auto, cpu, cuda or mps)")]
pub struct ChoiceError {
    pub source_name: &'static str,
    pub value: String,
}

/// The flag wins over the environment variable, which wins over the setting.
pub fn resolve_choice(
    flag: Option<&str>,
    env: Option<&str>,
    setting: Option<&str>,
) -> Result<(DeviceChoice, ChoiceSource), ChoiceError> {
    let layers = [
        (flag, ChoiceSource::Flag, "--device"),
        (env, ChoiceSource::Environment, DEVICE_ENV),
        (setting, ChoiceSource::Setting, "the device setting"),
    ];
    for (value, source, source_name) in layers {
        let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let choice = DeviceChoice::parse(value).ok_or_else(|| ChoiceError {
            source_name,
            value: value.to_string(),
        })?;
        return Ok((choice, source));
    }
    Ok((DeviceChoice::Auto, ChoiceSource::Default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_the_cpu_last_and_a_simulated_gpu_first() {
        let plain = detect(None);
        assert_eq!(plain.last().unwrap().kind, DeviceKind::Cpu);
        let gpu = SimulatedGpu::parse("mps,name=M2").unwrap();
        let with_sim = detect(Some(gpu));
        assert_eq!(with_sim[0].kind, DeviceKind::Mps);
        assert_eq!(with_sim[0].name, "M2");
        assert_eq!(
            with_sim[0].device,
            Device::Cpu,
            "a simulated GPU computes on the CPU"
        );
        assert_eq!(with_sim.last().unwrap().kind, DeviceKind::Cpu);
    }

    #[test]
    fn rocm_builds_are_named_as_such() {
        assert_eq!(cuda_name("2.13.0+rocm6.3"), "ROCm (AMD)");
        assert_eq!(cuda_name("2.13.0"), "CUDA (NVIDIA)");
        assert!(libtorch_version().starts_with("2.13.0"));
    }

    #[test]
    fn flag_beats_environment_beats_setting() {
        let r = resolve_choice(Some("cpu"), Some("mps"), Some("cuda")).unwrap();
        assert_eq!(r, (DeviceChoice::Only(DeviceKind::Cpu), ChoiceSource::Flag));
        let r = resolve_choice(None, Some("MPS"), Some("cuda")).unwrap();
        assert_eq!(
            r,
            (
                DeviceChoice::Only(DeviceKind::Mps),
                ChoiceSource::Environment
            )
        );
        let r = resolve_choice(None, Some(" "), Some("auto")).unwrap();
        assert_eq!(r, (DeviceChoice::Auto, ChoiceSource::Setting));
        assert_eq!(
            resolve_choice(None, None, None).unwrap(),
            (DeviceChoice::Auto, ChoiceSource::Default)
        );
        let err = resolve_choice(None, Some("tpu"), None).unwrap_err();
        assert!(err.to_string().contains(DEVICE_ENV) && err.to_string().contains("tpu"));
    }
}
