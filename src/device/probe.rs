//! The capability probe: what a device really computes, compared with the CPU.
//!
//! A device that reports itself available can still fail in three ways that matter for Whisper:
//! an operator may be missing (an error), the process may abort inside the driver (MPS prints
//! "LLVM ERROR" and dies), or the numbers may be silently wrong (large-v3 on MPS producing
//! "!!!!"). [`run_probe`] runs the operations the model uses ([`CHECKS`], on Whisper-like shapes)
//! on small seeded inputs made on the CPU in f32, moves them to the device in the target
//! precision, runs the same operation on both, and compares the device's result with the CPU's
//! f32 result. Every tensor operation is the fallible `f_` form, so a device error becomes a
//! failed check with its message and [`ErrorCategory`], never a panic.
//!
//! [`probe_in_child`] runs the probe in a child process (`whisper-dictation devices
//! --probe-child SPEC`, whose body is [`probe_child_main`]) so that an abort cannot take the app
//! down: a child that dies or hangs yields a report with one failed `process` check, category
//! [`ErrorCategory::Crashed`]. [`ProbeCache`] keeps reports in `probe-cache.json`, keyed by
//! everything that could change the answer (libtorch version, device, simulation, precision,
//! app version).
//!
//! A simulated GPU ([`SimulatedGpu`]) computes on the CPU; it can refuse the probe, abort, or
//! corrupt a check's device result, which the ordinary comparison must then catch.

use super::errors::{self, ErrorCategory};
use super::simulated::SimulatedGpu;
use super::{DeviceKind, Operation};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};
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
pub const CHECKS: [&str; 10] = [
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
];

/// The extra checks a float16 probe runs: long f16 reductions and sharp f16 softmaxes, where a
/// device that accumulates in f16 or skips the max-subtraction overflows.
pub const FLOAT16_CHECKS: [&str; 2] = ["linear_f16", "attention_f16"];

/// The file name of the probe cache inside its directory.
pub const CACHE_FILE_NAME: &str = "probe-cache.json";

/// How long the child's output readers may lag behind its exit (a grandchild can hold the pipes).
const READER_GRACE: Duration = Duration::from_millis(500);

/// How much of the child's stderr a crash report quotes.
const STDERR_TAIL_BYTES: usize = 2000;

/// Whisper's layer-norm epsilon.
const LN_EPS: f64 = 1e-5;

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

    fn failed(name: &str, message: String, category: ErrorCategory) -> Self {
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

type Tensors = Vec<Tensor>;
type TorchResult<T> = Result<T, TchError>;

/// One check: how to make its CPU f32 inputs, and the operation under test (run once on the CPU
/// inputs and once on the device inputs). An operation may return several outputs.
struct CheckSpec {
    name: &'static str,
    inputs: fn(&mut SplitMix64) -> TorchResult<Tensors>,
    op: fn(&[Tensor]) -> TorchResult<Tensors>,
}

const fn spec(
    name: &'static str,
    inputs: fn(&mut SplitMix64) -> TorchResult<Tensors>,
    op: fn(&[Tensor]) -> TorchResult<Tensors>,
) -> CheckSpec {
    CheckSpec { name, inputs, op }
}

const CHECK_SPECS: [CheckSpec; 10] = [
    spec(CHECKS[0], inputs_basic, op_basic),
    spec(CHECKS[1], inputs_to_device, op_identity),
    spec(CHECKS[2], inputs_conv1d, op_conv1d),
    spec(CHECKS[3], inputs_linear, op_linear),
    spec(CHECKS[4], inputs_layer_norm, op_layer_norm),
    spec(CHECKS[5], inputs_gelu, op_gelu),
    spec(CHECKS[6], inputs_softmax, op_softmax),
    spec(CHECKS[7], inputs_attention, op_attention),
    spec(CHECKS[8], inputs_embedding, op_embedding),
    spec(CHECKS[9], inputs_cat, op_cat),
];

const FLOAT16_SPECS: [CheckSpec; 2] = [
    spec(FLOAT16_CHECKS[0], inputs_linear_f16, op_linear),
    spec(FLOAT16_CHECKS[1], inputs_attention_f16, op_attention_f16),
];

fn check_specs(precision: Kind) -> Vec<&'static CheckSpec> {
    let extra: &'static [CheckSpec] = match precision {
        Kind::Half => &FLOAT16_SPECS,
        _ => &[],
    };
    CHECK_SPECS.iter().chain(extra).collect()
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

