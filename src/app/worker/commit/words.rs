//! Rule 2 of [`super`] by words instead of segments: LocalAgreement-2 over the word times the
//! engine gives with [`crate::whisper::TranscribeParams::word_times`] (the cross-attention
//! alignment heads, `whisper::words`). Built and unit-tested on recorded pass results; not used
//! by the worker ([`super::RULES_IN_USE`] decides, by measurement).
//!
//! Two consecutive passes over audio from the same start agree on a prefix of words (the same
//! words, compared without case and punctuation, each ending within [`AGREEING_WORD_END`] of
//! the same time). Of that prefix, a word is committed only when
//! - it is not the earlier pass's last word (the earlier pass must have heard the word after
//!   it, so its end was not where that pass's audio stopped: "mar" of "market"), and
//! - it ends at least [`KEEP_LAST`] before the current pass's end (the end of the audio is
//!   where Whisper is least sure, and a word still being spoken lies there).
//!
//! The cut lies in the gap after the last committed word: the quietest [`super::SNAP_FRAME`]
//! from [`WORD_SNAP`] before that word's end to [`WORD_SNAP`] after the next word's start
//! (alignment times have 20 ms steps, and a word's end is usually the next one's start), never
//! within [`KEEP_LAST`] of the audio's end. Unlike segment ends, word gaps come every fraction
//! of a second, so speech without pauses can be committed as it goes.

use crate::app::hallucinations::normalise;
use crate::audio::level::rms;

use super::{SAMPLE_RATE, SNAP_FRAME};

/// Two passes agree on a word when its end times differ by at most this (seconds).
pub const AGREEING_WORD_END: f32 = 0.2;
/// No word ending in the pass's last this many seconds is committed, nor is the cut there.
pub const KEEP_LAST: f32 = 1.0;
/// How far around the gap between two words the cut may be searched (seconds).
pub const WORD_SNAP: f32 = 0.06;

/// One word of a pass, times in seconds from the start of the pass's audio.
#[derive(Debug, Clone, PartialEq)]
pub struct PassWord {
    pub text: String,
    pub start: f32,
    pub end: f32,
}

/// One transcription of the uncommitted audio, as words.
#[derive(Debug, Clone, PartialEq)]
pub struct WordPass {
    /// Where its audio starts in the recording (samples).
    pub start: usize,
    /// How long its audio is (samples).
    pub len: usize,
    pub words: Vec<PassWord>,
}

/// What [`decide_by_words`] commits of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordCommit {
    Nothing,
    /// Its first `words` words, and its audio up to `cut` samples from the pass's start.
    Words {
        words: usize,
        cut: usize,
    },
}

/// The rule of the module doc: what of `current` (whose audio is `audio`) is committed given
/// the pass before it (`previous`, `None` right after a commit).
pub fn decide_by_words(
    previous: Option<&WordPass>,
    current: &WordPass,
    audio: &[f32],
) -> WordCommit {
    let Some(previous) = previous.filter(|p| p.start == current.start) else {
        return WordCommit::Nothing;
    };
    let seconds = current.len as f32 / SAMPLE_RATE as f32;
    let agreed = current
        .words
        .iter()
        .zip(&previous.words)
        .take_while(|(now, before)| {
            normalise(&now.text) == normalise(&before.text)
                && (now.end - before.end).abs() <= AGREEING_WORD_END
        })
        .count();
    // Not the previous pass's last word, nor a word in the current pass's last second.
    let heard_after = agreed.min(previous.words.len().saturating_sub(1));
    let words = current.words[..heard_after]
        .iter()
        .take_while(|w| w.end <= seconds - KEEP_LAST)
        .count();
    // A committed prefix holds at least one word with letters or digits.
    let has_words = current.words[..words]
        .iter()
        .any(|w| !normalise(&w.text).is_empty());
    if words == 0 || !has_words {
        return WordCommit::Nothing;
    }
    let last = &current.words[words - 1];
    let next_start = current.words.get(words).map_or(last.end, |w| w.start);
    match cut_in_gap(audio, last.end, next_start.max(last.end), seconds) {
        Some(cut) => WordCommit::Words { words, cut },
        None => WordCommit::Nothing,
    }
}

