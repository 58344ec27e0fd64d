//! The device manager: the single source of truth for where Whisper runs (Apple MPS, CUDA or
//! the CPU). It detects backends, probes what a device really computes (compared with the
//! CPU), keeps a persistent history of which operation succeeded where, survives crashes in
//! the middle of a device operation, falls back to the CPU consistently (the whole model moves),
//! retries the GPU with exponential backoff, and explains what happened in Polish or English.

pub mod backend;
pub mod cpu_class;
pub mod errors;
pub mod history;
pub mod kernel_cache;
pub mod manager;
pub mod policy;
pub mod probe;
pub mod sample_check;
pub mod setup;
pub mod simulated;
pub mod threads;
pub mod tuning;
pub mod workload;

use serde::{Deserialize, Serialize};
use std::fmt;

/// A kind of compute device, as users and the history file name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Cpu,
    Cuda,
    Mps,
}

impl DeviceKind {
    pub const ALL: [DeviceKind; 3] = [DeviceKind::Mps, DeviceKind::Cuda, DeviceKind::Cpu];

    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Cuda => "cuda",
            DeviceKind::Mps => "mps",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "cpu" => Some(DeviceKind::Cpu),
            "cuda" | "gpu" | "rocm" => Some(DeviceKind::Cuda),
            "mps" | "metal" => Some(DeviceKind::Mps),
            _ => None,
        }
    }

    pub fn is_gpu(self) -> bool {
        self != DeviceKind::Cpu
    }
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An operation whose outcomes are tracked per device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// Moving the weights to the device.
    Load,
    /// Running the audio encoder.
    Encode,
    /// Running the text decoder.
    Decode,
    /// The capability probe.
    Probe,
}

impl Operation {
    pub const ALL: [Operation; 4] = [
        Operation::Load,
        Operation::Encode,
        Operation::Decode,
        Operation::Probe,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Operation::Load => "load",
            Operation::Encode => "encode",
            Operation::Decode => "decode",
            Operation::Probe => "probe",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Operation::ALL
            .into_iter()
            .find(|op| op.name() == text.trim().to_ascii_lowercase())
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
