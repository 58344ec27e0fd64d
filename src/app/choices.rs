//! What the menu's choices do: each one changes the settings, writes its own key into
//! settings.json (only that key, in the file as it is on disk: [`crate::settings::file`], the one
//! writer of the file; a damaged file is never written, a failure is said), and applies it at
//! once — the hotkey re-registered, the microphone reopened, the overlay turned off or moved, the
//! model reloaded — with no restart. Also the wording's re-reading of a hand-edited file.

use super::notices::Notice;
use super::output::OutputCommand;
use super::overlay;
use super::state::{HotkeyMode, Input};
use super::texts::microphone_line;
use super::tray::MenuAction;
use super::wording::Wording;
use super::{recorder_config, App};
use crate::audio::capture::{RecorderCommand, PRE_ROLL};
use crate::settings::file::{self, SettingKey};
use crate::settings::Settings;
use global_hotkey::hotkey::HotKey;
use std::str::FromStr;
use std::sync::Arc;

impl App {
    pub(super) fn menu(&mut self, action: MenuAction) {
        tracing::info!(?action, "menu");
        match action {
            MenuAction::CopyRecent(i) => {
                if let Some(text) = self.recent.get(i) {
                    self.output.send(OutputCommand::Copy(text.clone()));
                }
            }
            MenuAction::Retry => self.input(Input::Retry),
            MenuAction::OpenHistory => self.open_history_window(),
            MenuAction::OpenSettings => self.open_window(super::window::Page::Settings),
            MenuAction::OpenModels => self.open_window(super::window::Page::Models),
            MenuAction::Model(name) => {
                self.settings.model = name;
                self.save_choice(SettingKey::Model);
                self.load_model();
            }
            MenuAction::DownloadModel(name) => self.download_clicked(&name, false),
            MenuAction::RedownloadModel(name) => self.download_clicked(&name, true),
            MenuAction::CancelDownload => {
                if let Some(running) = &self.downloading {
                    running.cancel();
                }
            }
            MenuAction::Language(language) => {
                self.settings.language = language;
                self.save_choice(SettingKey::Language);
            }
            MenuAction::Device(device) => {
                self.settings.device = device;
                self.save_choice(SettingKey::Device);
                self.load_model();
            }
            MenuAction::HotkeyMode(mode) => {
                if let Some(parsed) = HotkeyMode::parse(&mode) {
                    self.settings.hotkey_mode = parsed.name().to_string();
                    self.save_choice(SettingKey::HotkeyMode);
                    self.input(Input::ModeChanged(parsed));
                }
            }
            MenuAction::Hotkey(text) => self.change_hotkey(text),
            MenuAction::Microphone(name) => {
                self.settings.input_device = name;
                self.save_choice(SettingKey::InputDevice);
                self.recorder
                    .send(RecorderCommand::Configure(recorder_config(&self.settings)));
                self.show_microphone();
            }
            MenuAction::Encoder(choice) => {
                // The next transcription reads it; a first fast one primes the model.
                self.settings.encoder = choice;
                self.save_choice(SettingKey::Encoder);
                tracing::info!(encoder = %self.settings.encoder, "encoder changed");
            }
            MenuAction::Output(mode) => {
                self.settings.output = mode.name().to_string();
                self.save_choice(SettingKey::Output);
                tracing::info!(output = mode.name(), "output mode changed");
                self.check_permissions();
            }
            MenuAction::Overlay => {
                self.settings.overlay = !self.settings.overlay;
                self.save_choice(SettingKey::Overlay);
                self.configure_overlay();
            }
            MenuAction::OverlayPosition(position) => {
                self.settings.overlay_position = position.name().to_string();
                self.save_choice(SettingKey::OverlayPosition);
                self.configure_overlay();
            }
            MenuAction::EditVocabulary => self.edit_vocabulary(),
            MenuAction::KeepRecordings => self.keep_recordings_clicked(),
            MenuAction::KeepHistory => self.keep_history_clicked(),
            MenuAction::ForgetEverything => self.forget_clicked(),
            MenuAction::LaunchAtLogin => self.toggle_login_item(),
            MenuAction::Permissions => self.permissions_clicked(),
            MenuAction::OpenLogs => {
                if let Err(e) = super::log_folder::open(&self.paths.log_dir, self.lang) {
                    tracing::warn!("{e}");
                }
            }
            MenuAction::Quit => self.quit = true,
        }
        if let Some(tray) = &self.tray {
            tray.show_settings(&self.settings);
        }
        self.window_shows_settings();
        self.window_shows_models();
    }

