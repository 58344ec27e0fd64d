//! Whether a GPU computes the right words: the GPU warm-up transcribes the built-in sample
//! ([`super::workload`]) anyway, and its words must be the sample's known text
//! ([`SAMPLE_TEXT`]). A GPU whose kernels return wrong numbers without an error (PyTorch's MPS
//! backend has shipped such kernels) gives plausible-looking garbage — "!!!!", repetitions,
//! other words — which this decision catches where the probe's small checks may not. The device
//! manager then treats the GPU as giving wrong results ([`super::errors::ErrorCategory::WrongResults`]).
//!
//! The warm-up decodes a limited number of tokens ([`crate::whisper::params::TOKEN_BUDGET_MARGIN`]),
//! so what it heard is compared with the start of the known text: the best word error rate
//! over the known text's beginnings about as long as what was heard.

use super::workload::SAMPLE_TEXT;
use crate::wer::{normalised_words, word_errors};

/// Most word errors, in percent of the compared words, that still count as the sample's words.
/// Every model the app offers hears the sample without an error on the CPU (tests/fixtures/
/// parity); a wrong kernel's output is wrong in most words (a simulated one: 100 %).
pub const MAX_WORD_ERROR_PERCENT: f64 = 40.0;

/// Fewer words than this heard from the sample's 14 is wrong whatever they are (a broken GPU
/// may stop at once).
pub const MIN_WORDS_HEARD: usize = 4;

/// How much longer or shorter than what was heard a compared beginning may be (a dropped or
/// split word must not count twice).
const LENGTH_SLACK: usize = 2;

/// What the words heard from the sample say about the device.
#[derive(Debug, Clone, PartialEq)]
pub enum SampleWords {
    /// The sample's words, with `wer_percent` word errors.
    Right { wer_percent: f64 },
    /// Other words: the device computes wrong numbers. `heard` is what it heard (shortened).
    Wrong { wer_percent: f64, heard: String },
}

impl SampleWords {
    pub fn is_wrong(&self) -> bool {
        matches!(self, SampleWords::Wrong { .. })
    }

    /// The failure text the device manager records for wrong words (it classifies as
    /// WrongResults); `None` when the words were right.
    pub fn failure_message(&self) -> Option<String> {
        match self {
            SampleWords::Right { .. } => None,
            SampleWords::Wrong { wer_percent, heard } => {
                Some(super::errors::wrong_words_message(*wer_percent, heard))
            }
        }
    }
}

/// Judges `heard`, the model's transcript of the built-in sample.
pub fn judge_sample_words(heard: &str) -> SampleWords {
    judge_words(SAMPLE_TEXT, heard)
}

/// Judges `heard` against `known` (see the module doc).
pub fn judge_words(known: &str, heard: &str) -> SampleWords {
    let known = normalised_words(known);
    let heard_words = normalised_words(heard);
    let wer_percent = best_prefix_wer(&known, &heard_words);
    let enough = heard_words.len() >= MIN_WORDS_HEARD.min(known.len());
    if enough && wer_percent <= MAX_WORD_ERROR_PERCENT {
        SampleWords::Right { wer_percent }
    } else {
        SampleWords::Wrong {
            wer_percent,
            heard: shortened(heard.trim(), 80),
        }
    }
}

/// The lowest word error rate (percent) of `heard` against a beginning of `known` of about its
/// length; 100 when nothing was heard.
fn best_prefix_wer(known: &[String], heard: &[String]) -> f64 {
    if heard.is_empty() || known.is_empty() {
        return if heard.len() == known.len() {
            0.0
        } else {
            100.0
        };
    }
    let shortest = heard.len().saturating_sub(LENGTH_SLACK).max(1);
    let longest = (heard.len() + LENGTH_SLACK).min(known.len());
    (shortest.min(longest)..=longest)
        .map(|len| 100.0 * word_errors(&known[..len], heard) as f64 / len as f64)
        .fold(f64::INFINITY, f64::min)
}

fn shortened(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::errors::{classify, ErrorCategory};

    fn wer(words: &SampleWords) -> f64 {
        match words {
            SampleWords::Right { wer_percent } | SampleWords::Wrong { wer_percent, .. } => {
                *wer_percent
            }
        }
    }

    #[test]
    fn the_whole_sample_or_its_beginning_is_right() {
        for heard in [
            SAMPLE_TEXT,
            " the quarterly report is almost finished but the charts still need more work",
            // The warm-up's token budget stops the decoder early.
            "The quarterly report is almost finished, but the",
            "The quarterly report is almost",
            // A model's small slips are still the sample.
            "The quarterly report is almost finish, but the chart still needs more work.",
            "The quarterly report's almost finished, but the",
        ] {
            let words = judge_sample_words(heard);
            assert!(!words.is_wrong(), "{heard:?}: {words:?}");
            assert_eq!(words.failure_message(), None);
        }
        assert_eq!(wer(&judge_sample_words(SAMPLE_TEXT)), 0.0);
    }

    #[test]
    fn garbage_silence_and_other_words_are_wrong_results() {
        for heard in [
            "",
            "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
            "you you you you you you you you",
            "Thank you.",
            "The quarterly",
            "Please remind me to call the dentist tomorrow morning at nine.",
            "The the the the the the the the the the the the",
        ] {
            let words = judge_sample_words(heard);
            assert!(words.is_wrong(), "{heard:?}: {words:?}");
            let message = words.failure_message().unwrap();
            assert_eq!(classify(&message), ErrorCategory::WrongResults, "{message}");
        }
        assert_eq!(wer(&judge_sample_words("")), 100.0);
    }

    #[test]
    fn the_threshold_is_inclusive_and_long_garbage_is_shortened() {
        // 10 known words, 4 wrong: 40 %, still right; 5 wrong: wrong.
        let known = "one two three four five six seven eight nine ten";
        assert!(!judge_words(known, "one two three four five six x x x x").is_wrong());
        assert!(judge_words(known, "one two three four five x x x x x").is_wrong());
        let long = "!".repeat(500);
        match judge_sample_words(&long) {
            SampleWords::Wrong { heard, .. } => assert_eq!(heard.chars().count(), 81),
            right => panic!("{right:?}"),
        }
    }
}
