//! The Settings page's words in Polish and English (and the window's navigation), handed to the
//! page with the History labels in `labels.js` as `window.SETTINGS_LABELS = {…}`. The choices
//! the tray menu also offers use the menu's own words ([`crate::app::texts::labels`], without
//! their `&` mnemonics), so the page and the menu say the same.

use crate::app::texts::{labels as menu_labels, main_languages, MORE_LANGUAGES};
use crate::i18n::UiLang;

/// The page's labels in one language.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SettingsLabels {
    /// The window's title on each page, and the navigation's buttons.
    pub history: &'static str,
    pub settings: &'static str,
    pub section_dictation: &'static str,
    pub section_words: &'static str,
    pub section_privacy: &'static str,
    pub section_recording: &'static str,
    pub hotkey: String,
    /// Under the hotkey field: how to write one.
    pub hotkey_hint: &'static str,
    pub hotkey_mode: String,
    pub mode_hold: String,
    pub mode_toggle: String,
    pub output: String,
    pub output_paste: String,
    pub output_type: String,
    pub output_copy: String,
    pub language: String,
    pub model: String,
    pub device: String,
    pub device_auto: String,
    pub encoder: &'static str,
    pub encoder_fast: String,
    pub encoder_exact: String,
    pub microphone: String,
    pub microphone_default: String,
    /// A chosen microphone that is not connected now.
    pub not_connected: &'static str,
    pub overlay: &'static str,
    pub overlay_position: &'static str,
    pub overlay_bottom: String,
    pub overlay_top: String,
    pub vocabulary: &'static str,
    pub vocabulary_hint: &'static str,
    pub new_word: &'static str,
    pub replacements: &'static str,
    pub replacements_hint: &'static str,
    pub said: &'static str,
    pub written: &'static str,
    pub add: &'static str,
    pub remove: &'static str,
    pub prompt: &'static str,
    pub prompt_hint: &'static str,
    pub spoken_commands: &'static str,
    pub remove_fillers: &'static str,
    pub keep_recordings: String,
    pub keep_history: String,
    pub history_text_days: &'static str,
    pub history_audio_days: &'static str,
    /// After the days fields.
    pub days_hint: &'static str,
    pub log_text: &'static str,
    pub keep_microphone_open: &'static str,
    pub pause_media: &'static str,
    pub pause_media_hint: &'static str,
    pub unload_model: &'static str,
    pub unload_model_hint: &'static str,
    pub unload_never: &'static str,
    /// "{n} min", for the unload choices.
    pub minutes: &'static str,
    pub max_recording_secs: &'static str,
    pub max_recording_hint: &'static str,
    /// A change was applied and written to settings.json.
    pub saved: &'static str,
    /// A change applies now but settings.json was not written (a notification said why).
    pub not_saved: &'static str,
}

/// A menu label without its mnemonic (`&&` is a literal `&`).
fn plain(label: &str) -> String {
    label
        .replace("&&", "\u{0}")
        .replace('&', "")
        .replace('\u{0}', "&")
}

