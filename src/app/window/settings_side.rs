//! The app's side of the Settings page: a valid change the page asks for ([`Change`]) is
//! applied as the menu applies its choice of the same setting — through [`App::menu`], so the
//! key alone is written to settings.json by its one writer (`settings::file`, temp + rename;
//! the person's hand edits of other keys kept), the hotkey is re-registered, the model
//! reloaded, the tray's check marks follow. What the menu has no item for (vocabulary,
//! replacements, prompt, spoken commands, fillers, history retention) is set, written the same
//! way, and taken into the wording the next dictation uses at once; the longest recording goes
//! to the dictation's state machine, keeping the microphone open to the recorder (as a new
//! microphone does), text logging to the log at once. Then the page is answered
//! with the settings as they are now and whether the file holds them.

use super::form::{Change, FormChoices, FormValues, Problem};
use super::ipc::Reply;
use crate::app::history_thread::{retention, HistoryCommand};
use crate::app::recorder_config;
use crate::app::state::Input;
use crate::app::tray::MenuAction;
use crate::app::wording::Wording;
use crate::app::App;
use crate::audio::capture::RecorderCommand;
use crate::device::backend::detect;
use crate::device::simulated::SimulatedGpu;
use crate::i18n::UiLang;
use crate::settings::file::SettingKey;
use crate::settings::Settings;
use std::sync::Arc;
use std::time::Duration;

/// What the Settings page's lists offer now, in `lang` (lists the microphones: slow on some
/// sound systems, so it runs once the window's process is starting).
pub(super) fn form_choices(lang: UiLang) -> FormChoices {
    let models = crate::paths::models_dir()
        .map(|d| crate::paths::installed_models(&d))
        .unwrap_or_default();
    let devices = detect(SimulatedGpu::from_env().ok().flatten())
        .iter()
        .map(|b| b.kind.name().to_string())
        .collect();
    FormChoices {
        models,
        microphones: crate::audio::capture::input_device_names(),
        devices,
        languages: super::settings_texts::languages(lang),
        hotkeys: crate::app::texts::hotkey_presets(crate::platform::IS_MACOS)
            .iter()
            .map(|h| h.to_string())
            .collect(),
        apps: Vec::new(),
        in_front: Vec::new(),
        builtin_modes: crate::settings::modes::builtin_rules(crate::platform::IS_MACOS),
        paste_keys: super::modes_texts::paste_keys(crate::platform::IS_MACOS),
        keys_after: super::modes_texts::keys_after(crate::platform::IS_MACOS, lang),
        hotkey_note: None,
    }
}

