//! The words of the Settings page's "Modes per app" section in Polish and English, handed to
//! the page in `labels.js` as `window.MODES_LABELS = {…}` (`assets/ui/modes.js` reads them),
//! the names of the keystrokes a mode offers, and what is wrong with a mode
//! ([`mode_problem`], from `settings::modes::ModeProblem`), said next to it as it is typed.

use crate::i18n::UiLang;
use crate::platform::{PasteKeys, PressAfter};
use crate::settings::modes::{ModeProblem, MAX_APP_CHARS, MAX_NAME_CHARS};

/// The section's labels in one language.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModesLabels {
    pub section: &'static str,
    /// Under the section's title: what a mode is and which one applies.
    pub hint: &'static str,
    pub name: &'static str,
    pub apps: &'static str,
    /// The new-app field's placeholder (examples of what an app's name is on this OS).
    pub app_placeholder: &'static str,
    pub new_mode: &'static str,
    pub add_mode: &'static str,
    /// A choice left at the general setting.
    pub general: &'static str,
    pub on: &'static str,
    pub off: &'static str,
    pub paste_keys: &'static str,
    pub press_after: &'static str,
    pub join_previous: &'static str,
    pub vocabulary: &'static str,
    pub vocabulary_hint: &'static str,
    pub prompt_hint: &'static str,
    pub move_up: &'static str,
    pub builtin: &'static str,
    pub builtin_hint: &'static str,
    /// The built-in mode's button: an editable copy of it among the person's modes.
    pub change: &'static str,
    /// "+{n} more", after the first apps of a built-in mode.
    pub more_apps: &'static str,
    /// Marks the app that had the focus when the window opened, among the apps offered.
    pub current_app: &'static str,
}

pub fn labels(lang: UiLang) -> ModesLabels {
    match lang {
        UiLang::En => ModesLabels {
            section: "Modes per app",
            hint: "A dictation into one of a mode's apps uses the mode's choices; a choice left \
                   at \"As in general\" is the general setting. The first of your modes that \
                   names the app applies, then a built-in one. Changes apply from the next \
                   dictation.",
            name: "Name",
            apps: "Apps",
            app_placeholder: if crate::platform::IS_MACOS {
                "App, e.g. com.apple.Terminal or Slack"
            } else {
                "App, e.g. kitty, XTerm, Slack"
            },
            new_mode: "New mode",
            add_mode: "Add mode",
            general: "As in general",
            on: "On",
            off: "Off",
            paste_keys: "Paste with",
            press_after: "Then press",
            join_previous: "Continue the previous text with a space",
            vocabulary: "Vocabulary",
            vocabulary_hint: "Words separated by commas, in place of the general vocabulary; \
                              empty: the general one.",
            prompt_hint: "In place of the general prompt; empty: the general one.",
            move_up: "Move up",
            builtin: "Built in",
            builtin_hint: "Used where no mode of yours names the app. \"Change\" makes an \
                           editable copy among yours, which then applies instead.",
            change: "Change",
            more_apps: "+{n} more",
            current_app: "now in front",
        },
        UiLang::Pl => ModesLabels {
            section: "Tryby dla aplikacji",
            hint: "Dyktowanie do jednej z aplikacji trybu używa jego ustawień; ustawienie \
                   „Jak ogólnie” to ustawienie ogólne. Obowiązuje pierwszy z Twoich trybów, \
                   który wymienia aplikację, potem wbudowany. Zmiany działają od następnego \
                   dyktowania.",
            name: "Nazwa",
            apps: "Aplikacje",
            app_placeholder: if crate::platform::IS_MACOS {
                "Aplikacja, np. com.apple.Terminal lub Slack"
            } else {
                "Aplikacja, np. kitty, XTerm, Slack"
            },
            new_mode: "Nowy tryb",
            add_mode: "Dodaj tryb",
            general: "Jak ogólnie",
            on: "Włączone",
            off: "Wyłączone",
            paste_keys: "Wklejaj klawiszami",
            press_after: "Potem naciśnij",
            join_previous: "Dołączaj do poprzedniego tekstu ze spacją",
            vocabulary: "Słownictwo",
            vocabulary_hint: "Słowa rozdzielone przecinkami, zamiast ogólnego słownictwa; \
                              puste: ogólne.",
            prompt_hint: "Zamiast ogólnej podpowiedzi; puste: ogólna.",
            move_up: "W górę",
            builtin: "Wbudowane",
            builtin_hint: "Używane, gdy żaden z Twoich trybów nie wymienia aplikacji. „Zmień” \
                           tworzy edytowalną kopię wśród Twoich, która wtedy obowiązuje.",
            change: "Zmień",
            more_apps: "+{n} więcej",
            current_app: "teraz na wierzchu",
        },
    }
}