    /// Registers `text` instead of the current hotkey; on failure the old one stays.
    pub(super) fn change_hotkey(&mut self, text: String) {
        let Ok(new) = HotKey::from_str(&text) else {
            return;
        };
        let Some(hotkeys) = &self.hotkeys else {
            // Wayland without X11: no grab to change; the setting is kept for the portal's
            // preferred trigger and for an X11 session.
            self.settings.hotkey = text;
            self.save_choice(SettingKey::Hotkey);
            return;
        };
        if let Some(old) = self.hotkey.take() {
            let _ = hotkeys.unregister(old);
        }
        match hotkeys.register(new) {
            Ok(()) => {
                tracing::info!(hotkey = text, "hotkey changed");
                self.hotkey = Some(new);
                super::hotkey::warn_if_system_shortcut(&self.notifier, self.lang, &text);
                if let Some(tray) = &mut self.tray {
                    tray.offer_hotkey(&text);
                }
                self.settings.hotkey = text;
                self.save_choice(SettingKey::Hotkey);
            }
            Err(e) => {
                self.notify(&super::hotkey::unavailable(&text, e.to_string()));
                self.hotkey = HotKey::from_str(&self.settings.hotkey)
                    .ok()
                    .filter(|old| hotkeys.register(*old).is_ok());
            }
        }
    }

    pub(in crate::app) fn show_microphone(&self) {
        if let Some(tray) = &self.tray {
            let pre_roll = self.settings.keep_microphone_open.then_some(PRE_ROLL);
            tray.set_microphone(&microphone_line(
                self.lang,
                &self.settings.input_device,
                pre_roll,
            ));
        }
    }

    pub(super) fn configure_overlay(&mut self) {
        let position = overlay_position(&self.settings);
        tracing::info!(
            shown = self.settings.overlay,
            position = position.name(),
            "overlay settings"
        );
        self.overlay.configure(self.settings.overlay, position);
    }

    /// Writes the menu's choice `key` (already set in `self.settings`) into settings.json: that
    /// key only, in the file as it is on disk now ([`crate::settings::file`]), so what the person
    /// saved there by hand is kept; then reads the file's wording again, so a vocabulary saved a
    /// minute ago applies to the next dictation. A file that cannot be taken (not JSON, a newer
    /// schema) is left byte for byte as it is: the choice applies in memory only, and the notice
    /// says so once (again only when the problem changes).
    pub(super) fn save_choice(&mut self, key: SettingKey) {
        match file::set_key(&self.paths.state_dir, &self.settings, key) {
            Ok(written) => {
                tracing::info!(key = key.name(), ?written, "setting saved");
                self.read_edited_wording();
            }
            Err(e) if e.is_kept() => {
                tracing::warn!(
                    key = key.name(),
                    "{e}; the file is kept as it is and the choice applies in memory only"
                );
                // Nothing in it can be read; the next dictation need not say so again.
                self.settings_changed = settings_modified(&self.paths.state_dir);
                self.say_settings_problem(
                    e.to_string(),
                    Notice::SettingsKept {
                        detail: e.to_string(),
                    },
                );
            }
            Err(e) => {
                tracing::warn!(key = key.name(), "{e}");
                self.notify(&Notice::SettingsNotSaved {
                    detail: e.to_string(),
                });
            }
        }
    }

    /// Notifies `notice` about a settings.json `problem` unless that problem was the last one
    /// said (a notice at every menu click or every dictation would only annoy).
    fn say_settings_problem(&mut self, problem: String, notice: Notice) {
        if self.settings_problem_said.as_deref() != Some(problem.as_str()) {
            self.notify(&notice);
            self.settings_problem_said = Some(problem);
        }
    }

