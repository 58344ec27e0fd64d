//! A pass not believed: one whose words leave out a stretch the pass before it heard in the
//! same audio ([`words_left_out`]). Whisper sometimes starts a window's text a sentence late,
//! or jumps a sentence, most often in noise: measured on the noisy-room clip with babble at
//! 5 dB (`desktop_noisy_room`), the pass over 10.1 s heard both sentences and key-up's pass
//! over 11.3 s of the same recording, started from the same sample, only the second; that
//! pass's text stood for the recording, and the person saw both sentences on the overlay and
//! got one pasted, in 2 of 4 runs. Such a pass is left out: the stream stays as the pass
//! before left it (what it shows, commits and compares with), so key-up transcribes
//! the audio again rather than take it. One pass in a row at most is doubted: a second that
//! agrees with it outvotes the first.

use super::super::commit::words::WordPass;
use super::{Progress, Stream, SAMPLE_RATE};

/// At least this many of the earlier pass's words, all in one stretch the later pass heard
/// nothing in, make the later pass doubted: fewer may be a word or two Whisper wrote over
/// noise (an "and", a "you") that the longer pass rightly did not.
pub const LEFT_OUT_WORDS: usize = 4;
/// ... and that stretch of the earlier pass's words lasts at least this (seconds): a
/// sentence's worth, never a re-segmented word or two.
pub const LEFT_OUT_SECONDS: f32 = 1.0;
/// Word times of two passes over the same audio differ by up to this much (seconds, as the
/// word rule's [`super::super::commit::words::AGREEING_WORD_END`]).
const SLACK: f32 = 0.2;

/// Where `later` (a pass over the same audio as `earlier`, from the same sample, and
/// longer) left out words `earlier` heard: the stretch (seconds from the passes' start) and
/// how many words, for the first such stretch before or between `later`'s words. `None`
/// when the passes start elsewhere, either heard no words, or nothing of
/// [`LEFT_OUT_WORDS`] words and [`LEFT_OUT_SECONDS`] is missing. The audio after `later`'s last
/// word is not looked at: there the longer pass, hearing more of what follows, is the one to
/// believe (a half-heard last word, "Thank you." over trailing noise).
pub fn words_left_out(earlier: &WordPass, later: &WordPass) -> Option<LeftOut> {
    if earlier.start != later.start || later.len < earlier.len {
        return None;
    }
    let (first, _) = later.words.split_first()?;
    let mut gaps = vec![(0.0, first.start)];
    gaps.extend(later.words.windows(2).map(|w| (w[0].end, w[1].start)));
    gaps.into_iter().find_map(|(from, to)| {
        let inside: Vec<_> = earlier
            .words
            .iter()
            .filter(|w| w.start >= from - SLACK && w.end <= to + SLACK)
            .collect();
        let (first, last) = (inside.first()?, inside.last()?);
        let seconds = last.end - first.start;
        (inside.len() >= LEFT_OUT_WORDS && seconds >= LEFT_OUT_SECONDS).then_some(LeftOut {
            from_s: first.start,
            to_s: last.end,
            words: inside.len(),
        })
    })
}

impl Stream {
    /// `None` when a pass whose words (after the last commit) are `pass` is believed: it left
    /// out nothing the last pass heard ([`words_left_out`]), or the last pass was itself
    /// doubted. Otherwise what to show for it: the stream as the last pass left it, which
    /// is unchanged by it.
    pub(super) fn doubted(&mut self, pass: Option<&WordPass>) -> Option<Progress> {
        let left_out = match (self.doubted_last, pass, self.hypothesis.as_ref()) {
            (false, Some(pass), Some(before)) => words_left_out(before, pass),
            _ => None,
        };
        self.doubted_last = left_out.is_some();
        let left_out = left_out?;
        let start_s = self.hypothesis.as_ref().map_or(0, |h| h.start) as f32 / SAMPLE_RATE as f32;
        tracing::info!(
            id = self.id,
            from_s = start_s + left_out.from_s,
            to_s = start_s + left_out.to_s,
            words = left_out.words,
            "a pass left out words the pass before heard there; not believed"
        );
        Some(Progress {
            committed: self.committed_text(),
            tentative: self.tentative_text(),
            commit: None,
        })
    }
}

