//! Rule 2 of [`super`] by words instead of segments: LocalAgreement-2 over the word times the
//! engine gives with [`crate::whisper::TranscribeParams::word_times`] (the cross-attention
//! alignment heads, `whisper::words`). In use ([`super::RULES_IN_USE`] says what it gave and
//! what went wrong on the way).
//!
//! Two consecutive passes over audio from the same start agree on a prefix of words (the same
//! words, compared without case and punctuation, each ending within [`AGREEING_WORD_END`] of
//! the same time). Of that prefix, a word is committed only when
//! - it is not the earlier pass's last word (the earlier pass must have heard the word after
//!   it, so its end was not where that pass's audio stopped: "mar" of "market"), and
//! - it ends at least [`KEEP_LAST`] before the current pass's end (the end of the audio is
//!   where Whisper is least sure, and a word still being spoken lies there), and
//! - it is, or comes before, the last word of those that ends a sentence (". ? ! …"): a pass
//!   that starts mid-sentence, with the committed text as Whisper's previous text, invents
//!   words ("closed on | Monday" gave "nd for maintenance work") where one that starts at a
//!   sentence does not.
//!
//! The previous pass need not start where the current one does: after a commit, what the
//! committing pass heard after its cut ([`WordPass::after_cut`]) is what the next pass is
//! compared with, so every pass can commit, not every second one.
//!
//! The cut lies in the gap after the last committed word: the quietest [`super::SNAP_FRAME`]
//! from [`WORD_SNAP`] before that word's end to [`WORD_SNAP`] after the next word's start
//! (alignment times have 20 ms steps, and a word's end is usually the next one's start), never
//! within [`KEEP_LAST`] of the audio's end. Unlike segment ends, word gaps come every fraction
//! of a second, so speech without pauses can be committed as it goes.

use crate::app::hallucinations::normalise;
use crate::audio::level::rms;
use crate::audio::pause::QUIET_FRACTION;
use crate::whisper::Transcript;

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

impl WordPass {
    /// `transcript`'s words as a pass over `len` samples from `start`; `None` when a segment
    /// with text has no words (word times were not asked for, or a window's alignment gave
    /// none): a prefix of words must be a prefix of the text.
    pub fn of(start: usize, len: usize, transcript: &Transcript) -> Option<WordPass> {
        let mut words = Vec::new();
        for segment in &transcript.segments {
            if segment.words.is_empty() && !normalise(&segment.text).is_empty() {
                return None;
            }
            words.extend(segment.words.iter().map(|w| PassWord {
                text: w.text.clone(),
                start: w.start,
                end: w.end,
            }));
        }
        Some(WordPass { start, len, words })
    }

    /// What this pass heard after its first `words` words, as a pass from `from` (samples
    /// from its start: where the next pass starts) on: the hypothesis the next pass is compared
    /// with. Every pass can then commit, instead of every second one.
    pub fn after(&self, words: usize, from: usize) -> WordPass {
        let shift = from as f32 / SAMPLE_RATE as f32;
        WordPass {
            start: self.start + from,
            len: self.len.saturating_sub(from),
            words: self.words[words.min(self.words.len())..]
                .iter()
                .map(|w| PassWord {
                    text: w.text.clone(),
                    start: (w.start - shift).max(0.0),
                    end: (w.end - shift).max(0.0),
                })
                .collect(),
        }
    }
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
    let agreed_words = current.words[..heard_after]
        .iter()
        .take_while(|w| w.end <= seconds - KEEP_LAST)
        .count();
    up_to_an_end(current, 0..agreed_words, audio, ends_sentence)
}

/// What of `current` (whose audio is `audio`) a later pass commits before it runs, with no
/// pass to agree with (settling: key-up's pass, a pause's, a stride's): its words from `from`
/// on that end at least [`KEEP_LAST`] before its end, up to the last one whose gap holds a
/// quiet frame, cut there as [`decide_by_words`] cuts. That pass then transcribes only the
/// audio after the cut (with [`CONTEXT`] before it) instead of all the audio since the last
/// commit, and the stream checks that it agrees with `current` after the cut. Any word, not
/// only a sentence end as passes that agree commit: a pass that starts mid-sentence with
/// [`CONTEXT`] of committed speech before it writes no worse words (the project's 35 s clip
/// without pauses: WER 2.7 % in three runs either way at key-up; the worker's `SETTLING_SAVES`
/// has the figures for every pass), and what it wrote first after the cut is checked against
/// `current`.
pub fn settle_by_words(current: &WordPass, from: usize, audio: &[f32]) -> WordCommit {
    up_to_an_end(
        current,
        from..before_the_last_second(current),
        audio,
        |_| true,
    )
}

