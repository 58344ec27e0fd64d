//! The tray icon and its menu: building it from the settings, keeping the check marks, status
//! line and recent transcripts up to date, and turning a clicked item's id back into a
//! [`MenuAction`]. Ids are plain strings ("output:copy") so the mapping is a pure function.
//! The Model menu's lines are worked out in [`model_lines`].

mod model_lines;

use super::overlay::Position;
use super::texts::{
    hotkey_label, hotkey_presets, labels, main_languages, model_menu, Labels, MORE_LANGUAGES,
};
use crate::app_icons::{icon_rgba, IconState, IconStyle};
use crate::device::DeviceKind;
use crate::i18n::UiLang;
use crate::inject::OutputMode;
use crate::settings::Settings;
use tray_icon::menu::accelerator::{Accelerator, Code, Modifiers};
use tray_icon::menu::{CheckMenuItem, IsMenuItem, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tray_icon::{Icon, TrayIcon, TrayIconBuilder};

pub use model_lines::{model_menu_lines, MenuLine, ModelMenuView};

/// How many transcripts the menu keeps.
pub const RECENT: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuAction {
    CopyRecent(usize),
    Retry,
    /// Open the History window (or bring it to the front).
    OpenHistory,
    /// Open the window on its Settings page (or go there).
    OpenSettings,
    /// Open the window on its Models page (or go there).
    OpenModels,
    Model(String),
    /// A catalogue model to download (a first click arms it, a second starts it).
    DownloadModel(String),
    /// Download an installed catalogue model again (it failed to load).
    RedownloadModel(String),
    CancelDownload,
    /// `auto`, `auto:pl,en` or a language code (the settings' form).
    Language(String),
    /// `auto`, `mps`, `cuda` or `cpu`.
    Device(String),
    /// `fast` or `exact` (the `encoder` setting).
    Encoder(String),
    /// `hold` or `toggle`.
    HotkeyMode(String),
    /// A `global-hotkey` accelerator such as `ctrl+alt+space`.
    Hotkey(String),
    /// An input device name; empty = the system default.
    Microphone(String),
    Output(OutputMode),
    /// Show the overlay while dictating, or not (a toggle).
    Overlay,
    OverlayPosition(Position),
    /// Open settings.json (vocabulary, replacements) in a text editor.
    EditVocabulary,
    /// Privacy ▸ Keep recordings (a toggle): keep a recording once its text is delivered.
    KeepRecordings,
    /// Privacy ▸ Keep history (a toggle): keep each delivered dictation in the history.
    KeepHistory,
    /// Privacy ▸ Forget everything… (a first click arms it, a second forgets).
    ForgetEverything,
    LaunchAtLogin,
    /// Re-check the permissions and open the System Settings pane of the first one missing.
    Permissions,
    OpenLogs,
    Quit,
}

impl MenuAction {
    pub fn id(&self) -> String {
        match self {
            MenuAction::CopyRecent(i) => format!("recent:{i}"),
            MenuAction::Retry => "retry".into(),
            MenuAction::OpenHistory => "history".into(),
            MenuAction::OpenSettings => "settings".into(),
            MenuAction::OpenModels => "models".into(),
            MenuAction::Model(m) => format!("model:{m}"),
            MenuAction::DownloadModel(m) => format!("download:{m}"),
            MenuAction::RedownloadModel(m) => format!("redownload:{m}"),
            MenuAction::CancelDownload => "download-cancel".into(),
            MenuAction::Language(l) => format!("language:{l}"),
            MenuAction::Device(d) => format!("device:{d}"),
            MenuAction::Encoder(e) => format!("encoder:{e}"),
            MenuAction::HotkeyMode(m) => format!("mode:{m}"),
            MenuAction::Hotkey(h) => format!("hotkey:{h}"),
            MenuAction::Microphone(m) => format!("microphone:{m}"),
            MenuAction::Output(o) => format!("output:{}", o.name()),
            MenuAction::Overlay => "overlay".into(),
            MenuAction::OverlayPosition(p) => format!("overlay-position:{}", p.name()),
            MenuAction::EditVocabulary => "vocabulary".into(),
            MenuAction::KeepRecordings => "keep-recordings".into(),
            MenuAction::KeepHistory => "keep-history".into(),
            MenuAction::ForgetEverything => "forget".into(),
            MenuAction::LaunchAtLogin => "login".into(),
            MenuAction::Permissions => "permissions".into(),
            MenuAction::OpenLogs => "logs".into(),
            MenuAction::Quit => "quit".into(),
        }
    }

    pub fn parse(id: &str) -> Option<MenuAction> {
        let (kind, value) = id.split_once(':').unwrap_or((id, ""));
        Some(match (kind, value) {
            ("recent", i) => MenuAction::CopyRecent(i.parse().ok()?),
            ("retry", "") => MenuAction::Retry,
            ("history", "") => MenuAction::OpenHistory,
            ("settings", "") => MenuAction::OpenSettings,
            ("models", "") => MenuAction::OpenModels,
            ("model", m) if !m.is_empty() => MenuAction::Model(m.to_string()),
            ("download", m) if !m.is_empty() => MenuAction::DownloadModel(m.to_string()),
            ("redownload", m) if !m.is_empty() => MenuAction::RedownloadModel(m.to_string()),
            ("download-cancel", "") => MenuAction::CancelDownload,
            ("language", l) if !l.is_empty() => MenuAction::Language(l.to_string()),
            ("device", d) if !d.is_empty() => MenuAction::Device(d.to_string()),
            ("encoder", e) if !e.is_empty() => MenuAction::Encoder(e.to_string()),
            ("mode", m) if !m.is_empty() => MenuAction::HotkeyMode(m.to_string()),
            ("hotkey", h) if !h.is_empty() => MenuAction::Hotkey(h.to_string()),
            ("microphone", m) => MenuAction::Microphone(m.to_string()),
            ("output", o) => MenuAction::Output(OutputMode::parse(o)?),
            ("overlay", "") => MenuAction::Overlay,
            ("overlay-position", p) => MenuAction::OverlayPosition(Position::parse(p)?),
            ("vocabulary", "") => MenuAction::EditVocabulary,
            ("keep-recordings", "") => MenuAction::KeepRecordings,
            ("keep-history", "") => MenuAction::KeepHistory,
            ("forget", "") => MenuAction::ForgetEverything,
            ("login", "") => MenuAction::LaunchAtLogin,
            ("permissions", "") => MenuAction::Permissions,
            ("logs", "") => MenuAction::OpenLogs,
            ("quit", "") => MenuAction::Quit,
            _ => return None,
        })
    }
}

/// The menu's item for an `encoder` setting: `exact`, or `fast` for anything else (as the
/// worker reads it, `app::worker::padding_from`).
fn encoder_choice(setting: &str) -> &'static str {
    match crate::app::worker::padding_from(setting) {
        crate::whisper::PaddingEncoding::Full => "exact",
        crate::whisper::PaddingEncoding::Primed => "fast",
    }
}

