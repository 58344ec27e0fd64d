//! The user's settings file (`settings.json` in the state folder). Every field has a default, so
//! a partial or older file still loads (container-level `#[serde(default)]` plus a schema
//! version); a damaged file is reported and the defaults are used, never a crash, and a single
//! bad value costs only its own field. It holds where Whisper runs and how the device manager
//! talks, and the menu-bar app's choices (hotkey, mode, output, language, model, microphone,
//! limits). Values are strings or numbers as the user would write them; the app parses them
//! where they are used and falls back on a bad one. The file is the person's (they edit it by
//! hand); the app writes it only through [`file`], one key per menu choice.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod file;
pub mod modes;

pub const SETTINGS_FILE: &str = "settings.json";
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub schema_version: u32,
    /// Where Whisper runs: `auto` (MPS, then CUDA, then CPU), `cpu`, `cuda` or `mps`. The
    /// `--device` flag and `WHISPER_DICTATION_DEVICE` override it.
    pub device: String,
    /// Language of the app's messages (`pl`, `en`); empty = the system locale.
    pub ui_lang: String,
    /// Optimisation level 0–2 (see `device::tuning`).
    pub optimize: u8,
    /// CPU precision `f32` or `bf16`; empty = chosen by the optimisation level.
    pub cpu_precision: String,
    /// GPU precision `f32`, `f16` or `bf16`; empty = chosen by the optimisation level (f32
    /// unless level 2 measured half precision faster on the real workload).
    pub gpu_precision: String,
    /// The global hotkey, e.g. `ctrl+alt+space`; the default is [`default_hotkey`]'s for this
    /// OS. A file that names one keeps it (the app warns on macOS when it is also a system
    /// shortcut, `system_shortcuts`).
    pub hotkey: String,
    /// `hold` (push-to-talk) or `toggle` (press to start, press again to stop).
    pub hotkey_mode: String,
    /// Where the text goes: `paste` (clipboard + Ctrl/Cmd+V, previous clipboard restored),
    /// `type` (typed key by key), or `copy` (clipboard only).
    pub output: String,
    /// Spoken language: `auto`, a code such as `pl` or `en`, or `auto:pl,en` (detect among).
    pub language: String,
    /// Installed model name or a model folder.
    pub model: String,
    /// Microphone name as the system lists it; empty = the system default.
    pub input_device: String,
    /// Longest recording in seconds; a notice comes 10 s before it stops by itself.
    pub max_recording_secs: u32,
    /// Keep the microphone stream open with a short pre-roll, for microphones that are slow
    /// to start (Bluetooth): the system's microphone indicator then stays on while the app
    /// runs, and the audio callback wakes the CPU all day. Off (the default): the microphone
    /// opens at key-down and closes after the dictation.
    pub keep_microphone_open: bool,
    /// Quiet while you speak: media players paused while the hotkey is held and resumed after
    /// (MPRIS on Linux; the output device muted on macOS, `platform::media`). Off by default:
    /// the app does not touch other apps unasked; with headphones nothing leaks into the
    /// microphone, and pausing at every dictation would interrupt the music dozens of times
    /// an hour. People who listen on speakers turn it on.
    pub pause_media: bool,
    /// Seconds without a dictation after which the model leaves memory (0: never); the next
    /// key-down loads it again while the person speaks (`app::idle`).
    pub unload_model_after_secs: u64,
    /// Text given to Whisper as the initial prompt: names, jargon, spelling.
    pub prompt: String,
    /// How many recordings are kept on disk for "Retry last recording".
    pub keep_recordings: usize,
    /// Keep a recording once its text was delivered (pasted, typed or copied), for "Retry last
    /// recording": the menu's Privacy ▸ Keep recordings. When false it is deleted then; a
    /// recording that failed, or gave no text, is kept for Retry all the same (and pruned as
    /// usual, `keep_recordings`).
    pub keep_delivered_recordings: bool,
    /// Keep each delivered dictation in the history (its text, timings, model and device, and
    /// the name of its recording) in `history.sqlite3` in the state folder: the menu's Privacy
    /// ▸ Keep history. Off: nothing new is written there ("Forget everything…" empties it).
    pub keep_history: bool,
    /// Days a history entry's text is kept (0: for ever). Starred entries are kept.
    pub history_text_days: u32,
    /// Days a history entry keeps its recording (0: as long as the recordings folder keeps it,
    /// `keep_recordings`); older ones keep their text and lose their audio. Starred entries are
    /// kept.
    pub history_audio_days: u32,
    /// How dictations of up to 30 s are encoded on the CPU: `fast` (only the audio's part of
    /// Whisper's 30 s window is computed, ~4x less encoder work, the same words on almost all
    /// audio) or `exact` (the whole window, as OpenAI's reference does). GPUs always encode
    /// whole windows.
    pub encoder: String,
    /// Show the overlay (level, time, state and words) while dictating.
    pub overlay: bool,
    /// Where the overlay sits: `bottom` (centre, the default) or `top` (centre).
    pub overlay_position: String,
    /// The person's words (names, products, jargon): given to Whisper with the prompt, and
    /// near misses in its text written this way ("wroclaw" → "Wrocław").
    pub vocabulary: Vec<String>,
    /// Whole words or phrases (any case) replaced in the text: `{"cube control": "kubectl"}`.
    pub replacements: BTreeMap<String, String>,
    /// "new line", "kropka", "question mark", … said on their own become their characters.
    pub spoken_commands: bool,
    /// "um", "uh", "yyy", "eee" are taken out of the text.
    pub remove_fillers: bool,
    /// Write what was dictated and recognised into the log files (for a bug report; off: the
    /// log holds lengths, timings and ids only). `WHISPER_DICTATION_LOG_TEXT=1` does the same
    /// for one run. A hand edit applies without a restart.
    pub log_text: bool,
    /// Per-app modes: rules that match the app a dictation goes into and set its output,
    /// paste keys, language, prompt, vocabulary, … there ([`modes`]). Built-in rules for the
    /// Linux terminals apply after these.
    pub modes: Vec<modes::AppMode>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            schema_version: SCHEMA_VERSION,
            device: "auto".to_string(),
            ui_lang: String::new(),
            optimize: 0,
            cpu_precision: String::new(),
            gpu_precision: String::new(),
            hotkey: default_hotkey(crate::platform::IS_MACOS).to_string(),
            hotkey_mode: "hold".to_string(),
            output: "paste".to_string(),
            language: "auto:pl,en".to_string(),
            model: crate::paths::DEFAULT_MODEL.to_string(),
            input_device: String::new(),
            max_recording_secs: 120,
            keep_microphone_open: false,
            pause_media: false,
            unload_model_after_secs: DEFAULT_UNLOAD_AFTER_SECS,
            prompt: String::new(),
            keep_recordings: 10,
            keep_delivered_recordings: true,
            keep_history: true,
            history_text_days: 0,
            history_audio_days: 0,
            encoder: "fast".to_string(),
            overlay: true,
            overlay_position: "bottom".to_string(),
            vocabulary: Vec::new(),
            replacements: BTreeMap::new(),
            spoken_commands: true,
            remove_fillers: true,
            log_text: false,
            modes: Vec::new(),
        }
    }
}

