//! The History window's words in Polish and English, handed to its page as `labels.js`
//! (`window.LABELS = {…}`), so the page's text follows the app's UI language like the menu.

use crate::i18n::UiLang;

/// The page's labels in one language.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct WindowLabels {
    /// The `lang` of the page (dates are formatted in it).
    pub lang: &'static str,
    pub title: &'static str,
    pub search: &'static str,
    /// The list when the history is empty.
    pub empty: &'static str,
    /// The list when a search finds nothing.
    pub no_match: &'static str,
    pub copy: &'static str,
    pub copied: &'static str,
    pub star: &'static str,
    pub unstar: &'static str,
    pub delete: &'static str,
    /// The delete button armed, waiting for the confirming click.
    pub delete_confirm: &'static str,
    pub deleted: &'static str,
    /// The entry is gone (deleted elsewhere meanwhile).
    pub missing: &'static str,
    /// Key-up → pasted, shown with its milliseconds.
    pub key_up_to_pasted: &'static str,
    /// Followed by the reason (names the database file).
    pub failed: &'static str,
    /// "N entries" / "1 entry": the words around the count.
    pub entries_one: &'static str,
    pub entries_many: &'static str,
    pub play: &'static str,
    pub stop: &'static str,
    /// The entry's recording is not kept any more.
    pub no_audio: &'static str,
    /// The button, and the models list's label before it.
    pub retranscribe: &'static str,
    pub retranscribe_with: &'static str,
    pub retranscribing: &'static str,
    /// Before a re-transcription's model name and words.
    pub retranscribed: &'static str,
    /// Before Whisper's own text, when the wording changed it.
    pub heard: &'static str,
    pub export_csv: &'static str,
    pub export_json: &'static str,
    /// Followed by the file's path.
    pub exported: &'static str,
}

pub fn labels(lang: UiLang) -> WindowLabels {
    match lang {
        UiLang::En => WindowLabels {
            lang: "en",
            title: "History",
            search: "Search your dictations…",
            empty: "Nothing dictated yet.",
            no_match: "Nothing found.",
            copy: "Copy",
            copied: "Copied",
            star: "Star",
            unstar: "Unstar",
            delete: "Delete",
            delete_confirm: "Click again to delete",
            deleted: "Deleted",
            missing: "This entry is gone.",
            key_up_to_pasted: "key-up → pasted",
            failed: "The history could not be read:",
            entries_one: "entry",
            entries_many: "entries",
            play: "Play",
            stop: "Stop",
            no_audio: "Its recording is no longer kept.",
            retranscribe: "Transcribe again",
            retranscribe_with: "Model for “Transcribe again”:",
            retranscribing: "Transcribing again…",
            retranscribed: "Again with",
            heard: "Whisper heard:",
            export_csv: "Export CSV",
            export_json: "Export JSON",
            exported: "Saved to",
        },
        UiLang::Pl => WindowLabels {
            lang: "pl",
            title: "Historia",
            search: "Szukaj w dyktowaniach…",
            empty: "Jeszcze nic nie podyktowano.",
            no_match: "Nic nie znaleziono.",
            copy: "Kopiuj",
            copied: "Skopiowano",
            star: "Oznacz gwiazdką",
            unstar: "Usuń gwiazdkę",
            delete: "Usuń",
            delete_confirm: "Kliknij ponownie, aby usunąć",
            deleted: "Usunięto",
            missing: "Tego wpisu już nie ma.",
            key_up_to_pasted: "puszczenie klawisza → wklejenie",
            failed: "Nie można odczytać historii:",
            entries_one: "wpis",
            entries_many: "wpisów",
            play: "Odtwórz",
            stop: "Zatrzymaj",
            no_audio: "Nagranie nie jest już przechowywane.",
            retranscribe: "Rozpoznaj ponownie",
            retranscribe_with: "Model do „Rozpoznaj ponownie”:",
            retranscribing: "Rozpoznaję ponownie…",
            retranscribed: "Ponownie modelem",
            heard: "Whisper usłyszał:",
            export_csv: "Eksportuj CSV",
            export_json: "Eksportuj JSON",
            exported: "Zapisano w",
        },
    }
}

/// `labels.js`: `window.LABELS = {…};` (JSON is a JavaScript expression; no text here holds
/// U+2028/U+2029).
pub fn labels_script(lang: UiLang) -> String {
    let json = serde_json::to_string(&labels(lang)).unwrap_or_else(|_| "{}".into());
    format!("window.LABELS = {json};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_fill_every_label() {
        for lang in [UiLang::En, UiLang::Pl] {
            let value = serde_json::to_value(labels(lang)).unwrap();
            let fields = value.as_object().unwrap();
            assert_eq!(fields.len(), 28);
            for (name, text) in fields {
                assert!(!text.as_str().unwrap().trim().is_empty(), "{lang:?} {name}");
            }
        }
        assert_ne!(labels(UiLang::En).title, labels(UiLang::Pl).title);
    }

    #[test]
    fn the_labels_script_is_one_assignment_of_json() {
        let script = labels_script(UiLang::Pl);
        let json = script
            .strip_prefix("window.LABELS = ")
            .and_then(|s| s.strip_suffix(";\n"))
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(value["title"], "Historia");
    }
}