/// A stretch of the earlier pass's words the later pass left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeftOut {
    /// Where the stretch starts and ends, seconds from the passes' start.
    pub from_s: f32,
    pub to_s: f32,
    /// How many of the earlier pass's words it holds.
    pub words: usize,
}

#[cfg(test)]
mod tests {
    use super::super::super::commit::words::tests::word_pass as pass;
    use super::*;

    const RATE: usize = 16_000;

    /// The babble clip's two passes (times as the word alignment gave them, rounded): the
    /// longer one starts at the second sentence.
    fn babble_passes() -> (WordPass, WordPass) {
        let earlier = pass(
            0,
            10.1,
            &[
                (" and", 0.9, 1.1),
                (" allow", 1.1, 1.5),
                (" fresh", 1.5, 1.9),
                (" bread", 1.9, 2.3),
                (" to", 2.3, 2.4),
                (" my", 2.4, 2.6),
                (" shopping", 2.6, 3.0),
                (" list.", 3.0, 3.5),
                (" Please", 4.1, 4.4),
                (" take", 4.4, 4.7),
                (" your", 4.7, 4.9),
                (" laptops", 4.9, 5.5),
                (" on", 5.6, 5.8),
                (" Friday", 5.8, 6.3),
            ],
        );
        let later = pass(
            0,
            11.3,
            &[
                (" I'm", 4.0, 4.1),
                (" going", 4.1, 4.2),
                (" to", 4.2, 4.3),
                (" take", 4.4, 4.7),
                (" your", 4.7, 4.9),
                (" laptops", 4.9, 5.5),
                (" on", 5.6, 5.8),
                (" Friday", 5.8, 6.3),
            ],
        );
        (earlier, later)
    }

    #[test]
    fn a_longer_pass_that_starts_a_sentence_late_left_it_out() {
        let (earlier, later) = babble_passes();
        assert_eq!(
            words_left_out(&earlier, &later),
            Some(LeftOut {
                from_s: 0.9,
                to_s: 3.5,
                words: 8
            })
        );
    }

    #[test]
    fn a_sentence_jumped_between_two_words_is_left_out_too() {
        let (earlier, _) = babble_passes();
        let mut later = earlier.clone();
        later.len += RATE;
        // "fresh bread to my shopping" gone: five words over 1.5 s.
        later.words.drain(2..7);
        let left_out = words_left_out(&earlier, &later).expect("left out");
        assert_eq!((left_out.words, left_out.from_s), (5, 1.5));
    }

    #[test]
    fn passes_that_agree_or_differ_in_a_few_words_are_both_believed() {
        let (earlier, _) = babble_passes();
        let mut later = earlier.clone();
        later.len += RATE;
        assert_eq!(words_left_out(&earlier, &later), None);
        // Times shifted by the alignment, and words written differently: same stretches.
        for word in &mut later.words {
            word.start += 0.15;
            word.end += 0.15;
            word.text = word.text.to_uppercase();
        }
        assert_eq!(words_left_out(&earlier, &later), None);
        // Three words over noise the longer pass did not write ("and allow fresh").
        let mut later = earlier.clone();
        later.len += RATE;
        later.words.drain(..3);
        assert_eq!(words_left_out(&earlier, &later), None);
        // Words lost after the later pass's last word: the longer pass is believed.
        let mut later = earlier.clone();
        later.len += RATE;
        later.words.truncate(8);
        assert_eq!(words_left_out(&earlier, &later), None);
    }

    #[test]
    fn only_a_longer_pass_from_the_same_sample_with_words_is_compared() {
        let (earlier, later) = babble_passes();
        let elsewhere = WordPass {
            start: RATE,
            ..later.clone()
        };
        assert_eq!(words_left_out(&earlier, &elsewhere), None);
        let shorter = WordPass {
            len: earlier.len - 1,
            ..later.clone()
        };
        assert_eq!(words_left_out(&earlier, &shorter), None);
        let silent = WordPass {
            words: Vec::new(),
            ..later
        };
        assert_eq!(words_left_out(&earlier, &silent), None);
    }
}
