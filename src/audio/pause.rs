//! Where the speaker has paused: the pure decisions behind transcribing before the recording
//! ends.
//!
//! The recorder keeps listening for a short tail after the key goes up so a word still being
//! spoken is not cut; waiting for it, and for the whole transcription after it, costs the user
//! on every dictation. Most people stop speaking before they let go, so the app transcribes the
//! audio so far as soon as the speaker pauses while holding the key ([`paused_after_new_speech`],
//! checked every [`PAUSE_CHECK`] as audio arrives) and at key-up when the audio up to there ends in quiet
//! ([`worth_starting`]); such an early result stands when everything recorded after it is quiet
//! ([`tail_is_quiet`]). When speech went on, the early result is thrown away and the whole
//! recording is transcribed as before. And when the speaker had already stopped at key-up, the
//! tail itself is cut short once its first part is quiet too ([`tail_can_end_early`]).

use super::level::{loudest_frame, GateConfig};
use super::shared_audio::SharedAudio;
use super::vad::SpeechFrames;
use std::ops::Range;
use std::time::Duration;

/// How much quiet must end the head for its words to count as complete. Gaps between words in
/// fluent speech are mostly shorter; a longer one mid-sentence only starts an early
/// transcription that newer audio later stops or replaces (`app::worker`), while every
/// millisecond here is one more before the text after the speaker stops.
pub const QUIET_END: Duration = Duration::from_millis(150);

/// The first part of the tail after key-up. When the head ends in quiet and this much more is
/// quiet too, the recording ends here instead of after the whole tail: the speaker had finished,
/// and the audio still in the capture pipeline at key-up (20 ms callbacks and the sound
/// server's buffer; more for Bluetooth) has arrived. Anything heard in it and the whole tail is
/// recorded as before.
pub const FIRST_TAIL: Duration = Duration::from_millis(150);

/// How much longer than [`QUIET_END`] the quiet after a pause's snapshot must last for it to be
/// a pause between sentences, not one after a comma or before a hard word (Whisper ends the
/// stretch it was given with a full stop either way). The recorder says when a pause has held
/// this long (`RecorderEvent::PauseHeld`), and the worker then commits the pause's text
/// (`app::worker::commit`'s rule 1).
pub const PAUSE_HELD: Duration = Duration::from_millis(250);

/// How often the recorder looks for a pause while the key is held: a pause is noticed
/// [`QUIET_END`] to [`QUIET_END`] + this after the last word.
pub const PAUSE_CHECK: Duration = Duration::from_millis(50);

/// A frame is quiet below this share of the recording's loudest frame (−26 dB), and never above
/// the gate's threshold for sound: a room's noise floor is quiet, a new syllable is not.
pub const QUIET_FRACTION: f32 = 0.05;

/// The level below which a frame of a recording whose loudest frame is `peak` counts as quiet.
pub fn quiet_threshold(peak: f32, gate: &GateConfig) -> f32 {
    gate.frame_rms.max(peak * QUIET_FRACTION)
}

/// How speech is told from quiet in a recording. With the voice-activity detector
/// ([`super::vad`]), something is said where it heard speech *and* the audio is not quiet by
/// loudness: steady noise, music and a café's murmur are quiet however loud they are, and in a
/// silent room a pause is heard as soon as the voice stops (the detector's own verdict lags
/// the end of speech by ~0.1 s). Without it, by loudness alone: a frame is quiet below
/// [`quiet_threshold`] of the recording's loudest frame, which steady noise louder than a
/// twentieth of the voice never is.
#[derive(Debug, Clone, Copy)]
pub enum Hearing<'a> {
    /// The detector's frames of the recording (sample positions are the recording's), and the
    /// recording's loudest frame so far (its RMS).
    Voice { speech: &'a SpeechFrames, peak: f32 },
    /// The recording's loudest frame so far (its RMS).
    Loudness { peak: f32 },
}

