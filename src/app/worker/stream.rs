//! A dictation transcribed while it is spoken: what of it is committed (its text final, its
//! audio never transcribed again), the pass before (for [`super::commit`]'s agreement), the
//! tentative text of the audio not committed yet, and the language the dictation keeps.
//! Owns no model: the worker runs Whisper and hands each pass's transcript here.
//!
//! A pass transcribes the recording from [`Stream::committed_to`] on (at most one 30 s window,
//! [`MAX_PASS`]), with the committed text's end as Whisper's previous text
//! ([`Stream::prompt`]) so casing, punctuation and the language carry over (the first stretch
//! is committed only by a pass that can tell the language, [`language`]). After a commit by
//! words (mid-speech, no pause) it starts instead about 2 s before the cut, at a committed
//! word, without the committed text as previous text, and the committed words it hears again
//! are dropped from its text; a pass that left speech out after the cut commits nothing and
//! the next starts further back ([`context`] says why). At key-up only the
//! audio after the last commit is transcribed, or nothing when the last pass covered it and the
//! rest is quiet ([`Stream::tentative_stands_for`]). Otherwise the last pass's words up to its
//! last quiet word gap a second before its end are committed first, without a pass to agree
//! with ([`Stream::settled_by_last_pass`]), and key-up's pass hears only the audio from 2 s
//! before that cut; it must agree with the last pass on the first words after the cut, or the
//! audio since the last commit is transcribed instead ([`Stream::rest_after_settling`]).
//! Every other pass settles the same way ([`settle`]'s module doc). A pass that left out a
//! stretch of words the pass before heard in the same audio is not believed once ([`doubt`]).
//! Every pass, key-up's
//! too, gets the last pass's tokens as its draft ([`Stream::draft_from`]): the engine checks
//! them in one decoder call instead of choosing each token again.

mod context;
mod doubt;
mod language;
mod settle;

use super::commit::repeat::{self, SaidWord};
use super::commit::words::{self, WordCommit, WordPass};
use super::commit::{self, Commit, Pass, PassSegment, Rule};
use super::Heard;
use crate::app::verdict::Empty;
use crate::app::wording::Wording;
use crate::audio::level::{GateConfig, Level};
use crate::audio::pause;
use crate::audio::shared_audio::SharedAudio;
use crate::audio::vad::SpeechFrames;
use crate::whisper::{Segment, Transcript};
use context::{unheard_speech, Context};
pub use language::tells_the_language;

const SAMPLE_RATE: usize = commit::SAMPLE_RATE;
/// A pass covers at most one Whisper window.
pub const MAX_PASS: usize = 30 * SAMPLE_RATE;
/// A stride's snapshot is transcribed only when this much audio (samples) is uncommitted: a
/// shorter stretch is most often ended by a pause, which commits it in one pass; passes over
/// the same audio every stride would cost several times the whole transcription.
pub const STRIDE_FROM: usize = 6 * SAMPLE_RATE;
/// How much of the committed text's end is Whisper's previous text, in characters: the last
/// sentence or two (~50 tokens), as whisper_streaming gives its passes. Enough for casing,
/// punctuation and the language to carry over; a longer one costs every pass after a pause
/// commit, and the pass at key-up, its decoder's work over the prompt. Measured on the app's
/// worker (`cargo test --release --test app_pipeline_streaming -- --nocapture`, 50 s clip
/// with pauses): 800 characters (~200 tokens, Whisper's own limit) made all passes 3.2–3.4x
/// the whole file's engine time, 200 characters 2.4x, the same words with native bf16 and one
/// word different without it ("agree" for "agreed", WER 3.6 % against the whole file's 4.5 %);
/// `cargo run --release --example prompt_cost` prints a short clip's pass by prompt length.
pub const PROMPT_CHARS: usize = 200;

