//! Per-device settings and the optimisation levels of the platform design:
//! - level 0, safe: f32 on the CPU (the reference's numbers), float16 on a GPU only where its
//!   probe shows float16 computes correctly (else f32), cuDNN's autotuner on CUDA (same
//!   numbers, faster kernels);
//! - level 1, hardware-specific: also bfloat16 on CPUs that compute it natively (AVX-512 BF16,
//!   Arm BF16). TF32 on Ampere CUDA would belong here, but tch exposes no switch for it;
//! - level 2, benchmark-guided: time the candidate settings (precision × thread count) on a
//!   short real workload, keep the fastest, and cache the choice per device and versions.
//!
//! Also the decoding defaults per device.

use super::DeviceKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tch::Kind;

/// Where level-2 choices are cached, in the app's state folder.
pub const TUNING_FILE: &str = "tuning-cache.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum OptimizationLevel {
    #[default]
    Safe = 0,
    Hardware = 1,
    Benchmarked = 2,
}

impl OptimizationLevel {
    pub fn from_number(n: u8) -> Option<Self> {
        match n {
            0 => Some(OptimizationLevel::Safe),
            1 => Some(OptimizationLevel::Hardware),
            2 => Some(OptimizationLevel::Benchmarked),
            _ => None,
        }
    }
}

/// One combination level 2 can time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// `f32`, `bf16` or `f16`.
    pub precision: &'static str,
    pub threads: usize,
}

/// What the hardware offers, as far as precision goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub kind: DeviceKind,
    /// The CPU computes bfloat16 natively.
    pub cpu_native_bf16: bool,
    /// The GPU's float16 probe passed.
    pub gpu_half_ok: bool,
    /// The device computes on the CPU (a simulated GPU): float16 there is ~150x slower.
    pub runs_on_cpu: bool,
}

/// The precision level 0 or 1 uses.
pub fn precision_for(level: OptimizationLevel, caps: Capabilities) -> Kind {
    let hardware = level >= OptimizationLevel::Hardware;
    match caps.kind {
        DeviceKind::Cpu if hardware && caps.cpu_native_bf16 => Kind::BFloat16,
        DeviceKind::Cpu => Kind::Float,
        _ if caps.runs_on_cpu => Kind::Float,
        _ if caps.gpu_half_ok => Kind::Half,
        _ => Kind::Float,
    }
}

/// The settings level 2 tries on `caps`' device: precisions the hardware can run at speed,
/// and 1 thread up to all cores (on a GPU the thread count only drives the CPU-side work).
pub fn candidates(caps: Capabilities, cores: usize) -> Vec<Candidate> {
    let mut precisions = vec!["f32"];
    match caps.kind {
        DeviceKind::Cpu if caps.cpu_native_bf16 => precisions.push("bf16"),
        DeviceKind::Cpu => {}
        _ if caps.gpu_half_ok && !caps.runs_on_cpu => precisions.push("f16"),
        _ => {}
    }
    let mut threads = vec![cores.max(1)];
    if cores > 1 && caps.kind == DeviceKind::Cpu {
        threads.push(cores / 2);
    }
    precisions
        .into_iter()
        .flat_map(|p| {
            threads.iter().map(move |&t| Candidate {
                precision: p,
                threads: t,
            })
        })
        .collect()
}

/// Times every candidate with `measure` (best of its runs) and returns the fastest with all
/// timings; a candidate that fails to run is skipped.
pub fn fastest(
    candidates: &[Candidate],
    measure: &mut dyn FnMut(&Candidate) -> Option<Duration>,
) -> Option<(Candidate, Vec<(Candidate, Duration)>)> {
    let timings: Vec<(Candidate, Duration)> = candidates
        .iter()
        .filter_map(|c| measure(c).map(|d| (*c, d)))
        .collect();
    let best = timings.iter().min_by_key(|(_, d)| *d)?.0;
    Some((best, timings))
}

/// Level-2 choices on disk, keyed by device, model and versions.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TuningCache {
    #[serde(default)]
    choices: BTreeMap<String, CachedChoice>,
    #[serde(skip)]
    path: PathBuf,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CachedChoice {
    pub precision: String,
    pub threads: usize,
    pub seconds: f64,
}

impl TuningCache {
    /// Reads the cache; a missing or damaged file gives an empty cache.
    pub fn load(dir: &Path) -> Self {
        let path = dir.join(TUNING_FILE);
        let mut cache: TuningCache = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        cache.path = path;
        cache
    }

