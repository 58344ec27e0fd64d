//! The persistent device history: which operation succeeded or failed on which device, the
//! in-flight marker that survives a crash in the middle of a device operation, and the
//! exponential backoff before a failed GPU is tried again.
//!
//! Two files live in the app's data folder:
//!
//! - `device-history.json` — a [`History`]: per (device, operation) the last [`WINDOW`]
//!   outcomes, and per GPU a [`Backoff`]. Keys are readable (`"mps/encode"`, `"cuda"`), the
//!   file carries a `schema_version`, and every field has a default so an older or partial file
//!   still loads. A file that cannot be used (unreadable, empty, corrupt, wrong types, newer
//!   schema) is renamed aside to `device-history.json.corrupt-<unix time>` and replaced by a
//!   fresh history, with a [`Warning`] — opening never fails.
//! - `device-inflight.json` — an [`InflightMarker`] written by [`HistoryStore::begin`] before a
//!   risky device operation and removed by [`HistoryStore::finish`]. MPS can abort the whole
//!   process ("LLVM ERROR: ...") with no chance to record anything; the marker left behind is
//!   turned into a `"crashed"` failure at the next [`HistoryStore::open`].
//!
//! Both files are written atomically: a temporary file in the same folder, fsync, rename.
//!
//! One app instance per data folder is assumed: two instances would overwrite each other's
//! history and marker. A marker whose process is still alive (and isn't us) is left alone so
//! that a second instance started by mistake doesn't count the first one's work as a crash.

use super::{DeviceKind, Operation};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The history file's name inside the data folder.
pub const HISTORY_FILE: &str = "device-history.json";
/// The in-flight marker's name inside the data folder.
pub const MARKER_FILE: &str = "device-inflight.json";
/// The history file layout this code writes; a file with a larger version is set aside.
pub const SCHEMA_VERSION: u32 = 1;
/// How many recent outcomes are kept per (device, operation); the oldest is dropped.
pub const WINDOW: usize = 5;
/// The category of the failure recorded for a leftover in-flight marker. Same text as the
/// serde name of [`super::errors::ErrorCategory::Crashed`].
pub const CRASHED: &str = "crashed";
/// A marker older than this is treated as a crash even if a process with its pid is alive:
/// after a reboot or a long time the pid has most likely been reused by an unrelated process.
pub const MARKER_STALE_AFTER_SECS: u64 = 60 * 60;

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The result of one device operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub ok: bool,
    /// When it happened, Unix seconds.
    pub at: u64,
    /// For failures: the error category (e.g. `"out_of_memory"`, [`CRASHED`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// For failures: the error text, for diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Outcome {
    pub fn success(at: u64) -> Self {
        Outcome {
            ok: true,
            at,
            category: None,
            detail: None,
        }
    }

    pub fn failure(at: u64, category: impl Into<String>, detail: impl Into<String>) -> Self {
        Outcome {
            ok: false,
            at,
            category: Some(category.into()),
            detail: Some(detail.into()),
        }
    }
}

/// How long a failed GPU is left alone: `base · 2^(failures-1)` seconds, at most `cap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackoffPolicy {
    pub base_secs: u64,
    pub cap_secs: u64,
}

impl Default for BackoffPolicy {
    /// One minute after the first failure, doubling, never more than a day.
    fn default() -> Self {
        BackoffPolicy {
            base_secs: 60,
            cap_secs: 24 * 60 * 60,
        }
    }
}

impl BackoffPolicy {
    /// The wait after the `failures`-th consecutive failure (`failures` ≥ 1).
    pub fn delay(&self, failures: u32) -> u64 {
        let doubling = 1u64.checked_shl(failures.saturating_sub(1));
        doubling
            .and_then(|factor| self.base_secs.checked_mul(factor))
            .map_or(self.cap_secs, |delay| delay.min(self.cap_secs))
    }
}

/// The backoff state of one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Backoff {
    /// Failures since the device last fully worked.
    pub failures: u32,
    /// When the last failure happened, Unix seconds.
    pub last_failure: u64,
    /// When the backoff in force at the last failure ends, Unix seconds: a record for people
    /// reading the file. [`History::may_retry`] recomputes it from the current policy, so a
    /// changed backoff setting applies at once.
    pub retry_after: u64,
}

/// A (device, operation) pair, written `"mps/encode"` in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct OpKey(DeviceKind, Operation);

/// A map key that is written as a readable string and read back leniently.
trait ReadableKey: Sized + Ord {
    fn to_key(&self) -> String;
    fn from_key(text: &str) -> Option<Self>;
}

fn device_named(name: &str) -> Option<DeviceKind> {
    DeviceKind::ALL.into_iter().find(|d| d.name() == name)
}

fn operation_named(name: &str) -> Option<Operation> {
    Operation::ALL.into_iter().find(|op| op.name() == name)
}