/// The device's outputs (back on the CPU in f32) and the CPU's f32 outputs.
fn compute_check(spec: &CheckSpec, target: &ProbeTarget) -> Result<(Tensors, Tensors), CheckError> {
    let inputs =
        (spec.inputs)(&mut SplitMix64::for_check(spec.name)).map_err(CheckError::Reference)?;
    let expected = (spec.op)(&inputs).map_err(CheckError::Reference)?;
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
    let mut outputs = (spec.op)(&on_device)?;
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

// ---------------------------------------------------------------------------------------------
// Inputs: seeded, made on the CPU in f32

/// SplitMix64: a tiny deterministic generator, so inputs depend on nothing but the check name
/// (not on libtorch's global seed, which the decoder's sampling owns).
struct SplitMix64(u64);

impl SplitMix64 {
    fn for_check(name: &str) -> Self {
        // FNV-1a of the name.
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        SplitMix64(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A `shape` tensor uniform in [low, high).
    fn uniform(&mut self, shape: &[i64], low: f32, high: f32) -> TorchResult<Tensor> {
        let count = shape.iter().product::<i64>().max(0) as usize;
        let data: Vec<f32> = (0..count)
            .map(|_| low + (high - low) * self.unit())
            .collect();
        Tensor::f_from_slice(&data)?.f_reshape(shape)
    }

    /// A `shape` tensor uniform in [-scale, scale).
    fn symmetric(&mut self, shape: &[i64], scale: f32) -> TorchResult<Tensor> {
        self.uniform(shape, -scale, scale)
    }

    /// A weight matrix `[out, fan_in]` scaled like a trained layer's (1/sqrt(fan_in)).
    fn weight(&mut self, shape: &[i64], fan_in: i64) -> TorchResult<Tensor> {
        self.symmetric(shape, 1.0 / (fan_in as f32).sqrt())
    }
}

fn inputs_basic(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[32, 48], 1.0)?,
        rng.symmetric(&[32, 48], 1.0)?,
        rng.symmetric(&[48, 24], 1.0)?,
    ])
}

fn inputs_to_device(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![rng.symmetric(&[4, 80, 100], 4.0)?])
}

/// A log-mel-like input `[1, 80, 200]` and the first encoder conv's `[64, 80, 3]` kernel.
fn inputs_conv1d(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 80, 200], 1.0)?,
        rng.weight(&[64, 80, 3], 80 * 3)?,
        rng.symmetric(&[64], 0.1)?,
    ])
}

fn inputs_linear(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 24, 384], 1.0)?,
        rng.weight(&[256, 384], 384)?,
        rng.symmetric(&[256], 0.1)?,
    ])
}

fn inputs_layer_norm(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.uniform(&[1, 24, 384], -2.0, 4.0)?,
        rng.uniform(&[384], 0.5, 1.5)?,
        rng.symmetric(&[384], 0.2)?,
    ])
}

fn inputs_gelu(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![rng.symmetric(&[1, 24, 384], 4.0)?])
}

/// Attention-like scores over 1500 audio frames, and logits over Whisper's multilingual
/// vocabulary.
fn inputs_softmax(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 6, 24, 1500], 4.0)?,
        rng.symmetric(&[1, 4, 51865], 10.0)?,
    ])
}

/// Query, key, value `[batch, heads, positions, head_dim]`, plus a longer key/value pair as in
/// cross-attention.
fn inputs_attention(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 6, 24, 64], 1.0)?,
        rng.symmetric(&[1, 6, 24, 64], 1.0)?,
        rng.symmetric(&[1, 6, 24, 64], 1.0)?,
        rng.symmetric(&[1, 6, 40, 64], 1.0)?,
        rng.symmetric(&[1, 6, 40, 64], 1.0)?,
    ])
}

