//! The committed audio the pass after a commit by words hears again ([`Context`]): which
//! committed words it holds, how they are found in what the pass wrote and dropped
//! ([`Context::strip`]), and what is done when the pass left speech out instead
//! ([`unheard_speech`], [`Context::widen`]).
//!
//! Why a pass hears committed audio again at all: Whisper `base` given audio that starts at a
//! sentence (or the committed text as its previous text) skipped that sentence on the project's
//! clip without pauses ([`words::CONTEXT`]). With about 2 s of committed audio before it, it
//! wrote it in all 6 trials by hand, but not always in the app: on the 110 s clip without
//! pauses, two passes from 2 s before a cut after "…planning session." wrote only "The design
//! team still needs…", leaving out "First, the new website will launch on the 15th of next
//! month.", and agreed on it, and that sentence was lost. So a pass whose words leave a stretch
//! of speech after the cut unaccounted for commits nothing, and the next pass starts further
//! back: a different start is a different Whisper decoding.

use super::split_at_word;
use crate::app::hallucinations::normalise;
use crate::app::worker::commit::words::{self, WordPass};
use crate::app::worker::commit::{SAMPLE_RATE, SNAP_FRAME};
use crate::audio::level::rms;
use crate::whisper::Transcript;

/// How far before the cut a word's middle must lie to be dropped as committed audio heard
/// again, when the pass wrote that audio's words otherwise ([`Context::strip`]): alignment
/// times are a guess, and a short first word of the next sentence is kept.
pub const TIME_MARGIN: f32 = 0.15;
/// Speech longer than this (seconds, loud frames) between the cut and a pass's first word, or
/// between two of its words, is speech the pass left out ([`unheard_speech`]).
pub const MAX_UNHEARD: f32 = 1.0;
/// At most this many committed words are kept to start a pass further back from.
const KEPT_WORDS: usize = 80;
/// How many of a pass's first words after the cut are kept to compare the next passes with
/// ([`Context::skipped_after_cut`]).
const FIRST_WORDS: usize = 4;
/// How many passes in a row, each started further back, must write the same first words after
/// the cut, all without the words an earlier pass wrote there, for theirs to stand
/// ([`Context::skipped_after_cut`]): the earlier pass's words were then not speech after the cut.
/// Two such passes did skip a sentence ("Third," on the 110 s clip), so two are not enough; a
/// pass started further back is a different decoding, and a third agreeing one is Whisper's
/// firm reading. Without a bound, passes moved back 2 s at a time until their window was full
/// and key-up transcribed 28 s (2.2 s after key-up; a desktop run, 2026-11-30, after the
/// committed "…need more work." a pass's first words after the cut had been "more work").
const OUTVOTING_PASSES: usize = 3;

/// How many of the committing pass's first words after the cut key-up's text must say again
/// ([`Context::follows_the_cut`]): two, as [`skipped_words`] compares (one alone, often "the",
/// says little).
pub const AGREEING_FIRSTS: usize = 2;

/// How many letters a second word must start with for [`starts_the_same`] to take it as the
/// same word said otherwise ("morning" / "mornings").
const SAME_WORD_LETTERS: usize = 4;

/// The committed words the next pass hears again; empty when it starts at the cut.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    /// Those words, normalised.
    words: Vec<String>,
    /// The last commits' words, normalised, with where each starts in the recording
    /// (samples): where a pass can start further back from ([`Self::widen`]).
    committed: Vec<(usize, String)>,
    /// How many times the start was moved back since the commit.
    widened: u32,
    /// The first words after the cut, normalised, of the pass that committed and of each pass
    /// since that left nothing out ([`Self::skipped_after_cut`]).
    firsts: Vec<Vec<String>>,
    /// The first words of the passes in a row since the last that left nothing out, each of
    /// which skipped words of `firsts` (up to [`OUTVOTING_PASSES`]).
    skipping: Vec<Vec<String>>,
}

