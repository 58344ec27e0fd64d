//! The capability probe: what a device really computes, compared with the CPU.
//!
//! A device that reports itself available can still fail in three ways that matter for Whisper:
//! an operator may be missing (an error), the process may abort inside the driver (MPS prints
//! "LLVM ERROR" and dies), or the numbers may be silently wrong (large-v3 on MPS producing
//! "!!!!"). [`run_probe`] runs the operations the model uses ([`CHECKS`], on Whisper-like shapes,
//! made in [`checks`]) on small seeded inputs made on the CPU in f32, moves them to the device in
//! the target precision, runs the same operation on both, and compares the device's result with
//! the CPU's (f32, or float64 computed without the kernel under test). `masked_attention` runs
//! the decoder's own fixed-cache attention (one query step against the 448-slot cache through a
//! partially broadcast boolean mask), the call in which PyTorch's MPS kernels returned silently
//! wrong numbers. Every tensor operation is the fallible `f_` form, so a device error becomes a
//! failed check with its message and [`ErrorCategory`], never a panic.
//!
//! [`child`] runs the probe in a child process so that an abort cannot take the app down;
//! [`cache`] keeps reports in `probe-cache.json`, keyed by everything that could change the
//! answer (libtorch version, device, simulation, precision, app version, OS version).
//!
//! A simulated GPU ([`SimulatedGpu`]) computes on the CPU; it can refuse the probe, abort,
//! corrupt a check's device result, or compute the model's masked attention wrong, which the
//! ordinary comparison must then catch.

pub mod cache;
mod checks;
pub mod child;

pub use cache::{ProbeCache, ProbeKey, CACHE_FILE_NAME};
pub use child::{probe_child_command, probe_child_main, probe_in_child, probe_with_command};

use super::errors::{self, ErrorCategory};
use super::simulated::SimulatedGpu;
use super::{DeviceKind, Operation};
use crate::whisper::attention::MaskedAttention;
use checks::{check_specs, CheckSpec, Tensors, TorchResult};
use serde::{Deserialize, Serialize};
use std::time::Instant;
use tch::{Device, Kind, TchError, Tensor};

/// The app version that cached reports are keyed by.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Allowed error in f32, relative to the largest absolute CPU value of an output. Not 1e-4:
/// libtorch runs f32 convolutions on CUDA (Ampere and newer) in TF32 by default (cuDNN's
/// `allow_tf32`), whose 10-bit mantissa puts results around 1e-4 of their scale away from the
/// CPU's. That is no reason to abandon the GPU; broken kernels are off by far more.
pub const F32_TOLERANCE: f64 = 1e-3;

/// Allowed relative error in bf16 and f16. On this machine's CPU the worst check is at 0.95%
/// in bf16 (softmax) and 0.22% in f16 (`attention_f16`), mostly the rounding of the inputs.
pub const LOW_PRECISION_TOLERANCE: f64 = 2e-2;

/// The checks every probe runs, in order.
pub const CHECKS: [&str; 11] = [
    "basic",
    "to_device",
    "conv1d",
    "linear",
    "layer_norm",
    "gelu",
    "softmax",
    "attention",
    "embedding",
    "cat",
    "masked_attention",
];

/// The extra checks a float16 probe runs: long f16 reductions and sharp f16 softmaxes, where a
/// device that accumulates in f16 or skips the max-subtraction overflows.
pub const FLOAT16_CHECKS: [&str; 2] = ["linear_f16", "attention_f16"];

// ---------------------------------------------------------------------------------------------
// Targets

/// What to probe: a device kind, the tch device that computes it, and the precision the model
/// would run in. A simulated GPU presents itself as `kind` but computes on `Device::Cpu`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeTarget {
    pub kind: DeviceKind,
    pub device: Device,
    pub precision: Kind,
    pub simulated: Option<SimulatedGpu>,
}

impl ProbeTarget {
    /// The CPU in `precision`.
    pub fn cpu(precision: Kind) -> Self {
        ProbeTarget {
            kind: DeviceKind::Cpu,
            device: Device::Cpu,
            precision,
            simulated: None,
        }
    }

    /// A simulated GPU in `precision` (computing on the CPU).
    pub fn simulated(gpu: SimulatedGpu, precision: Kind) -> Self {
        ProbeTarget {
            kind: gpu.kind,
            device: Device::Cpu,
            precision,
            simulated: Some(gpu),
        }
    }

