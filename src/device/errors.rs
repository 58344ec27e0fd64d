//! Device failures: what kind of failure an error text describes ([`classify`]), what the device
//! manager does about it ([`decide`]), and what the user is told ([`user_message`]).
//!
//! The texts this module recognises are the real ones libtorch, Metal and CUDA print. Each is kept
//! as a file in `tests/fixtures/device-errors/` (with the issue it came from in that folder's
//! README) and embedded here, so the simulated GPU fails with exactly what users see and a test
//! proves every one of them is classified correctly.
//!
//! Matching is by lowercase substrings, not regular expressions: the messages carry sizes,
//! addresses, op names and paths that vary, while a few fixed phrases identify the failure. The
//! order of the checks matters and is explained in [`classify`].

use super::{DeviceKind, Operation};
use crate::i18n::Message;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What kind of device failure an error message describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCategory {
    /// A sparse tensor reached a backend without sparse kernels (SparseMPS,
    /// `aten::empty.memory_format`).
    SparseBackend,
    /// The device ran out of memory (MPS, CUDA, HIP texts).
    OutOfMemory,
    /// An operator (or an operator for this dtype) is not implemented for the device.
    Unsupported,
    /// float64 requested on MPS.
    Float64Unsupported,
    /// The process died during a device operation (found at the next start).
    Crashed,
    /// The device computed silently wrong numbers (caught by the probe).
    WrongResults,
    /// Anything else.
    Unknown,
}

impl ErrorCategory {
    pub const ALL: [ErrorCategory; 7] = [
        ErrorCategory::SparseBackend,
        ErrorCategory::OutOfMemory,
        ErrorCategory::Unsupported,
        ErrorCategory::Float64Unsupported,
        ErrorCategory::Crashed,
        ErrorCategory::WrongResults,
        ErrorCategory::Unknown,
    ];

    /// The snake_case name, the same as the serde name (used in fixture file names, the
    /// simulated-GPU grammar and the history file).
    pub fn name(self) -> &'static str {
        match self {
            ErrorCategory::SparseBackend => "sparse_backend",
            ErrorCategory::OutOfMemory => "out_of_memory",
            ErrorCategory::Unsupported => "unsupported",
            ErrorCategory::Float64Unsupported => "float64_unsupported",
            ErrorCategory::Crashed => "crashed",
            ErrorCategory::WrongResults => "wrong_results",
            ErrorCategory::Unknown => "unknown",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().to_ascii_lowercase();
        ErrorCategory::ALL.into_iter().find(|c| c.name() == text)
    }
}

impl fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---------------------------------------------------------------------------------------------
// The real texts
// ---------------------------------------------------------------------------------------------

/// Embeds one fixture file, without its trailing newline.
macro_rules! fixture {
    ($file:literal) => {
        include_str!(concat!("../../tests/fixtures/device-errors/", $file)).trim_ascii_end()
    };
}