/// "Settings…"'s shortcut: ⌘, on macOS, as every Mac app's settings (muda gives the macOS
/// menu item the key equivalent "," with Command for META: muda's `accelerator/macos.rs`), shown in the
/// menu and working while it is open; none elsewhere (a tray menu there has no shortcuts).
pub fn settings_accelerator(mac: bool) -> Option<Accelerator> {
    mac.then(|| Accelerator::new(Modifiers::META, Code::Comma))
}

/// A group of check items of which exactly one is checked (muda has no radio items).
struct Radio {
    items: Vec<(String, CheckMenuItem)>,
}

impl Radio {
    fn new(
        parent: &Submenu,
        choices: &[(String, String, bool)],
        make_id: impl Fn(&str) -> String,
    ) -> Radio {
        let items = choices
            .iter()
            .map(|(value, label, enabled)| {
                let item = CheckMenuItem::with_id(make_id(value), label, *enabled, false, None);
                let _ = parent.append(&item);
                (value.clone(), item)
            })
            .collect();
        Radio { items }
    }

    fn select(&self, value: &str) {
        for (v, item) in &self.items {
            item.set_checked(v == value);
        }
    }
}

pub struct Tray {
    icon: TrayIcon,
    style: IconStyle,
    shown: Option<IconState>,
    status: MenuItem,
    microphone: MenuItem,
    recent: Submenu,
    retry: MenuItem,
    model_menu: Submenu,
    models: Radio,
    /// The items showing a running download's percent (updated without a rebuild).
    download_progress: Vec<MenuItem>,
    lang: UiLang,
    languages: Radio,
    devices: Radio,
    encoders: Radio,
    modes: Radio,
    hotkeys: Radio,
    /// The Hotkey submenu (a hotkey chosen on the Settings page is added to it).
    mode_menu: Submenu,
    microphones: Radio,
    outputs: Radio,
    overlay: CheckMenuItem,
    overlay_positions: Radio,
    /// Privacy ▸ Keep recordings.
    keep_recordings: CheckMenuItem,
    /// Privacy ▸ Keep history.
    keep_history: CheckMenuItem,
    /// Privacy ▸ Forget everything… (its label asks for the second click while armed).
    forget: MenuItem,
    login: CheckMenuItem,
    /// "Permissions…" (macOS only: the platform has none to manage elsewhere).
    permissions: Option<MenuItem>,
    labels: Labels,
}

