//! The last word on a transcript before it reaches the user's document: whether it is text at all
//! (silence, noise and Whisper's hallucinations of silence are dropped, never pasted), and how it
//! joins what was dictated just before (a leading space after a word).

use crate::audio::level::{GateConfig, Level};
use crate::whisper::Transcript;
use std::time::Duration;

/// Why nothing is delivered.
#[derive(Debug, Clone, PartialEq)]
pub enum Empty {
    /// The energy gate found no sound (digital silence, faint room noise).
    NoSound { active_seconds: f32 },
    /// Whisper produced no text (its no-speech rule, or only punctuation).
    NoText,
    /// A phrase Whisper is known to invent on silence, on audio with little speech in it.
    Hallucination { text: String },
}

impl Empty {
    /// A short machine-readable name for logs.
    pub fn reason(&self) -> &'static str {
        match self {
            Empty::NoSound { .. } => "no_sound",
            Empty::NoText => "no_text",
            Empty::Hallucination { .. } => "hallucination",
        }
    }
}

/// Sound this long is someone speaking: when it gives no text, they are told so.
pub const SPOKEN_ENOUGH: Duration = Duration::from_secs(1);

/// Whether a recording that gave no text had speech in it (at least [`SPOKEN_ENOUGH`] of
/// active sound that the gate let through), as opposed to silence or faint noise.
pub fn spoke(empty: &Empty, level: &Level) -> bool {
    !matches!(empty, Empty::NoSound { .. }) && level.active_seconds >= SPOKEN_ENOUGH.as_secs_f32()
}

/// Phrases Whisper produces for silence and noise (from its training subtitles), compared after
/// [`normalise`]. English and Polish, the app's main languages, plus the subtitle credits.
const HALLUCINATIONS: &[&str] = &[
    "you",
    "thank you",
    "thanks",
    "thank you very much",
    "thanks for watching",
    "thank you for watching",
    "thank you so much for watching",
    "please subscribe",
    "bye",
    "bye bye",
    "so",
    "oh",
    "hmm",
    "the end",
    "blank audio",
    "silence",
    "music",
    "applause",
    "subtitles by the amara org community",
    "subtitles by the amaraorg community",
    "dziękuję",
    "dziękuję bardzo",
    "dziękuję za uwagę",
    "dzięki za obejrzenie",
    "do zobaczenia",
    "napisy stworzone przez społeczność amara org",
    "napisy wykonane przez społeczność amara org",
    "cisza",
];

/// Below this much sound, a known hallucination is taken for one (real "thank you" has more).
const HALLUCINATION_MAX_ACTIVE: Duration = Duration::from_millis(600);
/// Or when Whisper itself thought the audio was likely not speech.
const HALLUCINATION_NO_SPEECH: f32 = 0.25;

