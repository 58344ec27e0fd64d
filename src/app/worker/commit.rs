//! When text transcribed while the person is still speaking becomes final: the commit rule of a
//! streamed dictation. Pure: it reads one pass's result (Whisper's segments with their times),
//! the pass before it, and the pass's audio, and says how much of the pass is committed and
//! where its audio is cut. What is committed is never transcribed again; the next pass starts
//! at the cut.
//!
//! # The rule ([`decide`], [`pause_held`])
//! 1. **A pause.** A pass whose audio ends in [`crate::audio::pause::QUIET_END`] of quiet (the
//!    recorder sends one at every pause) is committed whole, cut at its end, once the pause
//!    has held for [`PAUSE_HELD`] more ([`pause_held`], judged in the audio the recorder sends
//!    when it has heard the pause hold, or else in the next snapshot's; the stretch is not
//!    transcribed again): the cut lies in the quiet after the last word, so
//!    no word can straddle it. A pause of 0.15 s alone is not enough: people pause that long
//!    after a comma or before a hard word, and Whisper ends the stretch it was given with a
//!    full stop ("Second. We agreed…", "has been moved. To…" on the project's clip). The
//!    pass starts at the 0.15 s (key-up may come in the pause: its text is then ready) and
//!    stops when the speaker goes on before the pause has held (`app::worker`).
//! 2. **Two passes agree** (LocalAgreement-2 over Whisper's segments). In speech without pauses
//!    the recorder sends the audio so far every [`crate::audio::pause::STRIDE`]. A segment is
//!    committed when it is not the pass's last (the last one may be a sentence still being
//!    spoken) and the pass before, over audio from the same start, gave the same words for it
//!    and every segment before it, ending within [`AGREEING_END`] of the same time; and no
//!    earlier pass since the last commit that heard past it gave other words (Whisper now and
//!    then skips the first sentence of its audio, twice in a row). The cut is
//!    the quietest [`SNAP_FRAME`] of audio around the segment's end time (Whisper's timestamp
//!    tokens: 20 ms steps, placed at phrase ends but not always on the silence between words),
//!    from [`SNAP_BEFORE`] before it to [`SNAP_AFTER`] after it, and never past the next
//!    segment's start time (Whisper's segments tile the audio: a word it left out of the
//!    committed segment's text belongs to the next one, and must stay in its audio).
//! 3. **Forced.** Audio uncommitted for [`FORCE_AFTER`] (a speaker whose passes keep
//!    disagreeing) commits every segment but the last without agreement, cut as in rule 2, so a
//!    pass never needs more than one 30 s window.
//!
//! Rule 2 by words is [`words`]: the same agreement over single words (the engine gives word times
//! from the cross-attention alignment heads on request, `TranscribeParams::word_times`, one
//! more decoder pass per window), cut at sentence ends ([`RULES_IN_USE`] says why). Rule 2 by
//! segments, below, is kept for its tests. A segment boundary is where Whisper itself put a phrase end, and
//! the audio around it has a gap between words even when pauses were cut out of the
//! recording. Why agreement on top of that: a segment Whisper writes at the end of the audio it
//! was given can be a sentence cut short ("I went to the."); the same words from two passes
//! over different lengths of audio are not. What a wrong cut could still do (the snap landing
//! before the end of a word whose last sound is quiet) is caught by [`overlap_words`]: the next
//! pass's first words are dropped when they repeat the committed text's last ones.

pub mod repeat;
pub mod words;

use super::super::hallucinations::normalise;
use crate::audio::level::rms;

/// Samples per second of the audio the rule reads.
pub const SAMPLE_RATE: usize = 16_000;
/// Two passes agree on a segment when its end times differ by at most this.
pub const AGREEING_END: f32 = 0.4;
/// Audio uncommitted for this long is committed without agreement (rule 3).
pub const FORCE_AFTER: f32 = 20.0;
/// The cut is searched from this long before a segment's end time…
pub const SNAP_BEFORE: f32 = 0.12;
/// …to this long after it.
pub const SNAP_AFTER: f32 = 0.3;
/// The length of audio whose loudness is compared when snapping.
pub const SNAP_FRAME: f32 = 0.03;
/// The cut stays at least this far from the end of the pass's audio (the next pass needs
/// audio to start with, and the end of the audio is where Whisper is least sure).
pub const KEEP_BEFORE_END: f32 = 0.5;

/// One of Whisper's segments, times in seconds from the start of the pass's audio.
#[derive(Debug, Clone, PartialEq)]
pub struct PassSegment {
    pub text: String,
    pub start: f32,
    pub end: f32,
}