    /// "Vocabulary and replacements…": settings.json (written first if there is none, so every
    /// field is there to fill in) in the system's text editor. What is saved there applies from
    /// the next dictation ([`Self::reload_edited_wording`]).
    fn edit_vocabulary(&mut self) {
        let path = self.paths.state_dir.join(crate::settings::SETTINGS_FILE);
        match file::create_if_missing(&self.paths.state_dir, &self.settings) {
            Ok(true) => self.settings_changed = settings_modified(&self.paths.state_dir),
            Ok(false) => {}
            Err(e) => tracing::warn!("{e}"),
        }
        match crate::platform::open_text_file(&path) {
            Ok(()) => tracing::info!(path = %path.display(), "settings opened for editing"),
            Err(e) => tracing::warn!("cannot open {}: {e}", path.display()),
        }
    }

    /// When settings.json changed since the app last read or wrote it (edited by hand), takes
    /// its wording again ([`Self::read_edited_wording`]).
    pub(super) fn reload_edited_wording(&mut self) {
        if settings_modified(&self.paths.state_dir) != self.settings_changed {
            self.read_edited_wording();
        }
    }

    /// Takes settings.json's prompt, vocabulary, replacements, spoken commands and fillers
    /// setting, text logging and the history's retention as the file has them now (read before
    /// the next dictation); the other settings are the menu's and a hand edit of
    /// them applies at the next start (the file keeps it: the menu writes only its own key). A
    /// damaged file keeps the current wording and says what is wrong (once per problem).
    fn read_edited_wording(&mut self) {
        self.settings_changed = settings_modified(&self.paths.state_dir);
        let (edited, warning) = Settings::load(&self.paths.state_dir);
        match warning {
            Some(warning) => {
                tracing::warn!("{warning}");
                let detail = warning.file_and_problem();
                // Not "using the default settings" as at start: the app keeps what it has.
                let notice = if warning.whole_file {
                    Notice::SettingsKept {
                        detail: detail.clone(),
                    }
                } else {
                    Notice::SettingsDamaged {
                        detail: detail.clone(),
                        whole_file: false,
                    }
                };
                self.say_settings_problem(detail, notice);
                if warning.whole_file {
                    return;
                }
            }
            None => self.settings_problem_said = None,
        }
        self.history_retention_edited(&edited);
        self.settings.prompt = edited.prompt;
        self.settings.vocabulary = edited.vocabulary;
        self.settings.replacements = edited.replacements;
        self.settings.spoken_commands = edited.spoken_commands;
        self.settings.remove_fillers = edited.remove_fillers;
        self.settings.log_text = edited.log_text;
        crate::logging::set_log_text(self.settings.log_text);
        self.wording = Arc::new(Wording::from_settings(&self.settings));
        tracing::info!(
            vocabulary = self.settings.vocabulary.len(),
            replacements = self.settings.replacements.len(),
            spoken_commands = self.settings.spoken_commands,
            remove_fillers = self.settings.remove_fillers,
            "wording settings reloaded"
        );
    }

    pub(super) fn toggle_login_item(&mut self) {
        let Some(item) = &self.login_item else {
            return;
        };
        let result = if item.is_enabled() {
            item.disable()
        } else {
            item.enable()
        };
        if let Err(e) = result {
            tracing::warn!("launch at login: {}: {e}", item.path.display());
        }
        if let Some(tray) = &self.tray {
            tray.set_login(item.is_enabled());
        }
    }
}

/// When settings.json was last modified (`None` when there is none).
pub(super) fn settings_modified(state_dir: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(state_dir.join(crate::settings::SETTINGS_FILE))
        .and_then(|m| m.modified())
        .ok()
}

/// The overlay's place from the settings (bottom centre unless `top`).
pub(super) fn overlay_position(settings: &Settings) -> overlay::Position {
    overlay::Position::parse(&settings.overlay_position).unwrap_or(overlay::Position::Bottom)
}
