//! How many CPU threads a decoder step that feeds one token runs on.
//!
//! A step of a small model multiplies one row by each decoder weight: a few hundred products
//! of 384–512 wide rows, each a few microseconds of work. Split over two threads, every one of
//! them wakes the other thread and waits for it (with `OMP_WAIT_POLICY=PASSIVE`, a futex each
//! way), which costs about as much CPU as the product saves in time. On one thread the step
//! takes the same time and the second core sleeps: measured on the 2-core test machine
//! (`cargo run --release --example step_threads`), the engine's CPU time for the project's 50 s
//! clip and for the app's passes drops by about a tenth to a sixth, with the same words, and
//! the time to the text does not grow (BENCHMARKS.md, "A one-token step on one thread").
//!
//! Only steps that feed one token of one row: a draft checked in one call, the prompt, the
//! word-time pass and beam search's rows are real products and keep every thread. Only models
//! whose step reads few weights ([`ONE_THREAD_STEP_VALUES`]: tiny and base); a larger model's
//! step is long enough that a second thread shortens it. Only the CPU: a GPU's step runs on the
//! device, whatever the CPU threads are.

use super::dims::ModelDims;
use tch::Device;

/// The most weight values a one-token step may read for it to run on one thread: above base's
/// 49 M (its 6 blocks and 51,865 × 512 token table), below small's 139 M. Measured for tiny and
/// base only; larger models keep the caller's threads.
pub const ONE_THREAD_STEP_VALUES: usize = 64 * 1024 * 1024;

/// The weight values one decoder step reads: per block the self-attention's four `d × d`
/// projections, the cross-attention's query and output (its keys and values are the audio's,
/// computed once a window), and the MLP's two `d × 4d`; then the token table (the output
/// projection).
pub fn step_weight_values(dims: &ModelDims) -> usize {
    let d = dims.n_text_state;
    dims.n_text_layer * 14 * d * d + dims.n_vocab * d
}

/// The threads a one-token step of a model of `dims` on `device` runs on: one on the CPU when
/// its step reads at most [`ONE_THREAD_STEP_VALUES`], otherwise `None` (the caller's).
pub fn for_one_token(dims: &ModelDims, device: Device) -> Option<i32> {
    (device == Device::Cpu && step_weight_values(dims) <= ONE_THREAD_STEP_VALUES).then_some(1)
}

/// While it lives, libtorch's CPU operations on this thread use at most the threads it was
/// made with; the count before comes back when it is dropped (also on an early return). The
/// count is libtorch's process-wide default too, which a thread takes at its first parallel
/// operation: a thread that starts its first one meanwhile keeps the smaller count.
#[must_use]
pub struct FewerThreads {
    previous: i32,
}

impl FewerThreads {
    /// `None` when `threads` is `None` or not fewer than this thread has now (nothing to do).
    pub fn limit(threads: Option<i32>) -> Option<FewerThreads> {
        let threads = threads?;
        let previous = tch::get_num_threads();
        (threads >= 1 && threads < previous).then(|| {
            tch::set_num_threads(threads);
            FewerThreads { previous }
        })
    }
}

impl Drop for FewerThreads {
    fn drop(&mut self) {
        tch::set_num_threads(self.previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(n_text_state: usize, n_text_layer: usize, n_vocab: usize) -> ModelDims {
        ModelDims {
            n_mels: 80,
            n_vocab,
            n_audio_ctx: 1500,
            n_audio_state: n_text_state,
            n_audio_head: n_text_state / 64,
            n_audio_layer: n_text_layer,
            n_text_ctx: 448,
            n_text_state,
            n_text_head: n_text_state / 64,
            n_text_layer,
        }
    }

    #[test]
    fn tiny_and_base_step_on_one_cpu_thread_and_larger_models_on_all() {
        let tiny_en = dims(384, 4, 51864);
        let base = dims(512, 6, 51865);
        let small = dims(768, 12, 51865);
        let turbo = dims(1280, 4, 51866);
        assert_eq!(step_weight_values(&base), 6 * 14 * 512 * 512 + 51865 * 512);
        assert_eq!(for_one_token(&tiny_en, Device::Cpu), Some(1));
        assert_eq!(for_one_token(&base, Device::Cpu), Some(1));
        assert_eq!(for_one_token(&small, Device::Cpu), None);
        assert_eq!(for_one_token(&turbo, Device::Cpu), None);
        assert_eq!(for_one_token(&base, Device::Cuda(0)), None);
        assert_eq!(for_one_token(&base, Device::Mps), None);
    }

    #[test]
    fn fewer_threads_hold_while_the_guard_lives_and_never_more() {
        let before = tch::get_num_threads();
        if before < 2 {
            tch::set_num_threads(2);
        }
        let start = tch::get_num_threads();
        {
            let _one = FewerThreads::limit(Some(1)).expect("fewer than the threads there are");
            assert_eq!(tch::get_num_threads(), 1);
        }
        assert_eq!(tch::get_num_threads(), start);
        assert!(FewerThreads::limit(Some(start)).is_none(), "not fewer");
        assert!(FewerThreads::limit(Some(start + 1)).is_none(), "never more");
        assert!(FewerThreads::limit(None).is_none());
        assert_eq!(tch::get_num_threads(), start);
        tch::set_num_threads(before);
    }
}