/// An embedding table and token ids (int64, never converted), including the first and last row.
fn inputs_embedding(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    let rows = 1000_u64;
    let mut ids: Vec<i64> = (0..14).map(|_| (rng.next_u64() % rows) as i64).collect();
    ids.extend([0, rows as i64 - 1]);
    Ok(vec![
        rng.symmetric(&[rows as i64, 64], 1.0)?,
        Tensor::f_from_slice(&ids)?,
    ])
}

fn inputs_cat(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 24, 64], 1.0)?,
        rng.symmetric(&[1, 16, 64], 1.0)?,
        rng.symmetric(&[1, 24, 32], 1.0)?,
    ])
}

/// Positive activations and weights over large-v3's MLP width: each output sums 5120 products
/// to about 2500, far past where f16 accumulation stops resolving the next term.
fn inputs_linear_f16(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.uniform(&[4, 5120], 0.0, 2.0)?,
        rng.uniform(&[64, 5120], 0.0, 1.0)?,
        rng.symmetric(&[64], 1.0)?,
    ])
}

/// Query and key large enough that the scaled logits reach 20 and more: exp() overflows f16
/// unless the implementation subtracts the maximum first.
fn inputs_attention_f16(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 8, 128, 64], 4.0)?,
        rng.symmetric(&[1, 8, 128, 64], 4.0)?,
        rng.symmetric(&[1, 8, 128, 64], 1.0)?,
    ])
}

// ---------------------------------------------------------------------------------------------
// Operations under test (the ones src/whisper/model.rs uses, with the same arguments)

fn wrong_inputs(check: &str) -> TchError {
    TchError::Shape(format!("{check}: unexpected number of probe inputs"))
}

fn op_basic(t: &[Tensor]) -> TorchResult<Tensors> {
    let [a, b, c] = t else {
        return Err(wrong_inputs("basic"));
    };
    let product = a.f_matmul(c)?;
    let row_sums = product.f_sum_dim_intlist(Some([1_i64].as_slice()), false, None::<Kind>)?;
    Ok(vec![a.f_add(b)?, a.f_mul(b)?, product, row_sums])
}

fn op_identity(t: &[Tensor]) -> TorchResult<Tensors> {
    Ok(t.iter().map(Tensor::shallow_clone).collect())
}

fn op_conv1d(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x, weight, bias] = t else {
        return Err(wrong_inputs("conv1d"));
    };
    let conv = |stride: i64| x.f_conv1d(weight, Some(bias), [stride], [1], [1], 1);
    Ok(vec![conv(1)?, conv(2)?])
}

fn op_linear(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x, weight, bias] = t else {
        return Err(wrong_inputs("linear"));
    };
    Ok(vec![x.f_linear(weight, Some(bias))?])
}

fn op_layer_norm(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x, weight, bias] = t else {
        return Err(wrong_inputs("layer_norm"));
    };
    let width = weight.size();
    Ok(vec![x.f_layer_norm(
        width,
        Some(weight),
        Some(bias),
        LN_EPS,
        true,
    )?])
}

fn op_gelu(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x] = t else {
        return Err(wrong_inputs("gelu"));
    };
    Ok(vec![x.f_gelu("none")?])
}

/// Softmax in the target precision, and log-softmax over the vocabulary after converting the
/// logits to f32, as the model does before they leave the device (in bf16, the rounding of
/// logits near 10 alone moves probabilities by 3%, so a bf16 log-softmax would be unjudgeable).
fn op_softmax(t: &[Tensor]) -> TorchResult<Tensors> {
    let [scores, logits] = t else {
        return Err(wrong_inputs("softmax"));
    };
    Ok(vec![
        scores.f_softmax(-1, None::<Kind>)?,
        logits
            .f_to_kind(Kind::Float)?
            .f_log_softmax(-1, None::<Kind>)?,
    ])
}

fn attention(q: &Tensor, k: &Tensor, v: &Tensor, causal: bool) -> TorchResult<Tensor> {
    Tensor::f_scaled_dot_product_attention(q, k, v, None::<Tensor>, 0.0, causal, None, false)
}