/// How many of `current`'s first words end at least [`KEEP_LAST`] before its audio's end.
fn before_the_last_second(current: &WordPass) -> usize {
    let seconds = current.len as f32 / SAMPLE_RATE as f32;
    current
        .words
        .iter()
        .take_while(|w| w.end <= seconds - KEEP_LAST)
        .count()
}

/// Of `current`'s words in `candidates`, up to the last one that `ends` accepts (a sentence
/// end while the key is held, any word at key-up) and whose gap holds a quiet frame (alignment
/// times can be late at a sentence end in speech without pauses: a cut there would take the
/// next sentence's first sound).
fn up_to_an_end(
    current: &WordPass,
    candidates: std::ops::Range<usize>,
    audio: &[f32],
    ends: fn(&str) -> bool,
) -> WordCommit {
    let seconds = current.len as f32 / SAMPLE_RATE as f32;
    let quiet = quiet_level(audio);
    let first = candidates.start;
    let ends = candidates.rev().filter(|&i| ends(&current.words[i].text));
    for last_index in ends {
        let words = last_index + 1;
        // A committed part holds at least one word with letters or digits.
        if !current.words[first..words]
            .iter()
            .any(|w| !normalise(&w.text).is_empty())
        {
            break;
        }
        let last = &current.words[last_index];
        let next_start = current.words.get(words).map_or(last.end, |w| w.start);
        if let Some((cut, level)) = cut_in_gap(audio, last.end, next_start.max(last.end), seconds) {
            if level <= quiet {
                return WordCommit::Words { words, cut };
            }
        }
    }
    WordCommit::Nothing
}

/// How quiet a cut's frame must be: [`QUIET_FRACTION`] of the pass's loudest frame (as the
/// recorder judges pauses, `audio::pause`).
pub fn quiet_level(audio: &[f32]) -> f32 {
    let frame = (SNAP_FRAME * SAMPLE_RATE as f32) as usize;
    let loudest = audio.chunks(frame.max(1)).map(rms).fold(0.0f32, f32::max);
    loudest * QUIET_FRACTION
}

/// How much committed audio the pass after a word commit hears again: at least this long
/// (seconds), from the start of a committed word. Whisper given audio that starts at a sentence
/// (or the committed text as its previous text) skipped that sentence on the project's clip
/// without pauses ("First, the new website…" lost in 5 of 6 passes from the cut); given the
/// sentence before it from a word 2 s back, and no previous text, it wrote it in all 6.
pub const CONTEXT: f32 = 2.0;

/// Where the pass after a commit of `words` of `current` (cut at `cut` samples) starts: the
/// start of the last committed word that begins at least [`CONTEXT`] before the cut (the first
/// committed word when none does); in samples from `current`'s start, with the index of that
/// word.
pub fn context_start(current: &WordPass, words: usize, cut: usize) -> (usize, usize) {
    let cut_s = cut as f32 / SAMPLE_RATE as f32;
    let first = current.words[..words.min(current.words.len())]
        .iter()
        .rposition(|w| w.start <= cut_s - CONTEXT)
        .unwrap_or(0);
    let at = current
        .words
        .get(first)
        .map_or(0, |w| (w.start.max(0.0) * SAMPLE_RATE as f32) as usize);
    (at.min(cut), first)
}