impl Context {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// After a commit of `pass`'s first `words` words cut at `cut` (samples from the pass's
    /// start), `self` being the context that pass had: where the next pass starts (samples of
    /// the recording) and what it hears again ([`words::context_start`]). `agreed_with`: the
    /// pass it agreed with on those words, whose first words after them are compared with the
    /// next passes too ([`sure_after_cut`]).
    pub fn after_commit(
        &self,
        pass: &WordPass,
        words: usize,
        cut: usize,
        agreed_with: Option<&WordPass>,
    ) -> (usize, Context) {
        let (from, first) = words::context_start(pass, words, cut);
        let mut committed: Vec<(usize, String)> = self.committed.clone();
        committed.extend(
            pass.words[..words.min(pass.words.len())]
                .iter()
                .filter_map(|w| {
                    let word = normalise(&w.text);
                    let at = pass.start + (w.start.max(0.0) * SAMPLE_RATE as f32) as usize;
                    (!word.is_empty()).then_some((at, word))
                }),
        );
        let excess = committed.len().saturating_sub(KEPT_WORDS);
        committed.drain(..excess);
        let heard_again = pass.words[first..words.min(pass.words.len())]
            .iter()
            .map(|w| normalise(&w.text))
            .filter(|w| !w.is_empty())
            .collect();
        // The committing pass's own first words after the cut: the next pass is compared
        // with them too. On the 110 s clip without pauses the commit's pass wrote "First, the
        // new website…" after "…planning session.", the next two "The new ed site…" and
        // agreed, and "First" was lost (a desktop run, 2026-11-28).
        let after_cut: Vec<String> = pass.words[words.min(pass.words.len())..]
            .iter()
            .map(|w| normalise(&w.text))
            .filter(|w| !w.is_empty())
            .take(FIRST_WORDS)
            .collect();
        let mut firsts = vec![after_cut];
        firsts.extend(agreed_with.map(|previous| sure_after_cut(previous, words)));
        let context = Context {
            words: heard_again,
            committed,
            widened: 0,
            firsts,
            skipping: Vec::new(),
        };
        (pass.start + from, context)
    }