impl App {
    /// Applies a change from the Settings page and answers the page.
    pub(in crate::app) fn apply_setting(&mut self, change: Change) {
        let key = change.key();
        tracing::info!(key, "settings page: applying a change");
        let problem = match change {
            Change::Hotkey(text) if text == self.settings.hotkey => None,
            Change::Hotkey(text) => {
                self.menu(MenuAction::Hotkey(text.clone()));
                (self.settings.hotkey != text).then(|| Problem::HotkeyUnavailable {
                    detail: String::new(),
                })
            }
            Change::HotkeyMode(mode) => self.menu_if(
                mode.name() != self.settings.hotkey_mode,
                MenuAction::HotkeyMode(mode.name().into()),
            ),
            Change::Output(mode) => self.menu_if(
                mode.name() != self.settings.output,
                MenuAction::Output(mode),
            ),
            Change::Language(language) => self.menu_if(
                language != self.settings.language,
                MenuAction::Language(language),
            ),
            Change::Model(model) => {
                self.menu_if(model != self.settings.model, MenuAction::Model(model))
            }
            Change::Device(device) => {
                self.menu_if(device != self.settings.device, MenuAction::Device(device))
            }
            Change::Encoder(encoder) => self.menu_if(
                encoder != self.settings.encoder,
                MenuAction::Encoder(encoder),
            ),
            Change::Microphone(name) => self.menu_if(
                name != self.settings.input_device,
                MenuAction::Microphone(name),
            ),
            Change::Overlay(on) => self.menu_if(on != self.settings.overlay, MenuAction::Overlay),
            Change::OverlayPosition(position) => self.menu_if(
                position.name() != self.settings.overlay_position,
                MenuAction::OverlayPosition(position),
            ),
            Change::KeepRecordings(keep) => self.menu_if(
                keep != self.settings.keep_delivered_recordings,
                MenuAction::KeepRecordings,
            ),
            Change::KeepHistory(keep) => {
                self.menu_if(keep != self.settings.keep_history, MenuAction::KeepHistory)
            }
            Change::Vocabulary(words) => {
                self.set_wording(SettingKey::Vocabulary, |s| s.vocabulary = words)
            }
            Change::Replacements(pairs) => {
                self.set_wording(SettingKey::Replacements, |s| s.replacements = pairs)
            }
            Change::Prompt(prompt) => self.set_wording(SettingKey::Prompt, |s| s.prompt = prompt),
            Change::SpokenCommands(on) => {
                self.set_wording(SettingKey::SpokenCommands, |s| s.spoken_commands = on)
            }
            Change::RemoveFillers(on) => {
                self.set_wording(SettingKey::RemoveFillers, |s| s.remove_fillers = on)
            }
            Change::HistoryTextDays(days) => {
                self.set_wording(SettingKey::HistoryTextDays, |s| s.history_text_days = days)
            }
            Change::HistoryAudioDays(days) => self.set_wording(SettingKey::HistoryAudioDays, |s| {
                s.history_audio_days = days
            }),
            Change::MaxRecordingSecs(secs) => {
                self.settings.max_recording_secs = secs;
                self.save_choice(SettingKey::MaxRecordingSecs);
                self.input(Input::MaxLengthChanged(Duration::from_secs(u64::from(
                    secs,
                ))));
                self.window_shows_settings();
                None
            }
            Change::KeepMicrophoneOpen(keep) => {
                self.settings.keep_microphone_open = keep;
                self.save_choice(SettingKey::KeepMicrophoneOpen);
                self.recorder
                    .send(RecorderCommand::Configure(recorder_config(&self.settings)));
                self.show_microphone();
                self.window_shows_settings();
                None
            }
            Change::PauseMedia(on) => {
                self.settings.pause_media = on;
                self.save_choice(SettingKey::PauseMedia);
                // Turned off during a recording: the players are given back now.
                self.keep_quiet();
                self.window_shows_settings();
                None
            }
            Change::UnloadModelAfterSecs(secs) => {
                self.settings.unload_model_after_secs = secs;
                self.save_choice(SettingKey::UnloadModelAfterSecs);
                self.idle.set_after(secs);
                self.window_shows_settings();
                None
            }
            Change::Modes(rules) => {
                self.settings.modes = rules;
                self.save_choice(SettingKey::Modes);
                tracing::info!(
                    modes = self.settings.modes.len(),
                    "per-app modes changed on the settings page"
                );
                self.window_shows_settings();
                None
            }
            Change::LogText(on) => {
                self.settings.log_text = on;
                self.save_choice(SettingKey::LogText);
                crate::logging::set_log_text(on);
                self.window_shows_settings();
                None
            }
        };
        let saved = self.file_holds(key);
        let values = FormValues::of(&self.settings);
        let applied = Reply::Applied {
            key: key.to_string(),
            values: values.clone(),
            saved,
            problem: problem.map(|p| p.text(self.lang)),
        };
        self.history_window.settings_changed(values, Some(applied));
    }

    /// The menu's own handling of `action`, when the page's value differs from the app's.
    fn menu_if(&mut self, differs: bool, action: MenuAction) -> Option<Problem> {
        if differs {
            self.menu(action);
        }
        None
    }

    /// Sets a setting the menu has no item for, writes that key ([`Self::save_choice`], which
    /// also reads the file's wording again) and rebuilds the wording from the settings in memory
    /// (also when the file could not be written: the change then applies until the app quits).
    /// A changed retention goes to the history thread at once.
    fn set_wording(&mut self, key: SettingKey, set: impl FnOnce(&mut Settings)) -> Option<Problem> {
        let retention_before = retention(&self.settings);
        set(&mut self.settings);
        self.save_choice(key);
        self.wording = Arc::new(Wording::from_settings(&self.settings));
        if retention(&self.settings) != retention_before {
            self.history
                .send(HistoryCommand::Retention(retention(&self.settings)));
        }
        tracing::info!(
            key = key.name(),
            vocabulary = self.settings.vocabulary.len(),
            replacements = self.settings.replacements.len(),
            "setting changed on the settings page"
        );
        self.window_shows_settings();
        None
    }

    /// Whether settings.json, read back now, holds the app's value of `key`.
    fn file_holds(&self, key: &str) -> bool {
        let Some(key) = SettingKey::ALL.into_iter().find(|k| k.name() == key) else {
            return false;
        };
        let (on_disk, warning) = Settings::load(&self.paths.state_dir);
        !warning.is_some_and(|w| w.whole_file)
            && self
                .paths
                .state_dir
                .join(crate::settings::SETTINGS_FILE)
                .exists()
            && key.value_in(&on_disk) == key.value_in(&self.settings)
    }

    /// The open Settings page shows the settings as they are now (after a menu choice).
    pub(in crate::app) fn window_shows_settings(&mut self) {
        if self.history_window.is_open() {
            let values = FormValues::of(&self.settings);
            self.history_window.settings_changed(values, None);
        }
    }
}