/// The committed part of a dictation and what is known of the rest.
#[derive(Debug, Clone)]
pub struct Stream {
    pub id: u64,
    /// Samples (16 kHz) of the recording whose text is committed.
    pub committed_to: usize,
    /// Where the next pass's audio starts: `committed_to`, or before it after a commit by
    /// words (the pass hears the committed words since then again, [`words::CONTEXT`]).
    pass_from: usize,
    /// Those committed words: dropped from the pass's text.
    context: Context,
    /// The committed texts as they are delivered, in order, with how each ended.
    pieces: Vec<(String, PieceEnd)>,
    /// The committed texts as Whisper wrote them (the next pass's previous text).
    raw: String,
    /// The committed words (the last [`repeat::KEPT_WORDS`]) with when they were said, as far
    /// as their passes told (seconds of the recording): what a pass's text must not say again
    /// ([`Self::without_said_again`]).
    said: Vec<SaidWord>,
    /// The dictation's language, once a stretch was committed.
    pub language: Option<String>,
    /// The passes since the last commit, for agreement with the next.
    since_commit: Vec<Pass>,
    /// The last pass's words after the last commit, as a pass from it: what the next pass's
    /// words are compared with ([`words::decide_by_words`]).
    hypothesis: Option<WordPass>,
    /// How the last commit was cut.
    last_rule: Option<Rule>,
    /// What the last pass made of the uncommitted audio.
    tentative: Option<Tentative>,
    /// The commit rules it follows ([`commit::RULES_IN_USE`]).
    rules: &'static [Rule],
    /// The last pass's start (samples of the recording) and its first window's tokens as
    /// Whisper decoded them: the next pass's draft ([`Self::draft_from`]).
    last_tokens: Option<(usize, Vec<u32>)>,
    /// The last pass's words, while what it did not commit is still uncommitted: what key-up,
    /// or a long pass at a pause, may commit without a pass to agree with
    /// ([`Self::settled_by_last_pass`]).
    last_pass: Option<LastPass>,
    /// The last pass was not believed: it left out words the pass before heard
    /// ([`doubt`]); the next is believed whatever it leaves out.
    doubted_last: bool,
    /// Passes run, and commits made.
    pub passes: u32,
    pub commits: u32,
    /// What the voice-activity detector heard in the recording so far (its newest snapshot's
    /// frames, [`Self::hear`]); `None` without the detector: quiet is then judged by loudness.
    speech: Option<SpeechFrames>,
}

/// The last pass's words (after the committed words it heard again were dropped), as it gave
/// them.
#[derive(Debug, Clone)]
struct LastPass {
    /// Its words and its transcript of the same words, over the recording from `words.start`.
    words: WordPass,
    transcript: Transcript,
    /// How many of its first words it committed itself.
    committed: usize,
    /// The committed words it heard again (the context it had before its own commit).
    context: Context,
}

/// The last pass's result for the audio it did not commit.
#[derive(Debug, Clone)]
struct Tentative {
    /// Where it starts (= `committed_to` when it was made) and ends, in samples.
    start: usize,
    end: usize,
    /// The recording's loudest frame when it was made, against which later audio is judged
    /// quiet (as the recorder judges pauses).
    peak: f32,
    /// Its text as delivered, or why there is none.
    result: Result<String, Empty>,
    /// Its text as Whisper wrote it, and in which language.
    raw: String,
    language: String,
    /// Its words with when they were said (seconds of the recording).
    said: Vec<SaidWord>,
    /// Its pass could tell the dictation's language ([`tells_the_language`]).
    tells_the_language: bool,
    /// Its audio ended in a pause.
    ends_in_pause: bool,
}

/// A pass cut in two by a commit.
struct Split {
    /// The committed part and the rest, as transcripts.
    part: Transcript,
    rest: Transcript,
    /// Where the audio is cut, in samples from the pass's start.
    cut: usize,
    rule: Rule,
    /// What the pass heard after the cut, for the next pass's word agreement.
    hypothesis: Option<WordPass>,
    /// Where the next pass starts (samples of the recording) and the committed words it
    /// hears again; `None`: at the cut.
    context: Option<(usize, Context)>,
}

/// What a pass did, for the log and the overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Everything committed so far, as delivered.
    pub committed: String,
    /// The text of the audio after it, as the last pass heard it (may change).
    pub tentative: String,
    /// The commit this pass made: its rule, where it cut (seconds into the recording).
    pub commit: Option<(Rule, f32)>,
}

impl Stream {
    pub fn new(id: u64) -> Stream {
        Stream::with_rules(id, commit::RULES_IN_USE)
    }

