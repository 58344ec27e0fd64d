//! The placement decision, as a pure function of what is known: the available backends, what
//! the user asked for, the operation history with its backoff, and (asked lazily, only for the
//! GPU that would be chosen) whether the capability probe passes. One device is chosen for the
//! whole model — loading, encoding and decoding — so they never disagree: a GPU is used only
//! while every one of those operations is healthy on it, or when its backoff has expired and it
//! deserves another try.

use super::backend::DeviceChoice;
use super::history::History;
use super::{DeviceKind, Operation};

/// The operations that must all be healthy for the model to live on a device.
pub const MODEL_OPERATIONS: [Operation; 3] =
    [Operation::Load, Operation::Encode, Operation::Decode];

/// Where the model goes, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub kind: DeviceKind,
    pub reason: Reason,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// The best available device, healthy.
    Preferred,
    /// The device the user asked for.
    Requested,
    /// The user asked for a device this machine does not have.
    RequestedMissing { requested: DeviceKind },
    /// No GPU on this machine.
    NoGpu,
    /// The GPU's probe found errors or wrong results.
    ProbeFailed { gpu: DeviceKind },
    /// An operation failed too often on the GPU recently (success rate below 0.8 of the last 5)
    /// and its backoff has not expired.
    Unhealthy {
        gpu: DeviceKind,
        op: Operation,
        success_rate: f32,
    },
    /// The GPU had failures but its backoff expired: it is tried again.
    RetryAfterBackoff { gpu: DeviceKind },
}

/// Chooses the device for the model. `available` is in preference order and ends with the CPU;
/// `probe_passes` is called at most once per GPU considered.
pub fn choose(
    available: &[DeviceKind],
    choice: DeviceChoice,
    history: &History,
    now: u64,
    probe_passes: &mut dyn FnMut(DeviceKind) -> bool,
) -> Placement {
    let gpus: Vec<DeviceKind> = available.iter().copied().filter(|k| k.is_gpu()).collect();
    let (candidates, mut fallback_reason) = match choice {
        DeviceChoice::Only(DeviceKind::Cpu) => return placed(DeviceKind::Cpu, Reason::Requested),
        DeviceChoice::Only(kind) if gpus.contains(&kind) => (vec![kind], Reason::NoGpu),
        DeviceChoice::Only(kind) => (gpus, Reason::RequestedMissing { requested: kind }),
        DeviceChoice::Auto => (gpus, Reason::NoGpu),
    };
    let asked_for = |gpu| choice == DeviceChoice::Only(gpu);
    for gpu in candidates {
        let unhealthy = worst_operation(history, gpu);
        if let Some((op, success_rate)) = unhealthy {
            if !history.may_retry(gpu, now) {
                fallback_reason = Reason::Unhealthy {
                    gpu,
                    op,
                    success_rate,
                };
                continue;
            }
        }
        if !probe_passes(gpu) {
            fallback_reason = Reason::ProbeFailed { gpu };
            continue;
        }
        let reason = match (unhealthy, &fallback_reason) {
            (Some(_), _) => Reason::RetryAfterBackoff { gpu },
            (None, Reason::RequestedMissing { .. }) => fallback_reason.clone(),
            (None, _) if asked_for(gpu) => Reason::Requested,
            (None, _) => Reason::Preferred,
        };
        return placed(gpu, reason);
    }
    placed(DeviceKind::Cpu, fallback_reason)
}