/// One transcription of the uncommitted audio.
#[derive(Debug, Clone, PartialEq)]
pub struct Pass {
    /// Where its audio starts in the recording (samples).
    pub start: usize,
    /// How long its audio is (samples).
    pub len: usize,
    pub segments: Vec<PassSegment>,
    /// Its audio ends in a pause.
    pub ends_in_pause: bool,
}

/// What [`decide`] commits of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    Nothing,
    /// Its first `segments` segments, and its audio up to `cut` samples from the pass's start.
    Segments {
        segments: usize,
        cut: usize,
        rule: Rule,
    },
}

/// The rules the app commits by: held pauses (rule 1), and rule 2 by words ([`words`]: two
/// passes agreeing on words, committed up to the last sentence end among them, cut in a quiet
/// gap). Through the real app it commits speech without pauses as it is spoken (110 s without
/// a pause: 19 commits, 0.6 s from key-up to pasted against 18.7 s with pauses only). It was
/// off for a while: one run lost "Third" at one of 15 cuts, and a later one a whole sentence.
/// The app's log of each pass showed why: the pass after a cut, hearing 2 s of committed audio
/// again, wrote only what followed the next sentence ("The design team…" for "First, the new
/// website… month. The design team…"), and two such passes agreed. Such a pass now commits
/// nothing, and the next starts further back (`stream/context.rs`, [`words::CONTEXT`]).
/// `Stream::with_rules` runs a rule not in use in tests.
///
/// Rules 2 and 3 by segments are built and tested here but not used: measured on the
/// project's clip with every pause removed (`tests/desktop_long_dictation.rs`, `25s_nopause`),
/// a pass that starts after a commit with the committed text as Whisper's previous text can
/// skip the whole first sentence of its audio ("…planning session. | The design team…",
/// "First, the new website…" lost), and Whisper's segment times were a second late once
/// ("…anything" cut after "important. Thanks a"). The word rule keeps agreement (a pass that
/// skipped a sentence disagrees with the one before and commits nothing), cuts in the gap
/// after a word placed by the alignment heads (20 ms steps, equal to faster-whisper's), and
/// cuts only at a sentence end: cut mid-sentence (`tests/app_pipeline_streaming.rs`, the
/// 50 s clip without pauses) the next pass, starting "…closed on | Monday", wrote "nd" for
/// "Monday" and went on inventing ("moved to nd yet to a clock"): WER 11.6 % against 4.5 %
/// for the whole recording. Cut at sentence ends the same clip gave 2.7 %. (That pass started
/// at the cut; a pass now hears committed speech again, and settling, which commits one pass's
/// words without agreement, cuts at any quiet word gap: the worker's `SETTLING_SAVES`.) And
/// the pass after a word commit hears the last 2 s of committed speech again instead of reading the committed
/// text as Whisper's previous text ([`words::CONTEXT`]): started at the sentence, or given the
/// text, Whisper skipped the sentence ("First, the new website…", lost through the real app on
/// `25s_nopause`).
pub const RULES_IN_USE: &[Rule] = &[Rule::Pause, Rule::Words];

impl Commit {
    /// `self`, or [`Commit::Nothing`] when its rule is not among `rules`.
    pub fn filter_by_rule(self, rules: &[Rule]) -> Commit {
        match self {
            Commit::Segments { rule, .. } if !rules.contains(&rule) => Commit::Nothing,
            commit => commit,
        }
    }
}

/// Which rule of the module doc committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Pause,
    Agreement,
    Forced,
    /// Rule 2 by words ([`words`]).
    Words,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Pause => "pause",
            Rule::Agreement => "agreement",
            Rule::Forced => "forced",
            Rule::Words => "words",
        }
    }
}

