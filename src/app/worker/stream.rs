//! A dictation transcribed while it is spoken: what of it is committed (its text final, its
//! audio never transcribed again), the pass before (for [`super::commit`]'s agreement), the
//! tentative text of the audio not committed yet, and the language the dictation keeps.
//! Owns no model: the worker runs Whisper and hands each pass's transcript here.
//!
//! A pass transcribes the recording from [`Stream::committed_to`] on (at most one 30 s window,
//! [`MAX_PASS`]), with the committed text's end as Whisper's previous text
//! ([`Stream::prompt`]) so casing, punctuation and the language carry over. After a commit by
//! words (mid-speech, no pause) it starts instead about 2 s before the cut, at a committed
//! word, without the committed text as previous text, and the committed words it hears again
//! are dropped from its text; a pass that left speech out after the cut commits nothing and
//! the next starts further back ([`context`] says why). At key-up only the
//! audio after the last commit is transcribed, or nothing when the last pass covered it and the
//! rest is quiet ([`Stream::tentative_stands_for`]). Every pass, key-up's too, gets the last
//! pass's tokens as its draft ([`Stream::draft_from`]): the engine checks them in one decoder
//! call instead of choosing each token again.

mod context;

use super::commit::words::{self, WordCommit, WordPass};
use super::commit::{self, Commit, Pass, PassSegment, Rule};
use super::Heard;
use crate::app::verdict::Empty;
use crate::app::wording::Wording;
use crate::audio::level::{GateConfig, Level};
use crate::audio::pause;
use crate::whisper::{Segment, Transcript};
use context::{unheard_speech, Context};

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
#[derive(Debug)]
pub struct Stream {
    pub id: u64,
    /// Samples (16 kHz) of the recording whose text is committed.
    pub committed_to: usize,
    /// Where the next pass's audio starts: `committed_to`, or before it after a commit by
    /// words (the pass hears the committed words since then again, [`words::CONTEXT`]).
    pass_from: usize,
    /// Those committed words: dropped from the pass's text.
    context: Context,
    /// The committed texts as they are delivered, in order.
    pieces: Vec<String>,
    /// The committed texts as Whisper wrote them (the next pass's previous text).
    raw: String,
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
    /// Passes run, and commits made.
    pub passes: u32,
    pub commits: u32,
}