    /// How many of a pass's first `written` words (as Whisper wrote them) say the committed
    /// words it heard again ([`words::context_overlap`]).
    pub fn heard_again<'a>(&self, written: impl Iterator<Item = &'a str>) -> Option<usize> {
        let written: Vec<String> = written.map(normalise).filter(|w| !w.is_empty()).collect();
        words::context_overlap(&self.words, &written)
    }

    /// `text` (key-up's, from the same start as the passes) without the committed words it
    /// heard again; all of it when it did not write them recognisably (no times to go by).
    pub fn text_without(&self, text: &str) -> String {
        if self.is_empty() {
            return text.to_string();
        }
        match self.heard_again(text.split_whitespace()) {
            Some(repeated) => crate::app::worker::commit::drop_words(text, repeated),
            None => text.to_string(),
        }
    }

    /// Whether `rest` (a pass's transcript without the committed words it heard again,
    /// [`Self::strip`]) starts where the committing pass's words after the cut did
    /// ([`starts_the_same`]). A commit made at key-up has no later pass to agree with: this is
    /// that agreement, at the one place a word can be lost or said twice.
    pub fn follows_the_cut(&self, rest: &Transcript) -> bool {
        let expected = self.expected_after_cut();
        let last_committed = self.committed.last().map(|(_, word)| word.as_str());
        starts_the_same(expected, &first_words(rest, expected.len()), last_committed)
    }

    /// The committing pass's first words after the cut, normalised (what
    /// [`Self::follows_the_cut`] compares with).
    pub fn expected_after_cut(&self) -> &[String] {
        self.firsts.first().map_or(&[][..], Vec::as_slice)
    }

    /// `transcript` (of a pass whose audio reaches the cut `cut` seconds in) without the
    /// committed words it heard again: found by their letters ([`Self::heard_again`]), or,
    /// when it wrote them beyond recognition (a pass that starts mid-speech can: "…for the
    /// customer support team." heard again as "and there's for the customers a part-game."
    /// on the project's 110 s clip), by their times: the words whose middle lies
    /// [`TIME_MARGIN`] before the cut or earlier (the cut is in a quiet frame after a sentence
    /// end, so the next sentence's first word starts after it) less the first words after the
    /// cut timed early ([`Self::placed_before_the_cut`]); and then the last committed
    /// words said again before the first words after the cut
    /// ([`Self::said_again_before_the_cut`]). Returns the rest, how many words were dropped,
    /// and how they were found.
    pub fn strip(&self, transcript: Transcript, cut: f32) -> (Transcript, usize, &'static str) {
        let words = || transcript.segments.iter().flat_map(|s| &s.words);
        let (repeated, by) = match self.heard_again(words().map(|w| w.text.as_str())) {
            Some(repeated) => (repeated, "letters"),
            None => {
                let by_times = words()
                    .take_while(|w| (w.start + w.end) / 2.0 <= cut - TIME_MARGIN)
                    .count();
                let written: Vec<String> = words().map(|w| normalise(&w.text)).collect();
                (self.placed_before_the_cut(&written, by_times), "times")
            }
        };
        // The first words kept, normalised, with how many words there are up to each.
        let kept: Vec<(usize, String)> = words()
            .enumerate()
            .skip(repeated)
            .map(|(i, w)| (i + 1, normalise(&w.text)))
            .filter(|(_, w)| !w.is_empty())
            .take(FIRST_WORDS)
            .collect();
        let firsts: Vec<String> = kept.iter().map(|(_, w)| w.clone()).collect();
        let repeated = match self.said_again_before_the_cut(&firsts) {
            0 => repeated,
            extra => kept[extra - 1].0,
        };
        (split_at_word(&transcript, repeated).1, repeated, by)
    }

    /// How many of a pass's words (`written`, normalised) to drop when the first `by_times` of
    /// them lie before the cut by their times: fewer when the last one or two of those are the
    /// committing pass's first words after the cut ([`Self::expected_after_cut`], the first
    /// two, in order): alignment times put them early. On the 25 s clip without pauses a pass
    /// from 2 s before a cut wrote none of the committed words, its first two, "The design",
    /// were timed before the cut and dropped, the pass was then taken to have skipped them
    /// ([`Self::skipped_after_cut`]), and the next passes started further back: key-up waited
    /// for a pass over 16 s (1.8 s; a desktop run, 2026-11-29).
    fn placed_before_the_cut(&self, written: &[String], by_times: usize) -> usize {
        let Some(expected) = self.expected_after_cut().get(..AGREEING_FIRSTS) else {
            return by_times;
        };
        let starts_there = |from: usize| {
            !written[from].is_empty()
                && written[from..]
                    .iter()
                    .filter(|w| !w.is_empty())
                    .take(expected.len())
                    .eq(expected.iter())
        };
        (by_times.saturating_sub(2)..by_times)
            .find(|&from| starts_there(from))
            .unwrap_or(by_times)
    }

    /// How many of `firsts` (a pass's first words after those [`Self::strip`] dropped,
    /// normalised) are the last committed words said again before the committing pass's first
    /// words after the cut: one or two, when `firsts` has those two words that much later and
    /// the words before them are the committed text's last. On the 110 s clip without pauses a
    /// pass wrote the committed "Wednesday at 2 o'clock. Let me know if" as "Wendy had to
    /// apply. Let me know if", so its words were dropped by their times, and "if", short and
    /// ending at the cut, was kept and committed again: "let me know if if I missed anything"
    /// (a CI run of the desktop test, 2026-11-29).
    fn said_again_before_the_cut(&self, firsts: &[String]) -> usize {
        let Some(expected) = self.expected_after_cut().get(..2) else {
            return 0;
        };
        (1..=2)
            .find(|&k| {
                let committed_tail = self
                    .committed
                    .len()
                    .checked_sub(k)
                    .map(|from| &self.committed[from..]);
                firsts.get(k..k + 2) == Some(expected)
                    && committed_tail
                        .is_some_and(|tail| tail.iter().map(|(_, w)| w).eq(firsts[..k].iter()))
            })
            .unwrap_or(0)
    }

    /// Whether `transcript` (a pass's, without the committed words it heard again) left out
    /// the first words after the cut that an earlier pass since the commit wrote there: the
    /// words it skipped ([`skipped_words`]). Otherwise its first words are kept to compare the
    /// next passes with. On the project's 110 s clip without pauses, after a cut at "…end of
    /// this week.", one pass wrote "Third, the office will be closed…" and the next two "The
    /// office will be closed…", too short a stretch for [`unheard_speech`]; those two agreed
    /// and "Third" was lost (a CI run, 2026-11-28).
    ///
    /// Unless [`OUTVOTING_PASSES`] passes in a row wrote the same first words: theirs then
    /// stand, and the earlier first words they skipped are forgotten.
    pub fn skipped_after_cut(&mut self, transcript: &Transcript) -> Option<Vec<String>> {
        let first = first_words(transcript, FIRST_WORDS);
        let skipped = self
            .firsts
            .iter()
            .find_map(|earlier| skipped_words(earlier, &first));
        let Some(skipped) = skipped else {
            self.skipping.clear();
            self.firsts.push(first);
            return None;
        };
        let agrees = |other: &Vec<String>| {
            other.len() >= AGREEING_FIRSTS && other[..AGREEING_FIRSTS] == first[..AGREEING_FIRSTS]
        };
        if !self.skipping.iter().all(agrees) {
            self.skipping.clear();
        }
        self.skipping.push(first);
        if self.skipping.len() < OUTVOTING_PASSES {
            return Some(skipped);
        }
        let first = self.skipping.pop().unwrap_or_default();
        self.skipping.clear();
        self.firsts
            .retain(|earlier| skipped_words(earlier, &first).is_none());
        self.firsts.push(first);
        None
    }

    /// After a pass from `pass_from` left speech out ([`unheard_speech`]): an earlier start for
    /// the next pass (samples of the recording), at a committed word about [`words::CONTEXT`]
    /// further back each time, with the words it then hears again; `None` when no committed
    /// word lies before `pass_from`.
    pub fn widen(&mut self, pass_from: usize, committed_to: usize) -> Option<usize> {
        self.widened += 1;
        let span = (words::CONTEXT * (1 + self.widened) as f32 * SAMPLE_RATE as f32) as usize;
        let before: Vec<usize> = (0..self.committed.len())
            .filter(|&i| self.committed[i].0 < pass_from)
            .collect();
        let first = before
            .iter()
            .rev()
            .find(|&&i| self.committed[i].0 + span <= committed_to)
            .or(before.first())
            .copied()?;
        self.words = self.committed[first..]
            .iter()
            .map(|(_, w)| w.clone())
            .collect();
        Some(self.committed[first].0)
    }
}

