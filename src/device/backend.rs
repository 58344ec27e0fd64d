//! Which compute backends this process has, in the order `auto` prefers them (MPS, CUDA, CPU),
//! and which one the user asked for (flag, environment variable, setting). A simulated GPU
//! (see [`super::simulated`]) stands in for a real one of its kind.

use super::simulated::SimulatedGpu;
use super::DeviceKind;
use std::path::Path;
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

/// The version of the libtorch this process has loaded (e.g. "2.13.0", "2.13.0+cu130",
/// "2.13.0+rocm6.3"): read next to the library the dynamic loader actually picked, so a
/// different libtorch at run time is reported as itself. Falls back to the build's libtorch
/// folder, then to the version torch-sys requires.
pub fn libtorch_version() -> String {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| {
            let loaded = crate::platform::loaded_library_dir("libtorch_cpu")
                .and_then(|lib| version_in_libtorch_lib_dir(&lib));
            let built = || {
                option_env!("WHISPER_DICTATION_LIBTORCH_DIR")
                    .and_then(|dir| version_in_libtorch_lib_dir(&Path::new(dir).join("lib")))
            };
            loaded
                .or_else(built)
                .unwrap_or_else(|| TORCH_SYS_LIBTORCH_VERSION.to_string())
        })
        .clone()
}

/// The version recorded beside a libtorch `lib/` folder: `build-version` in a libtorch
/// distribution (and in the one `scripts/setup.sh` assembles), or `version.py` in a Python
/// `torch` package (`__version__ = '2.13.0+cu130'`).
pub fn version_in_libtorch_lib_dir(lib_dir: &Path) -> Option<String> {
    let root = lib_dir.parent()?;
    if let Ok(text) = std::fs::read_to_string(root.join("build-version")) {
        let version = text.trim();
        if !version.is_empty() {
            return Some(version.to_string());
        }
    }
    let python = std::fs::read_to_string(root.join("version.py")).ok()?;
    python.lines().find_map(|line| {
        let value = line.trim().strip_prefix("__version__")?.trim_start();
        let value = value.strip_prefix('=')?.trim();
        let quoted = value.trim_matches(|c| c == '\'' || c == '"');
        (!quoted.is_empty() && quoted.len() < value.len()).then(|| quoted.to_string())
    })
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
    fn the_version_is_read_beside_the_loaded_library() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("lib");
        std::fs::create_dir(&lib).unwrap();
        assert_eq!(version_in_libtorch_lib_dir(&lib), None);
        std::fs::write(
            dir.path().join("version.py"),
            "__version__ = '2.13.0+cu130'\ndebug = False\n",
        )
        .unwrap();
        assert_eq!(
            version_in_libtorch_lib_dir(&lib).as_deref(),
            Some("2.13.0+cu130")
        );
        std::fs::write(dir.path().join("build-version"), "2.13.0+rocm6.3\n").unwrap();
        assert_eq!(
            version_in_libtorch_lib_dir(&lib).as_deref(),
            Some("2.13.0+rocm6.3")
        );
    }

    #[test]
    fn this_process_reports_the_libtorch_it_loaded() {
        let lib = crate::platform::loaded_library_dir("libtorch_cpu")
            .expect("libtorch_cpu is loaded (tch is linked)");
        assert!(lib
            .join(if crate::platform::IS_MACOS {
                "libtorch_cpu.dylib"
            } else {
                "libtorch_cpu.so"
            })
            .exists());
        assert_eq!(Some(libtorch_version()), version_in_libtorch_lib_dir(&lib));
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