/// What the menu needs to know at start.
pub struct MenuModel<'a> {
    pub lang: UiLang,
    pub settings: &'a Settings,
    pub installed_models: &'a [String],
    /// Devices this machine has (the CPU always).
    pub available_devices: &'a [DeviceKind],
    /// Input devices this machine lists.
    pub microphones: &'a [String],
    pub launch_at_login: bool,
    /// The permissions item's label, where the platform has permissions (macOS).
    pub permissions: Option<&'a str>,
    /// What works in this desktop session, under the microphone line (Wayland only).
    pub session: Option<&'a str>,
}

impl Tray {
    /// Builds the icon and menu. On macOS this must run once the event loop is running.
    pub fn build(model: &MenuModel) -> Result<Tray, String> {
        let l = labels(model.lang);
        let menu = Menu::new();
        let status = MenuItem::new("…", false, None);
        let microphone = MenuItem::new("…", false, None);
        let recent = Submenu::with_id("recent", l.recent, true);
        let retry = MenuItem::with_id("retry", l.retry, false, None);
        let history = MenuItem::with_id(MenuAction::OpenHistory.id(), l.history, true, None);
        let settings_item = MenuItem::with_id(
            MenuAction::OpenSettings.id(),
            l.settings,
            true,
            settings_accelerator(crate::platform::IS_MACOS),
        );

        let model_menu = Submenu::new(l.model, true);

        let language_menu = Submenu::new(l.language, true);
        let [(pl, pl_label), (en, en_label)] = main_languages(model.lang);
        let language_choices = vec![
            ("auto".to_string(), l.lang_auto.to_string(), true),
            (
                "auto:pl,en".to_string(),
                l.lang_auto_pl_en.to_string(),
                true,
            ),
            (pl.to_string(), pl_label.to_string(), true),
            (en.to_string(), en_label.to_string(), true),
        ];
        let more = Submenu::new(l.lang_more, true);
        let languages_main = Radio::new(&language_menu, &language_choices, |v| {
            MenuAction::Language(v.into()).id()
        });
        let more_choices: Vec<(String, String, bool)> = MORE_LANGUAGES
            .iter()
            .map(|(code, name)| (code.to_string(), name.to_string(), true))
            .collect();
        let languages_more = Radio::new(&more, &more_choices, |v| {
            MenuAction::Language(v.into()).id()
        });
        let _ = language_menu.append(&more);
        let mut language_items = languages_main.items;
        language_items.extend(languages_more.items);
        let languages = Radio {
            items: language_items,
        };

        let device_menu = Submenu::new(l.device, true);
        let device_choices: Vec<(String, String, bool)> =
            std::iter::once(("auto".to_string(), l.device_auto.to_string(), true))
                .chain(
                    [
                        (DeviceKind::Mps, "&MPS (Apple GPU)"),
                        (DeviceKind::Cuda, "C&UDA (NVIDIA GPU)"),
                        (DeviceKind::Cpu, "&CPU"),
                    ]
                    .into_iter()
                    .map(|(kind, label)| {
                        let available = model.available_devices.contains(&kind);
                        (kind.name().to_string(), label.to_string(), available)
                    }),
                )
                .collect();
        let devices = Radio::new(&device_menu, &device_choices, |v| {
            MenuAction::Device(v.into()).id()
        });
        let _ = device_menu.append(&PredefinedMenuItem::separator());
        let encoders = Radio::new(
            &device_menu,
            &[
                ("fast".to_string(), l.encoder_fast.to_string(), true),
                ("exact".to_string(), l.encoder_exact.to_string(), true),
            ],
            |v| MenuAction::Encoder(v.into()).id(),
        );

        let mode_menu = Submenu::new(l.hotkey_mode, true);
        let modes = Radio::new(
            &mode_menu,
            &[
                ("hold".to_string(), l.mode_hold.to_string(), true),
                ("toggle".to_string(), l.mode_toggle.to_string(), true),
            ],
            |v| MenuAction::HotkeyMode(v.into()).id(),
        );
        let _ = mode_menu.append(&PredefinedMenuItem::separator());
        let mac = crate::platform::IS_MACOS;
        let presets = hotkey_presets(mac);
        let mut hotkey_choices: Vec<(String, String, bool)> = presets
            .iter()
            .map(|h| (h.to_string(), hotkey_label(h, mac), true))
            .collect();
        if !presets.contains(&model.settings.hotkey.as_str()) {
            let h = &model.settings.hotkey;
            hotkey_choices.push((h.clone(), hotkey_label(h, mac), true));
        }
        let hotkeys = Radio::new(&mode_menu, &hotkey_choices, |v| {
            MenuAction::Hotkey(v.into()).id()
        });

        let microphone_menu = Submenu::new(l.microphone, true);
        let mut microphone_choices = vec![(String::new(), l.microphone_default.to_string(), true)];
        microphone_choices.extend(
            model
                .microphones
                .iter()
                .map(|m| (m.clone(), menu_preview(m), true)),
        );
        let wanted = &model.settings.input_device;
        if !wanted.is_empty() && !model.microphones.contains(wanted) {
            // Chosen earlier, not connected now: still shown, so the choice is visible.
            microphone_choices.push((wanted.clone(), menu_preview(wanted), false));
        }
        let microphones = Radio::new(&microphone_menu, &microphone_choices, |v| {
            MenuAction::Microphone(v.into()).id()
        });

        let output_menu = Submenu::new(l.output, true);
        let outputs = Radio::new(
            &output_menu,
            &[
                ("paste".to_string(), l.output_paste.to_string(), true),
                ("type".to_string(), l.output_type.to_string(), true),
                ("copy".to_string(), l.output_copy.to_string(), true),
            ],
            |v| format!("output:{v}"),
        );

        let overlay_menu = Submenu::new(l.overlay, true);
        let overlay = CheckMenuItem::with_id(
            MenuAction::Overlay.id(),
            l.overlay_shown,
            true,
            model.settings.overlay,
            None,
        );
        let _ = overlay_menu.append(&overlay);
        let _ = overlay_menu.append(&PredefinedMenuItem::separator());
        let overlay_positions = Radio::new(
            &overlay_menu,
            &[
                ("bottom".to_string(), l.overlay_bottom.to_string(), true),
                ("top".to_string(), l.overlay_top.to_string(), true),
            ],
            |v| format!("overlay-position:{v}"),
        );

        let vocabulary =
            MenuItem::with_id(MenuAction::EditVocabulary.id(), l.vocabulary, true, None);
        let privacy_menu = Submenu::new(l.privacy, true);
        let keep_recordings = CheckMenuItem::with_id(
            MenuAction::KeepRecordings.id(),
            l.keep_recordings,
            true,
            model.settings.keep_delivered_recordings,
            None,
        );
        let keep_history = CheckMenuItem::with_id(
            MenuAction::KeepHistory.id(),
            l.keep_history,
            true,
            model.settings.keep_history,
            None,
        );
        let forget = MenuItem::with_id(MenuAction::ForgetEverything.id(), l.forget, true, None);
        let _ = privacy_menu.append(&keep_recordings);
        let _ = privacy_menu.append(&keep_history);
        let _ = privacy_menu.append(&PredefinedMenuItem::separator());
        let _ = privacy_menu.append(&forget);
        let login = CheckMenuItem::with_id(
            MenuAction::LaunchAtLogin.id(),
            l.launch_at_login,
            true,
            model.launch_at_login,
            None,
        );
        let logs = MenuItem::with_id(MenuAction::OpenLogs.id(), l.open_logs, true, None);
        let quit = MenuItem::with_id(MenuAction::Quit.id(), l.quit, true, None);
        let items: [&dyn IsMenuItem; 22] = [
            &status,
            &microphone,
            &PredefinedMenuItem::separator(),
            &recent,
            &retry,
            &history,
            &settings_item,
            &PredefinedMenuItem::separator(),
            &model_menu,
            &language_menu,
            &device_menu,
            &mode_menu,
            &microphone_menu,
            &output_menu,
            &overlay_menu,
            &vocabulary,
            &privacy_menu,
            &PredefinedMenuItem::separator(),
            &login,
            &logs,
            &PredefinedMenuItem::separator(),
            &quit,
        ];
        menu.append_items(&items).map_err(|e| e.to_string())?;
        let permissions = model
            .permissions
            .map(|label| MenuItem::with_id(MenuAction::Permissions.id(), label, true, None));
        if let Some(item) = &permissions {
            let at = items.iter().position(|i| i.id() == login.id());
            menu.insert(item, at.unwrap_or(items.len()))
                .map_err(|e| e.to_string())?;
        }
        if let Some(line) = model.session {
            // Informative, like the status and microphone lines above it.
            menu.insert(&MenuItem::new(line, false, None), 2)
                .map_err(|e| e.to_string())?;
        }

        let style = crate::platform::tray_icon_style();
        let first = load_icon(IconState::Transcribing, style)?;
        let icon = TrayIconBuilder::new()
            .with_menu(Box::new(menu))
            .with_tooltip("Whisper Dictation")
            .with_icon(first.clone())
            .build()
            .map_err(|e| e.to_string())?;
        // Again through the platform seam, which draws it as a template on macOS.
        crate::platform::set_tray_icon(&icon, first).map_err(|e| e.to_string())?;
        let tray = Tray {
            icon,
            style,
            shown: Some(IconState::Transcribing),
            status,
            microphone,
            recent,
            retry,
            model_menu,
            models: Radio { items: Vec::new() },
            download_progress: Vec::new(),
            lang: model.lang,
            languages,
            devices,
            encoders,
            modes,
            hotkeys,
            mode_menu: mode_menu.clone(),
            microphones,
            outputs,
            overlay,
            overlay_positions,
            keep_recordings,
            keep_history,
            forget,
            login,
            permissions,
            labels: l,
        };
        let mut tray = tray;
        tray.set_model_menu(&ModelMenuView {
            installed: model.installed_models,
            current: &model.settings.model,
            ..ModelMenuView::default()
        });
        tray.set_recent(&[]);
        tray.show_settings(model.settings);
        Ok(tray)
    }