/// The first words after its first `words` of `pass` (one that a commit agreed with),
/// normalised, up to the first that ends within [`words::KEEP_LAST`] of its audio's end (where
/// Whisper is least sure, [`words`]' module doc): what [`Context::skipped_after_cut`] compares
/// the next passes with, beside the committing pass's. The committing pass can skip a short
/// word after the cut that the pass before it wrote ("…planning session. The new website…"
/// where that pass wrote "First, the new…"), and a pass after the commit that skips it too
/// then agrees with it.
fn sure_after_cut(pass: &WordPass, words: usize) -> Vec<String> {
    let sure_until = pass.len as f32 / SAMPLE_RATE as f32 - words::KEEP_LAST;
    pass.words
        .iter()
        .skip(words)
        .take_while(|w| w.end <= sure_until)
        .map(|w| normalise(&w.text))
        .filter(|w| !w.is_empty())
        .take(FIRST_WORDS)
        .collect()
}

/// `transcript`'s first `n` words with letters or digits, normalised.
pub fn first_words(transcript: &Transcript, n: usize) -> Vec<String> {
    transcript
        .segments
        .iter()
        .flat_map(|s| &s.words)
        .map(|w| normalise(&w.text))
        .filter(|w| !w.is_empty())
        .take(n)
        .collect()
}