/// The model leaves memory after 10 minutes without a dictation: within a stretch of work
/// (dictations minutes apart) it stays loaded; after it, its memory (~360 MB with `base`,
/// ~1.6 GB with `turbo`) is the machine's again. Loading it back costs the next dictation
/// nothing it waits for when it is longer than the load (~0.7 s for `base` from the page
/// cache, BENCHMARKS.md "Waiting at no cost").
pub const DEFAULT_UNLOAD_AFTER_SECS: u64 = 600;

/// The hotkey a new installation gets, one no system shortcut of the OS uses.
/// - Linux: Ctrl+Alt+Space; no common desktop or editor shortcut uses it.
/// - macOS: Option+Space (⌥Space, also superwhisper's default). Not ⌃⌥Space: that is macOS's
///   own "Select next source in Input menu" (symbolic hotkey 61; ⌃Space is 60), which switches
///   the keyboard layout for anyone with two (a Polish user with Polish Pro and U.S.). Not ⌘ or
///   ⌘⌥Space (Spotlight, Finder search), and not ⌥ with a letter: the Polish layouts type ą ę ł
///   ó ś ż ź ć ń with Option. Option+Space only types a non-breaking space, which the hotkey
///   replaces.
pub fn default_hotkey(mac: bool) -> &'static str {
    if mac {
        "alt+space"
    } else {
        "ctrl+alt+space"
    }
}

/// Why settings.json was not taken as written: the whole file (unreadable, not JSON, a newer
/// schema: every setting is the default) or some fields (invalid values: those are the
/// default, the rest is kept). The message says which, once.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}{}", .path.display(), if *.whole_file { "; using the default settings" } else { "" })]
pub struct SettingsWarning {
    pub path: PathBuf,
    pub problem: String,
    /// Every setting is the default (else only the fields `problem` names).
    pub whole_file: bool,
}

