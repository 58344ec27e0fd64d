//! From Whisper's text to the words delivered, in one place, in this order:
//!
//! 1. **verdict** ([`super::verdict::judge`]): no text, or a phrase Whisper invents on silence,
//!    gives nothing;
//! 2. **spoken commands** ([`commands`], `"spoken_commands"`): "new line", "kropka", "znak
//!    zapytania", … said on their own, in the transcript's language, become their characters;
//! 3. **fillers** ([`fillers`], `"remove_fillers"`): the hesitation sounds of the transcript's
//!    language ("um", "uh" in English; "yyy", "eee" in Polish; "hmm", "mmm" in any) taken out;
//! 4. **vocabulary** ([`vocabulary`], `"vocabulary"`): the person's words with their case and
//!    diacritics, near misses corrected, never another form of the entry or an ordinary word
//!    (the vocabulary is also given to Whisper as its prompt: [`prompt`]);
//! 5. **replacements** ([`replacements`], `"replacements"`);
//! 6. **joining** with the previous dictation ([`join`]: a space when it continues the text).
//!
//! Steps 1–5 are [`Wording::words`], which the app's worker runs on every transcription (the
//! overlay's early text included) and `transcribe --as-app` runs on each file; step 6 is done
//! when the text is delivered, where the previous dictation is known. Pure: no I/O, no state.
//!
//! The rule every step keeps: it changes the text only where the evidence is strong, so the
//! default settings (spoken commands and filler removal on, no vocabulary) leave an ordinary
//! sentence byte-identical. `tests/wording_corpus.rs` holds them to it on the sentence lists in
//! `tests/fixtures/wording/`.

pub mod commands;
pub mod fillers;
pub mod fold;
pub mod inflection;
pub mod language;
pub mod ordinary;
pub mod replacements;
pub mod token;
pub mod vocabulary;

use super::verdict::{self, Empty};
use crate::audio::level::Level;
use crate::settings::Settings;
use crate::whisper::Transcript;
use language::Language;
use replacements::Replacements;
use std::time::Duration;
use vocabulary::Vocabulary;

/// What the settings ask of the text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Wording {
    pub spoken_commands: bool,
    pub remove_fillers: bool,
    pub vocabulary: Vocabulary,
    pub replacements: Replacements,
}

impl Wording {
    pub fn from_settings(settings: &Settings) -> Wording {
        Wording {
            spoken_commands: settings.spoken_commands,
            remove_fillers: settings.remove_fillers,
            vocabulary: Vocabulary::new(&settings.vocabulary),
            replacements: Replacements::new(&settings.replacements),
        }
    }

    /// Steps 1–5: the words to deliver for `transcript` of audio measured as `level`, or why
    /// there are none (a text that was only commands' words or fillers gives none either).
    pub fn words(&self, transcript: &Transcript, level: &Level) -> Result<String, Empty> {
        let text = verdict::judge(transcript, level)?;
        let text = self.rewrite(&text, &transcript.language);
        if text.trim().is_empty() {
            return Err(Empty::NoText);
        }
        Ok(text)
    }

    /// Steps 2–5 on a text the verdict has let through, in `language` (a Whisper language
    /// code: "en", "pl"; the commands and fillers of other languages are not known).
    pub fn rewrite(&self, text: &str, language: &str) -> String {
        let language = Language::from_code(language);
        let mut text = text.to_string();
        if self.spoken_commands {
            text = commands::apply(&text, language);
        }
        if self.remove_fillers {
            text = fillers::remove(&text, language);
        }
        text = self.vocabulary.apply(&text);
        self.replacements.apply(&text)
    }
}

/// Step 6: `text` as it joins the previous dictation (delivered `since` ago).
pub fn join(previous: Option<(&str, Duration)>, text: &str) -> String {
    verdict::join_with_previous(previous, text)
}

