//! The Settings page's form: the values it shows ([`FormValues`], from the app's settings), what
//! its choices offer ([`FormChoices`]), and the check of one field as the person types it
//! ([`check`]): a valid value becomes a [`Change`] the app applies (`settings_side.rs`), an
//! invalid one a [`Problem`] said next to the field in the UI language. The checks accept what
//! the app itself accepts where it reads the settings (the hotkey as `global-hotkey` parses
//! it, the mode, output, overlay place and device by their own parsers, languages by Whisper's
//! table); pure, so every rule is tested without a window.

use crate::app::overlay::Position;
use crate::app::state::HotkeyMode;
use crate::device::DeviceKind;
use crate::i18n::UiLang;
use crate::inject::OutputMode;
use crate::settings::modes::{problems_of, AppMode, Limits, ModeProblem};
use crate::settings::Settings;
use crate::whisper::tokenizer::lookup_language;
use global_hotkey::hotkey::HotKey;
use serde_json::Value;
use std::collections::BTreeMap;
use std::str::FromStr;

/// The longest vocabulary word or replacement phrase (characters): a name or a phrase, not a
/// paragraph.
pub const MAX_PHRASE_CHARS: usize = 100;
/// The longest prompt (characters). Whisper keeps at most 223 tokens of its prompt, the
/// person's own prompt first, then the vocabulary; 600 characters is about 150–200 tokens.
pub const MAX_PROMPT_CHARS: usize = 600;
/// The most vocabulary words and replacements (a list, not a dictionary).
pub const MAX_ENTRIES: usize = 500;
/// The most days a history retention may say (100 years; 0 is for ever).
pub const MAX_DAYS: u32 = 36_500;
/// The shortest and longest recording the `max_recording_secs` setting may allow (seconds), as
/// the app clamps it where it reads the settings.
pub const RECORDING_SECS: std::ops::RangeInclusive<u32> = 5..=3600;
/// The most per-app modes the page takes (a rule per app someone dictates into, not a database).
pub const MAX_MODES: usize = 100;
/// A mode's prompt and vocabulary keep to the general ones' limits.
pub const MODE_LIMITS: Limits = Limits {
    prompt_chars: MAX_PROMPT_CHARS,
    phrase_chars: MAX_PHRASE_CHARS,
    entries: MAX_ENTRIES,
};

/// One valid change of one setting, ready to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Hotkey(String),
    HotkeyMode(HotkeyMode),
    Output(OutputMode),
    /// `auto`, `auto:pl,en` or a language code (the settings' form).
    Language(String),
    Model(String),
    /// `auto`, `cpu`, `cuda` or `mps`.
    Device(String),
    /// `fast` or `exact`.
    Encoder(String),
    /// A microphone's name; empty = the system default.
    Microphone(String),
    Overlay(bool),
    OverlayPosition(Position),
    KeepRecordings(bool),
    KeepHistory(bool),
    Vocabulary(Vec<String>),
    Replacements(BTreeMap<String, String>),
    Prompt(String),
    SpokenCommands(bool),
    RemoveFillers(bool),
    HistoryTextDays(u32),
    HistoryAudioDays(u32),
    /// The longest recording, in seconds ([`RECORDING_SECS`]).
    MaxRecordingSecs(u32),
    /// Keep the microphone open between dictations (the pre-roll before the hotkey).
    KeepMicrophoneOpen(bool),
    /// Pause media players while the hotkey is held (quiet while you speak).
    PauseMedia(bool),
    /// Seconds without a dictation before the model leaves memory (0: never).
    UnloadModelAfterSecs(u64),
    /// Write dictated text into the log (for a bug report).
    LogText(bool),
    /// The person's per-app modes, in their order (first match wins), tidied ([`check`]).
    Modes(Vec<AppMode>),
}

