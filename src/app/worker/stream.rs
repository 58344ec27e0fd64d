//! A dictation transcribed while it is spoken: what of it is committed (its text final, its
//! audio never transcribed again), the pass before (for [`super::commit`]'s agreement), the
//! tentative text of the audio not committed yet, and the language the dictation keeps.
//! Owns no model: the worker runs Whisper and hands each pass's transcript here.
//!
//! A pass transcribes the recording from [`Stream::committed_to`] on (at most one 30 s window,
//! [`MAX_PASS`]), with the committed text's end as Whisper's previous text
//! ([`Stream::prompt`]) so casing, punctuation and the language carry over. At key-up only the
//! audio after the last commit is transcribed, or nothing when the last pass covered it and the
//! rest is quiet ([`Stream::tentative_stands_for`]).

use super::commit::{self, Commit, Pass, PassSegment, Rule};
use super::Heard;
use crate::app::verdict::Empty;
use crate::app::wording::Wording;
use crate::audio::level::{GateConfig, Level};
use crate::audio::pause;
use crate::whisper::Transcript;

const SAMPLE_RATE: usize = commit::SAMPLE_RATE;
/// A pass covers at most one Whisper window.
pub const MAX_PASS: usize = 30 * SAMPLE_RATE;
/// A stride's snapshot is transcribed only when this much audio (samples) is uncommitted: a
/// shorter stretch is most often ended by a pause, which commits it in one pass; passes over
/// the same audio every stride would cost several times the whole transcription.
pub const STRIDE_FROM: usize = 6 * SAMPLE_RATE;
/// How much of the committed text's end is Whisper's previous text: about 200 tokens (Whisper
/// keeps at most 223 of the prompt, and the person's own prompt comes first).
pub const PROMPT_CHARS: usize = 800;

/// The committed part of a dictation and what is known of the rest.
#[derive(Debug)]
pub struct Stream {
    pub id: u64,
    /// Samples (16 kHz) of the recording whose text is committed.
    pub committed_to: usize,
    /// The committed texts as they are delivered, in order.
    pieces: Vec<String>,
    /// The committed texts as Whisper wrote them (the next pass's previous text).
    raw: String,
    /// The dictation's language, once a stretch was committed.
    pub language: Option<String>,
    /// The passes since the last commit, for agreement with the next.
    since_commit: Vec<Pass>,
    /// How the last commit was cut.
    last_rule: Option<Rule>,
    /// What the last pass made of the uncommitted audio.
    tentative: Option<Tentative>,
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
        Stream {
            id,
            committed_to: 0,
            pieces: Vec::new(),
            raw: String::new(),
            language: None,
            since_commit: Vec::new(),
            last_rule: None,
            tentative: None,
            passes: 0,
            commits: 0,
        }
    }

    /// The audio the next pass transcribes of `recording` (the audio so far): from the last
    /// commit, at most [`MAX_PASS`]; `None` when nothing new is there.
    pub fn pass_range(&self, recording_len: usize) -> Option<std::ops::Range<usize>> {
        let start = self.committed_to;
        (recording_len > start).then(|| start..recording_len.min(start + MAX_PASS))
    }

    /// Whisper's previous text for the next pass: the person's own prompt, then the end of the
    /// committed text (cut at a word).
    pub fn prompt(&self, own: Option<&str>) -> Option<String> {
        let raw = self.raw.trim();
        let tail = if raw.len() > PROMPT_CHARS {
            let mut from = raw.len() - PROMPT_CHARS;
            while !raw.is_char_boundary(from) {
                from += 1;
            }
            let cut = &raw[from..];
            cut.split_once(' ').map_or(cut, |(_, rest)| rest)
        } else {
            raw
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
        if range.start == self.committed_to {
            self.committed_to = range.end;
            self.since_commit.clear();
            self.tentative = None;
        }
    }

    /// Takes a pass's transcript of `audio` (the recording's `range`; `peak` is the loudest
    /// frame of the recording so far): commits what [`commit::decide`] allows, keeps the rest
    /// as tentative. `wording` turns Whisper's text into what is delivered (verdict first).
    pub fn take_pass(
        &mut self,
        (range, audio, peak): (std::ops::Range<usize>, &[f32], f32),
        transcript: &Transcript,
        wording: &Wording,
    ) -> Progress {
        self.passes += 1;
        let mut transcript = transcript.clone();
        if self.overlapping() {
            self.drop_repeated_words(&mut transcript);
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
        let mut made = None;
        let mut rest_from = (0, 0); // segments, samples
        if let Commit::Segments {
            segments,
            cut,
            rule,
        } = commit::decide(&self.since_commit, &pass, audio).filter_by_rule(commit::RULES_IN_USE)
        {
            let part = part_of(&transcript, 0..segments);
            let level = Level::measure(&audio[..cut], SAMPLE_RATE as u32, &GateConfig::default());
            if let Ok(text) = wording.words(&part, &level) {
                self.pieces.push(text);
                self.raw.push_str(&part.text);
                self.language
                    .get_or_insert_with(|| transcript.language.clone());
                // A pause's cut is in quiet; any other may be off by Whisper's timing: the
                // next pass starts a little before it and drops what it says again.
                self.committed_to = match rule {
                    Rule::Pause => range.start + cut,
                    Rule::Agreement | Rule::Forced => {
                        range.start + cut.saturating_sub(commit::OVERLAP).max(1)
                    }
                };
                self.last_rule = Some(rule);
                self.commits += 1;
                made = Some((rule, self.committed_to as f32 / SAMPLE_RATE as f32));
                rest_from = (segments, cut);
            }
        }
        let ends_in_pause = pass.ends_in_pause;
        if made.is_some() {
            self.since_commit.clear();
        } else {
            self.since_commit.push(pass);
        }
        let (segments, cut) = rest_from;
        let rest_audio = &audio[cut..];
        let rest = part_of(&transcript, segments..transcript.segments.len());
        let rest_raw = if made.is_some() {
            rest.text.clone()
        } else {
            transcript.text.clone()
        };
        let result = if rest.segments.is_empty() && made.is_some() {
            Err(Empty::NoText)
        } else {
            let level = Level::measure(rest_audio, SAMPLE_RATE as u32, &GateConfig::default());
            let rest = if made.is_some() {
                rest
            } else {
                transcript.clone()
            };
            wording.words(&rest, &level)
        };
        let tentative = result.clone().unwrap_or_default();
        self.tentative = Some(Tentative {
            start: self.committed_to,
            end: range.end,
            peak,
            result,
            raw: rest_raw,
            language: transcript.language.clone(),
            ends_in_pause,
        });
        Progress {
            committed: self.committed_text(),
            tentative,
            commit: made,
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
        self.last_rule = Some(Rule::Pause);
        self.commits += 1;
        self.since_commit.clear();
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
            prompt.len() <= PROMPT_CHARS && prompt.starts_with("słowo"),
            "{prompt}"
        );
    }

    #[test]
    fn a_pass_never_covers_more_than_one_window() {
        let mut stream = Stream::new(1);
        assert_eq!(stream.pass_range(0), None);
        assert_eq!(stream.pass_range(40 * SAMPLE_RATE), Some(0..MAX_PASS));
        stream.committed_to = 25 * SAMPLE_RATE;
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
}