impl<'a> Hearing<'a> {
    /// By `audio`'s speech frames when the detector ran on it, and by loudness against `peak`.
    pub fn of(audio: &'a SharedAudio, peak: f32) -> Hearing<'a> {
        match audio.speech() {
            Some(speech) => Hearing::Voice { speech, peak },
            None => Hearing::Loudness { peak },
        }
    }

    fn peak(&self) -> f32 {
        match self {
            Hearing::Voice { peak, .. } | Hearing::Loudness { peak } => *peak,
        }
    }

    /// Whether something was said in `recording[range]`. An empty range holds nothing.
    pub fn said_in(&self, recording: &[f32], range: Range<usize>, sample_rate: u32) -> bool {
        let loud = || {
            let range = clamp(range.clone(), recording.len());
            !range.is_empty()
                && loudest_frame(&recording[range], sample_rate)
                    >= quiet_threshold(self.peak(), &GateConfig::default())
        };
        match self {
            Hearing::Voice { speech, .. } => speech.speech_in(range.clone()) && loud(),
            Hearing::Loudness { .. } => loud(),
        }
    }

    /// Whether `recording[range]` holds anything worth transcribing: speech (the detector
    /// alone), or without it a frame above the gate's threshold for sound.
    pub fn sound_in(&self, recording: &[f32], range: Range<usize>, sample_rate: u32) -> bool {
        match self {
            Hearing::Voice { speech, .. } => speech.speech_in(range),
            Hearing::Loudness { .. } => {
                let range = clamp(range, recording.len());
                loudest_frame(&recording[range], sample_rate) > GateConfig::default().frame_rms
            }
        }
    }

    /// Whether `recording[range]` holds sound and ends in [`QUIET_END`] of quiet (the speaker
    /// had finished the word).
    pub fn ends_in_quiet(&self, recording: &[f32], range: Range<usize>, sample_rate: u32) -> bool {
        let range = clamp(range, recording.len());
        self.stretch_ends_in_quiet(&recording[range.clone()], range, sample_rate)
    }

    /// [`Self::ends_in_quiet`] of the recording's `range`, whose samples are `stretch`.
    fn stretch_ends_in_quiet(
        &self,
        stretch: &[f32],
        range: Range<usize>,
        sample_rate: u32,
    ) -> bool {
        let end = quiet_end_samples(sample_rate);
        if end == 0 || stretch.len() < 2 * end {
            return false;
        }
        let by_loudness = self.peak() > GateConfig::default().frame_rms
            && loudest_frame(&stretch[stretch.len() - end..], sample_rate)
                < quiet_threshold(self.peak(), &GateConfig::default());
        match self {
            Hearing::Voice { speech, .. } => {
                speech.speech_in(range.clone())
                    && (by_loudness || speech.quiet_in(range.end.saturating_sub(end)..range.end))
            }
            Hearing::Loudness { .. } => by_loudness,
        }
    }
}

fn clamp(range: Range<usize>, len: usize) -> Range<usize> {
    range.start.min(len)..range.end.min(len)
}

/// Whether to transcribe `head` (16 kHz mono up to key-up) before the tail arrives: it holds
/// sound. It need not end in quiet: people often let go as the last word ends, and when the
/// tail then holds nothing the head's text is the recording's, ready a whole engine time
/// sooner. When the tail holds speech (the key went up mid-word), the whole recording's job
/// stops the head's between encoder blocks or decoder steps, and the head's work cost no
/// time: the tail was being recorded meanwhile.
pub fn worth_starting(head: &[f32], hearing: Hearing<'_>, sample_rate: u32) -> bool {
    hearing.sound_in(head, 0..head.len(), sample_rate)
}

/// Whether `stretch`, the samples `range` of a recording heard by `hearing` (16 kHz), holds
/// speech and ends in [`QUIET_END`] of quiet, as [`paused_after_new_speech`] judges it: a
/// stretch of speech that ended at a pause. By the recording's loudest frame, not the
/// stretch's: a quieter voice's pause is quiet by the same measure the recorder used to send
/// it.
pub fn ends_in_pause(stretch: &[f32], range: Range<usize>, hearing: Hearing<'_>) -> bool {
    hearing.stretch_ends_in_quiet(stretch, range, 16_000)
}

fn quiet_end_samples(sample_rate: u32) -> usize {
    (QUIET_END.as_secs_f32() * sample_rate as f32) as usize
}

/// Whether `recording` (at `sample_rate`, heard by `hearing`) has just paused after speech
/// that came after its first `since` samples (the audio already sent at the previous pause):
/// there is sound, the last [`QUIET_END`] is quiet, and before that, past `since`, something
/// was said. Checked every [`PAUSE_CHECK`] while recording: nothing is scanned while no audio
/// has come since the last pause.
pub fn paused_after_new_speech(
    recording: &[f32],
    since: usize,
    hearing: Hearing<'_>,
    sample_rate: u32,
) -> bool {
    let before_pause = recording
        .len()
        .saturating_sub(quiet_end_samples(sample_rate));
    if since >= before_pause {
        return false;
    }
    hearing.ends_in_quiet(recording, 0..recording.len(), sample_rate)
        && hearing.said_in(recording, since..before_pause, sample_rate)
}

/// In speech without pauses, the audio so far is sent to be transcribed this long after the
/// previous snapshot (a pause's or a stride's), so that its words can be committed while the
/// speaker goes on (`app::worker::commit`): two strides' passes agreeing on a sentence commit
/// it. Shorter strides commit sooner and cost more passes over the same uncommitted audio.
pub const STRIDE: Duration = Duration::from_millis(2000);

/// Whether `recording` has gone on for [`STRIDE`] since its first `since` samples (the last
/// snapshot) without a pause, with something said in it.
pub fn stride_after_new_speech(
    recording: &[f32],
    since: usize,
    hearing: Hearing<'_>,
    sample_rate: u32,
) -> bool {
    let stride = (STRIDE.as_secs_f32() * sample_rate as f32) as usize;
    recording.len() >= since.saturating_add(stride)
        && hearing.sound_in(recording, since..recording.len(), sample_rate)
}

/// What the recorder sends of the audio so far while the key is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Snapshot {
    /// The speaker paused after new speech.
    Pause,
    /// A [`STRIDE`] of speech went by without a pause.
    Stride,
}

