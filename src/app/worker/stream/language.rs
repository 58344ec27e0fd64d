//! When a pass tells the dictation's language ([`tells_the_language`]). A dictation keeps the
//! language of its first committed stretch (a Polish dictation never turns English half-way),
//! so that stretch must be long enough to tell it: until a pass does, nothing is committed and
//! the next pass hears the first stretch again with the speech after it. Sure is
//! [`crate::whisper::language::is_sure`] (where the measurements are) over the speech the
//! pass heard.
//!
//! Why: on the project's Polish clip opening with one short word and a pause (`base`, the
//! app's `auto:pl,en`), the pass at that pause heard the first second as Polish at 0.71,
//! "Jut, o, o, o, o, o, o, o, o, o"; committed, that text stayed and, as the next passes'
//! previous text, spoiled them (the clip twice, streamed: WER 114 % against the whole
//! recording's 55 %).

use crate::whisper::language::is_sure;
use crate::whisper::Transcript;

/// Whether `transcript` (a pass's) tells the dictation's language: it was given (a language
/// setting, an English-only model: no probability), or detected surely over the speech heard
/// (from its first segment's start to its last's end).
pub fn tells_the_language(transcript: &Transcript) -> bool {
    let Some(probability) = transcript.language_probability else {
        return true;
    };
    let heard = match (transcript.segments.first(), transcript.segments.last()) {
        (Some(first), Some(last)) => (last.end - first.start).max(0.0),
        _ => 0.0,
    };
    is_sure(probability, heard)
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
