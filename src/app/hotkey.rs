//! The person's hotkey with the OS: registering the one the settings name (the default when
//! the setting does not parse), and saying when it cannot be registered or is also one of
//! macOS's own shortcuts.
//!
//! macOS 15.0 and 15.1 refused hotkeys whose only modifiers are Option or Option+Shift
//! (`RegisterEventHotKey`, global-hotkey's macOS backend, `platform_impl/macos/mod.rs:117`;
//! ⌥Space, the Mac default, is one): Apple called it intentional, against key loggers reading
//! ⌥/⇧⌥ characters typed into passwords, and 15.2 accepted them again (reports: Apple's
//! developer forum thread 763878, Feedback FB15168205, sindresorhus/KeyboardShortcuts #176 and
//! PR #195, Maccy #872/#967). There the "hotkey unavailable" notice names the macOS version and
//! an item of the Hotkey menu that has ⌃ or ⌘ and is none of macOS's shortcuts
//! ([`option_only_refused`]).

use super::notices::Notice;
use super::notify::Notifier;
use super::{notify_of, texts};
use crate::i18n::UiLang;
use crate::platform::HotkeyListener;
use crate::settings::Settings;
use global_hotkey::hotkey::HotKey;
use std::str::FromStr;

/// Registers the hotkey from the settings (the default one if the setting does not parse).
pub(super) fn register_hotkey(
    listener: &HotkeyListener,
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
    match listener.register(hotkey) {
        Ok(()) => {
            tracing::info!(hotkey = text, "hotkey registered");
            // Grabbed and listened for: a key-down from now on starts a dictation.
            tracing::info!(hotkey = text, "hotkey live");
            Some(hotkey)
        }
        Err(e) => {
            tracing::error!(hotkey = text, "hotkey not registered: {e}");
            notify_of(notifier, lang, &unavailable(text, e.to_string()));
            None
        }
    }
}

/// The notice for `hotkey` refused by the OS with `detail`: on macOS 15.0–15.1 for an
/// Option-only hotkey, the one naming the version and a Hotkey menu item that works there.
pub(super) fn unavailable(hotkey: &str, detail: String) -> Notice {
    let mac = crate::platform::IS_MACOS;
    let os_version = crate::platform::os_version();
    let refused = os_version
        .as_deref()
        .and_then(|version| option_only_refused(version, hotkey));
    match refused {
        Some(macos) => {
            let plist = crate::platform::symbolic_hotkeys_plist();
            match alternative_hotkey(hotkey, plist.as_deref()) {
                Some(alternative) => Notice::HotkeyRefusedByMacos {
                    hotkey: texts::hotkey_label(hotkey, mac),
                    macos,
                    alternative: texts::hotkey_label(alternative, mac),
                },
                None => Notice::HotkeyUnavailable {
                    hotkey: hotkey.to_string(),
                    detail,
                },
            }
        }
        None => Notice::HotkeyUnavailable {
            hotkey: hotkey.to_string(),
            detail,
        },
    }
}

/// The macOS release ("15.1") when `os_version` (`platform::os_version`'s text, "15.1
/// (24B83)") is one that refuses `hotkey` for having Option, or Option and Shift, as its only
/// modifiers: 15.0 and 15.1 (15.0.1, 15.1.1 too); `None` on any other version or hotkey.
pub fn option_only_refused(os_version: &str, hotkey: &str) -> Option<String> {
    let release = os_version.split_whitespace().next()?;
    let mut parts = release.split('.').map(str::parse::<u32>);
    let major = parts.next()?.ok()?;
    let minor = match parts.next() {
        Some(minor) => minor.ok()?,
        None => 0,
    };
    if major != 15 || minor > 1 {
        return None;
    }
    option_only(hotkey).then(|| format!("{major}.{minor}"))
}

/// Whether `hotkey`'s modifiers are Option, or Option and Shift, and nothing else.
fn option_only(hotkey: &str) -> bool {
    use global_hotkey::hotkey::Modifiers;
    let Ok(parsed) = HotKey::from_str(hotkey) else {
        return false;
    };
    parsed.mods.contains(Modifiers::ALT)
        && (parsed.mods - (Modifiers::ALT | Modifiers::SHIFT)).is_empty()
}