/// The model operation with the lowest success rate on `gpu`, if any is unhealthy.
pub fn worst_operation(history: &History, gpu: DeviceKind) -> Option<(Operation, f32)> {
    MODEL_OPERATIONS
        .into_iter()
        .filter(|&op| !history.is_healthy(gpu, op))
        .map(|op| (op, history.success_rate(gpu, op).unwrap_or(0.0)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn placed(kind: DeviceKind, reason: Reason) -> Placement {
    Placement { kind, reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::history::{BackoffPolicy, Outcome};

    const NOW: u64 = 1_000_000;
    const MAC: [DeviceKind; 2] = [DeviceKind::Mps, DeviceKind::Cpu];

    fn fresh() -> History {
        History::new(BackoffPolicy {
            base_secs: 60,
            cap_secs: 3600,
        })
    }

    fn fail(h: &mut History, op: Operation, at: u64) {
        h.record(
            DeviceKind::Mps,
            op,
            Outcome::failure(at, "sparse_backend", "SparseMPS"),
        );
    }

    fn probe_ok(_: DeviceKind) -> bool {
        true
    }

    #[test]
    fn auto_prefers_a_healthy_gpu_and_cpu_only_machines_use_the_cpu() {
        let p = choose(&MAC, DeviceChoice::Auto, &fresh(), NOW, &mut probe_ok);
        assert_eq!(p, placed(DeviceKind::Mps, Reason::Preferred));
        let p = choose(
            &[DeviceKind::Cpu],
            DeviceChoice::Auto,
            &fresh(),
            NOW,
            &mut probe_ok,
        );
        assert_eq!(p, placed(DeviceKind::Cpu, Reason::NoGpu));
    }

    #[test]
    fn a_failed_operation_moves_the_whole_model_until_the_backoff_expires() {
        let mut h = fresh();
        fail(&mut h, Operation::Encode, NOW - 10);
        let p = choose(&MAC, DeviceChoice::Auto, &h, NOW, &mut probe_ok);
        assert_eq!(p.kind, DeviceKind::Cpu);
        assert!(matches!(
            p.reason,
            Reason::Unhealthy {
                op: Operation::Encode,
                ..
            }
        ));
        // 60 s later the GPU is tried again.
        let p = choose(&MAC, DeviceChoice::Auto, &h, NOW + 60, &mut probe_ok);
        assert_eq!(
            p,
            placed(
                DeviceKind::Mps,
                Reason::RetryAfterBackoff {
                    gpu: DeviceKind::Mps
                }
            )
        );
    }

    #[test]
    fn four_of_five_successes_keep_the_gpu() {
        let mut h = fresh();
        for i in 0..4 {
            h.record(
                DeviceKind::Mps,
                Operation::Decode,
                Outcome::success(NOW - 100 + i),
            );
        }
        fail(&mut h, Operation::Decode, NOW - 1);
        h.record(DeviceKind::Mps, Operation::Decode, Outcome::success(NOW));
        let p = choose(&MAC, DeviceChoice::Auto, &h, NOW, &mut probe_ok);
        assert_eq!(p.kind, DeviceKind::Mps);
    }

    #[test]
    fn a_failing_probe_means_the_cpu_and_is_asked_only_for_candidates() {
        let mut asked = Vec::new();
        let mut probe = |k| {
            asked.push(k);
            false
        };
        let p = choose(&MAC, DeviceChoice::Auto, &fresh(), NOW, &mut probe);
        assert_eq!(
            p,
            placed(
                DeviceKind::Cpu,
                Reason::ProbeFailed {
                    gpu: DeviceKind::Mps
                }
            )
        );
        assert_eq!(asked, vec![DeviceKind::Mps]);
        let mut never = |_| panic!("the CPU needs no probe");
        choose(
            &MAC,
            DeviceChoice::Only(DeviceKind::Cpu),
            &fresh(),
            NOW,
            &mut never,
        );
    }

    #[test]
    fn a_missing_requested_device_falls_back_to_auto_and_says_so() {
        let p = choose(
            &MAC,
            DeviceChoice::Only(DeviceKind::Cuda),
            &fresh(),
            NOW,
            &mut probe_ok,
        );
        assert_eq!(
            p,
            placed(
                DeviceKind::Mps,
                Reason::RequestedMissing {
                    requested: DeviceKind::Cuda
                }
            )
        );
        let p = choose(
            &[DeviceKind::Cpu],
            DeviceChoice::Only(DeviceKind::Mps),
            &fresh(),
            NOW,
            &mut probe_ok,
        );
        assert_eq!(
            p,
            placed(
                DeviceKind::Cpu,
                Reason::RequestedMissing {
                    requested: DeviceKind::Mps
                }
            )
        );
        let p = choose(
            &MAC,
            DeviceChoice::Only(DeviceKind::Mps),
            &fresh(),
            NOW,
            &mut probe_ok,
        );
        assert_eq!(p, placed(DeviceKind::Mps, Reason::Requested));
    }
}