impl Change {
    /// The settings key (the field of settings.json) this change sets.
    pub fn key(&self) -> &'static str {
        match self {
            Change::Hotkey(_) => "hotkey",
            Change::HotkeyMode(_) => "hotkey_mode",
            Change::Output(_) => "output",
            Change::Language(_) => "language",
            Change::Model(_) => "model",
            Change::Device(_) => "device",
            Change::Encoder(_) => "encoder",
            Change::Microphone(_) => "input_device",
            Change::Overlay(_) => "overlay",
            Change::OverlayPosition(_) => "overlay_position",
            Change::KeepRecordings(_) => "keep_delivered_recordings",
            Change::KeepHistory(_) => "keep_history",
            Change::Vocabulary(_) => "vocabulary",
            Change::Replacements(_) => "replacements",
            Change::Prompt(_) => "prompt",
            Change::SpokenCommands(_) => "spoken_commands",
            Change::RemoveFillers(_) => "remove_fillers",
            Change::HistoryTextDays(_) => "history_text_days",
            Change::HistoryAudioDays(_) => "history_audio_days",
            Change::MaxRecordingSecs(_) => "max_recording_secs",
            Change::KeepMicrophoneOpen(_) => "keep_microphone_open",
            Change::PauseMedia(_) => "pause_media",
            Change::UnloadModelAfterSecs(_) => "unload_model_after_secs",
            Change::LogText(_) => "log_text",
            Change::Modes(_) => "modes",
        }
    }
}

/// Why a value is not taken. Said next to its field ([`Problem::text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The page sent a key the form does not have.
    UnknownSetting,
    /// A switch got something else than on/off, a list something else than a list, …
    WrongType,
    /// `global-hotkey` does not read it (its words, in English).
    NotAHotkey {
        detail: String,
    },
    /// The system refused to register the hotkey (another app has it); the old one stays.
    HotkeyUnavailable {
        detail: String,
    },
    /// A choice that is not one of the list's (hotkey mode, output, overlay place, encoder).
    NotAChoice,
    UnknownLanguage {
        language: String,
    },
    /// `auto:` with no language after it.
    NoLanguages,
    ModelNotInstalled {
        model: String,
    },
    DeviceUnavailable {
        device: String,
    },
    EmptyWord,
    DuplicateWord {
        word: String,
    },
    TooLong {
        max: usize,
    },
    TooMany {
        max: usize,
    },
    /// A replacement with nothing to replace.
    EmptyPhrase,
    DuplicatePhrase {
        phrase: String,
    },
    NotANumber,
    OutOfRange {
        max: u32,
    },
    /// A recording length that is not a whole number of seconds in [`RECORDING_SECS`].
    SecondsOutOfRange,
    /// What is wrong with the per-app mode at `place` (1 = the first) called `name`.
    Mode {
        place: usize,
        name: String,
        problem: ModeProblem,
    },
}

impl Problem {
    /// The sentence shown next to the field.
    pub fn text(&self, lang: UiLang) -> String {
        let pl = lang == UiLang::Pl;
        match self {
            Problem::UnknownSetting if pl => "Tego ustawienia nie ma.".into(),
            Problem::UnknownSetting => "There is no such setting.".into(),
            Problem::WrongType if pl => "Ta wartość nie pasuje do tego pola.".into(),
            Problem::WrongType => "This value does not fit this field.".into(),
            Problem::NotAHotkey { detail } if pl => format!(
                "To nie jest skrót klawiszowy (np. ctrl+alt+space, alt+space, f8): {detail}"
            ),
            Problem::NotAHotkey { detail } => {
                format!("Not a key combination (e.g. ctrl+alt+space, alt+space, f8): {detail}")
            }
            Problem::HotkeyUnavailable { detail } if pl => format!(
                "System nie pozwolił użyć tego skrótu (może ma go inna aplikacja); działa \
                 poprzedni. {detail}"
            ),
            Problem::HotkeyUnavailable { detail } => format!(
                "The system refused this shortcut (another app may use it); the previous one \
                 stays. {detail}"
            ),
            Problem::NotAChoice if pl => "Tej możliwości nie ma na liście.".into(),
            Problem::NotAChoice => "That is not one of the choices.".into(),
            Problem::UnknownLanguage { language } if pl => {
                format!("Whisper nie zna języka „{language}” (np. pl, en, de).")
            }
            Problem::UnknownLanguage { language } => {
                format!("Whisper does not know the language \"{language}\" (e.g. pl, en, de).")
            }
            Problem::NoLanguages if pl => "Po „auto:” podaj języki, np. auto:pl,en.".into(),
            Problem::NoLanguages => "Name the languages after \"auto:\", e.g. auto:pl,en.".into(),
            Problem::ModelNotInstalled { model } if pl => {
                format!("Model „{model}” nie jest zainstalowany.")
            }
            Problem::ModelNotInstalled { model } => {
                format!("The model \"{model}\" is not installed.")
            }
            Problem::DeviceUnavailable { device } if pl => {
                format!("Tego urządzenia ({device}) nie ma w tym komputerze.")
            }
            Problem::DeviceUnavailable { device } => {
                format!("This computer has no {device}.")
            }
            Problem::EmptyWord if pl => "Wpisz słowo.".into(),
            Problem::EmptyWord => "Type a word.".into(),
            Problem::DuplicateWord { word } if pl => format!("„{word}” już jest na liście."),
            Problem::DuplicateWord { word } => format!("\"{word}\" is on the list already."),
            Problem::TooLong { max } if pl => format!("Za długie: najwyżej {max} znaków."),
            Problem::TooLong { max } => format!("Too long: {max} characters at most."),
            Problem::TooMany { max } if pl => format!("Za dużo pozycji: najwyżej {max}."),
            Problem::TooMany { max } => format!("Too many entries: {max} at most."),
            Problem::EmptyPhrase if pl => "Wpisz, co ma być zamieniane.".into(),
            Problem::EmptyPhrase => "Type what is to be replaced.".into(),
            Problem::DuplicatePhrase { phrase } if pl => {
                format!("Zamiana „{phrase}” już jest na liście.")
            }
            Problem::DuplicatePhrase { phrase } => {
                format!("\"{phrase}\" is replaced already.")
            }
            Problem::NotANumber if pl => "Wpisz liczbę dni (0 = zawsze).".into(),
            Problem::NotANumber => "Type a number of days (0 = for ever).".into(),
            Problem::OutOfRange { max } if pl => format!("Od 0 do {max} dni (0 = zawsze)."),
            Problem::OutOfRange { max } => format!("From 0 to {max} days (0 = for ever)."),
            Problem::SecondsOutOfRange if pl => format!(
                "Wpisz liczbę sekund od {} do {}.",
                RECORDING_SECS.start(),
                RECORDING_SECS.end()
            ),
            Problem::SecondsOutOfRange => format!(
                "Type a number of seconds from {} to {}.",
                RECORDING_SECS.start(),
                RECORDING_SECS.end()
            ),
            Problem::Mode {
                place,
                name,
                problem,
            } => super::modes_texts::mode_problem(*place, name, problem, lang),
        }
    }
}