    /// Check marks from the settings.
    pub fn show_settings(&self, settings: &Settings) {
        self.models.select(&settings.model);
        self.languages.select(&settings.language);
        self.devices.select(&settings.device);
        self.encoders.select(encoder_choice(&settings.encoder));
        self.modes.select(&settings.hotkey_mode);
        self.hotkeys.select(&settings.hotkey);
        self.microphones.select(&settings.input_device);
        self.outputs.select(&settings.output);
        self.overlay.set_checked(settings.overlay);
        self.overlay_positions
            .select(Position::parse(&settings.overlay_position).map_or("bottom", Position::name));
        self.keep_recordings
            .set_checked(settings.keep_delivered_recordings);
        self.keep_history.set_checked(settings.keep_history);
    }

    /// Adds `hotkey` to the Hotkey submenu when it is none of its items (one typed on the
    /// Settings page), so that its check mark can show it.
    pub fn offer_hotkey(&mut self, hotkey: &str) {
        if self.hotkeys.items.iter().any(|(value, _)| value == hotkey) {
            return;
        }
        let label = hotkey_label(hotkey, crate::platform::IS_MACOS);
        let item = CheckMenuItem::with_id(
            MenuAction::Hotkey(hotkey.into()).id(),
            label,
            true,
            false,
            None,
        );
        let _ = self.mode_menu.append(&item);
        self.hotkeys.items.push((hotkey.to_string(), item));
    }