/// How many of a pass's first words (`words`, each normalised) say the end of `context` (the
/// committed words it heard again, normalised) again, compared letter by letter: the pass
/// hears that audio again but may write it otherwise ("from gate twelve" committed as "from
/// Gatewell", heard again as "from gate well"), and a word-for-word match then found nothing
/// and the context was pasted twice. Of the pass's first words, the prefix whose letters are
/// closest (edit distance) to an end of the context's letters is taken: the pass may start
/// inside the context's first word, or with a fragment before it. It counts only when it has
/// [`CONTEXT_MIN_LETTERS`] letters or more and at most one edit in [`CONTEXT_LETTERS_PER_EDIT`]
/// of them; of equally close prefixes the shortest (a word said twice is seen, a word dropped
/// is not). `None` when the pass did not write the context's end at all.
pub fn context_overlap(context: &[String], words: &[String]) -> Option<usize> {
    let context: Vec<char> = context.iter().flat_map(|w| w.chars()).collect();
    // A pass that wrote the context wrote about as many letters (in however many words).
    let most = context.len() * 3 / 2 + CONTEXT_MIN_LETTERS;
    let mut letters = 0;
    let candidates = words
        .iter()
        .take_while(|w| {
            letters += w.chars().count();
            letters <= most
        })
        .count();
    let pass: Vec<char> = words[..candidates].iter().flat_map(|w| w.chars()).collect();
    // distances[j]: edits between the first j letters of the pass and the best end of the
    // context, the context's earlier letters skipped free (semi-global alignment).
    let mut row: Vec<usize> = (0..=pass.len()).collect();
    for &c in &context {
        let mut diagonal = row[0];
        row[0] = 0;
        for j in 1..=pass.len() {
            let substitute = diagonal + usize::from(pass[j - 1] != c);
            diagonal = row[j];
            row[j] = substitute.min(row[j] + 1).min(row[j - 1] + 1);
        }
    }
    let mut letters = 0;
    let mut best: Option<(usize, usize)> = None;
    for (n, word) in words[..candidates].iter().enumerate() {
        letters += word.chars().count();
        let edits = row[letters];
        let counts = letters >= CONTEXT_MIN_LETTERS && edits * CONTEXT_LETTERS_PER_EDIT <= letters;
        if counts && best.is_none_or(|(_, fewest)| edits < fewest) {
            best = Some((n + 1, edits));
        }
    }
    best.map(|(n, _)| n)
}

/// The fewest letters of the context found again that count as evidence ([`context_overlap`]).
pub const CONTEXT_MIN_LETTERS: usize = 4;
/// At most one edit per this many letters of the context found again ([`context_overlap`]).
pub const CONTEXT_LETTERS_PER_EDIT: usize = 4;

/// Whether a word (as Whisper wrote it, punctuation merged) ends a sentence.
pub fn ends_sentence(word: &str) -> bool {
    word.trim_end_matches(['"', '\'', ')', '”', '’'])
        .ends_with(['.', '?', '!', '…'])
}

