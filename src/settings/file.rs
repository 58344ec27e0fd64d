//! The one writer of `settings.json`. The person owns the file (they edit it by hand:
//! "Vocabulary and replacements…"); the app only ever changes one key of it, the one a menu
//! choice is about, in the file as it is on disk at that moment:
//!
//! - read the file, check it is a JSON object of this schema or an older one;
//! - replace the text of that key's value (every occurrence) or, when the key is not there, add
//!   it after the last member, in the file's own layout; every other byte stays as it was
//!   (unknown keys, key order, indentation, the person's spacing and escapes);
//! - write it via a temporary file and a rename ([`crate::atomic_file`]).
//!
//! A file that cannot be read, is not JSON (one smart quote from a text editor), is not an
//! object or is of a newer schema is never written: [`SettingsFileError::is_kept`], and the
//! caller applies the choice in memory only and says so. Without a file, the whole settings
//! are written, so that every field is there to fill in ([`create_if_missing`]).
//!
//! Life of the file: missing → created complete (first menu choice or the editor's first
//! open) → edited by hand and by single-key menu changes, in any order → (damaged by hand →
//! left alone until the person repairs it). Nothing here ever deletes it or writes it whole
//! again.

use super::{Settings, SCHEMA_VERSION, SETTINGS_FILE};
use serde_json::Value;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A setting the menu or the Settings page changes, by its key in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKey {
    Model,
    Language,
    Device,
    HotkeyMode,
    Hotkey,
    InputDevice,
    Encoder,
    Output,
    Overlay,
    OverlayPosition,
    KeepRecordings,
    KeepHistory,
    // The Settings page's (the menu has no item for these).
    Vocabulary,
    Replacements,
    Prompt,
    SpokenCommands,
    RemoveFillers,
    HistoryTextDays,
    HistoryAudioDays,
    MaxRecordingSecs,
    KeepMicrophoneOpen,
    PauseMedia,
    UnloadModelAfterSecs,
    LogText,
    Modes,
}

impl SettingKey {
    pub const ALL: [SettingKey; 25] = [
        SettingKey::Model,
        SettingKey::Language,
        SettingKey::Device,
        SettingKey::HotkeyMode,
        SettingKey::Hotkey,
        SettingKey::InputDevice,
        SettingKey::Encoder,
        SettingKey::Output,
        SettingKey::Overlay,
        SettingKey::OverlayPosition,
        SettingKey::KeepRecordings,
        SettingKey::KeepHistory,
        SettingKey::Vocabulary,
        SettingKey::Replacements,
        SettingKey::Prompt,
        SettingKey::SpokenCommands,
        SettingKey::RemoveFillers,
        SettingKey::HistoryTextDays,
        SettingKey::HistoryAudioDays,
        SettingKey::MaxRecordingSecs,
        SettingKey::KeepMicrophoneOpen,
        SettingKey::PauseMedia,
        SettingKey::UnloadModelAfterSecs,
        SettingKey::LogText,
        SettingKey::Modes,
    ];