    /// "Forget everything…", or while it waits for its confirming click, the label asking for it.
    pub fn set_forget_armed(&self, armed: bool) {
        self.forget.set_text(if armed {
            self.labels.forget_confirm
        } else {
            self.labels.forget
        });
    }

    pub fn set_icon(&mut self, state: IconState) {
        if self.shown == Some(state) {
            return;
        }
        match load_icon(state, self.style) {
            Ok(icon) => {
                if let Err(e) = crate::platform::set_tray_icon(&self.icon, icon) {
                    tracing::warn!("tray icon not updated: {e}");
                }
                self.shown = Some(state);
            }
            Err(e) => tracing::warn!("{e}"),
        }
    }

    pub fn set_status(&self, text: &str) {
        self.status.set_text(text);
        let _ = self.icon.set_tooltip(Some(text));
    }

    pub fn set_microphone(&self, text: &str) {
        self.microphone.set_text(text);
    }

    /// The permissions item's label (it names what is missing).
    pub fn set_permissions(&self, label: &str) {
        if let Some(item) = &self.permissions {
            item.set_text(label);
        }
    }

    pub fn set_login(&self, enabled: bool) {
        self.login.set_checked(enabled);
    }

    pub fn set_retry_enabled(&self, enabled: bool) {
        self.retry.set_enabled(enabled);
    }