/// What the form's lists offer (taken when the window opens).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FormChoices {
    /// Installed models.
    pub models: Vec<String>,
    /// Microphones the system lists (the system default is the empty name).
    pub microphones: Vec<String>,
    /// Devices this machine has: `cpu`, and `cuda` / `mps` where present.
    pub devices: Vec<String>,
    /// Languages to pick, as (settings value, label): auto, auto Polish or English, Polish,
    /// English, then the menu's "More".
    pub languages: Vec<(String, String)>,
    /// The hotkeys the menu offers (`global-hotkey` form).
    pub hotkeys: Vec<String>,
    /// Apps a mode may name: the one that had the focus when the window opened, then those the
    /// history has seen (newest first), each once.
    pub apps: Vec<String>,
    /// The names of the app that had the focus when the window opened (also first in `apps`).
    pub in_front: Vec<String>,
    /// The built-in modes of this OS (shown below the person's, each one overridable).
    pub builtin_modes: Vec<AppMode>,
    /// The paste keystrokes this OS has, as (settings value, label): `ctrl+shift+v`,
    /// "Ctrl+Shift+V".
    pub paste_keys: Vec<(String, String)>,
    /// The keys a mode may press after the text, as (settings value, label), `none` first.
    pub keys_after: Vec<(String, String)>,
    /// Said under the hotkey on Wayland: the desktop's own shortcut, or how to bind one
    /// (`app::desktop_session`); `None` elsewhere.
    pub hotkey_note: Option<String>,
}

impl FormChoices {
    /// Adds `apps` to the apps offered, after those there and each once (any case).
    pub fn offer_apps(&mut self, apps: impl IntoIterator<Item = String>) {
        for app in apps {
            let app = app.trim();
            if !app.is_empty() && !self.apps.iter().any(|a| a.eq_ignore_ascii_case(app)) {
                self.apps.push(app.to_string());
            }
        }
    }
}

/// The values the form shows, as the page edits them (replacements as pairs, in order).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FormValues {
    pub hotkey: String,
    pub hotkey_mode: String,
    pub output: String,
    pub language: String,
    pub model: String,
    pub device: String,
    pub encoder: String,
    pub input_device: String,
    pub overlay: bool,
    pub overlay_position: String,
    pub keep_delivered_recordings: bool,
    pub keep_history: bool,
    pub vocabulary: Vec<String>,
    pub replacements: Vec<(String, String)>,
    pub prompt: String,
    pub spoken_commands: bool,
    pub remove_fillers: bool,
    pub history_text_days: u32,
    pub history_audio_days: u32,
    pub max_recording_secs: u32,
    pub keep_microphone_open: bool,
    pub pause_media: bool,
    /// Seconds as text, as the page's choice list holds them.
    pub unload_model_after_secs: String,
    pub log_text: bool,
    /// The person's per-app modes, as settings.json has them.
    pub modes: Vec<AppMode>,
}

