//! The device manager itself: owns the detected backends, the persistent history (with its
//! crash marker), the probe cache and the user's choice; answers "where does the model go now"
//! and records how each device operation went. It is the only place that writes device state
//! to disk and the only source of the user-facing device messages.

use super::backend::{detect, Backend, DeviceChoice};
use super::errors::{classify, decide, user_message, Decision, ErrorCategory};
use super::history::{now_unix, BackoffPolicy, History, HistoryStore, Outcome, Warning};
use super::policy::{choose, Placement, Reason};
use super::probe::{
    probe_in_child, run_probe, CheckResult, ProbeCache, ProbeKey, ProbeReport, ProbeTarget,
};
use super::simulated::SimulatedGpu;
use super::tuning::{chosen_precision, precision_for, Capabilities, OptimizationLevel};
use super::{DeviceKind, Operation};
use crate::i18n::{Message, UiLang};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;
use tch::Kind;

/// The probe report's check that records the warm-up's words on the device
/// ([`DeviceManager::wrong_results`]).
pub const WARM_UP_WORDS_CHECK: &str = "warm_up_words";

/// How long a first probe in a child process may take before it counts as a hang.
const CHILD_PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// Everything the manager is told at start.
#[derive(Debug, Clone)]
pub struct ManagerConfig {
    /// Where the history, crash marker and probe cache live (the app's data folder).
    pub data_dir: PathBuf,
    pub choice: DeviceChoice,
    pub lang: UiLang,
    pub simulated: Option<SimulatedGpu>,
    /// The app's own binary: a GPU's first probe runs in a child process, so an abort inside
    /// the GPU driver cannot take the app down. `None` probes in this process.
    pub probe_exe: Option<PathBuf>,
    pub backoff: BackoffPolicy,
    /// Precision of the model on the CPU when the user chose one (f32 reproduces the
    /// reference; bf16 is faster on CPUs with native bfloat16); `None` = the level decides.
    pub cpu_precision: Option<Kind>,
    /// The same for a GPU (f32, f16 or bf16); `None` = the level decides (f32 below level 2).
    pub gpu_precision: Option<Kind>,
    pub optimization: OptimizationLevel,
}

impl ManagerConfig {
    pub fn new(data_dir: PathBuf) -> Self {
        ManagerConfig {
            data_dir,
            choice: DeviceChoice::Auto,
            lang: UiLang::En,
            simulated: None,
            probe_exe: None,
            backoff: BackoffPolicy::default(),
            cpu_precision: None,
            gpu_precision: None,
            optimization: OptimizationLevel::Safe,
        }
    }
}

pub struct DeviceManager {
    config: ManagerConfig,
    backends: Vec<Backend>,
    store: HistoryStore,
    probes: ProbeCache,
    /// Probe verdicts of this process, by (device, precision name).
    verdicts: HashMap<(DeviceKind, String), bool>,
    notices: Vec<String>,
    /// GPU operations that failed in this process and later succeeded (for "works again").
    recovering: Vec<DeviceKind>,
    explained: Option<Placement>,
    /// GPUs whose failed probe (or wrong words) the user has been told about in this process:
    /// the verdict cannot change before the next start, so it is said once.
    told_probe_failed: Vec<DeviceKind>,
}

impl DeviceManager {
    /// Detects backends and reads the device state; never fails (damaged files are set aside
    /// with a warning, a crash of the previous run becomes a failure in the history).
    pub fn open(config: ManagerConfig) -> Self {
        let backends = detect(config.simulated.clone());
        let (store, warnings) = HistoryStore::open_with(&config.data_dir, config.backoff);
        let probes = ProbeCache::load(&config.data_dir);
        let mut manager = DeviceManager {
            config,
            backends,
            store,
            probes,
            verdicts: HashMap::new(),
            notices: Vec::new(),
            recovering: Vec::new(),
            explained: None,
            told_probe_failed: Vec::new(),
        };
        for warning in warnings {
            tracing::warn!("{warning}");
            if let Warning::Crashed { marker, .. } = &warning {
                let gpu = manager.backend(marker.device).name;
                manager.notify(Message::GpuCrashedLastTime { gpu });
            }
        }
        manager
    }

    pub fn backends(&self) -> &[Backend] {
        &self.backends
    }

    /// The backend of `kind` (the CPU when this machine has no such device).
    pub fn backend(&self, kind: DeviceKind) -> Backend {
        self.backends
            .iter()
            .find(|b| b.kind == kind)
            .cloned()
            .unwrap_or_else(Backend::cpu)
    }

    pub fn history(&self) -> &History {
        self.store.history()
    }

    pub fn config(&self) -> &ManagerConfig {
        &self.config
    }