/// The middle of the quietest [`SNAP_FRAME`] from [`WORD_SNAP`] before `end` (a word's end) to
/// [`WORD_SNAP`] after `next_start` (the next word's start), not within [`KEEP_LAST`] of the
/// end of `audio` (`seconds` long); in samples. `None` when no frame fits.
fn cut_in_gap(audio: &[f32], end: f32, next_start: f32, seconds: f32) -> Option<usize> {
    let to_sample = |t: f32| (t.max(0.0) * SAMPLE_RATE as f32) as usize;
    let frame = to_sample(SNAP_FRAME);
    let from = to_sample(end - WORD_SNAP);
    let latest = to_sample(seconds - KEEP_LAST).min(audio.len());
    let to = (to_sample(next_start + WORD_SNAP) + frame).min(latest);
    (from..to.saturating_sub(frame).max(from))
        .step_by((frame / 3).max(1))
        .filter(|&at| at + frame <= to)
        .map(|at| (at, rms(&audio[at..at + frame])))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(at, _)| at + frame / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word_pass(start: usize, seconds: f32, words: &[(&str, f32, f32)]) -> WordPass {
        WordPass {
            start,
            len: (seconds * SAMPLE_RATE as f32) as usize,
            words: words
                .iter()
                .map(|&(text, start, end)| PassWord {
                    text: text.into(),
                    start,
                    end,
                })
                .collect(),
        }
    }

    /// Speech-like audio: a tone everywhere except 30 ms of near-quiet around each gap (s).
    fn speech_with_gaps(seconds: f32, gaps: &[f32]) -> Vec<f32> {
        let n = (seconds * SAMPLE_RATE as f32) as usize;
        (0..n)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                if gaps.iter().any(|&g| (t - g).abs() < 0.015) {
                    0.001
                } else {
                    0.3 * (t * 2.0 * std::f32::consts::PI * 220.0).sin()
                }
            })
            .collect()
    }

    /// "Good morning everyone, here are the notes from yesterday's planning session." said
    /// without a pause (as on `long_25s_nopause.wav`): word ends are the next words' starts.
    const SENTENCE: [(&str, f32, f32); 12] = [
        (" Good", 0.0, 0.3),
        (" morning", 0.3, 0.72),
        (" everyone,", 0.72, 1.3),
        (" here", 1.3, 1.5),
        (" are", 1.5, 1.62),
        (" the", 1.62, 1.74),
        (" notes", 1.74, 2.1),
        (" from", 2.1, 2.3),
        (" yesterday's", 2.3, 2.9),
        (" planning", 2.9, 3.36),
        (" session.", 3.36, 4.0),
        (" First,", 4.1, 4.5),
    ];

    fn words_to(n: usize) -> Vec<(&'static str, f32, f32)> {
        SENTENCE[..n].to_vec()
    }

    #[test]
    fn speech_without_pauses_commits_the_agreed_words_but_the_last_second() {
        let audio = speech_with_gaps(4.6, &[1.3, 2.1, 2.3, 2.9]);
        // The first pass (3.2 s) heard up to "planning" (cut short at its end).
        let mut first = word_pass(0, 3.2, &words_to(9));
        first.words.push(PassWord {
            text: " plan".into(),
            start: 2.9,
            end: 3.2,
        });
        // One pass alone commits nothing.
        assert_eq!(
            decide_by_words(None, &first, &audio[..first.len]),
            WordCommit::Nothing
        );
        let second = word_pass(0, 4.6, &words_to(12));
        match decide_by_words(Some(&first), &second, &audio) {
            WordCommit::Words { words, cut } => {
                // Agreed up to "yesterday's" (not "plan"/"planning"), which ends 1.7 s before
                // the end of the pass.
                assert_eq!(words, 9);
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!((at - 2.9).abs() < 0.02, "cut at {at}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_word_straddling_the_cut_stays_whole_in_the_next_pass() {
        // "yesterday's" spans 2.3-2.9 s; the quiet gap before it is at 2.3 s, and its own
        // middle (2.6 s) is quieter still: the cut may not go there.
        let mut audio = speech_with_gaps(4.6, &[2.3]);
        for s in &mut audio[(2.59 * 16_000.0) as usize..(2.62 * 16_000.0) as usize] {
            *s = 0.0;
        }
        let previous = word_pass(0, 3.5, &words_to(10));
        // The current pass is 3.8 s long: "yesterday's" (ends 2.9) is inside the last second
        // of neither pass, but "planning" (ends 3.36) is in the current pass's last second.
        let current = word_pass(0, 3.8, &words_to(10));
        match decide_by_words(Some(&previous), &current, &audio[..current.len]) {
            WordCommit::Words { words, cut } => {
                assert_eq!(
                    words, 8,
                    "up to \"from\": \"yesterday's\" ends at 2.9 > 3.8 - 1"
                );
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!(
                    (at - 2.3).abs() < 0.02,
                    "cut at {at}, not inside the next word"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_pass_that_disagrees_commits_only_what_came_before_the_disagreement() {
        let audio = speech_with_gaps(4.6, &[0.72, 1.3]);
        let previous = word_pass(0, 4.0, &words_to(10));
        let mut current = word_pass(0, 4.6, &words_to(12));
        current.words[3].text = " there".into();
        match decide_by_words(Some(&previous), &current, &audio) {
            WordCommit::Words { words, cut } => {
                assert_eq!(words, 3, "\"Good morning everyone,\"");
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!((at - 1.3).abs() < 0.02, "cut at {at}");
            }
            other => panic!("{other:?}"),
        }
        // Disagreeing from the first word, or on where the words end: nothing.
        current.words[0].text = " Could".into();
        assert_eq!(
            decide_by_words(Some(&previous), &current, &audio),
            WordCommit::Nothing
        );
        let mut late = word_pass(0, 4.6, &words_to(12));
        for w in &mut late.words {
            w.end += 0.3;
        }
        assert_eq!(
            decide_by_words(Some(&previous), &late, &audio),
            WordCommit::Nothing
        );
    }

    #[test]
    fn passes_over_different_audio_or_without_words_commit_nothing() {
        let audio = speech_with_gaps(4.6, &[2.3]);
        let previous = word_pass(0, 4.0, &words_to(10));
        let moved = word_pass(SAMPLE_RATE, 4.6, &words_to(12));
        assert_eq!(
            decide_by_words(Some(&previous), &moved, &audio),
            WordCommit::Nothing
        );
        let dots = [(" ...", 0.0, 2.0), (" ...", 2.0, 3.0)];
        let quiet = word_pass(0, 4.6, &dots);
        assert_eq!(
            decide_by_words(Some(&word_pass(0, 4.0, &dots)), &quiet, &audio),
            WordCommit::Nothing
        );
    }
}