impl ReadableKey for DeviceKind {
    fn to_key(&self) -> String {
        self.name().to_string()
    }

    fn from_key(text: &str) -> Option<Self> {
        device_named(text)
    }
}

impl ReadableKey for OpKey {
    fn to_key(&self) -> String {
        format!("{}/{}", self.0.name(), self.1.name())
    }

    fn from_key(text: &str) -> Option<Self> {
        let (device, op) = text.split_once('/')?;
        Some(OpKey(device_named(device)?, operation_named(op)?))
    }
}

/// `#[serde(with)]` for maps keyed by a [`ReadableKey`]. Unknown keys (a device or operation
/// from a newer version, a typo from hand editing) are skipped rather than failing the file.
mod readable_keys {
    use super::ReadableKey;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<K, V, S>(map: &BTreeMap<K, V>, serializer: S) -> Result<S::Ok, S::Error>
    where
        K: ReadableKey,
        V: Serialize,
        S: Serializer,
    {
        serializer.collect_map(map.iter().map(|(key, value)| (key.to_key(), value)))
    }

    pub fn deserialize<'de, K, V, D>(deserializer: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: ReadableKey,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        let raw = BTreeMap::<String, V>::deserialize(deserializer)?;
        let known = raw
            .into_iter()
            .filter_map(|(text, value)| match K::from_key(&text) {
                Some(key) => Some((key, value)),
                None => {
                    tracing::warn!(key = %text, "ignoring an unknown key in the device history");
                    None
                }
            });
        Ok(known.collect())
    }
}

/// What happened on which device: the recent outcomes per (device, operation) and the
/// backoff per GPU. Pure data and decisions; [`HistoryStore`] does the files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct History {
    schema_version: u32,
    #[serde(with = "readable_keys")]
    outcomes: BTreeMap<OpKey, VecDeque<Outcome>>,
    #[serde(with = "readable_keys")]
    backoff: BTreeMap<DeviceKind, Backoff>,
    #[serde(skip)]
    policy: BackoffPolicy,
}

impl Default for History {
    fn default() -> Self {
        History::new(BackoffPolicy::default())
    }
}

impl History {
    /// An empty history using this backoff policy.
    pub fn new(policy: BackoffPolicy) -> Self {
        History {
            schema_version: SCHEMA_VERSION,
            outcomes: BTreeMap::new(),
            backoff: BTreeMap::new(),
            policy,
        }
    }

    pub fn policy(&self) -> BackoffPolicy {
        self.policy
    }

    pub fn set_policy(&mut self, policy: BackoffPolicy) {
        self.policy = policy;
    }

    /// Adds an outcome (dropping the oldest beyond [`WINDOW`]) and updates the GPU backoff.
    ///
    /// A failure on a GPU increments its failure count and sets
    /// `retry_after = at + base · 2^(failures-1)` (capped). A success resets the backoff once
    /// the device fully works again, i.e. when the latest outcome of every operation recorded
    /// on it is a success: a load that succeeds before an encode that keeps failing must not
    /// reset the backoff, or it would never grow past `base`.
    pub fn record(&mut self, device: DeviceKind, op: Operation, outcome: Outcome) {
        let ok = outcome.ok;
        let at = outcome.at;
        let window = self.outcomes.entry(OpKey(device, op)).or_default();
        window.push_back(outcome);
        while window.len() > WINDOW {
            window.pop_front();
        }
        if !device.is_gpu() {
            return;
        }
        if ok {
            self.reset_backoff_if_working(device);
        } else {
            self.note_gpu_failure(device, at);
        }
    }

    fn note_gpu_failure(&mut self, device: DeviceKind, at: u64) {
        let policy = self.policy;
        let backoff = self.backoff.entry(device).or_default();
        backoff.failures = backoff.failures.saturating_add(1);
        backoff.last_failure = at;
        backoff.retry_after = at.saturating_add(policy.delay(backoff.failures));
    }

    fn reset_backoff_if_working(&mut self, device: DeviceKind) {
        let all_latest_ok = self
            .outcomes
            .iter()
            .filter(|(key, _)| key.0 == device)
            .all(|(_, window)| window.back().is_none_or(|last| last.ok));
        if all_latest_ok {
            self.backoff.remove(&device);
        }
    }

    /// The kept outcomes of (device, op), oldest first (at most [`WINDOW`]).
    pub fn recent(&self, device: DeviceKind, op: Operation) -> Vec<&Outcome> {
        self.outcomes
            .get(&OpKey(device, op))
            .map(|window| window.iter().collect())
            .unwrap_or_default()
    }

    /// The share of successes among the kept outcomes of (device, op); `None` without data.
    pub fn success_rate(&self, device: DeviceKind, op: Operation) -> Option<f32> {
        let (successes, total) = self.counts(device, op);
        (total > 0).then(|| successes as f32 / total as f32)
    }