/// How much of the vocabulary goes into Whisper's prompt, in characters (~40 tokens). A long
/// prompt of words unrelated to what is said costs the decoder time on every dictation and
/// pulls its text away from the speech: 200 words in the prompt added 0.19 s per dictation and
/// raised the project clips' word error rate from 11.3 % to 17.7 % (`examples/wording_cost.rs`).
/// The whole vocabulary is still matched in the text.
pub const PROMPT_VOCABULARY_CHARS: usize = 150;

/// Whisper's initial prompt: the `prompt` setting, then the vocabulary's first words (as many
/// as fit in [`PROMPT_VOCABULARY_CHARS`]; Whisper writes words it has just "seen" the way it saw
/// them). `None` when both are empty.
pub fn prompt(prompt: &str, vocabulary: &[String]) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut length = 0;
    for word in vocabulary
        .iter()
        .map(|w| w.trim())
        .filter(|w| !w.is_empty())
    {
        length += word.chars().count() + 2;
        if length > PROMPT_VOCABULARY_CHARS {
            break;
        }
        words.push(word);
    }
    let prompt = prompt.trim();
    match (prompt.is_empty(), words.is_empty()) {
        (true, true) => None,
        (false, true) => Some(prompt.to_string()),
        (true, false) => Some(format!("{}.", words.join(", "))),
        (false, false) => Some(format!("{prompt} {}.", words.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn wording() -> Wording {
        let mut settings = Settings {
            vocabulary: vec![
                "Kubernetes".into(),
                "Wrocław".into(),
                "Zofia Kowalczyk".into(),
            ],
            ..Settings::default()
        };
        settings.replacements =
            BTreeMap::from([("cube control".to_string(), "kubectl".to_string())]);
        Wording::from_settings(&settings)
    }

    #[test]
    fn the_steps_run_in_order_on_real_whisper_text() {
        let w = wording();
        // Commands before the vocabulary and replacements; fillers before the vocabulary.
        assert_eq!(
            w.rewrite(
                "Um, deploy it to the kubernetis cluster with cube control. New line.",
                "en"
            ),
            "Deploy it to the Kubernetes cluster with kubectl.\n"
        );
        assert_eq!(
            w.rewrite("Spotkanie z Zofią Kowalczyk we Wroclawiu, kropka.", "pl"),
            "Spotkanie z Zofią Kowalczyk we Wroclawiu."
        );
        // With the steps turned off only the vocabulary and replacements remain.
        let plain = Wording {
            spoken_commands: false,
            remove_fillers: false,
            ..wording()
        };
        assert_eq!(
            plain.rewrite("Um, meet me in wroclaw. New line.", "en"),
            "Um, meet me in Wrocław. New line."
        );
    }

    #[test]
    fn the_default_settings_change_no_ordinary_text() {
        let w = Wording::from_settings(&Settings::default());
        for (text, language) in [
            (
                "Please remind me to call the dentist tomorrow morning at 9.",
                "en",
            ),
            (
                "The quarterly report is almost finished, but the charts still need more work.",
                "en",
            ),
            (
                "Jutro o 10 mamy ważne spotkania na rąbem w sali konferencjonnej.",
                "pl",
            ),
            ("We are launching a new line of products next year.", "en"),
        ] {
            assert_eq!(w.rewrite(text, language), text);
        }
    }

    #[test]
    fn the_prompt_carries_the_vocabulary() {
        let words = vec!["Kubernetes".to_string(), " Wrocław ".into(), String::new()];
        assert_eq!(prompt("", &[]), None);
        assert_eq!(prompt("  ", &words), Some("Kubernetes, Wrocław.".into()));
        assert_eq!(
            prompt("Notatki z pracy.", &words),
            Some("Notatki z pracy. Kubernetes, Wrocław.".into())
        );
        assert_eq!(prompt("Notatki.", &[]), Some("Notatki.".into()));
        // A long vocabulary: its first words only.
        let many: Vec<String> = (0..200).map(|i| format!("Word{i}")).collect();
        let p = prompt("", &many).unwrap();
        assert!(p.starts_with("Word0, Word1, ") && p.len() <= PROMPT_VOCABULARY_CHARS + 1);
    }
}