/// Lowercase letters and digits, words separated by single spaces; brackets, punctuation and
/// music notes dropped ("[BLANK_AUDIO]" → "blank audio", "Thank you." → "thank you").
pub fn normalise(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn is_known_hallucination(text: &str) -> bool {
    let norm = normalise(text);
    HALLUCINATIONS.contains(&norm.as_str())
}

/// Before transcription: is there any sound worth sending to Whisper?
pub fn gate(level: &Level, config: &GateConfig) -> Result<(), Empty> {
    if level.has_sound(config) {
        Ok(())
    } else {
        Err(Empty::NoSound {
            active_seconds: level.active_seconds,
        })
    }
}

/// After transcription: the text to deliver, or why there is none.
pub fn judge(transcript: &Transcript, level: &Level) -> Result<String, Empty> {
    let text = transcript.text.trim();
    if normalise(text).is_empty() {
        return Err(Empty::NoText);
    }
    if is_known_hallucination(text) {
        let no_speech = transcript
            .segments
            .iter()
            .map(|s| s.no_speech_prob)
            .fold(0.0f32, f32::max);
        if level.active_seconds < HALLUCINATION_MAX_ACTIVE.as_secs_f32()
            || no_speech >= HALLUCINATION_NO_SPEECH
        {
            return Err(Empty::Hallucination {
                text: text.to_string(),
            });
        }
    }
    Ok(text.to_string())
}

/// Dictations closer together than this continue the same text.
pub const CONTINUATION_WINDOW: Duration = Duration::from_secs(90);

/// `text` as it joins the previous dictation: a space in front when the previous one (delivered
/// `since` ago) ended in a word or sentence punctuation and this one starts with a word.
pub fn join_with_previous(previous: Option<(&str, Duration)>, text: &str) -> String {
    let Some((prev, since)) = previous else {
        return text.to_string();
    };
    let ends_in_word = prev
        .trim_end_matches(' ')
        .chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() || ".,;:!?)\"'”…".contains(c));
    let starts_with_word = text
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || "(\"'“„".contains(c));
    let ended_with_space_or_newline = prev.ends_with([' ', '\n', '\t']);
    if since <= CONTINUATION_WINDOW
        && ends_in_word
        && starts_with_word
        && !ended_with_space_or_newline
    {
        format!(" {text}")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whisper::{Segment, Timings};

    #[test]
    fn a_second_of_speech_without_text_is_worth_saying_silence_is_not() {
        let level = |active_seconds| Level {
            active_seconds,
            peak_frame_rms: 0.1,
            rms: 0.05,
            seconds: 4.0,
        };
        assert!(spoke(&Empty::NoText, &level(2.5)));
        assert!(spoke(&Empty::NoText, &level(1.0)));
        assert!(!spoke(&Empty::NoText, &level(0.6)));
        let thanks = Empty::Hallucination {
            text: "Dziękuję.".into(),
        };
        assert!(spoke(&thanks, &level(1.2)));
        // The gate's refusal is a quiet or silent microphone, said otherwise.
        assert!(!spoke(
            &Empty::NoSound {
                active_seconds: 3.0
            },
            &level(3.0)
        ));
    }

    fn transcript(text: &str, no_speech: f32) -> Transcript {
        Transcript {
            text: text.to_string(),
            segments: vec![Segment {
                seek: 0,
                start: 0.0,
                end: 1.0,
                text: text.to_string(),
                tokens: Vec::new(),
                temperature: 0.0,
                avg_logprob: -0.5,
                compression_ratio: 1.0,
                no_speech_prob: no_speech,
            }],
            language: "en".into(),
            language_probability: None,
            duration: 2.0,
            timings: Timings::default(),
        }
    }

    fn level(active_seconds: f32) -> Level {
        Level {
            active_seconds,
            peak_frame_rms: 0.1,
            rms: 0.05,
            seconds: 3.0,
        }
    }

    #[test]
    fn known_hallucinations_match_in_any_case_and_punctuation() {
        for text in [
            " you",
            "Thank you.",
            "THANK YOU!",
            "[BLANK_AUDIO]",
            "Subtitles by the Amara.org community",
            "Dziękuję.",
            "♪ Music ♪",
        ] {
            assert!(is_known_hallucination(text), "{text}");
        }
        assert!(!is_known_hallucination("Thank you for the report."));
        assert!(!is_known_hallucination("Youth"));
    }

    #[test]
    fn the_engines_you_on_silence_is_dropped() {
        // What base returns for 5 s of digital silence (no_speech 0.74).
        let verdict = judge(&transcript(" you", 0.74), &level(0.0));
        assert_eq!(verdict, Err(Empty::Hallucination { text: "you".into() }));
    }

    #[test]
    fn a_hallucination_phrase_on_little_sound_is_dropped_even_when_whisper_is_sure() {
        assert!(judge(&transcript("Thank you.", 0.01), &level(0.3)).is_err());
    }

    #[test]
    fn a_real_thank_you_with_speech_in_it_is_kept() {
        assert_eq!(
            judge(&transcript(" Thank you.", 0.02), &level(0.9)),
            Ok("Thank you.".to_string())
        );
    }

    #[test]
    fn ordinary_text_is_kept_trimmed() {
        assert_eq!(
            judge(&transcript(" Call the dentist.", 0.9), &level(0.1)),
            Ok("Call the dentist.".to_string())
        );
    }

    #[test]
    fn punctuation_only_is_no_text() {
        assert_eq!(
            judge(&transcript(" ...", 0.1), &level(2.0)),
            Err(Empty::NoText)
        );
        assert_eq!(judge(&transcript("", 0.1), &level(2.0)), Err(Empty::NoText));
    }

    #[test]
    fn the_gate_drops_silence_and_passes_sound() {
        let config = GateConfig::default();
        assert_eq!(
            gate(&level(0.0), &config),
            Err(Empty::NoSound {
                active_seconds: 0.0
            })
        );
        assert_eq!(gate(&level(1.0), &config), Ok(()));
    }

    #[test]
    fn a_leading_space_joins_a_dictation_to_the_one_just_before() {
        let soon = Duration::from_secs(5);
        assert_eq!(join_with_previous(None, "Hello."), "Hello.");
        assert_eq!(
            join_with_previous(Some(("First sentence.", soon)), "Second one."),
            " Second one."
        );
        assert_eq!(
            join_with_previous(Some(("a word", soon)), "another"),
            " another"
        );
        // Punctuation attaches; a previous text that ended in a space needs none.
        assert_eq!(join_with_previous(Some(("word", soon)), ", then"), ", then");
        assert_eq!(join_with_previous(Some(("word ", soon)), "next"), "next");
        // Long ago the user has probably moved elsewhere.
        assert_eq!(
            join_with_previous(Some(("word", Duration::from_secs(600))), "next"),
            "next"
        );
    }
}