fn op_attention(t: &[Tensor]) -> TorchResult<Tensors> {
    let [q, k, v, cross_k, cross_v] = t else {
        return Err(wrong_inputs("attention"));
    };
    Ok(vec![
        attention(q, k, v, false)?,
        attention(q, k, v, true)?,
        attention(q, cross_k, cross_v, false)?,
    ])
}

fn op_attention_f16(t: &[Tensor]) -> TorchResult<Tensors> {
    let [q, k, v] = t else {
        return Err(wrong_inputs("attention_f16"));
    };
    Ok(vec![attention(q, k, v, false)?, attention(q, k, v, true)?])
}

fn op_embedding(t: &[Tensor]) -> TorchResult<Tensors> {
    let [table, ids] = t else {
        return Err(wrong_inputs("embedding"));
    };
    Ok(vec![table.f_index_select(0, ids)?])
}

fn op_cat(t: &[Tensor]) -> TorchResult<Tensors> {
    let [a, b, c] = t else {
        return Err(wrong_inputs("cat"));
    };
    Ok(vec![Tensor::f_cat(&[a, b], 1)?, Tensor::f_cat(&[a, c], 2)?])
}

// ---------------------------------------------------------------------------------------------
// Cache

/// Everything a cached report depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeKey {
    pub libtorch_version: String,
    pub kind: DeviceKind,
    /// The simulated GPU's canonical spec, for a simulated device.
    pub simulated: Option<String>,
    pub precision: String,
    pub app_version: String,
}

impl ProbeKey {
    /// The key of `target` with this build's libtorch and app versions.
    pub fn for_target(target: &ProbeTarget) -> Self {
        ProbeKey {
            libtorch_version: super::backend::libtorch_version(),
            kind: target.kind,
            simulated: target.simulated.as_ref().map(simulated_spec),
            precision: precision_name(target.precision),
            app_version: APP_VERSION.to_string(),
        }
    }
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
        fs::create_dir_all(dir)?;
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

// ---------------------------------------------------------------------------------------------
// Probing in a child process

/// Probes `target_spec` in `exe devices --probe-child <target_spec>`, waiting at most `timeout`.
/// A child that cannot start, dies (a signal, an abort) or hangs gives a report with one failed
/// `process` check of category Crashed, quoting the end of its stderr. The child inherits the
/// environment, so a simulated GPU carries over.
pub fn probe_in_child(exe: &Path, target_spec: &str, timeout: Duration) -> ProbeReport {
    probe_with_command(probe_child_command(exe, target_spec), target_spec, timeout)
}

/// The command [`probe_in_child`] runs.
pub fn probe_child_command(exe: &Path, target_spec: &str) -> Command {
    let mut command = Command::new(exe);
    command.args(["devices", "--probe-child", target_spec]);
    command
}

/// Runs `command` as a probe child for `target_spec` and reads its report from stdout (the last
/// line that is a report, so stray output before it is harmless).
pub fn probe_with_command(command: Command, target_spec: &str, timeout: Duration) -> ProbeReport {
    let started = Instant::now();
    let (kind, precision) = match parse_spec(target_spec) {
        Ok(parsed) => parsed,
        Err(message) => {
            let check = CheckResult::failed("target", message, ErrorCategory::Unknown);
            return ProbeReport::single(DeviceKind::Cpu, Kind::Float, check, started);
        }
    };
    let outcome = run_child(command, timeout);
    if let Some(report) = outcome.stdout.as_deref().and_then(parse_report) {
        return report;
    }
    let check = CheckResult::failed("process", outcome.describe(), ErrorCategory::Crashed);
    ProbeReport::single(kind, precision, check, started)
}

/// The body of `whisper-dictation devices --probe-child SPEC`: probes the target and prints the
/// report as one JSON line on stdout. Returns the exit code: 0 once a report is printed (even a
/// failing one), 2 for a bad spec, 1 if stdout is unwritable.
pub fn probe_child_main(target_spec: &str) -> i32 {
    let started = Instant::now();
    let (kind, precision) = match parse_spec(target_spec) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return 2;
        }
    };
    let report = match ProbeTarget::parse(target_spec) {
        Ok(target) => run_probe(&target),
        Err(message) => {
            let check = CheckResult::failed("target", message, ErrorCategory::Unknown);
            ProbeReport::single(kind, precision, check, started)
        }
    };
    match print_report(&report) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("cannot write the probe report: {err}");
            1
        }
    }
}

