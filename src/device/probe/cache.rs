//! The probe cache: reports remembered across launches in `probe-cache.json`, keyed by
//! everything that could change the answer ([`ProbeKey`]: libtorch version, device, simulation,
//! precision, app version, and the OS version, since MPS's kernels ship with macOS). A report
//! may also carry the verdict of the model's own output on the device (the warm-up's words, see
//! [`crate::device::manager::DeviceManager::wrong_results`]): it then fails until one of those
//! changes. Written atomically; a damaged file is ignored with a warning and probed again.

use super::{precision_name, ProbeReport, ProbeTarget, APP_VERSION};
use crate::device::simulated::SimulatedGpu;
use crate::device::DeviceKind;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The file name of the probe cache inside its directory.
pub const CACHE_FILE_NAME: &str = "probe-cache.json";

/// Everything a cached report depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeKey {
    pub libtorch_version: String,
    pub kind: DeviceKind,
    /// The simulated GPU's canonical spec, for a simulated device.
    pub simulated: Option<String>,
    pub precision: String,
    pub app_version: String,
    /// The operating system's version ([`crate::platform::os_version`]: on macOS the product
    /// version and build, e.g. "14.4.1 (23E224)"; `None` elsewhere). MPS's kernels are part of
    /// macOS, so an OS update can fix a wrong result or bring one: it is probed again. A file
    /// written before this field existed reads as `None` (probed again on a Mac).
    #[serde(default)]
    pub os_version: Option<String>,
}

impl ProbeKey {
    /// The key of `target` with this build's libtorch and app versions, on this OS version.
    pub fn for_target(target: &ProbeTarget) -> Self {
        Self::for_target_on(target, this_os_version())
    }

    /// The key of `target` with this build's libtorch and app versions on `os_version`.
    pub fn for_target_on(target: &ProbeTarget, os_version: Option<String>) -> Self {
        ProbeKey {
            libtorch_version: crate::device::backend::libtorch_version(),
            kind: target.kind,
            simulated: target.simulated.as_ref().map(simulated_spec),
            precision: precision_name(target.precision),
            app_version: APP_VERSION.to_string(),
            os_version,
        }
    }
}

/// The OS version, asked once per process (on macOS it runs `sysctl`).
fn this_os_version() -> Option<String> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    VERSION.get_or_init(crate::platform::os_version).clone()
}

/// A simulated GPU written back in `WHISPER_DICTATION_SIMULATE_GPU` grammar.
fn simulated_spec(gpu: &SimulatedGpu) -> String {
    let mut items = vec![gpu.kind.name().to_string(), format!("name={}", gpu.name)];
    for (op, category) in &gpu.fail {
        let category = serde_json::to_value(category)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{category:?}"));
        items.push(format!("fail={op}:{category}"));
    }
    items.extend(gpu.abort.iter().map(|(op, at)| format!("abort={op}@{at}")));
    items.extend(gpu.corrupt.iter().map(|check| format!("corrupt={check}")));
    items.extend(gpu.wrong.iter().map(|part| format!("wrong={part}")));
    items.join(",")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CacheEntry {
    key: ProbeKey,
    report: ProbeReport,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    #[serde(default)]
    entries: Vec<CacheEntry>,
}

/// Probe reports remembered across launches, in `probe-cache.json`.
#[derive(Debug)]
pub struct ProbeCache {
    path: PathBuf,
    entries: Vec<CacheEntry>,
    warning: Option<String>,
}

impl ProbeCache {
    /// The cache in `dir`: empty when the file is missing, and empty with a warning (logged, and
    /// kept for [`ProbeCache::warning`]) when it cannot be read or parsed.
    pub fn load(dir: &Path) -> Self {
        let path = dir.join(CACHE_FILE_NAME);
        let (entries, warning) = match read_cache_file(&path) {
            Ok(file) => (file.entries, None),
            Err(message) => {
                tracing::warn!("{message}");
                (Vec::new(), Some(message))
            }
        };
        ProbeCache {
            path,
            entries,
            warning,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the file on disk was ignored, if it was.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, key: &ProbeKey) -> Option<&ProbeReport> {
        self.entries
            .iter()
            .find(|entry| &entry.key == key)
            .map(|entry| &entry.report)
    }

    /// Remembers `report` under `key`, replacing an earlier report for the same key.
    pub fn insert(&mut self, key: ProbeKey, report: ProbeReport) {
        self.entries.retain(|entry| entry.key != key);
        self.entries.push(CacheEntry { key, report });
    }

    /// Writes the cache atomically: a temporary file in the same directory, then a rename, so a
    /// crash mid-write leaves the previous file intact.
    pub fn save(&self) -> io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        crate::private_files::create_dir_all(dir)?;
        let file = CacheFile {
            entries: self.entries.clone(),
        };
        let json = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
        crate::atomic_file::write(&self.path, &json)
    }
}

fn read_cache_file(path: &Path) -> Result<CacheFile, String> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(CacheFile::default()),
        Err(err) => {
            return Err(format!(
                "cannot read {}: {err}; probing again",
                path.display()
            ))
        }
    };
    serde_json::from_str(&text)
        .map_err(|err| format!("ignoring corrupt {}: {err}; probing again", path.display()))
}

