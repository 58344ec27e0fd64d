//! The UI language and the user-facing texts of the device manager, in Polish and English.
//!
//! The language comes from [`UiLang::detect`]: the override `WHISPER_DICTATION_UI_LANG` first,
//! then the POSIX locale variables (`LC_ALL`, `LC_MESSAGES`, `LANG`). Polish locales give Polish,
//! everything else English. On macOS an app started from Finder usually has no `LANG`; the
//! platform layer can read the user's `AppleLanguages` preference there and pass it to
//! [`UiLang::parse`] (it uses the same language codes, e.g. "pl-PL").
//!
//! Every [`Message`] says what happened and what the app does about it, in one or two short
//! sentences.

use serde::{Deserialize, Serialize};

/// The environment variable that overrides the UI language ("pl" or "en").
pub const UI_LANG_ENV_VAR: &str = "WHISPER_DICTATION_UI_LANG";

/// The language of the user interface.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiLang {
    Pl,
    #[default]
    En,
}

impl UiLang {
    /// The language of a locale name or language tag: "pl", "pl_PL.UTF-8", "pl-PL",
    /// "pl_PL@euro", "polish" give Polish; everything else ("en_US", "C", "POSIX", "de_DE",
    /// "") gives English, the UI's fallback.
    pub fn parse(text: &str) -> UiLang {
        match language_code(text).as_str() {
            "pl" | "pol" | "polish" => UiLang::Pl,
            _ => UiLang::En,
        }
    }

    /// The language from the POSIX variables, in POSIX precedence for messages: `LC_ALL`, then
    /// `LC_MESSAGES`, then `LANG`. Unset or empty variables are skipped; none set gives English.
    /// (GNU's `LANGUAGE` priority list is not consulted.)
    pub fn from_env_vars(
        lc_all: Option<&str>,
        lc_messages: Option<&str>,
        lang: Option<&str>,
    ) -> UiLang {
        [lc_all, lc_messages, lang]
            .into_iter()
            .flatten()
            .find(|value| !value.trim().is_empty())
            .map_or(UiLang::En, UiLang::parse)
    }

    /// The language for this process: [`UI_LANG_ENV_VAR`] if set and non-empty, else the
    /// POSIX variables; when none of them is set (a Mac app started from Finder or at login
    /// has no `LANG`), the user's preferred language from the platform (macOS `AppleLanguages`).
    pub fn detect() -> UiLang {
        let var = |name: &str| std::env::var(name).ok();
        let any_set = [UI_LANG_ENV_VAR, "LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .any(|name| var(name).is_some_and(|v| !v.trim().is_empty()));
        if !any_set {
            if let Some(preferred) = crate::platform::preferred_language() {
                return UiLang::parse(&preferred);
            }
        }
        Self::detect_with(var)
    }

    /// [`UiLang::detect`] with the environment supplied by `var` (for tests).
    pub fn detect_with(var: impl Fn(&str) -> Option<String>) -> UiLang {
        match var(UI_LANG_ENV_VAR) {
            Some(value) if !value.trim().is_empty() => UiLang::parse(&value),
            _ => UiLang::from_env_vars(
                var("LC_ALL").as_deref(),
                var("LC_MESSAGES").as_deref(),
                var("LANG").as_deref(),
            ),
        }
    }

    /// The ISO 639-1 code: "pl" or "en".
    pub fn code(self) -> &'static str {
        match self {
            UiLang::Pl => "pl",
            UiLang::En => "en",
        }
    }
}