    /// A real device of `kind` (CUDA device 0) in `precision`.
    pub fn real(kind: DeviceKind, precision: Kind) -> Self {
        let device = match kind {
            DeviceKind::Cpu => Device::Cpu,
            DeviceKind::Cuda => Device::Cuda(0),
            DeviceKind::Mps => Device::Mps,
        };
        ProbeTarget {
            kind,
            device,
            precision,
            simulated: None,
        }
    }

    /// Parses a target spec (`cpu`, `cuda`, `mps`, `cpu:bf16`, `mps:f16`, ...); a GPU kind is the
    /// simulated GPU of `WHISPER_DICTATION_SIMULATE_GPU` when that names the same kind.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let simulated = SimulatedGpu::from_env().map_err(|e| e.to_string())?;
        Self::parse_with(spec, simulated)
    }

    /// [`ProbeTarget::parse`] with the simulated GPU given instead of read from the environment.
    pub fn parse_with(spec: &str, simulated: Option<SimulatedGpu>) -> Result<Self, String> {
        let (kind, precision) = parse_spec(spec)?;
        Ok(match simulated {
            Some(gpu) if gpu.kind == kind => Self::simulated(gpu, precision),
            _ => Self::real(kind, precision),
        })
    }

    /// The spec [`ProbeTarget::parse`] reads back (the simulation travels in the environment).
    pub fn spec(&self) -> String {
        format!("{}:{}", self.kind, precision_name(self.precision))
    }

    /// The relative tolerance for this target's precision.
    pub fn tolerance(&self) -> f64 {
        match self.precision {
            Kind::Float | Kind::Double => F32_TOLERANCE,
            _ => LOW_PRECISION_TOLERANCE,
        }
    }
}

/// Splits `kind[:precision]` into its parts; the precision defaults to f32.
pub fn parse_spec(spec: &str) -> Result<(DeviceKind, Kind), String> {
    let (kind_text, precision_text) = match spec.trim().split_once(':') {
        Some((kind, precision)) => (kind, Some(precision)),
        None => (spec.trim(), None),
    };
    let kind = DeviceKind::parse(kind_text)
        .ok_or_else(|| format!("'{spec}': unknown device '{kind_text}' (cpu, cuda or mps)"))?;
    let precision = match precision_text {
        Some(text) => parse_precision(text)
            .ok_or_else(|| format!("'{spec}': unknown precision '{text}' (f32, bf16 or f16)"))?,
        None => Kind::Float,
    };
    Ok((kind, precision))
}

/// `f32`, `bf16` or `f16` (and their common spellings) as a tch kind.
pub fn parse_precision(text: &str) -> Option<Kind> {
    match text.trim().to_ascii_lowercase().as_str() {
        "f32" | "fp32" | "float" | "float32" => Some(Kind::Float),
        "bf16" | "bfloat16" => Some(Kind::BFloat16),
        "f16" | "fp16" | "half" | "float16" => Some(Kind::Half),
        _ => None,
    }
}

/// The short name of a precision, as reports and specs write it.
pub fn precision_name(kind: Kind) -> String {
    match kind {
        Kind::Float => "f32".to_string(),
        Kind::BFloat16 => "bf16".to_string(),
        Kind::Half => "f16".to_string(),
        other => format!("{other:?}").to_ascii_lowercase(),
    }
}

// ---------------------------------------------------------------------------------------------
// Reports

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub name: String,
    pub passed: bool,
    /// Largest absolute difference from the CPU's f32 result, when the device produced
    /// comparable finite numbers.
    pub max_abs_error: Option<f64>,
    /// `max_abs_error` divided by the largest absolute CPU value: what the tolerance applies to.
    #[serde(default)]
    pub relative_error: Option<f64>,
    /// The device's error message, or what was wrong with its numbers.
    pub error: Option<String>,
    pub category: Option<ErrorCategory>,
}

impl CheckResult {
    fn pass(name: &str, deviation: Deviation) -> Self {
        CheckResult {
            name: name.to_string(),
            passed: true,
            max_abs_error: Some(deviation.max_abs),
            relative_error: Some(deviation.relative),
            error: None,
            category: None,
        }
    }

    /// A check whose device numbers are wrong; the message starts with the phrase
    /// [`errors::classify`] reads as WrongResults.
    fn wrong(name: &str, deviation: Option<Deviation>, detail: &str) -> Self {
        CheckResult {
            name: name.to_string(),
            passed: false,
            max_abs_error: deviation.map(|d| d.max_abs),
            relative_error: deviation.map(|d| d.relative),
            error: Some(format!("results differ from the CPU: {detail}")),
            category: Some(ErrorCategory::WrongResults),
        }
    }