    pub fn key(kind: DeviceKind, model: &str, libtorch: &str) -> String {
        format!(
            "{kind}|{model}|libtorch {libtorch}|app {}",
            env!("CARGO_PKG_VERSION")
        )
    }

    pub fn get(&self, key: &str) -> Option<&CachedChoice> {
        self.choices.get(key)
    }

    /// Stores a choice and writes the file atomically (temp name, then rename).
    pub fn insert(&mut self, key: String, choice: CachedChoice) -> std::io::Result<()> {
        self.choices.insert(key, choice);
        let text = serde_json::to_string_pretty(self)?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp-{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.path)
    }
}

/// Decoding defaults per device (`None` = greedy). GPUs: greedy, the ADR's choice. CPU: the ADR
/// proposed beam 5 for tiny/base "or what benchmarks justify"; `whisper-dictation bench` on
/// this project's 2-core test machine (base, 5.1 s sample) measured beam 5 at 0.79 s vs 0.68 s
/// greedy in f32 and 1.11 s vs 0.56 s in bf16, with the same text, and on the parity clips it
/// never fixed a greedy error (en_awb came out differently wrong), so the CPU stays greedy:
/// dictation latency matters more.
pub fn default_beam_size(kind: DeviceKind) -> Option<usize> {
    match kind {
        DeviceKind::Cpu | DeviceKind::Cuda | DeviceKind::Mps => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(kind: DeviceKind) -> Capabilities {
        Capabilities {
            kind,
            cpu_native_bf16: true,
            gpu_half_ok: true,
            runs_on_cpu: false,
        }
    }

    #[test]
    fn level_zero_keeps_the_cpu_on_f32_and_level_one_uses_its_bf16() {
        let safe = OptimizationLevel::Safe;
        assert_eq!(precision_for(safe, caps(DeviceKind::Cpu)), Kind::Float);
        assert_eq!(
            precision_for(safe, caps(DeviceKind::Mps)),
            Kind::Half,
            "probe-cleared f16"
        );
        let hw = OptimizationLevel::Hardware;
        assert_eq!(precision_for(hw, caps(DeviceKind::Cpu)), Kind::BFloat16);
        assert_eq!(precision_for(hw, caps(DeviceKind::Mps)), Kind::Half);
        let no_bf16 = Capabilities {
            cpu_native_bf16: false,
            ..caps(DeviceKind::Cpu)
        };
        assert_eq!(precision_for(hw, no_bf16), Kind::Float);
        let bad_half = Capabilities {
            gpu_half_ok: false,
            ..caps(DeviceKind::Cuda)
        };
        assert_eq!(precision_for(hw, bad_half), Kind::Float);
        let simulated = Capabilities {
            runs_on_cpu: true,
            ..caps(DeviceKind::Mps)
        };
        assert_eq!(precision_for(hw, simulated), Kind::Float);
    }

    #[test]
    fn level_two_times_every_candidate_and_keeps_the_fastest() {
        let cands = candidates(caps(DeviceKind::Cpu), 2);
        assert_eq!(cands.len(), 4, "f32/bf16 × 2/1 threads: {cands:?}");
        let mut seen = Vec::new();
        let (best, timings) = fastest(&cands, &mut |c| {
            seen.push(*c);
            let ms = match (c.precision, c.threads) {
                ("bf16", 2) => 100,
                ("bf16", _) => 150,
                _ => 300,
            };
            Some(Duration::from_millis(ms))
        })
        .unwrap();
        assert_eq!(
            best,
            Candidate {
                precision: "bf16",
                threads: 2
            }
        );
        assert_eq!(timings.len(), 4);
        assert_eq!(seen, cands);
        assert!(fastest(&cands, &mut |_| None).is_none());
    }

    #[test]
    fn cache_round_trips_atomically_and_keys_include_versions() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = TuningCache::load(dir.path());
        let key = TuningCache::key(DeviceKind::Cpu, "base", "2.13.0");
        assert!(key.contains("2.13.0") && key.contains(env!("CARGO_PKG_VERSION")));
        let choice = CachedChoice {
            precision: "bf16".into(),
            threads: 2,
            seconds: 0.4,
        };
        cache.insert(key.clone(), choice.clone()).unwrap();
        assert_eq!(TuningCache::load(dir.path()).get(&key), Some(&choice));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "no temp files left");
        std::fs::write(dir.path().join(TUNING_FILE), "{broken").unwrap();
        assert!(TuningCache::load(dir.path()).get(&key).is_none());
    }
}