#[cfg(test)]
mod tests {
    use super::super::{CheckResult, Deviation};
    use super::*;
    use tch::Kind;

    fn simulated(spec: &str, precision: Kind) -> ProbeTarget {
        ProbeTarget::simulated(SimulatedGpu::parse(spec).expect("valid spec"), precision)
    }

    fn sample_report(precision: &str) -> ProbeReport {
        ProbeReport {
            kind: DeviceKind::Mps,
            precision: precision.to_string(),
            checks: vec![CheckResult::pass(
                "basic",
                Deviation {
                    max_abs: 1e-7,
                    relative: 1e-8,
                },
            )],
            duration_ms: 12.5,
            libtorch_version: "2.13.0".to_string(),
            app_version: APP_VERSION.to_string(),
        }
    }

    #[test]
    fn cache_round_trips_and_separates_keys() {
        let dir = tempfile::tempdir().unwrap();
        let target = simulated("mps,corrupt=conv1d", Kind::Float);
        let key = ProbeKey::for_target(&target);
        assert_eq!(key.simulated.as_deref(), Some("mps,name=M1,corrupt=conv1d"));
        let mut cache = ProbeCache::load(dir.path());
        assert!(cache.is_empty() && cache.warning().is_none());
        cache.insert(key.clone(), sample_report("f32"));
        cache.save().unwrap();

        let reloaded = ProbeCache::load(dir.path());
        assert_eq!(reloaded.warning(), None);
        assert_eq!(reloaded.get(&key), Some(&sample_report("f32")));
        let other_precision = ProbeKey::for_target(&simulated("mps,corrupt=conv1d", Kind::Half));
        let other_app = ProbeKey {
            app_version: "9.9.9".to_string(),
            ..key.clone()
        };
        let other_simulation = ProbeKey::for_target(&simulated("mps", Kind::Float));
        let real = ProbeKey::for_target(&ProbeTarget::real(DeviceKind::Mps, Kind::Float));
        for miss in [other_precision, other_app, other_simulation, real] {
            assert_eq!(reloaded.get(&miss), None, "{miss:?}");
        }
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(
            leftovers.len(),
            1,
            "only {CACHE_FILE_NAME}, no temporary file"
        );
    }

    #[test]
    fn an_os_update_invalidates_a_cached_probe() {
        let dir = tempfile::tempdir().unwrap();
        let target = ProbeTarget::real(DeviceKind::Mps, Kind::Float);
        let sonoma = ProbeKey::for_target_on(&target, Some("14.4.1 (23E224)".into()));
        let mut cache = ProbeCache::load(dir.path());
        cache.insert(sonoma.clone(), sample_report("f32"));
        cache.save().unwrap();

        let reloaded = ProbeCache::load(dir.path());
        assert_eq!(reloaded.get(&sonoma), Some(&sample_report("f32")));
        for update in ["14.5 (23F79)", "14.4.1 (23E224a)"] {
            let updated = ProbeKey::for_target_on(&target, Some(update.into()));
            assert_ne!(updated, sonoma);
            assert_eq!(reloaded.get(&updated), None, "after updating to {update}");
        }
        // A report cached before the key had the OS version is probed again on a Mac.
        let mut old = serde_json::to_value(&sonoma).unwrap();
        old.as_object_mut().unwrap().remove("os_version");
        let old: ProbeKey = serde_json::from_value(old).unwrap();
        assert_eq!(old.os_version, None);
        assert_ne!(old, sonoma);
        // This machine's own key carries what the platform says (nothing off macOS).
        assert_eq!(
            ProbeKey::for_target(&target).os_version,
            crate::platform::os_version()
        );
    }

    #[test]
    fn cache_insert_replaces_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = ProbeKey::for_target(&ProbeTarget::cpu(Kind::Float));
        let mut cache = ProbeCache::load(dir.path());
        cache.insert(key.clone(), sample_report("f32"));
        cache.insert(key.clone(), sample_report("bf16"));
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get(&key).unwrap().precision, "bf16");
    }

    #[test]
    fn corrupt_cache_file_loads_empty_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(CACHE_FILE_NAME),
            "{\"entries\": [ {\"key\": 3",
        )
        .unwrap();
        let cache = ProbeCache::load(dir.path());
        assert!(cache.is_empty());
        let warning = cache.warning().expect("a warning");
        assert!(warning.contains(CACHE_FILE_NAME), "{warning}");
    }
}