    /// A check that failed with a device error; the category is read from the message.
    fn error(name: &str, message: String) -> Self {
        let category = errors::classify(&message);
        Self::failed(name, message, category)
    }

    /// A check that failed for `message`, of `category`.
    pub fn failed(name: &str, message: String, category: ErrorCategory) -> Self {
        CheckResult {
            name: name.to_string(),
            passed: false,
            max_abs_error: None,
            relative_error: None,
            error: Some(message),
            category: Some(category),
        }
    }
}

/// Everything one probe found out about a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    pub kind: DeviceKind,
    /// `f32`, `bf16` or `f16`.
    pub precision: String,
    pub checks: Vec<CheckResult>,
    pub duration_ms: f64,
    pub libtorch_version: String,
    pub app_version: String,
}

impl ProbeReport {
    /// Whether the probe ran and every check passed.
    pub fn passed(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|c| c.passed)
    }

    /// The first check that failed, if any.
    pub fn first_failure(&self) -> Option<&CheckResult> {
        self.checks.iter().find(|c| !c.passed)
    }

    /// A report whose only check is `check` (a probe that could not run).
    fn single(kind: DeviceKind, precision: Kind, check: CheckResult, started: Instant) -> Self {
        ProbeReport {
            kind,
            precision: precision_name(precision),
            checks: vec![check],
            duration_ms: elapsed_ms(started),
            libtorch_version: super::backend::libtorch_version(),
            app_version: APP_VERSION.to_string(),
        }
    }
}

fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

// ---------------------------------------------------------------------------------------------
// Running the probe

/// Probes `target`: every check of [`CHECKS`] (plus [`FLOAT16_CHECKS`] in f16), each compared with
/// the CPU in f32. Never panics. A simulated GPU that refuses the probe gives a single failed
/// `device` check; one configured to abort the probe aborts the process, as MPS would.
pub fn run_probe(target: &ProbeTarget) -> ProbeReport {
    let started = Instant::now();
    let _no_grad = tch::no_grad_guard();
    if let Some(gpu) = &target.simulated {
        if let Err(message) = gpu.before(Operation::Probe) {
            let check = CheckResult::error("device", message);
            return ProbeReport::single(target.kind, target.precision, check, started);
        }
    }
    let checks = check_specs(target.precision)
        .iter()
        .map(|spec| run_check(spec, target))
        .collect();
    ProbeReport {
        kind: target.kind,
        precision: precision_name(target.precision),
        checks,
        duration_ms: elapsed_ms(started),
        libtorch_version: super::backend::libtorch_version(),
        app_version: APP_VERSION.to_string(),
    }
}

/// A test's report, printed check by check (`--nocapture` shows the errors' sizes).
#[cfg(test)]
fn show(label: &str, report: &ProbeReport) {
    println!(
        "{label}: {} {} in {:.1} ms, passed={}",
        report.kind,
        report.precision,
        report.duration_ms,
        report.passed()
    );
    for check in &report.checks {
        println!(
            "  {:<16} passed={:<5} max_abs={:<10} rel={:<10} {}",
            check.name,
            check.passed,
            check
                .max_abs_error
                .map_or("-".into(), |e| format!("{e:.2e}")),
            check
                .relative_error
                .map_or("-".into(), |e| format!("{e:.2e}")),
            check
                .category
                .map_or(String::new(), |c| format!("[{c:?}] "))
                + check.error.as_deref().unwrap_or("")
        );
    }
}

/// Why a check could not compare numbers.
enum CheckError {
    /// The CPU reference failed: a bug in the probe, not the device's fault.
    Reference(TchError),
    /// The device (or the move to or from it) failed.
    Device(TchError),
}

fn run_check(spec: &CheckSpec, target: &ProbeTarget) -> CheckResult {
    match compute_check(spec, target) {
        Ok((actual, expected)) => judge(spec.name, &actual, &expected, target.tolerance()),
        Err(CheckError::Device(err)) => CheckResult::error(spec.name, torch_message(&err)),
        Err(CheckError::Reference(err)) => CheckResult::failed(
            spec.name,
            format!("the CPU reference failed: {}", torch_message(&err)),
            ErrorCategory::Unknown,
        ),
    }
}

