//! Per-device settings and the optimisation levels of the platform design:
//! - level 0, safe: f32 everywhere (the reference's numbers), cuDNN's autotuner on CUDA (same
//!   numbers, faster kernels);
//! - level 1, hardware-specific: on the CPU, int8 rows for the decoder's memory-bound step
//!   weights (chosen in `transcriber`), and bfloat16 on CPUs that compute it natively (AVX-512
//!   BF16, AMX, Arm BF16; `cpu_class` says which, and what capped it). TF32 on Ampere CUDA would belong here, but tch exposes no switch for it. GPUs
//!   stay on f32: half precision was measured up to 17x slower on real decoding on an H100
//!   (cuDNN re-plans attention for every new key length), so it must earn its place at level 2;
//! - level 2, benchmark-guided: time the candidate settings (precision × thread count; float16
//!   only on GPUs whose float16 probe passed) on the app's real workload (a short and a long
//!   dictation, cold and warm: `workload`), keep the fastest, and cache the choice per device
//!   and versions.
//!
//! The user can also name the precision (`--precision`, the `cpu_precision` and
//! `gpu_precision` settings); float16 on the CPU is refused (about 150x slower there).
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

/// The precision level 0 or 1 uses (level 2 starts from it and times the alternatives).
pub fn precision_for(level: OptimizationLevel, caps: Capabilities) -> Kind {
    let hardware = level >= OptimizationLevel::Hardware;
    match caps.kind {
        DeviceKind::Cpu if hardware && caps.cpu_native_bf16 => Kind::BFloat16,
        _ => Kind::Float,
    }
}

/// A precision the user named for `kind`, or why it cannot be used there.
pub fn chosen_precision(kind: DeviceKind, chosen: Kind, runs_on_cpu: bool) -> Result<Kind, String> {
    let computes_on_cpu = kind == DeviceKind::Cpu || runs_on_cpu;
    if chosen == Kind::Half && computes_on_cpu {
        return Err("float16 on the CPU is about 150x slower than float32; using f32".into());
    }
    Ok(chosen)
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
            crate::private_files::create_dir_all(dir)?;
        }
        crate::atomic_file::write(&self.path, text.as_bytes())
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
            Kind::Float,
            "GPUs stay on f32 even when float16 passes its probe"
        );
        let hw = OptimizationLevel::Hardware;
        assert_eq!(precision_for(hw, caps(DeviceKind::Cpu)), Kind::BFloat16);
        assert_eq!(precision_for(hw, caps(DeviceKind::Mps)), Kind::Float);
        assert_eq!(precision_for(hw, caps(DeviceKind::Cuda)), Kind::Float);
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
    fn a_named_precision_is_kept_except_float16_on_the_cpu() {
        assert_eq!(
            chosen_precision(DeviceKind::Cuda, Kind::Half, false),
            Ok(Kind::Half)
        );
        assert_eq!(
            chosen_precision(DeviceKind::Mps, Kind::BFloat16, false),
            Ok(Kind::BFloat16)
        );
        assert_eq!(
            chosen_precision(DeviceKind::Cpu, Kind::BFloat16, false),
            Ok(Kind::BFloat16)
        );
        assert!(chosen_precision(DeviceKind::Cpu, Kind::Half, false).is_err());
        assert!(
            chosen_precision(DeviceKind::Mps, Kind::Half, true).is_err(),
            "a simulated GPU computes on the CPU"
        );
    }

    #[test]
    fn level_two_keeps_f32_when_half_precision_loses_on_the_long_workload() {
        // Recorded on an H100 (issue 7): f16 wins the short clip but re-plans attention for
        // every new key length on the long one.
        use crate::device::workload::{score, WorkloadTime};
        let ms = Duration::from_millis;
        let f32_times = [
            WorkloadTime {
                cold: ms(550),
                warm: ms(60),
            },
            WorkloadTime {
                cold: ms(700),
                warm: ms(590),
            },
        ];
        let f16_times = [
            WorkloadTime {
                cold: ms(600),
                warm: ms(48),
            },
            WorkloadTime {
                cold: ms(10_200),
                warm: ms(400),
            },
        ];
        let cands = candidates(caps(DeviceKind::Cuda), 16);
        assert!(cands.iter().any(|c| c.precision == "f16"), "{cands:?}");
        let (best, _) = fastest(&cands, &mut |c| {
            Some(score(if c.precision == "f16" {
                &f16_times
            } else {
                &f32_times
            }))
        })
        .unwrap();
        assert_eq!(best.precision, "f32");
        // Where half precision is faster on both, it is chosen.
        let quick_f16 = [
            WorkloadTime {
                cold: ms(500),
                warm: ms(40),
            },
            WorkloadTime {
                cold: ms(600),
                warm: ms(350),
            },
        ];
        let (best, _) = fastest(&cands, &mut |c| {
            Some(score(if c.precision == "f16" {
                &quick_f16
            } else {
                &f32_times
            }))
        })
        .unwrap();
        assert_eq!(best.precision, "f16");
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
