//! How many threads libtorch computes with on the CPU. On Apple silicon the cores are of two
//! kinds (an M1 has 4 performance and 4 efficiency cores): libtorch's default uses them all,
//! and a matrix product split evenly over both kinds waits for the slow ones, so the app uses
//! the performance cores (`hw.perflevel0.physicalcpu`, `platform::performance_cores`).
//! Elsewhere, and when the system does not say, libtorch's default stays. `--threads` (the CLI)
//! and optimisation level 2's measured choice set their own count later.

/// The thread count to set, given the performance cores the system reports and the logical
/// cores; `None` = keep libtorch's default.
pub fn compute_threads(performance_cores: Option<usize>, logical: usize) -> Option<usize> {
    performance_cores.filter(|&p| p > 0 && p < logical)
}

/// The cores worth computing on: the performance cores where the system tells them apart,
/// else all (for optimisation level 2's candidates, `tuning::candidates`).
pub fn cores_for_compute(performance_cores: Option<usize>, logical: usize) -> usize {
    compute_threads(performance_cores, logical).unwrap_or(logical.max(1))
}

/// This machine's logical cores.
pub fn logical_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Sets libtorch's thread count to [`compute_threads`] for this machine, if it decides one.
/// Call once at start, before the first computation.
pub fn apply_default() {
    if let Some(threads) = compute_threads(crate::platform::performance_cores(), logical_cores()) {
        tracing::debug!(threads, "computing on the performance cores");
        tch::set_num_threads(threads as i32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apple_silicon_computes_on_its_performance_cores() {
        // M1 / M2: 4 performance + 4 efficiency cores.
        assert_eq!(compute_threads(Some(4), 8), Some(4));
        assert_eq!(cores_for_compute(Some(4), 8), 4);
        // M1 Pro: 8 + 2.
        assert_eq!(compute_threads(Some(8), 10), Some(8));
    }

    #[test]
    fn elsewhere_libtorchs_default_stays() {
        // Linux, an Intel Mac (no performance levels), or a failed query.
        assert_eq!(compute_threads(None, 8), None);
        assert_eq!(cores_for_compute(None, 8), 8);
        // A machine whose cores are all performance cores, or a nonsense answer.
        assert_eq!(compute_threads(Some(8), 8), None);
        assert_eq!(compute_threads(Some(0), 8), None);
        assert_eq!(compute_threads(Some(12), 8), None);
        assert_eq!(cores_for_compute(None, 0), 1);
    }
}