/// The device's outputs (back on the CPU in f32) and the CPU's.
fn compute_check(spec: &CheckSpec, target: &ProbeTarget) -> Result<(Tensors, Tensors), CheckError> {
    let inputs = spec.inputs().map_err(CheckError::Reference)?;
    let expected = spec.expected(&inputs).map_err(CheckError::Reference)?;
    let actual = run_on_target(spec, target, &inputs).map_err(CheckError::Device)?;
    Ok((actual, expected))
}

fn run_on_target(
    spec: &CheckSpec,
    target: &ProbeTarget,
    inputs: &[Tensor],
) -> TorchResult<Tensors> {
    let on_device = inputs
        .iter()
        .map(|t| to_target(t, target))
        .collect::<TorchResult<Tensors>>()?;
    let kernel = target
        .simulated
        .as_ref()
        .map_or(MaskedAttention::Exact, SimulatedGpu::masked_attention);
    let mut outputs = spec.run(&on_device, kernel)?;
    if target
        .simulated
        .as_ref()
        .is_some_and(|gpu| gpu.corrupts(spec.name))
    {
        outputs = outputs
            .iter()
            .map(corrupt)
            .collect::<TorchResult<Tensors>>()?;
    }
    outputs
        .iter()
        .map(|t| t.f_to_device(Device::Cpu)?.f_to_kind(Kind::Float))
        .collect()
}

/// Moves a CPU input to the target device, in the target precision if it holds floats.
fn to_target(tensor: &Tensor, target: &ProbeTarget) -> TorchResult<Tensor> {
    let moved = tensor.f_to_device(target.device)?;
    if tensor.f_is_floating_point()? {
        moved.f_to_kind(target.precision)
    } else {
        Ok(moved)
    }
}

/// What a silently broken kernel looks like: every third value off by 0.5 (simulated GPUs only).
fn corrupt(tensor: &Tensor) -> TorchResult<Tensor> {
    let pattern: Vec<f32> = (0..tensor.numel())
        .map(|i| if i % 3 == 0 { 0.5 } else { 0.0 })
        .collect();
    let delta = Tensor::f_from_slice(&pattern)?
        .f_reshape(tensor.size())?
        .f_to_device(tensor.device())?
        .f_to_kind(tensor.f_kind()?)?;
    tensor.f_add(&delta)
}

/// The libtorch message of an error, without the C++ backtrace libtorch appends.
fn torch_message(err: &TchError) -> String {
    let text = match err {
        TchError::Torch(message) => message.clone(),
        other => other.to_string(),
    };
    let head = text.split("Exception raised from").next().unwrap_or(&text);
    head.trim().to_string()
}

// ---------------------------------------------------------------------------------------------
// Comparing with the CPU

/// How far a device's outputs are from the CPU's.
#[derive(Debug, Clone, Copy)]
struct Deviation {
    max_abs: f64,
    relative: f64,
}

fn judge(name: &str, actual: &[Tensor], expected: &[Tensor], tolerance: f64) -> CheckResult {
    match compare(actual, expected) {
        Ok(Ok(deviation)) if deviation.relative <= tolerance => CheckResult::pass(name, deviation),
        Ok(Ok(deviation)) => {
            let detail = format!(
                "max abs error {:.3e}, relative {:.3e} > tolerance {tolerance:.0e}",
                deviation.max_abs, deviation.relative
            );
            CheckResult::wrong(name, Some(deviation), &detail)
        }
        Ok(Err(problem)) => CheckResult::wrong(name, None, &problem),
        Err(err) => CheckResult::error(name, torch_message(&err)),
    }
}

/// The worst deviation over all outputs, or what makes them incomparable (a different shape,
/// NaN or infinity, a missing output).
fn compare(actual: &[Tensor], expected: &[Tensor]) -> TorchResult<Result<Deviation, String>> {
    if actual.len() != expected.len() {
        return Ok(Err(format!(
            "the device returned {} outputs, the CPU {}",
            actual.len(),
            expected.len()
        )));
    }
    let mut worst = Deviation {
        max_abs: 0.0,
        relative: 0.0,
    };
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        match compare_one(a, e)? {
            Ok(d) => {
                worst.max_abs = worst.max_abs.max(d.max_abs);
                worst.relative = worst.relative.max(d.relative);
            }
            Err(problem) => return Ok(Err(format!("output {index}: {problem}"))),
        }
    }
    Ok(Ok(worst))
}

