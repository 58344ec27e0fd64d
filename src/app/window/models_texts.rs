//! The Models page's words in Polish and English, handed to the page in `labels.js` as
//! `window.MODELS_LABELS = {…}` (after the History and Settings labels), and the sentences the
//! app answers the page with (why a removal or a choice is refused, what a check found).

use crate::i18n::UiLang;

/// The page's labels in one language.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelsLabels {
    /// The window's title on this page, and its navigation button.
    pub models: &'static str,
    pub installed: &'static str,
    pub in_use: &'static str,
    pub suggested: &'static str,
    /// "Suggested for this computer" (the badge's tooltip).
    pub suggested_hint: &'static str,
    pub own_folder: &'static str,
    pub download: &'static str,
    pub cancel: &'static str,
    pub verify: &'static str,
    pub remove: &'static str,
    /// The Remove button armed for its confirming click.
    pub remove_confirm: &'static str,
    pub use_model: &'static str,
    pub size: &'static str,
    pub memory: &'static str,
    /// A download stopped part-way that the next Download continues.
    pub partial: &'static str,
    pub downloading: &'static str,
    pub verifying: &'static str,
    pub loading: &'static str,
    pub done_download: &'static str,
    pub cancelled: &'static str,
    pub failed: &'static str,
    pub verified: &'static str,
    pub removed: &'static str,
    pub now_used: &'static str,
    /// Under the list: where the models are.
    pub folder: &'static str,
}

pub fn labels(lang: UiLang) -> ModelsLabels {
    match lang {
        UiLang::En => ModelsLabels {
            models: "Models",
            installed: "installed",
            in_use: "in use",
            suggested: "suggested",
            suggested_hint: "Suggested for this computer",
            own_folder: "a folder of your own",
            download: "Download",
            cancel: "Cancel",
            verify: "Verify",
            remove: "Remove",
            remove_confirm: "Remove? Click again",
            use_model: "Use",
            size: "download",
            memory: "memory",
            partial: "partly downloaded",
            downloading: "Downloading",
            verifying: "Verifying",
            loading: "Checking that it loads",
            done_download: "Downloaded and in use:",
            cancelled: "Download cancelled:",
            failed: "Not done:",
            verified: "Verified:",
            removed: "Removed:",
            now_used: "Now dictating with",
            folder: "Models folder:",
        },
        UiLang::Pl => ModelsLabels {
            models: "Modele",
            installed: "zainstalowany",
            in_use: "w użyciu",
            suggested: "polecany",
            suggested_hint: "Polecany dla tego komputera",
            own_folder: "twój własny folder",
            download: "Pobierz",
            cancel: "Anuluj",
            verify: "Sprawdź",
            remove: "Usuń",
            remove_confirm: "Usunąć? Kliknij ponownie",
            use_model: "Użyj",
            size: "pobranie",
            memory: "pamięć",
            partial: "częściowo pobrany",
            downloading: "Pobieranie",
            verifying: "Sprawdzanie",
            loading: "Sprawdzanie, czy się wczytuje",
            done_download: "Pobrano i używany:",
            cancelled: "Pobieranie anulowane:",
            failed: "Nie udało się:",
            verified: "Sprawdzono:",
            removed: "Usunięto:",
            now_used: "Dyktowanie modelem",
            folder: "Folder modeli:",
        },
    }
}

/// A model's languages for the list: English only, or how many.
pub fn languages(lang: UiLang, english_only: bool, n_mels: usize) -> &'static str {
    match (lang, english_only, n_mels) {
        (UiLang::En, true, _) => "English only",
        (UiLang::Pl, true, _) => "tylko angielski",
        (UiLang::En, false, 128) => "100 languages",
        (UiLang::Pl, false, 128) => "100 języków",
        (UiLang::En, false, _) => "99 languages",
        (UiLang::Pl, false, _) => "99 języków",
    }
}

/// Why the page's request was not done, in the UI language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a model of the catalogue (download) or not installed (verify, remove, use).
    Unknown { model: String },
    /// The model dictations use cannot be removed.
    InUse { model: String },
    /// One download at a time (the page's, the menu's or the command line's).
    Busy { model: String },
    /// A check is running already.
    Checking { model: String },
    /// The file system or the download module said no (their own words).
    Other { detail: String },
}