/// Every fixture: (category, file name, text). The first entry of each category is its
/// [`example_message`]. Sources are listed in `tests/fixtures/device-errors/README.md`.
pub const KNOWN_MESSAGES: &[(ErrorCategory, &str, &str)] = &[
    (
        ErrorCategory::SparseBackend,
        "sparse_backend.empty_memory_format.txt",
        fixture!("sparse_backend.empty_memory_format.txt"),
    ),
    (
        ErrorCategory::SparseBackend,
        "sparse_backend.sparse_coo_tensor.txt",
        fixture!("sparse_backend.sparse_coo_tensor.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.mps.txt",
        fixture!("out_of_memory.mps.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.mps_shared_pool.txt",
        fixture!("out_of_memory.mps_shared_pool.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.mps_invalid_buffer_size.txt",
        fixture!("out_of_memory.mps_invalid_buffer_size.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.cuda.txt",
        fixture!("out_of_memory.cuda.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.cuda_legacy.txt",
        fixture!("out_of_memory.cuda_legacy.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.cuda_error.txt",
        fixture!("out_of_memory.cuda_error.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.cublas_alloc_failed.txt",
        fixture!("out_of_memory.cublas_alloc_failed.txt"),
    ),
    (
        ErrorCategory::OutOfMemory,
        "out_of_memory.hip.txt",
        fixture!("out_of_memory.hip.txt"),
    ),
    (
        ErrorCategory::Unsupported,
        "unsupported.mps_op.txt",
        fixture!("unsupported.mps_op.txt"),
    ),
    (
        ErrorCategory::Unsupported,
        "unsupported.mps_op_2024.txt",
        fixture!("unsupported.mps_op_2024.txt"),
    ),
    (
        ErrorCategory::Unsupported,
        "unsupported.mps_op_2022.txt",
        fixture!("unsupported.mps_op_2022.txt"),
    ),
    (
        ErrorCategory::Unsupported,
        "unsupported.mps_mm_non_float.txt",
        fixture!("unsupported.mps_mm_non_float.txt"),
    ),
    (
        ErrorCategory::Unsupported,
        "unsupported.half.txt",
        fixture!("unsupported.half.txt"),
    ),
    (
        ErrorCategory::Unsupported,
        "unsupported.cuda_no_kernel_image.txt",
        fixture!("unsupported.cuda_no_kernel_image.txt"),
    ),
    (
        ErrorCategory::Float64Unsupported,
        "float64_unsupported.mps_tensor.txt",
        fixture!("float64_unsupported.mps_tensor.txt"),
    ),
    (
        ErrorCategory::Float64Unsupported,
        "float64_unsupported.mps_double_2022.txt",
        fixture!("float64_unsupported.mps_double_2022.txt"),
    ),
    (
        ErrorCategory::Float64Unsupported,
        "float64_unsupported.mps_complex_double.txt",
        fixture!("float64_unsupported.mps_complex_double.txt"),
    ),
    (
        ErrorCategory::Crashed,
        "crashed.llvm_infer_result_type.txt",
        fixture!("crashed.llvm_infer_result_type.txt"),
    ),
    (
        ErrorCategory::Crashed,
        "crashed.mpsndarray_total_bytes.txt",
        fixture!("crashed.mpsndarray_total_bytes.txt"),
    ),
    (
        ErrorCategory::Crashed,
        "crashed.uncaught_exception.txt",
        fixture!("crashed.uncaught_exception.txt"),
    ),
    (
        ErrorCategory::Crashed,
        "crashed.interrupted_operation.txt",
        fixture!("crashed.interrupted_operation.txt"),
    ),
    (
        ErrorCategory::WrongResults,
        "wrong_results.probe.txt",
        fixture!("wrong_results.probe.txt"),
    ),
    (
        ErrorCategory::WrongResults,
        "wrong_results.warm_up_words.txt",
        fixture!("wrong_results.warm_up_words.txt"),
    ),
    (
        ErrorCategory::Unknown,
        "unknown.mps_command_buffer_internal_error.txt",
        fixture!("unknown.mps_command_buffer_internal_error.txt"),
    ),
    (
        ErrorCategory::Unknown,
        "unknown.cuda_illegal_memory_access.txt",
        fixture!("unknown.cuda_illegal_memory_access.txt"),
    ),
];

/// A real error text of this category, as libtorch prints it (used by the simulated GPU).
/// Crashed is what MPS prints to stderr just before it aborts the process; WrongResults is the
/// probe's own text, since a device that computes wrong numbers prints nothing.
pub fn example_message(category: ErrorCategory) -> &'static str {
    known_messages(category)
        .next()
        .unwrap_or("unexpected device error")
}

/// All the real texts of this category.
pub fn known_messages(category: ErrorCategory) -> impl Iterator<Item = &'static str> {
    KNOWN_MESSAGES
        .iter()
        .filter(move |(c, _, _)| *c == category)
        .map(|(_, _, text)| *text)
}

// ---------------------------------------------------------------------------------------------
// Our own texts (no library prints anything for these)
// ---------------------------------------------------------------------------------------------

/// The phrase [`crash_message`] uses and [`classify`] looks for.
const CRASH_PHRASE: &str = "process ended during a device operation";
/// The phrase [`wrong_results_message`] uses and [`classify`] looks for.
const WRONG_RESULTS_PHRASE: &str = "results differ from the cpu";
/// The phrase [`wrong_words_message`] uses and [`classify`] looks for.
const WRONG_WORDS_PHRASE: &str = "words differ from the built-in sample";

/// The text recorded when a crash marker for `op` on `device` is found at the next start.
pub fn crash_message(device: DeviceKind, op: Operation) -> String {
    format!("{CRASH_PHRASE} ({device} {op}); found at the next start")
}

/// The probe's text when a check's device output differs from the CPU by more than `tolerance`.
pub fn wrong_results_message(check: &str, max_abs_diff: f32, tolerance: f32) -> String {
    format!(
        "device results differ from the CPU in probe check '{check}': \
         max abs difference {max_abs_diff} > tolerance {tolerance}"
    )
}

/// The text recorded when the model on a device heard the built-in sample wrong (the GPU
/// warm-up's words check, [`super::sample_check`]): `wer_percent` word errors, `heard` the words.
pub fn wrong_words_message(wer_percent: f64, heard: &str) -> String {
    format!(
        "the model's {WRONG_WORDS_PHRASE}'s text: {wer_percent:.0} % word errors (heard {heard:?})"
    )
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

/// Recognises one category in a lowercased message.
type Matcher = fn(&str) -> bool;

/// The checks of [`classify`], in order: the first match wins.
const CHECKS: [(Matcher, ErrorCategory); 6] = [
    (is_crash, ErrorCategory::Crashed),
    (is_wrong_results, ErrorCategory::WrongResults),
    (is_sparse_backend, ErrorCategory::SparseBackend),
    (is_float64_unsupported, ErrorCategory::Float64Unsupported),
    (is_out_of_memory, ErrorCategory::OutOfMemory),
    (is_unsupported, ErrorCategory::Unsupported),
];

/// What kind of failure `message` (an error text from tch/libtorch, Metal or CUDA, or one of
/// ours) describes. Case-insensitive; anything unrecognised is [`ErrorCategory::Unknown`].
///
/// The checks run in the order of `CHECKS` because some texts contain another category's
/// words: a crash report can quote an unsupported dtype (`c10::TypeError: Trying to convert
/// ComplexFloat to the MPS backend`), our probe text names a check, float64 texts read like
/// other "MPS backend" dtype errors, and the SparseMPS text lists backends.
pub fn classify(message: &str) -> ErrorCategory {
    let text = message.to_lowercase();
    CHECKS
        .into_iter()
        .find(|(matches, _)| matches(&text))
        .map_or(ErrorCategory::Unknown, |(_, category)| category)
}

fn contains_any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| text.contains(p))
}

/// The process was (or is being) killed: MPSGraph's LLVM abort, Metal assertions, a C++
/// exception escaping a device thread, or our crash record.
fn is_crash(text: &str) -> bool {
    contains_any(
        text,
        &[
            "llvm error:",
            "failed assertion",
            "terminating with uncaught exception",
            "abort trap",
            CRASH_PHRASE,
        ],
    )
}

fn is_wrong_results(text: &str) -> bool {
    contains_any(text, &[WRONG_RESULTS_PHRASE, WRONG_WORDS_PHRASE])
}

/// "Could not run 'aten::…' with arguments from the 'SparseMPS' backend" (or SparseCUDA, …).
fn is_sparse_backend(text: &str) -> bool {
    text.contains("with arguments from the 'sparse")
}

/// MPS has no float64: "Cannot convert a MPS Tensor to float64 dtype", older "Trying to
/// convert Double to the MPS backend", and complex128 ("ComplexDouble").
fn is_float64_unsupported(text: &str) -> bool {
    let names_mps = text.contains("mps");
    let names_float64 = contains_any(
        text,
        &["float64", "convert double to", "convert complexdouble to"],
    );
    names_mps && names_float64
}

/// Caching-allocator OOM (MPS/CUDA/HIP, old and new wording, `torch.OutOfMemoryError`),
/// driver-level `CUDA error: out of memory`, cuBLAS workspace allocation, an MPS buffer larger
/// than the device allows, and Metal's `kIOGPUCommandBufferCallbackErrorOutOfMemory`.
fn is_out_of_memory(text: &str) -> bool {
    contains_any(
        text,
        &[
            "out of memory",
            "outofmemory",
            "cublas_status_alloc_failed",
            "invalid buffer size",
            "insufficient memory",
        ],
    )
}

/// Missing operators: the MPS fallback error (2022 wording "not current implemented" too), a
/// dispatcher "Could not run … with arguments from the '…' backend" for a dense backend,
/// missing dtype kernels ("not implemented for 'Half'"), ops the MPS device refuses, other
/// dtypes MPS has no mapping for, and CUDA builds without kernels for this GPU.
fn is_unsupported(text: &str) -> bool {
    let mps_refuses = text.contains("mps")
        && contains_any(
            text,
            &[
                "does not support",
                "is not supported",
                "to the mps backend but",
            ],
        );
    mps_refuses
        || contains_any(
            text,
            &[
                "implemented for the mps device",
                "not implemented for '",
                "with arguments from the '",
                "no kernel image is available",
                "not linked with support for",
            ],
        )
}

// ---------------------------------------------------------------------------------------------
// What to do
// ---------------------------------------------------------------------------------------------

/// What the device manager does after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Move the whole model to the CPU and run the operation again there.
    RetryOnCpu,
    /// Free cached device memory and run again on the same device with a smaller working set
    /// (greedy decoding instead of beam search).
    RetrySameDeviceWithLessMemory,
    /// Nothing left to try: report the failure to the user.
    GiveUp,
}

/// How many out-of-memory failures on one GPU are answered by a lighter retry on that GPU
/// before moving to the CPU.
pub const OOM_RETRIES_ON_SAME_DEVICE: u32 = 1;

/// What to do after a failure of `category` on `device`. `attempts_on_this_device` counts the
/// attempts of this operation on this device so far, including the one that just failed (the
/// first failure passes 1; 0 is treated like 1).
///
/// Retrying the GPU later (with backoff) is the policy's business, not this function's: here
/// the user is waiting for their text, so every non-memory GPU failure goes to the CPU at once.
pub fn decide(
    category: ErrorCategory,
    device: DeviceKind,
    attempts_on_this_device: u32,
) -> Decision {
    if !device.is_gpu() {
        // The CPU is the last resort: there is no other device to fall back to, and the CPU
        // path has no device-specific failure to work around.
        return Decision::GiveUp;
    }
    match category {
        // Memory use depends on the request: freeing the allocator's cached blocks and decoding
        // greedily (one hypothesis instead of five) often fits, and keeps GPU speed. If that
        // still does not fit, the model needs more than this GPU has; system RAM is larger (and
        // on Apple silicon the CPU path is not bound by the MPS high-watermark limit).
        ErrorCategory::OutOfMemory if attempts_on_this_device <= OOM_RETRIES_ON_SAME_DEVICE => {
            Decision::RetrySameDeviceWithLessMemory
        }
        ErrorCategory::OutOfMemory => Decision::RetryOnCpu,
        // The backend has no sparse kernels: the same call fails the same way every time. The
        // CPU has them.
        ErrorCategory::SparseBackend => Decision::RetryOnCpu,
        // A missing operator or dtype kernel is a property of this libtorch build and device:
        // deterministic, so retrying here is pointless. The CPU implements every operator.
        ErrorCategory::Unsupported => Decision::RetryOnCpu,
        // Metal has no double type at all; MPS will never run float64.
        ErrorCategory::Float64Unsupported => Decision::RetryOnCpu,
        // The process died mid-operation last time; trying again risks losing this dictation
        // to another abort, which cannot be caught.
        ErrorCategory::Crashed => Decision::RetryOnCpu,
        // The device returns plausible but wrong numbers ("!!!!" transcripts): nothing it
        // computes for this model can be trusted.
        ErrorCategory::WrongResults => Decision::RetryOnCpu,
        // We cannot tell whether it is transient; the CPU is known to work, and the GPU gets
        // another chance later through the policy's backoff.
        ErrorCategory::Unknown => Decision::RetryOnCpu,
    }
}

// ---------------------------------------------------------------------------------------------
// What to tell the user
// ---------------------------------------------------------------------------------------------

/// The message shown to the user for a failure of `category` and the `decision` taken.
/// `gpu_name` is the device's display name (e.g. "Apple M1"); it is not used for CPU failures.
/// After [`Decision::GiveUp`] the detail is the category name; a caller that has the raw error
/// text may build [`Message::CannotTranscribe`] with a line of it instead.
pub fn user_message(category: ErrorCategory, decision: Decision, gpu_name: &str) -> Message {
    let gpu = gpu_name.to_string();
    match decision {
        Decision::RetrySameDeviceWithLessMemory => Message::GpuOutOfMemoryRetrying,
        Decision::RetryOnCpu => switching_to_cpu_message(category, gpu),
        Decision::GiveUp if category == ErrorCategory::OutOfMemory => Message::NotEnoughMemory,
        Decision::GiveUp => Message::CannotTranscribe {
            detail: category.name().to_string(),
        },
    }
}

fn switching_to_cpu_message(category: ErrorCategory, gpu: String) -> Message {
    match category {
        ErrorCategory::OutOfMemory => Message::GpuOutOfMemory,
        ErrorCategory::SparseBackend | ErrorCategory::Float64Unsupported => {
            Message::GpuIncompatible { gpu }
        }
        ErrorCategory::Unsupported => Message::GpuUnsupportedOperation { gpu },
        ErrorCategory::Crashed => Message::GpuCrashedLastTime { gpu },
        ErrorCategory::WrongResults => Message::GpuWrongResults { gpu },
        ErrorCategory::Unknown => Message::GpuUnknownError { gpu },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::UiLang;
    use std::path::{Path, PathBuf};

    fn fixture_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/device-errors")
    }

    /// (file name, category from the name prefix, text) for every `.txt` in the folder.
    fn fixture_files() -> Vec<(String, ErrorCategory, String)> {
        let mut files: Vec<_> = std::fs::read_dir(fixture_dir())
            .expect("fixture folder")
            .map(|entry| entry.expect("dir entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "txt"))
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let prefix = name.split('.').next().unwrap_or_default().to_string();
                let category: ErrorCategory =
                    serde_json::from_value(serde_json::Value::String(prefix))
                        .unwrap_or_else(|_| panic!("{name}: prefix is not a category"));
                let text = std::fs::read_to_string(&path).expect("fixture text");
                (name, category, text)
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn every_fixture_file_classifies_to_its_name_prefix() {
        let files = fixture_files();
        assert!(files.len() >= 20, "only {} fixtures", files.len());
        for (name, category, text) in &files {
            assert_eq!(classify(text), *category, "{name}");
        }
    }

    #[test]
    fn every_fixture_file_is_embedded_and_nothing_else_is() {
        let files = fixture_files();
        assert_eq!(files.len(), KNOWN_MESSAGES.len());
        for (name, category, text) in &files {
            let known = KNOWN_MESSAGES.iter().find(|(_, n, _)| n == name);
            let (c, _, t) = known.unwrap_or_else(|| panic!("{name} missing in KNOWN_MESSAGES"));
            assert_eq!(c, category, "{name}");
            assert_eq!(*t, text.trim_end(), "{name}");
        }
    }

    #[test]
    fn every_category_has_a_real_example_that_classifies_back() {
        for category in ErrorCategory::ALL {
            let example = example_message(category);
            assert!(KNOWN_MESSAGES.iter().any(|(_, _, t)| *t == example));
            assert_eq!(classify(example), category, "{example}");
            assert!(!example.ends_with('\n'));
        }
    }

    #[test]
    fn names_match_the_serde_names_used_by_the_simulated_gpu() {
        for category in ErrorCategory::ALL {
            let json = serde_json::to_value(category).unwrap();
            assert_eq!(json, serde_json::Value::String(category.name().into()));
            assert_eq!(ErrorCategory::parse(category.name()), Some(category));
        }
        assert_eq!(ErrorCategory::parse("melted"), None);
    }

    #[test]
    fn our_own_texts_match_their_fixtures_and_classify() {
        let crash = crash_message(DeviceKind::Mps, Operation::Encode);
        assert!(known_messages(ErrorCategory::Crashed).any(|t| t == crash));
        assert_eq!(classify(&crash), ErrorCategory::Crashed);
        let wrong = wrong_results_message("conv1d", 2.5, 0.001);
        assert_eq!(wrong, example_message(ErrorCategory::WrongResults));
        // A check named after a float64 op must still read as wrong results.
        let wrong_f64 = wrong_results_message("mps float64 cast", 1.0, 0.001);
        assert_eq!(classify(&wrong_f64), ErrorCategory::WrongResults);
        let words = wrong_words_message(100.0, "!!!!!!!!");
        assert!(known_messages(ErrorCategory::WrongResults).any(|t| t == words));
        // Whatever the model heard (here words that read like other categories) stays quoted
        // after the phrase that decides.
        let noisy = wrong_words_message(93.4, "out of memory, not supported on MPS");
        assert_eq!(classify(&noisy), ErrorCategory::WrongResults);
    }

    #[test]
    fn classification_is_case_insensitive_and_handles_tch_forms() {
        assert_eq!(
            classify("mps BACKEND OUT OF MEMORY"),
            ErrorCategory::OutOfMemory
        );
        // Through tch the Python prefix is absent and C++ frames follow.
        let tch = "Could not run 'aten::empty.memory_format' with arguments from the \
                   'SparseMPS' backend.\nException raised from reportError at \
                   ../aten/src/ATen/core/dispatch/OperatorEntry.cpp:548 (most recent call first):";
        assert_eq!(classify(tch), ErrorCategory::SparseBackend);
        assert_eq!(
            classify("Could not run 'aten::foo' with arguments from the 'MPS' backend."),
            ErrorCategory::Unsupported
        );
    }

    #[test]
    fn unrelated_or_empty_text_is_unknown() {
        for text in [
            "",
            "   ",
            "device busy",
            "CUDA error: device-side assert triggered",
        ] {
            assert_eq!(classify(text), ErrorCategory::Unknown, "{text:?}");
        }
    }

    #[test]
    fn gpu_out_of_memory_retries_lighter_once_then_cpu() {
        let oom = ErrorCategory::OutOfMemory;
        for gpu in [DeviceKind::Mps, DeviceKind::Cuda] {
            assert_eq!(decide(oom, gpu, 0), Decision::RetrySameDeviceWithLessMemory);
            assert_eq!(decide(oom, gpu, 1), Decision::RetrySameDeviceWithLessMemory);
            assert_eq!(decide(oom, gpu, 2), Decision::RetryOnCpu);
            assert_eq!(decide(oom, gpu, 9), Decision::RetryOnCpu);
        }
    }

    #[test]
    fn every_other_gpu_failure_goes_to_the_cpu_at_once() {
        for category in ErrorCategory::ALL {
            if category == ErrorCategory::OutOfMemory {
                continue;
            }
            for gpu in [DeviceKind::Mps, DeviceKind::Cuda] {
                for attempts in [0, 1, 5] {
                    assert_eq!(decide(category, gpu, attempts), Decision::RetryOnCpu);
                }
            }
        }
    }

    #[test]
    fn the_cpu_has_nothing_to_fall_back_to() {
        for category in ErrorCategory::ALL {
            for attempts in [0, 1, 5] {
                assert_eq!(
                    decide(category, DeviceKind::Cpu, attempts),
                    Decision::GiveUp
                );
            }
        }
    }

    #[test]
    fn user_messages_follow_the_decision() {
        let msg = |c, d| user_message(c, d, "Apple M1");
        let m1 = || "Apple M1".to_string();
        use Decision::*;
        use ErrorCategory::*;
        assert_eq!(
            msg(OutOfMemory, RetrySameDeviceWithLessMemory),
            Message::GpuOutOfMemoryRetrying
        );
        assert_eq!(msg(OutOfMemory, RetryOnCpu), Message::GpuOutOfMemory);
        assert_eq!(
            msg(SparseBackend, RetryOnCpu),
            Message::GpuIncompatible { gpu: m1() }
        );
        assert_eq!(
            msg(Float64Unsupported, RetryOnCpu),
            Message::GpuIncompatible { gpu: m1() }
        );
        assert_eq!(
            msg(Unsupported, RetryOnCpu),
            Message::GpuUnsupportedOperation { gpu: m1() }
        );
        assert_eq!(
            msg(Crashed, RetryOnCpu),
            Message::GpuCrashedLastTime { gpu: m1() }
        );
        assert_eq!(
            msg(WrongResults, RetryOnCpu),
            Message::GpuWrongResults { gpu: m1() }
        );
        assert_eq!(
            msg(Unknown, RetryOnCpu),
            Message::GpuUnknownError { gpu: m1() }
        );
        assert_eq!(msg(OutOfMemory, GiveUp), Message::NotEnoughMemory);
        assert_eq!(
            msg(Unsupported, GiveUp),
            Message::CannotTranscribe {
                detail: "unsupported".into()
            }
        );
    }

    #[test]
    fn the_sparse_mps_error_tells_users_about_compatibility_in_polish() {
        let category = classify(example_message(ErrorCategory::SparseBackend));
        let decision = decide(category, DeviceKind::Mps, 1);
        let text = user_message(category, decision, "M1").text(UiLang::Pl);
        assert_eq!(
            text,
            "Wykryto problem kompatybilności z GPU M1. Przełączam na CPU."
        );
    }
}