fn print_report(report: &ProbeReport) -> io::Result<()> {
    let json = serde_json::to_string(report).map_err(io::Error::other)?;
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{json}")?;
    stdout.flush()
}

fn parse_report(stdout: &str) -> Option<ProbeReport> {
    stdout
        .lines()
        .rev()
        .filter_map(|line| line.find('{').map(|start| line[start..].trim()))
        .find_map(|json| serde_json::from_str(json).ok())
}

/// How a child process ended, and what it wrote.
struct ChildOutcome {
    end: ChildEnd,
    stdout: Option<String>,
    stderr: String,
}

enum ChildEnd {
    NotStarted(io::Error),
    Exited(ExitStatus),
    TimedOut(Duration),
    WaitFailed(io::Error),
}

impl ChildOutcome {
    /// The error text of a `process` check: what happened, then the end of stderr.
    fn describe(&self) -> String {
        let what = match &self.end {
            ChildEnd::NotStarted(err) => format!("the probe process could not start: {err}"),
            ChildEnd::Exited(status) if status.code().is_none() => {
                format!("the probe process died ({status})")
            }
            ChildEnd::Exited(status) => {
                format!("the probe process ended without a report ({status})")
            }
            ChildEnd::TimedOut(limit) => format!(
                "the probe process did not finish within {:.1} s and was killed",
                limit.as_secs_f64()
            ),
            ChildEnd::WaitFailed(err) => format!("waiting for the probe process failed: {err}"),
        };
        match self.stderr.trim() {
            "" => what,
            tail => format!("{what}; stderr: {tail}"),
        }
    }
}

fn run_child(mut command: Command, timeout: Duration) -> ChildOutcome {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return ChildOutcome {
                end: ChildEnd::NotStarted(err),
                stdout: None,
                stderr: String::new(),
            }
        }
    };
    let stdout = Capture::start(child.stdout.take());
    let stderr = Capture::start(child.stderr.take());
    let end = wait_or_kill(&mut child, timeout);
    ChildOutcome {
        end,
        stdout: Some(String::from_utf8_lossy(&stdout.finish(READER_GRACE)).into_owned()),
        stderr: tail(&stderr.finish(READER_GRACE), STDERR_TAIL_BYTES),
    }
}

/// Waits for `child` up to `timeout`, killing it (and reaping it) when the time is up.
fn wait_or_kill(child: &mut Child, timeout: Duration) -> ChildEnd {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return ChildEnd::Exited(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return ChildEnd::TimedOut(timeout);
            }
            Ok(None) => thread::sleep(Duration::from_millis(10)),
            Err(err) => {
                let _ = child.kill();
                let _ = child.wait();
                return ChildEnd::WaitFailed(err);
            }
        }
    }
}