/// The last pass's result for the audio it did not commit.
#[derive(Debug)]
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
            language: None,
            since_commit: Vec::new(),
            hypothesis: None,
            last_rule: None,
            tentative: None,
            last_tokens: None,
            passes: 0,
            commits: 0,
        }
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
            || !pause::ends_in_pause(audio, peak, SAMPLE_RATE as u32)
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
        self.last_tokens = Some((
            range.start,
            first_window
                .flat_map(|s| s.tokens.iter().copied())
                .collect(),
        ));
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
            ends_in_pause: pause::ends_in_pause(audio, peak, SAMPLE_RATE as u32),
        };
        let word_pass = self
            .rules
            .contains(&Rule::Words)
            .then(|| WordPass::of(range.start, audio.len(), &transcript))
            .flatten();
        let split = if left_out {
            None
        } else {
            self.split(&pass, word_pass.as_ref(), &transcript, audio)
        };
        let mut made = None;
        let mut rest = (transcript.clone(), 0);
        if let Some(split) = split {
            let level = Level::measure(
                &audio[..split.cut],
                SAMPLE_RATE as u32,
                &GateConfig::default(),
            );
            if let Ok(text) = wording.words(&split.part, &level) {
                self.pieces.push(text);
                self.raw.push_str(&split.part.text);
                self.language
                    .get_or_insert_with(|| transcript.language.clone());
                // A pause's cut is in quiet, a word rule's in the gap after a word; a segment
                // rule's may be off by Whisper's timing: the next pass starts a little before
                // it and drops what it says again.
                self.committed_to = match split.rule {
                    Rule::Pause | Rule::Words => range.start + split.cut,
                    Rule::Agreement | Rule::Forced => {
                        range.start + split.cut.saturating_sub(commit::OVERLAP).max(1)
                    }
                };
                (self.pass_from, self.context) = match &split.context {
                    Some((from, context)) => (*from, context.clone()),
                    None => (self.committed_to, Context::default()),
                };
                self.last_rule = Some(split.rule);
                self.commits += 1;
                made = Some((split.rule, self.committed_to as f32 / SAMPLE_RATE as f32));
                rest = (split.rest, split.cut);
                self.hypothesis = split.hypothesis;
            }
        }
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
            language: transcript.language.clone(),
            ends_in_pause,
        });
        Progress {
            committed: self.committed_text(),
            tentative,
            commit: made,
        }
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
                let (from, context) = self.context.after_commit(current, words, cut);
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
    /// end, without transcribing it again. Returns where it cut, in seconds.
    pub fn commit_held_pause(&mut self, recording: &[f32]) -> Option<f32> {
        let tentative = self.tentative.as_ref()?;
        let text = tentative.result.as_ref().ok()?;
        let held = tentative.start == self.committed_to
            && tentative.ends_in_pause
            && commit::pause_held(recording, tentative.end, tentative.peak);
        if !held {
            return None;
        }
        self.pieces.push(text.clone());
        self.raw.push_str(&tentative.raw);
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
            tentative.peak,
            SAMPLE_RATE as u32,
            &GateConfig::default(),
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

    /// Whether anything was committed.
    pub fn has_committed(&self) -> bool {
        !self.pieces.is_empty()
    }

    /// The committed text, as delivered.
    pub fn committed_text(&self) -> String {
        self.pieces
            .iter()
            .fold(String::new(), |text, piece| join_pieces(&text, piece))
    }

    /// The dictation's text: the committed pieces and then `tail`.
    pub fn with_tail(&self, tail: Option<&str>) -> String {
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
        join_pieces(&committed, &tail)
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

/// `next` after `before` in one dictation: a space between them, and a full stop Whisper put
/// at the end of a stretch taken back when the next one goes on with the sentence (starts with
/// a lowercase letter: "I went to the. store" was a pause mid-sentence).
pub fn join_pieces(before: &str, next: &str) -> String {
    let before = before.trim_end();
    let next = next.trim();
    if before.is_empty() {
        return next.to_string();
    }
    if next.is_empty() {
        return before.to_string();
    }
    let continues = next.chars().next().is_some_and(char::is_lowercase);
    let before = match before.strip_suffix('.') {
        Some(cut) if continues && !cut.ends_with('.') => cut,
        _ => before,
    };
    format!("{before} {next}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_with_a_space_and_a_sentence_cut_at_a_pause_goes_on() {
        assert_eq!(join_pieces("", "Hello."), "Hello.");
        assert_eq!(join_pieces("Hello.", "How are you?"), "Hello. How are you?");
        assert_eq!(
            join_pieces("I went to the.", "store today."),
            "I went to the store today."
        );
        assert_eq!(join_pieces("Wait...", "then go."), "Wait... then go.");
        assert_eq!(join_pieces("Done.", ""), "Done.");
    }

    #[test]
    fn the_prompt_is_the_persons_own_then_the_committed_texts_end() {
        let mut stream = Stream::new(1);
        assert_eq!(stream.prompt(None), None);
        assert_eq!(
            stream.prompt(Some("Kubernetes")).as_deref(),
            Some("Kubernetes")
        );
        stream.raw = " Good morning everyone.".into();
        assert_eq!(
            stream.prompt(Some("Kubernetes")).as_deref(),
            Some("Kubernetes Good morning everyone.")
        );
        stream.raw = "słowo ".repeat(400);
        let prompt = stream.prompt(None).expect("a prompt");
        assert!(
            prompt.chars().count() <= PROMPT_CHARS && prompt.starts_with("słowo"),
            "{prompt}"
        );
        // Counted in characters: a Polish text gets as many words as an English one.
        assert!(
            prompt.chars().count() > PROMPT_CHARS - "słowo ".len(),
            "{prompt}"
        );
        // Exactly PROMPT_CHARS characters stay whole.
        stream.raw = "ż".repeat(PROMPT_CHARS);
        assert_eq!(stream.prompt(None), Some("ż".repeat(PROMPT_CHARS)));
    }

    #[test]
    fn a_pass_never_covers_more_than_one_window() {
        let mut stream = Stream::new(1);
        assert_eq!(stream.pass_range(0), None);
        assert_eq!(stream.pass_range(40 * SAMPLE_RATE), Some(0..MAX_PASS));
        stream.committed_to = 25 * SAMPLE_RATE;
        stream.pass_from = 25 * SAMPLE_RATE;
        assert_eq!(
            stream.pass_range(40 * SAMPLE_RATE),
            Some(25 * SAMPLE_RATE..40 * SAMPLE_RATE)
        );
    }

    #[test]
    fn what_whisper_wrote_is_the_committed_stretches_then_the_tail() {
        let mut stream = Stream::new(1);
        let tail = |raw: &str, language: Option<&str>| Heard {
            raw: raw.into(),
            language: language.map(str::to_string),
        };
        assert_eq!(
            stream.heard_with_tail(tail(" um, new line", Some("en"))),
            tail("um, new line", Some("en"))
        );
        stream.raw = " Dzień dobry. Kropka".into();
        stream.language = Some("pl".into());
        // The dictation's language holds, whatever the tail was heard as.
        assert_eq!(
            stream.heard_with_tail(tail(" yyy, nowa linia", Some("en"))),
            tail("Dzień dobry. Kropka yyy, nowa linia", Some("pl"))
        );
        assert_eq!(
            stream.heard_with_tail(Heard::default()),
            tail("Dzień dobry. Kropka", Some("pl"))
        );
    }

    /// A transcript of `words` (text, start, end; seconds from the pass's start) in segments of
    /// `per_segment` words.
    pub(super) fn transcript_of(words: &[(&str, f32, f32)], per_segment: usize) -> Transcript {
        use crate::whisper::{Timings, Word};
        let segments: Vec<Segment> = words
            .chunks(per_segment)
            .map(|chunk| Segment {
                seek: 0,
                start: chunk[0].1,
                end: chunk[chunk.len() - 1].2,
                text: chunk.iter().map(|w| w.0).collect(),
                tokens: Vec::new(),
                temperature: 0.0,
                avg_logprob: -0.2,
                compression_ratio: 1.2,
                no_speech_prob: 0.01,
                words: chunk
                    .iter()
                    .map(|&(text, start, end)| Word {
                        text: text.into(),
                        start,
                        end,
                        probability: 0.9,
                    })
                    .collect(),
            })
            .collect();
        Transcript {
            text: segments.iter().map(|s| s.text.as_str()).collect(),
            segments,
            language: "en".into(),
            language_probability: Some(0.99),
            duration: 0.0,
            timings: Timings::default(),
            withheld: Vec::new(),
        }
    }

    #[test]
    fn a_transcript_cut_after_a_word_splits_the_segment_it_falls_in() {
        let words = [
            (" One", 0.0, 0.4),
            (" two", 0.4, 0.8),
            (" three.", 0.8, 1.2),
            (" Four", 1.5, 1.9),
            (" five.", 1.9, 2.4),
        ];
        let transcript = transcript_of(&words, 3);
        let (part, rest) = split_at_word(&transcript, 2);
        assert_eq!(part.text, " One two");
        assert_eq!(rest.text, " three. Four five.");
        assert_eq!(part.segments.len(), 1);
        assert_eq!(rest.segments.len(), 2);
        assert_eq!((rest.segments[0].start, rest.segments[0].end), (0.8, 1.2));
        assert_eq!(part.segments[0].end, 0.8);
        // At a segment boundary, and after all words.
        let (part, rest) = split_at_word(&transcript, 3);
        assert_eq!(
            (part.text.as_str(), rest.text.as_str()),
            (" One two three.", " Four five.")
        );
        let (part, rest) = split_at_word(&transcript, 5);
        assert_eq!((part.segments.len(), rest.segments.len()), (2, 0));
    }

    /// Speech without pauses (sentences of four words) as three strides' passes: the first
    /// commits nothing (nothing to agree with), the second commits the sentences both heard,
    /// and the third agrees with what the second heard after its cut, so it commits too; no
    /// word is lost or said twice.
    #[test]
    fn speech_without_pauses_is_committed_by_words_at_every_pass_after_the_first() {
        // 0.5 s per word, each with a 40 ms gap at its end.
        let all: Vec<(String, f32, f32)> = (0..20)
            .map(|i| {
                let end = if i % 4 == 3 { "." } else { "" };
                (format!(" w{i}{end}"), i as f32 * 0.5, i as f32 * 0.5 + 0.46)
            })
            .collect();
        let audio: Vec<f32> = (0..10 * SAMPLE_RATE)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                if t % 0.5 >= 0.46 {
                    0.0005
                } else {
                    0.3 * (t * 2.0 * std::f32::consts::PI * 200.0).sin()
                }
            })
            .collect();
        let wording = Wording::default();
        let mut stream = Stream::with_rules(1, &[Rule::Pause, Rule::Words]);
        // A pass hears everything from where it starts: after a commit, that is before the
        // cut, so it hears committed words again.
        let pass_over = |stream: &mut Stream, until: f32| {
            let from = stream.pass_from();
            let offset = from as f32 / SAMPLE_RATE as f32;
            let heard: Vec<(&str, f32, f32)> = all
                .iter()
                .filter(|w| w.1 >= offset - 0.01 && w.2 <= until)
                .map(|w| (w.0.as_str(), w.1 - offset, w.2 - offset))
                .collect();
            let to = (until * SAMPLE_RATE as f32) as usize;
            let transcript = transcript_of(&heard, 4);
            stream.take_pass((from..to, &audio[from..to], 0.3), &transcript, &wording)
        };
        let first = pass_over(&mut stream, 4.0);
        assert_eq!(first.commit, None);
        let second = pass_over(&mut stream, 6.0);
        assert_eq!(second.commit.map(|c| c.0), Some(Rule::Words));
        assert!(second.committed.starts_with("w0 w1 w2"), "{second:?}");
        // The next pass hears the committed words of the last 2 s again, from a word's start,
        // and takes them from the audio, not from Whisper's previous text.
        assert!(stream.pass_from() < stream.committed_to);
        assert_eq!(
            stream.prompt(Some("Kubernetes")).as_deref(),
            Some("Kubernetes")
        );
        assert_eq!(stream.text_without_context("w2 w3. w4 w5"), "w4 w5");
        let third = pass_over(&mut stream, 8.0);
        assert_eq!(third.commit.map(|c| c.0), Some(Rule::Words), "{third:?}");
        let said: Vec<String> = (0..16).map(|i| format!("w{i}")).collect();
        let words = |text: &str| -> Vec<String> {
            text.split_whitespace()
                .map(|w| w.trim_end_matches('.').to_lowercase())
                .collect()
        };
        let committed = words(&third.committed);
        assert_eq!(committed, said[..committed.len()], "{third:?}");
        assert!(committed.len() > words(&second.committed).len());
        assert_eq!(committed.len() % 4, 0, "cut at a sentence end: {third:?}");
        // What follows the cut is tentative, from where the commit ended.
        assert_eq!(
            words(&third.tentative)[0],
            said[committed.len()],
            "{third:?}"
        );
    }

    #[test]
    fn only_passes_whose_words_can_be_compared_ask_for_word_times() {
        let tone = |seconds: f32| -> Vec<f32> {
            (0..(seconds * SAMPLE_RATE as f32) as usize)
                .map(|i| 0.3 * (i as f32 * 2.0 * std::f32::consts::PI * 200.0 / 16_000.0).sin())
                .collect()
        };
        let quiet = |seconds: f32| vec![0.0005_f32; (seconds * SAMPLE_RATE as f32) as usize];
        let stream = Stream::with_rules(1, &[Rule::Pause, Rule::Words]);
        let ends_in_pause = [tone(3.0), quiet(0.3)].concat();
        let still_speaking = tone(3.0);
        let long_then_pause = [tone(6.5), quiet(0.3)].concat();
        let needs = |audio: &[f32]| stream.pass_needs_word_times(&(0..audio.len()), audio, 0.3);
        // A short stretch ended by a pause is committed whole if the pause holds.
        assert!(!needs(&ends_in_pause));
        // Speech still going on, or a stretch a stride could follow: compared word by word.
        assert!(needs(&still_speaking));
        assert!(needs(&long_then_pause));
        // Without the word rule no pass needs them.
        let by_pauses = Stream::with_rules(1, &[Rule::Pause]);
        assert!(!by_pauses.pass_needs_word_times(&(0..still_speaking.len()), &still_speaking, 0.3));
    }
}