impl SettingsWarning {
    /// The file and the problem, without the consequence (for a notice that says it in the
    /// UI's language).
    pub fn file_and_problem(&self) -> String {
        format!("{}: {}", self.path.display(), self.problem)
    }
}

impl Settings {
    /// Reads `dir/settings.json`: missing → defaults silently; unreadable or invalid → defaults
    /// and a warning naming the file and the problem.
    pub fn load(dir: &Path) -> (Settings, Option<SettingsWarning>) {
        let path = dir.join(SETTINGS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (Settings::default(), None)
            }
            Err(e) => {
                return (
                    Settings::default(),
                    Some(warning(&path, e.to_string(), true)),
                )
            }
        };
        let (settings, bad_fields) = match parse_field_by_field(&text) {
            Ok(parsed) => parsed,
            Err(problem) => return (Settings::default(), Some(warning(&path, problem, true))),
        };
        if settings.schema_version > SCHEMA_VERSION {
            let problem = format!(
                "schema version {} is newer than this app's",
                settings.schema_version
            );
            return (Settings::default(), Some(warning(&path, problem, true)));
        }
        let problem = (!bad_fields.is_empty()).then(|| {
            format!(
                "invalid value for {} (the default is used for {})",
                bad_fields.join(", "),
                if bad_fields.len() == 1 { "it" } else { "them" }
            )
        });
        (settings, problem.map(|p| warning(&path, p, false)))
    }

    /// A non-empty string setting, for layering under flags and environment variables.
    pub fn non_empty(value: &str) -> Option<&str> {
        Some(value).filter(|v| !v.trim().is_empty())
    }
}

/// Reads the settings one field at a time on top of the defaults, so one bad value (a typo by
/// hand) costs only that field, not the user's other choices. Returns the names of the fields
/// whose values were refused.
fn parse_field_by_field(text: &str) -> Result<(Settings, Vec<String>), String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let serde_json::Value::Object(fields) = value else {
        return Err("not a JSON object".into());
    };
    let serde_json::Value::Object(mut merged) =
        serde_json::to_value(Settings::default()).map_err(|e| e.to_string())?
    else {
        unreachable!("Settings serialises to an object");
    };
    let mut bad = Vec::new();
    for (name, value) in fields {
        // A field this app doesn't know (a newer app's, a typo) is ignored, as serde would;
        // trying it would only cost a copy of the settings per unknown field (a damaged file
        // with 20,000 of them took minutes).
        if !merged.contains_key(&name) {
            continue;
        }
        let mut trial = merged.clone();
        trial.insert(name.clone(), value);
        if serde_json::from_value::<Settings>(serde_json::Value::Object(trial.clone())).is_ok() {
            merged = trial;
        } else {
            bad.push(name);
        }
    }
    let settings =
        serde_json::from_value(serde_json::Value::Object(merged)).map_err(|e| e.to_string())?;
    Ok((settings, bad))
}