    /// The key in settings.json (the field's name).
    pub fn name(self) -> &'static str {
        match self {
            SettingKey::Model => "model",
            SettingKey::Language => "language",
            SettingKey::Device => "device",
            SettingKey::HotkeyMode => "hotkey_mode",
            SettingKey::Hotkey => "hotkey",
            SettingKey::InputDevice => "input_device",
            SettingKey::Encoder => "encoder",
            SettingKey::Output => "output",
            SettingKey::Overlay => "overlay",
            SettingKey::OverlayPosition => "overlay_position",
            SettingKey::KeepRecordings => "keep_delivered_recordings",
            SettingKey::KeepHistory => "keep_history",
            SettingKey::Vocabulary => "vocabulary",
            SettingKey::Replacements => "replacements",
            SettingKey::Prompt => "prompt",
            SettingKey::SpokenCommands => "spoken_commands",
            SettingKey::RemoveFillers => "remove_fillers",
            SettingKey::HistoryTextDays => "history_text_days",
            SettingKey::HistoryAudioDays => "history_audio_days",
            SettingKey::MaxRecordingSecs => "max_recording_secs",
            SettingKey::KeepMicrophoneOpen => "keep_microphone_open",
            SettingKey::PauseMedia => "pause_media",
            SettingKey::UnloadModelAfterSecs => "unload_model_after_secs",
            SettingKey::LogText => "log_text",
            SettingKey::Modes => "modes",
        }
    }

    /// The value `settings` holds for this key, as the file writes it.
    pub fn value_in(self, settings: &Settings) -> Value {
        match self {
            SettingKey::Model => Value::from(settings.model.as_str()),
            SettingKey::Language => Value::from(settings.language.as_str()),
            SettingKey::Device => Value::from(settings.device.as_str()),
            SettingKey::HotkeyMode => Value::from(settings.hotkey_mode.as_str()),
            SettingKey::Hotkey => Value::from(settings.hotkey.as_str()),
            SettingKey::InputDevice => Value::from(settings.input_device.as_str()),
            SettingKey::Encoder => Value::from(settings.encoder.as_str()),
            SettingKey::Output => Value::from(settings.output.as_str()),
            SettingKey::Overlay => Value::from(settings.overlay),
            SettingKey::OverlayPosition => Value::from(settings.overlay_position.as_str()),
            SettingKey::KeepRecordings => Value::from(settings.keep_delivered_recordings),
            SettingKey::KeepHistory => Value::from(settings.keep_history),
            SettingKey::Vocabulary => Value::from(settings.vocabulary.clone()),
            SettingKey::Replacements => Value::Object(
                settings
                    .replacements
                    .iter()
                    .map(|(said, written)| (said.clone(), Value::from(written.as_str())))
                    .collect(),
            ),
            SettingKey::Prompt => Value::from(settings.prompt.as_str()),
            SettingKey::SpokenCommands => Value::from(settings.spoken_commands),
            SettingKey::RemoveFillers => Value::from(settings.remove_fillers),
            SettingKey::HistoryTextDays => Value::from(settings.history_text_days),
            SettingKey::HistoryAudioDays => Value::from(settings.history_audio_days),
            SettingKey::MaxRecordingSecs => Value::from(settings.max_recording_secs),
            SettingKey::KeepMicrophoneOpen => Value::from(settings.keep_microphone_open),
            SettingKey::PauseMedia => Value::from(settings.pause_media),
            SettingKey::UnloadModelAfterSecs => Value::from(settings.unload_model_after_secs),
            SettingKey::LogText => Value::from(settings.log_text),
            SettingKey::Modes => serde_json::to_value(&settings.modes).unwrap_or(Value::Null),
        }
    }
}

/// Why settings.json was not changed. Each names the file; a JSON error also its line and
/// column (1-based, as editors count).
#[derive(Debug, thiserror::Error)]
pub enum SettingsFileError {
    #[error("{}: cannot be read: {source}", .path.display())]
    Unreadable { path: PathBuf, source: io::Error },
    #[error("{}: not valid JSON at line {line}, column {column}: {problem}", .path.display())]
    NotJson {
        path: PathBuf,
        line: usize,
        column: usize,
        /// serde_json's words, without its own "at line … column …".
        problem: String,
    },
    #[error("{}: not a JSON object", .path.display())]
    NotAnObject { path: PathBuf },
    #[error("{}: schema version {version} is newer than this app's", .path.display())]
    NewerSchema { path: PathBuf, version: u64 },
    #[error("{}: cannot be written: {source}", .path.display())]
    NotWritten { path: PathBuf, source: io::Error },
}

impl SettingsFileError {
    /// The file is as the person left it and the app refused to touch it (else: the write
    /// itself failed).
    pub fn is_kept(&self) -> bool {
        !matches!(self, SettingsFileError::NotWritten { .. })
    }
}

/// What [`set_key`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The key's value changed in the file.
    Changed,
    /// The file already said so; nothing was written.
    Unchanged,
    /// There was no file: the whole settings were written.
    Created,
}

/// Sets `key` in `dir/settings.json` to the value `settings` holds for it, changing nothing else
/// in the file; without a file, writes the whole `settings`.
pub fn set_key(
    dir: &Path,
    settings: &Settings,
    key: SettingKey,
) -> Result<Written, SettingsFileError> {
    let path = dir.join(SETTINGS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return create(dir, settings).map(|()| Written::Created)
        }
        Err(source) => return Err(SettingsFileError::Unreadable { path, source }),
    };
    let value = key.value_in(settings);
    match with_key(&text, key.name(), &value).map_err(|e| e.at(&path))? {
        None => Ok(Written::Unchanged),
        Some(new_text) => {
            write(&path, new_text.as_bytes())?;
            Ok(Written::Changed)
        }
    }
}

/// Writes the whole `settings` when there is no settings.json yet (so every field is there to
/// fill in); an existing file, damaged or not, is left alone. Returns whether it wrote.
pub fn create_if_missing(dir: &Path, settings: &Settings) -> Result<bool, SettingsFileError> {
    if dir.join(SETTINGS_FILE).exists() {
        return Ok(false);
    }
    create(dir, settings).map(|()| true)
}