    /// A stream that commits by `rules` (tests of a rule not in use).
    pub fn with_rules(id: u64, rules: &'static [Rule]) -> Stream {
        Stream {
            rules,
            id,
            committed_to: 0,
            pass_from: 0,
            context: Context::default(),
            pieces: Vec::new(),
            raw: String::new(),
            said: Vec::new(),
            language: None,
            since_commit: Vec::new(),
            hypothesis: None,
            last_rule: None,
            tentative: None,
            last_tokens: None,
            last_pass: None,
            doubted_last: false,
            passes: 0,
            commits: 0,
            speech: None,
        }
    }

    /// Takes what the voice-activity detector heard in `audio`, the recording's newest
    /// snapshot: the pauses and the quiet after a pass are judged by it from now on.
    pub fn hear(&mut self, audio: &SharedAudio) {
        if let Some(frames) = audio.speech() {
            if self
                .speech
                .as_ref()
                .is_none_or(|s| s.covered() <= frames.covered())
            {
                self.speech = Some(frames.clone());
            }
        }
    }

    /// How quiet is told from speech in this recording: by the detector's frames when it ran,
    /// else by loudness against `peak` (the recording's loudest frame).
    pub(super) fn hearing(&self, peak: f32) -> pause::Hearing<'_> {
        match &self.speech {
            Some(speech) => pause::Hearing::Voice { speech, peak },
            None => pause::Hearing::Loudness { peak },
        }
    }

    /// Whether the detector ran and heard no speech in the recording's `range` (samples).
    pub fn heard_no_speech_in(&self, range: std::ops::Range<usize>) -> bool {
        self.speech
            .as_ref()
            .is_some_and(|frames| !frames.speech_in(range))
    }

    /// The audio the next pass transcribes of `recording` (the audio so far): from the last
    /// commit (or the context before it), at most [`MAX_PASS`]; `None` when nothing new is
    /// there.
    pub fn pass_range(&self, recording_len: usize) -> Option<std::ops::Range<usize>> {
        let start = self.pass_from;
        (recording_len > self.committed_to).then(|| start..recording_len.min(start + MAX_PASS))
    }

    /// Where a pass over the uncommitted audio starts (see [`Self::pass_range`]); key-up's
    /// pass too.
    pub fn pass_from(&self) -> usize {
        self.pass_from
    }

    /// The tokens a pass over the recording from `start` is expected to decode to, and whether
    /// they are of audio that starts elsewhere: the last pass's. Most of a pass is what the
    /// pass before heard (a stride adds 2 s to 6–12 s, a commit moves the start a few seconds
    /// on), and the engine checks a draft in one decoder call instead of a step a token
    /// ([`crate::whisper::TranscribeParams::draft`]).
    pub fn draft_from(&self, start: usize) -> (Vec<u32>, bool) {
        match &self.last_tokens {
            Some((from, tokens)) => (tokens.clone(), *from != start),
            None => (Vec::new(), false),
        }
    }

    /// Whisper's previous text for the next pass: the person's own prompt, then the end of the
    /// committed text (cut at a word).
    pub fn prompt(&self, own: Option<&str>) -> Option<String> {
        // A pass that hears committed words again takes them from the audio, not the text.
        let raw = if self.context.is_empty() {
            self.raw.trim()
        } else {
            ""
        };
        // The byte where the last PROMPT_CHARS characters start, then the next word's start.
        let tail = match raw.char_indices().rev().nth(PROMPT_CHARS) {
            Some((before, c)) => {
                let cut = &raw[before + c.len_utf8()..];
                cut.split_once(' ').map_or(cut, |(_, rest)| rest)
            }
            None => raw,
        };
        let own = own.map(str::trim).filter(|p| !p.is_empty());
        match (own, tail.is_empty()) {
            (None, true) => None,
            (None, false) => Some(tail.to_string()),
            (Some(own), true) => Some(own.to_string()),
            (Some(own), false) => Some(format!("{own} {tail}")),
        }
    }

    /// Audio of a pass with nothing in it (below the gate's frame level): nothing is there to
    /// transcribe, now or later; the stream moves past it.
    pub fn skip_silence(&mut self, range: &std::ops::Range<usize>) {
        if range.start == self.pass_from {
            self.committed_to = range.end;
            self.pass_from = range.end;
            self.context = Context::default();
            self.since_commit.clear();
            self.hypothesis = None;
            self.tentative = None;
            self.last_pass = None;
        }
    }

    /// Whether the pass over the recording's `range` (its `audio`; `peak`: the recording's
    /// loudest frame so far) needs word times, one more decoder pass over its text (10–20 % of
    /// a short pass). The word rule compares a pass's words with the pass before, and finds the
    /// committed words a pass hears again by their times. A pass that ends in a pause, hears no
    /// committed words again and covers less than [`STRIDE_FROM`] of uncommitted audio needs
    /// none: if the pause holds, its text is committed whole (rule 1); if not, no pass with
    /// words came before it since the commit (strides start at [`STRIDE_FROM`]), so it has
    /// nothing to agree with, and the first stride after it agrees with the next stride, one
    /// stride later than it might have with this pass.
    pub fn pass_needs_word_times(
        &self,
        range: &std::ops::Range<usize>,
        audio: &[f32],
        peak: f32,
    ) -> bool {
        if !self.rules.contains(&Rule::Words) {
            return false;
        }
        !self.context.is_empty()
            || range.end.saturating_sub(self.committed_to) >= STRIDE_FROM
            || !pause::ends_in_pause(audio, range.clone(), self.hearing(peak))
    }

    /// Takes a pass's transcript of `audio` (the recording's `range`; `peak` is the loudest
    /// frame of the recording so far): commits what [`commit::decide`] (by segments) or
    /// [`words::decide_by_words`] allows, keeps the rest as tentative. `wording` turns
    /// Whisper's text into what is delivered (verdict first).
    pub fn take_pass(
        &mut self,
        (range, audio, peak): (std::ops::Range<usize>, &[f32], f32),
        transcript: &Transcript,
        wording: &Wording,
    ) -> Progress {
        self.passes += 1;
        let first_window = transcript.segments.iter().filter(|s| s.seek == 0);
        let tokens = (
            range.start,
            first_window
                .flat_map(|s| s.tokens.iter().copied())
                .collect(),
        );
        let mut transcript = transcript.clone();
        if self.overlapping() {
            self.drop_repeated_words(&mut transcript);
        }
        let mut left_out = false;
        if !self.context.is_empty() {
            let cut = self.committed_to.saturating_sub(self.pass_from) as f32 / SAMPLE_RATE as f32;
            let (rest, dropped, by) = self.context.strip(transcript, cut);
            tracing::info!(
                id = self.id,
                words = dropped,
                by,
                "committed words heard again dropped"
            );
            transcript = rest;
            let unheard = unheard_speech(&transcript, audio, cut);
            let skipped = match unheard {
                Some(_) => None,
                None => self.context.skipped_after_cut(&transcript),
            };
            if unheard.is_some() || skipped.is_some() {
                // Whisper left speech out: nothing of this pass is committed, and the next
                // one starts further back ([`context`]'s module doc).
                let moved = self.context.widen(self.pass_from, self.committed_to);
                tracing::info!(
                    id = self.id,
                    at_s = unheard.map(|(at, _)| (self.pass_from as f32 / SAMPLE_RATE as f32) + at),
                    speech_s = unheard.map(|(_, speech)| speech),
                    skipped_words = skipped.as_ref().map(Vec::len),
                    next_from_s = moved.map(|from| from as f32 / SAMPLE_RATE as f32),
                    "a pass left speech out after the cut; it commits nothing"
                );
                match moved {
                    Some(from) => self.pass_from = from,
                    // No committed word to start further back from: from the cut, with the
                    // committed text as Whisper's previous text (another decoding).
                    None => {
                        self.pass_from = self.committed_to;
                        self.context = Context::default();
                    }
                }
                left_out = true;
            }
        }
        transcript = self.without_said_again(transcript, range.start, audio.len());
        let pass = Pass {
            start: range.start,
            len: audio.len(),
            segments: transcript
                .segments
                .iter()
                .map(|s| PassSegment {
                    text: s.text.clone(),
                    start: s.start,
                    end: s.end,
                })
                .collect(),
            ends_in_pause: pause::ends_in_pause(audio, range.clone(), self.hearing(peak)),
        };
        let word_pass = self
            .rules
            .contains(&Rule::Words)
            .then(|| WordPass::of(range.start, audio.len(), &transcript))
            .flatten();
        if !left_out {
            if let Some(progress) = self.doubted(word_pass.as_ref()) {
                return progress;
            }
        }
        self.last_tokens = Some(tokens);
        // The first stretch is committed only by a pass that can tell its language.
        let tells = tells_the_language(&transcript);
        let split = if left_out || !(self.language.is_some() || tells) {
            None
        } else {
            self.split(&pass, word_pass.as_ref(), &transcript, audio)
        };
        let context_before = self.context.clone();
        let mut made = None;
        let mut rest = (transcript.clone(), 0);
        let mut committed_words = 0;
        if let Some(split) = split {
            let rule = split.rule;
            let words = split.part.segments.iter().map(|s| s.words.len()).sum();
            if let Some(kept) = self.commit_split(split, range.start, audio, wording) {
                made = Some((rule, self.committed_to as f32 / SAMPLE_RATE as f32));
                rest = kept;
                committed_words = words;
            }
        }
        self.last_pass = word_pass
            .as_ref()
            .filter(|_| !left_out)
            .map(|words| LastPass {
                words: words.clone(),
                transcript: transcript.clone(),
                committed: committed_words,
                context: context_before,
            });
        let ends_in_pause = pass.ends_in_pause;
        if made.is_some() {
            self.since_commit.clear();
        } else if left_out {
            // Not a pass to agree with: the next starts elsewhere.
            self.hypothesis = None;
        } else {
            self.since_commit.push(pass);
            self.hypothesis = word_pass;
        }
        let (rest, cut) = rest;
        let result = if rest.segments.is_empty() && made.is_some() {
            Err(Empty::NoText)
        } else {
            let level = Level::measure(&audio[cut..], SAMPLE_RATE as u32, &GateConfig::default());
            wording.words(&rest, &level)
        };
        let tentative = result.clone().unwrap_or_default();
        self.tentative = Some(Tentative {
            start: self.committed_to,
            end: range.end,
            peak,
            result,
            raw: rest.text.clone(),
            said: SaidWord::of_transcript(&rest, range.start as f32 / SAMPLE_RATE as f32),
            language: transcript.language.clone(),
            tells_the_language: tells,
            ends_in_pause,
        });
        Progress {
            committed: self.committed_text(),
            tentative,
            commit: made,
        }
    }

    /// Commits `split` of a pass over the recording from `start` (its `audio`): the part's text
    /// as `wording` delivers it, the stream moved to the cut. Returns the rest of the pass and
    /// where it starts (samples from the pass's start); `None`, and nothing committed, when the
    /// wording gave no text for the part.
    fn commit_split(
        &mut self,
        split: Split,
        start: usize,
        audio: &[f32],
        wording: &Wording,
    ) -> Option<(Transcript, usize)> {
        let level = Level::measure(
            &audio[..split.cut],
            SAMPLE_RATE as u32,
            &GateConfig::default(),
        );
        let text = wording.words(&split.part, &level).ok()?;
        let end = match split.rule {
            Rule::Words => PieceEnd::SpeechHeardAfter,
            Rule::Pause | Rule::Agreement | Rule::Forced => PieceEnd::AudioEnded,
        };
        self.pieces.push((text, end));
        self.raw.push_str(&split.part.text);
        let said_from = start as f32 / SAMPLE_RATE as f32;
        repeat::remember(
            &mut self.said,
            SaidWord::of_transcript(&split.part, said_from),
        );
        self.language
            .get_or_insert_with(|| split.part.language.clone());
        // A pause's cut is in quiet, a word rule's in the gap after a word; a segment rule's
        // may be off by Whisper's timing: the next pass starts a little before it and drops
        // what it says again.
        self.committed_to = match split.rule {
            Rule::Pause | Rule::Words => start + split.cut,
            Rule::Agreement | Rule::Forced => {
                start + split.cut.saturating_sub(commit::OVERLAP).max(1)
            }
        };
        (self.pass_from, self.context) = match split.context {
            Some((from, context)) => (from, context),
            None => (self.committed_to, Context::default()),
        };
        self.last_rule = Some(split.rule);
        self.commits += 1;
        self.hypothesis = split.hypothesis;
        Some((split.rest, split.cut))
    }

    /// What of a pass (`pass` as segments, `words` as words when the word rule is in use, of
    /// `transcript` over `audio`) the rules in use commit: by segments first, then by words.
    fn split(
        &self,
        pass: &Pass,
        words: Option<&WordPass>,
        transcript: &Transcript,
        audio: &[f32],
    ) -> Option<Split> {
        if let Commit::Segments {
            segments,
            cut,
            rule,
        } = commit::decide(&self.since_commit, pass, audio).filter_by_rule(self.rules)
        {
            return Some(Split {
                part: part_of(transcript, 0..segments),
                rest: part_of(transcript, segments..transcript.segments.len()),
                cut,
                rule,
                hypothesis: None,
                context: None,
            });
        }
        let current = words?;
        match words::decide_by_words(self.hypothesis.as_ref(), current, audio) {
            WordCommit::Words { words, cut } => {
                let (part, rest) = split_at_word(transcript, words);
                let (from, context) =
                    self.context
                        .after_commit(current, words, cut, self.hypothesis.as_ref());
                Some(Split {
                    part,
                    rest,
                    cut,
                    rule: Rule::Words,
                    hypothesis: Some(current.after(words, from - current.start)),
                    context: Some((from, context)),
                })
            }
            WordCommit::Nothing => None,
        }
    }

    /// Rule 1 of [`commit`]: when the last pass ended in a pause that has held in `recording`
    /// (the audio so far) and gave text, that text is committed and the stream moves to its
    /// end, without transcribing it again; a pause heard only through noise commits a pass of
    /// [`commit::NOISY_COMMIT_FROM`] or more. Returns where it cut, in seconds.
    pub fn commit_held_pause(&mut self, recording: &[f32]) -> Option<f32> {
        let tentative = self.tentative.as_ref()?;
        let text = tentative.result.as_ref().ok()?;
        let long_enough_for_noise = || {
            tentative.end - self.committed_to
                >= (commit::NOISY_COMMIT_FROM * SAMPLE_RATE as f32) as usize
                || !commit::pause_held_in_noise(recording, tentative.end, tentative.peak)
        };
        let held = tentative.start == self.committed_to
            && (self.language.is_some() || tentative.tells_the_language)
            && tentative.ends_in_pause
            && commit::pause_held(recording, tentative.end, self.hearing(tentative.peak))
            && long_enough_for_noise();
        if !held {
            return None;
        }
        self.pieces.push((text.clone(), PieceEnd::AudioEnded));
        self.raw.push_str(&tentative.raw);
        let said = tentative.said.clone();
        repeat::remember(&mut self.said, said);
        self.language
            .get_or_insert_with(|| tentative.language.clone());
        // In the pause's quietest frame: "quiet" against the recording's loudest frame can
        // hold a soft first sound of the next word ("session. F|irst" cut "First" off on the
        // project's clip without pauses); audio between that frame and the pass's end is
        // transcribed again, and words repeated there are dropped.
        self.committed_to =
            commit::quietest_in_pause(recording, tentative.end).max(tentative.start + 1);
        self.pass_from = self.committed_to;
        self.context = Context::default();
        self.last_rule = Some(Rule::Pause);
        self.commits += 1;
        self.since_commit.clear();
        self.hypothesis = None;
        self.tentative = None;
        self.last_pass = None;
        Some(self.committed_to as f32 / SAMPLE_RATE as f32)
    }

    /// The last pass's text for the audio after the last commit, when it covered all of
    /// `recording` that is not quiet, gave text, and was made after the last commit.
    pub fn tentative_stands_for(&self, recording: &[f32]) -> Option<String> {
        let tentative = self.tentative.as_ref()?;
        let text = tentative.result.as_ref().ok()?;
        let quiet_after = pause::tail_is_quiet(
            recording,
            tentative.end,
            self.hearing(tentative.peak),
            SAMPLE_RATE as u32,
        );
        (tentative.start == self.committed_to && quiet_after).then(|| text.clone())
    }

    /// What Whisper wrote in the last pass (the one [`Self::tentative_stands_for`] takes), and
    /// its language.
    pub fn tentative_heard(&self) -> Heard {
        self.tentative
            .as_ref()
            .map(|t| Heard {
                raw: t.raw.trim().to_string(),
                language: Some(t.language.clone()).filter(|l| !l.is_empty()),
            })
            .unwrap_or_default()
    }

    /// What Whisper wrote for the whole dictation: the committed stretches as it wrote them,
    /// then `tail`'s; the dictation's language, else the tail's.
    pub fn heard_with_tail(&self, tail: Heard) -> Heard {
        let raw = format!("{} {}", self.raw.trim(), tail.raw.trim());
        Heard {
            raw: raw.trim().to_string(),
            language: self.language.clone().or(tail.language),
        }
    }

    /// The last pass's text of the audio after the last commit (empty when it gave none).
    pub fn tentative_text(&self) -> String {
        self.tentative
            .as_ref()
            .filter(|t| t.start == self.committed_to)
            .and_then(|t| t.result.as_ref().ok().cloned())
            .unwrap_or_default()
    }

    /// Whether the dictation's language is known, or `transcript` (a pass's) tells it: what
    /// a commit needs ([`language`]'s module doc).
    fn language_told_by(&self, transcript: &Transcript) -> bool {
        self.language.is_some() || tells_the_language(transcript)
    }

    /// Whether anything was committed.
    pub fn has_committed(&self) -> bool {
        !self.pieces.is_empty()
    }

    /// The committed text, as delivered.
    pub fn committed_text(&self) -> String {
        let mut text = String::new();
        let mut before = PieceEnd::AudioEnded;
        for (piece, end) in &self.pieces {
            text = join_pieces(&text, piece, before);
            before = *end;
        }
        text
    }

    /// The dictation's text: the committed pieces and then `tail`, key-up's text of the
    /// recording (`recording_len` samples) after the last commit, without a copy of the
    /// committed text's end that was not spoken there ([`repeat::said_again`]; by its letters
    /// and the length of that audio: a text has no times).
    pub fn with_tail(&self, tail: Option<&str>, recording_len: usize) -> String {
        let committed = self.committed_text();
        let tail = tail.unwrap_or("");
        let repeated = if self.overlapping() {
            commit::overlap_words(&committed, tail)
        } else {
            0
        };
        let tail = match repeated {
            0 => tail.to_string(),
            repeated => commit::drop_words(tail, repeated),
        };
        let room = self.room_to_say_again(self.committed_to..recording_len);
        let (tail, copied) = repeat::without_copies_in_text(&self.said, &tail, room);
        if copied > 0 {
            tracing::info!(
                id = self.id,
                words = copied,
                "key-up's text said the committed text again; dropped"
            );
        }
        let before = self
            .pieces
            .last()
            .map_or(PieceEnd::AudioEnded, |(_, end)| *end);
        join_pieces(&committed, &tail, before)
    }

    /// `transcript` of the recording's audio from sample `start` on (`len` samples; a pass's,
    /// after the committed words it heard again were dropped) without a copy of the committed
    /// text's end at its start, nor a sentence of its own said again right after it, that the
    /// person did not say there ([`repeat`]'s module doc): Whisper writes its previous text
    /// again over noise.
    pub fn without_said_again(
        &self,
        transcript: Transcript,
        start: usize,
        len: usize,
    ) -> Transcript {
        let offset = start as f32 / SAMPLE_RATE as f32;
        let room = self.room_to_say_again(self.committed_to.max(start)..start + len);
        let (transcript, copied) = repeat::without_copies(&self.said, transcript, offset, room);
        let (transcript, repeated) = repeat::without_repeated_sentence(&transcript);
        if copied + repeated > 0 {
            tracing::info!(
                id = self.id,
                copied,
                repeated,
                "a pass said the committed text or its own sentence again; dropped"
            );
        }
        transcript
    }

    /// How many seconds of the recording's `range` (after the last cut) a copy of the
    /// committed text can have been said in ([`repeat::spoken`]'s `room`): the seconds the
    /// voice-activity detector heard speech there, so that a copy Whisper spreads over seconds
    /// of noise is found too; without the detector all of it (by loudness, steady noise is as
    /// loud as speech).
    fn room_to_say_again(&self, range: std::ops::Range<usize>) -> f32 {
        match &self.speech {
            Some(speech) => speech.speech_seconds_in(range),
            None => range.len() as f32 / SAMPLE_RATE as f32,
        }
    }

    /// `text` of a pass from [`Self::pass_from`] (key-up's) without the committed words it
    /// heard again ([`Context::text_without`]).
    pub fn text_without_context(&self, text: &str) -> String {
        self.context.text_without(text)
    }

    /// Whether the next pass starts before the last cut ([`commit::OVERLAP`]: the last commit
    /// was not at a pause).
    fn overlapping(&self) -> bool {
        matches!(self.last_rule, Some(Rule::Agreement | Rule::Forced))
    }

    /// After a cut that was not in a pause, the next pass may say the committed text's last
    /// words again (the cut landed before a word's end): they are dropped from its first
    /// segment.
    fn drop_repeated_words(&self, transcript: &mut Transcript) {
        let Some(first) = transcript.segments.first_mut() else {
            return;
        };
        let repeated = commit::overlap_words(&self.raw, &first.text);
        if repeated > 0 {
            tracing::info!(
                id = self.id,
                words = repeated,
                "repeated words at a cut dropped"
            );
            first.text = format!(" {}", commit::drop_words(&first.text, repeated));
            transcript.text = transcript
                .segments
                .iter()
                .map(|s| s.text.as_str())
                .collect();
        }
    }
}