    /// Where the model should live now. Probes the chosen GPU lazily (once per libtorch
    /// version, app version and precision; cached on disk).
    pub fn placement(&mut self) -> Placement {
        let kinds: Vec<DeviceKind> = self.backends.iter().map(|b| b.kind).collect();
        let choice = self.config.choice;
        let now = now_unix();
        let history = self.store.history().clone();
        let placement = choose(&kinds, choice, &history, now, &mut |gpu| {
            self.probe_verdict(gpu, Kind::Float)
        });
        self.explain(&placement);
        placement
    }

    /// The precision the model uses on `kind`: the user's choice for that kind of device if it
    /// can run there, else the optimisation level's.
    pub fn precision_for(&mut self, kind: DeviceKind) -> Kind {
        let runs_on_cpu = self.backend(kind).simulated.is_some();
        let chosen = if kind.is_gpu() {
            self.config.gpu_precision
        } else {
            self.config.cpu_precision
        };
        if let Some(chosen) = chosen {
            match chosen_precision(kind, chosen, runs_on_cpu) {
                Ok(kind) => return kind,
                Err(why) => tracing::warn!("{why}"),
            }
        }
        precision_for(self.config.optimization, self.capabilities(kind))
    }

    /// What `kind` can compute at speed; on a real GPU this probes float16 once (cached).
    pub fn capabilities(&mut self, kind: DeviceKind) -> Capabilities {
        let runs_on_cpu = self.backend(kind).simulated.is_some();
        let wants_half = kind.is_gpu() && !runs_on_cpu;
        Capabilities {
            kind,
            cpu_native_bf16: super::cpu_class::CpuClass::detect().native_bf16,
            gpu_half_ok: wants_half && self.probe_verdict(kind, Kind::Half),
            runs_on_cpu,
        }
    }

    /// Level-0 safe speed-ups for the device the model goes to (cuDNN's autotuner on CUDA:
    /// same results, faster convolutions).
    pub fn prepare(&self, kind: DeviceKind) {
        if kind == DeviceKind::Cuda && self.backend(kind).simulated.is_none() {
            tch::Cuda::cudnn_set_benchmark(true);
        }
    }

    /// The probe report for `kind` at `precision`, from the cache or run now.
    pub fn probe(&mut self, kind: DeviceKind, precision: Kind) -> ProbeReport {
        let target = self.probe_target(kind, precision);
        let key = ProbeKey::for_target(&target);
        if let Some(report) = self.probes.get(&key) {
            return report.clone();
        }
        let report = match (&self.config.probe_exe, kind.is_gpu()) {
            (Some(exe), true) => probe_in_child(exe, &target.spec(), CHILD_PROBE_TIMEOUT),
            _ => run_probe(&target),
        };
        self.probes.insert(key, report.clone());
        self.save_probes();
        report
    }

    fn save_probes(&self) {
        if let Err(e) = self.probes.save() {
            tracing::warn!(
                "{}: cannot save the probe cache: {e}",
                self.probes.path().display()
            );
        }
    }

    /// Just before `op` runs on `kind`: marks it in flight on disk (GPUs only: a crash inside
    /// the GPU driver then counts as a failure at the next start). A simulated GPU may fail here
    /// with a real error text, or abort the process.
    pub fn begin(&mut self, kind: DeviceKind, op: Operation) -> Result<(), String> {
        if !kind.is_gpu() {
            return Ok(());
        }
        if let Err(e) = self.store.begin(kind, op) {
            tracing::warn!("{e}");
        }
        match self.backend(kind).simulated {
            Some(gpu) => gpu.before(op),
            None => Ok(()),
        }
    }

    /// `op` finished well on `kind`.
    pub fn succeeded(&mut self, kind: DeviceKind, op: Operation) {
        if !kind.is_gpu() {
            return;
        }
        let had_backoff = self.store.history().backoff(kind).is_some();
        if let Err(e) = self.store.finish(kind, op, Outcome::success(now_unix())) {
            tracing::warn!("{e}");
        }
        let now_fine = self.store.history().backoff(kind).is_none();
        if had_backoff && now_fine && !self.recovering.contains(&kind) {
            self.recovering.push(kind);
            let gpu = self.backend(kind).name;
            self.notify(Message::GpuRecovered { gpu });
        }
    }

    /// `op` stopped on `kind` for a reason that is not the device's (a damaged file): the
    /// in-flight mark is cleared and nothing is recorded.
    pub fn cancelled(&mut self, kind: DeviceKind) {
        if kind.is_gpu() {
            if let Err(e) = self.store.cancel() {
                tracing::warn!("{e}");
            }
        }
    }