    /// Rebuilds the Model menu: installed models (radio), a running download with its
    /// percent and Cancel, "download again" for a model that failed to load, and the
    /// "Download a model" submenu of catalogue models not installed, then "Manage models…"
    /// (the window's Models page).
    pub fn set_model_menu(&mut self, view: &ModelMenuView) {
        while self.model_menu.remove_at(0).is_some() {}
        let (top, downloads) = model_menu_lines(self.lang, view);
        let mut choices = Vec::new();
        let mut progress = Vec::new();
        let append_line =
            |parent: &Submenu, line: &MenuLine, progress: &mut Vec<MenuItem>| match line {
                MenuLine::Choice { .. } => {}
                MenuLine::Separator => {
                    let _ = parent.append(&PredefinedMenuItem::separator());
                }
                MenuLine::Item {
                    id,
                    label,
                    enabled,
                    shows_progress,
                } => {
                    let item = match id {
                        Some(id) => MenuItem::with_id(id.clone(), label, *enabled, None),
                        None => MenuItem::new(label, *enabled, None),
                    };
                    let _ = parent.append(&item);
                    if *shows_progress {
                        progress.push(item);
                    }
                }
            };
        for line in &top {
            match line {
                MenuLine::Choice { value, label } => {
                    let item = CheckMenuItem::with_id(
                        MenuAction::Model(value.clone()).id(),
                        label,
                        true,
                        value == view.current,
                        None,
                    );
                    let _ = self.model_menu.append(&item);
                    choices.push((value.clone(), item));
                }
                other => append_line(&self.model_menu, other, &mut progress),
            }
        }
        let _ = self.model_menu.append(&PredefinedMenuItem::separator());
        let submenu = Submenu::new(model_menu::download_submenu(self.lang), true);
        for line in &downloads {
            append_line(&submenu, line, &mut progress);
        }
        let _ = self.model_menu.append(&submenu);
        let _ = self.model_menu.append(&PredefinedMenuItem::separator());
        let _ = self.model_menu.append(&MenuItem::with_id(
            MenuAction::OpenModels.id(),
            model_menu::manage(self.lang),
            true,
            None,
        ));
        self.models = Radio { items: choices };
        self.download_progress = progress;
    }

    /// New text for the running download's items (its percent), without a rebuild.
    pub fn set_download_progress(&self, text: &str) {
        for item in &self.download_progress {
            item.set_text(text);
        }
    }