/// The transcript of `transcript`'s segments in `range` alone.
fn part_of(transcript: &Transcript, range: std::ops::Range<usize>) -> Transcript {
    let segments = transcript.segments[range].to_vec();
    Transcript {
        text: segments.iter().map(|s| s.text.as_str()).collect(),
        segments,
        withheld: Vec::new(),
        ..transcript.clone()
    }
}

/// `transcript` cut after its first `words` words (over all its segments): the segment the cut
/// falls in is split in two, each half with its own words, text and times.
fn split_at_word(transcript: &Transcript, words: usize) -> (Transcript, Transcript) {
    let mut part = Vec::new();
    let mut rest = Vec::new();
    let mut left = words;
    for segment in &transcript.segments {
        let n = segment.words.len();
        if left == 0 {
            rest.push(segment.clone());
        } else if left >= n {
            left -= n;
            part.push(segment.clone());
        } else {
            let (before, after) = segment.words.split_at(left);
            left = 0;
            let half = |words: &[crate::whisper::Word]| Segment {
                text: words.iter().map(|w| w.text.as_str()).collect(),
                start: words.first().map_or(segment.start, |w| w.start),
                end: words.last().map_or(segment.end, |w| w.end),
                words: words.to_vec(),
                ..segment.clone()
            };
            part.push(half(before));
            rest.push(half(after));
        }
    }
    let transcript_of = |segments: Vec<Segment>| Transcript {
        text: segments.iter().map(|s| s.text.as_str()).collect(),
        segments,
        withheld: Vec::new(),
        ..transcript.clone()
    };
    (transcript_of(part), transcript_of(rest))
}