    /// Whether (device, op) can be trusted: no data yet, or at least 80 % successes over the
    /// last [`WINDOW`] outcomes. 4 of 5 is still healthy; one failure in a fresh history is
    /// not (1 of 1 failed, or 1 of 2, is below 80 %).
    pub fn is_healthy(&self, device: DeviceKind, op: Operation) -> bool {
        let (successes, total) = self.counts(device, op);
        // successes / total ≥ 4/5, in integers so 4 of 5 is exactly on the threshold.
        total == 0 || successes * 5 >= total * 4
    }

    fn counts(&self, device: DeviceKind, op: Operation) -> (usize, usize) {
        let recent = self.recent(device, op);
        let successes = recent.iter().filter(|outcome| outcome.ok).count();
        (successes, recent.len())
    }

    /// The backoff of a GPU, if it has failed since it last fully worked.
    pub fn backoff(&self, device: DeviceKind) -> Option<&Backoff> {
        self.backoff.get(&device)
    }

    /// Whether the device may be tried at `now` (Unix seconds): no backoff, or it has expired.
    pub fn may_retry(&self, device: DeviceKind, now: u64) -> bool {
        self.backoff(device)
            .is_none_or(|b| now >= b.last_failure.saturating_add(self.policy.delay(b.failures)))
    }

    /// Brings a loaded file in line with what this code writes: current schema version, no
    /// window longer than [`WINDOW`] (a hand-edited file), no backoff for the CPU.
    fn normalize(&mut self) {
        self.schema_version = SCHEMA_VERSION;
        for window in self.outcomes.values_mut() {
            while window.len() > WINDOW {
                window.pop_front();
            }
        }
        self.backoff.retain(|device, _| device.is_gpu());
    }
}

/// The in-flight marker: a device operation started and hasn't finished yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InflightMarker {
    pub device: DeviceKind,
    pub op: Operation,
    /// The process that started the operation.
    pub pid: u32,
    /// When it started, Unix seconds.
    pub started: u64,
}

/// Something [`HistoryStore::open`] dealt with that the user or the log should hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// The history file couldn't be used; a fresh history replaces it.
    UnusableHistory {
        path: PathBuf,
        problem: String,
        /// Where the bad file was moved, if the rename worked.
        moved_to: Option<PathBuf>,
    },
    /// The previous run died during a device operation; it was recorded as a failure.
    Crashed {
        path: PathBuf,
        marker: InflightMarker,
    },
    /// A file couldn't be read, written or removed while recovering.
    Io { path: PathBuf, problem: String },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::UnusableHistory {
                path,
                problem,
                moved_to,
            } => {
                write!(
                    f,
                    "{}: {problem}; starting a fresh device history",
                    path.display()
                )?;
                match moved_to {
                    Some(aside) => write!(f, " (the old file is now {})", aside.display()),
                    None => write!(f, " (the old file could not be moved aside)"),
                }
            }
            Warning::Crashed { path, marker } => write!(
                f,
                "{}: the previous run (pid {}) stopped during {} on {} started at {}; \
                 recorded as a crash",
                path.display(),
                marker.pid,
                marker.op,
                marker.device,
                marker.started
            ),
            Warning::Io { path, problem } => write!(f, "{}: {problem}", path.display()),
        }
    }
}

/// A file operation of the store that failed.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot create the folder {path}: {source}")]
    CreateDir { path: PathBuf, source: io::Error },
    #[error("cannot encode {path}: {source}")]
    Encode {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot remove {path}: {source}")]
    Remove { path: PathBuf, source: io::Error },
}

/// The history and marker files in one folder, and the history they hold.
#[derive(Debug)]
pub struct HistoryStore {
    dir: PathBuf,
    history: History,
}

impl HistoryStore {
    /// Opens the history in `dir` with the default backoff policy. See [`Self::open_with`].
    pub fn open(dir: &Path) -> (HistoryStore, Vec<Warning>) {
        HistoryStore::open_with(dir, BackoffPolicy::default())
    }