impl FormValues {
    pub fn of(settings: &Settings) -> FormValues {
        FormValues {
            hotkey: settings.hotkey.clone(),
            hotkey_mode: HotkeyMode::parse(&settings.hotkey_mode)
                .unwrap_or(HotkeyMode::Hold)
                .name()
                .into(),
            output: OutputMode::parse(&settings.output)
                .unwrap_or(OutputMode::Paste)
                .name()
                .into(),
            language: settings.language.clone(),
            model: settings.model.clone(),
            device: settings.device.clone(),
            encoder: match crate::app::worker::padding_from(&settings.encoder) {
                crate::whisper::PaddingEncoding::Full => "exact".into(),
                crate::whisper::PaddingEncoding::Primed => "fast".into(),
            },
            input_device: settings.input_device.clone(),
            overlay: settings.overlay,
            overlay_position: Position::parse(&settings.overlay_position)
                .unwrap_or(Position::Bottom)
                .name()
                .into(),
            keep_delivered_recordings: settings.keep_delivered_recordings,
            keep_history: settings.keep_history,
            vocabulary: settings.vocabulary.clone(),
            replacements: settings
                .replacements
                .iter()
                .map(|(said, written)| (said.clone(), written.clone()))
                .collect(),
            prompt: settings.prompt.clone(),
            spoken_commands: settings.spoken_commands,
            remove_fillers: settings.remove_fillers,
            history_text_days: settings.history_text_days,
            history_audio_days: settings.history_audio_days,
            // As the app uses it (it clamps what the file says).
            max_recording_secs: settings
                .max_recording_secs
                .clamp(*RECORDING_SECS.start(), *RECORDING_SECS.end()),
            keep_microphone_open: settings.keep_microphone_open,
            pause_media: settings.pause_media,
            unload_model_after_secs: settings.unload_model_after_secs.to_string(),
            log_text: settings.log_text,
            modes: settings.modes.clone(),
        }
    }
}

/// Checks `value`, as the page sends it, for the setting `key` against what `choices` offer.
pub fn check(key: &str, value: &Value, choices: &FormChoices) -> Result<Change, Problem> {
    match key {
        "hotkey" => hotkey(string(value)?).map(Change::Hotkey),
        "hotkey_mode" => HotkeyMode::parse(string(value)?)
            .map(Change::HotkeyMode)
            .ok_or(Problem::NotAChoice),
        "output" => OutputMode::parse(string(value)?)
            .map(Change::Output)
            .ok_or(Problem::NotAChoice),
        "language" => language(string(value)?).map(Change::Language),
        "model" => {
            let model = string(value)?.trim();
            if choices.models.iter().any(|m| m == model) {
                Ok(Change::Model(model.to_string()))
            } else {
                Err(Problem::ModelNotInstalled {
                    model: model.to_string(),
                })
            }
        }
        "device" => device(string(value)?, &choices.devices).map(Change::Device),
        "encoder" => match string(value)?.trim() {
            choice @ ("fast" | "exact") => Ok(Change::Encoder(choice.to_string())),
            _ => Err(Problem::NotAChoice),
        },
        // Any name: one not connected now is kept, as the menu keeps it.
        "input_device" => Ok(Change::Microphone(string(value)?.to_string())),
        "overlay" => boolean(value).map(Change::Overlay),
        "overlay_position" => Position::parse(string(value)?)
            .map(Change::OverlayPosition)
            .ok_or(Problem::NotAChoice),
        "keep_delivered_recordings" => boolean(value).map(Change::KeepRecordings),
        "keep_history" => boolean(value).map(Change::KeepHistory),
        "vocabulary" => vocabulary(value).map(Change::Vocabulary),
        "replacements" => replacements(value).map(Change::Replacements),
        "prompt" => {
            let prompt = string(value)?;
            if prompt.chars().count() > MAX_PROMPT_CHARS {
                return Err(Problem::TooLong {
                    max: MAX_PROMPT_CHARS,
                });
            }
            Ok(Change::Prompt(prompt.to_string()))
        }
        "spoken_commands" => boolean(value).map(Change::SpokenCommands),
        "remove_fillers" => boolean(value).map(Change::RemoveFillers),
        "history_text_days" => days(value).map(Change::HistoryTextDays),
        "history_audio_days" => days(value).map(Change::HistoryAudioDays),
        "max_recording_secs" => recording_secs(value).map(Change::MaxRecordingSecs),
        "keep_microphone_open" => boolean(value).map(Change::KeepMicrophoneOpen),
        "pause_media" => boolean(value).map(Change::PauseMedia),
        "unload_model_after_secs" => unload_secs(value).map(Change::UnloadModelAfterSecs),
        "log_text" => boolean(value).map(Change::LogText),
        "modes" => modes(value, crate::platform::IS_MACOS).map(Change::Modes),
        _ => Err(Problem::UnknownSetting),
    }
}