/// How a committed piece ended: what its last full stop is worth when the next piece starts
/// with a lowercase letter ([`join_pieces`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceEnd {
    /// The pass that wrote it ended there (a pause, or the audio so far): Whisper puts a full
    /// stop at the end of the audio it is given, even mid-sentence ("I went to the." at a
    /// pause, "store today." after it).
    AudioEnded,
    /// The pass that wrote it heard the speech after it (a commit by words, cut at a sentence
    /// end that pass wrote with the next words heard): its full stop stands, and a next piece
    /// in lowercase is a pass that started mid-sentence to hear committed words again and
    /// wrote their sentence on ("…lock the front door." then "that depends on…", pasted
    /// as "door that depends" and changing committed text on the overlay: the desktop test's
    /// 110 s clip without pauses, 2026-11-29).
    SpeechHeardAfter,
}

/// `next` after `before` (which ended as `end` says) in one dictation: a space between them;
/// when `next` starts with a lowercase letter after a full stop, that full stop is taken back
/// if the audio ended there, else `next` starts a sentence ([`PieceEnd`]).
pub fn join_pieces(before: &str, next: &str, end: PieceEnd) -> String {
    let before = before.trim_end();
    let next = next.trim();
    if before.is_empty() {
        return next.to_string();
    }
    if next.is_empty() {
        return before.to_string();
    }
    let continues = next.chars().next().is_some_and(char::is_lowercase);
    // Not an ellipsis ("Wait...") nor an abbreviation's dot ("9 a.m.", "e.g."): those stay.
    let sentence_end = before.strip_suffix('.').filter(|cut| {
        let last_word = cut.rsplit(char::is_whitespace).next().unwrap_or(cut);
        continues && !last_word.contains('.')
    });
    match (sentence_end, end) {
        (Some(cut), PieceEnd::AudioEnded) => format!("{cut} {next}"),
        (Some(_), PieceEnd::SpeechHeardAfter) => format!("{before} {}", capitalised(next)),
        (None, _) => format!("{before} {next}"),
    }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
pub(crate) mod tests;
