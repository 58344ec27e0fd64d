//! A Whisper engine kept on the device the device manager chose. It loads the model there,
//! marks each encoder/decoder phase in flight through the manager, and when the device fails it
//! follows the manager's decision: retry with less memory, or move the whole model to the CPU
//! (one fallback moves everything: loading, encoding and decoding follow) and retry, so the
//! user still gets the text. A GPU whose backoff has expired is tried again on a later call.

use crate::device::errors::Decision;
use crate::device::manager::{DeviceManager, ManagerConfig};
use crate::device::sample_check::{judge_sample_words, SampleWords};
use crate::device::tuning::{candidates, fastest, CachedChoice, OptimizationLevel, TuningCache};
use crate::device::workload::{dictation_workloads, score, WorkloadTime};
use crate::device::{DeviceKind, Operation};
use crate::whisper::{
    CacheLayout, Engine, EngineError, LoadError, LoadOptions, PaddingEncoding, Phase,
    PhaseObserver, StepWeights, TranscribeError, TranscribeParams, Transcript,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tch::Kind;

#[derive(Debug, thiserror::Error)]
pub enum TranscriberError {
    #[error(transparent)]
    Load(#[from] EngineError),
    #[error(transparent)]
    Transcribe(#[from] TranscribeError),
}

pub struct Transcriber {
    manager: DeviceManager,
    model_dir: PathBuf,
    engine: Engine,
    on: DeviceKind,
}

impl Transcriber {
    /// Loads `model_dir` where the manager says, falling back to the CPU if that device fails.
    pub fn load(model_dir: &Path, mut manager: DeviceManager) -> Result<Self, TranscriberError> {
        let wanted = manager.placement().kind;
        let (engine, on) = load_with_fallback(&mut manager, model_dir, wanted)?;
        Ok(Transcriber {
            manager,
            model_dir: model_dir.to_path_buf(),
            engine,
            on,
        })
    }

    /// The device the model is on now.
    pub fn device(&self) -> DeviceKind {
        self.on
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn manager(&self) -> &DeviceManager {
        &self.manager
    }

    /// The operation under way on the device will not finish (the worker caught a panic in it,
    /// a bug of the app's, not the device's): its in-flight mark is cleared, nothing recorded.
    pub fn abandon_operation(&mut self) {
        self.manager.cancelled(self.on);
    }

    /// User-facing device messages since the last call.
    pub fn take_notices(&mut self) -> Vec<String> {
        self.manager.take_notices()
    }

    /// Transcribes on the current device; on a device failure follows the manager's decision.
    pub fn transcribe(
        &mut self,
        samples: &[f32],
        params: &TranscribeParams,
    ) -> Result<Transcript, TranscriberError> {
        self.transcribe_while(samples, params, &mut || true)
    }

    /// [`Self::transcribe`], stopping with [`TranscribeError::Stopped`] as soon as `keep_going`
    /// says so (asked between the encoder's blocks and before each phase).
    pub fn transcribe_while(
        &mut self,
        samples: &[f32],
        params: &TranscribeParams,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Transcript, TranscriberError> {
        self.return_to_gpu_if_due();
        let mut attempts = 0;
        let mut params = params.clone();
        loop {
            attempts += 1;
            let mut observer = ManagerObserver {
                manager: &mut self.manager,
                kind: self.on,
                keep_going: &mut *keep_going,
            };
            let error = match self
                .engine
                .transcribe_observed(samples, &params, &mut observer)
            {
                Ok(transcript) => return Ok(transcript),
                Err(e) => e,
            };
            let Some(phase) = error.phase().filter(|_| self.on.is_gpu()) else {
                return Err(error.into());
            };
            let op = operation_of(phase);
            let (_, decision) = self
                .manager
                .failed(self.on, op, &error.to_string(), attempts);
            match decision {
                Decision::RetrySameDeviceWithLessMemory => {
                    // Greedy decoding keeps one sequence instead of beam/best-of rows.
                    params.beam_size = None;
                    params.best_of = None;
                }
                Decision::RetryOnCpu => self.move_to(DeviceKind::Cpu)?,
                Decision::GiveUp => return Err(error.into()),
            }
        }
    }

    /// The GPU warm-up: transcribes the built-in sample (paying for the device's lazy set-up
    /// before the first dictation) and checks its words ([`judge_sample_words`]). Words other
    /// than the sample's mean the GPU computes wrong numbers: the manager records it as
    /// WrongResults ([`DeviceManager::wrong_results`]) and the model moves to the CPU. Returns
    /// the verdict, or `None` when no words were judged (the model is on the CPU, or the
    /// transcription failed and the usual fallback already moved it).
    pub fn warm_up_on_sample(&mut self) -> Result<Option<SampleWords>, TranscriberError> {
        let gpu = self.on;
        if !gpu.is_gpu() {
            return Ok(None);
        }
        let Some(sample) = dictation_workloads()
            .ok()
            .and_then(|w| w.into_iter().next())
        else {
            return Ok(None);
        };
        let params = TranscribeParams {
            language: Some("en".into()),
            temperatures: vec![0.0],
            // The per-window token budget is a margin plus a rate; a rate of 0 leaves the
            // margin: every later step has the shapes of the first ones.
            max_tokens_per_second: Some(0.0),
            ..TranscribeParams::default()
        };
        let transcript = self.transcribe(&sample.audio, &params)?;
        if self.on != gpu {
            return Ok(None);
        }
        let words = judge_sample_words(&transcript.text);
        if let Some(message) = words.failure_message() {
            let decision = self.manager.wrong_results(gpu, Operation::Decode, &message);
            if decision == Decision::RetryOnCpu {
                self.move_to(DeviceKind::Cpu)?;
            }
        }
        Ok(Some(words))
    }

    /// After a fallback, a GPU whose backoff expired gets another chance.
    fn return_to_gpu_if_due(&mut self) {
        if self.on.is_gpu() {
            return;
        }
        let wanted = self.manager.placement().kind;
        if wanted.is_gpu() {
            if let Ok(engine) = load_on(&mut self.manager, &self.model_dir, wanted) {
                self.engine = engine;
                self.on = wanted;
            }
        }
    }

    fn move_to(&mut self, kind: DeviceKind) -> Result<(), TranscriberError> {
        let (engine, on) = load_with_fallback(&mut self.manager, &self.model_dir, kind)?;
        self.engine = engine;
        self.on = on;
        Ok(())
    }
}

/// Loads on `kind`; a device failure there (not a bad file) moves the load to the CPU.
fn load_with_fallback(
    manager: &mut DeviceManager,
    model_dir: &Path,
    kind: DeviceKind,
) -> Result<(Engine, DeviceKind), TranscriberError> {
    match load_on(manager, model_dir, kind) {
        Ok(engine) => Ok((engine, kind)),
        Err(DeviceLoadError::Device(_)) if kind.is_gpu() => {
            let engine =
                load_on(manager, model_dir, DeviceKind::Cpu).map_err(|e| e.into_error())?;
            Ok((engine, DeviceKind::Cpu))
        }
        Err(e) => Err(e.into_error()),
    }
}

enum DeviceLoadError {
    /// The device failed (already recorded and explained by the manager).
    Device(String),
    /// The files are at fault; another device would not help.
    Files(EngineError),
}

impl DeviceLoadError {
    fn into_error(self) -> TranscriberError {
        match self {
            DeviceLoadError::Files(e) => e.into(),
            DeviceLoadError::Device(message) => {
                TranscriberError::Load(EngineError::Device(message))
            }
        }
    }
}

fn load_on(
    manager: &mut DeviceManager,
    model_dir: &Path,
    kind: DeviceKind,
) -> Result<Engine, DeviceLoadError> {
    let device_failed = |manager: &mut DeviceManager, message: String| {
        manager.failed(kind, Operation::Load, &message, 1);
        DeviceLoadError::Device(message)
    };
    if let Err(message) = manager.begin(kind, Operation::Load) {
        return Err(device_failed(manager, message));
    }
    manager.prepare(kind);
    let precision = match manager.config().optimization {
        OptimizationLevel::Benchmarked => benchmarked_precision(manager, model_dir, kind),
        _ => manager.precision_for(kind),
    };
    let opts = LoadOptions {
        device: manager.backend(kind).device,
        kind: precision,
        steps: step_weights_for(manager.config()),
    };
    match Engine::load(model_dir, &opts) {
        Ok(mut engine) => {
            if let Some(gpu) = manager.backend(kind).simulated {
                // The GPUs' decoder, computed on the CPU (broken where the simulation says).
                engine.set_cache_layout(CacheLayout::Fixed);
                engine.set_masked_attention(gpu.masked_attention());
            }
            manager.succeeded(kind, Operation::Load);
            Ok(engine)
        }
        Err(EngineError::Weights(e @ LoadError::Torch { .. })) => {
            Err(device_failed(manager, e.to_string()))
        }
        Err(e) => {
            // Not the device's fault: clear the in-flight mark without blaming it.
            manager.cancelled(kind);
            Err(DeviceLoadError::Files(e))
        }
    }
}

/// The decoder's step weights on the CPU (other devices ignore them): exact float at level 0,
/// the reference's numbers, and where the person named float32 (`cpu_precision: "f32"`,
/// `--precision f32`); otherwise int8 rows from level 1 on, the app's layout, whether the CPU
/// has native bf16 or not (BENCHMARKS.md: a step two to three times as fast, English words
/// unchanged).
pub fn step_weights_for(config: &ManagerConfig) -> StepWeights {
    if config.cpu_precision == Some(Kind::Float) {
        return StepWeights::Float;
    }
    step_weights_at(config.optimization)
}

fn step_weights_at(level: OptimizationLevel) -> StepWeights {
    if level >= OptimizationLevel::Hardware {
        StepWeights::Int8
    } else {
        StepWeights::Float
    }
}

/// Optimisation level 2: the fastest (precision, threads) for this device and model, timed once
/// on the app's real workload (a short and a long dictation, cold and warm; see
/// `device::workload`) and cached on disk. Sets the thread count it found; returns the
/// precision.
fn benchmarked_precision(manager: &mut DeviceManager, model_dir: &Path, kind: DeviceKind) -> Kind {
    let model = model_dir.display().to_string();
    let key = TuningCache::key(kind, &model, &crate::device::backend::libtorch_version());
    let mut cache = TuningCache::load(&manager.config().data_dir);
    let choice = match cache.get(&key) {
        Some(choice) => choice.clone(),
        None => {
            let caps = manager.capabilities(kind);
            let cores = crate::device::threads::cores_for_compute(
                crate::platform::performance_cores(),
                crate::device::threads::logical_cores(),
            );
            let device = manager.backend(kind).device;
            let measured = fastest(&candidates(caps, cores), &mut |c| {
                time_workload(model_dir, device, kind_of(c.precision), c.threads)
            });
            let Some((best, timings)) = measured else {
                return manager.precision_for(kind);
            };
            let seconds = timings
                .iter()
                .find(|(c, _)| *c == best)
                .map_or(0.0, |(_, d)| d.as_secs_f64());
            let choice = CachedChoice {
                precision: best.precision.to_string(),
                threads: best.threads,
                seconds,
            };
            if let Err(e) = cache.insert(key, choice.clone()) {
                tracing::warn!("cannot save the tuning cache: {e}");
            }
            choice
        }
    };
    tch::set_num_threads(choice.threads as i32);
    kind_of(&choice.precision)
}

fn kind_of(precision: &str) -> Kind {
    match precision {
        "bf16" => Kind::BFloat16,
        "f16" => Kind::Half,
        _ => Kind::Float,
    }
}

/// The workload score (cold + warm over the short and long dictation) of `precision` and
/// `threads`: a fresh model for each, so the cold call is really cold.
fn time_workload(
    model_dir: &Path,
    device: tch::Device,
    precision: Kind,
    threads: usize,
) -> Option<Duration> {
    let workloads = dictation_workloads().ok()?;
    let engine = Engine::load(
        model_dir,
        &LoadOptions {
            device,
            kind: precision,
            steps: step_weights_at(OptimizationLevel::Benchmarked),
        },
    )
    .ok()?;
    let previous = tch::get_num_threads();
    tch::set_num_threads(threads as i32);
    let params = TranscribeParams {
        language: Some("en".into()),
        temperatures: vec![0.0],
        ..TranscribeParams::default()
    };
    let mut times = Vec::with_capacity(workloads.len());
    for workload in &workloads {
        let run = || {
            let started = Instant::now();
            engine.transcribe(&workload.audio, &params).ok()?;
            Some(started.elapsed())
        };
        let (Some(cold), Some(warm)) = (run(), run()) else {
            tch::set_num_threads(previous);
            return None;
        };
        times.push(WorkloadTime { cold, warm });
    }
    tch::set_num_threads(previous);
    Some(score(&times))
}

fn operation_of(phase: Phase) -> Operation {
    match phase {
        Phase::Encode => Operation::Encode,
        Phase::Decode => Operation::Decode,
    }
}

/// Routes the engine's phase events to the device manager, and the caller's wish to stop to
/// the engine.
struct ManagerObserver<'a> {
    manager: &'a mut DeviceManager,
    kind: DeviceKind,
    keep_going: &'a mut dyn FnMut() -> bool,
}

impl PhaseObserver for ManagerObserver<'_> {
    fn start(&mut self, phase: Phase) -> Result<(), String> {
        self.manager.begin(self.kind, operation_of(phase))
    }

    fn end(&mut self, phase: Phase) {
        self.manager.succeeded(self.kind, operation_of(phase));
    }

    fn keep_going(&mut self) -> bool {
        (self.keep_going)()
    }

    /// Stopped by the caller, not by the device: the in-flight mark goes, nothing is recorded.
    fn abandoned(&mut self, _phase: Phase) {
        self.manager.cancelled(self.kind);
    }
}

/// The padding encoding used on `device`: the setting's on the CPU; whole windows on GPUs,
/// where the encoder is a small part of a transcription and the priming pass would run outside
/// the device manager's watch.
pub fn padding_on(device: DeviceKind, wanted: PaddingEncoding) -> PaddingEncoding {
    match device {
        DeviceKind::Cpu => wanted,
        _ => PaddingEncoding::Full,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_decoder_is_int8_from_level_one_unless_float32_was_named() {
        let mut config = ManagerConfig::new(std::path::PathBuf::from("/nonexistent"));
        assert_eq!(step_weights_for(&config), StepWeights::Float, "level 0");
        config.optimization = OptimizationLevel::Hardware;
        assert_eq!(step_weights_for(&config), StepWeights::Int8);
        config.cpu_precision = Some(Kind::BFloat16);
        assert_eq!(step_weights_for(&config), StepWeights::Int8);
        config.cpu_precision = Some(Kind::Float);
        assert_eq!(step_weights_for(&config), StepWeights::Float, "f32 named");
        config.cpu_precision = None;
        config.optimization = OptimizationLevel::Benchmarked;
        assert_eq!(step_weights_for(&config), StepWeights::Int8);
    }
}