fn create(dir: &Path, settings: &Settings) -> Result<(), SettingsFileError> {
    let path = dir.join(SETTINGS_FILE);
    let not_written = |source| SettingsFileError::NotWritten {
        path: path.clone(),
        source,
    };
    crate::private_files::create_dir_all(dir).map_err(not_written)?;
    let mut json = serde_json::to_string_pretty(settings).map_err(|e| not_written(e.into()))?;
    json.push('\n');
    write(&path, json.as_bytes())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), SettingsFileError> {
    crate::atomic_file::write(path, bytes).map_err(|source| SettingsFileError::NotWritten {
        path: path.to_path_buf(),
        source,
    })
}

/// A refusal found in the text, before the file's path is known.
#[derive(Debug, PartialEq)]
enum Refusal {
    NotJson {
        line: usize,
        column: usize,
        problem: String,
    },
    NotAnObject,
    NewerSchema(u64),
}

impl Refusal {
    fn at(self, path: &Path) -> SettingsFileError {
        let path = path.to_path_buf();
        match self {
            Refusal::NotJson {
                line,
                column,
                problem,
            } => SettingsFileError::NotJson {
                path,
                line,
                column,
                problem,
            },
            Refusal::NotAnObject => SettingsFileError::NotAnObject { path },
            Refusal::NewerSchema(version) => SettingsFileError::NewerSchema { path, version },
        }
    }
}

/// `text` (a settings file) with `key` set to `value`: `None` when it already is, a refusal when
/// the text is not a settings object this app may write. Pure.
fn with_key(text: &str, key: &str, value: &Value) -> Result<Option<String>, Refusal> {
    let parsed: Value = serde_json::from_str(text).map_err(|e| Refusal::NotJson {
        line: e.line(),
        column: e.column(),
        problem: without_position(&e.to_string()),
    })?;
    let Value::Object(fields) = &parsed else {
        return Err(Refusal::NotAnObject);
    };
    if let Some(version) = fields.get("schema_version").and_then(Value::as_u64) {
        if version > u64::from(SCHEMA_VERSION) {
            return Err(Refusal::NewerSchema(version));
        }
    }
    if fields.get(key) == Some(value) {
        return Ok(None);
    }
    let edited = members(text).and_then(|m| splice(text, &m, key, value));
    // The text was parsed above, so the scan finds its members; should it ever not, or should
    // the splice not give the intended object, the object is written anew (key order and the
    // other values kept, the layout serde_json's).
    let mut expected = fields.clone();
    expected.insert(key.to_string(), value.clone());
    let expected = Value::Object(expected);
    match edited {
        Some(new_text)
            if serde_json::from_str::<Value>(&new_text).ok() == Some(expected.clone()) =>
        {
            Ok(Some(new_text))
        }
        _ => Ok(Some(format!(
            "{}\n",
            serde_json::to_string_pretty(&expected).unwrap_or_else(|_| expected.to_string())
        ))),
    }
}

/// serde_json's message without the " at line L column C" it ends with (said separately).
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// One top-level member of the object: where its key and its value lie in the text.
#[derive(Debug, Clone)]
struct Member {
    key: String,
    key_span: Range<usize>,
    value_span: Range<usize>,
}

