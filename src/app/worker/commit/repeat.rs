//! Each word once: a pass's text that says the committed text again, or a text that says its
//! own last sentence again, when the person did not say it again.
//!
//! What it is for: with a second of steady background noise before key-up, key-up's pass over
//! the noisy tail, given the committed text as Whisper's previous text, wrote a near copy of
//! it, and "The invoice total is $420 due on the 15th. The invoice is $420 due on the 15th."
//! was pasted in 2 of 3 runs (issue 53). The checks that compare a pass's first words with the
//! committed ones (`stream::context`, [`super::overlap_words`]) look for the committed words
//! the pass *heard again* (its audio starts before the cut), letter by letter, and at most a
//! few words; a copy written over new audio is another thing: a whole sentence, rewritten a
//! little ("total" left out).
//!
//! # The rule
//! 1. **A near copy, by words** ([`near_copy`]): words compared normalised (case, punctuation,
//!    "$420" = "420"), aligned (edit distance over words, the earlier text's start skipped
//!    free), so that the new text's first words (or a sentence's in it, ending a sentence or
//!    the text) say the earlier text's last ones again with at most one word missing, added or
//!    changed per [`WORDS_PER_EDIT`], at least [`MIN_COPY_WORDS`] of them ("No, no." twice is left alone: too short to tell a copy from
//!    speech). Of equally good copies the shortest: a person's words are never dropped for a
//!    tie.
//! 2. **Not spoken** ([`spoken`]): a person who says a sentence again says it in about the time
//!    it took the first time, in audio that is there. The copy counts as spoken when the audio
//!    it lies in (its words' times: the alignment heads' when the pass asked for them, else its
//!    segments' timestamps; without either, all the audio it can lie in, `room`) lasts at least
//!    [`SPOKEN_PACE`] of the time the original took (when the original's words have alignment
//!    times) and at least its letters at [`MAX_LETTERS_PER_SECOND`] (digits count
//!    [`LETTERS_PER_DIGIT`]: "420" is said "four hundred twenty"). A copy written over a second
//!    of noise after a 3 s sentence is squeezed into that second; one the person said has its
//!    own seconds of speech. `room` is never longer than the audio after the earlier text: a
//!    copy cannot be spoken in audio that is not there.
//!
//! What it cannot tell: a copy Whisper spreads over several seconds of noise (as long as the
//! sentence took) looks spoken by time alone. A voice-activity detector's speech seconds in
//! that audio, passed as `room` (`Stream::room_to_say_again`), would settle it; the energy rule
//! cannot (steady noise at 10 dB below speech is above [`crate::audio::pause::QUIET_FRACTION`]
//! of the speech's loudest frame). Nor is a text without spaces between its words (Chinese,
//! Japanese) checked: a sentence is one "word" there, fewer than [`MIN_COPY_WORDS`].
//!
//! Where it runs, every copy until none is left (Whisper wrote one sentence three times over
//! white noise): on every pass's transcript before any of it is committed or shown
//! (`Stream::take_pass`, the settled tail at key-up: [`without_copies`]), on key-up's text
//! joined to the committed text (`Stream::with_tail`: [`without_copies_in_text`]), and on a
//! transcript's own sentences ([`without_repeated_sentence`]: every pass's, and the worker's
//! `recognise` for a whole dictation or key-up's tail: a dictation with no commit, whose text
//! is one pass, "X. X'.").

use crate::app::hallucinations::normalise;
use crate::whisper::{Segment, Transcript, Word};
use std::ops::Range;

/// A copy has at least this many words (and so does what it copies).
pub const MIN_COPY_WORDS: usize = 4;
/// At most one word missing, added or changed per this many words of the copy (or of what it
/// copies, the longer): 4–5 words must be exact, 6–11 may differ by one ("The invoice is $420
/// due on the 15th." for "The invoice total is $420 due on the 15th.").
pub const WORDS_PER_EDIT: usize = 6;
/// A copy the person said takes at least this share of the time the original took.
pub const SPOKEN_PACE: f32 = 0.5;
/// Nobody says more letters a second than this (fast speech is 15–16; a hallucinated copy
/// squeezed into a second of noise is 30 and more).
pub const MAX_LETTERS_PER_SECOND: f32 = 20.0;
/// A digit is said as about this many letters ("420": "four hundred twenty").
pub const LETTERS_PER_DIGIT: usize = 3;
/// How many committed words are kept to compare with ([`remember`]).
pub const KEPT_WORDS: usize = 80;

