//! When a pass tells the dictation's language ([`tells_the_language`]). A dictation keeps the
//! language of its first committed stretch (a Polish dictation never turns English half-way),
//! so that stretch must be long enough to tell it: until a pass does, nothing is committed and
//! the next pass hears the first stretch again with the speech after it.
//!
//! Why: Whisper's language detection (among the app's default `pl,en`) on a short first
//! stretch is a guess. On the project's Polish clip (`base`, the app's decoding, the first
//! word and 0.3 s of quiet): 0.8 s was detected as English at 0.92 ("YOTA"), 1.0 s as Polish
//! at 0.71 with "Jut, o, o, o, o, o, o, o, o, o"; committed at the pause after it, that text
//! stayed and, as the next passes' previous text, spoiled them (the clip twice, streamed:
//! WER 114 % against the whole recording's 55 %). Over the project's eight clips cut after
//! 0.6–3.0 s (about 200 cuts, with and without quiet after them), the wrong detections came on
//! 0.6–0.9 s (English, at 0.64–0.97) and once on 1.6 s (Polish, at 0.52); every detection at
//! 0.9 or more on a second or more of speech was right, and right ones on 1–1.8 s came as low
//! as 0.62. A pass that heard [`LANGUAGE_HEARD_ENOUGH`] tells it whatever its probability, so a
//! speaker Whisper is never sure of still gets commits.

use crate::whisper::Transcript;

/// How sure Whisper's detection must be for a pass to tell the language.
pub const LANGUAGE_SURE: f32 = 0.9;
/// How much speech (seconds, from its first segment's start to its last's end) a pass must
/// have heard to tell the language.
pub const LANGUAGE_HEARD: f32 = 1.5;
/// A pass that heard this much speech tells the language however sure it was: a bound on how
/// long commits wait (the whole recording's transcription would detect from no more).
pub const LANGUAGE_HEARD_ENOUGH: f32 = 5.0;

/// Whether `transcript` (a pass's) tells the dictation's language: it was given (a language
/// setting, an English-only model: no probability), or detected at [`LANGUAGE_SURE`] over
/// [`LANGUAGE_HEARD`] of speech, or over [`LANGUAGE_HEARD_ENOUGH`].
pub fn tells_the_language(transcript: &Transcript) -> bool {
    let Some(probability) = transcript.language_probability else {
        return true;
    };
    let heard = match (transcript.segments.first(), transcript.segments.last()) {
        (Some(first), Some(last)) => (last.end - first.start).max(0.0),
        _ => 0.0,
    };
    heard >= LANGUAGE_HEARD_ENOUGH || (heard >= LANGUAGE_HEARD && probability >= LANGUAGE_SURE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::worker::stream::tests::transcript_of;

    fn heard_over(seconds: f32, probability: Option<f32>) -> Transcript {
        Transcript {
            language_probability: probability,
            ..transcript_of(&[(" a", 0.2, 0.5), (" b", 0.5, 0.2 + seconds)], 1)
        }
    }

    #[test]
    fn a_pass_tells_the_language_when_sure_over_enough_speech_or_over_much_of_it() {
        assert!(tells_the_language(&heard_over(1.6, Some(0.95))));
        assert!(!tells_the_language(&heard_over(1.6, Some(0.8))));
        assert!(!tells_the_language(&heard_over(1.0, Some(0.99))));
        assert!(tells_the_language(&heard_over(5.5, Some(0.6))));
        // Given (a setting, an English-only model): nothing to tell.
        assert!(tells_the_language(&heard_over(0.5, None)));
    }
}