    /// `op` failed on `kind` with `message`: records it, tells the user what happens next, and
    /// returns the category and what to do.
    pub fn failed(
        &mut self,
        kind: DeviceKind,
        op: Operation,
        message: &str,
        attempts_on_this_device: u32,
    ) -> (ErrorCategory, Decision) {
        let category = classify(message);
        let decision = decide(category, kind, attempts_on_this_device);
        if kind.is_gpu() {
            let outcome = Outcome::failure(now_unix(), category.name(), first_line(message));
            if let Err(e) = self.store.finish(kind, op, outcome) {
                tracing::warn!("{e}");
            }
        }
        tracing::warn!(
            "{op} failed on {kind} ({}): {}",
            category.name(),
            first_line(message)
        );
        let gpu = self.backend(kind).name;
        self.notify(user_message(category, decision, &gpu));
        (category, decision)
    }

    /// The model's own output on `kind` proved wrong (the warm-up heard the built-in sample
    /// wrong: `message` from [`super::sample_check::SampleWords::failure_message`]) after `op`
    /// ran without an error. A failure like any other — recorded in the history as
    /// WrongResults, explained to the user, and the decision returned (the CPU, for a GPU) — and
    /// also a failed check in the device's probe report, cached on disk: the GPU stays off the
    /// placement, across restarts and after the backoff, until libtorch, the app or the OS
    /// changes (the probe's key), when it is probed and warmed up afresh.
    pub fn wrong_results(&mut self, kind: DeviceKind, op: Operation, message: &str) -> Decision {
        let (category, decision) = self.failed(kind, op, message, 1);
        if !kind.is_gpu() {
            return decision;
        }
        let target = self.probe_target(kind, Kind::Float);
        let mut report = self.probe(kind, Kind::Float);
        report
            .checks
            .retain(|check| check.name != WARM_UP_WORDS_CHECK);
        report.checks.push(CheckResult::failed(
            WARM_UP_WORDS_CHECK,
            message.to_string(),
            category,
        ));
        self.probes.insert(ProbeKey::for_target(&target), report);
        self.save_probes();
        self.verdicts
            .insert((kind, format!("{:?}", Kind::Float)), false);
        self.told_probe_failed.push(kind);
        decision
    }

    /// User-facing messages (in the UI language) since the last call.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Queues `message` for the user, once. A "retrying with less memory" still queued is
    /// dropped when the outcome of that retry arrives (it failed too, and what happens now is
    /// all the user needs: two notices in the same millisecond for one failure were noise).
    fn notify(&mut self, message: Message) {
        let lang = self.config.lang;
        if message != Message::GpuOutOfMemoryRetrying {
            let retrying = Message::GpuOutOfMemoryRetrying.text(lang);
            self.notices.retain(|queued| *queued != retrying);
        }
        let text = message.text(lang);
        if !self.notices.contains(&text) {
            self.notices.push(text);
        }
    }

    fn probe_target(&self, kind: DeviceKind, precision: Kind) -> ProbeTarget {
        match self.backend(kind).simulated {
            Some(gpu) if gpu.kind == kind => ProbeTarget::simulated(gpu, precision),
            _ if kind == DeviceKind::Cpu => ProbeTarget::cpu(precision),
            _ => ProbeTarget::real(kind, precision),
        }
    }

    fn probe_verdict(&mut self, kind: DeviceKind, precision: Kind) -> bool {
        let key = (kind, format!("{precision:?}"));
        if let Some(&v) = self.verdicts.get(&key) {
            return v;
        }
        let report = self.probe(kind, precision);
        let passed = report.passed();
        if !passed {
            let detail = report
                .first_failure()
                .map(|c| format!("{}: {}", c.name, c.error.clone().unwrap_or_default()))
                .unwrap_or_default();
            tracing::warn!("probe of {kind} at {precision:?} failed: {detail}");
        }
        self.verdicts.insert(key, passed);
        passed
    }

    /// Tells the user when the placement is not what they would expect.
    fn explain(&mut self, placement: &Placement) {
        if self.explained.as_ref() == Some(placement) {
            return;
        }
        self.explained = Some(placement.clone());
        let using = self.backend(placement.kind).name;
        match &placement.reason {
            Reason::RequestedMissing { requested } => {
                self.notify(Message::RequestedDeviceMissing {
                    requested: requested.name().to_uppercase(),
                    using,
                });
            }
            Reason::ProbeFailed { gpu } if !self.told_probe_failed.contains(gpu) => {
                self.told_probe_failed.push(*gpu);
                let report = self.probe(*gpu, Kind::Float);
                let category = match report.first_failure().and_then(|c| c.category) {
                    // The probe's child process died in this run: not "the app closed last time".
                    Some(ErrorCategory::Crashed) => ErrorCategory::Unknown,
                    other => other.unwrap_or(ErrorCategory::WrongResults),
                };
                let name = self.backend(*gpu).name;
                self.notify(user_message(category, Decision::RetryOnCpu, &name));
            }
            _ => {}
        }
    }
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or("").trim()
}