/// When a word was said, as far as a transcript tells (seconds; any origin, only durations are
/// compared).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Span {
    /// The alignment heads' times for the word itself.
    Word {
        start: f32,
        end: f32,
    },
    /// Only its segment's timestamps: the word lies somewhere in there.
    Segment {
        start: f32,
        end: f32,
    },
    Unknown,
}

/// A word as compared here: normalised, with when it was said and whether it ends a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct SaidWord {
    /// [`normalise`]d; empty for a word of punctuation only (skipped when comparing).
    pub word: String,
    pub span: Span,
    pub ends_sentence: bool,
}

impl SaidWord {
    fn new(written: &str, span: Span) -> SaidWord {
        SaidWord {
            word: normalise(written),
            span,
            ends_sentence: super::words::ends_sentence(written),
        }
    }

    /// `text`'s whitespace-separated words, with no times.
    pub fn untimed(text: &str) -> Vec<SaidWord> {
        text.split_whitespace()
            .map(|w| SaidWord::new(w, Span::Unknown))
            .collect()
    }

    /// `transcript`'s words, times shifted by `offset` seconds: its word times when every
    /// segment with text has them, else each segment's whitespace-separated words with the
    /// segment's times. [`without_words`] counts words the same way.
    pub fn of_transcript(transcript: &Transcript, offset: f32) -> Vec<SaidWord> {
        if has_word_times(transcript) {
            let words = transcript.segments.iter().flat_map(|s| &s.words);
            return words
                .map(|w| {
                    let span = Span::Word {
                        start: w.start + offset,
                        end: w.end + offset,
                    };
                    SaidWord::new(&w.text, span)
                })
                .collect();
        }
        transcript
            .segments
            .iter()
            .flat_map(|s| {
                let span = Span::Segment {
                    start: s.start + offset,
                    end: s.end + offset,
                };
                s.text
                    .split_whitespace()
                    .map(move |w| SaidWord::new(w, span))
            })
            .collect()
    }
}

/// `committed` (words kept to compare with) with `more` after it, at most [`KEPT_WORDS`].
pub fn remember(committed: &mut Vec<SaidWord>, more: Vec<SaidWord>) {
    committed.extend(more);
    let excess = committed.len().saturating_sub(KEPT_WORDS);
    committed.drain(..excess);
}

/// Whether the words of `transcript` are counted by their word times (every segment with text
/// has them) rather than by its segments' whitespace-separated words.
fn has_word_times(transcript: &Transcript) -> bool {
    let segments = &transcript.segments;
    segments.iter().any(|s| !s.words.is_empty())
        && segments
            .iter()
            .all(|s| !s.words.is_empty() || normalise(&s.text).is_empty())
}

/// A near copy [`near_copy`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearCopy {
    /// How many of the new words it is (indices, punctuation-only words included).
    pub words: usize,
    /// The earlier words it says again (indices).
    pub original: Range<usize>,
    /// Words missing, added or changed.
    pub edits: usize,
}

/// Whether `new`'s first words say `earlier`'s last words again (rule 1 of the module doc):
/// the best such copy, or `None`.
pub fn near_copy(earlier: &[SaidWord], new: &[SaidWord]) -> Option<NearCopy> {
    let compared = |words: &[SaidWord]| -> Vec<usize> {
        (0..words.len())
            .filter(|&i| !words[i].word.is_empty())
            .collect()
    };
    let before = compared(earlier);
    let mut after = compared(new);
    // A copy is about as long as what it copies.
    after.truncate(before.len() * 3 / 2 + 2);
    let (m, n) = (before.len(), after.len());
    if m < MIN_COPY_WORDS || n < MIN_COPY_WORDS {
        return None;
    }
    // cells[j]: (edits, first earlier word) aligning new's first j words with the best end of
    // the earlier words read so far; earlier words before the end are skipped free.
    let mut cells: Vec<(usize, usize)> = (0..=n).map(|j| (j, 0)).collect();
    for i in 1..=m {
        let mut row = vec![(0, i); n + 1];
        for j in 1..=n {
            let same = earlier[before[i - 1]].word == new[after[j - 1]].word;
            let candidates = [
                (cells[j - 1].0 + usize::from(!same), cells[j - 1].1),
                (cells[j].0 + 1, cells[j].1),
                (row[j - 1].0 + 1, row[j - 1].1),
            ];
            row[j] = candidates
                .into_iter()
                .min_by_key(|&(edits, _)| edits)
                .unwrap_or(row[j]);
        }
        cells = row;
    }
    let mut best: Option<NearCopy> = None;
    for (j, &(edits, first)) in cells.iter().enumerate().skip(MIN_COPY_WORDS) {
        let copied = m - first;
        let counts = copied >= MIN_COPY_WORDS && edits * WORDS_PER_EDIT <= j.max(copied);
        if counts && best.as_ref().is_none_or(|b| edits < b.edits) {
            best = Some(NearCopy {
                words: after[j - 1] + 1,
                original: before[first]..before[m - 1] + 1,
                edits,
            });
        }
    }
    best
}