    /// Opens the history in `dir`; never fails. A missing file (or folder) gives a fresh
    /// history silently; an unusable file is moved aside with a warning. A leftover in-flight
    /// marker becomes a [`CRASHED`] failure of its (device, op), then is removed and the
    /// history saved — unless its process is another live instance (see [`marker_is_live`]).
    pub fn open_with(dir: &Path, policy: BackoffPolicy) -> (HistoryStore, Vec<Warning>) {
        let mut warnings = Vec::new();
        let history_path = dir.join(HISTORY_FILE);
        let mut history = load_or_set_aside(&history_path, &mut warnings).unwrap_or_default();
        history.set_policy(policy);
        let mut store = HistoryStore {
            dir: dir.to_path_buf(),
            history,
        };
        store.recover_marker(&mut warnings);
        (store, warnings)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn history_path(&self) -> PathBuf {
        self.dir.join(HISTORY_FILE)
    }

    pub fn marker_path(&self) -> PathBuf {
        self.dir.join(MARKER_FILE)
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// For recording outcomes without a marker; call [`Self::save`] afterwards.
    pub fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }

    /// Writes the history file atomically, creating the folder if needed.
    pub fn save(&self) -> Result<(), HistoryError> {
        write_json_atomic(&self.history_path(), &self.history)
    }

    /// Writes the in-flight marker for (device, op) before a risky device operation, so that a
    /// crash during it is found at the next start.
    pub fn begin(&self, device: DeviceKind, op: Operation) -> Result<(), HistoryError> {
        let marker = InflightMarker {
            device,
            op,
            pid: std::process::id(),
            started: now_unix(),
        };
        write_json_atomic(&self.marker_path(), &marker)
    }

    /// Records the outcome of the operation started with [`Self::begin`], saves the history
    /// and removes the marker. The marker is removed even if saving fails (the outcome is
    /// still in memory; keeping the marker would count a crash that didn't happen).
    pub fn finish(
        &mut self,
        device: DeviceKind,
        op: Operation,
        outcome: Outcome,
    ) -> Result<(), HistoryError> {
        self.history.record(device, op, outcome);
        let saved = self.save();
        let removed = remove_if_present(&self.marker_path());
        saved.and(removed)
    }

    /// Clears the in-flight marker without recording an outcome (the operation stopped for a
    /// reason that says nothing about the device, e.g. a damaged model file).
    pub fn cancel(&self) -> Result<(), HistoryError> {
        remove_if_present(&self.marker_path())
    }

    fn recover_marker(&mut self, warnings: &mut Vec<Warning>) {
        let path = self.marker_path();
        let marker = match read_marker(&path) {
            Ok(None) => return,
            Ok(Some(marker)) => marker,
            Err(problem) => {
                warnings.push(Warning::Io {
                    path: path.clone(),
                    problem: format!("unreadable in-flight marker ({problem}); removed"),
                });
                push_if_err(warnings, remove_if_present(&path));
                return;
            }
        };
        if marker_is_live(&marker, now_unix()) {
            tracing::info!(
                pid = marker.pid,
                "in-flight marker of a running instance left alone"
            );
            return;
        }
        let detail = format!(
            "the process (pid {}) stopped during {} on {}",
            marker.pid, marker.op, marker.device
        );
        let outcome = Outcome::failure(marker.started, CRASHED, detail);
        self.history.record(marker.device, marker.op, outcome);
        warnings.push(Warning::Crashed {
            path: path.clone(),
            marker,
        });
        push_if_err(warnings, self.save());
        push_if_err(warnings, remove_if_present(&path));
    }
}

fn push_if_err(warnings: &mut Vec<Warning>, result: Result<(), HistoryError>) {
    if let Err(error) = result {
        let path = match &error {
            HistoryError::CreateDir { path, .. }
            | HistoryError::Encode { path, .. }
            | HistoryError::Write { path, .. }
            | HistoryError::Remove { path, .. } => path.clone(),
        };
        warnings.push(Warning::Io {
            path,
            problem: error.to_string(),
        });
    }
}

/// Whether a marker belongs to another instance that is still running: its pid is alive, it
/// isn't ours (a marker with our pid was left by an earlier process that had the same pid —
/// common in containers and under launchd), and it isn't older than
/// [`MARKER_STALE_AFTER_SECS`] (after that the pid has likely been reused).
pub fn marker_is_live(marker: &InflightMarker, now: u64) -> bool {
    let ours = marker.pid == std::process::id();
    let stale = now.saturating_sub(marker.started) > MARKER_STALE_AFTER_SECS;
    !ours && !stale && process_alive(marker.pid)
}

/// Whether a process with this id exists.
///
/// Unix (Linux, macOS): `kill(pid, 0)`, which checks without sending a signal; `EPERM` means
/// the process exists but belongs to another user. Elsewhere: `false` — a leftover marker is
/// then always counted as a crash, which is right for the single instance the app runs and
/// costs one recorded failure otherwise.
pub fn process_alive(pid: u32) -> bool {
    // 0 and negative pids address process groups, not a process.
    match i32::try_from(pid) {
        Ok(pid) if pid > 0 => signal_zero_reaches(pid),
        _ => false,
    }
}

#[cfg(unix)]
fn signal_zero_reaches(pid: i32) -> bool {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const EPERM: i32 = 1; // Same value on Linux and macOS.
                          // SAFETY: kill with signal 0 only checks whether the process exists and may be signalled.
    let result = unsafe { kill(pid, 0) };
    result == 0 || io::Error::last_os_error().raw_os_error() == Some(EPERM)
}

#[cfg(not(unix))]
fn signal_zero_reaches(_pid: i32) -> bool {
    false
}

/// Reads the history; `None` when there is none (missing file) or it is unusable, in which case
/// the file is moved aside and a warning added.
fn load_or_set_aside(path: &Path, warnings: &mut Vec<Warning>) -> Option<History> {
    match load_history(path) {
        Ok(history) => history,
        Err(problem) => {
            let moved_to = move_aside(path);
            warnings.push(Warning::UnusableHistory {
                path: path.to_path_buf(),
                problem,
                moved_to,
            });
            None
        }
    }
}

/// `Ok(None)` for a missing file; `Err` describes why an existing file can't be used.
fn load_history(path: &Path) -> Result<Option<History>, String> {
    let Some(text) = read_if_present(path)? else {
        return Ok(None);
    };
    let mut history = parse_history(&text)?;
    history.normalize();
    Ok(Some(history))
}

fn parse_history(text: &str) -> Result<History, String> {
    if text.trim().is_empty() {
        return Err("the file is empty".to_string());
    }
    let history: History =
        serde_json::from_str(text).map_err(|error| format!("not a valid history: {error}"))?;
    if history.schema_version > SCHEMA_VERSION {
        return Err(format!(
            "written by a newer version (schema {}, this version reads up to {SCHEMA_VERSION})",
            history.schema_version
        ));
    }
    Ok(history)
}

fn read_marker(path: &Path) -> Result<Option<InflightMarker>, String> {
    let Some(text) = read_if_present(path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|error| error.to_string())
}

/// The file's text, `None` if it doesn't exist.
fn read_if_present(path: &Path) -> Result<Option<String>, String> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(format!("cannot read it: {error}")),
    }
}