/// The rule of the module doc: what of `current` (whose audio is `audio`) is committed, given
/// the passes since the last commit (`earlier`, oldest first).
pub fn decide(earlier: &[Pass], current: &Pass, audio: &[f32]) -> Commit {
    let has_words = |s: &PassSegment| !normalise(&s.text).is_empty();
    if !current.segments.iter().any(has_words) {
        return Commit::Nothing;
    }
    let candidates = current.segments.len().saturating_sub(1);
    let same_start: Vec<&Pass> = earlier
        .iter()
        .filter(|p| p.start == current.start)
        .collect();
    let agreed = match same_start.last() {
        Some(previous) => {
            let with_previous = current.segments[..candidates]
                .iter()
                .zip(&previous.segments)
                .take_while(|(now, before)| {
                    normalise(&now.text) == normalise(&before.text)
                        && (now.end - before.end).abs() <= AGREEING_END
                })
                .count();
            (0..=with_previous)
                .rev()
                .find(|&k| same_start.iter().all(|p| agrees_up_to(p, current, k)))
                .unwrap_or(0)
        }
        None => 0,
    };
    let seconds = current.len as f32 / SAMPLE_RATE as f32;
    let (segments, rule) = if agreed > 0 {
        (agreed, Rule::Agreement)
    } else if seconds >= FORCE_AFTER && candidates > 0 {
        (candidates, Rule::Forced)
    } else {
        return Commit::Nothing;
    };
    let next_start = current.segments.get(segments).map(|s| s.start);
    match snap_cut(audio, current.segments[segments - 1].end, next_start) {
        Some(cut) => Commit::Segments {
            segments,
            cut,
            rule,
        },
        None => Commit::Nothing,
    }
}

/// Whether an `earlier` pass heard the same words as `current` for each of `current`'s first
/// `k` segments its audio went past (by [`HEARD_PAST`]). Whisper now and then skips the
/// first sentence of the audio it is given, and two passes in a row may do it; a pass before
/// them that heard it disagrees ("First, the new website…" lost on the project's clip without
/// pauses).
fn agrees_up_to(earlier: &Pass, current: &Pass, k: usize) -> bool {
    let heard = earlier.len as f32 / SAMPLE_RATE as f32;
    // The segments of the commit that the earlier pass's audio went past.
    let past = current.segments[..k]
        .iter()
        .take_while(|s| heard >= s.end + HEARD_PAST)
        .count();
    earlier.segments.len() >= past
        && current.segments[..past]
            .iter()
            .zip(&earlier.segments)
            .all(|(now, before)| normalise(&now.text) == normalise(&before.text))
}

/// How far past a segment's end an earlier pass's audio must reach for its words there to
/// count against a commit.
pub const HEARD_PAST: f32 = 1.0;

/// How much longer than the pause that ended a pass the quiet must last for the pass to be
/// committed whole (rule 1): 0.15 s + this is a pause between sentences
/// ([`crate::audio::pause::PAUSE_HELD`], in seconds).
pub const PAUSE_HELD: f32 = crate::audio::pause::PAUSE_HELD.as_secs_f32();

/// Rule 1: whether a pass that ended in a pause at sample `pass_end` of `recording` (the
/// recording so far, heard by `hearing`) is followed by [`PAUSE_HELD`] more of quiet.
pub fn pause_held(
    recording: &[f32],
    pass_end: usize,
    hearing: crate::audio::pause::Hearing<'_>,
) -> bool {
    let held = (PAUSE_HELD * SAMPLE_RATE as f32) as usize;
    recording.len() >= pass_end + held
        && !hearing.said_in(recording, pass_end..pass_end + held, SAMPLE_RATE as u32)
}

/// In noise, a pass at a held pause is committed (rule 1) only once it covers this much audio
/// (seconds) since the last commit: Whisper writes a short stretch of noisy speech worse than
/// the same words with the speech after them. On the project's noisy clips at 5 dB SNR (pink
/// noise, music), the first sentence alone came out with 13 and 12 word errors where the whole
/// recording had 5 and 6 (`tests/desktop_noisy_room.rs`). Until then, the next pause's pass
/// covers the stretch again, with what was said after it, and its text stands at key-up when
/// nothing is said after it (the wait at key-up stays that of a pass made before it).
pub const NOISY_COMMIT_FROM: f32 = 8.0;

/// Whether the pause after `pass_end` of `recording` held only through noise: the
/// voice-activity detector heard it, but by loudness against `peak` (the voice's loudest
/// frame) it is not quiet (the room is louder than a twentieth of the voice).
pub fn pause_held_in_noise(recording: &[f32], pass_end: usize, peak: f32) -> bool {
    !pause_held(
        recording,
        pass_end,
        crate::audio::pause::Hearing::Loudness { peak },
    )
}