fn string(value: &Value) -> Result<&str, Problem> {
    value.as_str().ok_or(Problem::WrongType)
}

fn boolean(value: &Value) -> Result<bool, Problem> {
    value.as_bool().ok_or(Problem::WrongType)
}

/// As the app registers it (`HotKey::from_str`), written in lowercase without spaces.
fn hotkey(text: &str) -> Result<String, Problem> {
    let text: String = text.split_whitespace().collect::<String>().to_lowercase();
    match HotKey::from_str(&text) {
        Ok(_) => Ok(text),
        Err(e) => Err(Problem::NotAHotkey {
            detail: e.to_string(),
        }),
    }
}

/// `auto`, `auto:<codes>` or one language, each known to Whisper (codes or English names, as
/// `worker::parse_language` reads them), written back as codes.
fn language(text: &str) -> Result<String, Problem> {
    let text = text.trim();
    let known = |language: &str| {
        lookup_language(language).ok_or_else(|| Problem::UnknownLanguage {
            language: language.to_string(),
        })
    };
    if text.eq_ignore_ascii_case("auto") {
        return Ok("auto".into());
    }
    if let Some(list) = text.strip_prefix("auto:") {
        let mut codes: Vec<&str> = Vec::new();
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let code = known(part)?;
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        if codes.is_empty() {
            return Err(Problem::NoLanguages);
        }
        return Ok(format!("auto:{}", codes.join(",")));
    }
    if text.is_empty() {
        return Err(Problem::UnknownLanguage {
            language: String::new(),
        });
    }
    known(text).map(str::to_string)
}

/// `auto` or a device this machine has (`DeviceKind::parse`'s names).
fn device(text: &str, available: &[String]) -> Result<String, Problem> {
    if text.trim().eq_ignore_ascii_case("auto") {
        return Ok("auto".into());
    }
    let kind = DeviceKind::parse(text).ok_or(Problem::NotAChoice)?;
    if available.iter().any(|d| d == kind.name()) {
        Ok(kind.name().to_string())
    } else {
        Err(Problem::DeviceUnavailable {
            device: kind.name().to_uppercase(),
        })
    }
}

/// One word or phrase: trimmed, not empty, not too long.
fn phrase(text: &str, empty: Problem) -> Result<String, Problem> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(empty);
    }
    if text.chars().count() > MAX_PHRASE_CHARS {
        return Err(Problem::TooLong {
            max: MAX_PHRASE_CHARS,
        });
    }
    Ok(text)
}

/// A list of words, each once (whatever its case: the vocabulary matches any case).
fn vocabulary(value: &Value) -> Result<Vec<String>, Problem> {
    let items = value.as_array().ok_or(Problem::WrongType)?;
    if items.len() > MAX_ENTRIES {
        return Err(Problem::TooMany { max: MAX_ENTRIES });
    }
    let mut words: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let word = phrase(item.as_str().ok_or(Problem::WrongType)?, Problem::EmptyWord)?;
        if words
            .iter()
            .any(|w| w.to_lowercase() == word.to_lowercase())
        {
            return Err(Problem::DuplicateWord { word });
        }
        words.push(word);
    }
    Ok(words)
}