/// The top-level members of `text`, which serde_json has parsed as an object, in file order.
/// `None` when the scan does not find what it expects (it never should).
fn members(text: &str) -> Option<(usize, Vec<Member>)> {
    let bytes = text.as_bytes();
    let mut i = skip_ws(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    let open = i;
    i = skip_ws(bytes, i + 1);
    let mut found = Vec::new();
    if bytes.get(i) == Some(&b'}') {
        return Some((open, found));
    }
    loop {
        let key_start = i;
        let key_end = skip_string(bytes, i)?;
        let key: String = serde_json::from_str(&text[key_start..key_end]).ok()?;
        i = skip_ws(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(bytes, i + 1);
        let value_end = skip_value(bytes, value_start)?;
        found.push(Member {
            key,
            key_span: key_start..key_end,
            value_span: value_start..value_end,
        });
        i = skip_ws(bytes, value_end);
        match bytes.get(i) {
            Some(b',') => i = skip_ws(bytes, i + 1),
            Some(b'}') => return Some((open, found)),
            _ => return None,
        }
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (exclusive) of the string starting at `i`.
fn skip_string(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match bytes.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// The end (exclusive) of the value starting at `i`.
fn skip_value(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i)? {
        b'"' => skip_string(bytes, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match bytes.get(j)? {
                    b'"' => {
                        j = skip_string(bytes, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while !matches!(
                bytes.get(j),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// `text` with every value of `key` replaced by `value`, or with the member added after the
/// last one in the layout of the file (the first member's indentation, the last one's colon).
fn splice(
    text: &str,
    (open, members): &(usize, Vec<Member>),
    key: &str,
    value: &Value,
) -> Option<String> {
    let value_text = serde_json::to_string(value).ok()?;
    let key_text = serde_json::to_string(key).ok()?;
    let mut out = text.to_string();
    let same: Vec<&Member> = members.iter().filter(|m| m.key == key).collect();
    if !same.is_empty() {
        for member in same.iter().rev() {
            out.replace_range(member.value_span.clone(), &value_text);
        }
        return Some(out);
    }
    let Some(last) = members.last() else {
        let close = text[*open..].find('}')? + open;
        out.replace_range(
            *open..close + 1,
            &format!("{{\n  {key_text}: {value_text}\n}}"),
        );
        return Some(out);
    };
    let first = &members[0];
    let indent = &text[open + 1..first.key_span.start];
    let colon = &text[last.key_span.end..last.value_span.start];
    out.insert_str(
        last.value_span.end,
        &format!(",{indent}{key_text}{colon}{value_text}"),
    );
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str, key: &str, value: Value) -> String {
        with_key(text, key, &value)
            .expect("a settings object")
            .expect("a change")
    }

    #[test]
    fn every_key_the_menu_sets_is_a_field_of_the_settings() {
        let defaults = serde_json::to_value(Settings::default()).unwrap();
        for key in SettingKey::ALL {
            assert_eq!(
                defaults.get(key.name()),
                Some(&key.value_in(&Settings::default())),
                "{key:?}"
            );
        }
    }

    #[test]
    fn a_menu_choice_changes_only_its_own_value_and_keeps_every_other_byte() {
        // Four-space indents, a key order of the person's, an unknown key, an escape, a
        // vocabulary saved by hand, and no newline at the end.
        let text = "{\n    \"vocabulary\": [\"Wroc\\u0142aw\", \"Kubernetes\"],\n    \"language\" :  \"en\",\n    \"my_note\": {\"b\": 1, \"a\": [2, 3]},\n    \"replacements\": {\"cube control\": \"kubectl\"}\n}";
        let changed = set(text, "language", Value::from("pl"));
        assert_eq!(changed, text.replace("\"en\"", "\"pl\""));
        // A key the file does not have is added after the last one, in the file's layout.
        let added = set(text, "overlay", Value::from(false));
        assert_eq!(
            added,
            text.replace(
                "\"kubectl\"}\n}",
                "\"kubectl\"},\n    \"overlay\": false\n}"
            )
        );
        let parsed: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(parsed["my_note"]["a"][1], 3, "unknown keys kept");
        assert_eq!(parsed["vocabulary"][0], "Wrocław");
    }

    #[test]
    fn compact_empty_and_duplicated_files_get_the_key_too() {
        assert_eq!(
            set(r#"{"model":"base"}"#, "language", Value::from("en")),
            r#"{"model":"base","language":"en"}"#
        );
        assert_eq!(
            set("{ }\n", "output", Value::from("copy")),
            "{\n  \"output\": \"copy\"\n}\n"
        );
        // serde_json takes the last of two; both say the new value.
        assert_eq!(
            set(
                r#"{"output": "type", "output": "paste"}"#,
                "output",
                Value::from("copy")
            ),
            r#"{"output": "copy", "output": "copy"}"#
        );
        // Values of other types, strings with braces and escaped quotes, are skipped whole.
        let text =
            r#"{"prompt": "a \"}\" b", "max_recording_secs": 300, "overlay": true, "x": null}"#;
        assert_eq!(
            set(text, "overlay", Value::from(false)),
            text.replace("true", "false")
        );
    }

    #[test]
    fn the_same_value_is_not_written_again() {
        assert_eq!(
            with_key(r#"{"language": "en"}"#, "language", &Value::from("en")),
            Ok(None)
        );
    }

    #[test]
    fn a_file_that_is_not_a_settings_object_is_refused_with_its_position() {
        // A smart quote from a text editor, on line 3.
        let smart = "{\n  \"language\": \"en\",\n  \"vocabulary\": [\u{201C}Kubernetes\"]\n}\n";
        match with_key(smart, "language", &Value::from("pl")) {
            Err(Refusal::NotJson {
                line,
                column,
                problem,
            }) => {
                assert_eq!((line, column), (3, 18));
                assert!(!problem.contains("line"), "{problem}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            with_key("[1, 2]", "language", &Value::from("pl")),
            Err(Refusal::NotAnObject)
        );
        assert_eq!(
            with_key(r#"{"schema_version": 2}"#, "language", &Value::from("pl")),
            Err(Refusal::NewerSchema(2))
        );
    }

    #[test]
    fn a_damaged_file_is_kept_byte_identical_and_the_error_names_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        let damaged =
            "{\n  \"vocabulary\": [\u{201C}Agnieszka\u{201D}],\n  \"language\": \"en\"\n}\n";
        std::fs::write(&path, damaged).unwrap();
        let settings = Settings {
            language: "pl".into(),
            ..Settings::default()
        };
        let error = set_key(dir.path(), &settings, SettingKey::Language).unwrap_err();
        assert!(error.is_kept());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), damaged);
        let said = error.to_string();
        assert!(
            said.contains(&path.display().to_string()) && said.contains("line 2, column 18"),
            "{said}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file"
        );
        // The editor's first open leaves it alone too.
        assert!(!create_if_missing(dir.path(), &Settings::default()).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), damaged);
    }

    #[test]
    fn a_hand_edited_vocabulary_survives_a_menu_choice_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        // The app's settings in memory: an empty vocabulary (the file was edited since).
        let mut settings = Settings::default();
        assert_eq!(
            set_key(dir.path(), &settings, SettingKey::Output).unwrap(),
            Written::Created
        );
        let path = dir.path().join(SETTINGS_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = text.replace(
            "\"vocabulary\": []",
            "\"vocabulary\": [\"Agnieszka\"],\n  \"from_a_newer_app\": 1",
        );
        std::fs::write(&path, &edited).unwrap();
        settings.language = "pl".into();
        assert_eq!(
            set_key(dir.path(), &settings, SettingKey::Language).unwrap(),
            Written::Changed
        );
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(after, edited.replace("\"auto:pl,en\"", "\"pl\""));
        let (loaded, warning) = Settings::load(dir.path());
        assert!(warning.is_none());
        assert_eq!(loaded.vocabulary, vec!["Agnieszka".to_string()]);
        assert_eq!(loaded.language, "pl");
        assert_eq!(
            set_key(dir.path(), &settings, SettingKey::Language).unwrap(),
            Written::Unchanged
        );
    }

    /// The Settings page writes lists and pairs one key at a time too: the person's hand edits
    /// of other keys (an unknown key, a prompt, their layout) stay byte for byte.
    #[test]
    fn the_settings_page_s_lists_and_pairs_keep_every_other_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        let hand = "{\n    \"prompt\": \"Spotkanie z Agnieszk\\u0105\",\n    \"my_note\": [1, 2],\n    \"vocabulary\": [\"Wroc\u{142}aw\"]\n}\n";
        std::fs::write(&path, hand).unwrap();
        let settings = Settings {
            vocabulary: vec!["Wrocław".into(), "Kubernetes".into()],
            replacements: [("cube control".to_string(), "kubectl".to_string())].into(),
            history_text_days: 30,
            ..Settings::default()
        };
        for key in [
            SettingKey::Vocabulary,
            SettingKey::Replacements,
            SettingKey::HistoryTextDays,
        ] {
            assert_eq!(
                set_key(dir.path(), &settings, key).unwrap(),
                Written::Changed
            );
        }
        let after = std::fs::read_to_string(&path).unwrap();
        assert!(
            after.starts_with(
                "{\n    \"prompt\": \"Spotkanie z Agnieszk\\u0105\",\n    \"my_note\": [1, 2],\n    \"vocabulary\": [\"Wroc\u{142}aw\",\"Kubernetes\"],\n    \"replacements\": {\"cube control\":\"kubectl\"},\n    \"history_text_days\": 30\n}"
            ),
            "{after}"
        );
        let (loaded, warning) = Settings::load(dir.path());
        assert!(warning.is_none());
        assert_eq!(loaded.prompt, "Spotkanie z Agnieszką");
        assert_eq!(loaded.vocabulary, settings.vocabulary);
        assert_eq!(loaded.replacements, settings.replacements);
        assert_eq!(loaded.history_text_days, 30);
    }

    #[test]
    fn a_new_file_holds_every_setting_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings {
            device: "mps".into(),
            ui_lang: "pl".into(),
            hotkey: "ctrl+shift+space".into(),
            language: "pl".into(),
            input_device: "USB Mic".into(),
            prompt: "Wrocław, Kubernetes".into(),
            keep_recordings: 3,
            ..Settings::default()
        };
        assert!(create_if_missing(dir.path(), &s).unwrap());
        assert_eq!(Settings::load(dir.path()).0, s);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(!create_if_missing(dir.path(), &Settings::default()).unwrap());
        assert_eq!(Settings::load(dir.path()).0, s);
    }
}