fn compare_one(actual: &Tensor, expected: &Tensor) -> TorchResult<Result<Deviation, String>> {
    if actual.size() != expected.size() {
        return Ok(Err(format!(
            "shape {:?} differs from the CPU's {:?}",
            actual.size(),
            expected.size()
        )));
    }
    let non_finite = count_non_finite(actual)?;
    if non_finite > 0 {
        return Ok(Err(format!(
            "{non_finite} of {} values are NaN or infinite",
            actual.numel()
        )));
    }
    let max_abs = max_abs_value(&actual.f_sub(expected)?)?;
    let scale = max_abs_value(expected)?;
    Ok(Ok(Deviation {
        max_abs,
        relative: max_abs / scale.max(1e-12),
    }))
}

fn count_non_finite(tensor: &Tensor) -> TorchResult<i64> {
    tensor
        .f_isfinite()?
        .f_logical_not()?
        .f_sum(Kind::Int64)?
        .f_int64_value(&[])
}

fn max_abs_value(tensor: &Tensor) -> TorchResult<f64> {
    if tensor.numel() == 0 {
        return Ok(0.0);
    }
    tensor.f_abs()?.f_max()?.f_double_value(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simulated(spec: &str, precision: Kind) -> ProbeTarget {
        ProbeTarget::simulated(SimulatedGpu::parse(spec).expect("valid spec"), precision)
    }

    #[test]
    fn cpu_f32_probe_passes_with_tiny_errors() {
        let report = run_probe(&ProbeTarget::cpu(Kind::Float));
        show("cpu f32", &report);
        assert!(report.passed(), "{report:#?}");
        let names: Vec<&str> = report.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, CHECKS);
        for check in &report.checks {
            assert!(check.relative_error.unwrap() <= 1e-5, "{check:?}");
        }
        assert_eq!(report.precision, "f32");
        assert_eq!(report.app_version, APP_VERSION);
        assert!(!report.libtorch_version.is_empty());
    }

    #[test]
    fn cpu_bf16_probe_passes_within_its_tolerance() {
        let report = run_probe(&ProbeTarget::cpu(Kind::BFloat16));
        show("cpu bf16", &report);
        assert!(report.passed(), "{report:#?}");
        assert_eq!(report.precision, "bf16");
        // bf16 really ran: the inputs' rounding shows.
        let linear = report.checks.iter().find(|c| c.name == "linear").unwrap();
        assert!(linear.max_abs_error.unwrap() > 0.0, "{linear:?}");
    }

    #[test]
    fn cpu_f16_probe_runs_the_float16_checks() {
        let report = run_probe(&ProbeTarget::cpu(Kind::Half));
        show("cpu f16", &report);
        let names: Vec<&str> = report.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names[..CHECKS.len()], CHECKS);
        assert_eq!(names[CHECKS.len()..], FLOAT16_CHECKS);
        assert!(report.passed(), "{report:#?}");
    }

    #[test]
    fn simulated_mps_corrupting_conv1d_fails_exactly_conv1d() {
        let report = run_probe(&simulated("mps,corrupt=conv1d", Kind::Float));
        show("simulated mps corrupt=conv1d", &report);
        assert_eq!(report.kind, DeviceKind::Mps);
        let failed: Vec<&CheckResult> = report.checks.iter().filter(|c| !c.passed).collect();
        assert_eq!(failed.len(), 1, "{report:#?}");
        assert_eq!(failed[0].name, "conv1d");
        assert_eq!(failed[0].category, Some(ErrorCategory::WrongResults));
        assert!(failed[0].max_abs_error.unwrap() >= 0.49, "{:?}", failed[0]);
        let error = failed[0].error.as_deref().unwrap();
        assert_eq!(
            errors::classify(error),
            ErrorCategory::WrongResults,
            "{error}"
        );
        assert_eq!(report.first_failure().unwrap().name, "conv1d");
        assert!(!report.passed());
    }

    #[test]
    fn a_kernel_that_misreads_the_decoders_boolean_mask_fails_masked_attention_only() {
        for precision in [Kind::Float, Kind::BFloat16, Kind::Half] {
            let report = run_probe(&simulated("mps,wrong=attention", precision));
            show("simulated mps wrong=attention", &report);
            let failed: Vec<&CheckResult> = report.checks.iter().filter(|c| !c.passed).collect();
            assert_eq!(failed.len(), 1, "{report:#?}");
            assert_eq!(failed[0].name, "masked_attention");
            assert_eq!(failed[0].category, Some(ErrorCategory::WrongResults));
            // Far outside any precision's tolerance, not a rounding matter.
            assert!(failed[0].relative_error.unwrap() > 0.2, "{:?}", failed[0]);
        }
    }

    #[test]
    fn the_masked_attention_reference_is_the_decoders_call_on_the_cpu() {
        // The float64 reference (no scaled-dot-product attention) and the model's own call on the
        // CPU agree: the check judges the kernel, not a different formula.
        let spec = check_specs(Kind::Float)
            .into_iter()
            .find(|s| s.name == "masked_attention")
            .unwrap();
        let inputs = spec.inputs().unwrap();
        let reference = spec.expected(&inputs).unwrap();
        let model = spec.run(&inputs, MaskedAttention::Exact).unwrap();
        assert_eq!(reference.len(), 2);
        match compare(&model, &reference).unwrap() {
            Ok(d) => assert!(d.relative < 1e-5, "{}", d.relative),
            Err(problem) => panic!("{problem}"),
        }
        assert_eq!(model[1].size(), [2, 4, 1, 64], "one query step");
    }

    #[test]
    fn simulated_corruption_of_every_check_is_caught() {
        let report = run_probe(&simulated("cuda,corrupt=all", Kind::BFloat16));
        assert!(report.checks.iter().all(|c| !c.passed), "{report:#?}");
        assert!(report
            .checks
            .iter()
            .all(|c| c.category == Some(ErrorCategory::WrongResults)));
    }

    #[test]
    fn simulated_probe_failure_is_a_failed_report_with_its_category() {
        let report = run_probe(&simulated("mps,fail=probe:unsupported", Kind::Float));
        show("simulated mps fail=probe:unsupported", &report);
        assert!(!report.passed());
        let failure = report.first_failure().unwrap();
        assert_eq!(
            failure.category,
            Some(ErrorCategory::Unsupported),
            "{failure:?}"
        );
        assert!(failure
            .error
            .as_deref()
            .unwrap()
            .contains("not currently implemented"));
    }

    #[test]
    fn an_unavailable_real_device_fails_its_checks_without_panicking() {
        // Neither MPS nor CUDA exists on the machines these tests run on.
        if tch::utils::has_mps() || tch::Cuda::is_available() {
            return;
        }
        let report = run_probe(&ProbeTarget::real(DeviceKind::Mps, Kind::Float));
        show("real mps (absent)", &report);
        assert!(!report.passed());
        let failure = report.first_failure().unwrap();
        assert!(failure.error.as_deref().is_some_and(|e| !e.is_empty()));
        assert!(!failure
            .error
            .as_deref()
            .unwrap()
            .contains("Exception raised from"));
    }

    #[test]
    fn nan_results_are_wrong_results_not_numbers() {
        let expected = vec![Tensor::from_slice(&[1.0_f32, 2.0, 3.0])];
        let actual = vec![Tensor::from_slice(&[1.0_f32, f32::NAN, 3.0])];
        let check = judge("x", &actual, &expected, F32_TOLERANCE);
        assert!(!check.passed);
        assert_eq!(check.category, Some(ErrorCategory::WrongResults));
        assert_eq!(check.max_abs_error, None);
        let error = check.error.unwrap();
        assert!(error.contains("NaN"), "{error}");
        assert_eq!(errors::classify(&error), ErrorCategory::WrongResults);
        let shorter = vec![Tensor::from_slice(&[1.0_f32, 2.0])];
        assert!(!judge("x", &shorter, &expected, F32_TOLERANCE).passed);
    }

    #[test]
    fn target_specs_round_trip() {
        let gpu = SimulatedGpu::parse("mps,corrupt=conv1d").unwrap();
        let target = ProbeTarget::parse_with("mps:f16", Some(gpu.clone())).unwrap();
        assert_eq!(target.device, Device::Cpu);
        assert_eq!(target.simulated, Some(gpu.clone()));
        assert_eq!(target.spec(), "mps:f16");
        let cuda = ProbeTarget::parse_with("cuda", Some(gpu)).unwrap();
        assert_eq!(
            (cuda.device, cuda.precision),
            (Device::Cuda(0), Kind::Float)
        );
        assert_eq!(
            parse_spec("cpu:bf16"),
            Ok((DeviceKind::Cpu, Kind::BFloat16))
        );
        assert!(parse_spec("tpu").unwrap_err().contains("tpu"));
        assert!(parse_spec("cpu:f8").unwrap_err().contains("f8"));
    }
}