/// Where a held pause that began [`crate::audio::pause::QUIET_END`] before sample `end` of
/// `recording` is cut: the middle of its quietest [`SNAP_FRAME`] from the pause's start to
/// [`PAUSE_HELD`] after `end`.
pub fn quietest_in_pause(recording: &[f32], end: usize) -> usize {
    let frame = (SNAP_FRAME * SAMPLE_RATE as f32) as usize;
    let from = end.saturating_sub(
        (crate::audio::pause::QUIET_END.as_secs_f32() * SAMPLE_RATE as f32) as usize,
    );
    let to = (end + (PAUSE_HELD * SAMPLE_RATE as f32) as usize).min(recording.len());
    (from..to.saturating_sub(frame))
        .step_by((frame / 3).max(1))
        .map(|at| (at, rms(&recording[at..at + frame])))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(end, |(at, _)| at + frame / 2)
}

/// The quietest [`SNAP_FRAME`] around `end` (seconds), ending by `next_start` (the next
/// segment's start: a cut past it lost the next segment's first word, "moved [to] Wednesday",
/// on the project's clip without pauses) and not within
/// [`KEEP_BEFORE_END`] of the audio's end; the cut is its middle, in samples. `None` when no
/// frame is left to choose from.
pub fn snap_cut(audio: &[f32], end: f32, next_start: Option<f32>) -> Option<usize> {
    let frame = (SNAP_FRAME * SAMPLE_RATE as f32) as usize;
    let step = frame / 3;
    let to_sample = |t: f32| (t.max(0.0) * SAMPLE_RATE as f32) as usize;
    let from = to_sample(end - SNAP_BEFORE);
    let mut to = to_sample(end + SNAP_AFTER);
    if let Some(next) = next_start {
        // The frame ends by the next segment's start: its first word stays in the next pass.
        to = to.min(to_sample(next).saturating_sub(frame).max(from));
    }
    let limit = audio
        .len()
        .saturating_sub(to_sample(KEEP_BEFORE_END))
        .saturating_sub(frame);
    let to = to.min(limit);
    (from..=to)
        .step_by(step.max(1))
        .filter(|&at| at + frame <= audio.len())
        .map(|at| (at, rms(&audio[at..at + frame])))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(at, _)| at + frame / 2)
}

/// How many of `next`'s first words to drop because they say the end of `committed` again
/// (compared without case and punctuation): the committed text's last one to four words found
/// among `next`'s first words (at most two words before them, a fragment of a word cut in
/// two). One word alone counts only when it has four letters or more ("the" is no evidence).
/// After a commit by agreement the next pass starts [`OVERLAP`] before the cut: Whisper's
/// segment times can be a second late in speech without pauses ("…if I missed anything" cut
/// after "important. Thanks a"), and the overlap keeps such words while this drops the ones
/// said twice.
pub fn overlap_words(committed: &str, next: &str) -> usize {
    let before: Vec<String> = normalise(committed)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let after: Vec<String> = normalise(next)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    for n in (1..=4.min(before.len())).rev() {
        let tail = &before[before.len() - n..];
        if n == 1 && tail[0].chars().count() < 4 {
            continue;
        }
        for offset in 0..=2 {
            if after.get(offset..offset + n) == Some(tail) {
                return offset + n;
            }
        }
    }
    0
}

/// After a commit by agreement (or forced), the next pass starts this long (samples) before
/// the cut; [`overlap_words`] drops what it says again.
pub const OVERLAP: usize = SAMPLE_RATE * 4 / 5;