/// How a keystroke is written for people: `ctrl+shift+v` → "Ctrl+Shift+V", `cmd+v` → "⌘V",
/// `none` → `nothing`.
pub fn keys_label(name: &str, nothing: &str) -> String {
    if name == "none" {
        return nothing.to_string();
    }
    name.split('+')
        .map(|part| match part {
            "cmd" => "⌘".to_string(),
            "ctrl" => "Ctrl+".to_string(),
            "shift" => "Shift+".to_string(),
            "alt" => "Alt+".to_string(),
            other => {
                let mut chars = other.chars();
                chars
                    .next()
                    .map(|c| c.to_uppercase().chain(chars).collect())
                    .unwrap_or_default()
            }
        })
        .collect()
}

/// The paste keystrokes this OS has, as (settings value, label).
pub fn paste_keys(mac: bool) -> Vec<(String, String)> {
    PasteKeys::ALL
        .into_iter()
        .filter(|k| k.on(mac))
        .map(|k| (k.name().to_string(), keys_label(k.name(), "")))
        .collect()
}

/// The keys after the text this OS has, as (settings value, label); "none" first.
pub fn keys_after(mac: bool, lang: UiLang) -> Vec<(String, String)> {
    let nothing = match lang {
        UiLang::En => "Nothing",
        UiLang::Pl => "Nic",
    };
    PressAfter::ALL
        .into_iter()
        .filter(|k| k.on(mac))
        .map(|k| (k.name().to_string(), keys_label(k.name(), nothing)))
        .collect()
}

/// What is wrong with the mode at `place` (1 = the first) called `name` (may be empty), as
/// said next to it.
pub fn mode_problem(place: usize, name: &str, problem: &ModeProblem, lang: UiLang) -> String {
    let pl = lang == UiLang::Pl;
    let which = match (name.trim(), pl) {
        ("", true) => format!("Tryb {place}"),
        ("", false) => format!("Mode {place}"),
        (name, true) => format!("Tryb „{name}”"),
        (name, false) => format!("Mode \"{name}\""),
    };
    let what = match problem {
        ModeProblem::NoName if pl => "nadaj mu nazwę (pokazuje ją nakładka i historia).".into(),
        ModeProblem::NoName => "give it a name (the overlay and the history show it).".into(),
        ModeProblem::NameTooLong if pl => {
            format!("nazwa może mieć najwyżej {MAX_NAME_CHARS} znaków (pokazuje ją nakładka).")
        }
        ModeProblem::NameTooLong => {
            format!("the name may have {MAX_NAME_CHARS} characters at most (the overlay shows it).")
        }
        ModeProblem::SameName { name } if pl => {
            format!("inny tryb też nazywa się „{name}”; nadaj każdemu inną nazwę.")
        }
        ModeProblem::SameName { name } => {
            format!("another mode is called \"{name}\" too; give each its own name.")
        }
        ModeProblem::NoApps if pl => "podaj co najmniej jedną aplikację.".into(),
        ModeProblem::NoApps => "name at least one app.".into(),
        ModeProblem::AppTooLong { app } if pl => {
            format!("nazwa aplikacji „{app}…” jest za długa (najwyżej {MAX_APP_CHARS} znaków).")
        }
        ModeProblem::AppTooLong { app } => {
            format!("the app name \"{app}…\" is too long ({MAX_APP_CHARS} characters at most).")
        }
        ModeProblem::NotAnOutput { value } if pl => {
            format!("„{value}” to nie sposób wstawiania (paste, type lub copy).")
        }
        ModeProblem::NotAnOutput { value } => {
            format!("\"{value}\" is not an output (paste, type or copy).")
        }
        ModeProblem::NotPasteKeys { value } if pl => format!(
            "„{value}” to nie skrót wklejania w tym systemie ({}).",
            names(paste_keys(crate::platform::IS_MACOS))
        ),
        ModeProblem::NotPasteKeys { value } => format!(
            "\"{value}\" is not a paste keystroke on this system ({}).",
            names(paste_keys(crate::platform::IS_MACOS))
        ),
        ModeProblem::NotAKeyAfter { value } if pl => format!(
            "„{value}” to nie klawisz do naciśnięcia po tekście ({}).",
            names(keys_after(crate::platform::IS_MACOS, lang))
        ),
        ModeProblem::NotAKeyAfter { value } => format!(
            "\"{value}\" is not a key to press after the text ({}).",
            names(keys_after(crate::platform::IS_MACOS, lang))
        ),
        ModeProblem::UnknownLanguage { value } if pl => {
            format!("Whisper nie zna języka „{value}” (np. pl, en, auto).")
        }
        ModeProblem::UnknownLanguage { value } => {
            format!("Whisper does not know the language \"{value}\" (e.g. pl, en, auto).")
        }
        ModeProblem::PromptTooLong { chars, max } if pl => {
            format!("podpowiedź ma {chars} znaków, a może mieć najwyżej {max}.")
        }
        ModeProblem::PromptTooLong { chars, max } => {
            format!("the prompt has {chars} characters; {max} at most.")
        }
        ModeProblem::VocabularyTooLong {
            max_words,
            max_chars,
        } if pl => {
            format!("słownictwo może mieć najwyżej {max_words} słów po {max_chars} znaków.")
        }
        ModeProblem::VocabularyTooLong {
            max_words,
            max_chars,
        } => {
            format!("the vocabulary may have {max_words} words of {max_chars} characters at most.")
        }
    };
    format!("{which}: {what}")
}