/// Renames a bad file to `<name>.corrupt-<unix time>`; the new path, or `None` if that failed.
fn move_aside(path: &Path) -> Option<PathBuf> {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".corrupt-{}", now_unix()));
    let aside = PathBuf::from(aside);
    match fs::rename(path, &aside) {
        Ok(()) => Some(aside),
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot move the bad history aside");
            None
        }
    }
}

fn remove_if_present(path: &Path) -> Result<(), HistoryError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(HistoryError::Remove {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Writes `value` as JSON to `path` so that readers see the old file or the new one, never a
/// part: a temporary file in the same folder, fsync, rename over `path`, fsync the folder.
fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<(), HistoryError> {
    let mut json = serde_json::to_vec_pretty(value).map_err(|source| HistoryError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    json.push(b'\n');
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::private_files::create_dir_all(dir).map_err(|source| HistoryError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    crate::atomic_file::write(path, &json).map_err(|source| HistoryError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempfile::TempDir;

    const MPS: DeviceKind = DeviceKind::Mps;
    const CUDA: DeviceKind = DeviceKind::Cuda;
    const CPU: DeviceKind = DeviceKind::Cpu;
    const ENCODE: Operation = Operation::Encode;
    const LOAD: Operation = Operation::Load;

    fn fail(at: u64) -> Outcome {
        Outcome::failure(at, "unknown", "boom")
    }

    fn history_with(device: DeviceKind, op: Operation, oks: &[bool]) -> History {
        let mut history = History::default();
        for (at, &ok) in oks.iter().enumerate() {
            let outcome = if ok {
                Outcome::success(at as u64)
            } else {
                fail(at as u64)
            };
            history.record(device, op, outcome);
        }
        history
    }

    fn file_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn write_marker(dir: &Path, pid: u32, started: u64) {
        let marker = InflightMarker {
            device: MPS,
            op: ENCODE,
            pid,
            started,
        };
        fs::write(
            dir.join(MARKER_FILE),
            serde_json::to_string(&marker).unwrap(),
        )
        .unwrap();
    }

    /// A pid that no process has: above Linux's largest `pid_max` (2^22) and macOS's 99999.
    const DEAD_PID: u32 = i32::MAX as u32;

    #[test]
    fn keeps_only_the_last_five_outcomes() {
        let history = history_with(MPS, ENCODE, &[false, false, true, true, true, true, true]);
        let recent = history.recent(MPS, ENCODE);
        assert_eq!(recent.len(), WINDOW);
        let times: Vec<u64> = recent.iter().map(|outcome| outcome.at).collect();
        assert_eq!(
            times,
            [2, 3, 4, 5, 6],
            "oldest first, the two oldest dropped"
        );
        assert_eq!(history.success_rate(MPS, ENCODE), Some(1.0));
    }

    #[test]
    fn four_of_five_is_healthy_three_of_five_is_not() {
        let four = history_with(MPS, ENCODE, &[true, false, true, true, true]);
        assert_eq!(four.success_rate(MPS, ENCODE), Some(0.8));
        assert!(four.is_healthy(MPS, ENCODE));
        let three = history_with(MPS, ENCODE, &[true, false, true, false, true]);
        assert!(!three.is_healthy(MPS, ENCODE));
    }

    #[test]
    fn one_failure_in_a_fresh_history_is_unhealthy() {
        let history = history_with(MPS, ENCODE, &[false]);
        assert_eq!(history.success_rate(MPS, ENCODE), Some(0.0));
        assert!(!history.is_healthy(MPS, ENCODE));
        assert!(!history_with(MPS, ENCODE, &[true, false]).is_healthy(MPS, ENCODE));
    }

    #[test]
    fn no_data_is_healthy_and_has_no_rate() {
        let history = history_with(MPS, ENCODE, &[false]);
        assert_eq!(history.success_rate(MPS, LOAD), None);
        assert!(history.is_healthy(MPS, LOAD));
        assert!(history.is_healthy(CUDA, ENCODE));
        assert!(history.recent(CUDA, ENCODE).is_empty());
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let policy = BackoffPolicy {
            base_secs: 10,
            cap_secs: 50,
        };
        let mut history = History::new(policy);
        let mut waits = Vec::new();
        for _ in 0..5 {
            history.record(MPS, ENCODE, fail(1000));
            waits.push(history.backoff(MPS).unwrap().retry_after - 1000);
        }
        assert_eq!(waits, [10, 20, 40, 50, 50]);
        let backoff = history.backoff(MPS).unwrap();
        assert_eq!((backoff.failures, backoff.last_failure), (5, 1000));
    }

    #[test]
    fn backoff_delay_never_overflows() {
        let policy = BackoffPolicy::default();
        assert_eq!(policy.delay(1), 60);
        assert_eq!(policy.delay(2), 120);
        assert_eq!(policy.delay(64), policy.cap_secs);
        assert_eq!(policy.delay(u32::MAX), policy.cap_secs);
    }

    #[test]
    fn success_resets_the_backoff() {
        let mut history = History::default();
        history.record(MPS, ENCODE, fail(100));
        history.record(MPS, ENCODE, fail(200));
        assert_eq!(history.backoff(MPS).unwrap().failures, 2);
        history.record(MPS, ENCODE, Outcome::success(300));
        assert_eq!(history.backoff(MPS), None);
        assert!(history.may_retry(MPS, 300));
    }

    /// Load succeeding and encode failing, launch after launch, must still back off longer.
    #[test]
    fn success_of_another_operation_does_not_reset_while_one_still_fails() {
        let mut history = History::default();
        history.record(MPS, LOAD, Outcome::success(100));
        history.record(MPS, ENCODE, fail(101));
        history.record(MPS, LOAD, Outcome::success(200));
        history.record(MPS, ENCODE, fail(201));
        assert_eq!(history.backoff(MPS).unwrap().failures, 2);
        history.record(MPS, ENCODE, Outcome::success(300));
        assert_eq!(history.backoff(MPS), None);
    }

    #[test]
    fn may_retry_after_the_backoff_expires() {
        let mut history = History::default();
        assert!(history.may_retry(MPS, 0), "no backoff");
        history.record(MPS, ENCODE, fail(1000));
        assert!(!history.may_retry(MPS, 1059));
        assert!(history.may_retry(MPS, 1060));
        assert!(history.may_retry(CUDA, 1000), "backoff is per device");
    }

    #[test]
    fn the_cpu_never_backs_off() {
        let mut history = History::default();
        history.record(CPU, ENCODE, fail(1000));
        assert_eq!(history.backoff(CPU), None);
        assert!(history.may_retry(CPU, 1000));
        assert!(!history.is_healthy(CPU, ENCODE));
    }

    #[test]
    fn keys_are_readable_in_the_file() {
        let mut history = History::default();
        history.record(MPS, ENCODE, fail(7));
        let json = serde_json::to_value(&history).unwrap();
        assert_eq!(json["schema_version"], SCHEMA_VERSION);
        assert_eq!(json["outcomes"]["mps/encode"][0]["ok"], false);
        assert_eq!(json["backoff"]["mps"]["failures"], 1);
    }

    #[test]
    fn crashed_matches_the_error_category_name() {
        let name = serde_json::to_value(super::super::errors::ErrorCategory::Crashed).unwrap();
        assert_eq!(name, CRASHED);
    }

    #[test]
    fn missing_file_gives_a_fresh_history_without_warning() {
        let dir = TempDir::new().unwrap();
        let (store, warnings) = HistoryStore::open(dir.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(store.history(), &History::default());
        assert!(file_names(dir.path()).is_empty(), "opening writes nothing");
    }

    #[test]
    fn missing_folder_is_created_on_save() {
        let dir = TempDir::new().unwrap();
        let nested = dir.path().join("a").join("b");
        let (mut store, warnings) = HistoryStore::open(&nested);
        assert!(warnings.is_empty());
        store.history_mut().record(MPS, ENCODE, fail(1));
        store.save().unwrap();
        assert!(nested.join(HISTORY_FILE).is_file());
    }

    #[test]
    fn history_round_trips_through_the_file() {
        let dir = TempDir::new().unwrap();
        let (mut store, _) = HistoryStore::open(dir.path());
        let history = store.history_mut();
        history.record(
            MPS,
            ENCODE,
            Outcome::failure(5, "out_of_memory", "MPS backend oom"),
        );
        history.record(CUDA, LOAD, Outcome::success(6));
        history.record(CPU, Operation::Decode, Outcome::success(7));
        store.save().unwrap();
        let (reopened, warnings) = HistoryStore::open(dir.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(reopened.history(), store.history());
    }

    fn assert_set_aside(content: &str, expected_problem: &str) {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join(HISTORY_FILE);
        fs::write(&path, content).unwrap();
        let (store, warnings) = HistoryStore::open(dir.path());
        assert_eq!(store.history(), &History::default(), "fresh history");
        let [Warning::UnusableHistory {
            path: named,
            problem,
            moved_to: Some(aside),
        }] = warnings.as_slice()
        else {
            panic!("expected one moved-aside warning, got {warnings:?}");
        };
        assert_eq!(named, &path);
        assert!(problem.contains(expected_problem), "{problem}");
        assert!(warnings[0].to_string().contains(HISTORY_FILE));
        assert!(!path.exists(), "the bad file is gone from its place");
        let aside_name = aside.file_name().unwrap().to_string_lossy().into_owned();
        assert!(aside_name.starts_with("device-history.json.corrupt-"));
        assert_eq!(
            fs::read_to_string(aside).unwrap(),
            content,
            "kept for diagnosis"
        );
    }

    #[test]
    fn corrupt_json_is_set_aside() {
        assert_set_aside("{ this is not json", "not a valid history");
    }

    #[test]
    fn truncated_file_is_set_aside() {
        let mut history = History::default();
        history.record(MPS, ENCODE, fail(1));
        let full = serde_json::to_string_pretty(&history).unwrap();
        assert_set_aside(&full[..full.len() / 2], "not a valid history");
    }

    #[test]
    fn wrong_types_are_set_aside() {
        assert_set_aside(
            r#"{"schema_version": 1, "outcomes": {"mps/encode": [{"ok": "yes", "at": 1}]}}"#,
            "not a valid history",
        );
        assert_set_aside(r#"[1, 2, 3]"#, "not a valid history");
    }

    #[test]
    fn empty_file_is_set_aside() {
        assert_set_aside("", "empty");
        assert_set_aside("  \n", "empty");
    }

    #[test]
    fn unreadable_history_is_set_aside() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join(HISTORY_FILE);
        fs::create_dir(&path).unwrap();
        let (store, warnings) = HistoryStore::open(dir.path());
        assert_eq!(store.history(), &History::default());
        assert!(matches!(
            warnings.as_slice(),
            [Warning::UnusableHistory { problem, moved_to: Some(_), .. }] if problem.contains("cannot read")
        ));
        assert!(!path.exists());
        store.save().unwrap();
        assert!(path.is_file());
    }

    #[test]
    fn future_schema_is_set_aside() {
        assert_set_aside(r#"{"schema_version": 99}"#, "newer version");
    }

    #[test]
    fn partial_or_old_file_loads() {
        let dir = TempDir::new().unwrap();
        let old = r#"{
            "outcomes": {
                "mps/encode": [{"ok": false, "at": 10}],
                "tpu/encode": [{"ok": true, "at": 11}],
                "cuda/load": [
                    {"ok": true, "at": 1}, {"ok": true, "at": 2}, {"ok": true, "at": 3},
                    {"ok": true, "at": 4}, {"ok": true, "at": 5}, {"ok": false, "at": 6}
                ]
            },
            "backoff": {"mps": {"failures": 1}, "cpu": {"failures": 3}}
        }"#;
        fs::write(dir.path().join(HISTORY_FILE), old).unwrap();
        let (store, warnings) = HistoryStore::open(dir.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        let history = store.history();
        assert_eq!(history.recent(MPS, ENCODE)[0].category, None);
        assert_eq!(
            history.recent(CUDA, LOAD).len(),
            WINDOW,
            "trimmed to the window"
        );
        assert_eq!(history.backoff(MPS).unwrap().failures, 1);
        assert_eq!(history.backoff(MPS).unwrap().retry_after, 0);
        assert_eq!(history.backoff(CPU), None);
        assert_eq!(history.schema_version, SCHEMA_VERSION);
    }

    #[test]
    fn leftover_marker_counts_as_a_crash_at_next_open() {
        let dir = TempDir::new().unwrap();
        write_marker(dir.path(), DEAD_PID, 500);
        let (store, warnings) = HistoryStore::open(dir.path());
        assert!(matches!(
            warnings.as_slice(),
            [Warning::Crashed { marker, .. }] if marker.pid == DEAD_PID && marker.op == ENCODE
        ));
        assert!(warnings[0].to_string().contains(MARKER_FILE));
        let recent = store.history().recent(MPS, ENCODE);
        assert_eq!(recent.len(), 1);
        assert!(!recent[0].ok);
        assert_eq!(recent[0].category.as_deref(), Some(CRASHED));
        assert_eq!(recent[0].at, 500);
        assert!(!store.history().may_retry(MPS, 500));
        assert_eq!(
            file_names(dir.path()),
            [HISTORY_FILE],
            "marker removed, history saved"
        );

        let (again, warnings) = HistoryStore::open(dir.path());
        assert!(warnings.is_empty(), "counted once: {warnings:?}");
        assert_eq!(again.history().recent(MPS, ENCODE).len(), 1);
    }

    #[test]
    fn marker_with_our_own_pid_counts_as_a_crash() {
        let dir = TempDir::new().unwrap();
        write_marker(dir.path(), std::process::id(), now_unix());
        let (store, warnings) = HistoryStore::open(dir.path());
        assert!(matches!(warnings.as_slice(), [Warning::Crashed { .. }]));
        assert!(!store.history().is_healthy(MPS, ENCODE));
        assert!(!dir.path().join(MARKER_FILE).exists());
    }

    #[cfg(unix)]
    #[test]
    fn marker_of_a_live_other_process_is_left_alone_unless_stale() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let dir = TempDir::new().unwrap();
        write_marker(dir.path(), child.id(), now_unix());
        let (store, warnings) = HistoryStore::open(dir.path());
        let live_left_alone = warnings.is_empty()
            && store.history().recent(MPS, ENCODE).is_empty()
            && dir.path().join(MARKER_FILE).exists();

        write_marker(
            dir.path(),
            child.id(),
            now_unix() - MARKER_STALE_AFTER_SECS - 1,
        );
        let (stale_store, stale_warnings) = HistoryStore::open(dir.path());
        let _ = child.kill();
        let _ = child.wait();
        assert!(live_left_alone);
        assert!(matches!(
            stale_warnings.as_slice(),
            [Warning::Crashed { .. }]
        ));
        assert_eq!(stale_store.history().recent(MPS, ENCODE).len(), 1);
    }

    #[test]
    fn process_alive_knows_ourselves_and_rejects_nonsense() {
        #[cfg(unix)]
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(DEAD_PID));
        assert!(!process_alive(0));
        assert!(!process_alive(u32::MAX));
    }

    #[test]
    fn unreadable_marker_is_removed_with_a_warning() {
        let dir = TempDir::new().unwrap();
        fs::write(dir.path().join(MARKER_FILE), "{\"device\": ").unwrap();
        let (store, warnings) = HistoryStore::open(dir.path());
        assert!(
            matches!(warnings.as_slice(), [Warning::Io { path, .. }] if path.ends_with(MARKER_FILE))
        );
        assert_eq!(store.history(), &History::default());
        assert!(file_names(dir.path()).is_empty());
    }

    #[test]
    fn begin_and_finish_leave_only_the_history() {
        let dir = TempDir::new().unwrap();
        let (mut store, _) = HistoryStore::open(dir.path());
        store.begin(CUDA, LOAD).unwrap();
        assert_eq!(file_names(dir.path()), [MARKER_FILE], "no temp file left");
        let text = fs::read_to_string(dir.path().join(MARKER_FILE)).unwrap();
        let marker: InflightMarker = serde_json::from_str(&text).unwrap();
        assert_eq!((marker.device, marker.op), (CUDA, LOAD));
        assert_eq!(marker.pid, std::process::id());

        store
            .finish(CUDA, LOAD, Outcome::success(now_unix()))
            .unwrap();
        assert_eq!(
            file_names(dir.path()),
            [HISTORY_FILE],
            "marker removed, no temp file"
        );
        let (reopened, warnings) = HistoryStore::open(dir.path());
        assert!(warnings.is_empty());
        assert_eq!(reopened.history().success_rate(CUDA, LOAD), Some(1.0));
    }

    #[test]
    fn save_replaces_the_file_and_leaves_no_temp_files() {
        let dir = TempDir::new().unwrap();
        let (mut store, _) = HistoryStore::open(dir.path());
        for at in 0..3 {
            store.history_mut().record(MPS, ENCODE, fail(at));
            store.save().unwrap();
        }
        assert_eq!(file_names(dir.path()), [HISTORY_FILE]);
        let (reopened, _) = HistoryStore::open(dir.path());
        assert_eq!(reopened.history().recent(MPS, ENCODE).len(), 3);
    }

    #[test]
    fn save_into_an_unwritable_place_is_an_error_naming_the_path() {
        let dir = TempDir::new().unwrap();
        let blocker = dir.path().join("not-a-dir");
        fs::write(&blocker, "").unwrap();
        let (store, _) = HistoryStore::open(&blocker);
        let error = store.save().unwrap_err();
        assert!(error.to_string().contains("not-a-dir"), "{error}");
    }
}
