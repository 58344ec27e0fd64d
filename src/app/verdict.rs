//! The last word on a transcript before it reaches the user's document: whether it is text at all
//! (silence, noise and Whisper's hallucinations of silence are dropped, never pasted; a short
//! reply is kept: the rule is [`super::heard`]'s), whether the person is told that their speech
//! gave no text ([`spoke`]), and how it joins what was dictated just before (a leading space
//! after a word).

use super::hallucinations::normalise;
use super::heard::{self, Evidence, Heard};
use crate::audio::level::{GateConfig, Level};
use crate::whisper::{Transcript, WithheldReason};
use std::time::Duration;

/// Why nothing is delivered.
#[derive(Debug, Clone, PartialEq)]
pub enum Empty {
    /// The energy gate found no sound (digital silence, faint room noise).
    NoSound { active_seconds: f32 },
    /// The voice-activity detector heard no speech (noise, music, a cough), so Whisper was not
    /// asked.
    NoSpeech,
    /// Whisper produced no text (its no-speech rule, or only punctuation).
    NoText,
    /// A phrase Whisper is known to invent on silence, on audio it did not take for speech.
    Hallucination { text: String },
    /// Whisper took the audio for speech, but no text can be delivered (`text` is what it
    /// decoded, held back or dropped; possibly nothing): the person is told.
    Unrecognised { text: String },
}

impl Empty {
    /// What Whisper decoded and was not delivered (empty when nothing was); a log shows it only
    /// through `logging::dictated`.
    pub fn text(&self) -> &str {
        match self {
            Empty::Hallucination { text } | Empty::Unrecognised { text } => text,
            Empty::NoSound { .. } | Empty::NoSpeech | Empty::NoText => "",
        }
    }

    /// A short machine-readable name for logs.
    pub fn reason(&self) -> &'static str {
        match self {
            Empty::NoSound { .. } => "no_sound",
            Empty::NoSpeech => "no_speech",
            Empty::NoText => "no_text",
            Empty::Hallucination { .. } => "hallucination",
            Empty::Unrecognised { .. } => "unrecognised",
        }
    }
}

/// Sound this long is someone speaking even when Whisper did not take it for speech: when it
/// gives no text, they are told so.
pub const SPOKEN_ENOUGH: Duration = Duration::from_secs(1);