/// The middle of the quietest [`SNAP_FRAME`] from [`WORD_SNAP`] before `end` (a word's end) to
/// [`WORD_SNAP`] after `next_start` (the next word's start), not within [`KEEP_LAST`] of the
/// end of `audio` (`seconds` long); in samples, with that frame's level. `None` when no frame
/// fits.
fn cut_in_gap(audio: &[f32], end: f32, next_start: f32, seconds: f32) -> Option<(usize, f32)> {
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
        .map(|(at, level)| (at + frame / 2, level))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A pass over `seconds` from `start` (samples) that heard `words` (text, start, end;
    /// seconds from its start); also the doubt rule's tests.
    pub(crate) fn word_pass(start: usize, seconds: f32, words: &[(&str, f32, f32)]) -> WordPass {
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

    /// Speech-like audio: a tone everywhere except 60 ms of near-quiet around each gap (s).
    fn speech_with_gaps(seconds: f32, gaps: &[f32]) -> Vec<f32> {
        let n = (seconds * SAMPLE_RATE as f32) as usize;
        (0..n)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                if gaps.iter().any(|&g| (t - g).abs() < 0.03) {
                    0.001
                } else {
                    0.3 * (t * 2.0 * std::f32::consts::PI * 220.0).sin()
                }
            })
            .collect()
    }

    /// Short sentences said without a pause (as on `long_25s_nopause.wav`): word ends are the
    /// next words' starts.
    const SENTENCE: [(&str, f32, f32); 12] = [
        (" Good", 0.0, 0.3),
        (" morning", 0.3, 0.72),
        (" everyone.", 0.72, 1.3),
        (" Here", 1.3, 1.5),
        (" are", 1.5, 1.62),
        (" the", 1.62, 1.74),
        (" notes.", 1.74, 2.1),
        (" From", 2.1, 2.3),
        (" yesterday's", 2.3, 2.9),
        (" planning", 2.9, 3.36),
        (" session.", 3.36, 4.0),
        (" First,", 4.1, 4.5),
    ];

    fn words_to(n: usize) -> Vec<(&'static str, f32, f32)> {
        SENTENCE[..n].to_vec()
    }

    #[test]
    fn speech_without_pauses_commits_the_agreed_sentences_but_the_last_second() {
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
                // Agreed up to "yesterday's" (not "plan"/"planning"); of that, up to the last
                // sentence end, "notes.".
                assert_eq!(words, 7);
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!((at - 2.1).abs() < 0.02, "cut at {at}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_word_straddling_the_cut_stays_whole_in_the_next_pass() {
        // The quiet gap after "notes." is at 2.1 s; the middle of "From" (2.2 s) is quieter
        // still: the cut may not go there.
        let mut audio = speech_with_gaps(4.6, &[2.1]);
        for s in &mut audio[(2.19 * 16_000.0) as usize..(2.22 * 16_000.0) as usize] {
            *s = 0.0;
        }
        let previous = word_pass(0, 3.5, &words_to(10));
        // The current pass is 3.8 s long: "From" (ends 2.3) is inside the last second of
        // neither pass, but "planning" (ends 3.36) is in the current pass's last second.
        let current = word_pass(0, 3.8, &words_to(10));
        match decide_by_words(Some(&previous), &current, &audio[..current.len]) {
            WordCommit::Words { words, cut } => {
                assert_eq!(words, 7, "up to \"notes.\"");
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!(
                    (at - 2.1).abs() < 0.02,
                    "cut at {at}, not inside the next word"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn agreed_words_that_end_no_sentence_wait() {
        // Both passes agree on "Good morning", which ends no sentence.
        let audio = speech_with_gaps(4.6, &[0.72]);
        let previous = word_pass(
            0,
            2.5,
            &[
                (" Good", 0.0, 0.3),
                (" morning", 0.3, 0.72),
                (" every", 0.72, 1.0),
            ],
        );
        let current = word_pass(
            0,
            2.8,
            &[
                (" Good", 0.0, 0.3),
                (" morning", 0.3, 0.72),
                (" everybody", 0.72, 1.3),
            ],
        );
        assert_eq!(
            decide_by_words(Some(&previous), &current, &audio[..current.len]),
            WordCommit::Nothing
        );
    }

    /// At key-up the last pass's words are committed without agreement, up to the last quiet
    /// gap after a word (a sentence end or not) at least a second before its end, and from
    /// the first word it did not commit itself.
    #[test]
    fn key_up_settles_up_to_the_last_quiet_word_gap_a_second_before_the_end() {
        // Quiet gaps after "everyone." (1.3), "notes." (2.1), "From" (2.3), "yesterday's"
        // (2.9) and "planning" (3.36); a pass of 4.2 s settles no word ending after 3.2 s.
        let audio = speech_with_gaps(4.6, &[1.3, 2.1, 2.3, 2.9, 3.36]);
        let current = word_pass(0, 4.2, &words_to(12));
        let at = |commit: WordCommit| match commit {
            WordCommit::Words { words, cut } => (words, cut as f32 / SAMPLE_RATE as f32),
            WordCommit::Nothing => panic!("nothing settled"),
        };
        let (words, cut) = at(settle_by_words(&current, 0, &audio[..current.len]));
        assert_eq!(words, 9, "up to \"yesterday's\", which ends no sentence");
        assert!((2.87..2.95).contains(&cut), "cut at {cut} s");
        // A pass 0.3 s longer has "planning" more than a second before its end.
        let longer = word_pass(0, 4.5, &words_to(12));
        assert_eq!(at(settle_by_words(&longer, 0, &audio[..longer.len])).0, 10);
        // A gap without a quiet frame is passed over for an earlier one.
        let loud_at_yesterday = speech_with_gaps(4.6, &[1.3, 2.1, 2.3, 3.36]);
        assert_eq!(
            at(settle_by_words(
                &current,
                0,
                &loud_at_yesterday[..current.len]
            ))
            .0,
            8
        );
        // Words the pass committed itself are not settled again; nothing after them is quiet.
        assert_eq!(
            settle_by_words(&current, 9, &audio[..current.len]),
            WordCommit::Nothing
        );
        // Speech with no quiet gap at all: nothing.
        let no_gaps = speech_with_gaps(4.6, &[]);
        assert_eq!(
            settle_by_words(&current, 0, &no_gaps[..current.len]),
            WordCommit::Nothing
        );
    }

    #[test]
    fn a_pass_that_disagrees_commits_only_what_came_before_the_disagreement() {
        let audio = speech_with_gaps(4.6, &[0.72, 1.3]);
        let previous = word_pass(0, 4.0, &words_to(10));
        let mut current = word_pass(0, 4.6, &words_to(12));
        current.words[3].text = " There".into();
        match decide_by_words(Some(&previous), &current, &audio) {
            WordCommit::Words { words, cut } => {
                assert_eq!(words, 3, "\"Good morning everyone.\"");
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
    fn sentence_ends_are_read_through_closing_quotes() {
        assert!(ends_sentence(" done."));
        assert!(ends_sentence(" ready?\""));
        assert!(ends_sentence(" koniec!"));
        assert!(!ends_sentence(" Dr"));
        assert!(!ends_sentence(" everyone,"));
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

    fn normalised(text: &str) -> Vec<String> {
        text.split_whitespace().map(normalise).collect()
    }

    #[test]
    fn the_context_heard_again_is_found_at_the_start_of_the_next_pass() {
        let context = normalised("from yesterday's planning session.");
        let pass = |text: &str| context_overlap(&context, &normalised(text));
        assert_eq!(
            pass("from yesterday's planning session. First, the"),
            Some(4)
        );
        // The first word cut in two, and a fragment before the rest.
        assert_eq!(pass("day's planning session. First,"), Some(3));
        assert_eq!(pass("uh- yesterday's planning session. First,"), Some(4));
        // Only the last word, long enough to count; a short one is no evidence.
        assert_eq!(pass("session. First, the new"), Some(1));
        let short = normalised("went to the");
        assert_eq!(context_overlap(&short, &normalised("the new site")), None);
        // Not written at all.
        assert_eq!(pass("First, the new website"), None);
    }

    #[test]
    fn context_written_otherwise_is_still_found_letter_by_letter() {
        // Committed as "…on Friday afternoon from Gatewell."; the next pass heard that audio
        // again and wrote it otherwise (the project's 110 s clip without pauses).
        let context = normalised("Friday afternoon from Gatewell.");
        let pass = |text: &str| context_overlap(&context, &normalised(text));
        assert_eq!(
            pass("On for ID after noon from gate well. Turn off the lights"),
            Some(8)
        );
        assert_eq!(
            pass("afternoon from Gate Well, turn off the lights"),
            Some(4)
        );
        // A word of the next sentence is never taken for the context.
        assert_eq!(pass("from Gatewell. Gatewell is closed"), Some(2));
        assert_eq!(
            context_overlap(
                &normalised("end of this week."),
                &normalised("end of this weak. Third, the office")
            ),
            Some(4)
        );
        assert_eq!(pass("Turn off the lights in the kitchen"), None);
    }

    #[test]
    fn the_next_pass_starts_at_a_committed_word_two_seconds_before_the_cut() {
        let pass = word_pass(0, 4.6, &words_to(12));
        // Cut after "session." (4.0 s): the context starts at the last committed word that
        // begins by 2.0 s, "notes." (1.74 s).
        let cut = 4 * SAMPLE_RATE;
        let (at, first) = context_start(&pass, 11, cut);
        assert_eq!(first, 6);
        assert_eq!(at, (1.74 * SAMPLE_RATE as f32) as usize);
        // A commit shorter than the context starts from the pass's first word.
        assert_eq!(
            context_start(&pass, 3, (1.3 * SAMPLE_RATE as f32) as usize),
            (0, 0)
        );
    }

    #[test]
    fn a_sentence_end_with_no_quiet_frame_is_no_cut_and_an_earlier_one_is_taken() {
        // The gaps after "everyone." (1.3 s) and "notes." (2.1 s): only the first is quiet.
        let mut audio = speech_with_gaps(4.6, &[1.3]);
        let previous = word_pass(0, 4.0, &words_to(10));
        let current = word_pass(0, 4.6, &words_to(12));
        match decide_by_words(Some(&previous), &current, &audio) {
            WordCommit::Words { words, cut } => {
                assert_eq!(words, 3, "up to \"everyone.\"");
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!((at - 1.3).abs() < 0.02, "cut at {at}");
            }
            other => panic!("{other:?}"),
        }
        // No quiet gap at either: nothing.
        for s in &mut audio[(1.28 * 16_000.0) as usize..(1.32 * 16_000.0) as usize] {
            *s = 0.3;
        }
        assert_eq!(
            decide_by_words(Some(&previous), &current, &audio),
            WordCommit::Nothing
        );
    }
}