/// Pairs `[said, written]`: each said phrase once (any case: replacements match any case); what
/// is written may be empty (the phrase is taken out).
fn replacements(value: &Value) -> Result<BTreeMap<String, String>, Problem> {
    let items = value.as_array().ok_or(Problem::WrongType)?;
    if items.len() > MAX_ENTRIES {
        return Err(Problem::TooMany { max: MAX_ENTRIES });
    }
    let mut pairs = BTreeMap::new();
    let mut seen: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let [said, written] = item.as_array().map(Vec::as_slice).unwrap_or(&[]) else {
            return Err(Problem::WrongType);
        };
        let said = phrase(
            said.as_str().ok_or(Problem::WrongType)?,
            Problem::EmptyPhrase,
        )?;
        let written = written.as_str().ok_or(Problem::WrongType)?.trim();
        if written.chars().count() > MAX_PHRASE_CHARS {
            return Err(Problem::TooLong {
                max: MAX_PHRASE_CHARS,
            });
        }
        if seen.contains(&said.to_lowercase()) {
            return Err(Problem::DuplicatePhrase { phrase: said });
        }
        seen.push(said.to_lowercase());
        pairs.insert(said, written.to_string());
    }
    Ok(pairs)
}

/// Whole days, 0 (for ever) to [`MAX_DAYS`]; the page's number field may send a string.
fn days(value: &Value) -> Result<u32, Problem> {
    let number = match value {
        Value::Number(n) if n.as_i64().is_some_and(|n| n < 0) => {
            return Err(Problem::OutOfRange { max: MAX_DAYS })
        }
        Value::Number(n) => n.as_u64().ok_or(Problem::NotANumber)?,
        Value::String(s) if s.trim().is_empty() => return Err(Problem::NotANumber),
        Value::String(s) => match s.trim().parse::<i64>() {
            Ok(n) if n < 0 => return Err(Problem::OutOfRange { max: MAX_DAYS }),
            Ok(n) => n as u64,
            Err(_) => return Err(Problem::NotANumber),
        },
        _ => return Err(Problem::WrongType),
    };
    u32::try_from(number)
        .ok()
        .filter(|&n| n <= MAX_DAYS)
        .ok_or(Problem::OutOfRange { max: MAX_DAYS })
}

/// Whole seconds within [`RECORDING_SECS`]; the page's number field may send a string.
fn recording_secs(value: &Value) -> Result<u32, Problem> {
    let number = match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => return Err(Problem::WrongType),
    };
    number
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| RECORDING_SECS.contains(n))
        .ok_or(Problem::SecondsOutOfRange)
}

/// Seconds before an idle model leaves memory: 0 (never) up to a day, as a number or text.
fn unload_secs(value: &Value) -> Result<u64, Problem> {
    let number = match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => return Err(Problem::WrongType),
    };
    number
        .filter(|n| *n <= UNLOAD_SECS_MAX)
        .ok_or(Problem::SecondsOutOfRange)
}

/// The per-app modes as the page sends them (settings.json's form), tidied ([`tidy_mode`]);
/// the first problem of the first rule that has one ([`problems_of`]) is the answer.
fn modes(value: &Value, mac: bool) -> Result<Vec<AppMode>, Problem> {
    let rules: Vec<AppMode> =
        serde_json::from_value(value.clone()).map_err(|_| Problem::WrongType)?;
    if rules.len() > MAX_MODES {
        return Err(Problem::TooMany { max: MAX_MODES });
    }
    let rules: Vec<AppMode> = rules.into_iter().map(tidy_mode).collect();
    if let Some((i, problem)) = problems_of(&rules, mac, MODE_LIMITS).into_iter().next() {
        return Err(Problem::Mode {
            place: i + 1,
            name: rules[i].name.clone(),
            problem,
        });
    }
    Ok(rules)
}

/// A rule as it is kept: its name and apps trimmed, apps each once (any case), a choice left
/// empty is "as the general setting" (absent), vocabulary words trimmed and the empty ones
/// dropped. The prompt is kept as typed (an empty one is "no prompt here"; the page leaves it
/// out for the general prompt).
fn tidy_mode(mut rule: AppMode) -> AppMode {
    rule.name = rule.name.trim().to_string();
    let mut apps: Vec<String> = Vec::with_capacity(rule.apps.len());
    for app in rule.apps.iter().map(|a| a.trim()) {
        if !app.is_empty() && !apps.iter().any(|a| a.eq_ignore_ascii_case(app)) {
            apps.push(app.to_string());
        }
    }
    rule.apps = apps;
    for choice in [
        &mut rule.output,
        &mut rule.paste_keys,
        &mut rule.press_after,
        &mut rule.language,
    ] {
        *choice = choice
            .take()
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty());
    }
    if let Some(words) = &mut rule.vocabulary {
        *words = words
            .iter()
            .map(|w| w.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|w| !w.is_empty())
            .collect();
    }
    rule
}

/// The longest wait the unload setting takes (a day); longer is "never" (0).
const UNLOAD_SECS_MAX: u64 = 86_400;

#[cfg(test)]
mod tests;