pub fn labels(lang: UiLang) -> SettingsLabels {
    let m = menu_labels(lang);
    let common = |l: Common| SettingsLabels {
        history: l.history,
        settings: l.settings,
        section_dictation: l.section_dictation,
        section_words: l.section_words,
        section_privacy: l.section_privacy,
        section_recording: l.section_recording,
        hotkey: l.hotkey.into(),
        hotkey_hint: l.hotkey_hint,
        hotkey_mode: l.hotkey_mode.into(),
        mode_hold: plain(m.mode_hold),
        mode_toggle: plain(m.mode_toggle),
        output: plain(m.output),
        output_paste: plain(m.output_paste),
        output_type: plain(m.output_type),
        output_copy: plain(m.output_copy),
        language: plain(m.language),
        model: plain(m.model),
        device: plain(m.device),
        device_auto: plain(m.device_auto),
        encoder: l.encoder,
        encoder_fast: plain(m.encoder_fast),
        encoder_exact: plain(m.encoder_exact),
        microphone: plain(m.microphone),
        microphone_default: plain(m.microphone_default),
        not_connected: l.not_connected,
        overlay: l.overlay,
        overlay_position: l.overlay_position,
        overlay_bottom: plain(m.overlay_bottom),
        overlay_top: plain(m.overlay_top),
        vocabulary: l.vocabulary,
        vocabulary_hint: l.vocabulary_hint,
        new_word: l.new_word,
        replacements: l.replacements,
        replacements_hint: l.replacements_hint,
        said: l.said,
        written: l.written,
        add: l.add,
        remove: l.remove,
        prompt: l.prompt,
        prompt_hint: l.prompt_hint,
        spoken_commands: l.spoken_commands,
        remove_fillers: l.remove_fillers,
        keep_recordings: plain(m.keep_recordings),
        keep_history: plain(m.keep_history),
        history_text_days: l.history_text_days,
        history_audio_days: l.history_audio_days,
        days_hint: l.days_hint,
        log_text: l.log_text,
        keep_microphone_open: l.keep_microphone_open,
        pause_media: l.pause_media,
        pause_media_hint: l.pause_media_hint,
        unload_model: l.unload_model,
        unload_model_hint: l.unload_model_hint,
        unload_never: l.unload_never,
        minutes: l.minutes,
        max_recording_secs: l.max_recording_secs,
        max_recording_hint: l.max_recording_hint,
        saved: l.saved,
        not_saved: l.not_saved,
    };
    match lang {
        UiLang::En => common(Common {
            history: "History",
            settings: "Settings",
            section_dictation: "Dictation",
            section_words: "Words",
            section_privacy: "Privacy",
            section_recording: "Recording",
            hotkey: "Hotkey",
            hotkey_hint: "Keys joined with +, e.g. ctrl+alt+space, alt+space, f8. Applied when \
                          you leave the field or press Enter.",
            hotkey_mode: "Hotkey mode",
            encoder: "Encoding on the CPU",
            not_connected: "not connected",
            overlay: "Show the overlay while dictating",
            overlay_position: "Overlay position",
            vocabulary: "Vocabulary",
            vocabulary_hint: "Names and words to be written your way (given to Whisper, and \
                              near misses corrected).",
            new_word: "New word",
            replacements: "Replacements",
            replacements_hint: "A word or phrase said (any case) and what is written instead.",
            said: "Said",
            written: "Written",
            add: "Add",
            remove: "Remove",
            prompt: "Prompt",
            prompt_hint: "Text given to Whisper before each dictation: names, jargon, spelling.",
            spoken_commands: "Spoken commands (\"new line\", \"full stop\", …)",
            remove_fillers: "Remove fillers (\"um\", \"uh\", …)",
            history_text_days: "Keep the text of dictations for (days)",
            history_audio_days: "Keep their recordings for (days)",
            days_hint: "0 = for ever. Starred entries are always kept.",
            log_text: "Write dictated text into the log (for a bug report; off afterwards)",
            keep_microphone_open: "Keep the microphone open between dictations (for a \
                                   microphone slow to start, e.g. Bluetooth: the microphone \
                                   indicator then stays on, and waiting costs ~1 % of a core)",
            pause_media: "Pause music and videos while you speak",
            pause_media_hint: "Players are paused while the hotkey is held and resumed after; \
                               one you paused yourself stays paused. Linux: players that \
                               speak MPRIS (most, and browsers). macOS: the sound output is \
                               muted instead. Off by default: with headphones nothing reaches \
                               the microphone.",
            unload_model: "Free the model's memory when idle",
            unload_model_hint: "The next dictation loads it again while you speak.",
            unload_never: "Never",
            minutes: "{n} min",
            max_recording_secs: "Longest recording (seconds)",
            max_recording_hint: "5 to 3600. Ten seconds before the end a notice says so.",
            saved: "Saved",
            not_saved: "Applied, but settings.json could not be written (see the notification).",
        }),
        UiLang::Pl => common(Common {
            history: "Historia",
            settings: "Ustawienia",
            section_dictation: "Dyktowanie",
            section_words: "Słowa",
            section_privacy: "Prywatność",
            section_recording: "Nagrywanie",
            hotkey: "Skrót klawiszowy",
            hotkey_hint: "Klawisze połączone znakiem +, np. ctrl+alt+space, alt+space, f8. \
                          Stosowany po wyjściu z pola lub naciśnięciu Enter.",
            hotkey_mode: "Tryb skrótu",
            encoder: "Kodowanie na procesorze",
            not_connected: "niepodłączony",
            overlay: "Pokazuj nakładkę podczas dyktowania",
            overlay_position: "Położenie nakładki",
            vocabulary: "Słownictwo",
            vocabulary_hint: "Nazwy i słowa pisane po Twojemu (podawane Whisperowi, a bliskie \
                              pomyłki poprawiane).",
            new_word: "Nowe słowo",
            replacements: "Zamiany",
            replacements_hint: "Wypowiedziane słowo lub fraza (wielkość liter bez znaczenia) i \
                                to, co zostanie napisane zamiast niej.",
            said: "Mówione",
            written: "Pisane",
            add: "Dodaj",
            remove: "Usuń",
            prompt: "Podpowiedź (prompt)",
            prompt_hint: "Tekst podawany Whisperowi przed każdym dyktowaniem: nazwy, żargon, \
                          pisownia.",
            spoken_commands: "Polecenia głosowe („nowa linia”, „kropka”, …)",
            remove_fillers: "Usuwaj wtrącenia („yyy”, „eee”, …)",
            history_text_days: "Przechowuj tekst dyktowań przez (dni)",
            history_audio_days: "Przechowuj ich nagrania przez (dni)",
            days_hint: "0 = zawsze. Wpisy z gwiazdką są zawsze zachowywane.",
            log_text: "Zapisuj dyktowany tekst w logu (do zgłoszenia błędu; potem wyłącz)",
            keep_microphone_open: "Mikrofon otwarty między dyktowaniami (dla mikrofonu, który \
                                   wolno startuje, np. Bluetooth: wskaźnik mikrofonu świeci \
                                   wtedy stale, a czekanie kosztuje ~1 % rdzenia)",
            pause_media: "Wstrzymuj muzykę i filmy, gdy mówisz",
            pause_media_hint: "Odtwarzacze są wstrzymywane, gdy skrót jest wciśnięty, i \
                               wznawiane po nim; ten wstrzymany przez Ciebie zostaje \
                               wstrzymany. Linux: odtwarzacze obsługujące MPRIS (większość, \
                               także przeglądarki). macOS: zamiast tego wyciszany jest \
                               dźwięk. Domyślnie wyłączone: ze słuchawkami nic nie trafia do \
                               mikrofonu.",
            unload_model: "Zwalniaj pamięć modelu, gdy nieużywany",
            unload_model_hint: "Następne dyktowanie wczyta go ponownie, gdy mówisz.",
            unload_never: "Nigdy",
            minutes: "{n} min",
            max_recording_secs: "Najdłuższe nagranie (sekundy)",
            max_recording_hint: "Od 5 do 3600. Dziesięć sekund przed końcem pojawi się \
                                 powiadomienie.",
            saved: "Zapisano",
            not_saved: "Zastosowano, ale nie udało się zapisać settings.json (zob. powiadomienie).",
        }),
    }
}