/// The values of a choice list, for a message: "ctrl+v, ctrl+shift+v, shift+insert".
fn names(choices: Vec<(String, String)>) -> String {
    choices
        .into_iter()
        .map(|(value, _)| value)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `window.MODES_LABELS = {…};` (JSON; no text here holds U+2028/U+2029).
pub fn labels_script(lang: UiLang) -> String {
    let json = serde_json::to_string(&labels(lang)).unwrap_or_else(|_| "{}".into());
    format!("window.MODES_LABELS = {json};\n")
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
        assert!(labels_script(UiLang::Pl).starts_with("window.MODES_LABELS = {"));
    }

    #[test]
    fn keystrokes_are_written_as_people_write_them() {
        assert_eq!(keys_label("ctrl+shift+v", ""), "Ctrl+Shift+V");
        assert_eq!(keys_label("shift+insert", ""), "Shift+Insert");
        assert_eq!(keys_label("cmd+v", ""), "⌘V");
        assert_eq!(keys_label("cmd+enter", ""), "⌘Enter");
        assert_eq!(keys_label("none", "Nic"), "Nic");
        let linux: Vec<String> = paste_keys(false).into_iter().map(|(v, _)| v).collect();
        assert_eq!(linux, ["ctrl+v", "ctrl+shift+v", "shift+insert"]);
        assert_eq!(paste_keys(true), [("cmd+v".to_string(), "⌘V".to_string())]);
        let after = keys_after(false, UiLang::En);
        assert_eq!(after[0], ("none".to_string(), "Nothing".to_string()));
        assert!(!after.iter().any(|(v, _)| v == "cmd+enter"));
        assert!(keys_after(true, UiLang::Pl)
            .iter()
            .any(|(v, l)| v == "cmd+enter" && l == "⌘Enter"));
    }

    /// Every problem is said in both languages, naming the mode (or its place) and the value.
    #[test]
    fn every_problem_names_the_mode_and_the_value_in_both_languages() {
        let problems = [
            ModeProblem::NoName,
            ModeProblem::NameTooLong,
            ModeProblem::SameName {
                name: "Chat".into(),
            },
            ModeProblem::NoApps,
            ModeProblem::AppTooLong { app: "x".into() },
            ModeProblem::NotAnOutput {
                value: "print".into(),
            },
            ModeProblem::NotPasteKeys {
                value: "alt+v".into(),
            },
            ModeProblem::NotAKeyAfter {
                value: "tab".into(),
            },
            ModeProblem::UnknownLanguage {
                value: "klingon".into(),
            },
            ModeProblem::PromptTooLong {
                chars: 700,
                max: 600,
            },
            ModeProblem::VocabularyTooLong {
                max_words: 500,
                max_chars: 100,
            },
        ];
        for problem in &problems {
            let en = mode_problem(2, "Chat", problem, UiLang::En);
            let pl = mode_problem(2, "Chat", problem, UiLang::Pl);
            assert!(en.starts_with("Mode \"Chat\": "), "{en}");
            assert!(pl.starts_with("Tryb „Chat”: "), "{pl}");
            assert_ne!(en, pl);
            for value in ["print", "alt+v", "tab", "klingon", "700"] {
                let said = format!("{problem:?}").contains(value);
                assert_eq!(en.contains(value), said, "{en}");
                assert_eq!(pl.contains(value), said, "{pl}");
            }
        }
        assert_eq!(
            mode_problem(3, " ", &ModeProblem::NoName, UiLang::En),
            "Mode 3: give it a name (the overlay and the history show it)."
        );
        assert!(mode_problem(1, "", &ModeProblem::NoApps, UiLang::Pl).starts_with("Tryb 1: "));
        assert!(mode_problem(
            1,
            "T",
            &ModeProblem::NotPasteKeys {
                value: "alt+v".into()
            },
            UiLang::En
        )
        .contains("ctrl+shift+v"));
    }
}