/// Where the recorder's last snapshots ended (samples of the recording), and what is due next
/// ([`SnapshotMarks::due`]). A pause is looked for in the speech since the last *pause*, not
/// since the last snapshot of either kind: a stride's snapshot that happens to end as the
/// speaker stops must not hide the pause after it (the stride's pass is skipped while little
/// is uncommitted, and only a pause's snapshot is transcribed ahead of key-up; the last
/// sentence of a 25 s dictation was otherwise left for key-up, 0.97 s instead of ~0.2 s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SnapshotMarks {
    /// The end of the last pause's snapshot.
    pub pause: usize,
    /// The end of the last snapshot of either kind.
    pub any: usize,
}

impl SnapshotMarks {
    /// The snapshot due now of `recording` (at `sample_rate`, heard by `hearing`), strides
    /// only when `strides`.
    pub fn due(
        &self,
        recording: &[f32],
        hearing: Hearing<'_>,
        sample_rate: u32,
        strides: bool,
    ) -> Option<Snapshot> {
        if paused_after_new_speech(recording, self.pause, hearing, sample_rate) {
            Some(Snapshot::Pause)
        } else if strides && stride_after_new_speech(recording, self.any, hearing, sample_rate) {
            Some(Snapshot::Stride)
        } else {
            None
        }
    }

    /// A `snapshot` of the first `len` samples was sent.
    pub fn sent(&mut self, snapshot: Snapshot, len: usize) {
        self.any = len;
        if snapshot == Snapshot::Pause {
            self.pause = len;
        }
    }
}

/// Whether something was said in `recording` after its first `since` samples (the end of a
/// pause's snapshot), judged as a pause is: the speaker went on after that pause.
pub fn spoke_since(
    recording: &[f32],
    since: usize,
    hearing: Hearing<'_>,
    sample_rate: u32,
) -> bool {
    since < recording.len() && hearing.said_in(recording, since..recording.len(), sample_rate)
}

/// What has become of the pause that ended a pause's snapshot, as far as the recording so far
/// tells ([`after_pause`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterPause {
    /// The speaker went on: the pause did not hold, unless it already had.
    Spoke,
    /// Quiet for [`PAUSE_HELD`] after the snapshot: a pause between sentences.
    Held,
    /// Quiet so far, but not yet for [`PAUSE_HELD`].
    Waiting,
}