/// The last `max_bytes` of `bytes` as text.
fn tail(bytes: &[u8], max_bytes: usize) -> String {
    let start = bytes.len().saturating_sub(max_bytes);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// A pipe drained on its own thread, so a chatty child never blocks on a full pipe.
struct Capture {
    buffer: Arc<Mutex<Vec<u8>>>,
    reader: Option<JoinHandle<()>>,
}

impl Capture {
    fn start(pipe: Option<impl Read + Send + 'static>) -> Self {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let reader = pipe.map(|pipe| {
            let buffer = Arc::clone(&buffer);
            thread::spawn(move || drain(pipe, &buffer))
        });
        Capture { buffer, reader }
    }

    /// What was read, after giving the reader up to `grace` to reach the end of the pipe (a
    /// grandchild may still hold it open; its reader thread then finishes on its own later).
    fn finish(self, grace: Duration) -> Vec<u8> {
        let deadline = Instant::now() + grace;
        if let Some(reader) = self.reader {
            while !reader.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
        match self.buffer.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

fn drain(mut pipe: impl Read, buffer: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => match buffer.lock() {
                Ok(mut guard) => guard.extend_from_slice(&chunk[..n]),
                Err(poisoned) => poisoned.into_inner().extend_from_slice(&chunk[..n]),
            },
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::simulated::ENV_VAR;

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
                "  {:<14} passed={:<5} max_abs={:<10} rel={:<10} {}",
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

    #[test]
    fn child_with_a_missing_exe_is_a_crash_report() {
        let report = probe_in_child(
            Path::new("/nonexistent/whisper-dictation"),
            "mps:f16",
            Duration::from_secs(5),
        );
        assert_eq!(
            (report.kind, report.precision.as_str()),
            (DeviceKind::Mps, "f16")
        );
        let check = report.first_failure().unwrap();
        assert_eq!(check.name, "process");
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        assert!(check.error.as_deref().unwrap().contains("could not start"));
    }

    #[test]
    fn child_that_aborts_is_a_crash_report_quoting_stderr() {
        let mut command = Command::new("/bin/sh");
        command.args([
            "-c",
            "echo 'LLVM ERROR: Failed to infer result type(s).' >&2; kill -ABRT $$",
        ]);
        let report = probe_with_command(command, "mps", Duration::from_secs(10));
        let check = report.first_failure().unwrap();
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        let error = check.error.as_deref().unwrap();
        assert!(
            error.contains("died") && error.contains("LLVM ERROR"),
            "{error}"
        );
    }

    #[test]
    fn child_that_hangs_is_killed_and_reported() {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", "exec sleep 30"]);
        let started = Instant::now();
        let report = probe_with_command(command, "cuda", Duration::from_millis(300));
        println!("hanging child reported after {:?}", started.elapsed());
        let check = report.first_failure().unwrap();
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        assert!(check.error.as_deref().unwrap().contains("did not finish"));
    }

    /// The test binary itself as the probe child: runs [`child_entry`] with the spec in
    /// `PROBE_TEST_CHILD_SPEC` and the simulated GPU `simulation`.
    fn test_child(spec: &str, simulation: Option<&str>) -> Command {
        let exe = std::env::current_exe().expect("test binary path");
        let mut command = Command::new(exe);
        command
            .args(["--exact", "device::probe::tests::child_entry"])
            .args(["--ignored", "--nocapture", "--test-threads=1"])
            .env("PROBE_TEST_CHILD_SPEC", spec);
        match simulation {
            Some(simulation) => command.env(ENV_VAR, simulation),
            None => command.env_remove(ENV_VAR),
        };
        command
    }

    #[test]
    #[ignore = "the probe child of the child-process tests"]
    fn child_entry() {
        if let Ok(spec) = std::env::var("PROBE_TEST_CHILD_SPEC") {
            probe_child_main(&spec);
        }
    }

    #[test]
    fn child_process_probe_reports_through_stdout() {
        let timeout = Duration::from_secs(120);
        let report = probe_with_command(test_child("cpu", None), "cpu", timeout);
        show("child cpu f32", &report);
        assert!(report.passed(), "{report:#?}");

        let report = probe_with_command(
            test_child("mps", Some("mps,corrupt=conv1d")),
            "mps",
            timeout,
        );
        assert_eq!(report.kind, DeviceKind::Mps);
        assert_eq!(report.first_failure().unwrap().name, "conv1d");
    }

    #[test]
    fn child_process_abort_in_the_probe_is_a_crash() {
        let command = test_child("mps", Some("mps,abort=probe"));
        let report = probe_with_command(command, "mps", Duration::from_secs(120));
        show("child mps abort=probe", &report);
        let check = report.first_failure().unwrap();
        assert_eq!(check.name, "process");
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        assert!(
            check.error.as_deref().unwrap().contains("LLVM ERROR"),
            "{check:?}"
        );
    }
}