/// The language part of a locale name (`ll_CC.encoding@modifier`) or tag (`ll-CC`), lowercase.
fn language_code(locale: &str) -> String {
    locale
        .trim()
        .split(['_', '-', '.', '@'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// A user-facing message of the device manager. GPU names are display names ("Apple M1",
/// "NVIDIA GeForce RTX 3060"); device names in [`Message::RequestedDeviceMissing`] are shown
/// as given ("CUDA", "CPU").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Message {
    /// The GPU cannot run this model at all (sparse tensors, float64); the CPU takes over.
    GpuIncompatible { gpu: String },
    /// The GPU ran out of memory even after a lighter retry; the CPU takes over.
    GpuOutOfMemory,
    /// The GPU ran out of memory; the app frees memory and retries on the GPU.
    GpuOutOfMemoryRetrying,
    /// The GPU lacks an operation the model needs; the CPU takes over.
    GpuUnsupportedOperation { gpu: String },
    /// The GPU computed wrong numbers; the CPU takes over.
    GpuWrongResults { gpu: String },
    /// The app died while using the GPU last time; the CPU is used this time.
    GpuCrashedLastTime { gpu: String },
    /// An unrecognised GPU error; the CPU takes over.
    GpuUnknownError { gpu: String },
    /// The device chosen in the settings is not available; another one is used.
    RequestedDeviceMissing { requested: String, using: String },
    /// A retry found the GPU working again; the app goes back to it.
    GpuRecovered { gpu: String },
    /// Transcription failed with nothing left to try; `detail` is technical (shown as is).
    CannotTranscribe { detail: String },
    /// Not even the CPU had enough memory for the model.
    NotEnoughMemory,
}

impl Message {
    /// The text in `lang`.
    pub fn text(&self, lang: UiLang) -> String {
        match lang {
            UiLang::Pl => self.polish(),
            UiLang::En => self.english(),
        }
    }

    fn polish(&self) -> String {
        match self {
            Message::GpuIncompatible { gpu } => {
                format!("Wykryto problem kompatybilności z GPU {gpu}. Przełączam na CPU.")
            }
            Message::GpuOutOfMemory => "Brak pamięci GPU. Używam CPU (będzie wolniej).".into(),
            Message::GpuOutOfMemoryRetrying => {
                "Brak pamięci GPU. Zwalniam pamięć i próbuję ponownie.".into()
            }
            Message::GpuUnsupportedOperation { gpu } => format!(
                "GPU {gpu} nie obsługuje jednej z operacji potrzebnych modelowi. Przełączam na CPU."
            ),
            Message::GpuWrongResults { gpu } => {
                format!("GPU {gpu} zwraca błędne wyniki. Przełączam na CPU.")
            }
            Message::GpuCrashedLastTime { gpu } => format!(
                "Poprzednim razem aplikacja nieoczekiwanie zamknęła się podczas pracy na GPU {gpu}. \
                 Tym razem używam CPU."
            ),
            Message::GpuUnknownError { gpu } => {
                format!("Nieoczekiwany błąd GPU {gpu}. Przełączam na CPU.")
            }
            Message::RequestedDeviceMissing { requested, using } => {
                format!("Wybrane urządzenie ({requested}) jest niedostępne. Używam {using}.")
            }
            Message::GpuRecovered { gpu } => {
                format!("GPU {gpu} znów działa poprawnie. Wracam do GPU.")
            }
            Message::CannotTranscribe { detail } => {
                format!("Nie udało się zamienić nagrania na tekst ({detail}).")
            }
            Message::NotEnoughMemory => "Za mało pamięci, by zamienić nagranie na tekst. \
                                         Zamknij inne programy albo wybierz mniejszy model."
                .into(),
        }
    }

    fn english(&self) -> String {
        match self {
            Message::GpuIncompatible { gpu } => format!(
                "A compatibility problem with the {gpu} GPU was detected. Switching to the CPU."
            ),
            Message::GpuOutOfMemory => {
                "The GPU is out of memory. Using the CPU (this will be slower).".into()
            }
            Message::GpuOutOfMemoryRetrying => {
                "The GPU is out of memory. Freeing memory and trying again.".into()
            }
            Message::GpuUnsupportedOperation { gpu } => format!(
                "The {gpu} GPU does not support an operation the model needs. \
                 Switching to the CPU."
            ),
            Message::GpuWrongResults { gpu } => {
                format!("The {gpu} GPU returns wrong results. Switching to the CPU.")
            }
            Message::GpuCrashedLastTime { gpu } => format!(
                "Last time the app closed unexpectedly while using the {gpu} GPU. \
                 Using the CPU this time."
            ),
            Message::GpuUnknownError { gpu } => {
                format!("Unexpected error on the {gpu} GPU. Switching to the CPU.")
            }
            Message::RequestedDeviceMissing { requested, using } => {
                format!("The selected device ({requested}) is not available. Using {using}.")
            }
            Message::GpuRecovered { gpu } => {
                format!("The {gpu} GPU works again. Switching back to the GPU.")
            }
            Message::CannotTranscribe { detail } => {
                format!("Could not transcribe the recording ({detail}).")
            }
            Message::NotEnoughMemory => "Not enough memory to transcribe the recording. \
                                         Close other apps or choose a smaller model."
                .into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const POLISH_LETTERS: &str = "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ";

    /// One of each variant, with placeholder values that must show up in the texts.
    fn every_message() -> Vec<Message> {
        let gpu = || "Apple M1".to_string();
        vec![
            Message::GpuIncompatible { gpu: gpu() },
            Message::GpuOutOfMemory,
            Message::GpuOutOfMemoryRetrying,
            Message::GpuUnsupportedOperation { gpu: gpu() },
            Message::GpuWrongResults { gpu: gpu() },
            Message::GpuCrashedLastTime { gpu: gpu() },
            Message::GpuUnknownError { gpu: gpu() },
            Message::RequestedDeviceMissing {
                requested: "CUDA".into(),
                using: "CPU".into(),
            },
            Message::GpuRecovered { gpu: gpu() },
            Message::CannotTranscribe {
                detail: "unsupported".into(),
            },
            Message::NotEnoughMemory,
        ]
    }

    /// Exhaustive on purpose: a new variant fails to compile here until it is added to
    /// [`every_message`] too (checked by `every_variant_is_tested`).
    fn variant_index(message: &Message) -> usize {
        match message {
            Message::GpuIncompatible { .. } => 0,
            Message::GpuOutOfMemory => 1,
            Message::GpuOutOfMemoryRetrying => 2,
            Message::GpuUnsupportedOperation { .. } => 3,
            Message::GpuWrongResults { .. } => 4,
            Message::GpuCrashedLastTime { .. } => 5,
            Message::GpuUnknownError { .. } => 6,
            Message::RequestedDeviceMissing { .. } => 7,
            Message::GpuRecovered { .. } => 8,
            Message::CannotTranscribe { .. } => 9,
            Message::NotEnoughMemory => 10,
        }
    }

    #[test]
    fn every_variant_is_tested() {
        let mut indices: Vec<usize> = every_message().iter().map(variant_index).collect();
        indices.sort();
        assert_eq!(indices, (0..=10).collect::<Vec<_>>());
    }

    #[test]
    fn required_texts_are_exact() {
        let gpu = Message::GpuIncompatible { gpu: "M1".into() };
        assert_eq!(
            gpu.text(UiLang::Pl),
            "Wykryto problem kompatybilności z GPU M1. Przełączam na CPU."
        );
        assert_eq!(
            gpu.text(UiLang::En),
            "A compatibility problem with the M1 GPU was detected. Switching to the CPU."
        );
        assert_eq!(
            Message::GpuOutOfMemory.text(UiLang::Pl),
            "Brak pamięci GPU. Używam CPU (będzie wolniej)."
        );
        assert_eq!(
            Message::GpuOutOfMemory.text(UiLang::En),
            "The GPU is out of memory. Using the CPU (this will be slower)."
        );
    }

    #[test]
    fn every_message_has_a_sentence_in_both_languages() {
        for message in every_message() {
            for lang in [UiLang::Pl, UiLang::En] {
                let text = message.text(lang);
                assert!(!text.trim().is_empty(), "{message:?} {lang:?}");
                assert!(text.ends_with('.'), "{text}");
                assert!(!text.contains('{') && !text.contains("  "), "{text}");
                assert!(
                    text.chars().next().is_some_and(char::is_uppercase),
                    "{text}"
                );
            }
            assert_ne!(message.text(UiLang::Pl), message.text(UiLang::En));
        }
    }

    #[test]
    fn polish_texts_use_polish_letters_and_english_ones_do_not() {
        for message in every_message() {
            let pl = message.text(UiLang::Pl);
            let en = message.text(UiLang::En);
            assert!(pl.chars().any(|c| POLISH_LETTERS.contains(c)), "{pl}");
            assert!(!en.chars().any(|c| POLISH_LETTERS.contains(c)), "{en}");
        }
    }

    #[test]
    fn placeholders_are_filled_in() {
        for message in every_message() {
            for lang in [UiLang::Pl, UiLang::En] {
                let text = message.text(lang);
                match &message {
                    Message::GpuIncompatible { gpu }
                    | Message::GpuUnsupportedOperation { gpu }
                    | Message::GpuWrongResults { gpu }
                    | Message::GpuCrashedLastTime { gpu }
                    | Message::GpuUnknownError { gpu }
                    | Message::GpuRecovered { gpu } => assert!(text.contains(gpu.as_str())),
                    Message::RequestedDeviceMissing { requested, using } => {
                        assert!(text.contains(requested.as_str()) && text.contains(using.as_str()))
                    }
                    Message::CannotTranscribe { detail } => assert!(text.contains(detail.as_str())),
                    Message::GpuOutOfMemory
                    | Message::GpuOutOfMemoryRetrying
                    | Message::NotEnoughMemory => {}
                }
            }
        }
    }

    #[test]
    fn locale_names_and_tags_parse() {
        for polish in [
            "pl",
            "PL",
            "pl_PL",
            "pl_PL.UTF-8",
            "pl-PL",
            "pl_PL@euro",
            " pl ",
            "polish",
        ] {
            assert_eq!(UiLang::parse(polish), UiLang::Pl, "{polish}");
        }
        for english in [
            "en",
            "en_US",
            "en_GB.UTF-8",
            "en-US",
            "C",
            "POSIX",
            "C.UTF-8",
            "de_DE",
            "",
        ] {
            assert_eq!(UiLang::parse(english), UiLang::En, "{english}");
        }
        // Not Polish despite the letters.
        assert_eq!(UiLang::parse("plt_MG"), UiLang::En);
    }

    #[test]
    fn posix_precedence_is_lc_all_then_lc_messages_then_lang() {
        let from = UiLang::from_env_vars;
        assert_eq!(
            from(Some("pl_PL.UTF-8"), Some("en_US"), Some("en_US")),
            UiLang::Pl
        );
        assert_eq!(from(Some("C"), Some("pl_PL"), Some("pl_PL")), UiLang::En);
        assert_eq!(from(None, Some("pl_PL"), Some("en_US")), UiLang::Pl);
        assert_eq!(from(None, Some("en_US"), Some("pl_PL")), UiLang::En);
        assert_eq!(from(None, None, Some("pl_PL.UTF-8")), UiLang::Pl);
        assert_eq!(from(None, None, None), UiLang::En);
    }

    #[test]
    fn empty_variables_are_skipped() {
        let from = UiLang::from_env_vars;
        assert_eq!(from(Some(""), Some(""), Some("pl_PL")), UiLang::Pl);
        assert_eq!(from(Some("  "), None, Some("pl_PL")), UiLang::Pl);
        assert_eq!(from(Some(""), Some("pl"), Some("en_US")), UiLang::Pl);
        assert_eq!(from(Some(""), Some(""), Some("")), UiLang::En);
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn the_override_variable_wins_over_the_locale() {
        let detect = |pairs: &[(&str, &str)]| UiLang::detect_with(env(pairs));
        assert_eq!(
            detect(&[(UI_LANG_ENV_VAR, "pl"), ("LC_ALL", "en_US")]),
            UiLang::Pl
        );
        assert_eq!(
            detect(&[(UI_LANG_ENV_VAR, "en"), ("LANG", "pl_PL.UTF-8")]),
            UiLang::En
        );
        assert_eq!(
            detect(&[(UI_LANG_ENV_VAR, ""), ("LANG", "pl_PL.UTF-8")]),
            UiLang::Pl
        );
        assert_eq!(
            detect(&[("LC_MESSAGES", "pl_PL"), ("LANG", "en_US")]),
            UiLang::Pl
        );
        assert_eq!(detect(&[("LANG", "fr_FR.UTF-8")]), UiLang::En);
        assert_eq!(detect(&[]), UiLang::En);
    }

    #[test]
    fn codes_and_serde_names_agree() {
        for lang in [UiLang::Pl, UiLang::En] {
            let json = serde_json::to_value(lang).unwrap();
            assert_eq!(json, serde_json::Value::String(lang.code().into()));
            assert_eq!(UiLang::parse(lang.code()), lang);
        }
    }
}