fn warning(path: &Path, problem: String, whole_file: bool) -> SettingsWarning {
    SettingsWarning {
        path: path.to_path_buf(),
        problem,
        whole_file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_gives_defaults_without_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let (s, w) = Settings::load(dir.path());
        assert_eq!(s, Settings::default());
        assert!(w.is_none());
    }

    #[test]
    fn a_partial_old_file_keeps_what_it_says_and_defaults_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            r#"{"device": "cpu", "extra": 1}"#,
        )
        .unwrap();
        let (s, w) = Settings::load(dir.path());
        assert!(w.is_none());
        assert_eq!(s.device, "cpu");
        assert_eq!(s.optimize, 0);
    }

    #[test]
    fn damaged_or_future_files_warn_with_the_path_and_use_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        for (bad, whole_file) in [
            ("{broken", true),
            (r#"{"optimize": "fast"}"#, false),
            (r#"{"schema_version": 99}"#, true),
        ] {
            std::fs::write(&path, bad).unwrap();
            let (s, w) = Settings::load(dir.path());
            assert_eq!(s, Settings::default());
            let w = w.expect("a warning");
            assert_eq!(w.whole_file, whole_file, "{bad}");
            assert!(
                !w.file_and_problem().contains("default settings"),
                "the consequence is said once, by the notice"
            );
            let w = w.to_string();
            assert!(w.contains(SETTINGS_FILE), "{w}");
            assert_eq!(
                w.matches("default settings").count(),
                usize::from(whole_file),
                "{w}"
            );
        }
    }

    #[test]
    fn the_apps_defaults_are_hold_to_talk_paste_and_polish_or_english() {
        let s = Settings::default();
        assert_eq!(s.hotkey, default_hotkey(crate::platform::IS_MACOS));
        assert_eq!(s.hotkey_mode, "hold");
        assert_eq!(s.output, "paste");
        assert_eq!(s.language, "auto:pl,en");
        assert_eq!(s.model, crate::paths::DEFAULT_MODEL);
        assert_eq!(s.max_recording_secs, 120);
        assert!(!s.keep_microphone_open);
        assert!(!s.pause_media, "other apps are not touched unasked");
        assert_eq!(s.unload_model_after_secs, 600);
    }

    #[test]
    fn a_file_from_before_the_app_existed_loads_with_the_apps_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            r#"{"schema_version": 1, "device": "cpu", "ui_lang": "pl", "optimize": 1}"#,
        )
        .unwrap();
        let (s, w) = Settings::load(dir.path());
        assert!(w.is_none());
        assert_eq!((s.device.as_str(), s.optimize), ("cpu", 1));
        assert_eq!(s.output, "paste");
        assert_eq!(s.hotkey, default_hotkey(crate::platform::IS_MACOS));
    }

    #[test]
    fn the_default_hotkey_of_each_os_is_none_of_its_system_shortcuts() {
        use crate::system_shortcuts::{clash, enabled, system_clash};
        use std::str::FromStr;
        // macOS as shipped: ⌃Space, ⌃⌥Space (input sources), ⌘Space, ⌘⌥Space.
        assert_eq!(default_hotkey(true), "alt+space");
        assert_eq!(clash(default_hotkey(true), &enabled(&[])), None);
        // The old default was macOS's "Select next source in Input menu".
        assert_eq!(
            clash(default_hotkey(false), &enabled(&[])).map(|s| s.id),
            Some(crate::system_shortcuts::NEXT_INPUT_SOURCE)
        );
        // Linux keeps Ctrl+Alt+Space, and there is no system list to clash with.
        assert_eq!(default_hotkey(false), "ctrl+alt+space");
        assert_eq!(system_clash(default_hotkey(false), false, None), None);
        for hotkey in [default_hotkey(true), default_hotkey(false)] {
            assert!(global_hotkey::hotkey::HotKey::from_str(hotkey).is_ok());
        }
    }

    #[test]
    fn a_file_that_names_the_old_default_hotkey_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        for kept in ["ctrl+alt+space", "ctrl+shift+space"] {
            std::fs::write(
                dir.path().join(SETTINGS_FILE),
                format!(r#"{{"schema_version": 1, "hotkey": "{kept}"}}"#),
            )
            .unwrap();
            let (s, w) = Settings::load(dir.path());
            assert!(w.is_none());
            assert_eq!(s.hotkey, kept, "on every OS");
        }
        // A file without it gets this OS's default.
        std::fs::write(dir.path().join(SETTINGS_FILE), r#"{"output": "copy"}"#).unwrap();
        let (s, _) = Settings::load(dir.path());
        assert_eq!(s.hotkey, default_hotkey(crate::platform::IS_MACOS));
    }

    #[test]
    fn a_wrongly_typed_field_costs_only_that_field_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            r#"{"output": "copy", "max_recording_secs": "two minutes", "hotkey": "f8"}"#,
        )
        .unwrap();
        let (s, w) = Settings::load(dir.path());
        assert_eq!(s.output, "copy");
        assert_eq!(s.hotkey, "f8");
        assert_eq!(s.max_recording_secs, Settings::default().max_recording_secs);
        let w = w.expect("a warning");
        assert!(!w.whole_file, "the other fields are kept");
        let w = w.to_string();
        assert!(
            w.contains("max_recording_secs") && w.contains(SETTINGS_FILE),
            "{w}"
        );
        assert!(!w.contains("using the default settings"), "{w}");
    }

    /// Found by fuzzing: every unknown field was tried against a copy of all the fields kept
    /// so far, so a file of 20,000 made-up fields took minutes (the app hung at start).
    #[test]
    fn thousands_of_unknown_fields_load_at_once_and_are_ignored() {
        let mut fields: serde_json::Map<String, serde_json::Value> = (0..50_000)
            .map(|i| (format!("unknown_{i}"), serde_json::Value::from(i)))
            .collect();
        fields.insert("model".into(), "small".into());
        fields.insert("optimize".into(), "fast".into());
        let text = serde_json::Value::Object(fields).to_string();
        let started = std::time::Instant::now();
        let (settings, bad) = parse_field_by_field(&text).unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(settings.model, "small");
        assert_eq!(bad, vec!["optimize".to_string()]);
    }
}