/// The Hotkey menu's item to offer instead of the Option-only `hotkey`: the first preset
/// (`texts::hotkey_presets`, always in the menu, so one choice there) with ⌃ or ⌘ (global-hotkey
/// reads `super`, `cmd` and `command` as `META`) that is
/// none of the shortcuts macOS has on (`plist`: `platform::symbolic_hotkeys_plist`'s text;
/// `None`: macOS's defaults). F8 is left out: on a Mac it is the play/pause key.
pub fn alternative_hotkey(hotkey: &str, plist: Option<&str>) -> Option<&'static str> {
    use global_hotkey::hotkey::Modifiers;
    texts::hotkey_presets(true).into_iter().find(|preset| {
        let has_control_or_command = HotKey::from_str(preset)
            .is_ok_and(|parsed| parsed.mods.intersects(Modifiers::CONTROL | Modifiers::META));
        *preset != hotkey
            && has_control_or_command
            && crate::system_shortcuts::system_clash(preset, true, plist).is_none()
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_only_hotkeys_are_refused_on_macos_15_0_and_15_1_only() {
        for version in [
            "15.0 (24A335)",
            "15.0.1 (24A348)",
            "15.1 (24B83)",
            "15.1.1 (24B91)",
        ] {
            for hotkey in ["alt+space", "alt+shift+KeyD", "option+space"] {
                assert!(
                    option_only_refused(version, hotkey).is_some(),
                    "{version} {hotkey}"
                );
            }
        }
        assert_eq!(
            option_only_refused("15.1.1 (24B91)", "alt+space").as_deref(),
            Some("15.1")
        );
        assert_eq!(
            option_only_refused("15", "alt+space").as_deref(),
            Some("15.0")
        );
        for version in [
            "14.6.1 (23G93)",
            "15.2 (24C101)",
            "15.3.2",
            "26.0 (25A354)",
            "",
            "x",
        ] {
            assert_eq!(option_only_refused(version, "alt+space"), None, "{version}");
        }
        // With ⌃ or ⌘ (or no modifier) 15.0 and 15.1 take the hotkey.
        for hotkey in [
            "ctrl+alt+space",
            "super+alt+KeyD",
            "ctrl+shift+space",
            "f8",
            "not a key",
        ] {
            assert_eq!(
                option_only_refused("15.0 (24A335)", hotkey),
                None,
                "{hotkey}"
            );
        }
    }

    #[test]
    fn the_alternative_is_a_menu_preset_with_control_or_command_and_no_system_shortcut() {
        let presets = texts::hotkey_presets(true);
        let alternative = alternative_hotkey("alt+space", None).unwrap();
        assert_eq!(alternative, "ctrl+shift+space");
        assert!(presets.contains(&alternative));
        assert_eq!(option_only_refused("15.1", alternative), None);
        assert_eq!(
            crate::system_shortcuts::system_clash(alternative, true, None),
            None
        );
        // The person gave ⌃⇧Space to one of macOS's shortcuts: the next preset.
        let plist = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>AppleSymbolicHotKeys</key><dict>
<key>64</key><dict><key>enabled</key><true/><key>value</key><dict>
<key>parameters</key><array><integer>32</integer><integer>49</integer><integer>393216</integer></array>
<key>type</key><string>standard</string></dict></dict>
</dict></dict></plist>"#;
        assert_eq!(
            crate::system_shortcuts::system_clash("ctrl+shift+space", true, Some(plist))
                .map(|s| s.id),
            Some(crate::system_shortcuts::SPOTLIGHT),
            "the plist must make ⌃⇧Space a system shortcut for this test"
        );
        assert_eq!(
            alternative_hotkey("alt+space", Some(plist)),
            Some("ctrl+alt+d")
        );
    }

    #[test]
    fn the_notice_on_macos_15_1_names_the_version_and_the_menu_choice() {
        let notice = Notice::HotkeyRefusedByMacos {
            hotkey: texts::hotkey_label("alt+space", true),
            macos: option_only_refused("15.1 (24B83)", "alt+space").unwrap(),
            alternative: texts::hotkey_label(alternative_hotkey("alt+space", None).unwrap(), true),
        };
        let (summary, body) = notice.text(UiLang::En);
        assert_eq!(summary, "Hotkey unavailable");
        assert!(
            body.contains("macOS 15.1 refuses")
                && body.contains("⌥Space")
                && body.contains("15.2")
                && body.contains("Hotkey → ⌃⇧Space"),
            "{body}"
        );
        let (summary, body) = notice.text(UiLang::Pl);
        assert_eq!(summary, "Skrót niedostępny");
        assert!(
            body.contains("macOS 15.1 nie przyjmuje")
                && body.contains("⌥Space")
                && body.contains("Skrót klawiszowy → ⌃⇧Space"),
            "{body}"
        );
        // Elsewhere the notice is the plain one.
        if !crate::platform::IS_MACOS {
            assert!(matches!(
                unavailable("alt+space", "taken".into()),
                Notice::HotkeyUnavailable { .. }
            ));
        }
    }
}