    /// The last transcripts, newest first; each click copies one again.
    pub fn set_recent(&self, texts: &[String]) {
        while self.recent.remove_at(0).is_some() {}
        if texts.is_empty() {
            let _ = self
                .recent
                .append(&MenuItem::new(self.labels.recent_none, false, None));
        }
        for (i, text) in texts.iter().enumerate() {
            let item = MenuItem::with_id(
                MenuAction::CopyRecent(i).id(),
                menu_preview(text),
                true,
                None,
            );
            let _ = self.recent.append(&item);
        }
    }
}

/// A transcript shortened for a menu item: one line, at most 60 characters, `&` escaped so it is
/// not taken for a mnemonic.
pub fn menu_preview(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut preview: String = one_line.chars().take(60).collect();
    if one_line.chars().count() > 60 {
        preview.push('…');
    }
    preview.replace('&', "&&")
}

fn load_icon(state: IconState, style: IconStyle) -> Result<Icon, String> {
    let (rgba, width, height) =
        icon_rgba(state, style, style == IconStyle::Template).map_err(|e| e.to_string())?;
    Icon::from_rgba(rgba, width, height).map_err(|e| format!("tray icon: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoder_setting_checks_fast_unless_exact() {
        assert_eq!(encoder_choice("exact"), "exact");
        assert_eq!(encoder_choice("fast"), "fast");
        assert_eq!(encoder_choice(""), "fast");
    }

    #[test]
    fn every_action_round_trips_through_its_menu_id() {
        let actions = [
            MenuAction::CopyRecent(3),
            MenuAction::Retry,
            MenuAction::OpenHistory,
            MenuAction::OpenSettings,
            MenuAction::OpenModels,
            MenuAction::Model("large-v3-turbo".into()),
            MenuAction::DownloadModel("small".into()),
            MenuAction::RedownloadModel("base".into()),
            MenuAction::CancelDownload,
            MenuAction::Language("auto:pl,en".into()),
            MenuAction::Language("pl".into()),
            MenuAction::Device("cuda".into()),
            MenuAction::Encoder("exact".into()),
            MenuAction::HotkeyMode("toggle".into()),
            MenuAction::Hotkey("ctrl+shift+space".into()),
            MenuAction::Microphone(String::new()),
            MenuAction::Microphone("USB Audio: Mic (hw:1,0)".into()),
            MenuAction::Output(OutputMode::Copy),
            MenuAction::Overlay,
            MenuAction::OverlayPosition(Position::Top),
            MenuAction::OverlayPosition(Position::Bottom),
            MenuAction::EditVocabulary,
            MenuAction::KeepRecordings,
            MenuAction::KeepHistory,
            MenuAction::ForgetEverything,
            MenuAction::LaunchAtLogin,
            MenuAction::Permissions,
            MenuAction::OpenLogs,
            MenuAction::Quit,
        ];
        for action in actions {
            assert_eq!(
                MenuAction::parse(&action.id()),
                Some(action.clone()),
                "{action:?}"
            );
        }
        for junk in [
            "",
            "recent:x",
            "output:fax",
            "model:",
            "download:",
            "download-cancel:x",
            "quit:now",
            "overlay-position:left",
            "forget:now",
            "nothing",
        ] {
            assert_eq!(MenuAction::parse(junk), None, "{junk}");
        }
    }

    #[test]
    fn settings_has_command_comma_on_macos_only() {
        let mac = settings_accelerator(true).expect("an accelerator on macOS");
        assert_eq!(mac, Accelerator::new(Modifiers::META, Code::Comma));
        assert_eq!("cmd+comma".parse::<Accelerator>().ok(), Some(mac));
        assert_eq!(settings_accelerator(false), None);
    }

    #[test]
    fn previews_are_one_short_line_without_mnemonics() {
        assert_eq!(menu_preview("Tom &\nJerry"), "Tom && Jerry");
        let long = "word ".repeat(30);
        let preview = menu_preview(&long);
        assert_eq!(preview.chars().count(), 61);
        assert!(preview.ends_with('…'));
    }
}
