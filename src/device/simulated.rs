//! A simulated GPU for tests and demos on machines without one, chosen by the environment
//! variable `WHISPER_DICTATION_SIMULATE_GPU`. It computes on the CPU but presents itself as MPS
//! or CUDA, and at operation boundaries it can fail with the real libtorch error texts, abort
//! the process (as MPS does with "LLVM ERROR"), corrupt probe results, or compute the model's
//! own attention wrong (as MPS sometimes silently does). Real MPS and CUDA go through exactly
//! the same device-manager code, and the model runs the GPUs' decoder layout on it (the fixed
//! 448-slot cache attended through a boolean mask).
//!
//! Grammar (comma-separated, first item the kind):
//! `mps|cuda[,fail=OP:CATEGORY]...[,abort=OP[@N]]...[,panic=OP[@N]]...[,corrupt=CHECK]...[,wrong=PART]...[,name=NAME]`
//! e.g. `mps,name=M1,fail=load:sparse_backend,corrupt=conv1d`. OP is load, encode, decode or
//! probe; CATEGORY one of the [`ErrorCategory`] names (snake_case); CHECK a probe check name.
//! `abort=encode@2` aborts at the process's second encode on the device (the app's warm-up is
//! the first: the second is a dictation's), `abort=encode` at the first; `panic=OP[@N]` panics
//! there instead (a bug in the app's own code, which the transcription worker must survive).
//! `corrupt=CHECK` spoils
//! only that probe check's output; `wrong=attention` makes the decoder's masked self-attention
//! read the wrong rows of its boolean mask ([`MaskedAttention::MisreadsMask`], the kind of fault
//! PyTorch fixed in MPS's decode kernels) wherever it runs: in the real model (wrong words) and in the probe's
//! `masked_attention` check, which runs the model's function.

use super::errors::{example_message, ErrorCategory};
use super::{DeviceKind, Operation};
use crate::whisper::attention::MaskedAttention;

pub const ENV_VAR: &str = "WHISPER_DICTATION_SIMULATE_GPU";

#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedGpu {
    pub kind: DeviceKind,
    /// Shown to users, e.g. "M1".
    pub name: String,
    pub fail: Vec<(Operation, ErrorCategory)>,
    /// Operations that abort the process, at which of their runs in it (1 = the first).
    pub abort: Vec<(Operation, u32)>,
    /// Operations that panic, at which of their runs in the process.
    pub panic: Vec<(Operation, u32)>,
    pub corrupt: Vec<String>,
    /// Parts of the model that compute wrong numbers ([`WRONG_PARTS`]).
    pub wrong: Vec<String>,
}

/// What `wrong=PART` may name: the decoder's masked self-attention.
pub const WRONG_PARTS: [&str; 1] = ["attention"];

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{ENV_VAR}: {0}")]
pub struct SpecError(String);

impl SimulatedGpu {
    /// The simulated GPU the environment asks for, if any.
    pub fn from_env() -> Result<Option<Self>, SpecError> {
        match std::env::var(ENV_VAR) {
            Ok(spec) if !spec.trim().is_empty() => Self::parse(&spec).map(Some),
            _ => Ok(None),
        }
    }

    pub fn parse(spec: &str) -> Result<Self, SpecError> {
        let mut items = spec.split(',').map(str::trim).filter(|s| !s.is_empty());
        let kind = items
            .next()
            .and_then(DeviceKind::parse)
            .filter(|k| k.is_gpu())
            .ok_or_else(|| SpecError(format!("'{spec}' must start with mps or cuda")))?;
        let mut gpu = SimulatedGpu {
            kind,
            name: match kind {
                DeviceKind::Mps => "M1".to_string(),
                _ => "CUDA".to_string(),
            },
            fail: Vec::new(),
            abort: Vec::new(),
            panic: Vec::new(),
            corrupt: Vec::new(),
            wrong: Vec::new(),
        };
        for item in items {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| SpecError(format!("'{item}' is not KEY=VALUE")))?;
            match key {
                "fail" => {
                    let (op, category) = value
                        .split_once(':')
                        .ok_or_else(|| SpecError(format!("'{value}' is not OP:CATEGORY")))?;
                    gpu.fail.push((parse_op(op)?, parse_category(category)?));
                }
                "abort" | "panic" => {
                    let (op, at) = match value.split_once('@') {
                        Some((op, at)) => (
                            op,
                            at.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                                SpecError(format!("'{at}' in '{item}' is not a run number from 1"))
                            })?,
                        ),
                        None => (value, 1),
                    };
                    let list = if key == "abort" {
                        &mut gpu.abort
                    } else {
                        &mut gpu.panic
                    };
                    list.push((parse_op(op)?, at));
                }
                "corrupt" => gpu.corrupt.push(value.to_string()),
                "wrong" if WRONG_PARTS.contains(&value) => gpu.wrong.push(value.to_string()),
                "wrong" => {
                    return Err(SpecError(format!(
                        "'{value}' in '{item}' is not a part that can be wrong ({})",
                        WRONG_PARTS.join(", ")
                    )))
                }
                "name" => gpu.name = value.to_string(),
                _ => return Err(SpecError(format!("unknown key '{key}'"))),
            }
        }
        Ok(gpu)
    }

    /// Called just before `op` runs on this device: the configured failure as the real error
    /// text, a process abort (after printing what MPS prints), or a panic.
    pub fn before(&self, op: Operation) -> Result<(), String> {
        let run = count_run(op);
        if self.abort.contains(&(op, run)) {
            eprintln!("{}", example_message(ErrorCategory::Crashed));
            std::process::abort();
        }
        if self.panic.contains(&(op, run)) {
            panic!("simulated panic in {} (run {run})", op.name());
        }
        match self.fail.iter().find(|(o, _)| *o == op) {
            Some((_, category)) => Err(example_message(*category).to_string()),
            None => Ok(()),
        }
    }

    /// Whether the probe check `check` should return silently wrong numbers.
    pub fn corrupts(&self, check: &str) -> bool {
        self.corrupt.iter().any(|c| c == check || c == "all")
    }

    /// How the decoder's masked attention is computed on this device, in the model and in the
    /// probe alike.
    pub fn masked_attention(&self) -> MaskedAttention {
        if self.wrong.iter().any(|part| part == "attention") {
            MaskedAttention::MisreadsMask
        } else {
            MaskedAttention::Exact
        }
    }
}