/// What became of the pause that ended the snapshot of `recording`'s first `since` samples (at
/// `sample_rate`, heard by `hearing`): the speaker went on ([`spoke_since`]), or it has been
/// quiet for [`PAUSE_HELD`] after it, or neither yet.
pub fn after_pause(
    recording: &[f32],
    since: usize,
    hearing: Hearing<'_>,
    sample_rate: u32,
) -> AfterPause {
    let held = (PAUSE_HELD.as_secs_f64() * f64::from(sample_rate)) as usize;
    if spoke_since(recording, since, hearing, sample_rate) {
        AfterPause::Spoke
    } else if recording.len() >= since + held {
        AfterPause::Held
    } else {
        AfterPause::Waiting
    }
}

/// Whether the recording can end after [`FIRST_TAIL`] instead of the whole tail: its first
/// `head_len` samples (up to key-up) end in [`QUIET_END`] of quiet after speech, and everything
/// since is quiet as well. `speech`: the detector's frames of the recording, when it ran
/// (else the head's loudest frame is the measure).
pub fn tail_can_end_early(
    recording: &[f32],
    head_len: usize,
    speech: Option<&SpeechFrames>,
    sample_rate: u32,
) -> bool {
    let head_len = head_len.min(recording.len());
    let peak = loudest_frame(&recording[..head_len], sample_rate);
    let hearing = match speech {
        Some(speech) => Hearing::Voice { speech, peak },
        None => Hearing::Loudness { peak },
    };
    hearing.ends_in_quiet(recording, 0..head_len, sample_rate)
        && tail_is_quiet(recording, head_len, hearing, sample_rate)
}