/// `text` without its first `words` words (whitespace-separated), as written.
pub fn drop_words(text: &str, words: usize) -> String {
    text.split_whitespace()
        .skip(words)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(text: &str, start: f32, end: f32) -> PassSegment {
        PassSegment {
            text: text.into(),
            start,
            end,
        }
    }

    fn pass(start: usize, seconds: f32, segments: &[(&str, f32, f32)], pause: bool) -> Pass {
        Pass {
            start,
            len: (seconds * SAMPLE_RATE as f32) as usize,
            segments: segments.iter().map(|&(t, s, e)| segment(t, s, e)).collect(),
            ends_in_pause: pause,
        }
    }

    /// Speech-like audio: a tone everywhere except quiet gaps at the given seconds (30 ms each).
    fn speech_with_gaps(seconds: f32, gaps: &[f32]) -> Vec<f32> {
        let n = (seconds * SAMPLE_RATE as f32) as usize;
        (0..n)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                if gaps.iter().any(|&g| (t - g).abs() < 0.02) {
                    0.001
                } else {
                    0.3 * (t * 2.0 * std::f32::consts::PI * 220.0).sin()
                }
            })
            .collect()
    }

    /// Judged by loudness against a voice peaking at 0.3.
    const LOUD: crate::audio::pause::Hearing<'static> =
        crate::audio::pause::Hearing::Loudness { peak: 0.3 };

    #[test]
    fn a_pause_commits_once_it_has_held_past_a_comma() {
        let pass_end = 4 * SAMPLE_RATE;
        let speech = speech_with_gaps(4.0, &[]);
        let quiet = |seconds: f32| vec![0.001f32; (seconds * SAMPLE_RATE as f32) as usize];
        let speaking = |seconds: f32| speech_with_gaps(seconds, &[]);
        // A sentence's pause: quiet for PAUSE_HELD past the pass's end.
        let held = [speech.clone(), quiet(0.3), speaking(1.0)].concat();
        assert!(pause_held(&held, pass_end, LOUD));
        // A comma's: speech again 0.1 s later.
        let comma = [speech.clone(), quiet(0.1), speaking(1.0)].concat();
        assert!(!pause_held(&comma, pass_end, LOUD));
        // Not known yet: too little audio after the pass.
        assert!(!pause_held(&[speech, quiet(0.1)].concat(), pass_end, LOUD));
    }

    #[test]
    fn a_held_pause_is_cut_at_its_quietest_point() {
        // Speech, then a pause whose deepest quiet is 0.1 s before the pass's end at 4 s.
        let audio = speech_with_gaps(4.5, &[3.9]);
        let cut = quietest_in_pause(&audio, 4 * SAMPLE_RATE) as f32 / SAMPLE_RATE as f32;
        assert!((cut - 3.9).abs() < 0.025, "cut at {cut}");
    }

    #[test]
    fn a_pass_ending_in_a_pause_commits_nothing_by_itself() {
        let current = pass(0, 4.0, &[("Second.", 0.0, 1.0)], true);
        assert_eq!(
            decide(&[], &current, &vec![0.0; current.len]),
            Commit::Nothing
        );
    }

    #[test]
    fn a_pass_with_no_words_commits_nothing_even_at_a_pause() {
        let current = pass(0, 2.0, &[(" ...", 0.0, 1.0)], true);
        assert_eq!(
            decide(&[], &current, &vec![0.0; current.len]),
            Commit::Nothing
        );
    }

    #[test]
    fn speech_without_pauses_waits_for_two_passes_to_agree() {
        let audio = speech_with_gaps(7.0, &[3.05]);
        let first = pass(
            0,
            5.0,
            &[("The report is done.", 0.0, 3.0), (" The charts", 3.1, 5.0)],
            false,
        );
        // One pass alone commits nothing.
        assert_eq!(decide(&[], &first, &audio[..first.len]), Commit::Nothing);
        let second = pass(
            0,
            7.0,
            &[
                ("The report is done.", 0.0, 3.04),
                (" The charts need work.", 3.1, 6.8),
            ],
            false,
        );
        match decide(std::slice::from_ref(&first), &second, &audio) {
            Commit::Segments {
                segments,
                cut,
                rule,
            } => {
                assert_eq!((segments, rule), (1, Rule::Agreement));
                // Snapped into the gap between the words at 3.05 s.
                let at = cut as f32 / SAMPLE_RATE as f32;
                assert!((at - 3.05).abs() < 0.025, "cut at {at}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_pass_that_disagrees_with_the_previous_commits_nothing() {
        let audio = speech_with_gaps(7.0, &[3.05]);
        let first = pass(
            0,
            5.0,
            &[("The report is done.", 0.0, 3.0), (" The", 3.1, 5.0)],
            false,
        );
        let second = pass(
            0,
            7.0,
            &[
                ("The report is done now.", 0.0, 3.4),
                (" The charts need work.", 3.5, 6.8),
            ],
            false,
        );
        assert_eq!(
            decide(std::slice::from_ref(&first), &second, &audio),
            Commit::Nothing
        );
        // The same words ending a second apart are not the same segment either.
        let moved = pass(
            0,
            7.0,
            &[
                ("The report is done.", 0.0, 4.2),
                (" The charts need work.", 4.3, 6.8),
            ],
            false,
        );
        assert_eq!(
            decide(std::slice::from_ref(&first), &moved, &audio),
            Commit::Nothing
        );
        // Nor a pass from another start (the previous one committed in between).
        let elsewhere = pass(
            16_000,
            6.0,
            &[("The report is done.", 0.0, 3.0), (" x", 3.1, 5.0)],
            false,
        );
        assert_eq!(
            decide(std::slice::from_ref(&first), &elsewhere, &audio),
            Commit::Nothing
        );
    }

    #[test]
    fn two_passes_that_skip_a_sentence_an_earlier_one_heard_commit_nothing() {
        let audio = speech_with_gaps(16.0, &[4.5, 9.0]);
        let heard = pass(
            0,
            12.0,
            &[
                ("First, the website.", 0.0, 4.5),
                (" The design team.", 4.5, 9.0),
                (" Second", 9.0, 12.0),
            ],
            false,
        );
        let skipped = |seconds| {
            pass(
                0,
                seconds,
                &[
                    ("The design team.", 0.0, 4.5),
                    (" Second, we", 4.6, seconds),
                ],
                false,
            )
        };
        let (first_skip, second_skip) = (skipped(14.0), skipped(16.0));
        assert_eq!(
            decide(&[heard.clone(), first_skip.clone()], &second_skip, &audio),
            Commit::Nothing
        );
        // Nor when the commit would take a second segment the earlier pass did not reach.
        let longer = |seconds| {
            pass(
                0,
                seconds,
                &[
                    ("The design team.", 0.0, 4.5),
                    (" Second, we agreed.", 4.6, 11.5),
                    (" Maria", 11.6, seconds),
                ],
                false,
            )
        };
        let audio = speech_with_gaps(16.0, &[4.55, 11.55]);
        assert_eq!(
            decide(&[heard.clone(), longer(15.0)], &longer(16.0), &audio),
            Commit::Nothing
        );
        // Without the pass that heard it, the two would have agreed.
        assert!(matches!(
            decide(&[first_skip], &second_skip, &audio),
            Commit::Segments {
                rule: Rule::Agreement,
                ..
            }
        ));
    }

    #[test]
    fn the_last_segment_is_never_committed_without_a_pause() {
        let audio = speech_with_gaps(6.0, &[]);
        let first = pass(0, 5.0, &[("The report is done.", 0.0, 3.0)], false);
        let second = pass(0, 6.0, &[("The report is done.", 0.0, 3.0)], false);
        assert_eq!(
            decide(std::slice::from_ref(&first), &second, &audio),
            Commit::Nothing
        );
    }

    #[test]
    fn long_uncommitted_audio_is_committed_without_agreement() {
        let audio = speech_with_gaps(21.0, &[10.0]);
        let current = pass(
            0,
            21.0,
            &[("One long sentence.", 0.0, 9.98), (" And more", 10.1, 21.0)],
            false,
        );
        match decide(&[], &current, &audio) {
            Commit::Segments {
                segments,
                cut,
                rule,
            } => {
                assert_eq!((segments, rule), (1, Rule::Forced));
                assert!((cut as f32 / SAMPLE_RATE as f32 - 10.0).abs() < 0.025);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_word_straddling_the_timestamp_is_not_cut() {
        // Whisper put the segment's end at 2.9 s, inside a word that ends at 3.2 s (the gap).
        let audio = speech_with_gaps(6.0, &[3.2]);
        let cut = snap_cut(&audio, 2.9, Some(3.25)).expect("a cut");
        let at = cut as f32 / SAMPLE_RATE as f32;
        assert!((at - 3.2).abs() < 0.025, "cut at {at}");
    }

    #[test]
    fn the_cut_never_reaches_into_the_next_segment_or_the_end() {
        let audio = speech_with_gaps(4.0, &[3.05]);
        // The gap at 3.05 s is past the next segment's start (3.0 s): not chosen.
        let cut = snap_cut(&audio, 2.9, Some(3.0)).expect("a cut") as f32 / SAMPLE_RATE as f32;
        assert!(cut <= 3.0, "cut at {cut}");
        // Too close to the end of the audio: no cut.
        assert_eq!(snap_cut(&audio, 3.9, None), None);
    }

    #[test]
    fn words_the_next_pass_repeats_are_found() {
        assert_eq!(
            overlap_words("We met at the office.", "office, and then left"),
            1
        );
        assert_eq!(
            overlap_words("We met at the office", "the office and then"),
            2
        );
        assert_eq!(
            overlap_words("We met at the office.", "And then we left."),
            0
        );
        assert_eq!(overlap_words("", "Anything"), 0);
        // The words of a late cut come back after the repeated one.
        assert_eq!(
            overlap_words("if I missed anything", "anything important. Thanks and"),
            1
        );
        // A fragment of a cut word before the repeated ones.
        assert_eq!(
            overlap_words("if I missed anything", "and missed anything important"),
            3
        );
        // A short word alone is no evidence.
        assert_eq!(overlap_words("I went to the", "the store"), 0);
        assert_eq!(drop_words(" office, and then left", 1), "and then left");
    }
}