/// Whether `heard` (a pass's first words after a cut, normalised) starts where `expected` (an
/// earlier pass's there) does, so that the cut between them lost and repeated no word: the
/// first [`AGREEING_FIRSTS`] words the same; or the first the same and the second the same
/// word spelled longer or shorter (its first [`SAME_WORD_LETTERS`] letters); or one of the
/// first three another word and the other two the same, in place (unless the other word is
/// the first and the `last_committed` one: said again in place of a word lost). A word lost or
/// said again at the cut shifts the words after it by one, which none of these allow. The
/// settled passes that the two-word rule alone refused on the project's clips were mostly of
/// the last two kinds, each costing a pass over all since the last commit: "inks and have a" /
/// "thanks and have a", "saturday morning slays ring" / "saturday mornings please remind",
/// "important inks and" / "important enks and have" (the app's log and the busy-worker
/// harness, 2026-11-30).
pub fn starts_the_same(
    expected: &[String],
    heard: &[String],
    last_committed: Option<&str>,
) -> bool {
    let n = expected.len().min(AGREEING_FIRSTS);
    if heard.get(..n) == Some(&expected[..n]) {
        return true;
    }
    let spelled_otherwise = |a: &str, b: &str| {
        let letters = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
        letters >= SAME_WORD_LETTERS
    };
    if let ([first, second, ..], [heard_first, heard_second, ..]) = (expected, heard) {
        if first == heard_first && spelled_otherwise(second, heard_second) {
            return true;
        }
    }
    let (Some(expected), Some(heard)) = (expected.get(..3), heard.get(..3)) else {
        return false;
    };
    let mut other = (0..3).filter(|&i| expected[i] != heard[i]);
    match (other.next(), other.next()) {
        (Some(0), None) => last_committed != Some(heard[0].as_str()),
        (Some(_), None) => true,
        _ => false,
    }
}

/// The first words of `earlier` that `current` skipped: `current` starts with two words that
/// `earlier` has one or two words later. Both are a pass's first words after the cut,
/// normalised. (Two words, not one: "the" alone is too common to say a word was skipped.)
pub fn skipped_words(earlier: &[String], current: &[String]) -> Option<Vec<String>> {
    let start = current.get(..2)?;
    (1..=2)
        .find(|&k| earlier.get(k..k + 2) == Some(start))
        .map(|k| earlier[..k].to_vec())
}

/// A stretch of speech a pass left out: between `from` (seconds into its audio: the cut) and
/// its first word, or between two of its words, more than [`MAX_UNHEARD`] of frames louder
/// than the pass's quiet level ([`words::quiet_level`]). Nothing after its last word is judged
/// (Whisper holds back the words being spoken at the end). Returns where the stretch starts and
/// how much speech it holds (seconds).
pub fn unheard_speech(transcript: &Transcript, audio: &[f32], from: f32) -> Option<(f32, f32)> {
    let quiet = words::quiet_level(audio);
    let frame = (SNAP_FRAME * SAMPLE_RATE as f32) as usize;
    let seconds = audio.len() as f32 / SAMPLE_RATE as f32;
    let loud_in = |start: f32, end: f32| -> f32 {
        let to_sample = |t: f32| ((t.max(0.0) * SAMPLE_RATE as f32) as usize).min(audio.len());
        let frames = audio[to_sample(start)..to_sample(end)].chunks(frame.max(1));
        frames.filter(|f| rms(f) > quiet).count() as f32 * SNAP_FRAME
    };
    let mut at = from;
    let mut gaps = Vec::new();
    for word in transcript.segments.iter().flat_map(|s| &s.words) {
        gaps.push((at, word.start));
        at = at.max(word.end);
    }
    if gaps.is_empty() {
        gaps.push((from, seconds - words::KEEP_LAST));
    }
    gaps.into_iter()
        .filter(|(start, end)| end - start > MAX_UNHEARD)
        .map(|(start, end)| (start, loud_in(start, end)))
        .find(|(_, loud)| *loud > MAX_UNHEARD)
}

#[cfg(test)]
mod tests;