/// Whether a recording that gave no text had speech in it, so that the person is told
/// "nothing recognised": the gate let its sound through and either Whisper took it for speech
/// ([`Empty::Unrecognised`], however short) or it holds at least [`SPOKEN_ENOUGH`] of sound.
/// Silence, faint noise (the gate's refusal, said otherwise) and short noise Whisper did not
/// take for speech are not.
pub fn spoke(empty: &Empty, level: &Level) -> bool {
    match empty {
        Empty::NoSound { .. } | Empty::NoSpeech => false,
        Empty::Unrecognised { .. } => true,
        Empty::NoText | Empty::Hallucination { .. } => {
            level.active_seconds >= SPOKEN_ENOUGH.as_secs_f32()
        }
    }
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

/// After transcription: the text to deliver, or why there is none ([`heard::decide`] on what
/// Whisper gave, held back and measured, and the sound the gate measured).
pub fn judge(transcript: &Transcript, level: &Level) -> Result<String, Empty> {
    let evidence = evidence(transcript, level);
    let heard = heard::decide(&evidence);
    if !matches!(heard, Heard::Words(_)) {
        // The figures the rule read, so that a reply that was not pasted can be explained.
        tracing::info!(
            held_back = evidence.held_back.is_some(),
            no_speech = ?evidence.no_speech_prob,
            avg_logprob = evidence.avg_logprob,
            sound_s = evidence.sound_seconds,
            "no words delivered"
        );
    }
    match heard {
        Heard::Words(text) => Ok(text),
        Heard::Unrecognised(text) => Err(Empty::Unrecognised { text }),
        Heard::Hallucination(text) => Err(Empty::Hallucination { text }),
        Heard::NotSpeech => Err(Empty::NoText),
    }
}

/// The evidence of `transcript`: its text and the highest no-speech probability of its
/// segments; when it has no text, the first window the log-probability threshold held back,
/// or the lowest no-speech probability of the windows that gave nothing.
pub fn evidence<'a>(transcript: &'a Transcript, level: &Level) -> Evidence<'a> {
    let sound_seconds = level.active_seconds;
    if !normalise(&transcript.text).is_empty() {
        let segments = &transcript.segments;
        let no_speech = segments.iter().map(|s| s.no_speech_prob).reduce(f32::max);
        let avg_logprob =
            segments.iter().map(|s| s.avg_logprob).sum::<f32>() / segments.len().max(1) as f32;
        return Evidence {
            text: &transcript.text,
            held_back: None,
            no_speech_prob: no_speech,
            avg_logprob,
            sound_seconds,
        };
    }
    let held = transcript
        .withheld
        .iter()
        .find(|w| w.reason == WithheldReason::Unreliable && !normalise(&w.text).is_empty());
    match held {
        Some(held) => Evidence {
            text: "",
            held_back: Some(&held.text),
            no_speech_prob: Some(held.no_speech_prob),
            avg_logprob: held.avg_logprob,
            sound_seconds,
        },
        None => Evidence {
            text: "",
            held_back: None,
            no_speech_prob: transcript
                .withheld
                .iter()
                .map(|w| w.no_speech_prob)
                .reduce(f32::min),
            avg_logprob: f32::NEG_INFINITY,
            sound_seconds,
        },
    }
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
    use crate::whisper::{Segment, Timings, Withheld};

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
        // Whisper took it for speech: said however short it was.
        let unrecognised = Empty::Unrecognised {
            text: "Weekness".into(),
        };
        assert!(spoke(&unrecognised, &level(0.3)));
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
                words: Vec::new(),
            }],
            language: "en".into(),
            language_probability: None,
            duration: 2.0,
            timings: Timings::default(),
            withheld: Vec::new(),
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
    fn the_engines_you_on_silence_is_dropped() {
        // What base returns for 5 s of digital silence (no_speech 0.74).
        let verdict = judge(&transcript(" you", 0.74), &level(0.0));
        assert_eq!(verdict, Err(Empty::Hallucination { text: "you".into() }));
    }

    #[test]
    fn a_hallucination_phrase_on_too_little_sound_is_not_delivered() {
        // Whisper is sure, but 0.1 s of sound cannot hold two words: not pasted, and said.
        assert_eq!(
            judge(&transcript("Thank you.", 0.01), &level(0.1)),
            Err(Empty::Unrecognised {
                text: "Thank you.".into()
            })
        );
    }

    #[test]
    fn a_short_real_thank_you_is_kept() {
        // The dictation: 0.45 s of sound, below the old 0.6 s floor.
        assert_eq!(
            judge(&transcript(" Thank you.", 0.02), &level(0.45)),
            Ok("Thank you.".to_string())
        );
    }

    #[test]
    fn a_reply_whisper_held_back_is_kept_and_noise_it_held_back_is_not() {
        let held = |text: &str, no_speech, avg_logprob| {
            let mut t = transcript("", no_speech);
            t.segments.clear();
            t.withheld.push(Withheld {
                reason: WithheldReason::Unreliable,
                start: 0.0,
                end: 1.0,
                text: text.into(),
                avg_logprob,
                no_speech_prob: no_speech,
                temperature: 0.2,
            });
            t
        };
        assert_eq!(
            judge(&held(" Done!", 0.254, -1.13), &level(0.36)),
            Ok("Done!".to_string())
        );
        assert_eq!(
            judge(&held(" Thank you.", 0.581, -1.31), &level(1.5)),
            Err(Empty::Hallucination {
                text: "Thank you.".into()
            })
        );
    }

    #[test]
    fn windows_whisper_took_for_silence_give_no_text_and_are_not_said() {
        let mut t = transcript("", 0.7);
        t.segments.clear();
        t.withheld.push(Withheld {
            reason: WithheldReason::Silence,
            start: 0.0,
            end: 3.0,
            text: " I'm going to go to the next one.".into(),
            avg_logprob: -1.78,
            no_speech_prob: 0.68,
            temperature: 0.0,
        });
        let noise = level(0.5);
        let verdict = judge(&t, &noise);
        assert_eq!(verdict, Err(Empty::NoText));
        assert!(!spoke(&verdict.unwrap_err(), &noise));
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
