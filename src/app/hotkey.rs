//! The person's hotkey with the OS: registering the one the settings name (the default when
//! the setting does not parse), and saying when it cannot be registered or is also one of
//! macOS's own shortcuts.

use super::notices::Notice;
use super::notify::Notifier;
use super::{notify_of, texts};
use crate::i18n::UiLang;
use crate::settings::Settings;
use global_hotkey::hotkey::HotKey;
use global_hotkey::GlobalHotKeyManager;
use std::str::FromStr;

/// Registers the hotkey from the settings (the default one if the setting does not parse).
pub(super) fn register_hotkey(
    manager: &GlobalHotKeyManager,
    text: &str,
    notifier: &Notifier,
    lang: UiLang,
) -> Option<HotKey> {
    let default = Settings::default().hotkey;
    let hotkey = match HotKey::from_str(text) {
        Ok(hotkey) => hotkey,
        Err(e) => {
            notify_of(
                notifier,
                lang,
                &Notice::HotkeyUnavailable {
                    hotkey: text.to_string(),
                    detail: format!("{e}; using {default}"),
                },
            );
            HotKey::from_str(&default).ok()?
        }
    };
    match manager.register(hotkey) {
        Ok(()) => {
            tracing::info!(hotkey = text, "hotkey registered");
            Some(hotkey)
        }
        Err(e) => {
            tracing::error!(hotkey = text, "hotkey not registered: {e}");
            notify_of(
                notifier,
                lang,
                &Notice::HotkeyUnavailable {
                    hotkey: text.to_string(),
                    detail: e.to_string(),
                },
            );
            None
        }
    }
}

/// Says when `hotkey` is also one of macOS's shortcuts the person has on (read now), so that
/// each dictation would trigger both; nothing elsewhere.
pub(super) fn warn_if_system_shortcut(notifier: &Notifier, lang: UiLang, hotkey: &str) {
    let mac = crate::platform::IS_MACOS;
    let plist = if mac {
        crate::platform::symbolic_hotkeys_plist()
    } else {
        None
    };
    if let Some(shortcut) = crate::system_shortcuts::system_clash(hotkey, mac, plist.as_deref()) {
        tracing::warn!(
            hotkey,
            shortcut = shortcut.id,
            "the hotkey is also a macOS shortcut"
        );
        notify_of(
            notifier,
            lang,
            &Notice::HotkeyIsSystemShortcut {
                hotkey: texts::hotkey_label(hotkey, mac),
                shortcut: shortcut.id,
            },
        );
    }
}