/// Counts a run of `op` in this process; returns which run it is (1 = the first).
fn count_run(op: Operation) -> u32 {
    static RUNS: std::sync::Mutex<Vec<(Operation, u32)>> = std::sync::Mutex::new(Vec::new());
    let mut runs = RUNS.lock().unwrap_or_else(|p| p.into_inner());
    match runs.iter_mut().find(|(o, _)| *o == op) {
        Some((_, n)) => {
            *n = n.saturating_add(1);
            *n
        }
        None => {
            runs.push((op, 1));
            1
        }
    }
}

fn parse_op(text: &str) -> Result<Operation, SpecError> {
    Operation::parse(text).ok_or_else(|| SpecError(format!("unknown operation '{text}'")))
}

fn parse_category(text: &str) -> Result<ErrorCategory, SpecError> {
    serde_json::from_value(serde_json::Value::String(text.to_string()))
        .map_err(|_| SpecError(format!("unknown error category '{text}'")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_failures_aborts_and_corruption() {
        let gpu =
            SimulatedGpu::parse("mps,name=M2,fail=load:sparse_backend,abort=encode,corrupt=conv1d")
                .unwrap();
        assert_eq!(gpu.kind, DeviceKind::Mps);
        assert_eq!(gpu.name, "M2");
        assert_eq!(
            gpu.fail,
            vec![(Operation::Load, ErrorCategory::SparseBackend)]
        );
        assert_eq!(gpu.abort, vec![(Operation::Encode, 1)]);
        let later = SimulatedGpu::parse("mps,abort=encode@2,abort=decode@5").unwrap();
        assert_eq!(
            later.abort,
            vec![(Operation::Encode, 2), (Operation::Decode, 5)]
        );
        assert!(SimulatedGpu::parse("mps,abort=encode@0").is_err());
        let panics = SimulatedGpu::parse("cuda,panic=encode@2").unwrap();
        assert_eq!(panics.panic, vec![(Operation::Encode, 2)]);
        assert!(panics.abort.is_empty());
        assert!(SimulatedGpu::parse("mps,panic=melt").is_err());
        assert!(SimulatedGpu::parse("mps,abort=encode@x").is_err());
        assert!(gpu.corrupts("conv1d") && !gpu.corrupts("linear"));
        assert_eq!(gpu.masked_attention(), MaskedAttention::Exact);
        let wrong = SimulatedGpu::parse("mps,name=M1,wrong=attention").unwrap();
        assert_eq!(wrong.wrong, vec!["attention".to_string()]);
        assert_eq!(wrong.masked_attention(), MaskedAttention::MisreadsMask);
        assert!(
            !wrong.corrupts("masked_attention"),
            "a model fault, not a probe one"
        );
        let err = gpu.before(Operation::Load).unwrap_err();
        assert!(err.contains("SparseMPS"), "{err}");
        assert_eq!(gpu.before(Operation::Decode), Ok(()));
    }

    #[test]
    fn bad_specs_name_the_problem() {
        assert!(SimulatedGpu::parse("cpu")
            .unwrap_err()
            .0
            .contains("mps or cuda"));
        assert!(SimulatedGpu::parse("mps,fail=load")
            .unwrap_err()
            .0
            .contains("OP:CATEGORY"));
        assert!(SimulatedGpu::parse("mps,fail=load:melted")
            .unwrap_err()
            .0
            .contains("melted"));
        assert!(SimulatedGpu::parse("mps,wrong=conv1d")
            .unwrap_err()
            .0
            .contains("attention"));
        assert!(SimulatedGpu::parse("cuda,colour=red")
            .unwrap_err()
            .0
            .contains("colour"));
    }
}