/// Whether the result for the first `head_len` samples stands for all of `recording`: nothing
/// was said in what was recorded after them (the tail), as `hearing` tells (by loudness:
/// against the head's loudest frame).
pub fn tail_is_quiet(
    recording: &[f32],
    head_len: usize,
    hearing: Hearing<'_>,
    sample_rate: u32,
) -> bool {
    !hearing.said_in(recording, head_len..recording.len(), sample_rate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audio::test_signals::{tone, RATE};

    fn quiet(seconds: f32) -> Vec<f32> {
        // Room noise at about -60 dBFS.
        (0..(seconds * RATE as f32) as usize)
            .map(|i| if i % 2 == 0 { 0.001 } else { -0.001 })
            .collect()
    }

    fn join(parts: &[Vec<f32>]) -> Vec<f32> {
        parts.concat()
    }

    /// Heard by loudness, against `audio`'s loudest frame.
    fn loud(audio: &[f32]) -> Hearing<'static> {
        Hearing::Loudness {
            peak: loudest_frame(audio, RATE),
        }
    }

    #[test]
    fn a_pause_holds_after_its_quiet_lasts_and_not_when_the_speaker_goes_on() {
        let spoken = join(&[tone(1.0, 0.2), quiet(0.2)]);
        let since = spoken.len();
        let peak = loudest_frame(&spoken, RATE);
        let after = |extra: Vec<f32>| {
            after_pause(
                &join(&[spoken.clone(), extra]),
                since,
                Hearing::Loudness { peak },
                RATE,
            )
        };
        assert_eq!(after(Vec::new()), AfterPause::Waiting);
        assert_eq!(after(quiet(0.2)), AfterPause::Waiting);
        assert_eq!(after(quiet(0.25)), AfterPause::Held);
        assert_eq!(after(quiet(0.6)), AfterPause::Held);
        assert_eq!(
            after(join(&[quiet(0.1), tone(0.1, 0.2)])),
            AfterPause::Spoke
        );
        // A soft sound far below the speech is still the pause's quiet.
        assert_eq!(after(tone(0.3, 0.005)), AfterPause::Held);
    }

    #[test]
    fn speech_without_pauses_is_sent_every_stride_and_silence_is_not() {
        let speech = join(&[quiet(0.3), tone(2.5, 0.2)]);
        assert!(stride_after_new_speech(&speech, 0, loud(&speech), RATE));
        // Less than a stride since the last snapshot.
        assert!(!stride_after_new_speech(
            &speech,
            RATE as usize,
            loud(&speech),
            RATE
        ));
        // A stride of nothing said.
        let held_in_silence = join(&[tone(1.0, 0.2), quiet(2.5)]);
        assert!(!stride_after_new_speech(
            &held_in_silence,
            RATE as usize,
            loud(&held_in_silence),
            RATE
        ));
    }

    /// The snapshots the recorder sends of `audio`, checked every 50 ms.
    fn snapshots_of(audio: &[f32]) -> Vec<(f32, Snapshot)> {
        let mut marks = SnapshotMarks::default();
        let step = RATE as usize / 20;
        let mut sent = Vec::new();
        for len in (step..=audio.len()).step_by(step) {
            let so_far = &audio[..len];
            if let Some(snapshot) = marks.due(so_far, loud(so_far), RATE, true) {
                marks.sent(snapshot, len);
                sent.push((len as f32 / RATE as f32, snapshot));
            }
        }
        sent
    }

    #[test]
    fn a_stride_that_ends_as_the_speaker_stops_does_not_hide_the_pause_after_it() {
        // Speech for 2 s: the stride falls due at 2 s, as the speech ends.
        let audio = join(&[tone(2.0, 0.2), quiet(0.6)]);
        let sent = snapshots_of(&audio);
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert_eq!(sent[0], (2.0, Snapshot::Stride));
        assert_eq!(sent[1].1, Snapshot::Pause, "{sent:?}");
        assert!((2.1..=2.25).contains(&sent[1].0), "{sent:?}");
    }

    #[test]
    fn a_pause_is_sent_once_and_speech_after_a_stride_is_not_sent_again_without_a_pause() {
        // Speech with a pause at 1.5 s, then 3 s more: the pause, a stride 2 s after it, and
        // the final pause.
        let audio = join(&[
            quiet(0.3),
            tone(1.2, 0.2),
            quiet(0.4),
            tone(3.0, 0.2),
            quiet(1.0),
        ]);
        let kinds: Vec<Snapshot> = snapshots_of(&audio).into_iter().map(|(_, k)| k).collect();
        assert_eq!(
            kinds,
            [Snapshot::Pause, Snapshot::Stride, Snapshot::Pause],
            "{:?}",
            snapshots_of(&audio)
        );
    }

    #[test]
    fn speech_after_a_pause_is_heard_and_room_noise_or_a_soft_breath_is_not() {
        let paused = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.2)]);
        let peak = loudest_frame(&paused, RATE);
        let end = paused.len();
        // Nothing after the snapshot yet, then only more quiet.
        assert!(!spoke_since(&paused, end, Hearing::Loudness { peak }, RATE));
        let still_quiet = join(&[paused.clone(), quiet(0.3)]);
        assert!(!spoke_since(
            &still_quiet,
            end,
            Hearing::Loudness { peak },
            RATE
        ));
        // A breath 30 dB below the speech is quiet by the pause's measure.
        let breath = join(&[paused.clone(), tone(0.1, 0.0063)]);
        assert!(!spoke_since(&breath, end, Hearing::Loudness { peak }, RATE));
        // The next word.
        let went_on = join(&[paused, quiet(0.1), tone(0.1, 0.2)]);
        assert!(spoke_since(&went_on, end, Hearing::Loudness { peak }, RATE));
    }

    #[test]
    fn a_head_with_sound_is_worth_starting_however_it_ends() {
        for head in [
            join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.3)]),
            // Cut mid-word.
            join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.1), tone(0.15, 0.1)]),
            // Quiet, but for less than QUIET_END.
            join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.1)]),
            tone(0.3, 0.2),
        ] {
            assert!(worth_starting(&head, loud(&head), RATE));
        }
    }

    #[test]
    fn silence_is_not_started_early() {
        let silence = quiet(2.0);
        assert!(!worth_starting(&silence, loud(&silence), RATE));
        assert!(!worth_starting(&[], loud(&[]), RATE));
    }

    fn ends_quiet(audio: &[f32]) -> bool {
        loud(audio).ends_in_quiet(audio, 0..audio.len(), RATE)
    }

    #[test]
    fn only_quiet_after_the_last_word_is_an_end() {
        assert!(ends_quiet(&join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.3)])));
        assert!(!ends_quiet(&join(&[
            quiet(0.3),
            tone(2.0, 0.2),
            quiet(0.1),
            tone(0.15, 0.1)
        ])));
        // Quiet, but for less than QUIET_END.
        assert!(!ends_quiet(&join(&[
            quiet(0.3),
            tone(2.0, 0.2),
            quiet(0.1)
        ])));
        // Nothing said, or too little audio.
        assert!(!ends_quiet(&quiet(2.0)));
        assert!(!ends_quiet(&[]));
        assert!(!ends_quiet(&tone(0.3, 0.2)));
    }

    #[test]
    fn a_soft_ending_below_the_speech_level_still_counts_as_speech() {
        // A trailing syllable at -20 dB relative to the loudest is speech, not quiet.
        assert!(!ends_quiet(&join(&[tone(1.0, 0.3), tone(0.3, 0.03)])));
    }

    #[test]
    fn a_pause_is_noticed_once_per_new_stretch_of_speech() {
        let first = join(&[quiet(0.3), tone(1.0, 0.2)]);
        // Still speaking: no pause.
        assert!(!paused_after_new_speech(&first, 0, loud(&first), RATE));
        let paused = join(&[first.clone(), quiet(0.25)]);
        assert!(paused_after_new_speech(&paused, 0, loud(&paused), RATE));
        // The same pause again, after it was sent: nothing new was said.
        let longer = join(&[paused.clone(), quiet(0.3)]);
        assert!(!paused_after_new_speech(
            &longer,
            paused.len(),
            loud(&longer),
            RATE
        ));
        // Speech again, then a pause: a new one.
        let again = join(&[longer.clone(), tone(0.5, 0.2), quiet(0.25)]);
        assert!(paused_after_new_speech(
            &again,
            paused.len(),
            loud(&again),
            RATE
        ));
        // At 48 kHz too (the recorder checks at the device's rate).
        let up = |v: &[f32]| v.iter().flat_map(|&s| [s, s, s]).collect::<Vec<f32>>();
        assert!(paused_after_new_speech(
            &up(&paused),
            0,
            loud(&paused),
            3 * RATE
        ));
    }

    #[test]
    fn the_tail_ends_early_only_after_a_finished_head_and_a_quiet_start() {
        let head = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.3)]);
        let first_tail = (FIRST_TAIL.as_secs_f32() * RATE as f32) as usize;
        let quiet_after = join(&[head.clone(), quiet(0.15)]);
        assert_eq!(quiet_after.len(), head.len() + first_tail);
        assert!(tail_can_end_early(&quiet_after, head.len(), None, RATE));
        // A syllable after key-up (a late word, or one still in the pipeline): the whole tail.
        let spoken_after = join(&[head.clone(), quiet(0.05), tone(0.1, 0.1)]);
        assert!(!tail_can_end_early(&spoken_after, head.len(), None, RATE));
        // Key-up mid-word: the whole tail, however quiet its start.
        let cut = join(&[quiet(0.3), tone(2.0, 0.2)]);
        let cut_then_quiet = join(&[cut.clone(), quiet(0.15)]);
        assert!(!tail_can_end_early(&cut_then_quiet, cut.len(), None, RATE));
        // Nothing said at all: no early end either (the gate decides about silence).
        let silence = quiet(2.5);
        assert!(!tail_can_end_early(&silence, 2 * RATE as usize, None, RATE));
    }

    #[test]
    fn the_early_result_stands_only_when_the_tail_is_quiet() {
        let head = join(&[quiet(0.3), tone(2.0, 0.2), quiet(0.3)]);
        let hearing = loud(&head);

        let quiet_tail = join(&[head.clone(), quiet(0.3)]);
        assert!(tail_is_quiet(&quiet_tail, head.len(), hearing, RATE));

        let spoken_tail = join(&[head.clone(), quiet(0.1), tone(0.2, 0.1)]);
        assert!(!tail_is_quiet(&spoken_tail, head.len(), hearing, RATE));

        // No tail at all (the microphone delivered nothing more), or a shorter recording
        // than the head (resampling rounding): nothing new was said.
        assert!(tail_is_quiet(&head, head.len(), hearing, RATE));
        assert!(tail_is_quiet(
            &head[..head.len() - 3],
            head.len(),
            hearing,
            RATE
        ));
    }

    /// Steady noise as loud as the voice (0 dB SNR), `seconds` long.
    fn loud_noise(seconds: f32) -> Vec<f32> {
        tone(seconds, 0.2)
    }

    /// The detector's frames of a recording `seconds` long that hold speech in `spoken`
    /// (seconds).
    fn frames(seconds: f32, spoken: &[(f32, f32)]) -> SpeechFrames {
        let frame = crate::audio::vad::FRAME as f32 / RATE as f32;
        SpeechFrames::from_labels(
            (0..(seconds / frame) as usize)
                .map(|i| {
                    let t = (i as f32 + 0.5) * frame;
                    spoken.iter().any(|&(from, to)| (from..to).contains(&t))
                })
                .collect(),
        )
    }

    #[test]
    fn in_steady_noise_the_detector_hears_the_pause_that_loudness_cannot() {
        // Speech from 0.5 s to 2.0 s in noise as loud as the voice, then 0.25 s more noise.
        let audio = loud_noise(2.25);
        let speech = frames(2.25, &[(0.5, 2.0)]);
        let voice = Hearing::Voice {
            speech: &speech,
            peak: 0.2,
        };
        assert!(paused_after_new_speech(&audio, 0, voice, RATE));
        assert!(!paused_after_new_speech(&audio, 0, loud(&audio), RATE));
        // Still speaking at the end: no pause.
        let speaking = frames(2.25, &[(0.5, 2.25)]);
        assert!(!paused_after_new_speech(
            &audio,
            0,
            Hearing::Voice {
                speech: &speaking,
                peak: 0.2
            },
            RATE
        ));
        // After the pause's snapshot, more noise is the pause holding, not the speaker going on.
        let since = audio.len();
        let longer = loud_noise(2.6);
        let held = frames(2.6, &[(0.5, 2.0)]);
        assert_eq!(
            after_pause(
                &longer,
                since,
                Hearing::Voice {
                    speech: &held,
                    peak: 0.2
                },
                RATE
            ),
            AfterPause::Held
        );
        let went_on = frames(2.6, &[(0.5, 2.0), (2.4, 2.6)]);
        assert_eq!(
            after_pause(
                &longer,
                since,
                Hearing::Voice {
                    speech: &went_on,
                    peak: 0.2
                },
                RATE
            ),
            AfterPause::Spoke
        );
    }

    #[test]
    fn in_steady_noise_the_tail_ends_early_and_the_early_result_stands() {
        let head_len = (2.25 * RATE as f32) as usize;
        let recording = loud_noise(2.4);
        let speech = frames(2.4, &[(0.5, 2.0)]);
        assert!(tail_can_end_early(
            &recording,
            head_len,
            Some(&speech),
            RATE
        ));
        assert!(!tail_can_end_early(&recording, head_len, None, RATE));
        assert!(tail_is_quiet(
            &recording,
            head_len,
            Hearing::Voice {
                speech: &speech,
                peak: 0.2
            },
            RATE
        ));
        // A word in the tail.
        let late = frames(2.4, &[(0.5, 2.0), (2.3, 2.4)]);
        assert!(!tail_is_quiet(
            &recording,
            head_len,
            Hearing::Voice {
                speech: &late,
                peak: 0.2
            },
            RATE
        ));
        // Noise alone is nothing worth transcribing; a stride of it is not sent either.
        let none = frames(2.4, &[]);
        assert!(!worth_starting(
            &recording,
            Hearing::Voice {
                speech: &none,
                peak: 0.2
            },
            RATE
        ));
        assert!(!stride_after_new_speech(
            &recording,
            0,
            Hearing::Voice {
                speech: &none,
                peak: 0.2
            },
            RATE
        ));
    }

    #[test]
    fn in_a_quiet_room_the_pause_is_heard_as_the_voice_stops_though_the_detector_lags() {
        let audio = join(&[quiet(0.3), tone(1.0, 0.2), quiet(0.2)]);
        // The detector's verdict lags the voice by ~0.1 s: it still says speech until 1.45 s.
        let lagging = frames(1.5, &[(0.3, 1.45)]);
        let hearing = Hearing::Voice {
            speech: &lagging,
            peak: loudest_frame(&audio, RATE),
        };
        assert!(paused_after_new_speech(&audio, 0, hearing, RATE));
        assert!(hearing.ends_in_quiet(&audio, 0..audio.len(), RATE));
    }
}