/// The words of this page that the menu does not have.
struct Common {
    history: &'static str,
    settings: &'static str,
    section_dictation: &'static str,
    section_words: &'static str,
    section_privacy: &'static str,
    section_recording: &'static str,
    hotkey: &'static str,
    hotkey_hint: &'static str,
    hotkey_mode: &'static str,
    encoder: &'static str,
    not_connected: &'static str,
    overlay: &'static str,
    overlay_position: &'static str,
    vocabulary: &'static str,
    vocabulary_hint: &'static str,
    new_word: &'static str,
    replacements: &'static str,
    replacements_hint: &'static str,
    said: &'static str,
    written: &'static str,
    add: &'static str,
    remove: &'static str,
    prompt: &'static str,
    prompt_hint: &'static str,
    spoken_commands: &'static str,
    remove_fillers: &'static str,
    history_text_days: &'static str,
    history_audio_days: &'static str,
    days_hint: &'static str,
    log_text: &'static str,
    keep_microphone_open: &'static str,
    pause_media: &'static str,
    pause_media_hint: &'static str,
    unload_model: &'static str,
    unload_model_hint: &'static str,
    unload_never: &'static str,
    minutes: &'static str,
    max_recording_secs: &'static str,
    max_recording_hint: &'static str,
    saved: &'static str,
    not_saved: &'static str,
}

/// The languages the page offers, as (settings value, label): the menu's, in its order
/// (auto-detect, Polish or English, Polish, English, then "More").
pub fn languages(lang: UiLang) -> Vec<(String, String)> {
    let m = menu_labels(lang);
    let [(pl, pl_label), (en, en_label)] = main_languages(lang);
    let mut list = vec![
        ("auto".to_string(), plain(m.lang_auto)),
        ("auto:pl,en".to_string(), plain(m.lang_auto_pl_en)),
        (pl.to_string(), plain(pl_label)),
        (en.to_string(), plain(en_label)),
    ];
    list.extend(
        MORE_LANGUAGES
            .iter()
            .map(|(code, name)| (code.to_string(), name.to_string())),
    );
    list
}

/// `window.SETTINGS_LABELS = {…};` (JSON; no text here holds U+2028/U+2029).
pub fn labels_script(lang: UiLang) -> String {
    let json = serde_json::to_string(&labels(lang)).unwrap_or_else(|_| "{}".into());
    format!("window.SETTINGS_LABELS = {json};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_fill_every_label_without_mnemonics() {
        for lang in [UiLang::En, UiLang::Pl] {
            let value = serde_json::to_value(labels(lang)).unwrap();
            for (name, text) in value.as_object().unwrap() {
                let text = text.as_str().unwrap();
                assert!(!text.trim().is_empty(), "{lang:?} {name}");
                assert!(!text.contains('&'), "{lang:?} {name}: {text}");
            }
        }
        assert_eq!(labels(UiLang::Pl).settings, "Ustawienia");
        assert_eq!(labels(UiLang::En).output_copy, "Copy only");
        assert_eq!(plain("Tom && &Jerry"), "Tom & Jerry");
    }

    #[test]
    fn the_languages_are_the_menu_s_and_each_is_one_the_check_takes() {
        for lang in [UiLang::En, UiLang::Pl] {
            let list = languages(lang);
            assert_eq!(list[1].0, "auto:pl,en");
            assert!(list.len() > 4);
            for (value, _) in &list {
                let checked = super::super::form::check(
                    "language",
                    &serde_json::Value::from(value.as_str()),
                    &Default::default(),
                );
                assert!(checked.is_ok(), "{value}");
            }
        }
    }
}