/// Whether `copy` was said by the person (rule 2 of the module doc): `original` is what it
/// copies, `room` the seconds of audio it can lie in.
pub fn spoken(copy: &[SaidWord], original: &[SaidWord], room: f32) -> bool {
    let letters: usize = copy.iter().map(|w| spoken_letters(&w.word)).sum();
    let mut needed = letters as f32 / MAX_LETTERS_PER_SECOND;
    if let Some(took) = aligned_span(original) {
        needed = needed.max(SPOKEN_PACE * took);
    }
    let took = timed_span(copy).map_or(room, |span| span.min(room));
    took >= needed
}

/// How many letters saying `word` takes, about ([`LETTERS_PER_DIGIT`]).
fn spoken_letters(word: &str) -> usize {
    word.chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| {
            if c.is_ascii_digit() {
                LETTERS_PER_DIGIT
            } else {
                1
            }
        })
        .sum()
}

/// From the first word's start to the last one's end, when every word with letters has
/// alignment times.
fn aligned_span(words: &[SaidWord]) -> Option<f32> {
    let mut span: Option<(f32, f32)> = None;
    for word in words.iter().filter(|w| !w.word.is_empty()) {
        let Span::Word { start, end } = word.span else {
            return None;
        };
        span = Some(span.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
    }
    span.map(|(start, end)| end - start)
}

/// The time the words lie in, by their own times or their segments': `None` when any word
/// with letters has neither.
fn timed_span(words: &[SaidWord]) -> Option<f32> {
    let mut span: Option<(f32, f32)> = None;
    for word in words.iter().filter(|w| !w.word.is_empty()) {
        let (start, end) = match word.span {
            Span::Word { start, end } | Span::Segment { start, end } => (start, end),
            Span::Unknown => return None,
        };
        span = Some(span.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
    }
    span.map(|(start, end)| end - start)
}

/// Which of `new`'s words (a pass's text after `committed`, the committed words) to drop: a
/// near copy of the committed text's end, at its start or at a sentence start in it (then
/// ending a sentence or the text: Whisper may write a sentence that was said, then its previous
/// text), that was not spoken in the `room` seconds of audio after the committed text's cut.
/// `None` when there is none.
pub fn said_again(committed: &[SaidWord], new: &[SaidWord], room: f32) -> Option<Range<usize>> {
    let starts = (0..new.len()).filter(|&b| b == 0 || new[b - 1].ends_sentence);
    for start in starts {
        let Some(copy) = near_copy(committed, &new[start..]) else {
            continue;
        };
        let end = start + copy.words;
        let whole = start == 0 || ends_a_sentence_or_the_text(new, end);
        if whole && !spoken(&new[start..end], &committed[copy.original], room) {
            return Some(start..end);
        }
    }
    None
}

/// Whether `words[..end]` ends a sentence, or all of `words` with letters.
fn ends_a_sentence_or_the_text(words: &[SaidWord], end: usize) -> bool {
    words[end - 1].ends_sentence || words[end..].iter().all(|w| w.word.is_empty())
}

/// `text` without its whitespace-separated words in `dropped`.
pub fn without_text_words(text: &str, dropped: Range<usize>) -> String {
    text.split_whitespace()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, word)| word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of one text (`words`, of audio `duration` seconds long, times from its start)
/// that say a sentence of it again right after it and were not spoken: a near copy of the
/// words before a sentence start that ends a sentence or the text. `None` when there is none.
pub fn repeated_sentence(words: &[SaidWord], duration: f32) -> Option<Range<usize>> {
    let starts = (1..words.len()).filter(|&b| words[b - 1].ends_sentence);
    for start in starts {
        let Some(copy) = near_copy(&words[..start], &words[start..]) else {
            continue;
        };
        let end = start + copy.words;
        let ends_there = ends_a_sentence_or_the_text(words, end);
        // The copy lies after the sentence before it ends (a segment's start when that is all
        // that is known of it: more room, so rather kept).
        let after = match words[start - 1].span {
            Span::Word { end, .. } => end,
            Span::Segment { start, .. } => start,
            Span::Unknown => 0.0,
        };
        let room = if duration > 0.0 {
            (duration - after).max(0.0)
        } else {
            f32::INFINITY
        };
        if ends_there && !spoken(&words[start..end], &words[copy.original], room) {
            return Some(start..end);
        }
    }
    None
}

/// `transcript` without the sentences it says again that were not spoken
/// ([`repeated_sentence`], until none is left: Whisper may write one three times), and how many
/// words were dropped.
pub fn without_repeated_sentence(transcript: &Transcript) -> (Transcript, usize) {
    let mut transcript = transcript.clone();
    let mut dropped = 0;
    while let Some(copy) = repeated_sentence(
        &SaidWord::of_transcript(&transcript, 0.0),
        transcript.duration,
    ) {
        dropped += copy.len();
        transcript = without_words(&transcript, copy);
    }
    (transcript, dropped)
}

/// `transcript` (of audio from `offset` seconds of the recording on) without every copy of the
/// end of `committed` that [`said_again`] finds (`room` as there), and how many words were
/// dropped.
pub fn without_copies(
    committed: &[SaidWord],
    transcript: Transcript,
    offset: f32,
    room: f32,
) -> (Transcript, usize) {
    let mut transcript = transcript;
    let mut dropped = 0;
    while let Some(copy) = said_again(
        committed,
        &SaidWord::of_transcript(&transcript, offset),
        room,
    ) {
        dropped += copy.len();
        transcript = without_words(&transcript, copy);
    }
    (transcript, dropped)
}

/// `text` (no times) without every copy of the end of `committed` that [`said_again`] finds,
/// and how many words were dropped.
pub fn without_copies_in_text(committed: &[SaidWord], text: &str, room: f32) -> (String, usize) {
    let mut text = text.to_string();
    let mut dropped = 0;
    while let Some(copy) = said_again(committed, &SaidWord::untimed(&text), room) {
        dropped += copy.len();
        text = without_text_words(&text, copy);
    }
    (text, dropped)
}

/// `transcript` without its words in `dropped` (indices as [`SaidWord::of_transcript`] counts
/// them); a segment left with no word is dropped, one left with some keeps its times (its
/// words' when it has word times).
pub fn without_words(transcript: &Transcript, dropped: Range<usize>) -> Transcript {
    let by_words = has_word_times(transcript);
    let mut at = 0;
    let mut segments = Vec::new();
    for segment in &transcript.segments {
        if by_words {
            let n = segment.words.len();
            let kept: Vec<Word> = (0..n)
                .filter(|i| !dropped.contains(&(at + i)))
                .map(|i| segment.words[i].clone())
                .collect();
            at += n;
            match (kept.first(), kept.last()) {
                _ if kept.len() == n => segments.push(segment.clone()),
                (Some(first), Some(last)) => segments.push(Segment {
                    text: kept.iter().map(|w| w.text.as_str()).collect(),
                    start: first.start,
                    end: last.end,
                    words: kept.clone(),
                    ..segment.clone()
                }),
                _ => {}
            }
        } else {
            let written: Vec<&str> = segment.text.split_whitespace().collect();
            let kept: Vec<&str> = (0..written.len())
                .filter(|i| !dropped.contains(&(at + i)))
                .map(|i| written[i])
                .collect();
            at += written.len();
            if kept.len() == written.len() {
                segments.push(segment.clone());
            } else if !kept.is_empty() {
                segments.push(Segment {
                    text: format!(" {}", kept.join(" ")),
                    ..segment.clone()
                });
            }
        }
    }
    Transcript {
        text: segments.iter().map(|s| s.text.as_str()).collect(),
        segments,
        ..transcript.clone()
    }
}

#[cfg(test)]
mod tests;