impl Refusal {
    pub fn text(&self, lang: UiLang) -> String {
        match (self, lang) {
            (Refusal::Unknown { model }, UiLang::En) => format!("“{model}” is not installed."),
            (Refusal::Unknown { model }, UiLang::Pl) => {
                format!("„{model}” nie jest zainstalowany.")
            }
            (Refusal::InUse { model }, UiLang::En) => format!(
                "“{model}” is the model dictation uses: choose another one first, then remove it."
            ),
            (Refusal::InUse { model }, UiLang::Pl) => format!(
                "„{model}” jest modelem używanym do dyktowania: najpierw wybierz inny, potem go usuń."
            ),
            (Refusal::Busy { model }, UiLang::En) => {
                format!("“{model}” is downloading; one download at a time.")
            }
            (Refusal::Busy { model }, UiLang::Pl) => {
                format!("Trwa pobieranie „{model}”; naraz tylko jedno pobieranie.")
            }
            (Refusal::Checking { model }, UiLang::En) => {
                format!("“{model}” is being verified; wait for it to finish.")
            }
            (Refusal::Checking { model }, UiLang::Pl) => {
                format!("Trwa sprawdzanie „{model}”; poczekaj, aż się skończy.")
            }
            (Refusal::Other { detail }, _) => detail.clone(),
        }
    }
}

/// What a check of an installed model found, in the UI language: its files against the
/// manifest written when it was downloaded (when it has one), and whether it loads.
pub fn verification(
    lang: UiLang,
    files: Option<usize>,
    mismatches: &[String],
    load: Result<(), String>,
) -> String {
    let files = match (files, mismatches.is_empty(), lang) {
        (None, _, UiLang::En) => "no manifest (installed by the set-up or by hand)".to_string(),
        (None, _, UiLang::Pl) => "bez manifestu (zainstalowany przy instalacji lub ręcznie)".into(),
        (Some(n), true, UiLang::En) => format!("{n} files, sizes and SHA-256 as downloaded"),
        (Some(n), true, UiLang::Pl) => format!("{n} plików, rozmiary i SHA-256 jak po pobraniu"),
        (Some(_), false, UiLang::En) => format!("DIFFERENT: {}", mismatches.join("; ")),
        (Some(_), false, UiLang::Pl) => format!("INNE NIŻ POBRANE: {}", mismatches.join("; ")),
    };
    let load = match (load, lang) {
        (Ok(()), UiLang::En) => "loads".to_string(),
        (Ok(()), UiLang::Pl) => "wczytuje się".to_string(),
        (Err(e), UiLang::En) => format!("does NOT load: {e}"),
        (Err(e), UiLang::Pl) => format!("NIE wczytuje się: {e}"),
    };
    format!("{files}; {load}")
}

/// `window.MODELS_LABELS = {…};` (JSON; no text here holds U+2028/U+2029).
pub fn labels_script(lang: UiLang) -> String {
    let json = serde_json::to_string(&labels(lang)).unwrap_or_else(|_| "{}".into());
    format!("window.MODELS_LABELS = {json};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_fill_every_label() {
        for lang in [UiLang::En, UiLang::Pl] {
            let value = serde_json::to_value(labels(lang)).unwrap();
            for (name, text) in value.as_object().unwrap() {
                assert!(!text.as_str().unwrap().trim().is_empty(), "{lang:?} {name}");
            }
        }
        let script = labels_script(UiLang::Pl);
        let json = script
            .strip_prefix("window.MODELS_LABELS = ")
            .and_then(|s| s.strip_suffix(";\n"))
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(value["models"], "Modele");
    }

    #[test]
    fn refusals_and_checks_read_in_both_languages() {
        let in_use = Refusal::InUse {
            model: "base".into(),
        };
        assert!(in_use.text(UiLang::Pl).starts_with("„base” jest modelem"));
        assert!(in_use.text(UiLang::En).contains("choose another one first"));
        assert_eq!(
            verification(UiLang::En, Some(4), &[], Ok(())),
            "4 files, sizes and SHA-256 as downloaded; loads"
        );
        assert_eq!(
            verification(
                UiLang::Pl,
                Some(4),
                &["model.bin: 3 bytes, expected 4".into()],
                Err("bad".into())
            ),
            "INNE NIŻ POBRANE: model.bin: 3 bytes, expected 4; NIE wczytuje się: bad"
        );
        assert!(verification(UiLang::En, None, &[], Ok(())).starts_with("no manifest"));
        assert_eq!(languages(UiLang::Pl, false, 80), "99 języków");
        assert_eq!(languages(UiLang::En, true, 128), "English only");
    }
}
